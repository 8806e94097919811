#include "MainWindow.h"

#include <QApplication>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QInputDialog>
#include <cstdio>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "ConvergenceChart.h"
#include "GraphView.h"
#include "BackgroundJob.h"
#include "RunPanel.h"
#include "store/RunStore.h"
#include "LayoutJob.h"
#include "ScopedNames.h"
#include "ScopeTreeView.h"
#include "ModelLoader.h"
#include "RunsBrowser.h"
#include "TrainingView.h"
#include "PolicyNodeView.h"
#include "PopulationView.h"
#include "placement/regal/RegalEngine.h"
#include "MemoryChartView.h"
#include "run/Units.h"
#include "ScheduleView.h"
#include "TuningView.h"
#include "placement/model/DeviceModel.h"
#include "placement/PlacementRun.h"
#include "NodeTableModel.h"
#include "graph/GraphCompleteness.h"
#include "graph/Loaders.h"
#include "ChildProcess.h"
#include "execution/ProfileRun.h"
#include "run/ResourceLocator.h"
#include "placement/PlacementExport.h"
#include <QDir>
#include <QStandardPaths>

namespace graphopt::ui {

namespace {
constexpr int kMaxRecent = 8;
const char* kRecentKey = "recentFiles";
constexpr int kLayoutNoticeMs = 2000;  // after this, say the layout is slow and offer Cancel

QString attrText(const AttrValue& v) {
    return std::visit(
        [](const auto& x) -> QString {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, int64_t>) return QString::number(x);
            else if constexpr (std::is_same_v<T, double>) return QString::number(x);
            else if constexpr (std::is_same_v<T, std::string>) return QString::fromStdString(x).toHtmlEscaped();
            else {
                QStringList parts;
                for (const auto& e : x) {
                    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, std::string>)
                        parts << QString::fromStdString(e).toHtmlEscaped();
                    else
                        parts << QString::number(e);
                }
                return "[" + parts.join(", ") + "]";
            }
        },
        v);
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("GraphOpt Studio"));
    setObjectName("mainWindow");
    view_ = new GraphView(this);
    view_->showMessage(tr("No model loaded.\nFile > Open (Ctrl+O) reads ONNX, CostGraphDef text, DOT and JSON."));
    tuningView_ = new TuningView(this);
    central_ = new QTabWidget(this);
    central_->setObjectName("centralTabs");
    central_->setDocumentMode(true);
    central_->addTab(view_, tr("Graph and placement"));
    central_->addTab(tuningView_, tr("Kernel tuning"));
    trainingView_ = new TrainingView(this);
    central_->addTab(trainingView_, tr("Policy training"));
    runsBrowser_ = new RunsBrowser(this);
    central_->addTab(runsBrowser_, tr("Runs"));
    connect(runsBrowser_, &RunsBrowser::openRunRequested, this, [this](qint64 id) {
        QString error;
        if (!openStoredRun(id, &error)) QMessageBox::warning(this, tr("Cannot open run %1").arg(id), error);
    });
    connect(runsBrowser_, &RunsBrowser::showNodesRequested, this, &MainWindow::showNodesOnGraph);
    setCentralWidget(central_);
    // The docks serve the graph and its placements; the tuning tab has its own table and charts,
    // so it gets the whole window. The docks come back, as they were, with the graph tab.
    connect(central_, &QTabWidget::currentChanged, this, [this](int index) {
        const bool tuning = central_->widget(index) != view_;  // tuning and runs take the whole window
        // The docks' layout as the user left it on the graph tab: what closing the window saves
        // while another tab hides them (else the next start would have no docks).
        if (tuning && !docksHidden_) graphTabState_ = saveState();
        docksHidden_ = tuning;
        for (QDockWidget* dock : findChildren<QDockWidget*>()) {
            if (tuning) {
                dock->setProperty("visibleBeforeTuning", dock->isVisible());
                dock->hide();
            } else if (dock->property("visibleBeforeTuning").toBool()) {
                dock->show();
            }
        }
    });
    layoutJob_ = new LayoutJob(this);
    layoutNotice_ = new QTimer(this);
    layoutNotice_->setSingleShot(true);

    runJob_ = new BackgroundJob(this);
    machineJob_ = new BackgroundJob(this);
    connect(machineJob_, &BackgroundJob::finished, this, &MainWindow::onMachineJobFinished);
    connect(machineJob_, &BackgroundJob::failed, this, [this](const QString& message) {
        updateMachineActions();
        runPanel_->setStatus(tr("On this machine: %1").arg(message));
        statusBar()->showMessage(message, 10000);
        emit machineJobFailed(message);
    });
    connect(machineJob_, &BackgroundJob::progress, this, [this](const QVector<ProgressEvent>& events) {
        if (events.isEmpty()) return;
        const auto& v = events.back().values;
        if (v.contains("pass"))
            statusBar()->showMessage(tr("Profiling on this CPU: forward pass %1 of %2")
                                         .arg(v.value("pass", 0))
                                         .arg(v.value("passes", 0)));
    });
    setDatabasePath(QString::fromStdString(RunStore::defaultPath()));
    buildDocks();
    buildActions();
    connect(runPanel_, &RunPanel::startRequested, this, &MainWindow::startRun);
    connect(runPanel_, &RunPanel::cancelRequested, runJob_, &BackgroundJob::cancel);
    connect(runJob_, &BackgroundJob::progress, this, [this](const QVector<ProgressEvent>& events) {
        QVector<ConvergencePoint> pts;
        pts.reserve(events.size());
        for (const auto& e : events) {
            pts.push_back({static_cast<double>(e.evaluations), e.bestCost});
            if (e.values.contains("population_origins")) lastPopulation_ = e.values;
        }
        convergence_->addPoints(chartKey_, pts);
        const double budget = static_cast<double>(std::max<int64_t>(1, runSpec_.budget));
        runPanel_->setProgress(std::min(1.0, pts.back().evaluations / budget));
        runPanel_->setStatus(tr("%1 evaluations, best %2")
                                 .arg(QLocale().toString(pts.back().evaluations, 'f', 0))
                                 .arg(pts.back().bestCost, 0, 'g', 5));
    });
    connect(runJob_, &BackgroundJob::finished, this, &MainWindow::onRunFinished);
    connect(runJob_, &BackgroundJob::stepReady, this, &MainWindow::onStepReady);
    connect(runPanel_, &RunPanel::stepRequested, this, [this] {
        runJob_->step();
        runPanel_->setStatus(tr("Running the next generation ..."));
    });
    connect(runPanel_, &RunPanel::runToEndRequested, runJob_, &BackgroundJob::runToEnd);
    // A new batch size re-reads the model: shapes, FLOPs and memory are re-inferred at that batch.
    connect(runPanel_, &RunPanel::batchChanged, this, [this](int batch) {
        if (currentPath_.isEmpty()) return;
        if (!currentPath_.endsWith(".onnx", Qt::CaseInsensitive)) {
            statusBar()->showMessage(tr("The batch size applies to ONNX models; %1 keeps its shapes")
                                         .arg(QFileInfo(currentPath_).fileName()), 8000);
            return;
        }
        statusBar()->showMessage(tr("Reading %1 at batch %2 ...").arg(QFileInfo(currentPath_).fileName()).arg(batch));
        openModel(currentPath_);
    });
    connect(runJob_, &BackgroundJob::failed, this, [this](const QString& message) {
        runPanel_->setRunning(false);
        runPanel_->setStatus(tr("Run failed: %1").arg(message));
        statusBar()->showMessage(tr("Run failed"), 5000);
        emit runFailed(message);
    });

    cancelLayout_ = new QPushButton(tr("Cancel layout"), this);
    cancelLayout_->hide();
    statusBar()->addPermanentWidget(cancelLayout_);
    connect(cancelLayout_, &QPushButton::clicked, layoutJob_, &LayoutJob::cancel);
    connect(layoutNotice_, &QTimer::timeout, this, [this] {
        if (!layoutJob_->isDotRunning() || !graph_) return;
        statusBar()->showMessage(tr("Graphviz dot is laying out %1 nodes and %2 edges; the fast layout is shown meanwhile "
                                    "(View > Keep the Fast Layout skips dot)")
                                     .arg(graph_->nodeCount())
                                     .arg(graph_->edges().size()));
        cancelLayout_->show();
    });
    connect(layoutJob_, &LayoutJob::fastFinished, this, &MainWindow::onFastLayout);
    connect(layoutJob_, &LayoutJob::finished, this, &MainWindow::onLayoutFinished);
    connect(layoutJob_, &LayoutJob::failed, this, [this](const QString& message) {
        cancelLayout_->hide();
        if (view_->hasDrawing()) {  // dot failed after the fast picture: keep the picture
            statusBar()->showMessage(tr("Graphviz layout failed (%1); the fast layout stays").arg(message), 10000);
            return;
        }
        view_->showMessage(tr("Layout failed: %1").arg(message));
        statusBar()->showMessage(tr("Layout failed"));
        emit layoutFailed(message);
    });
    connect(layoutJob_, &LayoutJob::cancelled, this, [this] {
        cancelLayout_->hide();
        if (view_->hasDrawing()) {
            statusBar()->showMessage(tr("Graphviz layout cancelled; the fast layout stays"), 5000);
            return;
        }
        view_->showMessage(tr("Layout cancelled. The node list on the left still works;\n"
                              "View > Lay out again retries."));
        statusBar()->showMessage(tr("Layout cancelled"), 5000);
    });
    connect(view_, &GraphView::nodeSelected, this, &MainWindow::showNodeProperties);
    // Everything opened again: dot's layout of the whole graph is wanted, if it is not there yet.
    connect(view_, &GraphView::foldingChanged, this, [this](bool allOpen) {
        if (allOpen && !dotShown_ && wantDot() && !layoutJob_->isDotRunning() && graph_) {
            layoutJob_->startDot(currentPath_, horizontal_->isChecked());
            layoutNotice_->start(kLayoutNoticeMs);
        }
    });
    connect(view_, &GraphView::nodeSelected, this, [this](int node) {
        if (schedule_->hasResult()) schedule_->showOp(node);
    });
    connect(&loadWatcher_, &QFutureWatcher<LoadOutcome>::finished, this, &MainWindow::onLoadFinished);
    statusBar()->showMessage(tr("Ready"));
    setAcceptDrops(true);

    QSettings settings;
    if (!restoreGeometry(settings.value("mainWindow/geometry").toByteArray())) resize(1280, 800);
    restoreState(settings.value("mainWindow/state").toByteArray());
}

