#include "DeviceSetupDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>

namespace graphopt::ui {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr int kSiRole = Qt::UserRole;        // the cell's value in the JSON's SI unit (double)
constexpr int kOldNameRole = Qt::UserRole + 1;  // a name cell's name before the current edit

struct ColumnInfo {
    const char* label;
    const char* jsonKey;
    double scale;  // SI value = shown value * scale
    const char* help;
};

const ColumnInfo kDeviceColumns[] = {
    {"Name", "name", 0, "The device's name: placements, charts and link overrides refer to it"},
    {"Kind", "kind", 0, "What sort of device (gpu, cpu, accelerator): picks a node's per-kind cost"},
    {"Compute (TFLOP/s)", "flops_per_s", 1e12, "Sustained compute throughput, 10^12 FLOP per second (JSON flops_per_s)"},
    {"Memory (GiB)", "memory_bytes", kGiB, "The device's memory limit, 2^30 bytes (JSON memory_bytes)"},
    {"Memory bandwidth (GB/s)", "memory_bandwidth", 1e9, "Bytes per second for the roofline, 10^9 (JSON memory_bandwidth)"},
    {"Overhead (\u00b5s)", "overhead_s", 1e-6, "Fixed cost per op: kernel launch, dispatch (JSON overhead_s)"},
    {"Speed factor", "speed_factor", 1, "Divides the graph's given costs on this device (JSON speed_factor)"},
    {"Pays transfers", "pays_transfers", 0,
     "Throughput objective: off for a device whose memory is the host's (it pays no transfer time)"},
};
const ColumnInfo kLinkColumns[] = {
    {"From", "from", 0, "Sending device (by name)"},
    {"To", "to", 0, "Receiving device (by name)"},
    {"Latency (\u00b5s)", "latency_s", 1e-6, "Fixed time per transfer (JSON latency_s)"},
    {"Bandwidth (GB/s)", "bandwidth", 1e9, "10^9 bytes per second (JSON bandwidth)"},
};

// The SI value of a typed figure in a column of `scale`: "7.5" TFLOP/s is the double nearest to
// 7.5e12, read from the decimal text with the exponent added (so no product rounds it), and GiB
// multiply by 2^30, which is exact. nullopt when the text is not a number.
std::optional<double> parseSi(const QString& text, double scale) {
    const QString t = text.trimmed();
    bool ok = false;
    double v = QLocale::c().toDouble(t, &ok);
    QString decimal = t;
    if (!ok) {
        v = QLocale().toDouble(t, &ok);  // "7,5" where the comma is the decimal point
        decimal = QString::number(v, 'g', 17);
    }
    if (!ok || !std::isfinite(v)) return std::nullopt;
    const double exponent = std::log10(scale);
    if (scale != 1 && exponent == std::round(exponent) && !decimal.contains('e', Qt::CaseInsensitive)) {
        const std::string s = (decimal + "e" + QString::number(static_cast<int>(exponent))).toStdString();
        char* end = nullptr;
        const double si = std::strtod(s.c_str(), &end);
        if (end && *end == '\0' && std::isfinite(si)) return si;
    }
    const double si = v * scale;
    return std::isfinite(si) ? std::optional<double>(si) : std::nullopt;
}

// What a cell shows: twelve significant digits, so 5e-6 s reads "5" µs rather than the division's
// "5.000000000000001" (the cell keeps the exact SI value; see the header).
QString shown(double si, double scale) { return QString::number(si / scale, 'g', 12); }

// The link most pairs use: what a setup's "default link" is when the file lists every pair.
LinkSpec commonLink(const DeviceModel& m) {
    std::map<std::pair<double, double>, int> count;
    LinkSpec best;
    int bestCount = 0;
    for (int a = 0; a < m.deviceCount(); ++a)
        for (int b = 0; b < m.deviceCount(); ++b)
            if (a != b) {
                const LinkSpec& l = m.link(a, b);
                const int c = ++count[{l.latencyS, l.bandwidth}];
                if (c > bestCount) bestCount = c, best = l;
            }
    return best;
}

void setSi(QLineEdit* e, double si, double scale) {
    e->setProperty("si", si);
    e->setProperty("scale", scale);
    e->setText(shown(si, scale));
}

}  // namespace

