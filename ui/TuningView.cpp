#include "TuningView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>
#include <cmath>

#include "BackgroundJob.h"
#include "store/RecordedRun.h"
#include "store/GraphFingerprint.h"
#include "store/RunStore.h"
#include "tuning/LibtorchReference.h"
#include "tuning/ModelBasedTuner.h"
#include "tuning/PeakFlops.h"
#include "tuning/TemplateSpace.h"
#include "tuning/Tuner.h"
#include "tuning/TuningRun.h"

namespace graphopt::ui {

namespace {

// What the references job returns: libtorch per task (when torch can express the shape) and the
// machine's FMA peak.
struct References {
    std::vector<std::optional<tuning::LibtorchTiming>> libtorch;
    tuning::PeakFlops peak;
};

QString number(double v, int decimals) { return QLocale().toString(v, 'f', decimals); }

}  // namespace

TuningView::TuningView(QWidget* parent) : QWidget(parent) {
    job_ = new BackgroundJob(this);
    references_ = new BackgroundJob(this);
    projector_ = new BackgroundJob(this);
    buildUi();
    connect(projector_, &BackgroundJob::finished, this, [this] {
        using Fitted = std::map<std::string, std::pair<std::shared_ptr<const tuning::KnobSpace>, tuning::KnobProjection>>;
        const auto* fitted = projector_->resultAs<Fitted>();
        if (!fitted) return;
        for (const auto& [key, fit] : *fitted) {
            if (projections_.count(key)) continue;  // a run needed it first
            // The projection points at the space it was fitted on, which the shared pointer keeps.
            spaces_[key] = fit.first;
            projections_[key] = std::make_unique<tuning::KnobProjection>(fit.second);
        }
    });
    connect(job_, &BackgroundJob::progress, this, &TuningView::onProgress);
    connect(job_, &BackgroundJob::measured, this, [this](const QVector<TuningMeasurement>& ms) {
        auto it = runs_.find(currentKey_);
        if (it == runs_.end()) return;
        for (const auto& m : ms) it->second.frames->addMeasurement(m);
    });
    connect(job_, &BackgroundJob::finished, this, &TuningView::onJobFinished);
    connect(job_, &BackgroundJob::failed, this, [this](const QString& message) {
        queue_.clear();
        if (currentTask_ >= 0) {
            state_[size_t(currentTask_)].state = tr("failed");
            updateTaskRow(currentTask_);
        }
        status_->setText(tr("Tuning failed: %1").arg(message));
        updateEnabled();
        emit tuningFailed(message);
    });
    connect(references_, &BackgroundJob::finished, this, [this] {
        const auto* r = references_->resultAs<References>();
        if (!r) return;
        for (size_t i = 0; i < r->libtorch.size() && i < state_.size(); ++i)
            if (r->libtorch[i]) {
                state_[i].libtorchGflops = r->libtorch[i]->gflops;
                state_[i].libtorchLatencyS = r->libtorch[i]->medianS;
            }
        peakGflops_ = r->peak.gflopsAll;
        peakLoaded_ = r->peak.loaded;
        for (int task = 0; task < int(state_.size()); ++task) updateTaskRow(task);  // keeps the selection
        updateReferences();
        emit referencesMeasured();
        if (startWhenReferencesDone_) {
            startWhenReferencesDone_ = false;
            if (!queue_.empty()) {
                const int first = queue_.front();
                queue_.erase(queue_.begin());
                if (!startTask(first)) queue_.clear();
            }
            updateEnabled();
        }
    });
    updateEnabled();
}

TuningView::~TuningView() = default;

void TuningView::buildUi() {
    model_ = new QStandardItemModel(0, ColumnCount, this);
    model_->setHorizontalHeaderLabels({tr("#"), tr("op"), tr("shapes"), tr("MFLOP"), tr("uses"), tr("configs"),
                                       tr("best GFLOP/s"), tr("libtorch GFLOP/s"), tr("x libtorch"), tr("tuner"),
                                       tr("state")});
    table_ = new QTableView(this);
    table_->setObjectName("tuningTasks");
    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->setAlternatingRowColors(true);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(Shape, QHeaderView::Stretch);
    table_->setToolTip(tr("libtorch GFLOP/s: torch's own conv2d/mm on the same shapes, the faster of 1 thread and all "
                          "cores; x libtorch: libtorch's time / the tuned kernel's (above 1: the tuned kernel is faster)"));
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { onTaskSelected(); });
    skippedLabel_ = new QLabel(this);
    skippedLabel_->setWordWrap(true);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);

    auto* settings = new QGroupBox(tr("Tuning run"), this);
    auto* form = new QFormLayout(settings);
    all_ = new QCheckBox(tr("every task, one after the other"), settings);
    tuner_ = new QComboBox(settings);
    tuner_->setObjectName("tuner");
    for (const auto& d : tuning::tunerDescriptions()) {
        tuner_->addItem(QString::fromStdString(d.name), QString::fromStdString(d.name));
        QString tip = QString::fromStdString(d.summary);
        if (!d.params.empty()) tip += "\n\nparameters (JSON):\n" + QString::fromStdString(describeParams(d.params, "  "));
        tuner_->setItemData(tuner_->count() - 1, tip, Qt::ToolTipRole);
    }
    tuner_->setCurrentIndex(std::max(0, tuner_->findData("release")));
    measurer_ = new QComboBox(settings);
    measurer_->setObjectName("measurer");
    measurer_->addItem(tr("real Halide kernels on this CPU"), "halide");
    measurer_->addItem(tr("simulated CPU (demonstrations, tests)"), "sim");
    trials_ = new QSpinBox(settings);
    trials_->setRange(1, 100000);
    trials_->setValue(48);
    trials_->setToolTip(tr("Measurements per task"));
    seed_ = new QSpinBox(settings);
    seed_->setRange(0, 1'000'000'000);
    seed_->setValue(1);
    batch_ = new QSpinBox(settings);
    batch_->setRange(1, 4096);
    batch_->setValue(8);
    batch_->setToolTip(tr("Configurations proposed and measured together"));
    params_ = new QLineEdit(settings);
    params_->setObjectName("tunerParams");
    params_->setPlaceholderText(tr("tuner parameters as JSON, e.g. {\"plan_size\": 16}"));
    params_->setClearButtonEnabled(true);
    connect(measurer_, &QComboBox::currentIndexChanged, this, [this] {
        for (int task = 0; task < int(tasks_.size()); ++task) updateTaskRow(task);
    });
    auto paramsTip = [this] { params_->setToolTip(tuner_->currentData(Qt::ToolTipRole).toString()); };
    connect(tuner_, &QComboBox::currentIndexChanged, this, paramsTip);
    paramsTip();
    // A model-based tuner measures its first configurations at random; a budget that ends there
    // shows random search only, which a demonstration should not find out afterwards.
    warmupHint_ = new QLabel(settings);
    warmupHint_->setObjectName("warmupHint");
    warmupHint_->setWordWrap(true);
    warmupHint_->setStyleSheet("color: #a05a00;");
    auto updateWarmupHint = [this] {
        const QString tuner = tuner_->currentData().toString();
        const nlohmann::json params = tunerParamsField(nullptr).value_or(nlohmann::json::object());
        int64_t warmup = 0;
        try {
            warmup = tuning::randomMeasurementsFirst(tuner.toStdString(), params);
        } catch (const std::exception&) {
        }
        const bool never = warmup > 0 && trials_->value() <= warmup;
        warmupHint_->setVisible(never);
        if (never)
            warmupHint_->setText(tr("%1 measures its first %2 configurations at random before its model is used: with "
                                    "%3 measurements the model is never used (give more than %2, or the parameter "
                                    "{\"initial_random\": 16})")
                                     .arg(tuner)
                                     .arg(warmup)
                                     .arg(trials_->value()));
    };
    connect(tuner_, &QComboBox::currentIndexChanged, this, updateWarmupHint);
    connect(trials_, &QSpinBox::valueChanged, this, updateWarmupHint);
    connect(params_, &QLineEdit::textChanged, this, updateWarmupHint);
    updateWarmupHint();
    form->addRow(tr("Task"), all_);
    form->addRow(tr("Tuner"), tuner_);
    form->addRow(tr("Measurer"), measurer_);
    form->addRow(tr("Measurements"), trials_);
    form->addRow(QString(), warmupHint_);
    form->addRow(tr("Seed"), seed_);
    form->addRow(tr("Batch"), batch_);
    form->addRow(tr("Parameters"), params_);
    start_ = new QPushButton(tr("Tune"), settings);
    cancel_ = new QPushButton(tr("Cancel"), settings);
    addStored_ = new QPushButton(tr("Add stored runs"), settings);
    addStored_->setToolTip(tr("Overlay every stored tuning run of the selected task"));
    auto* buttons = new QHBoxLayout();
    buttons->addWidget(start_);
    buttons->addWidget(cancel_);
    buttons->addWidget(addStored_);
    form->addRow(buttons);
    progress_ = new QProgressBar(settings);
    progress_->setRange(0, 1000);
    status_ = new QLabel(settings);
    status_->setWordWrap(true);
    form->addRow(progress_);
    form->addRow(status_);
    connect(start_, &QPushButton::clicked, this, [this] { startTuning(); });
    connect(cancel_, &QPushButton::clicked, this, &TuningView::cancel);
    connect(addStored_, &QPushButton::clicked, this, [this] { addStoredRuns(); });

    convergence_ = new TuningConvergenceChart(this);
    xAxis_ = new QComboBox(this);
    xAxis_->addItem(tr("against measurements"));
    xAxis_->addItem(tr("against seconds"));
    connect(xAxis_, &QComboBox::currentIndexChanged, this, [this](int i) {
        convergence_->setXAxis(i == 0 ? TuningConvergenceChart::XAxis::Measurements : TuningConvergenceChart::XAxis::Seconds);
    });
    clusters_ = new ClusterScatter(this);

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(table_, 1);
    leftLayout->addWidget(skippedLabel_);
    leftLayout->addWidget(summary_);
    leftLayout->addWidget(settings);
    auto* convergencePane = new QWidget(this);
    auto* cl = new QVBoxLayout(convergencePane);
    cl->setContentsMargins(0, 0, 0, 0);
    auto* xRow = new QHBoxLayout();
    xRow->addWidget(new QLabel(tr("Best GFLOP/s so far"), convergencePane));
    xRow->addStretch(1);
    xRow->addWidget(xAxis_);
    cl->addLayout(xRow);
    cl->addWidget(convergence_, 1);
    auto* right = new QSplitter(Qt::Vertical, this);
    right->addWidget(convergencePane);
    right->addWidget(clusters_);
    right->setStretchFactor(0, 2);
    right->setStretchFactor(1, 3);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({560, 720});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);
}