MainWindow::~MainWindow() {
    // Child widgets outlive this object's members while Qt deletes them, and some signal on the
    // way (the graph's selection is cleared, a tab changes): nothing may call back in here.
    for (QObject* sender : std::initializer_list<QObject*>{view_, results_, central_, runsBrowser_, trainingView_, runJob_})
        if (sender) sender->disconnect(this);
    QSettings settings;
    settings.setValue("mainWindow/geometry", saveGeometry());
    settings.setValue("mainWindow/state", docksHidden_ && !graphTabState_.isEmpty() ? graphTabState_ : saveState());
    settings.setValue("view/horizontal", horizontal_->isChecked());
    settings.setValue("view/keepFastLayout", keepFast_->isChecked());
    if (loadCancel_) loadCancel_->store(true);  // kills a reader still running
    loadWatcher_.waitForFinished();
}

const Graph* MainWindow::graph() const { return graph_.get(); }

void MainWindow::setDatabasePath(const QString& path) {
    dbPath_ = path;
    tuningView_->setDatabasePath(path);
    runsBrowser_->setDatabasePath(path);
    trainingView_->setDatabasePath(path);
}

void MainWindow::showTuning() { central_->setCurrentWidget(tuningView_); }

void MainWindow::showRuns() { central_->setCurrentWidget(runsBrowser_); }

void MainWindow::showTraining() { central_->setCurrentWidget(trainingView_); }

void MainWindow::showPolicyTab() {
    results_->setCurrentWidget(policyView_);
    updatePolicyView();
}

bool MainWindow::whenModelShown(const QString& path, std::function<void()> action, QString* error) {
    if (path.isEmpty() || !QFileInfo::exists(path)) {
        if (error) *error = tr("The run's model %1 is not available on this machine.").arg(path.isEmpty() ? tr("(not recorded)") : path);
        return false;
    }
    const bool shown = graph_ && QFileInfo(currentPath_).canonicalFilePath() == QFileInfo(path).canonicalFilePath() &&
                       view_->hasDrawing() && view_->graph() == graph_.get();
    if (shown) {
        action();
        return true;
    }
    afterLayout_ = std::move(action);
    openModel(path);
    return true;
}

bool MainWindow::openStoredRun(qint64 runId, QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        statusBar()->showMessage(why, 8000);
        return false;
    };
    try {
        RunStore store(dbPath_.toStdString());
        const RunSummary s = store.run(runId);
        QString source;
        if (s.run.graphId)
            if (auto g = store.graph(*s.run.graphId)) source = QString::fromStdString(g->sourcePath);
        if (s.run.kind == "placement") {
            const auto stored = store.result(runId);
            if (!stored || stored->placement.is_null())
                return fail(tr("Run %1 has no stored placement (status %2).").arg(runId).arg(runStatusName(s.run.status)));
            auto result = std::make_shared<PlacementResult>(PlacementResult::fromRunResult(*stored));
            return whenModelShown(source, [this, result, runId] {
                if (!graph_ || result->placement.size() != graph_->nodeCount()) {
                    statusBar()->showMessage(tr("Run %1 was made on another version of this model.").arg(runId), 8000);
                    return;
                }
                showGraph();
                showPlacementResult(*result, tr("Stored run %1: ").arg(runId), QString());
            }, error);
        }
        if (s.run.kind == "tuning") {
            return whenModelShown(source, [this, runId] {
                showTuning();
                QString why;
                if (!tuningView_->openStoredRun(runId, &why)) statusBar()->showMessage(why, 8000);
            }, error);
        }
        if (s.run.kind == "training") {
            showTraining();
            QString why;
            if (!trainingView_->showStoredRun(runId, &why)) return fail(why);
            return true;
        }
        return fail(tr("Run %1 is a %2 run: the application has no view of that kind of run yet "
                       "(graphopt runs show %1 prints it).")
                        .arg(runId)
                        .arg(QString::fromStdString(s.run.kind)));
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }
}

