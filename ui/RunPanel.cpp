#include "RunPanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include "placement/DeviceModel.h"
#include "placement/PlacementEngines.h"

namespace graphopt::ui {

namespace {
// What each engine does, for the tooltip (the papers/REGAL.md baselines).
QString engineHelp(const QString& e) {
    if (e == "brkga") return QObject::tr("Biased random-key genetic algorithm over the schedule simulator");
    if (e == "regal") return QObject::tr("BRKGA guided by the trained graph neural network policy");
    if (e == "heft") return QObject::tr("HEFT: earliest-finish-time list scheduling (running time)");
    if (e == "single") return QObject::tr("Everything on one device, in topological order");
    if (e == "random") return QObject::tr("Random keys, as many as the budget allows");
    if (e == "local") return QObject::tr("Hill climbing on the keys");
    if (e == "list") return QObject::tr("XLA-style list scheduler on one device: frees the most bytes first");
    if (e == "dfs") return QObject::tr("XLA-style depth-first post-order on one device");
    if (e == "postorder") return QObject::tr("Plain post-order on one device");
    if (e == "xla-best") return QObject::tr("Best of the three XLA-style memory schedulers");
    if (e == "exhaustive") return QObject::tr("Every placement and order: the true optimum (tiny graphs only)");
    return {};
}
}  // namespace

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout();
    engine_ = new QComboBox(this);
    engine_->setObjectName("engine");
    for (const auto& name : placementEngineNames()) {
        const QString e = QString::fromStdString(name);
        engine_->addItem(e, e);
        engine_->setItemData(engine_->count() - 1, engineHelp(e), Qt::ToolTipRole);
    }
    engine_->setCurrentIndex(std::max(0, engine_->findData("brkga")));
    objective_ = new QComboBox(this);
    objective_->addItem(tr("Running time"), "runtime");
    objective_->addItem(tr("Peak memory"), "memory");
    devices_ = new QComboBox(this);
    for (const auto& name : DeviceModel::presetNames()) devices_->addItem(QString::fromStdString(name));
    budget_ = new QSpinBox(this);
    budget_->setRange(1, 10'000'000);
    budget_->setSingleStep(1000);
    budget_->setValue(5000);
    budget_->setToolTip(tr("Decoder evaluations (the paper's reference budget is 5,000)"));
    seed_ = new QSpinBox(this);
    seed_->setRange(0, 1'000'000'000);
    seed_->setValue(1);
    threads_ = new QSpinBox(this);
    threads_->setRange(0, 256);
    threads_->setSpecialValueText(tr("all cores (%1)").arg(QThread::idealThreadCount()));
    weights_ = new QComboBox(this);
    weights_->addItem(tr("counted"), true);
    weights_->addItem(tr("ignored (activations only)"), false);
    form->addRow(tr("Engine"), engine_);
    form->addRow(tr("Objective"), objective_);
    form->addRow(tr("Devices"), devices_);
    form->addRow(tr("Budget"), budget_);
    form->addRow(tr("Seed"), seed_);
    form->addRow(tr("Threads"), threads_);
    form->addRow(tr("Weights"), weights_);

    brkga_ = new QGroupBox(tr("BRKGA parameters"), this);
    auto* bf = new QFormLayout(brkga_);
    population_ = new QSpinBox(brkga_);
    population_->setRange(4, 10000);
    population_->setValue(100);
    auto fraction = [this](double v) {
        auto* s = new QDoubleSpinBox(brkga_);
        s->setRange(0.0, 1.0);
        s->setSingleStep(0.05);
        s->setDecimals(2);
        s->setValue(v);
        return s;
    };
    elite_ = fraction(0.10);
    mutant_ = fraction(0.10);
    rho_ = fraction(0.70);
    bf->addRow(tr("Population"), population_);
    bf->addRow(tr("Elite fraction"), elite_);
    bf->addRow(tr("Mutant fraction"), mutant_);
    bf->addRow(tr("Elite inheritance"), rho_);

    start_ = new QPushButton(tr("Start"), this);
    start_->setDefault(true);
    cancel_ = new QPushButton(tr("Cancel"), this);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    auto* buttons = new QHBoxLayout();
    buttons->addWidget(start_);
    buttons->addWidget(cancel_);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(brkga_);
    layout->addLayout(buttons);
    layout->addWidget(progress_);
    layout->addWidget(status_);
    layout->addStretch(1);

    connect(start_, &QPushButton::clicked, this, &RunPanel::startRequested);
    connect(cancel_, &QPushButton::clicked, this, &RunPanel::cancelRequested);
    connect(engine_, &QComboBox::currentIndexChanged, this, [this] {
        engine_->setToolTip(engineHelp(engine_->currentData().toString()));
        updateEnabled();
    });

    QSettings settings;
    RunSpec saved;
    saved.engine = settings.value("run/engine", "brkga").toString().toStdString();
    saved.objective = settings.value("run/objective", "runtime").toString().toStdString();
    saved.devices = settings.value("run/devices", DeviceModel::defaultPresetName()).toString().toStdString();
    saved.budget = settings.value("run/budget", 5000).toLongLong();
    saved.seed = settings.value("run/seed", 1).toULongLong();
    setSpec(saved);
    updateEnabled();
}

RunSpec RunPanel::spec() const {
    RunSpec s;
    s.kind = "placement";
    s.engine = engine_->currentData().toString().toStdString();
    s.objective = objective_->currentData().toString().toStdString();
    s.devices = devices_->currentText().toStdString();
    s.budget = budget_->value();
    s.seed = static_cast<uint64_t>(seed_->value());
    s.threads = threads_->value();
    s.params["count_weights"] = weights_->currentData().toBool();
    if (s.engine == "brkga" || s.engine == "regal") {
        s.params["population"] = population_->value();
        s.params["elite_fraction"] = elite_->value();
        s.params["mutant_fraction"] = mutant_->value();
        s.params["rho_e"] = rho_->value();
    }
    QSettings settings;
    settings.setValue("run/engine", QString::fromStdString(s.engine));
    settings.setValue("run/objective", QString::fromStdString(s.objective));
    settings.setValue("run/devices", QString::fromStdString(s.devices));
    settings.setValue("run/budget", qlonglong(s.budget));
    settings.setValue("run/seed", qulonglong(s.seed));
    return s;
}

void RunPanel::setSpec(const RunSpec& s) {
    if (int i = engine_->findData(QString::fromStdString(s.engine)); i >= 0) engine_->setCurrentIndex(i);
    if (int i = objective_->findData(QString::fromStdString(s.objective)); i >= 0) objective_->setCurrentIndex(i);
    if (int i = devices_->findText(QString::fromStdString(s.devices)); i >= 0) devices_->setCurrentIndex(i);
    if (s.budget > 0) budget_->setValue(static_cast<int>(std::min<int64_t>(s.budget, budget_->maximum())));
    seed_->setValue(static_cast<int>(std::min<uint64_t>(s.seed, 1'000'000'000)));
}

void RunPanel::setRunning(bool running) {
    running_ = running;
    if (running) progress_->setValue(0);
    updateEnabled();
}

void RunPanel::setProgress(double fraction) { progress_->setValue(static_cast<int>(fraction * 1000)); }

void RunPanel::setStatus(const QString& text) { status_->setText(text); }

void RunPanel::updateEnabled() {
    const QString e = engine_->currentData().toString();
    brkga_->setVisible(e == "brkga" || e == "regal");
    start_->setEnabled(!running_);
    cancel_->setEnabled(running_);
    for (QWidget* w : std::initializer_list<QWidget*>{engine_, objective_, devices_, budget_, seed_, threads_, weights_, brkga_})
        w->setEnabled(!running_);
}

}  // namespace graphopt::ui