void TuningView::setModel(std::shared_ptr<const Graph> graph, const QString& path) {
    queue_.clear();
    job_->abandon();
    references_->abandon();
    projector_->abandon();
    graph_ = std::move(graph);
    path_ = path;
    tasks_.clear();
    skipped_.clear();
    if (graph_) tasks_ = tuning::extractTasks(*graph_, &skipped_);
    state_.assign(tasks_.size(), TaskState{});
    spaces_.clear();
    projections_.clear();
    runs_.clear();
    currentKey_ = 0;
    currentTask_ = -1;
    referencesStarted_ = false;
    peakGflops_ = 0;
    peakLoaded_ = false;
    convergence_->clearRuns();
    convergence_->setReferences(0, 0);
    clusters_->clear();
    refreshTable();
    if (!tasks_.empty()) table_->selectRow(0);
    QStringList skipped;
    for (const auto& s : skipped_) skipped << QString::fromStdString(s).toHtmlEscaped();
    skippedLabel_->setText(skipped.isEmpty() ? QString()
                                             : tr("<b>Not tuned</b> (no template fits): %1").arg(skipped.join("; ")));
    skippedLabel_->setVisible(!skipped.isEmpty());
    status_->setText(tasks_.empty() ? tr("This model has no tunable operators (Conv, Gemm, MatMul).")
                                    : tr("%1 tasks. Pick one, or every task, and press Tune.").arg(tasks_.size()));
    // Every task's 2-D projection, for every conv template, fitted off the GUI thread (a few
    // milliseconds in all).
    const auto tasks = tasks_;
    projector_->start([tasks](JobContext& ctx) -> std::any {
        std::map<std::string, std::pair<std::shared_ptr<const tuning::KnobSpace>, tuning::KnobProjection>> out;
        for (const auto& base : tasks)
            for (const auto& t : {base, tuning::withPackedTemplate(base), tuning::withTiledTemplate(base)}) {
                if (ctx.cancelled()) return {};
                if (out.count(t.key())) continue;
                auto space = std::make_shared<const tuning::KnobSpace>(tuning::templateSpace(t));
                out[t.key()] = {space, tuning::KnobProjection::fit(*space)};
            }
        return out;
    });
    if (isVisible()) measureReferences();
    updateEnabled();
}