void MainWindow::showNodesOnGraph(const QString& graphPath, const std::vector<std::string>& nodes) {
    QString error;
    if (!whenModelShown(graphPath, [this, nodes] {
            showGraph();
            const int ringed = view_->setHighlightedNodes(nodes);
            statusBar()->showMessage(tr("%n node(s) placed differently ringed on the graph", nullptr, ringed), 10000);
        }, &error))
        QMessageBox::warning(this, tr("Cannot show the nodes"), error);
}

void MainWindow::showGraph() { central_->setCurrentWidget(view_); }

void MainWindow::buildDocks() {
    auto* nodesPanel = new QWidget(this);
    nodesPanel->setMinimumWidth(230);  // scoped names need room (they are elided by scope below that)
    auto* layout = new QVBoxLayout(nodesPanel);
    layout->setContentsMargins(4, 4, 4, 4);
    summary_ = new QLabel(tr("No model loaded."), nodesPanel);
    summary_->setWordWrap(true);
    summary_->setObjectName("modelSummary");
    filter_ = new QLineEdit(nodesPanel);
    filter_->setPlaceholderText(tr("Filter nodes by name, op or shape"));
    filter_->setClearButtonEnabled(true);
    model_ = new NodeTableModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(Qt::UserRole);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy_->setFilterKeyColumn(-1);  // match name, op or shape
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    table_ = new QTableView(nodesPanel);
    table_->setObjectName("nodeTable");
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(NodeTableModel::Index, Qt::AscendingOrder);  // file order until the user sorts
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->setAlternatingRowColors(true);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->setItemDelegateForColumn(NodeTableModel::Name, new ScopedNameDelegate(table_));
    table_->setWordWrap(false);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& idx) {
        if (!idx.isValid()) return;
        const int node = proxy_->mapToSource(idx).row();
        if (view_->selectedNode() != node) view_->selectNode(node);
        showNodeProperties(node);
    });
    scopeTree_ = new ScopeTreeView(nodesPanel);
    scopeTree_->hide();
    groupByScope_ = new QCheckBox(tr("Group by scope"), nodesPanel);
    groupByScope_->setObjectName("groupByScope");
    groupByScope_->setToolTip(tr("Show the nodes as a tree of their name scopes (/model > layers.3 > self_attn ...)"));
    groupByScope_->setChecked(QSettings().value("nodes/groupByScope", true).toBool());
    groupByScope_->hide();
    connect(groupByScope_, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue("nodes/groupByScope", on);
        setGroupByScope(on);
    });
    connect(filter_, &QLineEdit::textChanged, scopeTree_, &ScopeTreeView::setFilterText);
    connect(scopeTree_, &ScopeTreeView::nodeClicked, this, [this](int node) {
        if (view_->selectedNode() != node) view_->selectNode(node);
        showNodeProperties(node);
    });
    connect(scopeTree_, &ScopeTreeView::scopeOpenRequested, this, [this](const QString& path) {
        const int s = view_->folding().tree().find(path.toStdString());
        if (s > 0) view_->openScope(s);
    });
    layout->addWidget(summary_);
    layout->addWidget(groupByScope_);
    layout->addWidget(filter_);
    layout->addWidget(table_);
    layout->addWidget(scopeTree_);
    auto* nodesDock = new QDockWidget(tr("Nodes"), this);
    nodesDock->setObjectName("nodesDock");
    nodesDock->setWidget(nodesPanel);
    addDockWidget(Qt::LeftDockWidgetArea, nodesDock);

    properties_ = new QTextBrowser(this);
    properties_->setPlaceholderText(tr("Click a node to see its attributes, tensors, bytes and FLOPs."));
    auto* propDock = new QDockWidget(tr("Properties"), this);
    propDock->setObjectName("propertiesDock");
    propDock->setWidget(properties_);
    addDockWidget(Qt::RightDockWidgetArea, propDock);
    runPanel_ = new RunPanel(this);
    // A policy trained in the training tab is offered at once.
    connect(trainingView_, &TrainingView::policyRegistered, runPanel_, &RunPanel::refreshPolicyChoices);
    auto* runDock = new QDockWidget(tr("Placement run"), this);
    runDock->setObjectName("runDock");
    runDock->setWidget(runPanel_);
    addDockWidget(Qt::RightDockWidgetArea, runDock);
    splitDockWidget(runDock, propDock, Qt::Vertical);

    results_ = new QTabWidget(this);
    convergence_ = new ConvergenceChart(results_);
    results_->addTab(convergence_, tr("Convergence"));
    schedule_ = new ScheduleView(results_);
    results_->addTab(schedule_, tr("Schedule"));
    memory_ = new MemoryChartView(results_);
    results_->addTab(memory_, tr("Memory"));
    population_ = new PopulationView(results_);
    population_->setObjectName("populationView");
    results_->addTab(population_, tr("Population"));
    policyView_ = new PolicyNodeView(results_);
    policyView_->setObjectName("policyNodeView");
    results_->addTab(policyView_, tr("REGAL policy"));
    connect(results_, &QTabWidget::currentChanged, this, [this] { updatePolicyView(); });
    connect(schedule_, &ScheduleView::opClicked, this, [this](int node) { view_->selectNode(node); });
    auto* resultsDock = new QDockWidget(tr("Results"), this);
    resultsDock->setObjectName("resultsDock");
    resultsDock->setWidget(results_);
    addDockWidget(Qt::BottomDockWidgetArea, resultsDock);
    resizeDocks({nodesDock, runDock}, {340, 300}, Qt::Horizontal);
    resizeDocks({resultsDock}, {300}, Qt::Vertical);
}

