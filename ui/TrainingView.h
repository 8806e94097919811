// Trains a REGAL policy from the application (regal::TrainingRun on a BackgroundJob, recorded in
// the run store epoch by epoch): objective, devices, epochs, seed, budget, samples, training-graph
// sizes. Mean reward, validation win rate and entropy are plotted per epoch as they arrive.
// Cancel keeps the last whole epoch's checkpoint; Resume goes on from it. A finished policy is
// written to the user's policy folder (userPolicyDir()) and registered in the store, where the
// run panel's policy chooser finds it.
#pragma once

#include <QWidget>

#include <vector>

#include "run/Run.h"

class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QLineSeries;
class QPushButton;
class QSpinBox;

namespace graphopt::ui {

class BackgroundJob;

class TrainingView : public QWidget {
    Q_OBJECT
public:
    explicit TrainingView(QWidget* parent = nullptr);
    ~TrainingView() override;

    void setDatabasePath(const QString& path) { dbPath_ = path; }
    // Where trained policies go: $XDG_DATA_HOME/graphopt-studio/policies (the folder the run
    // panel's chooser reads); overridable for tests.
    static QString userPolicyDir();

    // The form, for scripts and tests.
    void setObjective(const QString& objective);
    void setDevices(const QString& devices);
    void setEpochs(int epochs);
    void setSeed(int seed);
    void setBudget(int budget);
    void setSamples(int samples);
    void setSizes(const QString& sizes);  // synthetic training graph sizes, "30,80"
    void setImitationEpochs(int epochs);

    // Plots a stored training run's epochs (the Runs tab's Open).
    bool showStoredRun(qint64 runId, QString* error = nullptr);
    bool startTraining(QString* error = nullptr);
    bool resumeTraining(QString* error = nullptr);  // from the last checkpoint
    void cancel();
    bool isRunning() const;
    int epochsPlotted() const;
    QString lastPolicyPath() const { return lastPolicy_; }
    QString lastCheckpointPath() const { return lastCheckpoint_; }
    QString statusText() const;

signals:
    void trainingFinished(const QString& policyPath);  // "" when cancelled or failed
    void policyRegistered(const QString& policyPath);
    void statusChanged(const QString& text);  // every new status line

private:
    bool start(const QString& resumeFrom, QString* error);
    void onProgress(const QVector<ProgressEvent>& events);
    void onFinished();
    void updateButtons();
    void setStatus(const QString& text);

    QString dbPath_, lastPolicy_, lastCheckpoint_, pendingOut_;
    BackgroundJob* job_ = nullptr;
    QComboBox* objective_ = nullptr;
    QComboBox* devices_ = nullptr;
    QSpinBox* epochs_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QSpinBox* budget_ = nullptr;
    QSpinBox* samples_ = nullptr;
    QLineEdit* sizes_ = nullptr;
    QSpinBox* imitate_ = nullptr;            // imitation epochs before REINFORCE
    QCheckBox* seedHeuristics_ = nullptr;
    QPushButton* train_ = nullptr;
    QPushButton* resume_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QLabel* status_ = nullptr;
    struct Plot {
        QChartView* view = nullptr;
        QLineSeries* series = nullptr;
        double minY = 0, maxY = 1;
    };
    std::vector<Plot> plots_;  // mean reward, validation win rate, entropy
    int epochs_plotted_ = 0;
    int epochOffset_ = 0;  // epochs done before a resume, so the x axis continues
};

}  // namespace graphopt::ui