void TuningView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    measureReferences();  // only now: it keeps both cores busy for a few seconds
}

void TuningView::measureReferences() {
    if (referencesStarted_ || tasks_.empty()) return;
    referencesStarted_ = true;
    const auto tasks = tasks_;
    references_->start([tasks](JobContext& ctx) -> std::any {
        References r;
        const int cores = std::max(1, QThread::idealThreadCount());
        for (const auto& t : tasks) {
            if (ctx.cancelled()) return {};
            try {
                // The faster of one thread and all cores, as `graphopt tune` compares.
                const auto one = tuning::timeLibtorch(t, 1, 0.05);
                const auto all = cores > 1 ? tuning::timeLibtorch(t, cores, 0.05) : one;
                r.libtorch.push_back(all.medianS < one.medianS ? all : one);
            } catch (const std::exception&) {
                r.libtorch.push_back(std::nullopt);  // a shape torch cannot express
            }
        }
        r.peak = tuning::measurePeakFlops();
        return r;
    });
}

void TuningView::refreshTable() {
    model_->setRowCount(0);
    for (size_t i = 0; i < tasks_.size(); ++i) {
        const auto& t = tasks_[i];
        QList<QStandardItem*> row;
        for (int c = 0; c < ColumnCount; ++c) {
            auto* item = new QStandardItem();
            item->setEditable(false);
            row << item;
        }
        std::string shape = t.describe();
        row[Index]->setData(int(i), Qt::DisplayRole);
        row[Kind]->setText(QString::fromStdString(tuning::taskKindName(t.kind)));
        row[Shape]->setText(QString::fromStdString(shape.substr(shape.find(' ') + 1)));
        row[Mflop]->setText(number(t.flops() / 1e6, 1));
        row[Uses]->setData(t.weight, Qt::DisplayRole);
        model_->appendRow(row);
        updateTaskRow(int(i));
    }
    summary_->setText(summaryText());
}

