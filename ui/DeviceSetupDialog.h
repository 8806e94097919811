// The device-setup editor: the machine a placement runs on, as a table a person can read and edit
// (name, kind, compute TFLOP/s, memory GiB, memory bandwidth GB/s, overhead µs, speed factor, pays
// transfers), with add / duplicate / remove, a default link (latency µs, bandwidth GB/s) and
// per-pair link overrides. It starts from the current setup or a preset, opens and saves the device
// JSON the CLI reads with --devices FILE (DeviceModel::fromJson / toJson), and checks every edit
// through DeviceModel::fromJson, showing its message in the units of the table.
//
// Units convert exactly: each cell keeps the JSON's SI value it was filled from and replaces it
// only when the user types a new figure, so a preset or a file goes in and comes out unchanged.
// Revert goes back to the setup the dialog was opened with; Cancel changes nothing.
#pragma once

#include <QDialog>
#include <QString>

#include <nlohmann/json.hpp>

#include "placement/model/DeviceModel.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
class QTableWidgetItem;

namespace graphopt::ui {

class DeviceSetupDialog : public QDialog {
    Q_OBJECT
public:
    // Device table columns.
    enum Column { Name, Kind, Compute, Memory, Bandwidth, Overhead, Speed, PaysTransfers, ColumnCount };
    // Link override columns.
    enum LinkColumn { From, To, Latency, LinkBandwidth, LinkColumnCount };

    explicit DeviceSetupDialog(QWidget* parent = nullptr);

    // Fills the editor with `model` and makes it the setup Revert returns to; `sourcePath` is the
    // file it came from ("" for a preset or an unsaved setup).
    void setSetup(const DeviceModel& model, const QString& sourcePath = QString());
    // Fills the editor with a preset (Revert still returns to the opening setup).
    void loadPreset(const QString& name);
    void revert();

    // The edited setup as device JSON (SI units), whether valid or not.
    nlohmann::json setupJson() const;
    // The edited setup; throws std::invalid_argument with validationMessage() when it is not valid.
    DeviceModel setup() const;
    // "" when the edited setup is valid, else what is wrong, in the table's terms.
    QString validationMessage() const { return message_; }
    bool isValid() const { return message_.isEmpty(); }

    bool saveTo(const QString& path, QString* error = nullptr);
    bool openFrom(const QString& path, QString* error = nullptr);
    // The file the editor's setup is in: the last one saved or opened, while nothing was edited
    // since; "" otherwise.
    QString savedPath() const { return edited_ ? QString() : path_; }
    bool isEdited() const { return edited_; }

    QTableWidget* deviceTable() const { return devices_; }
    QTableWidget* linkTable() const { return links_; }
    QLineEdit* setupName() const { return name_; }
    QLineEdit* defaultLatency() const { return latency_; }
    QLineEdit* defaultBandwidth() const { return bandwidth_; }

    void addDevice();
    void duplicateDevice(int row);
    void removeDevice(int row);
    void addLinkOverride();
    void removeLinkOverride(int row);

private:
    void fill(const DeviceModel& model);
    void fillDeviceRow(int row, const DeviceSpec& d);
    void setNumber(QTableWidgetItem* item, double si, double scale);
    void onDeviceItemChanged(QTableWidgetItem* item);
    void onLinkItemChanged(QTableWidgetItem* item);
    void markEdited();
    void validate();
    QString uniqueName(const QString& base) const;
    void chooseAndOpen();
    void chooseAndSave();

    QComboBox* startFrom_ = nullptr;
    QLineEdit* name_ = nullptr;
    QTableWidget* devices_ = nullptr;
    QLineEdit* latency_ = nullptr;
    QLineEdit* bandwidth_ = nullptr;
    QTableWidget* links_ = nullptr;
    QLabel* messageLabel_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
    QPushButton* revert_ = nullptr;
    QString message_;
    DeviceModel original_;
    QString originalPath_, path_;
    bool edited_ = false;
    bool filling_ = false;
};

}  // namespace graphopt::ui
