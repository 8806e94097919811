// The run settings: engine, objective, devices, budget, seed, threads, and the chosen engine's
// own parameters, with Start and Cancel and a progress bar. The engine list, its tooltips and the
// parameter widgets (type, range, default, help as tooltip) are generated from the engine
// descriptions in the registry (placement/PlacementEngines.h), so the panel offers exactly what
// the engines accept. It only builds a RunSpec; MainWindow runs it.
#pragma once

#include <QMap>
#include <QWidget>

#include "run/ParamSpec.h"
#include "run/Run.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace graphopt {
class DeviceModel;
}

namespace graphopt::ui {

class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);

    RunSpec spec() const;
    // A model that brings its own devices (a partitioning workload): offered first as "from the
    // model: NAME" and chosen; nullptr takes the entry away again (a model without).
    void offerModelDevices(const DeviceModel* own);
    // Engine, objective, devices, budget, seed; params the engine describes set its widgets.
    void setSpec(const RunSpec& spec);
    void setRunning(bool running);
    void setProgress(double fraction);
    void setStatus(const QString& text);
    // The widget of a parameter of the current engine (objectName "param:NAME"), or nullptr.
    QWidget* parameterWidget(const QString& name) const { return paramWidgets_.value(name, nullptr); }
    // The policy chooser (engine regal): re-reads the user's policy folder (userPolicyDir) and
    // offers the policies trained for the current objective and devices, after the shipped one.
    void refreshPolicyChoices();
    QStringList policyChoices() const;  // the files offered; "" first = the shipped policy
    // Step mode (teaching): ticked and offered for the engine (BRKGA, REGAL). While a step-mode
    // run goes, Step and Run to end replace nothing: they sit beside Cancel.
    bool stepMode() const;
    void setStepMode(bool on);
    // The model's batch size (ONNX models with a symbolic batch dimension): 1 by default.
    // Changing it re-reads the model (MainWindow), so shapes, FLOPs and memory are re-inferred.
    int batch() const;
    void setBatch(int batch);
    // Micro-batches (1-1024): the engine-independent run parameter micro_batches.
    int microBatches() const;
    void setMicroBatches(int m);
    // The devices the next run uses: a preset name or a device JSON file.
    QString devicesChoice() const;
    // Selects a preset or a device file (offering the file when it is new).
    void selectDevices(const QString& presetOrFile);
    // Makes `model` (e.g. from the device editor) the next run's devices: its preset when it is one
    // unchanged, else `savedPath`, else a file written to userDevicesDir() named after the setup.
    // Returns what the run will use, "" with `error` when the file cannot be written.
    QString useDeviceSetup(const DeviceModel& model, const QString& savedPath, QString* error = nullptr);
    static QString userDevicesDir();  // beside the user's policies: ~/.local/share/graphopt-studio/devices
    // The "measured costs" chooser beside the devices: `label` names the cost file offered (the
    // model's profile), "" takes it away. Ticked, the next run uses them (MainWindow adds them).
    void offerMeasuredCosts(const QString& label);
    bool useMeasuredCosts() const;
    void editDevices();               // the device-setup editor on the current setup

signals:
    void startRequested();
    void cancelRequested();
    void stepRequested();
    void runToEndRequested();
    void batchChanged(int batch);  // the user finished editing the batch field

private:
    QCheckBox* measuredCosts_ = nullptr;
    void rebuildParameters();
    void updateEnabled();

    QComboBox* engine_ = nullptr;
    QComboBox* objective_ = nullptr;
    QComboBox* devices_ = nullptr;
    QPushButton* editDevices_ = nullptr;
    QSpinBox* microBatches_ = nullptr;
    QSpinBox* budget_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QSpinBox* threads_ = nullptr;
    QSpinBox* batch_ = nullptr;
    int lastBatch_ = 1;
    QGroupBox* params_ = nullptr;
    QFormLayout* paramsForm_ = nullptr;
    QMap<QString, QWidget*> paramWidgets_;
    std::vector<ParamSpec> paramSpecs_;
    QPushButton* start_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QCheckBox* stepMode_ = nullptr;
    QPushButton* step_ = nullptr;
    QPushButton* runToEnd_ = nullptr;
    bool steppingRun_ = false;  // the run going was started in step mode
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    bool running_ = false;
};

}  // namespace graphopt::ui