DeviceSetupDialog::DeviceSetupDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Device setup"));
    setObjectName("deviceSetupDialog");
    auto* layout = new QVBoxLayout(this);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Setup name")));
    name_ = new QLineEdit;
    name_->setObjectName("setupName");
    name_->setToolTip(tr("The setup's name: runs and the runs browser show it"));
    top->addWidget(name_, 1);
    top->addSpacing(12);
    top->addWidget(new QLabel(tr("Start from")));
    startFrom_ = new QComboBox;
    startFrom_->setObjectName("startFrom");
    startFrom_->addItem(tr("the setup opened"));
    for (const auto& p : DeviceModel::presetNames()) startFrom_->addItem(tr("preset %1").arg(QString::fromStdString(p)), QString::fromStdString(p));
    startFrom_->setToolTip(tr("Replace the table with a preset, or go back to the setup the editor opened with"));
    top->addWidget(startFrom_);
    auto* open = new QPushButton(tr("Open JSON..."));
    auto* save = new QPushButton(tr("Save As..."));
    save->setObjectName("saveDevices");
    open->setToolTip(tr("Read a device file (the JSON graphopt place --devices FILE takes)"));
    save->setToolTip(tr("Write the setup as device JSON, for this editor and for graphopt place --devices FILE"));
    top->addWidget(open);
    top->addWidget(save);
    layout->addLayout(top);

    auto* devicesBox = new QGroupBox(tr("Devices"));
    auto* devicesLayout = new QVBoxLayout(devicesBox);
    devices_ = new QTableWidget(0, ColumnCount);
    devices_->setObjectName("deviceTable");
    for (int c = 0; c < ColumnCount; ++c) {
        auto* h = new QTableWidgetItem(tr(kDeviceColumns[c].label));
        h->setToolTip(tr(kDeviceColumns[c].help));
        devices_->setHorizontalHeaderItem(c, h);
    }
    devices_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    devices_->horizontalHeader()->setStretchLastSection(true);
    devices_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    devices_->setSelectionBehavior(QAbstractItemView::SelectRows);
    devices_->setMinimumHeight(150);
    devicesLayout->addWidget(devices_);
    auto* deviceButtons = new QHBoxLayout;
    auto* add = new QPushButton(tr("Add"));
    auto* duplicate = new QPushButton(tr("Duplicate"));
    auto* remove = new QPushButton(tr("Remove"));
    add->setToolTip(tr("A new device like the last one"));
    duplicate->setToolTip(tr("A copy of the selected device"));
    for (auto* b : {add, duplicate, remove}) deviceButtons->addWidget(b);
    deviceButtons->addStretch(1);
    devicesLayout->addLayout(deviceButtons);
    layout->addWidget(devicesBox, 2);

    auto* linksBox = new QGroupBox(tr("Links between devices"));
    auto* linksLayout = new QVBoxLayout(linksBox);
    auto* defaults = new QHBoxLayout;
    defaults->addWidget(new QLabel(tr("Default link: latency")));
    latency_ = new QLineEdit;
    latency_->setObjectName("defaultLatency");
    latency_->setToolTip(tr("Fixed time per transfer between any two devices (JSON default_link.latency_s)"));
    defaults->addWidget(latency_);
    defaults->addWidget(new QLabel(QString::fromUtf8("\u00b5s, bandwidth")));
    bandwidth_ = new QLineEdit;
    bandwidth_->setObjectName("defaultBandwidth");
    bandwidth_->setToolTip(tr("10^9 bytes per second between any two devices (JSON default_link.bandwidth)"));
    defaults->addWidget(bandwidth_);
    defaults->addWidget(new QLabel(tr("GB/s")));
    defaults->addStretch(1);
    linksLayout->addLayout(defaults);
    linksLayout->addWidget(new QLabel(tr("Pairs that differ from the default (one direction each):")));
    links_ = new QTableWidget(0, LinkColumnCount);
    links_->setObjectName("linkTable");
    for (int c = 0; c < LinkColumnCount; ++c) {
        auto* h = new QTableWidgetItem(tr(kLinkColumns[c].label));
        h->setToolTip(tr(kLinkColumns[c].help));
        links_->setHorizontalHeaderItem(c, h);
    }
    links_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    links_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    links_->setSelectionBehavior(QAbstractItemView::SelectRows);
    links_->setMinimumHeight(90);
    linksLayout->addWidget(links_);
    auto* linkButtons = new QHBoxLayout;
    auto* addLink = new QPushButton(tr("Add override"));
    auto* removeLink = new QPushButton(tr("Remove override"));
    linkButtons->addWidget(addLink);
    linkButtons->addWidget(removeLink);
    linkButtons->addStretch(1);
    linksLayout->addLayout(linkButtons);
    layout->addWidget(linksBox, 1);

    messageLabel_ = new QLabel;
    messageLabel_->setObjectName("validationMessage");
    messageLabel_->setWordWrap(true);
    layout->addWidget(messageLabel_);

    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("Use for the next run"));
    revert_ = buttons_->addButton(tr("Revert"), QDialogButtonBox::ResetRole);
    revert_->setToolTip(tr("Back to the setup the editor opened with"));
    layout->addWidget(buttons_);

    connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
        if (isValid()) accept();
    });
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(revert_, &QPushButton::clicked, this, &DeviceSetupDialog::revert);
    connect(add, &QPushButton::clicked, this, &DeviceSetupDialog::addDevice);
    connect(duplicate, &QPushButton::clicked, this, [this] { duplicateDevice(devices_->currentRow()); });
    connect(remove, &QPushButton::clicked, this, [this] { removeDevice(devices_->currentRow()); });
    connect(addLink, &QPushButton::clicked, this, &DeviceSetupDialog::addLinkOverride);
    connect(removeLink, &QPushButton::clicked, this, [this] { removeLinkOverride(links_->currentRow()); });
    connect(open, &QPushButton::clicked, this, &DeviceSetupDialog::chooseAndOpen);
    connect(save, &QPushButton::clicked, this, &DeviceSetupDialog::chooseAndSave);
    connect(startFrom_, &QComboBox::activated, this, [this](int index) {
        if (index == 0) revert();
        else loadPreset(startFrom_->itemData(index).toString());
    });
    connect(devices_, &QTableWidget::itemChanged, this, &DeviceSetupDialog::onDeviceItemChanged);
    connect(links_, &QTableWidget::itemChanged, this, &DeviceSetupDialog::onLinkItemChanged);
    connect(name_, &QLineEdit::textEdited, this, [this] { markEdited(); });
    for (QLineEdit* e : {latency_, bandwidth_})
        connect(e, &QLineEdit::textEdited, this, [this, e](const QString& text) {
            const auto v = parseSi(text, e->property("scale").toDouble());
            e->setProperty("si", v ? QVariant(*v) : QVariant());
            markEdited();
        });

    setSetup(DeviceModel::preset(DeviceModel::defaultPresetName()));
    resize(980, 620);
}

