// The main window: the graph drawing in the middle, the node list and the properties of the
// selected node in docks at the sides. Models load and lay out off the GUI thread.
#pragma once

#include <QFutureWatcher>
#include <QMainWindow>
#include <QTemporaryDir>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "graph/Graph.h"
#include "placement/model/PlacementResult.h"
#include "execution/MeasuredCosts.h"
#include "run/Run.h"
#include "run/RunContract.h"

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QPushButton;
class QSortFilterProxyModel;
class QCheckBox;
class QTableView;
class QTabWidget;
class QTextBrowser;
class QTimer;

namespace graphopt {
struct GraphLayout;
}

namespace graphopt::ui {

class ConvergenceChart;
class GraphView;
class ScopeTreeView;
class LayoutJob;
class MemoryChartView;
class ScheduleView;
class TuningView;
class NodeTableModel;
class BackgroundJob;
class RunPanel;
class RunsBrowser;
class TrainingView;
class PolicyNodeView;
class PopulationView;

struct LoadOutcome {
    std::shared_ptr<const Graph> graph;
    QString error;  // empty on success
    QString path;
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts loading `path` on a worker thread; emits modelLoaded or loadFailed when done, then
    // lays the graph out (layoutReady or layoutFailed). The file is parsed in a child process
    // (ModelLoader.h): a reader that crashes or hangs costs the child, and the window keeps the
    // model it had.
    void openModel(const QString& path);
    // How long a model's reader may take before it is stopped (default 120 s).
    void setLoadTimeout(int ms) { loadTimeoutMs_ = ms; }
    const Graph* graph() const;
    QString currentPath() const { return currentPath_; }
    GraphView* graphView() const { return view_; }
    ScopeTreeView* scopeTree() const { return scopeTree_; }
    void setGroupByScope(bool on);  // the Nodes dock's "Group by scope" 
    void setKeepFastLayout(bool on);  // View > Keep the Fast Layout
    TuningView* tuningView() const { return tuningView_; }
    // The central tabs: the graph, kernel tuning, and the stored runs.
    void showTuning();
    void showGraph();
    void showRuns();
    RunsBrowser* runsBrowser() const { return runsBrowser_; }
    TrainingView* trainingView() const { return trainingView_; }
    PolicyNodeView* policyNodeView() const { return policyView_; }
    // Shows the REGAL policy tab of the results (the selected node's key distributions).
    void showPolicyTab();
    void showTraining();
    // Shows a stored run: opens its model when another one is shown, then a placement run's
    // placement (device colours, Gantt, memory), a tuning run's convergence and clusters. False
    // with the reason when it cannot (the model file is gone, a kind with no view yet).
    bool openStoredRun(qint64 runId, QString* error = nullptr);
    // Rings these nodes on the drawing of `graphPath`, opening that model first when needed.
    void showNodesOnGraph(const QString& graphPath, const std::vector<std::string>& nodes);
    LayoutJob* layoutJob() const { return layoutJob_; }
    RunPanel* runPanel() const { return runPanel_; }
    // Runs placements (any kind of run goes through a BackgroundJob).
    BackgroundJob* runJob() const { return runJob_; }
    ConvergenceChart* convergenceChart() const { return convergence_; }
    ScheduleView* scheduleView() const { return schedule_; }
    MemoryChartView* memoryChart() const { return memory_; }
    // Step mode's population of the current generation (Results > Population).
    PopulationView* populationView() const { return population_; }
    // Where runs are recorded (default: the user's data folder); empty disables recording.
    void setDatabasePath(const QString& path);
    QString databasePath() const { return dbPath_; }
    // Starts a placement run with the run panel's settings; false (and a status message) when
    // it cannot start.
    bool startRun();
    const PlacementResult* lastResult() const { return lastResult_.get(); }

    // Model > Profile on This CPU: every op of the (ONNX) model timed with libtorch on one thread
    // (exec::ProfileRun, recorded in the store) on a worker thread; the costs then show in the Nodes
    // table and the node properties, are saved to the user's data folder and are offered to the
    // next run ("Measured costs"). False with the reason when it cannot start.
    bool profileModel(QString* error = nullptr);
    const exec::MeasuredCosts* measuredCosts() const { return measured_.get(); }
    // Model > Run on This Machine: the last placement, when it is on this machine's cores
    // (cpu-cores or a calibrated file), executed by `graphopt execute` in a child process; the
    // measured makespan beside the prediction goes to the run summary. False with the reason.
    bool runOnThisMachine(QString* error = nullptr);
    QString executionSummary() const { return executionSummary_; }
    BackgroundJob* machineJob() const { return machineJob_; }