bool MainWindow::startRun() {
    if (!graph_) {
        statusBar()->showMessage(tr("Open a model first"), 5000);
        return false;
    }
    if (runJob_->isRunning()) {
        statusBar()->showMessage(tr("A run is already going"), 5000);
        return false;
    }
    RunSpec spec = runPanel_->spec();
    QString error;
    if (runPanel_->useMeasuredCosts() && measured_) {
        try {
            spec.params.update(measured_->placementParams(*graph_, measuredPath_.toStdString()));
        } catch (const std::exception& e) {
            runPanel_->setStatus(tr("Cannot start: %1").arg(QString::fromStdString(e.what())));
            return false;
        }
    }
    // Made here, on the GUI thread, so a bad spec (unknown engine, devices file, parameter) is
    // refused before any thread starts or anything is stored. The run keeps the graph alive.
    std::shared_ptr<Run> run;
    try {
        auto graph = graph_;
        run = std::shared_ptr<PlacementRun>(new PlacementRun(*graph, spec, currentPath_.toStdString()),
                                            [graph](PlacementRun* r) { delete r; });
    } catch (const std::exception& e) {
        error = QString::fromStdString(e.what());
    }
    const bool stepping = runPanel_->stepMode();
    runJob_->setStepMode(stepping);
    if (!run || !runJob_->startRun(run, dbPath_, &error)) {
        runPanel_->setStatus(tr("Cannot start: %1").arg(error));
        statusBar()->showMessage(tr("Cannot start the run"), 5000);
        return false;
    }
    runSpec_ = run->spec();
    ++chartKey_;
    const QString label = runJob_->runId() >= 0 ? tr("%1 #%2 (seed %3)").arg(QString::fromStdString(spec.engine)).arg(runJob_->runId()).arg(spec.seed)
                                                : tr("%1 (seed %2)").arg(QString::fromStdString(spec.engine)).arg(spec.seed);
    convergence_->beginRun(chartKey_, label, QString::fromStdString(spec.objective));
    lastPopulation_ = nullptr;
    population_->clear();
    results_->setCurrentWidget(stepping ? static_cast<QWidget*>(population_) : convergence_);
    runPanel_->setRunning(true);
    runPanel_->setStatus(tr("Running %1 ...").arg(label));
    statusBar()->showMessage(tr("Running %1 on %2").arg(label, QFileInfo(currentPath_).fileName()));
    return true;
}

void MainWindow::onRunFinished() {
    const auto* placed = runJob_->outcomeAs<PlacementResult>();
    if (!placed) return;
    const PlacementResult& result = *placed;
    const qint64 runId = runJob_->runId();
    runPanel_->setRunning(false);
    runPanel_->setProgress(1.0);
    showPlacementResult(result, QString(), runId >= 0 ? tr(" [run %1 stored]").arg(runId) : QString());
    emit runFinished(runId);
}

void MainWindow::onStepReady(qint64 step, const std::shared_ptr<const RunOutcome>& bestSoFar) {
    const auto* best = dynamic_cast<const PlacementResult*>(bestSoFar.get());
    if (!best) return;
    if (lastPopulation_.is_object()) {
        std::vector<double> costs;
        for (const auto& c : lastPopulation_.value("population_costs", nlohmann::json::array()))
            if (c.is_number()) costs.push_back(c.get<double>());
        population_->setPopulation(step, costs, lastPopulation_.value("population_origins", std::string()),
                                   QString::fromStdString(runSpec_.objective));
    }
    showPlacementResult(*best, tr("Generation %1, paused. Best so far: ").arg(step),
                        tr(". Step (F10) runs the next generation."));
    emit stepShown(step);
}

void MainWindow::showPlacementResult(const PlacementResult& result, const QString& prefix, const QString& suffix) {
    lastResult_ = std::make_unique<PlacementResult>(result);
    executionSummary_.clear();
    updateMachineActions();
    applyPlacementToView();
    schedule_->setResult(result, graph_.get());
    std::vector<int64_t> capacities = result.deviceCapacityBytes;  // the result's own limits first
    if (capacities.empty()) {
        // Older results: the limits of the device model the run used (a preset or a file; the
        // result only names the model).
        for (const std::string& source : {runSpec_.devices, result.devices}) {
            try {
                if (source.empty()) continue;
                const DeviceModel m = DeviceModel::load(source);
                if (m.deviceCount() != static_cast<int>(result.deviceNames.size())) continue;
                for (const auto& d : m.devices) capacities.push_back(d.memoryBytes);
                break;
            } catch (const std::exception&) {
                // Gone or changed since the run: no capacity lines.
            }
        }
    }
    memory_->setResult(result, capacities);
    const QLocale loc;
    auto q = [](const std::string& s) { return QString::fromStdString(s); };
    QString text = tr("%1: running time %2, peak memory %3")
                       .arg(q(result.engine), q(units::seconds(result.runtimeS)), q(units::bytes(double(result.peakBytes))));
    if (result.objective == "throughput" && result.throughputS > 0)
        text += tr(", throughput %1 per sample").arg(q(units::seconds(result.throughputS)));
    if (result.microBatches > 1) text += tr(", %1 micro-batches").arg(result.microBatches);
    text += tr(", %1 evaluations in %2").arg(loc.toString(double(result.evaluations), 'f', 0), q(units::seconds(result.wallS)));
    if (result.cancelled) text = tr("Cancelled; best so far shown. ") + text;
    if (!result.feasible) {
        // Says which device and by how much, never the penalised cost.
        QStringList over;
        for (size_t k = 0; k < result.overLimitBytes.size(); ++k)
            if (result.overLimitBytes[k] > 0)
                over << tr("%1 over by %2")
                            .arg(k < result.deviceNames.size() ? q(result.deviceNames[k]) : tr("device %1").arg(k),
                                 q(units::bytes(double(result.overLimitBytes[k]))));
        text = tr("INFEASIBLE (%1). ").arg(over.isEmpty() ? tr("exceeds a device's memory") : over.join(", ")) + text;
    }
    text = prefix + text + suffix;
    runPanel_->setStatus(text);
    statusBar()->showMessage(text, 10000);
}

void MainWindow::applyPlacementToView() {
    if (!lastResult_ || !graph_ || lastResult_->placement.size() != graph_->nodeCount()) {
        view_->setPlacement({}, {}, {});
        return;
    }
    QStringList names;
    for (const auto& n : lastResult_->deviceNames) names << QString::fromStdString(n);
    view_->setPlacement(lastResult_->placement, lastResult_->order, names);
}