void DeviceSetupDialog::setSetup(const DeviceModel& model, const QString& sourcePath) {
    original_ = model;
    originalPath_ = sourcePath;
    revert();
}

void DeviceSetupDialog::revert() {
    fill(original_);
    path_ = originalPath_;
    edited_ = false;
    startFrom_->setCurrentIndex(0);
    validate();
}

void DeviceSetupDialog::loadPreset(const QString& name) {
    fill(DeviceModel::preset(name.toStdString()));
    path_.clear();
    markEdited();
}

void DeviceSetupDialog::fill(const DeviceModel& model) {
    filling_ = true;
    name_->setText(QString::fromStdString(model.name));
    devices_->setRowCount(0);
    for (const DeviceSpec& d : model.devices) {
        devices_->insertRow(devices_->rowCount());
        fillDeviceRow(devices_->rowCount() - 1, d);
    }
    const LinkSpec def = commonLink(model);
    setSi(latency_, def.latencyS, 1e-6);
    setSi(bandwidth_, def.bandwidth, 1e9);
    links_->setRowCount(0);
    for (int a = 0; a < model.deviceCount(); ++a)
        for (int b = 0; b < model.deviceCount(); ++b) {
            if (a == b) continue;
            const LinkSpec& l = model.link(a, b);
            if (l.latencyS == def.latencyS && l.bandwidth == def.bandwidth) continue;
            const int row = links_->rowCount();
            links_->insertRow(row);
            links_->setItem(row, From, new QTableWidgetItem(QString::fromStdString(model.devices[a].name)));
            links_->setItem(row, To, new QTableWidgetItem(QString::fromStdString(model.devices[b].name)));
            links_->setItem(row, Latency, new QTableWidgetItem);
            links_->setItem(row, LinkBandwidth, new QTableWidgetItem);
            setNumber(links_->item(row, Latency), l.latencyS, 1e-6);
            setNumber(links_->item(row, LinkBandwidth), l.bandwidth, 1e9);
        }
    filling_ = false;
}

