#include "RunPanel.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QRegularExpression>
#include <QMessageBox>
#include <QFile>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "DeviceSetupDialog.h"
#include "placement/model/DeviceModel.h"
#include "placement/PlacementEngines.h"
#include "placement/regal/RegalPolicy.h"
#include "run/ResourceLocator.h"

namespace graphopt::ui {

namespace {

constexpr const char* kMicroBatches = "micro_batches";

QString tooltipOf(const ParamSpec& p) {
    return QString::fromStdString(p.help + " (" + p.describeRange() + ")");
}

// "elite_fraction" -> "Elite fraction"
QString labelOf(const std::string& name) {
    QString s = QString::fromStdString(name).replace('_', ' ');
    if (!s.isEmpty()) s[0] = s[0].toUpper();
    return s;
}

// Marks a QDoubleSpinBox that edits an integer parameter too large for a QSpinBox.
constexpr const char* kIntegerProperty = "graphoptInteger";

// One widget per parameter type; nullptr for types the panel does not edit (objects).
QWidget* makeEditor(const ParamSpec& p, QWidget* parent) {
    QWidget* w = nullptr;
    switch (p.type) {
        case ParamSpec::Type::Integer: {
            const double top = std::numeric_limits<int>::max();
            if (p.min >= -top && p.max <= top) {
                auto* s = new QSpinBox(parent);
                s->setRange(static_cast<int>(p.min), static_cast<int>(p.max));
                if (p.defaultValue.is_number()) s->setValue(p.defaultValue.get<int>());
                w = s;
                break;
            }
            // Past a QSpinBox's int (dp-contiguous's max_steps: 2.5 billion by default): a whole-
            // number QDoubleSpinBox (exact up to 2^53), read back as an integer (valueOf), stepping
            // by a tenth of the default's order of magnitude.
            auto* s = new QDoubleSpinBox(parent);
            s->setProperty(kIntegerProperty, true);
            s->setDecimals(0);
            s->setRange(p.min, p.max);
            const double def = p.defaultValue.is_number() ? p.defaultValue.get<double>() : 1.0;
            s->setSingleStep(std::max(1.0, std::pow(10.0, std::floor(std::log10(std::max(1.0, def))) - 1)));
            if (p.defaultValue.is_number()) s->setValue(def);
            w = s;
            break;
        }
        case ParamSpec::Type::Number: {
            auto* s = new QDoubleSpinBox(parent);
            s->setDecimals(p.max - p.min <= 10 ? 3 : 1);
            s->setRange(p.min, p.max);
            s->setSingleStep(p.max - p.min <= 1 ? 0.05 : 1);
            if (p.defaultValue.is_number()) s->setValue(p.defaultValue.get<double>());
            w = s;
            break;
        }
        case ParamSpec::Type::Boolean: {
            auto* c = new QCheckBox(parent);
            c->setChecked(p.defaultValue.is_boolean() && p.defaultValue.get<bool>());
            w = c;
            break;
        }
        case ParamSpec::Type::String: {
            if (p.name == "policy") {
                // The policy chooser: the shipped policy (empty), the user's trained policies for
                // the objective and devices (refreshPolicyChoices), or any file typed in.
                auto* c = new QComboBox(parent);
                c->setEditable(true);
                c->lineEdit()->setPlaceholderText(QObject::tr("shipped policy for the objective and devices"));
                c->lineEdit()->setClearButtonEnabled(true);
                c->setInsertPolicy(QComboBox::NoInsert);
                c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
                c->setMinimumContentsLength(12);
                w = c;
            } else if (!p.choices.empty()) {
                auto* c = new QComboBox(parent);
                for (const auto& choice : p.choices) c->addItem(QString::fromStdString(choice));
                if (p.defaultValue.is_string()) c->setCurrentText(QString::fromStdString(p.defaultValue.get<std::string>()));
                w = c;
            } else {
                auto* e = new QLineEdit(parent);
                e->setClearButtonEnabled(true);
                e->setPlaceholderText(QObject::tr("default"));
                if (p.defaultValue.is_string()) e->setText(QString::fromStdString(p.defaultValue.get<std::string>()));
                w = e;
            }
            break;
        }
        case ParamSpec::Type::List: {
            auto* e = new QLineEdit(parent);
            e->setClearButtonEnabled(true);
            e->setPlaceholderText(QObject::tr("none (names, comma-separated)"));
            w = e;
            break;
        }
        case ParamSpec::Type::Object: return nullptr;
    }
    w->setObjectName("param:" + QString::fromStdString(p.name));
    w->setToolTip(tooltipOf(p));
    return w;
}

// The widget's value as JSON (null: leave the parameter out, e.g. an empty file name).
nlohmann::json valueOf(const ParamSpec& p, QWidget* w) {
    if (auto* s = qobject_cast<QSpinBox*>(w)) return s->value();
    if (auto* s = qobject_cast<QDoubleSpinBox*>(w)) {
        if (s->property(kIntegerProperty).toBool()) return static_cast<int64_t>(std::llround(s->value()));
        return s->value();
    }
    if (auto* c = qobject_cast<QCheckBox*>(w)) return c->isChecked();
    if (auto* c = qobject_cast<QComboBox*>(w)) {
        const QString t = c->currentText().trimmed();
        if (c->isEditable() && t.isEmpty()) return nullptr;  // an empty editable choice: the default
        const QVariant path = c->currentData();
        return (path.isValid() && c->itemText(c->currentIndex()) == c->currentText() ? path.toString() : t).toStdString();
    }
    if (auto* e = qobject_cast<QLineEdit*>(w); e && p.type == ParamSpec::Type::List) {
        nlohmann::json names = nlohmann::json::array();
        for (const QString& name : e->text().split(',', Qt::SkipEmptyParts))
            if (!name.trimmed().isEmpty()) names.push_back(name.trimmed().toStdString());
        return names;
    }
    if (auto* e = qobject_cast<QLineEdit*>(w)) {
        const QString t = e->text().trimmed();
        return t.isEmpty() ? nlohmann::json() : nlohmann::json(t.toStdString());
    }
    return nullptr;
}

void setValue(QWidget* w, const nlohmann::json& v) {
    if (auto* s = qobject_cast<QSpinBox*>(w); s && v.is_number())
        s->setValue(static_cast<int>(std::clamp(v.get<double>(), double(s->minimum()), double(s->maximum()))));
    if (auto* s = qobject_cast<QDoubleSpinBox*>(w); s && v.is_number()) s->setValue(v.get<double>());
    if (auto* c = qobject_cast<QCheckBox*>(w); c && v.is_boolean()) c->setChecked(v.get<bool>());
    if (auto* c = qobject_cast<QComboBox*>(w); c && v.is_string()) c->setCurrentText(QString::fromStdString(v.get<std::string>()));
    if (auto* e = qobject_cast<QLineEdit*>(w); e && v.is_string()) e->setText(QString::fromStdString(v.get<std::string>()));
    if (auto* e = qobject_cast<QLineEdit*>(w); e && v.is_array()) {
        QStringList names;
        for (const auto& x : v)
            if (x.is_string()) names << QString::fromStdString(x.get<std::string>());
        e->setText(names.join(", "));
    }
}

}  // namespace

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout();
    engine_ = new QComboBox(this);
    engine_->setObjectName("engine");
    for (const auto& d : placementEngineDescriptions()) {
        const QString e = QString::fromStdString(d.name);
        engine_->addItem(e, e);
        engine_->setItemData(engine_->count() - 1, QString::fromStdString(d.summary), Qt::ToolTipRole);
    }
    engine_->setCurrentIndex(std::max(0, engine_->findData("brkga")));
    objective_ = new QComboBox(this);
    objective_->addItem(tr("Running time"), "runtime");
    objective_->addItem(tr("Peak memory"), "memory");
    objective_->addItem(tr("Throughput (time per sample)"), "throughput");
    objective_->setObjectName("objective");
    objective_->setItemData(0, tr("Minimise the makespan of the whole schedule"), Qt::ToolTipRole);
    objective_->setItemData(1, tr("Minimise the largest peak memory of any device"), Qt::ToolTipRole);
    objective_->setItemData(2, tr("Minimise the time per sample of a pipeline in its steady state: the busiest "
                                  "device's load (compute plus the transfers it pays), NeurIPS 2020's max-load"),
                            Qt::ToolTipRole);
    devices_ = new QComboBox(this);
    devices_->setObjectName("devices");
    for (const auto& name : DeviceModel::presetNames())
        devices_->addItem(QString::fromStdString(name), QString::fromStdString(name));
    devices_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    devices_->setMinimumContentsLength(12);
    editDevices_ = new QPushButton(tr("Edit..."), this);
    editDevices_->setObjectName("editDevices");
    editDevices_->setToolTip(tr("Edit the device setup: devices, memory, links; open or save device JSON "
                                "(graphopt place --devices FILE)"));
    microBatches_ = new QSpinBox(this);
    microBatches_->setObjectName("microBatches");
    microBatches_->setRange(1, 1024);
    microBatches_->setValue(1);
    microBatches_->setToolTip(tr("Micro-batches that flow through the placement as a pipeline (GPipe): every node runs "
                                 "once per micro-batch; with S stages the idle share is (S-1)/(M+S-1). "
                                 "The run parameter micro_batches, for every engine."));
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
    batch_ = new QSpinBox(this);
    batch_->setObjectName("batch");
    batch_->setRange(1, 4096);
    batch_->setValue(1);
    batch_->setToolTip(tr("The model's batch size: an ONNX model's symbolic batch dimension takes it, and every shape, "
                          "FLOP count and activation is re-inferred (weights do not change). Like --batch on the command line."));
    form->addRow(tr("Model batch"), batch_);
    form->addRow(tr("Engine"), engine_);
    form->addRow(tr("Objective"), objective_);
    auto* devicesRow = new QHBoxLayout;
    devicesRow->setContentsMargins(0, 0, 0, 0);
    devicesRow->addWidget(devices_, 1);
    devicesRow->addWidget(editDevices_);
    form->addRow(tr("Devices"), devicesRow);
    measuredCosts_ = new QCheckBox(tr("Measured costs"), this);
    measuredCosts_->setObjectName("measuredCosts");
    measuredCosts_->setToolTip(tr("Profile the model first (Model > Profile on This CPU): its measured op times then "
                                  "replace the estimate on the devices of kind cpu"));
    measuredCosts_->setEnabled(false);
    form->addRow(QString(), measuredCosts_);
    form->addRow(tr("Micro-batches"), microBatches_);
    form->addRow(tr("Budget"), budget_);
    form->addRow(tr("Seed"), seed_);
    form->addRow(tr("Threads"), threads_);

