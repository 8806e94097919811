// Every run in the SQLite store (placement, tuning, training), whoever wrote it: filterable by
// text (model, engine or tuner, objective), kind, status and age; sortable by any column; delete
// with confirmation; export of the selection as CSV or JSON; open a run; compare two or more
// (RunComparisonView below the list). Runs another process writes (the CLI) appear on their own:
// the browser re-reads the store when its file changes.
#pragma once

#include <QList>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;
class QTimer;

namespace graphopt::ui {

class RunComparisonView;
class RunsFilterModel;

class RunsBrowser : public QWidget {
    Q_OBJECT
public:
    explicit RunsBrowser(QWidget* parent = nullptr);
    ~RunsBrowser() override;

    // The store to browse; read now and whenever the file changes. Empty: nothing to show.
    void setDatabasePath(const QString& path);
    QString databasePath() const { return dbPath_; }
    // Re-reads the store now (the timer does this when the file changed).
    void refresh();
    // How often the store file is checked for changes (default 1000 ms).
    void setPollInterval(int ms);

    QTableView* table() const { return table_; }
    int visibleRunCount() const;  // rows after filtering
    QList<qint64> selectedRunIds() const;
    void selectRuns(const QList<qint64>& ids);
    void setTextFilter(const QString& text);
    void setKindFilter(const QString& kind);  // "" = all

    // Compares the selected runs (two or more) in the panel below; false with a reason otherwise.
    bool compareSelected(QString* error = nullptr);
    RunComparisonView* comparisonView() const { return comparison_; }
    // Deletes these runs (no question asked: the Delete button asks first). False with the
    // store's reason when one could not be deleted (e.g. a run still being written).
    bool deleteRuns(const QList<qint64>& ids, QString* error = nullptr);
    // Writes the selected runs: .csv one summary row each, .json each run in full (events,
    // result, measurements). False with a reason when the file cannot be written.
    bool exportSelection(const QString& path, QString* error = nullptr);

signals:
    void openRunRequested(qint64 runId);
    void showNodesRequested(const QString& graphPath, const std::vector<std::string>& nodes);
    void storeChanged();  // after a refresh that found new or changed runs

private:
    void askAndDelete();
    void askAndExport();
    void pollStore();
    void updateButtons();

    QString dbPath_;
    QString lastSignature_;  // the file's size and time when last read
    QString lastContent_;    // what the last read found, to tell real changes
    QStandardItemModel* model_ = nullptr;
    RunsFilterModel* proxy_ = nullptr;
    QTableView* table_ = nullptr;
    QLineEdit* text_ = nullptr;
    QComboBox* kind_ = nullptr;
    QComboBox* status_ = nullptr;
    QComboBox* age_ = nullptr;
    QLabel* count_ = nullptr;
    QPushButton* open_ = nullptr;
    QPushButton* compare_ = nullptr;
    QPushButton* delete_ = nullptr;
    QPushButton* export_ = nullptr;
    QTimer* poll_ = nullptr;
    RunComparisonView* comparison_ = nullptr;
};

}  // namespace graphopt::ui