void DeviceSetupDialog::setNumber(QTableWidgetItem* item, double si, double scale) {
    const bool was = filling_;
    filling_ = true;
    item->setData(kSiRole, si);
    item->setText(shown(si, scale));
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    filling_ = was;
}

void DeviceSetupDialog::fillDeviceRow(int row, const DeviceSpec& d) {
    const bool was = filling_;
    filling_ = true;
    auto* name = new QTableWidgetItem(QString::fromStdString(d.name));
    name->setData(kOldNameRole, name->text());
    devices_->setItem(row, Name, name);
    devices_->setItem(row, Kind, new QTableWidgetItem(QString::fromStdString(d.kind)));
    const double si[] = {0, 0, d.flopsPerS, double(d.memoryBytes), d.memoryBandwidth, d.overheadS, d.speedFactor};
    for (int c = Compute; c <= Speed; ++c) {
        auto* item = new QTableWidgetItem;
        devices_->setItem(row, c, item);
        setNumber(item, si[c], kDeviceColumns[c].scale);
    }
    auto* pays = new QTableWidgetItem;
    pays->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
    pays->setCheckState(d.paysTransfers ? Qt::Checked : Qt::Unchecked);
    devices_->setItem(row, PaysTransfers, pays);
    filling_ = was;
}

void DeviceSetupDialog::onDeviceItemChanged(QTableWidgetItem* item) {
    if (filling_) return;
    const int c = item->column();
    if (c >= Compute && c <= Speed) {
        const double scale = kDeviceColumns[c].scale;
        const QVariant si = item->data(kSiRole);
        // Unchanged text keeps the exact value it stands for.
        if (!(si.isValid() && item->text().trimmed() == shown(si.toDouble(), scale))) {
            const auto v = parseSi(item->text(), scale);
            filling_ = true;
            item->setData(kSiRole, v ? QVariant(*v) : QVariant());
            filling_ = false;
        }
    } else if (c == Name) {
        // A renamed device keeps its link overrides.
        const QString old = item->data(kOldNameRole).toString(), now = item->text().trimmed();
        filling_ = true;
        for (int r = 0; r < links_->rowCount(); ++r)
            for (int k : {From, To})
                if (QTableWidgetItem* l = links_->item(r, k); l && l->text() == old && !old.isEmpty()) l->setText(now);
        item->setData(kOldNameRole, now);
        filling_ = false;
    }
    markEdited();
}

void DeviceSetupDialog::onLinkItemChanged(QTableWidgetItem* item) {
    if (filling_) return;
    const int c = item->column();
    if (c == Latency || c == LinkBandwidth) {
        const double scale = kLinkColumns[c].scale;
        const QVariant si = item->data(kSiRole);
        if (!(si.isValid() && item->text().trimmed() == shown(si.toDouble(), scale))) {
            const auto v = parseSi(item->text(), scale);
            filling_ = true;
            item->setData(kSiRole, v ? QVariant(*v) : QVariant());
            filling_ = false;
        }
    }
    markEdited();
}

void DeviceSetupDialog::markEdited() {
    edited_ = true;
    validate();
}