    // The About box's text: version (the one of --version), what the program does, and where this
    // window stores its runs (databasePath()).
    static QString aboutText(const QString& databasePath);

signals:
    void modelLoaded(const QString& path);
    void loadFailed(const QString& message);
    void layoutReady();       // the first picture of a model (folded, or the fast layout)
    void finalLayoutReady();  // the layout that stays: dot's, or the fast one when it is kept
    void layoutFailed(const QString& message);
    void runFinished(qint64 runId);
    void runFailed(const QString& message);
    void profileFinished();
    void executionFinished(const QString& summary);
    void machineJobFailed(const QString& message);
    // Step mode: generation `step` is shown (population, best placement, Gantt) and the run waits.
    void stepShown(qint64 step);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildActions();
    void buildDocks();
    void onLoadFinished();
    void startLayout();
    void onFastLayout(const GraphLayout& layout);
    void onLayoutFinished(const GraphLayout& layout);
    void firstPictureShown(const QString& how);
    bool wantDot() const;
    void showNodeProperties(int node);
    void updatePolicyView();  // the REGAL policy tab: the selected node under the run panel's policy
    void onRunFinished();
    void onStepReady(qint64 step, const std::shared_ptr<const RunOutcome>& bestSoFar);
    void applyPlacementToView();
    void showPlacementResult(const PlacementResult& result, const QString& prefix, const QString& suffix);
    // Runs `action` once `path` is the model shown and laid out (now, or after opening it).
    bool whenModelShown(const QString& path, std::function<void()> action, QString* error);
    void updateRecentMenu();
    void chooseAndOpen();
    void exportView();
    void showAbout();

    GraphView* view_ = nullptr;
    QTabWidget* central_ = nullptr;
    TuningView* tuningView_ = nullptr;
    LayoutJob* layoutJob_ = nullptr;
    NodeTableModel* model_ = nullptr;
    QSortFilterProxyModel* proxy_ = nullptr;
    QTableView* table_ = nullptr;
    ScopeTreeView* scopeTree_ = nullptr;  // the nodes as a tree of name scopes
    QCheckBox* groupByScope_ = nullptr;
    QLineEdit* filter_ = nullptr;
    QLineEdit* find_ = nullptr;
    QTextBrowser* properties_ = nullptr;
    QLabel* summary_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QAction* horizontal_ = nullptr;
    QAction* keepFast_ = nullptr;     // View > Keep the Fast Layout: no dot
    bool dotShown_ = false;           // the drawing uses dot's layout
    bool forceDot_ = false;           // View > Lay Out with Graphviz, for this model
    bool pictureShown_ = false;       // layoutReady went out for this layout
    QPushButton* cancelLayout_ = nullptr;
    QTimer* layoutNotice_ = nullptr;
    RunPanel* runPanel_ = nullptr;
    RunsBrowser* runsBrowser_ = nullptr;
    TrainingView* trainingView_ = nullptr;
    PolicyNodeView* policyView_ = nullptr;
    std::string policyKey_;
    bool docksHidden_ = false;  // a tab other than the graph is shown, its docks hidden
    QByteArray graphTabState_;  // saveState() when the graph tab was left  // graph, objective, devices and policy of the explanation shown
    std::function<void()> afterLayout_;  // a stored run or comparison waiting for its model
    BackgroundJob* runJob_ = nullptr;
    RunSpec runSpec_;  // of the run going or last run
    QString dbPath_;
    ConvergenceChart* convergence_ = nullptr;
    ScheduleView* schedule_ = nullptr;
    MemoryChartView* memory_ = nullptr;
    PopulationView* population_ = nullptr;
    nlohmann::json lastPopulation_;  // step mode: the last progress event's values with origins
    QTabWidget* results_ = nullptr;
    std::unique_ptr<PlacementResult> lastResult_;
    qint64 chartKey_ = 0;
    QFutureWatcher<LoadOutcome> loadWatcher_;
    QThreadPool loadPool_;  // model loads never queue behind runs in Qt's global pool
    std::shared_ptr<const Graph> graph_;
    QString currentPath_;
    int loadGeneration_ = 0;  // a newer openModel() makes older results stale
    std::shared_ptr<std::atomic<bool>> loadCancel_;  // set to stop the running load's reader
    int loadTimeoutMs_ = 120000;
    // Profiling and executing on this machine (their own job: a placement run may go meanwhile).
    BackgroundJob* machineJob_ = nullptr;
    std::shared_ptr<exec::MeasuredCosts> measured_;  // of the model shown
    QString measuredPath_;                           // its cost file
    QString executionSummary_;
    // Where the placement `graphopt execute` reads is written; made on first use, removed with the
    // window (a session used to leave graphopt-studio-PID/ behind in the temporary folder).
    std::unique_ptr<QTemporaryDir> executeScratch_;
    QAction* profileAct_ = nullptr;
    QAction* executeAct_ = nullptr;
    void onMachineJobFinished();
    void updateMachineActions();
};

}  // namespace graphopt::ui