void TuningView::updateTaskRow(int task) {
    if (task < 0 || task >= model_->rowCount()) return;
    const TaskState& s = state_[size_t(task)];
    auto set = [&](int column, const QString& text) { model_->item(task, column)->setText(text); };
    // The space of the template the chosen measurer tunes: tiled with real kernels, NCHW simulated.
    const tuning::TuningTask& base = tasks_[size_t(task)];
    const tuning::TuningTask t = measurer_->currentData() == "halide" ? tuning::withTiledTemplate(base) : base;
    set(Space, QLocale().toString(qlonglong(tuning::templateSpace(t).size())));
    model_->item(task, Space)->setToolTip(tr("template: %1").arg(QString::fromStdString(t.templateName())));
    set(Best, s.bestGflops ? number(*s.bestGflops, 1) + (s.simulated ? tr(" (simulated)") : QString()) : QString("-"));
    set(Libtorch, s.libtorchGflops ? number(*s.libtorchGflops, 1) : QString("-"));
    set(Ratio, s.bestLatencyS && s.libtorchLatencyS && !s.simulated ? number(*s.libtorchLatencyS / *s.bestLatencyS, 2)
                                                                    : QString("-"));
    set(Tuner, s.tuner);
    set(State, s.state);
    summary_->setText(summaryText());
}