QString DeviceSetupDialog::uniqueName(const QString& base) const {
    QString stem = base;
    stem.remove(QRegularExpression("[0-9]+$"));
    if (stem.isEmpty()) stem = "dev";
    for (int i = 0;; ++i) {
        const QString candidate = stem + QString::number(i);
        bool taken = false;
        for (int r = 0; r < devices_->rowCount() && !taken; ++r)
            taken = devices_->item(r, Name) && devices_->item(r, Name)->text().trimmed() == candidate;
        if (!taken) return candidate;
    }
}

void DeviceSetupDialog::addDevice() {
    DeviceSpec d;
    const int last = devices_->rowCount() - 1;
    if (last >= 0) {
        // Like the last device: most setups repeat one kind of device.
        try {
            const DeviceModel m = DeviceModel::fromJson(setupJson());
            d = m.devices.back();
        } catch (const std::exception&) {
        }
    }
    d.name = uniqueName(last >= 0 ? devices_->item(last, Name)->text() : QString("gpu")).toStdString();
    devices_->insertRow(last + 1);
    fillDeviceRow(last + 1, d);
    devices_->setCurrentCell(last + 1, Name);
    markEdited();
}

void DeviceSetupDialog::duplicateDevice(int row) {
    if (row < 0 || row >= devices_->rowCount()) return;
    devices_->insertRow(row + 1);
    filling_ = true;
    for (int c = 0; c < ColumnCount; ++c) devices_->setItem(row + 1, c, devices_->item(row, c)->clone());
    devices_->item(row + 1, Name)->setText(uniqueName(devices_->item(row, Name)->text()));
    devices_->item(row + 1, Name)->setData(kOldNameRole, devices_->item(row + 1, Name)->text());
    filling_ = false;
    devices_->setCurrentCell(row + 1, Name);
    markEdited();
}

void DeviceSetupDialog::removeDevice(int row) {
    if (row < 0 || row >= devices_->rowCount()) return;
    const QString name = devices_->item(row, Name)->text().trimmed();
    devices_->removeRow(row);
    // Overrides of a device that is gone would name an unknown device.
    for (int r = links_->rowCount() - 1; r >= 0; --r)
        if ((links_->item(r, From) && links_->item(r, From)->text().trimmed() == name) ||
            (links_->item(r, To) && links_->item(r, To)->text().trimmed() == name))
            links_->removeRow(r);
    markEdited();
}

void DeviceSetupDialog::addLinkOverride() {
    const int row = links_->rowCount();
    filling_ = true;
    links_->insertRow(row);
    const QString a = devices_->rowCount() > 0 ? devices_->item(0, Name)->text() : QString();
    const QString b = devices_->rowCount() > 1 ? devices_->item(1, Name)->text() : a;
    links_->setItem(row, From, new QTableWidgetItem(a));
    links_->setItem(row, To, new QTableWidgetItem(b));
    links_->setItem(row, Latency, new QTableWidgetItem);
    links_->setItem(row, LinkBandwidth, new QTableWidgetItem);
    const QVariant lat = latency_->property("si"), bw = bandwidth_->property("si");
    setNumber(links_->item(row, Latency), lat.isValid() ? lat.toDouble() : LinkSpec{}.latencyS, 1e-6);
    setNumber(links_->item(row, LinkBandwidth), bw.isValid() ? bw.toDouble() : LinkSpec{}.bandwidth, 1e9);
    filling_ = false;
    links_->setCurrentCell(row, From);
    markEdited();
}

void DeviceSetupDialog::removeLinkOverride(int row) {
    if (row < 0 || row >= links_->rowCount()) return;
    links_->removeRow(row);
    markEdited();
}