void MainWindow::buildActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(QIcon::fromTheme("document-open"), tr("&Open..."), this, &MainWindow::chooseAndOpen);
    open->setShortcut(QKeySequence::Open);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    QAction* exportAct = file->addAction(tr("&Export View as PNG or SVG..."), this, &MainWindow::exportView);
    exportAct->setShortcut(QKeySequence(tr("Ctrl+E")));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    QAction* zoomIn = viewMenu->addAction(tr("Zoom &In"), this, [this] { view_->zoomBy(1.25); });
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    QAction* zoomOut = viewMenu->addAction(tr("Zoom &Out"), this, [this] { view_->zoomBy(0.8); });
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* fit = viewMenu->addAction(tr("&Fit to Window"), this, [this] { view_->fitToWindow(); });
    fit->setShortcut(QKeySequence(tr("Ctrl+0")));
    horizontal_ = viewMenu->addAction(tr("&Horizontal Layout"));
    horizontal_->setCheckable(true);
    horizontal_->setChecked(QSettings().value("view/horizontal", false).toBool());
    connect(horizontal_, &QAction::toggled, this, [this] { startLayout(); });
    viewMenu->addAction(tr("&Lay Out Again"), this, [this] { startLayout(); });
    keepFast_ = viewMenu->addAction(tr("&Keep the Fast Layout"));
    keepFast_->setCheckable(true);
    keepFast_->setChecked(QSettings().value("view/keepFastLayout", false).toBool());
    keepFast_->setToolTip(tr("Skip Graphviz dot: for very large graphs the fast layered layout is shown alone"));
    connect(keepFast_, &QAction::toggled, this, [this](bool on) {
        QSettings().setValue("view/keepFastLayout", on);
        if (!on && !dotShown_ && !view_->isFolded() && graph_ && !layoutJob_->isDotRunning())
            layoutJob_->startDot(currentPath_, horizontal_->isChecked());
    });
    viewMenu->addAction(tr("Lay Out with &Graphviz"), this, [this] {
        if (!graph_) return;
        forceDot_ = true;  // for this model, even above the size dot is left out at
        if (view_->isFolded()) view_->unfoldAll();  // dot lays out the whole graph
        if (!layoutJob_->isDotRunning()) layoutJob_->startDot(currentPath_, horizontal_->isChecked());
        layoutNotice_->start(kLayoutNoticeMs);
    });
    viewMenu->addSeparator();
    viewMenu->addAction(tr("Fold by &Scope"), this, [this] { view_->foldByScope(); });
    viewMenu->addAction(tr("&Unfold All"), this, [this] { view_->unfoldAll(); });
    viewMenu->addAction(tr("Fold Graphs &Above..."), this, [this] {
        bool ok = false;
        const int n = QInputDialog::getInt(this, tr("Fold by scope"),
                                           tr("Fold name scopes into boxes when a graph has more than this many nodes\n"
                                              "(0: never fold):"),
                                           view_->foldAbove(), 0, 1000000, 50, &ok);
        if (!ok) return;
        QSettings().setValue("view/foldAbove", n);
        view_->setFoldAbove(n);
    });
    view_->setFoldAbove(QSettings().value("view/foldAbove", view_->foldAbove()).toInt());
    viewMenu->addSeparator();
    QAction* findAct = viewMenu->addAction(tr("&Find Node..."), this, [this] {
        find_->setFocus();
        find_->selectAll();
    });
    findAct->setShortcut(QKeySequence::Find);

    QMenu* modelMenu = menuBar()->addMenu(tr("&Model"));
    profileAct_ = modelMenu->addAction(tr("&Profile on This CPU"), this, [this] {
        QString error;
        if (!profileModel(&error)) QMessageBox::warning(this, tr("Cannot profile"), error);
    });
    profileAct_->setObjectName("profileAction");
    profileAct_->setToolTip(tr("Time every operator with libtorch on this CPU (one thread): the Measured column, "
                               "and measured costs for the next run"));
    executeAct_ = modelMenu->addAction(tr("&Run on This Machine"), this, [this] {
        QString error;
        if (!runOnThisMachine(&error)) QMessageBox::warning(this, tr("Cannot run on this machine"), error);
    });
    executeAct_->setObjectName("executeAction");
    executeAct_->setToolTip(tr("Execute the placement shown on this machine's cores (devices cpu-cores) and compare "
                               "the measured time with the prediction"));
    updateMachineActions();

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About GraphOpt Studio"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName("mainToolBar");
    bar->addAction(open);
    bar->addSeparator();
    bar->addAction(zoomIn);
    bar->addAction(zoomOut);
    bar->addAction(fit);
    bar->addAction(horizontal_);
    bar->addSeparator();
    find_ = new QLineEdit(bar);
    find_->setPlaceholderText(tr("Find node (Ctrl+F), Enter for next"));
    find_->setClearButtonEnabled(true);
    find_->setMaximumWidth(280);
    connect(find_, &QLineEdit::returnPressed, this, [this] {
        if (view_->findNext(find_->text()) < 0) statusBar()->showMessage(tr("No node matches '%1'").arg(find_->text()), 3000);
    });
    bar->addWidget(find_);
    updateRecentMenu();
}

QString MainWindow::aboutText(const QString& databasePath) {
    return tr("<h3>GraphOpt Studio %1</h3>"
              "<p>Placement, scheduling and kernel tuning of neural-network computation graphs: REGAL places "
              "and schedules operations on several devices, ReLeASE and AutoTVM tune the kernels of heavy "
              "operators on this CPU, and every run is stored for comparison.</p>"
              "<p>Command line: <tt>graphopt</tt> (<tt>man graphopt</tt>). Run database: <tt>%2</tt></p>"
              "<p>MIT License. Built with Qt %3.</p>")
        .arg(QApplication::applicationVersion(), databasePath.toHtmlEscaped(), QString::fromLatin1(qVersion()));
}

void MainWindow::showAbout() { QMessageBox::about(this, tr("About GraphOpt Studio"), aboutText(dbPath_)); }

void MainWindow::chooseAndOpen() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open model"), QFileInfo(currentPath_).absolutePath(),
        tr("Computation graphs (*.onnx *.pbtxt *.txt *.dot *.gv *.json);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
}

void MainWindow::exportView() {
    if (!graph_) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export view"),
                                                      QFileInfo(currentPath_).completeBaseName() + ".png",
                                                      tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty()) return;
    if (view_->exportImage(path))
        statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
    else
        QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1").arg(path));
}

void MainWindow::openModel(const QString& path) {
    const int generation = ++loadGeneration_;
    statusBar()->showMessage(tr("Loading %1 ...").arg(QFileInfo(path).fileName()));
    setCursor(Qt::BusyCursor);
    if (loadCancel_) loadCancel_->store(true);  // an older load still reading is superseded
    loadCancel_ = std::make_shared<std::atomic<bool>>(false);
    ModelLoadOptions options;
    options.cliPath = layoutJob_->cliPath();
    options.timeoutMs = loadTimeoutMs_;
    options.batch = runPanel_->batch() > 1 ? runPanel_->batch() : 0;
    loadWatcher_.setFuture(QtConcurrent::run(&loadPool_, [path, options, cancel = loadCancel_]() {
        LoadOutcome out;
        out.path = path;
        try {
            out.graph = loadModelIsolated(path, options, *cancel);
            if (!out.graph) out.error = QObject::tr("%1: loading was cancelled").arg(path);
        } catch (const std::exception& e) {
            out.error = QString::fromStdString(e.what());
        }
        return out;
    }));
    loadWatcher_.setProperty("generation", generation);
}