QString TuningView::summaryText() const {
    if (tasks_.empty()) return {};
    // Estimated time of the tuned operators: best latency x uses, beside libtorch's.
    double tuned = 0, torch = 0;
    int tunedTasks = 0, torchTasks = 0;
    bool simulated = false;
    for (size_t i = 0; i < tasks_.size(); ++i) {
        if (state_[i].bestLatencyS) {
            tuned += *state_[i].bestLatencyS * tasks_[i].weight;
            ++tunedTasks;
            simulated |= state_[i].simulated;
        }
        if (state_[i].libtorchLatencyS) {
            torch += *state_[i].libtorchLatencyS * tasks_[i].weight;
            ++torchTasks;
        }
    }
    const int n = int(tasks_.size());
    QString text = tr("<b>Model</b>: %1 of %2 tasks tuned").arg(tunedTasks).arg(n);
    if (tunedTasks == n)
        text += tr(", tuned operators %1 ms%2").arg(number(tuned * 1e3, 3), simulated ? tr(" (simulated)") : QString());
    if (torchTasks == n) text += tr("; libtorch on the same operators %1 ms").arg(number(torch * 1e3, 3));
    if (tunedTasks == n && torchTasks == n && !simulated && tuned > 0)
        text += tr("; libtorch / tuned <b>%1x</b>").arg(number(torch / tuned, 2));
    if (peakGflops_ > 0) {
        text += tr("; machine FMA peak %1 GFLOP/s").arg(number(peakGflops_, 0));
        if (peakLoaded_) text += tr(" (measured while other processes were busy: it may be low)");
    }
    return text;
}

QString TuningView::statusText() const { return status_->text(); }

int TuningView::selectedTask() const {
    const QModelIndex idx = table_->currentIndex();
    return idx.isValid() ? idx.row() : -1;
}

void TuningView::selectTask(int task) { table_->selectRow(task); }
void TuningView::setAllTasks(bool all) { all_->setChecked(all); }
void TuningView::setTuner(const QString& name) { tuner_->setCurrentIndex(std::max(0, tuner_->findData(name))); }
void TuningView::setMeasurer(const QString& name) { measurer_->setCurrentIndex(std::max(0, measurer_->findData(name))); }
void TuningView::setTrials(int n) { trials_->setValue(n); }
void TuningView::setSeed(int seed) { seed_->setValue(seed); }
void TuningView::setBatchSize(int n) { batch_->setValue(n); }
void TuningView::setTunerParams(const QString& json) { params_->setText(json); }

bool TuningView::isRunning() const { return job_->isRunning() || startWhenReferencesDone_; }

void TuningView::updateEnabled() {
    const bool running = isRunning() || !queue_.empty();
    start_->setEnabled(!running && !tasks_.empty());
    cancel_->setEnabled(running);
    addStored_->setEnabled(!tasks_.empty() && !dbPath_.isEmpty());
    for (QWidget* w : std::initializer_list<QWidget*>{all_, tuner_, measurer_, trials_, seed_, batch_, params_})
        w->setEnabled(!running);
}

void TuningView::onTaskSelected() {
    const int task = selectedTask();
    if (task < 0) return;
    updateReferences();
    // Show the newest run of this task, if any.
    for (auto it = runs_.rbegin(); it != runs_.rend(); ++it)
        if (it->second.task == task) {
            showRun(it->first);
            return;
        }
    if (!job_->isRunning()) clusters_->clear();
}

void TuningView::updateReferences() {
    const int task = currentTask_ >= 0 && job_->isRunning() ? currentTask_ : selectedTask();
    const double torch = task >= 0 && state_[size_t(task)].libtorchGflops ? *state_[size_t(task)].libtorchGflops : 0;
    convergence_->setReferences(peakGflops_, torch);
}