nlohmann::json DeviceSetupDialog::setupJson() const {
    auto number = [](const QTableWidgetItem* item) -> nlohmann::json {
        const QVariant v = item ? item->data(kSiRole) : QVariant();
        return v.isValid() ? nlohmann::json(v.toDouble()) : nlohmann::json("?");
    };
    nlohmann::json devs = nlohmann::json::array();
    for (int r = 0; r < devices_->rowCount(); ++r) {
        nlohmann::json d = {{"name", devices_->item(r, Name)->text().trimmed().toStdString()},
                            {"kind", devices_->item(r, Kind)->text().trimmed().toStdString()}};
        for (int c = Compute; c <= Speed; ++c) d[kDeviceColumns[c].jsonKey] = number(devices_->item(r, c));
        // Bytes are whole: the nearest integer (a GiB figure with a fraction of a byte rounds).
        nlohmann::json& mem = d["memory_bytes"];
        if (mem.is_number()) {
            const double b = std::round(mem.get<double>());
            if (b >= 1 && b < 9223372036854775808.0) mem = static_cast<int64_t>(b);
        }
        d["pays_transfers"] = devices_->item(r, PaysTransfers)->checkState() == Qt::Checked;
        devs.push_back(std::move(d));
    }
    const QVariant lat = latency_->property("si"), bw = bandwidth_->property("si");
    nlohmann::json j = {{"name", name_->text().trimmed().toStdString()},
                        {"devices", devs},
                        {"default_link",
                         {{"latency_s", lat.isValid() ? nlohmann::json(lat.toDouble()) : nlohmann::json("?")},
                          {"bandwidth", bw.isValid() ? nlohmann::json(bw.toDouble()) : nlohmann::json("?")}}}};
    nlohmann::json links = nlohmann::json::array();
    for (int r = 0; r < links_->rowCount(); ++r)
        links.push_back({{"from", links_->item(r, From)->text().trimmed().toStdString()},
                         {"to", links_->item(r, To)->text().trimmed().toStdString()},
                         {"latency_s", number(links_->item(r, Latency))},
                         {"bandwidth", number(links_->item(r, LinkBandwidth))}});
    if (!links.empty()) j["links"] = std::move(links);
    return j;
}

DeviceModel DeviceSetupDialog::setup() const {
    if (!isValid()) throw std::invalid_argument(message_.toStdString());
    return DeviceModel::fromJson(setupJson());
}

void DeviceSetupDialog::validate() {
    QStringList problems;
    int badRow = -1, badLink = -1;
    auto deviceLabel = [this](int r) {
        const QString name = devices_->item(r, Name) ? devices_->item(r, Name)->text().trimmed() : QString();
        return name.isEmpty() ? tr("Device %1").arg(r + 1) : tr("Device %1 (%2)").arg(r + 1).arg(name);
    };
    // What the table can tell before the model does: empty names, figures that are not numbers.
    for (int r = 0; r < devices_->rowCount() && problems.isEmpty(); ++r) {
        if (devices_->item(r, Name)->text().trimmed().isEmpty()) problems << tr("%1: give it a name").arg(deviceLabel(r)), badRow = r;
        for (int c = Compute; c <= Speed && problems.isEmpty(); ++c)
            if (!devices_->item(r, c)->data(kSiRole).isValid())
                problems << tr("%1: %2 '%3' is not a number")
                                .arg(deviceLabel(r), tr(kDeviceColumns[c].label), devices_->item(r, c)->text()),
                    badRow = r;
    }
    for (QLineEdit* e : {latency_, bandwidth_})
        if (problems.isEmpty() && !e->property("si").isValid())
            problems << tr("Default link: %1 '%2' is not a number").arg(e == latency_ ? tr("latency") : tr("bandwidth"), e->text());
    for (int r = 0; r < links_->rowCount() && problems.isEmpty(); ++r)
        for (int c : {Latency, LinkBandwidth})
            if (problems.isEmpty() && !links_->item(r, c)->data(kSiRole).isValid())
                problems << tr("Link override %1: %2 '%3' is not a number").arg(r + 1).arg(tr(kLinkColumns[c].label), links_->item(r, c)->text()),
                    badLink = r;
    if (problems.isEmpty()) {
        try {
            DeviceModel::fromJson(setupJson());
        } catch (const std::exception& e) {
            // The model's message, in the table's terms: "devices[1]: 'flops_per_s' must be > 0"
            // reads "Device 2 (gpu1): Compute (TFLOP/s) must be > 0".
            QString text = QString::fromStdString(e.what());
            const QRegularExpressionMatch dm = QRegularExpression("devices\\[(\\d+)\\]").match(text);
            if (dm.hasMatch()) {
                badRow = dm.captured(1).toInt();
                if (badRow < devices_->rowCount()) text.replace(dm.captured(0), deviceLabel(badRow));
            }
            const QRegularExpressionMatch lm = QRegularExpression("links\\[(\\d+)\\]").match(text);
            if (lm.hasMatch()) {
                badLink = lm.captured(1).toInt();
                text.replace(lm.captured(0), tr("Link override %1").arg(badLink + 1));
            }
            text.replace("default_link", tr("Default link"));
            for (const ColumnInfo& c : kDeviceColumns) text.replace(QString("'%1'").arg(c.jsonKey), tr(c.label));
            text.replace("'latency_s'", tr("latency (\u00b5s)")).replace("'bandwidth'", tr("bandwidth (GB/s)"));
            text.replace("'devices' must be a non-empty array", tr("Add at least one device"));
            if (!text.isEmpty()) text[0] = text[0].toUpper();
            problems << text;
        }
    }
    message_ = problems.join("\n");
    // Where the problem is: the row tinted.
    filling_ = true;
    for (int r = 0; r < devices_->rowCount(); ++r)
        for (int c = 0; c < ColumnCount; ++c)
            if (QTableWidgetItem* i = devices_->item(r, c)) i->setBackground(r == badRow ? QColor(255, 220, 220) : QBrush());
    for (int r = 0; r < links_->rowCount(); ++r)
        for (int c = 0; c < LinkColumnCount; ++c)
            if (QTableWidgetItem* i = links_->item(r, c)) i->setBackground(r == badLink ? QColor(255, 220, 220) : QBrush());
    filling_ = false;
    if (message_.isEmpty()) {
        int devices = devices_->rowCount();
        messageLabel_->setStyleSheet("color: #1d6b2a;");
        messageLabel_->setText(tr("%n device(s), valid.", nullptr, devices) +
                               (savedPath().isEmpty() ? QString() : tr(" Saved in %1.").arg(savedPath())));
    } else {
        messageLabel_->setStyleSheet("color: #b00000; font-weight: bold;");
        messageLabel_->setText(message_);
    }
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(message_.isEmpty());
    revert_->setEnabled(edited_);
}