void MainWindow::onLoadFinished() {
    if (loadWatcher_.property("generation").toInt() != loadGeneration_) return;  // stale
    unsetCursor();
    const LoadOutcome out = loadWatcher_.result();
    if (!out.error.isEmpty()) {
        statusBar()->showMessage(tr("Could not open %1").arg(out.path));
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Could not open model"), out.error, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        emit loadFailed(out.error);
        return;
    }
    policyKey_.clear();  // a new graph: its explanation is computed again
    currentPath_ = out.path;
    graph_ = out.graph;
    forceDot_ = false;
    lastResult_.reset();
    convergence_->clearRuns();
    schedule_->clear();
    memory_->clear();
    model_->setGraph(out.graph);
    measured_.reset();
    measuredPath_.clear();
    executionSummary_.clear();
    model_->setMeasuredCosts({});
    runPanel_->offerMeasuredCosts(QString());
    table_->setColumnHidden(NodeTableModel::Measured, true);
    updateMachineActions();
    scopeTree_->setGraph(out.graph);
    groupByScope_->setVisible(scopeTree_->hasScopes());
    setGroupByScope(groupByScope_->isChecked());
    tuningView_->setModel(out.graph, out.path);
    try {  // a partitioning workload brings its machine: offer it first in the run panel
        const std::optional<DeviceModel> own = DeviceModel::fromGraph(*out.graph);
        runPanel_->offerModelDevices(own ? &*own : nullptr);
    } catch (const std::exception& e) {
        runPanel_->offerModelDevices(nullptr);
        statusBar()->showMessage(QString::fromStdString(e.what()), 8000);
    }
    // The dock is narrow: name, op and MFLOP; shapes and bytes are in the tooltip and Properties.
    table_->setColumnHidden(NodeTableModel::OutputShape, true);
    table_->setColumnHidden(NodeTableModel::OutputBytes, true);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Sized from the first rows, not all of them: measuring 5,000 rows stalled the window ~100 ms.
    table_->horizontalHeader()->setResizeContentsPrecision(200);
    table_->horizontalHeader()->setSectionResizeMode(NodeTableModel::Name, QHeaderView::Stretch);
    properties_->clear();
    const Graph& g = *out.graph;
    const QLocale loc;
    summary_->setText(tr("<b>%1</b><br>%2 nodes, %3 edges, %4 GFLOP<br>activations %5, weights %6")
                          .arg(QFileInfo(out.path).fileName().toHtmlEscaped())
                          .arg(g.nodeCount())
                          .arg(g.edges().size())
                          .arg(loc.toString(g.totalFlops() / 1e9, 'f', 3))
                          .arg(loc.formattedDataSize(g.activationBytes()))
                          .arg(loc.formattedDataSize(g.weightBytes())));
    // The sizes the symbolic input dimensions took (the batch field), as `graphopt info` says.
    if (auto it = g.metadata.find("onnx.input_dims"); it != g.metadata.end() && !it->second.empty())
        summary_->setText(summary_->text() + "<br>" + tr("inputs %1").arg(QString::fromStdString(it->second).toHtmlEscaped()));
    // Unknown shapes or FLOP formulas make the totals too low: say so under them.
    if (const std::string w = graphCompleteness(g).warning(); !w.empty())
        summary_->setText(summary_->text() + "<br><span style='color:#b35900'>" +
                          QString::fromStdString(w).toHtmlEscaped() + "</span>");
    setWindowTitle(tr("%1 - GraphOpt Studio").arg(QFileInfo(out.path).fileName()));
    statusBar()->showMessage(tr("Loaded %1").arg(out.path), 5000);

    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(out.path);
    recent.prepend(out.path);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue(kRecentKey, recent);
    settings.setValue("lastModel", out.path);
    updateRecentMenu();
    emit modelLoaded(out.path);
    startLayout();
}

// Above this many nodes dot takes longer than a user waits (5,000 generated nodes: ~15 s); the
// fast layout stays unless View > Lay Out with Graphviz asks for dot.
constexpr size_t kDotMaxNodes = 3000;

bool MainWindow::wantDot() const {
    return !keepFast_->isChecked() && (!graph_ || graph_->nodeCount() <= kDotMaxNodes || forceDot_);
}

void MainWindow::setKeepFastLayout(bool on) { keepFast_->setChecked(on); }

void MainWindow::startLayout() {
    if (!graph_) return;
    dotShown_ = false;
    pictureShown_ = false;
    const bool sameGraph = view_->graph() == graph_.get();
    view_->setHorizontal(horizontal_->isChecked());
    if (sameGraph && view_->isFolded()) view_->refresh();  // the boxes in the new direction now
    // A new model: a folded one is drawn at once (its boxes need no whole-graph layout).
    if (!sameGraph) {
        if (view_->beginGraph(graph_, tr("Laying out %1 nodes ...").arg(graph_->nodeCount()))) {
            applyPlacementToView();
            firstPictureShown(tr("folded by scope: %n box(es) and node(s)", nullptr,
                                 view_->scopeItemCount() + view_->nodeItemCount()));
        }
    }
    // dot only when the whole graph is drawn; a folded drawing asks for it when it is opened.
    layoutJob_->start(currentPath_, graph_, horizontal_->isChecked(), wantDot() && !view_->isFolded());
    layoutNotice_->start(kLayoutNoticeMs);
}

void MainWindow::firstPictureShown(const QString& how) {
    if (pictureShown_) return;
    pictureShown_ = true;
    if (afterLayout_) {
        auto action = std::move(afterLayout_);
        afterLayout_ = nullptr;
        action();
    }
    statusBar()->showMessage(how, 8000);
    emit layoutReady();
}

void MainWindow::onFastLayout(const GraphLayout& layout) {
    if (!graph_ || layout.nodes.size() != graph_->nodeCount()) return;
    if (dotShown_) return;  // dot's came first (cannot happen in order, but never go back)
    const bool wasDrawn = view_->hasDrawing();
    view_->showGraph(graph_, layout);
    if (!wasDrawn) applyPlacementToView();
    QString next;
    if (layoutJob_->isDotRunning()) next = tr("; Graphviz dot is working on the final one");
    else if (!keepFast_->isChecked() && !wantDot())
        next = tr("; %1 nodes: the fast layout stays (View > Lay Out with Graphviz runs dot)").arg(graph_->nodeCount());
    firstPictureShown(tr("Fast layout in %1 s (%2)%3")
                          .arg(layoutJob_->fastSeconds(), 0, 'f', 2)
                          .arg(QString::fromStdString(layout.settings))
                          .arg(next));
    if (!layoutJob_->isDotRunning()) {
        cancelLayout_->hide();
        layoutNotice_->stop();
        emit finalLayoutReady();
    }
}

void MainWindow::onLayoutFinished(const GraphLayout& layout) {
    cancelLayout_->hide();
    layoutNotice_->stop();
    if (!graph_ || layout.nodes.size() != graph_->nodeCount()) {
        if (!view_->hasDrawing()) view_->showMessage(tr("The layout does not match the loaded model; lay out again."));
        return;
    }
    const bool wasDrawn = view_->hasDrawing();
    view_->showGraph(graph_, layout);  // keeps the selection, the zoom and the node in view
    dotShown_ = true;
    if (!wasDrawn) applyPlacementToView();
    firstPictureShown(QString());
    statusBar()->showMessage(tr("Layout done in %1 s (%2)")
                                 .arg(layoutJob_->elapsedSeconds(), 0, 'f', 2)
                                 .arg(QString::fromStdString(layout.settings)),
                             8000);
    emit finalLayoutReady();
}