const tuning::KnobProjection* TuningView::projectionFor(const tuning::TuningTask& task) {
    auto it = projections_.find(task.key());
    if (it != projections_.end()) return it->second.get();
    // Not fitted yet (a run started within milliseconds of opening the model): fit it now.
    auto space = std::make_shared<const tuning::KnobSpace>(tuning::templateSpace(task));
    auto projection = std::make_unique<tuning::KnobProjection>(tuning::KnobProjection::fit(*space));
    const tuning::KnobProjection* p = projection.get();
    spaces_[task.key()] = space;
    projections_[task.key()] = std::move(projection);
    return p;
}

bool TuningView::startTuning() {
    if (!graph_ || tasks_.empty()) {
        status_->setText(tr("Open a model with tunable operators first."));
        return false;
    }
    if (job_->isRunning()) return false;
    queue_.clear();
    if (all_->isChecked()) {
        for (int i = 0; i < int(tasks_.size()); ++i) queue_.push_back(i);
    } else {
        const int task = selectedTask();
        if (task < 0) {
            status_->setText(tr("Pick a task in the table (or tune every task)."));
            return false;
        }
        queue_.push_back(task);
    }
    measureReferences();
    if (references_->isRunning() && measurer_->currentData() == "halide") {
        // Real measurements wait for libtorch's and the peak's: both would be wrong side by side.
        startWhenReferencesDone_ = true;
        status_->setText(tr("Timing libtorch on every task and the machine's FMA peak first ..."));
        updateEnabled();
        return true;
    }
    const int first = queue_.front();
    queue_.erase(queue_.begin());
    if (!startTask(first)) {
        queue_.clear();
        updateEnabled();
        return false;
    }
    return true;
}

std::optional<nlohmann::json> TuningView::tunerParamsField(QString* why) const {
    const QString text = params_->text().trimmed();
    if (text.isEmpty()) return nlohmann::json::object();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text.toStdString());
    } catch (const std::exception&) {
        if (why) *why = tr("The tuner parameters are not valid JSON.");
        return std::nullopt;
    }
    if (!j.is_object()) {
        if (why) *why = tr("The tuner parameters must be a JSON object.");
        return std::nullopt;
    }
    return j;
}

bool TuningView::startTask(int task) {
    QString why;
    const std::optional<nlohmann::json> field = tunerParamsField(&why);
    if (!field) {
        status_->setText(why);
        return false;
    }
    const nlohmann::json& tunerParams = *field;
    RunSpec spec;
    spec.kind = "tuning";
    spec.engine = tuner_->currentData().toString().toStdString();
    spec.objective = "latency";
    spec.budget = trials_->value();
    spec.seed = uint64_t(seed_->value());
    spec.params = {{"task_index", task},
                   {"measurer", measurer_->currentData().toString().toStdString()},
                   {"batch_size", batch_->value()},
                   {"tuner_params", tunerParams}};
    // The run is made here so that a bad spec is refused before anything is stored.
    std::shared_ptr<tuning::TuningRun> run;
    QString error;
    try {
        auto graph = graph_;
        run = std::shared_ptr<tuning::TuningRun>(new tuning::TuningRun(*graph, spec, path_.toStdString()),
                                                 [graph](tuning::TuningRun* r) { delete r; });
    } catch (const std::exception& e) {
        error = QString::fromStdString(e.what());
    }
    // Drawn in the space of the template the run uses (tiled with real measurements).
    const tuning::TuningTask effective = run ? run->task() : tasks_[size_t(task)];
    const tuning::KnobProjection* projection = projectionFor(effective);
    if (!run || !job_->startRun(run, dbPath_, &error)) {
        status_->setText(tr("Cannot start: %1").arg(error));
        return false;
    }
    currentTask_ = task;
    budget_ = spec.budget;
    currentKey_ = job_->runId() >= 0 ? job_->runId() : nextLocalKey_--;
    const bool simulated = spec.params["measurer"] == "sim";
    RunView view;
    view.task = task;
    view.taskKey = effective.key();
    view.label = tr("%1 #%2 (seed %3%4)")
                     .arg(tuner_->currentData().toString())
                     .arg(job_->runId() >= 0 ? QString::number(job_->runId()) : tr("unstored"))
                     .arg(spec.seed)
                     .arg(simulated ? tr(", simulated") : QString());
    view.frames = std::make_unique<TuningFrames>(projection);
    runs_[currentKey_] = std::move(view);
    TaskState& s = state_[size_t(task)];
    s.state = tr("running");
    s.tuner = tuner_->currentData().toString();
    updateTaskRow(task);
    table_->selectRow(task);
    convergence_->setRun(currentKey_, runs_[currentKey_].label, {});
    showRun(currentKey_);
    updateReferences();
    progress_->setValue(0);
    status_->setText(tr("Task %1: starting %2 ...").arg(task).arg(runs_[currentKey_].label));
    updateEnabled();
    return true;
}

