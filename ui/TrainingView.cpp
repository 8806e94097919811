#include "TrainingView.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QCheckBox>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>

#include <algorithm>

#include "BackgroundJob.h"
#include "placement/model/DeviceModel.h"
#include "placement/regal/TrainingRun.h"
#include "run/ResourceLocator.h"
#include "store/RunStore.h"

namespace graphopt::ui {

namespace {

const char* const kPlotKeys[] = {"mean_reward", "validation_win_rate", "validation_mean_improvement", "entropy"};

QSpinBox* spin(int lo, int hi, int value, const QString& name) {
    auto* s = new QSpinBox;
    s->setRange(lo, hi);
    s->setValue(value);
    s->setObjectName(name);
    return s;
}

}  // namespace

QString TrainingView::userPolicyDir() { return QString::fromStdString(graphopt::userPolicyDir()); }

TrainingView::TrainingView(QWidget* parent) : QWidget(parent), job_(new BackgroundJob(this)) {
    auto* layout = new QHBoxLayout(this);
    auto* formBox = new QWidget;
    auto* form = new QFormLayout(formBox);
    objective_ = new QComboBox;
    objective_->setObjectName("trainObjective");
    objective_->addItems({"runtime", "memory"});
    form->addRow(tr("Objective"), objective_);
    devices_ = new QComboBox;
    devices_->setObjectName("trainDevices");
    for (const auto& name : DeviceModel::presetNames()) devices_->addItem(QString::fromStdString(name));
    devices_->setCurrentText(QString::fromStdString(DeviceModel::defaultPresetName()));
    form->addRow(tr("Devices"), devices_);
    epochs_ = spin(1, 100000, 10, "trainEpochs");
    form->addRow(tr("Epochs"), epochs_);
    seed_ = spin(0, 1000000, 1, "trainSeed");
    form->addRow(tr("Seed"), seed_);
    budget_ = spin(10, 10000000, 1000, "trainBudget");
    budget_->setSingleStep(500);
    budget_->setToolTip(tr("BRKGA evaluations per training rollout"));
    form->addRow(tr("Budget"), budget_);
    samples_ = spin(1, 64, 4, "trainSamples");
    samples_->setToolTip(tr("actions sampled per graph and epoch"));
    form->addRow(tr("Samples"), samples_);
    sizes_ = new QLineEdit("30,80,160");
    sizes_->setObjectName("trainSizes");
    sizes_->setToolTip(tr("node counts of the synthetic training graphs (comma-separated)"));
    form->addRow(tr("Graph sizes"), sizes_);
    imitate_ = spin(0, 100000, 0, "trainImitate");
    imitate_->setToolTip(tr("Before REINFORCE: passes of imitation of elite chromosomes from long BRKGA runs, "
                            "which gives every node a target of its own (0 = none)"));
    form->addRow(tr("Imitation epochs"), imitate_);
    seedHeuristics_ = new QCheckBox(tr("Seed BRKGA with the heuristics"));
    seedHeuristics_->setObjectName("trainSeedHeuristics");
    seedHeuristics_->setToolTip(tr("Every BRKGA run of training starts from the heft, xla-best and single solutions, as "
                                   "eval-policy --seed-heuristics evaluates"));
    form->addRow(QString(), seedHeuristics_);
    auto* buttons = new QHBoxLayout;
    train_ = new QPushButton(tr("Train"));
    resume_ = new QPushButton(tr("Resume"));
    resume_->setToolTip(tr("Go on from the last whole epoch's checkpoint"));
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setToolTip(tr("Stop; the last whole epoch's checkpoint is kept"));
    for (QPushButton* b : {train_, resume_, cancel_}) buttons->addWidget(b);
    form->addRow(buttons);
    status_ = new QLabel(tr("Trains a REGAL policy on synthetic graphs (the validation graphs are synthetic too); "
                            "the finished policy appears in the run panel's policy list."));
    status_->setWordWrap(true);
    status_->setObjectName("trainStatus");
    form->addRow(status_);
    formBox->setMaximumWidth(360);
    layout->addWidget(formBox);

    auto* charts = new QVBoxLayout;
    const QString titles[] = {tr("mean reward (sampled actions, training graphs)"), tr("validation win rate (vs uniform BRKGA)"),
                              tr("validation mean improvement (vs uniform BRKGA)"), tr("entropy")};
    for (const QString& title : titles) {
        Plot p;
        auto* chart = new QChart;
        chart->setTitle(title);
        chart->legend()->hide();
        chart->setMargins(QMargins(2, 2, 2, 2));
        p.series = new QLineSeries;
        p.series->setPointsVisible(true);
        chart->addSeries(p.series);
        auto* x = new QValueAxis;
        x->setLabelFormat("%.0f");
        x->setTitleText(tr("epoch"));
        auto* y = new QValueAxis;
        y->setLabelFormat("%.3g");
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        p.series->attachAxis(x);
        p.series->attachAxis(y);
        x->setRange(0, 1);
        // Ticks on whole epochs (a fixed tick count over 0..5 would label 2.5 as "3").
        x->setTickType(QValueAxis::TicksDynamic);
        x->setTickAnchor(0);
        x->setTickInterval(1);
        y->setRange(0, 1);
        p.view = new QChartView(chart);
        p.view->setRenderHint(QPainter::Antialiasing);
        p.view->setMinimumHeight(120);
        charts->addWidget(p.view);
        plots_.push_back(p);
    }
    layout->addLayout(charts, 1);

    connect(train_, &QPushButton::clicked, this, [this] {
        QString error;
        if (!startTraining(&error)) setStatus(error);
    });
    connect(resume_, &QPushButton::clicked, this, [this] {
        QString error;
        if (!resumeTraining(&error)) setStatus(error);
    });
    connect(cancel_, &QPushButton::clicked, this, &TrainingView::cancel);
    connect(job_, &BackgroundJob::progress, this, &TrainingView::onProgress);
    connect(job_, &BackgroundJob::finished, this, &TrainingView::onFinished);
    connect(job_, &BackgroundJob::failed, this, [this](const QString& message) {
        setStatus(tr("Training failed: %1").arg(message));
        updateButtons();
        emit trainingFinished(QString());
    });
    updateButtons();
}

// The job first, while the view is whole: its destructor stops the worker and waits for it, so
// no progress line is queued to a view being destroyed.
TrainingView::~TrainingView() {
    delete job_;
    job_ = nullptr;
}

void TrainingView::setStatus(const QString& text) {
    status_->setText(text);
    emit statusChanged(text);
}

void TrainingView::setObjective(const QString& o) { objective_->setCurrentText(o); }
void TrainingView::setDevices(const QString& d) { devices_->setCurrentText(d); }
void TrainingView::setEpochs(int e) { epochs_->setValue(e); }
void TrainingView::setSeed(int s) { seed_->setValue(s); }
void TrainingView::setBudget(int b) { budget_->setValue(b); }
void TrainingView::setSamples(int s) { samples_->setValue(s); }
void TrainingView::setSizes(const QString& s) { sizes_->setText(s); }
void TrainingView::setImitationEpochs(int e) { imitate_->setValue(e); }
bool TrainingView::isRunning() const { return job_->isRunning(); }
int TrainingView::epochsPlotted() const { return epochs_plotted_; }
QString TrainingView::statusText() const { return status_->text(); }

void TrainingView::updateButtons() {
    const bool running = job_->isRunning();
    train_->setEnabled(!running);
    resume_->setEnabled(!running && !lastCheckpoint_.isEmpty() && QFileInfo::exists(lastCheckpoint_));
    cancel_->setEnabled(running);
    for (QWidget* w : std::initializer_list<QWidget*>{objective_, devices_, epochs_, seed_, budget_, samples_, sizes_, imitate_, seedHeuristics_})
        w->setEnabled(!running);
}

bool TrainingView::startTraining(QString* error) { return start(QString(), error); }

bool TrainingView::showStoredRun(qint64 runId, QString* error) {
    if (job_->isRunning()) {
        if (error) *error = tr("A training run is going; open the stored run when it ends.");
        return false;
    }
    try {
        RunStore store(dbPath_.toStdString());
        const RunSummary s = store.run(runId);
        if (s.run.kind != "training") throw std::invalid_argument("run " + std::to_string(runId) + " is not a training run");
        for (auto& p : plots_) p.series->clear();
        epochs_plotted_ = 0;
        const auto events = store.events(runId);
        onProgress(QVector<ProgressEvent>(events.begin(), events.end()));
        setObjective(QString::fromStdString(s.run.objective));
        setDevices(QString::fromStdString(s.run.spec.value("devices", std::string())));
        setStatus(tr("Stored run %1 (%2, seed %3): %n epoch(s).", nullptr, static_cast<int>(events.size()))
                             .arg(runId)
                             .arg(QString::fromStdString(runStatusName(s.run.status)))
                             .arg(s.run.seed));
        const auto params = s.run.spec.value("params", nlohmann::json::object());
        if (params.contains("checkpoint") && params["checkpoint"].is_string()) {
            lastCheckpoint_ = QString::fromStdString(params["checkpoint"].get<std::string>());
            pendingOut_ = QString::fromStdString(params.value("out", std::string()));
        }
        updateButtons();
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

bool TrainingView::resumeTraining(QString* error) {
    if (lastCheckpoint_.isEmpty() || !QFileInfo::exists(lastCheckpoint_)) {
        if (error) *error = tr("No checkpoint to resume from: train first.");
        return false;
    }
    return start(lastCheckpoint_, error);
}

bool TrainingView::start(const QString& resumeFrom, QString* error) {
    if (job_->isRunning()) {
        if (error) *error = tr("A training run is going.");
        return false;
    }
    const QString dir = userPolicyDir();
    if (!QDir().mkpath(dir)) {
        if (error) *error = tr("%1: cannot create the policy folder").arg(dir);
        return false;
    }
    // A resumed run writes the policy it continues; a new one gets its own file.
    if (resumeFrom.isEmpty() || pendingOut_.isEmpty())
        pendingOut_ = QDir(dir).filePath(QString("regal-%1-%2-%3.json")
                                             .arg(objective_->currentText(), devices_->currentText(),
                                                  QDateTime::currentDateTimeUtc().toString("yyyyMMdd-HHmmss")));
    RunSpec spec;
    spec.kind = "training";
    spec.engine = "regal";
    spec.objective = objective_->currentText().toStdString();
    spec.devices = devices_->currentText().toStdString();
    spec.budget = budget_->value();
    spec.seed = static_cast<uint64_t>(seed_->value());
    spec.params = {{"epochs", epochs_->value()},
                   {"samples", samples_->value()},
                   {"sizes", sizes_->text().trimmed().toStdString()},
                   {"models", "none"},
                   {"imitate_epochs", imitate_->value()},
                   {"seed_heuristics", seedHeuristics_->isChecked()},
                   {"out", pendingOut_.toStdString()},
                   {"checkpoint", (pendingOut_ + ".ckpt").toStdString()}};
    if (!resumeFrom.isEmpty()) spec.params["resume"] = resumeFrom.toStdString();
    std::shared_ptr<regal::TrainingRun> run;
    try {
        run = std::make_shared<regal::TrainingRun>(spec, "graphopt-studio training view");
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    // The phases before the first epoch (seed solutions, imitation's elite runs and epochs) can
    // take minutes; their progress lines (the CLI prints them on stderr) go to the status line.
    // They come from the worker thread: queued to this view, which outlives the run (its job
    // waits for the worker when it is destroyed).
    run->setLog([this](const std::string& line) {
        QMetaObject::invokeMethod(
            this,
            [this, text = QString::fromStdString(line)] {
                if (job_ && job_->isRunning() && epochs_plotted_ == 0) setStatus(tr("Training: %1").arg(text));
            },
            Qt::QueuedConnection);
    });
    if (resumeFrom.isEmpty()) {
        for (auto& p : plots_) {
            p.series->clear();
            p.minY = 0, p.maxY = 1;
        }
        epochs_plotted_ = 0;
    }
    QString why;
    if (!job_->startRun(run, dbPath_, &why)) {
        if (error) *error = why;
        return false;
    }
    lastCheckpoint_ = pendingOut_ + ".ckpt";
    setStatus(resumeFrom.isEmpty() ? tr("Training: preparing the training graphs ...")
                                          : tr("Resuming from %1 ...").arg(QFileInfo(resumeFrom).fileName()));
    updateButtons();
    return true;
}

void TrainingView::cancel() {
    if (!job_->isRunning()) return;
    job_->cancel();
    setStatus(tr("Stopping after the current training graph; the last whole epoch's checkpoint stays ..."));
}

void TrainingView::onProgress(const QVector<ProgressEvent>& events) {
    for (const ProgressEvent& e : events) {
        for (size_t k = 0; k < plots_.size(); ++k) {
            Plot& p = plots_[k];
            const double y = e.values.value(kPlotKeys[k], 0.0);
            // A resumed run reports its epochs again from the checkpoint on: replace, not append.
            while (p.series->count() > 0 && p.series->at(p.series->count() - 1).x() >= double(e.step))
                p.series->remove(p.series->count() - 1);
            p.series->append(double(e.step), y);
            if (p.series->count() == 1) p.minY = p.maxY = y;
            p.minY = std::min(p.minY, y);
            p.maxY = std::max(p.maxY, y);
            const double pad = std::max(1e-3, (p.maxY - p.minY) * 0.1);
            auto axes = p.view->chart()->axes();
            axes[0]->setRange(0, std::max<double>(1, e.step));
            if (auto* x = qobject_cast<QValueAxis*>(axes[0])) x->setTickInterval(std::max(1.0, std::ceil(e.step / 10.0)));
            axes[1]->setRange(p.minY - pad, p.maxY + pad);
        }
        epochs_plotted_ = plots_.front().series->count();
        setStatus(tr("Epoch %1: mean reward %2, validation win rate %3, entropy %4")
                             .arg(e.step)
                             .arg(e.values.value("mean_reward", 0.0), 0, 'g', 4)
                             .arg(e.values.value("validation_win_rate", 0.0), 0, 'f', 2)
                             .arg(e.values.value("entropy", 0.0), 0, 'g', 4));
    }
}

void TrainingView::onFinished() {
    const auto* result = job_->outcomeAs<regal::TrainingResult>();
    updateButtons();
    if (!result) return;
    if (!result->checkpointPath.empty()) lastCheckpoint_ = QString::fromStdString(result->checkpointPath);
    if (result->status() != RunStatus::Finished || result->policyPath.empty()) {
        setStatus(tr("Cancelled after %n whole epoch(s); Resume goes on from the checkpoint.", nullptr,
                            result->epochsDone));
        updateButtons();
        emit trainingFinished(QString());
        return;
    }
    lastPolicy_ = QString::fromStdString(result->policyPath);
    QString registered;
    if (!dbPath_.isEmpty()) {
        try {
            QFile f(lastPolicy_);
            if (!f.open(QIODevice::ReadOnly)) throw std::runtime_error("cannot read " + result->policyPath);
            PolicyRecord p;
            p.file = result->policyPath;
            p.contentHash = QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex().toStdString();
            if (job_->runId() >= 0) p.trainingRunId = job_->runId();
            RunStore store(dbPath_.toStdString());
            store.addPolicy(p);
            registered = tr(" and registered");
        } catch (const std::exception& e) {
            registered = tr(" (not registered in the run store: %1)").arg(QString::fromStdString(e.what()));
        }
    }
    setStatus(tr("Trained %n epoch(s); policy written to %1%2. Choose it in the run panel (engine regal).", nullptr,
                        result->epochsDone)
                         .arg(lastPolicy_, registered));
    pendingOut_.clear();
    updateButtons();
    emit policyRegistered(lastPolicy_);
    emit trainingFinished(lastPolicy_);
}

}  // namespace graphopt::ui