void MainWindow::updatePolicyView() {
    if (!graph_ || results_->currentWidget() != policyView_) return;
    const RunSpec spec = runPanel_->spec();
    const std::string policy = spec.params.is_object() ? spec.params.value("policy", std::string()) : std::string();
    const std::string key = std::to_string(reinterpret_cast<uintptr_t>(graph_.get())) + "|" + spec.objective + "|" +
                            spec.devices + "|" + policy;
    if (key != policyKey_) {
        policyKey_.clear();
        try {
            const DeviceModel devices = DeviceModel::load(spec.devices);
            auto ex = std::make_shared<const regal::PolicyExplanation>(
                regal::explainPolicy(*graph_, devices, spec.objective, policy));
            QStringList names;
            for (const auto& d : devices.devices) names << QString::fromStdString(d.name);
            policyView_->setExplanation(graph_, ex, names);
            policyKey_ = key;
        } catch (const std::exception& e) {
            policyView_->setExplanation(nullptr, nullptr, {});
            policyView_->setMessage(tr("No REGAL policy to show for %1 on %2: %3")
                                        .arg(QString::fromStdString(spec.objective), QString::fromStdString(spec.devices),
                                             QString::fromStdString(e.what())));
            return;
        }
    }
    policyView_->showNode(view_->selectedNode());
}

void MainWindow::showNodeProperties(int node) {
    updatePolicyView();
    if (!graph_ || node < 0 || node >= static_cast<int>(graph_->nodeCount())) {
        properties_->clear();
        return;
    }
    const Graph& g = *graph_;
    const Node& n = g.nodes()[node];
    const QLocale loc;
    QString html = QString("<h3>%1</h3><p><b>%2</b> &middot; node %3</p><table cellspacing=4>")
                       .arg(QString::fromStdString(n.op).toHtmlEscaped(), QString::fromStdString(n.name).toHtmlEscaped())
                       .arg(node);
    html += QString("<tr><td>FLOPs</td><td>%1 M</td></tr>").arg(loc.toString(n.flops / 1e6, 'f', 3));
    if (n.computeCostS >= 0)
        html += QString("<tr><td>compute cost</td><td>%1 &micro;s</td></tr>").arg(loc.toString(n.computeCostS * 1e6, 'f', 2));
    if (n.tempBytes > 0) html += QString("<tr><td>temporary</td><td>%1</td></tr>").arg(loc.formattedDataSize(n.tempBytes));
    if (measured_) {
        auto it = measured_->costs.find(n.name);
        if (it != measured_->costs.end())
            html += QString("<tr><td>measured</td><td>%1 (%2 to %3, %4 runs; %5)</td></tr>")
                        .arg(QString::fromStdString(units::seconds(it->second.medianS)),
                             QString::fromStdString(units::seconds(it->second.minS)),
                             QString::fromStdString(units::seconds(it->second.maxS)))
                        .arg(it->second.repeats)
                        .arg(QString::fromStdString(it->second.source).toHtmlEscaped());
        else
            for (const auto& np : measured_->notProfiled)
                if (np.node == n.name)
                    html += QString("<tr><td>measured</td><td>not run: %1</td></tr>").arg(QString::fromStdString(np.reason).toHtmlEscaped());
    }
    if (lastResult_ && node < static_cast<int>(lastResult_->placement.size())) {
        const int d = lastResult_->placement[node];
        if (d >= 0 && d < static_cast<int>(lastResult_->deviceNames.size()))
            html += QString("<tr><td>device</td><td>%1</td></tr>").arg(QString::fromStdString(lastResult_->deviceNames[d]));
        if (node < static_cast<int>(lastResult_->schedule.ops.size())) {
            const auto& op = lastResult_->schedule.ops[node];
            html += QString("<tr><td>start / end</td><td>%1 / %2 &micro;s</td></tr>")
                        .arg(loc.toString(op.start * 1e6, 'f', 2), loc.toString(op.end * 1e6, 'f', 2));
        }
    }
    html += "</table><h4>Tensors</h4><table cellspacing=4>";
    auto row = [&](const char* dir, int t) {
        if (t < 0) return;
        const Tensor& tensor = g.tensors()[t];
        html += QString("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                    .arg(dir, QString::fromStdString(tensor.name).toHtmlEscaped(),
                         QString::fromStdString(tensor.shapeKnown ? shapeToString(tensor.shape) : std::string("?")),
                         loc.formattedDataSize(tensor.bytes), tensorKindName(tensor.kind));
    };
    for (int t : n.inputs) row("in", t);
    for (int t : n.outputs) row("out", t);
    html += "</table>";
    if (!n.attrs.empty()) {
        html += "<h4>Attributes</h4><table cellspacing=4>";
        for (const auto& [key, value] : n.attrs)
            html += QString("<tr><td>%1</td><td>%2</td></tr>").arg(QString::fromStdString(key).toHtmlEscaped(), attrText(value));
        html += "</table>";
    }
    properties_->setHtml(html);
    scopeTree_->selectNode(node);
    // Keep the table's current row in step with a click in the drawing.
    const QModelIndex src = model_->index(node, 0);
    const QModelIndex idx = proxy_->mapFromSource(src);
    if (idx.isValid() && table_->currentIndex().row() != idx.row()) {
        QSignalBlocker block(table_->selectionModel());
        table_->selectRow(idx.row());
        table_->scrollTo(idx);
    }
}

void MainWindow::setGroupByScope(bool on) {
    if (groupByScope_->isChecked() != on) groupByScope_->setChecked(on);  // comes back here
    const bool tree = on && scopeTree_->hasScopes();
    scopeTree_->setVisible(tree);
    table_->setVisible(!tree);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile()) {
        openModel(urls.first().toLocalFile());
        event->acceptProposedAction();
    }
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString& path : recent)
        recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openModel(path); })->setToolTip(path);
    recentMenu_->setEnabled(!recent.isEmpty());
}

}  // namespace graphopt::ui

