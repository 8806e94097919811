// The application's kernel-tuning view: the tuning tasks of the open model in a table (shapes,
// MFLOP, uses, space size, best GFLOP/s so far, libtorch's GFLOP/s on the same shapes, their
// ratio, tuner, state; skipped operators listed with the reason), tuning runs started from it on
// a BackgroundJob (one task or all, any tuner, real Halide measurements or the simulated CPU),
// and the run drawn live: convergence against measurements or seconds with the machine peak and
// libtorch as reference lines, and the sampled clusters batch by batch (ClusterScatter). Every
// run is recorded in the store exactly as `graphopt tune` records it; stored runs of a task can
// be added to the chart and reopened.
#pragma once

#include <QMap>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "TuningCharts.h"
#include "TuningFrames.h"
#include "graph/Graph.h"
#include "tuning/KnobProjection.h"
#include "tuning/Task.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStandardItemModel;
class QTableView;

namespace graphopt::ui {

class BackgroundJob;

class TuningView : public QWidget {
    Q_OBJECT
public:
    // Table columns.
    enum Column { Index, Kind, Shape, Mflop, Uses, Space, Best, Libtorch, Ratio, Tuner, State, ColumnCount };

    explicit TuningView(QWidget* parent = nullptr);
    ~TuningView() override;

    void setModel(std::shared_ptr<const Graph> graph, const QString& path);
    void setDatabasePath(const QString& path) { dbPath_ = path; }
    int taskCount() const { return int(tasks_.size()); }

    // The run settings (the widgets' values).
    void selectTask(int task);
    void setAllTasks(bool all);
    void setTuner(const QString& name);
    void setMeasurer(const QString& name);  // "halide" or "sim"
    void setTrials(int n);
    void setSeed(int seed);
    void setBatchSize(int n);
    void setTunerParams(const QString& json);

    // Starts tuning the selected task (or all); false with a status message when it cannot.
    bool startTuning();
    void cancel();
    bool isRunning() const;
    // Shows a stored tuning run of this model's tasks: its convergence line and its clusters.
    bool openStoredRun(qint64 runId, QString* error = nullptr);
    // Adds every stored run of the selected task to the chart; returns how many were added.
    int addStoredRuns();
    // Times libtorch on every task and the machine's FMA peak (off the GUI thread; once per model).
    void measureReferences();

    // The frames of a run shown in the chart (by its store id), or nullptr.
    const TuningFrames* framesOf(qint64 runId) const;
    TuningConvergenceChart* convergenceChart() const { return convergence_; }
    ClusterScatter* clusterScatter() const { return clusters_; }
    QTableView* taskTable() const { return table_; }
    BackgroundJob* job() const { return job_; }
    QString summaryText() const;
    QString statusText() const;

signals:
    void tuningFinished(qint64 runId);  // one task's run (every task of --all emits it)
    void allTuningFinished();           // the last task of the queue is done (or it was cancelled)
    void tuningFailed(const QString& message);
    void referencesMeasured();

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct TaskState {
        std::optional<double> bestGflops, bestLatencyS;
        bool simulated = false;
        std::optional<double> libtorchGflops, libtorchLatencyS;
        QString tuner, state = QStringLiteral("not tuned");
    };
    struct RunView {
        int task = -1;
        std::string taskKey;  // the task with the template the run used
        QString label;
        std::unique_ptr<TuningFrames> frames;
    };

    void buildUi();
    void refreshTable();
    void updateTaskRow(int task);
    void updateEnabled();
    void onTaskSelected();
    const tuning::KnobProjection* projectionFor(const tuning::TuningTask& task);
    bool startTask(int task);
    // The Parameters field as a JSON object ({} when empty); nullopt, with the reason in `why`
    // when given, when it is not valid JSON or not an object.
    std::optional<nlohmann::json> tunerParamsField(QString* why) const;
    void onJobFinished();
    void onProgress(const QVector<ProgressEvent>& events);
    void showRun(qint64 key);
    int selectedTask() const;
    void updateReferences();

    std::shared_ptr<const Graph> graph_;
    QString path_, dbPath_;
    std::vector<tuning::TuningTask> tasks_;
    std::vector<std::string> skipped_;
    std::vector<TaskState> state_;
    // Per task and template (TuningTask::key()): its knob space and the projection fitted on it
    // (kept for the view's lifetime, so frames can point at them).
    std::map<std::string, std::shared_ptr<const tuning::KnobSpace>> spaces_;
    std::map<std::string, std::unique_ptr<tuning::KnobProjection>> projections_;
    std::map<qint64, RunView> runs_;  // by chart key (the store's run id, or a negative key unrecorded)
    qint64 currentKey_ = 0, nextLocalKey_ = -1;
    int currentTask_ = -1;
    std::vector<int> queue_;  // tasks left of an "all" run
    double peakGflops_ = 0;
    bool peakLoaded_ = false;  // other processes were busy while the peak was measured
    bool referencesStarted_ = false;
    bool startWhenReferencesDone_ = false;  // a run waits: measurements must not overlap the references'
    int64_t budget_ = 0;

    QTableView* table_ = nullptr;
    QStandardItemModel* model_ = nullptr;
    QLabel* skippedLabel_ = nullptr;
    QLabel* summary_ = nullptr;
    QCheckBox* all_ = nullptr;
    QComboBox* tuner_ = nullptr;
    QComboBox* measurer_ = nullptr;
    QSpinBox* trials_ = nullptr;
    QLabel* warmupHint_ = nullptr;  // shown when the budget never reaches the tuner's model
    QSpinBox* seed_ = nullptr;
    QSpinBox* batch_ = nullptr;
    QLineEdit* params_ = nullptr;
    QPushButton* start_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QPushButton* addStored_ = nullptr;
    QComboBox* xAxis_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    TuningConvergenceChart* convergence_ = nullptr;
    ClusterScatter* clusters_ = nullptr;
    BackgroundJob* job_ = nullptr;
    BackgroundJob* references_ = nullptr;
    BackgroundJob* projector_ = nullptr;  // fits every task's projection when a model opens
};

}  // namespace graphopt::ui