void TuningView::onProgress(const QVector<ProgressEvent>& events) {
    auto it = runs_.find(currentKey_);
    if (it == runs_.end() || events.isEmpty()) return;
    for (const auto& e : events) it->second.frames->addEvent(e);
    convergence_->setRun(currentKey_, it->second.label, it->second.frames->convergence());
    clusters_->setFrames(it->second.frames.get(), false);
    const ProgressEvent& last = events.back();
    const double done = double(last.evaluations), total = double(std::max<int64_t>(1, budget_));
    progress_->setValue(int(1000 * std::min(1.0, done / total)));
    const double left = done > 0 ? last.elapsedS / done * (total - done) : 0;
    status_->setText(tr("Task %1: %2 of %3 measured, best %4 GFLOP/s; about %5 s left")
                         .arg(currentTask_)
                         .arg(last.evaluations)
                         .arg(budget_)
                         .arg(number(last.values.value("best_gflops", 0.0), 1))
                         .arg(number(left, 0)));
    TaskState& s = state_[size_t(currentTask_)];
    s.state = tr("running %1/%2").arg(last.evaluations).arg(budget_);
    updateTaskRow(currentTask_);
}

void TuningView::onJobFinished() {
    const auto* res = job_->outcomeAs<tuning::TuningResult>();
    if (!res || currentTask_ < 0) return;
    TaskState& s = state_[size_t(currentTask_)];
    const bool simulated = res->measurer == "sim";
    // The table keeps the best kernel found for the task by any run.
    if (res->hasBest() && (!s.bestGflops || res->bestGflops() > *s.bestGflops)) {
        s.bestGflops = res->bestGflops();
        s.bestLatencyS = res->bestLatencyS();
        s.simulated = simulated;
        s.tuner = QString::fromStdString(res->tuner);
    }
    const bool cancelled = res->status() == RunStatus::Cancelled;
    s.state = cancelled ? tr("cancelled") : tr("tuned");
    updateTaskRow(currentTask_);
    const qint64 runId = job_->runId();
    status_->setText(tr("Task %1: %2 measurements, best %3 GFLOP/s%4%5")
                         .arg(currentTask_)
                         .arg(res->measurements.size())
                         .arg(number(res->bestGflops(), 1))
                         .arg(simulated ? tr(" (simulated)") : QString())
                         .arg(cancelled ? tr("; cancelled, best so far kept") : QString()) +
                     (runId >= 0 ? tr(" [run %1 stored]").arg(runId) : QString()));
    progress_->setValue(cancelled ? progress_->value() : 1000);
    emit tuningFinished(runId);
    if (cancelled) queue_.clear();
    if (!queue_.empty()) {
        const int next = queue_.front();
        queue_.erase(queue_.begin());
        if (startTask(next)) return;
        queue_.clear();
    }
    updateEnabled();
    emit allTuningFinished();
}