bool DeviceSetupDialog::saveTo(const QString& path, QString* error) {
    if (!isValid()) {
        if (error) *error = message_;
        return false;
    }
    // Written from the model, so the file is exactly what a run reads (every pair's link listed).
    const nlohmann::json j = DeviceModel::fromJson(setupJson()).toJson();
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        if (error) *error = tr("%1: cannot write (%2)").arg(path, f.errorString());
        return false;
    }
    const std::string text = j.dump(2) + "\n";
    if (f.write(text.data(), qint64(text.size())) != qint64(text.size())) {
        if (error) *error = tr("%1: cannot write (%2)").arg(path, f.errorString());
        return false;
    }
    f.close();
    path_ = path;
    edited_ = false;
    validate();
    return true;
}

bool DeviceSetupDialog::openFrom(const QString& path, QString* error) {
    try {
        DeviceModel m = DeviceModel::loadFile(path.toStdString());
        fill(m);
        path_ = path;
        edited_ = false;
        validate();
        revert_->setEnabled(true);  // back to the setup opened with
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

void DeviceSetupDialog::chooseAndOpen() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open device setup"), path_, tr("Device JSON (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!openFrom(path, &error)) QMessageBox::warning(this, tr("Cannot open the device setup"), error);
}

void DeviceSetupDialog::chooseAndSave() {
    if (!isValid()) {
        QMessageBox::warning(this, tr("Cannot save the device setup"), message_);
        return;
    }
    QString suggested = path_;
    if (suggested.isEmpty()) suggested = (name_->text().trimmed().isEmpty() ? QString("devices") : name_->text().trimmed()) + ".json";
    const QString path = QFileDialog::getSaveFileName(this, tr("Save device setup"), suggested, tr("Device JSON (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!saveTo(path, &error)) QMessageBox::warning(this, tr("Cannot save the device setup"), error);
}

}  // namespace graphopt::ui