    params_ = new QGroupBox(this);
    paramsForm_ = new QFormLayout(params_);

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
    stepMode_ = new QCheckBox(tr("Step mode: pause after every generation"), this);
    stepMode_->setObjectName("stepMode");
    stepMode_->setToolTip(tr("For teaching: the run stops after each generation and shows its population "
                             "(Results > Population) and best placement; Step goes one generation on"));
    step_ = new QPushButton(tr("Step"), this);
    step_->setObjectName("stepButton");
    step_->setToolTip(tr("One more generation"));
    step_->setShortcut(QKeySequence(tr("F10")));
    runToEnd_ = new QPushButton(tr("Run to end"), this);
    runToEnd_->setObjectName("runToEndButton");
    runToEnd_->setToolTip(tr("Go on without pausing until the budget is spent"));
    auto* stepButtons = new QHBoxLayout();
    stepButtons->addWidget(step_);
    stepButtons->addWidget(runToEnd_);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(params_);
    layout->addLayout(buttons);
    layout->addWidget(stepMode_);
    layout->addLayout(stepButtons);
    layout->addWidget(progress_);
    layout->addWidget(status_);
    layout->addStretch(1);

    connect(start_, &QPushButton::clicked, this, &RunPanel::startRequested);
    connect(cancel_, &QPushButton::clicked, this, &RunPanel::cancelRequested);
    connect(step_, &QPushButton::clicked, this, &RunPanel::stepRequested);
    connect(runToEnd_, &QPushButton::clicked, this, [this] {
        steppingRun_ = false;  // no more pauses: the step buttons go
        updateEnabled();
        emit runToEndRequested();
    });
    connect(engine_, &QComboBox::currentIndexChanged, this, [this] {
        engine_->setToolTip(engine_->currentData(Qt::ToolTipRole).toString());
        rebuildParameters();
        updateEnabled();
    });
    connect(batch_, &QSpinBox::editingFinished, this, [this] {
        if (batch_->value() == lastBatch_) return;
        lastBatch_ = batch_->value();
        emit batchChanged(lastBatch_);
    });
    connect(objective_, &QComboBox::currentIndexChanged, this, &RunPanel::refreshPolicyChoices);
    connect(devices_, &QComboBox::currentIndexChanged, this, &RunPanel::refreshPolicyChoices);
    connect(editDevices_, &QPushButton::clicked, this, &RunPanel::editDevices);