const TuningFrames* TuningView::framesOf(qint64 runId) const {
    auto it = runs_.find(runId);
    return it == runs_.end() ? nullptr : it->second.frames.get();
}

void TuningView::cancel() {
    const bool waiting = startWhenReferencesDone_;
    startWhenReferencesDone_ = false;
    queue_.clear();
    job_->cancel();
    if (waiting) {
        status_->setText(tr("Cancelled before it started."));
        updateEnabled();
        emit allTuningFinished();
    }
}

void TuningView::showRun(qint64 key) {
    auto it = runs_.find(key);
    if (it == runs_.end()) return;
    clusters_->setDescriber([this, key = it->second.taskKey](int64_t config) {
        auto s = spaces_.find(key);
        return s == spaces_.end() ? QString() : QString::fromStdString(s->second->describeText(config));
    });
    clusters_->setFrames(it->second.frames.get(), true);
}

bool TuningView::openStoredRun(qint64 runId, QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        status_->setText(why);
        return false;
    };
    if (dbPath_.isEmpty() || !graph_) return fail(tr("No run database or no model."));
    try {
        RunStore store(dbPath_.toStdString());
        const RunSummary s = store.run(runId);
        if (s.run.kind != "tuning") return fail(tr("Run %1 is not a tuning run.").arg(runId));
        const std::string taskName = s.run.spec.value("params", nlohmann::json::object()).value("task", "");
        int task = -1;
        for (size_t i = 0; i < tasks_.size(); ++i)
            if (tasks_[i].describe() == taskName) task = int(i);
        if (task < 0) return fail(tr("Run %1 tuned %2, which is not a task of this model.").arg(runId).arg(QString::fromStdString(taskName)));
        RunView view;
        view.task = task;
        const nlohmann::json params = s.run.spec.value("params", nlohmann::json::object());
        const bool simulated = params.value("measurer", "") == "sim";
        // Runs before the packed template (no "template") used the NCHW one.
        tuning::TuningTask effective = tasks_[size_t(task)];
        try {
            effective = tuning::withTemplate(effective, params.value("template", std::string("nchw")));
        } catch (const std::invalid_argument& e) {
            return fail(tr("Run %1: %2").arg(runId).arg(QString::fromUtf8(e.what())));
        }
        view.taskKey = effective.key();
        view.label = tr("%1 #%2 (seed %3%4, stored)")
                         .arg(QString::fromStdString(s.run.engine))
                         .arg(runId)
                         .arg(s.run.seed)
                         .arg(simulated ? tr(", simulated") : QString());
        view.frames = std::make_unique<TuningFrames>(projectionFor(effective));
        for (const auto& m : store.measurements(runId)) view.frames->addMeasurement(m);
        for (const auto& e : store.events(runId)) view.frames->addEvent(e);
        convergence_->setRun(runId, view.label, view.frames->convergence());
        runs_[runId] = std::move(view);
        table_->selectRow(task);
        showRun(runId);
        return true;
    } catch (const std::exception& e) {
        return fail(tr("Cannot open run %1: %2").arg(runId).arg(QString::fromStdString(e.what())));
    }
}

int TuningView::addStoredRuns() {
    const int task = selectedTask();
    if (task < 0 || dbPath_.isEmpty() || !QFileInfo::exists(dbPath_)) return 0;
    int added = 0;
    try {
        RunStore store(dbPath_.toStdString());
        RunFilter f;
        f.kind = "tuning";
        for (const auto& s : store.listRuns(f)) {
            if (runs_.count(s.run.id) || s.run.status == RunStatus::Running) continue;
            if (s.run.spec.value("params", nlohmann::json::object()).value("task", "") != tasks_[size_t(task)].describe())
                continue;
            if (openStoredRun(s.run.id)) ++added;
        }
    } catch (const std::exception& e) {
        status_->setText(tr("Cannot read the run database: %1").arg(QString::fromStdString(e.what())));
    }
    if (added) status_->setText(tr("Added %1 stored runs of task %2.").arg(added).arg(task));
    return added;
}

}  // namespace graphopt::ui