namespace graphopt::ui {

void MainWindow::updateMachineActions() {
    if (!profileAct_) return;
    const bool onnx = graph_ && currentPath_.endsWith(".onnx", Qt::CaseInsensitive);
    const bool busy = machineJob_ && machineJob_->isRunning();
    profileAct_->setEnabled(onnx && !busy);
    bool onCores = lastResult_ && !lastResult_->deviceNames.empty();
    if (lastResult_)
        for (const auto& d : lastResult_->deviceNames) onCores = onCores && d.rfind("core", 0) == 0;
    executeAct_->setEnabled(onnx && onCores && !busy);
}

bool MainWindow::profileModel(QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (!graph_) return fail(tr("Open a model first."));
    if (!currentPath_.endsWith(".onnx", Qt::CaseInsensitive))
        return fail(tr("Profiling runs the model's operators: it needs an ONNX model (%1 describes costs, not operators).")
                        .arg(QFileInfo(currentPath_).fileName()));
    if (machineJob_->isRunning()) return fail(tr("A profile or an execution is already going."));
    // The run reads the model with its constants (Clip's bounds, Pad's pads); the file was read
    // safely once already, in the loader's child process.
    struct Profiled {
        ConstantValues constants;
        Graph graph;
        std::unique_ptr<exec::ProfileRun> run;
    };
    auto held = std::make_shared<Profiled>();
    try {
        LoadOptions options;
        options.batch = runPanel_->batch() > 1 ? runPanel_->batch() : 0;
        held->graph = loadOnnx(currentPath_.toStdString(), options, &held->constants);
        RunSpec spec;
        spec.threads = 1;
        held->run = std::make_unique<exec::ProfileRun>(held->graph, held->constants, spec, currentPath_.toStdString());
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }
    std::shared_ptr<Run> run(held, held->run.get());
    QString why;
    if (!machineJob_->startRun(run, dbPath_, &why)) return fail(why);
    updateMachineActions();
    runPanel_->setStatus(tr("Profiling %1 on this CPU ...").arg(QFileInfo(currentPath_).fileName()));
    return true;
}

bool MainWindow::runOnThisMachine(QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (!graph_ || !lastResult_) return fail(tr("Place the model first, on the devices cpu-cores."));
    if (!currentPath_.endsWith(".onnx", Qt::CaseInsensitive)) return fail(tr("Running a placement needs an ONNX model."));
    if (machineJob_->isRunning()) return fail(tr("A profile or an execution is already going."));
    DeviceModel devices;
    const std::string devicesName = !runSpec_.devices.empty() ? runSpec_.devices : lastResult_->devices;
    try {
        devices = DeviceModel::load(devicesName);
        for (const auto& d : devices.devices)
            if (d.kind != "cpu")
                return fail(tr("The placement is on %1, whose device %2 is not one of this machine's cores: place on "
                               "cpu-cores (or a file from `graphopt calibrate`).")
                                .arg(QString::fromStdString(devices.name), QString::fromStdString(d.name)));
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }
    if (!executeScratch_ || !executeScratch_->isValid())
        executeScratch_ = std::make_unique<QTemporaryDir>(QDir::tempPath() + "/graphopt-studio-XXXXXX");
    if (!executeScratch_->isValid())
        return fail(tr("Cannot make a temporary folder for the placement file: %1").arg(executeScratch_->errorString()));
    const QString placement = executeScratch_->filePath("placement.json");
    try {
        writePlacementExport(placement.toStdString(), *graph_, devices, *lastResult_, PlacementExportFormat::Graphopt);
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }
    QStringList args{"execute", currentPath_, "--placement", placement, "--devices", QString::fromStdString(devicesName),
                     "--repeats", "5", "--json"};
    if (runPanel_->batch() > 1) args << "--batch" << QString::number(runPanel_->batch());
    if (measured_) args << "--costs" << measuredPath_;
    const QString cli = layoutJob_->cliPath();
    machineJob_->start([cli, args](JobContext& ctx) -> std::any {
        const ChildOutcome r = runChild(cli, args, [&ctx] { return ctx.cancelled(); }, 10 * 60 * 1000);
        if (r.stopped) throw std::runtime_error("cancelled");
        if (r.timedOut) throw std::runtime_error("graphopt execute ran past 10 minutes and was stopped");
        if (r.crashed || r.exitCode != 0)
            throw std::runtime_error(r.err.isEmpty() ? "graphopt execute failed" : r.err.toStdString());
        return nlohmann::json::parse(r.out.toStdString());
    });
    updateMachineActions();
    runPanel_->setStatus(tr("Running the placement on this machine's cores ..."));
    return true;
}

void MainWindow::onMachineJobFinished() {
    updateMachineActions();
    auto q = [](const std::string& s) { return QString::fromStdString(s); };
    if (const auto* profiled = machineJob_->outcomeAs<exec::ProfileResult>()) {
        if (profiled->status() != RunStatus::Finished) {
            runPanel_->setStatus(tr("Profile cancelled."));
            return;
        }
        measured_ = std::make_shared<exec::MeasuredCosts>(profiled->costs);
        // Beside the user's policies and device files: ~/.local/share/graphopt-studio/costs.
        const QString folder = QDir::cleanPath(QString::fromStdString(userPolicyDir()) + "/../costs");
        QDir().mkpath(folder);
        measuredPath_ = folder + "/" + QFileInfo(currentPath_).completeBaseName() + ".costs.json";
        try {
            measured_->save(measuredPath_.toStdString());
        } catch (const std::exception& e) {
            statusBar()->showMessage(q(e.what()), 10000);
        }
        model_->setMeasuredCosts(measured_->costs);
        table_->setColumnHidden(NodeTableModel::Measured, false);
        runPanel_->offerMeasuredCosts(tr("%1 ops, %2 on 1 thread").arg(measured_->costs.size()).arg(q(units::seconds(measured_->totalS()))));
        QString text = tr("Profiled on this CPU: %1 operators, sum %2").arg(measured_->costs.size()).arg(q(units::seconds(measured_->totalS())));
        if (!measured_->notProfiled.empty()) text += tr(", %1 not run (estimates kept)").arg(measured_->notProfiled.size());
        if (measured_->loaded) text += tr("; the machine was busy");
        runPanel_->setStatus(text);
        statusBar()->showMessage(text, 10000);
        emit profileFinished();
        return;
    }
    const auto* j = machineJob_->resultAs<nlohmann::json>();
    if (!j) return;
    const double predicted = j->value("predicted_makespan_s", 0.0), measured = j->value("measured_makespan_s", 0.0);
    QString text = tr("On this machine (%1%2): measured %3, predicted %4 (%5%6 %)")
                       .arg(q(j->value("machine", std::string())), j->value("machine_loaded", false) ? tr(", busy") : tr(", idle"))
                       .arg(q(units::seconds(measured)), q(units::seconds(predicted)))
                       .arg(j->value("error_pct", 0.0) >= 0 ? "+" : "")
                       .arg(QLocale().toString(j->value("error_pct", 0.0), 'f', 1));
    QStringList perDevice;
    for (const auto& d : j->value("per_device", nlohmann::json::array()))
        if (d.value("ops", 0) > 0)
            perDevice << tr("%1: busy %2 (predicted %3), peak %4")
                             .arg(q(d.value("device", std::string())), q(units::seconds(d.value("measured_busy_s", 0.0))),
                                  q(units::seconds(d.value("predicted_busy_s", 0.0))),
                                  q(units::bytes(double(d.value("measured_peak_bytes", int64_t(0)))))) ;
    if (!perDevice.isEmpty()) text += "; " + perDevice.join("; ");
    if (!measured_) text += tr(" (predicted with the estimates: profile the model for measured costs)");
    executionSummary_ = text;
    runPanel_->setStatus(text);
    statusBar()->showMessage(text, 15000);
    emit executionFinished(text);
}

}  // namespace graphopt::ui