    QSettings settings;
    RunSpec saved;
    saved.engine = settings.value("run/engine", "brkga").toString().toStdString();
    saved.objective = settings.value("run/objective", "runtime").toString().toStdString();
    saved.devices = settings.value("run/devices", DeviceModel::defaultPresetName()).toString().toStdString();
    saved.budget = settings.value("run/budget", 5000).toLongLong();
    saved.seed = settings.value("run/seed", 1).toULongLong();
    rebuildParameters();
    setSpec(saved);
    updateEnabled();
}

void RunPanel::rebuildParameters() {
    // Values typed for a parameter survive a switch to another engine that has it too.
    nlohmann::json kept = nlohmann::json::object();
    for (const auto& p : paramSpecs_)
        if (QWidget* w = paramWidgets_.value(QString::fromStdString(p.name))) kept[p.name] = valueOf(p, w);
    while (paramsForm_->rowCount() > 0) paramsForm_->removeRow(0);
    paramWidgets_.clear();
    paramSpecs_.clear();
    const QString engine = engine_->currentData().toString();
    try {
        paramSpecs_ = describePlacementEngine(engine.toStdString()).params;
    } catch (const std::exception&) {
        // Not registered (cannot happen: the list comes from the registry); only the common ones.
    }
    for (const auto& p : placementRunParams()) paramSpecs_.push_back(p);
    for (const auto& p : paramSpecs_) {
        if (p.name == kMicroBatches) continue;  // its own spin box, beside the devices
        if (p.name == "measured_costs_kind") continue;  // the "Measured costs" box sets it with the costs
        QWidget* w = makeEditor(p, params_);
        if (!w) continue;
        if (kept.contains(p.name) && !kept[p.name].is_null()) setValue(w, kept[p.name]);
        auto* label = new QLabel(labelOf(p.name), params_);
        label->setToolTip(w->toolTip());
        paramsForm_->addRow(label, w);
        paramWidgets_.insert(QString::fromStdString(p.name), w);
        if (p.name == "policy") {
            refreshPolicyChoices();
            if (kept.contains(p.name) && !kept[p.name].is_null()) setValue(w, kept[p.name]);
        }
    }
    params_->setTitle(tr("%1 parameters").arg(engine));
}

void RunPanel::offerMeasuredCosts(const QString& label) {
    measuredCosts_->setEnabled(!label.isEmpty());
    measuredCosts_->setChecked(!label.isEmpty());
    measuredCosts_->setText(label.isEmpty() ? tr("Measured costs") : tr("Measured costs: %1").arg(label));
}

bool RunPanel::useMeasuredCosts() const { return measuredCosts_->isEnabled() && measuredCosts_->isChecked(); }

RunSpec RunPanel::spec() const {
    RunSpec s;
    s.kind = "placement";
    s.engine = engine_->currentData().toString().toStdString();
    s.objective = objective_->currentData().toString().toStdString();
    s.devices = devicesChoice().toStdString();
    s.budget = budget_->value();
    s.seed = static_cast<uint64_t>(seed_->value());
    s.threads = threads_->value();
    for (const auto& p : paramSpecs_)
        if (QWidget* w = paramWidgets_.value(QString::fromStdString(p.name))) {
            nlohmann::json v = valueOf(p, w);
            if (!v.is_null()) s.params[p.name] = std::move(v);
        }
    // Engine-independent (placementRunParams): given whenever the run knows it, and when it is not
    // 1 even if it does not (the run then says the parameter is unknown rather than ignoring it).
    bool known = false;
    for (const auto& p : placementRunParams()) known = known || p.name == kMicroBatches;
    if (known || microBatches_->value() > 1) s.params[kMicroBatches] = microBatches_->value();
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
    if (!s.devices.empty()) selectDevices(QString::fromStdString(s.devices));
    if (s.params.is_object() && s.params.contains(kMicroBatches) && s.params[kMicroBatches].is_number_integer())
        microBatches_->setValue(s.params[kMicroBatches].get<int>());
    if (s.budget > 0) budget_->setValue(static_cast<int>(std::min<int64_t>(s.budget, budget_->maximum())));
    seed_->setValue(static_cast<int>(std::min<uint64_t>(s.seed, 1'000'000'000)));
    if (s.params.is_object())
        for (auto it = s.params.begin(); it != s.params.end(); ++it)
            if (QWidget* w = paramWidgets_.value(QString::fromStdString(it.key()))) setValue(w, it.value());
}

int RunPanel::batch() const { return batch_->value(); }

void RunPanel::setBatch(int batch) {
    batch_->setValue(batch);
    if (batch_->value() == lastBatch_) return;
    lastBatch_ = batch_->value();
    emit batchChanged(lastBatch_);
}

bool RunPanel::stepMode() const { return stepMode_->isChecked() && stepMode_->isEnabled(); }

void RunPanel::setStepMode(bool on) { stepMode_->setChecked(on); }

void RunPanel::setRunning(bool running) {
    running_ = running;
    steppingRun_ = running && stepMode_->isChecked() && stepMode_->isEnabled();
    if (running) progress_->setValue(0);
    updateEnabled();
}

void RunPanel::setProgress(double fraction) { progress_->setValue(static_cast<int>(fraction * 1000)); }

void RunPanel::setStatus(const QString& text) { status_->setText(text); }

void RunPanel::updateEnabled() {
    params_->setVisible(!paramWidgets_.isEmpty());
    start_->setEnabled(!running_);
    cancel_->setEnabled(running_);
    for (QWidget* w : std::initializer_list<QWidget*>{engine_, objective_, devices_, editDevices_, microBatches_, budget_,
                                                      seed_, threads_, params_, batch_})
        w->setEnabled(!running_);
    bool steps = false;
    try {
        steps = describePlacementEngine(engine_->currentData().toString().toStdString()).steps;
    } catch (const std::exception&) {
    }
    stepMode_->setEnabled(!running_ && steps);
    step_->setVisible(steppingRun_);
    runToEnd_->setVisible(steppingRun_);
}

QStringList RunPanel::policyChoices() const {
    QStringList out;
    if (auto* c = qobject_cast<QComboBox*>(paramWidgets_.value("policy")))
        for (int i = 0; i < c->count(); ++i) out << c->itemData(i).toString();
    return out;
}

void RunPanel::refreshPolicyChoices() {
    auto* c = qobject_cast<QComboBox*>(paramWidgets_.value("policy"));
    if (!c) return;
    const QString typed = c->currentText();
    const std::string objective = objective_->currentData().toString().toStdString();
    const std::string devices = devicesChoice().toStdString();
    c->blockSignals(true);
    c->clear();
    c->addItem(QString(), QString());  // the shipped policy
    const QDir dir(QString::fromStdString(userPolicyDir()));
    for (const QFileInfo& f : dir.entryInfoList({"*.json"}, QDir::Files, QDir::Time)) {
        try {
            const regal::PolicyFile p = regal::readPolicyFile(f.absoluteFilePath().toStdString());
            // A per-device policy serves any device setup; a fixed one the setup it was trained on.
            const bool anyDevices = p.config.heads == regal::PolicyHeads::PerDevice;
            if (p.objective != objective || (p.devices != devices && !anyDevices)) continue;
            c->addItem(tr("%1 (trained %2%3)")
                           .arg(f.completeBaseName(), f.lastModified().toString("yyyy-MM-dd HH:mm"),
                                anyDevices ? tr(", any devices") : QString()),
                       f.absoluteFilePath());
            c->setItemData(c->count() - 1, f.absoluteFilePath(), Qt::ToolTipRole);
        } catch (const std::exception&) {
            // Not a policy file, or a damaged one: not offered.
        }
    }
    c->setCurrentText(typed);
    c->blockSignals(false);
}

}  // namespace graphopt::ui

namespace graphopt::ui {

QString RunPanel::devicesChoice() const {
    const QVariant v = devices_->currentData();
    return v.isValid() && !v.toString().isEmpty() ? v.toString() : devices_->currentText();
}

int RunPanel::microBatches() const { return microBatches_->value(); }
void RunPanel::setMicroBatches(int m) { microBatches_->setValue(m); }

void RunPanel::offerModelDevices(const DeviceModel* own) {
    const QString key = QString::fromLatin1(DeviceModel::kFromModel);
    const int at = devices_->findData(key);
    if (!own) {
        if (at >= 0) {
            const bool wasChosen = devices_->currentIndex() == at;
            devices_->removeItem(at);
            if (wasChosen) devices_->setCurrentIndex(devices_->findData(QString::fromLatin1(DeviceModel::defaultPresetName())));
        }
        return;
    }
    int accelerators = 0, cpus = 0;
    for (const auto& d : own->devices) (d.kind == "cpu" ? cpus : accelerators)++;
    const QString label = tr("from the model: %1 accelerators, %2 CPUs").arg(accelerators).arg(cpus);
    if (at >= 0)
        devices_->setItemText(at, label);
    else
        devices_->insertItem(0, label, key);
    const int i = devices_->findData(key);
    devices_->setItemData(i, tr("The device setup the model file brings (%1)").arg(QString::fromStdString(own->name)),
                          Qt::ToolTipRole);
    devices_->setCurrentIndex(i);
}

void RunPanel::selectDevices(const QString& presetOrFile) {
    int i = devices_->findData(presetOrFile);
    if (i < 0) {
        // A device file: offered under its setup's name, the path as its tooltip.
        QString label = QFileInfo(presetOrFile).fileName();
        try {
            const DeviceModel m = DeviceModel::loadFile(presetOrFile.toStdString());
            if (!m.name.empty() && m.name != presetOrFile.toStdString())
                label = tr("%1 (%2)").arg(QString::fromStdString(m.name), QFileInfo(presetOrFile).fileName());
        } catch (const std::exception&) {
            // Unreadable now: still offered, the run will say what is wrong with it.
        }
        devices_->addItem(label, presetOrFile);
        i = devices_->count() - 1;
        devices_->setItemData(i, presetOrFile, Qt::ToolTipRole);
    }
    devices_->setCurrentIndex(i);
    devices_->setToolTip(devices_->itemData(i, Qt::ToolTipRole).toString());
}

QString RunPanel::userDevicesDir() {
    return QDir::cleanPath(QString::fromStdString(userPolicyDir()) + "/../devices");
}

QString RunPanel::useDeviceSetup(const DeviceModel& model, const QString& savedPath, QString* error) {
    // A preset left as it is stays the preset; anything else runs from a file.
    for (const auto& p : DeviceModel::presetNames())
        if (model.name == p && model.toJson() == DeviceModel::preset(p).toJson()) {
            selectDevices(QString::fromStdString(p));
            return QString::fromStdString(p);
        }
    QString path = savedPath;
    if (path.isEmpty()) {
        // Not saved by the user: kept among the user's setups, named after it.
        QString stem = QString::fromStdString(model.name).trimmed();
        stem.replace(QRegularExpression("[^A-Za-z0-9._+-]+"), "_");
        if (stem.isEmpty() || stem.startsWith('.')) stem = "devices" + stem;
        QDir().mkpath(userDevicesDir());
        path = userDevicesDir() + "/" + stem + ".json";
        QFile f(path);
        const std::string text = model.toJson().dump(2) + "\n";
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            f.write(text.data(), qint64(text.size())) != qint64(text.size())) {
            if (error) *error = tr("%1: cannot write (%2)").arg(path, f.errorString());
            return {};
        }
    }
    const int old = devices_->findData(path);
    if (old >= 0) devices_->removeItem(old);  // re-read: its name may have changed
    selectDevices(path);
    return path;
}

void RunPanel::editDevices() {
    DeviceSetupDialog dialog(this);
    const QString current = devicesChoice();
    try {
        const auto presets = DeviceModel::presetNames();
        const bool preset = std::find(presets.begin(), presets.end(), current.toStdString()) != presets.end();
        dialog.setSetup(DeviceModel::load(current.toStdString()), preset ? QString() : current);
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Device setup"),
                             tr("The current setup cannot be read (%1); starting from %2.")
                                 .arg(QString::fromStdString(e.what()), DeviceModel::defaultPresetName()));
    }
    if (dialog.exec() != QDialog::Accepted) return;
    QString error;
    try {
        if (useDeviceSetup(dialog.setup(), dialog.savedPath(), &error).isEmpty())
            QMessageBox::warning(this, tr("Device setup"), error);
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Device setup"), QString::fromStdString(e.what()));
    }
}

}  // namespace graphopt::ui
