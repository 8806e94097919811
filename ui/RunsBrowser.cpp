#include "RunsBrowser.h"

#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <set>

#include "RunComparisonView.h"
#include "store/RunExport.h"
#include "run/Units.h"
#include "store/RunStore.h"

namespace graphopt::ui {

namespace {

enum Column { ColId, ColKind, ColEngine, ColObjective, ColGraph, ColSeed, ColStatus, ColEvaluations, ColBest,
              ColElapsed, ColStarted, ColumnCount };
constexpr int kSortRole = Qt::UserRole + 1;
constexpr int kStartedRole = Qt::UserRole + 2;

QStandardItem* cell(const QString& text, const QVariant& sortKey = {}) {
    auto* item = new QStandardItem(text);
    item->setData(sortKey.isValid() ? sortKey : QVariant(text), kSortRole);
    item->setEditable(false);
    return item;
}

// The store file's and its write-ahead log's size and time: they change when any process writes.
QString fileSignature(const QString& dbPath) {
    QString signature;
    for (const QString& f : {dbPath, dbPath + "-wal"}) {
        const QFileInfo info(f);
        signature += QString::number(info.size()) + ":" + QString::number(info.lastModified().toMSecsSinceEpoch()) + ";";
    }
    return signature;
}

QString csvField(const QString& s) {
    if (!s.contains(',') && !s.contains('"') && !s.contains('\n')) return s;
    QString q = s;
    q.replace("\"", "\"\"");
    return "\"" + q + "\"";
}

}  // namespace

// Text, kind, status and age filters over the runs table.
class RunsFilterModel : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    QString text, kind, status;
    int maxAgeDays = 0;  // 0 = any

    void update() { invalidateFilter(); }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
        const QAbstractItemModel* m = sourceModel();
        auto at = [&](int col) { return m->index(row, col, parent).data().toString(); };
        if (!kind.isEmpty() && at(ColKind) != kind) return false;
        if (!status.isEmpty() && at(ColStatus) != status) return false;
        if (maxAgeDays > 0) {
            const QDateTime started = m->index(row, ColStarted, parent).data(kStartedRole).toDateTime();
            if (!started.isValid() || started.secsTo(QDateTime::currentDateTimeUtc()) > qint64(maxAgeDays) * 86400)
                return false;
        }
        if (!text.isEmpty()) {
            bool any = false;
            for (int col : {ColEngine, ColObjective, ColGraph, ColId})
                any = any || at(col).contains(text, Qt::CaseInsensitive);
            if (!any) return false;
        }
        return true;
    }
};

RunsBrowser::RunsBrowser(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* filters = new QHBoxLayout;
    text_ = new QLineEdit;
    text_->setObjectName("runsFilter");
    text_->setPlaceholderText(tr("Filter by model, engine or tuner, objective, id"));
    text_->setClearButtonEnabled(true);
    filters->addWidget(text_, 2);
    kind_ = new QComboBox;
    kind_->setObjectName("runsKind");
    kind_->addItem(tr("All kinds"), QString());
    for (const char* k : {"placement", "tuning", "training"}) kind_->addItem(k, QString(k));
    filters->addWidget(kind_);
    status_ = new QComboBox;
    status_->setObjectName("runsStatus");
    status_->addItem(tr("Any status"), QString());
    for (const char* s : {"finished", "running", "cancelled", "failed", "interrupted"}) status_->addItem(s, QString(s));
    filters->addWidget(status_);
    age_ = new QComboBox;
    age_->setObjectName("runsAge");
    age_->addItem(tr("Any time"), 0);
    age_->addItem(tr("Last 24 hours"), 1);
    age_->addItem(tr("Last 7 days"), 7);
    age_->addItem(tr("Last 30 days"), 30);
    filters->addWidget(age_);
    count_ = new QLabel;
    filters->addWidget(count_);
    layout->addLayout(filters);

    auto* split = new QSplitter(Qt::Vertical);
    auto* top = new QWidget;
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    model_ = new QStandardItemModel(0, ColumnCount, this);
    model_->setHorizontalHeaderLabels({tr("ID"), tr("Kind"), tr("Engine / tuner"), tr("Objective"), tr("Model"),
                                       tr("Seed"), tr("Status"), tr("Evaluations"), tr("Best cost"), tr("Seconds"),
                                       tr("Started (UTC)")});
    proxy_ = new RunsFilterModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(kSortRole);
    table_ = new QTableView;
    table_->setObjectName("runsTable");
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(ColId, Qt::DescendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(ColGraph, QHeaderView::Stretch);
    topLayout->addWidget(table_, 1);
    auto* buttons = new QHBoxLayout;
    open_ = new QPushButton(tr("Open"));
    open_->setToolTip(tr("Show the run: a placement on its graph, a tuning run's convergence and clusters"));
    compare_ = new QPushButton(tr("Compare"));
    compare_->setObjectName("compareRuns");
    compare_->setToolTip(tr("Compare the selected runs (two or more) below"));
    delete_ = new QPushButton(tr("Delete..."));
    export_ = new QPushButton(tr("Export..."));
    export_->setToolTip(tr("Write the selected runs as CSV (one row each) or JSON (in full)"));
    for (QPushButton* b : {open_, compare_, delete_, export_}) buttons->addWidget(b);
    buttons->addStretch();
    topLayout->addLayout(buttons);
    split->addWidget(top);
    comparison_ = new RunComparisonView;
    split->addWidget(comparison_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);

    auto refilter = [this] {
        proxy_->text = text_->text();
        proxy_->kind = kind_->currentData().toString();
        proxy_->status = status_->currentData().toString();
        proxy_->maxAgeDays = age_->currentData().toInt();
        proxy_->update();
        count_->setText(tr("%1 of %2 runs").arg(proxy_->rowCount()).arg(model_->rowCount()));
        updateButtons();
    };
    connect(text_, &QLineEdit::textChanged, this, refilter);
    for (QComboBox* c : {kind_, status_, age_}) connect(c, &QComboBox::currentIndexChanged, this, refilter);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsBrowser::updateButtons);
    connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        emit openRunRequested(proxy_->index(index.row(), ColId).data(kSortRole).toLongLong());
    });
    connect(open_, &QPushButton::clicked, this, [this] {
        const auto ids = selectedRunIds();
        if (ids.size() == 1) emit openRunRequested(ids.front());
    });
    connect(compare_, &QPushButton::clicked, this, [this] {
        QString error;
        if (!compareSelected(&error)) QMessageBox::warning(this, tr("Cannot compare"), error);
    });
    connect(delete_, &QPushButton::clicked, this, &RunsBrowser::askAndDelete);
    connect(export_, &QPushButton::clicked, this, &RunsBrowser::askAndExport);
    connect(comparison_, &RunComparisonView::showNodesRequested, this, &RunsBrowser::showNodesRequested);

    poll_ = new QTimer(this);
    poll_->setInterval(1000);
    connect(poll_, &QTimer::timeout, this, &RunsBrowser::pollStore);
    poll_->start();
    updateButtons();
}

RunsBrowser::~RunsBrowser() = default;

void RunsBrowser::setPollInterval(int ms) { poll_->setInterval(ms); }

void RunsBrowser::setDatabasePath(const QString& path) {
    dbPath_ = path;
    lastSignature_.clear();
    lastContent_.clear();
    comparison_->clear();
    refresh();
}

void RunsBrowser::pollStore() {
    if (dbPath_.isEmpty() || !isVisible()) return;
    // Read only when another write happened.
    if (fileSignature(dbPath_) == lastSignature_) return;
    refresh();
}

void RunsBrowser::refresh() {
    lastSignature_ = fileSignature(dbPath_);
    std::vector<RunSummary> runs;
    if (!dbPath_.isEmpty() && QFileInfo::exists(dbPath_)) {
        try {
            RunStore store(dbPath_.toStdString());
            store.markInterruptedRuns();
            runs = store.listRuns();
        } catch (const std::exception& e) {
            count_->setText(tr("cannot read the run store: %1").arg(QString::fromStdString(e.what())));
            return;
        }
    }
    QString content;
    for (const auto& s : runs)
        content += QString("%1/%2/%3/%4;").arg(s.run.id).arg(int(s.run.status)).arg(s.eventCount).arg(s.evaluations);
    if (content == lastContent_ && model_->rowCount() == static_cast<int>(runs.size())) return;
    lastContent_ = content;

    const QList<qint64> selected = selectedRunIds();
    const QLocale loc;
    model_->removeRows(0, model_->rowCount());
    for (const auto& s : runs) {
        const RunRecord& r = s.run;
        QDateTime started = QDateTime::fromString(QString::fromStdString(r.startedAt), Qt::ISODateWithMs);
        started.setTimeSpec(Qt::UTC);
        QList<QStandardItem*> row = {
            cell(QString::number(r.id), QVariant::fromValue<qlonglong>(r.id)),
            cell(QString::fromStdString(r.kind)),
            cell(QString::fromStdString(r.engine)),
            cell(QString::fromStdString(r.objective.empty() ? "-" : r.objective)),
            cell(QString::fromStdString(r.graphName.empty() ? "-" : r.graphName)),
            cell(QString::number(r.seed), QVariant::fromValue<qulonglong>(r.seed)),
            cell(QString::fromStdString(runStatusName(r.status))),
            cell(loc.toString(qlonglong(s.evaluations)), QVariant::fromValue<qlonglong>(s.evaluations)),
            // In the objective's unit (633.5 µs, 27.6 MiB); sorted by the stored value. A training
            // run's cost is 1 - its best validation improvement over uniform BRKGA: shown as that.
            cell(!s.bestCost               ? QString("-")
                 : r.kind == "training" ? tr("validation %1%2 %").arg(*s.bestCost <= 1 ? "+" : "").arg(100 * (1 - *s.bestCost), 0, 'f', 1)
                                        : QString::fromStdString(units::format(units::objectiveKind(s.run.objective), *s.bestCost)),
                 s.bestCost ? QVariant(*s.bestCost) : QVariant(std::numeric_limits<double>::infinity())),
            cell(s.elapsedS ? QString::fromStdString(units::seconds(*s.elapsedS)) : "-", s.elapsedS ? QVariant(*s.elapsedS) : QVariant(0.0)),
            cell(started.toString("yyyy-MM-dd HH:mm:ss"), started),
        };
        row[ColStarted]->setData(started, kStartedRole);
        if (!r.error.empty()) row[ColStatus]->setToolTip(QString::fromStdString(r.error));
        model_->appendRow(row);
    }
    proxy_->update();
    selectRuns(selected);
    count_->setText(tr("%1 of %2 runs").arg(proxy_->rowCount()).arg(model_->rowCount()));
    updateButtons();
    emit storeChanged();
}

int RunsBrowser::visibleRunCount() const { return proxy_->rowCount(); }

QList<qint64> RunsBrowser::selectedRunIds() const {
    QList<qint64> ids;
    if (!table_->selectionModel()) return ids;
    for (const QModelIndex& index : table_->selectionModel()->selectedRows(ColId))
        ids << index.data(kSortRole).toLongLong();
    std::sort(ids.begin(), ids.end());
    return ids;
}

void RunsBrowser::selectRuns(const QList<qint64>& ids) {
    table_->clearSelection();
    const std::set<qint64> wanted(ids.begin(), ids.end());
    for (int row = 0; row < proxy_->rowCount(); ++row)
        if (wanted.count(proxy_->index(row, ColId).data(kSortRole).toLongLong()))
            table_->selectionModel()->select(proxy_->index(row, 0),
                                             QItemSelectionModel::Select | QItemSelectionModel::Rows);
    updateButtons();
}

void RunsBrowser::setTextFilter(const QString& text) { text_->setText(text); }

void RunsBrowser::setKindFilter(const QString& kind) {
    const int i = kind_->findData(kind);
    kind_->setCurrentIndex(i < 0 ? 0 : i);
}

void RunsBrowser::updateButtons() {
    const int n = static_cast<int>(selectedRunIds().size());
    open_->setEnabled(n == 1);
    compare_->setEnabled(n >= 2);
    delete_->setEnabled(n >= 1);
    export_->setEnabled(n >= 1);
}

bool RunsBrowser::compareSelected(QString* error) {
    const QList<qint64> ids = selectedRunIds();
    if (ids.size() < 2) {
        if (error) *error = tr("Select two or more runs to compare.");
        return false;
    }
    try {
        RunStore store(dbPath_.toStdString());
        comparison_->showRuns(store, std::vector<int64_t>(ids.begin(), ids.end()));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

bool RunsBrowser::deleteRuns(const QList<qint64>& ids, QString* error) {
    try {
        RunStore store(dbPath_.toStdString());
        for (qint64 id : ids) store.deleteRun(id);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        refresh();
        return false;
    }
    comparison_->clear();
    refresh();
    return true;
}

void RunsBrowser::askAndDelete() {
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty()) return;
    QStringList names;
    for (qint64 id : ids) names << QString::number(id);
    const auto answer = QMessageBox::question(
        this, tr("Delete runs"),
        tr("Delete %n run(s) (%1) with their progress, results and measurements? This cannot be undone.", nullptr,
           static_cast<int>(ids.size()))
            .arg(names.join(", ")),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes) return;
    QString error;
    if (!deleteRuns(ids, &error)) QMessageBox::warning(this, tr("Delete failed"), error);
}

bool RunsBrowser::exportSelection(const QString& path, QString* error) {
    const QList<qint64> ids = selectedRunIds();
    QByteArray bytes;
    try {
        RunStore store(dbPath_.toStdString());
        if (path.endsWith(".json", Qt::CaseInsensitive)) {
            nlohmann::json all = nlohmann::json::array();
            for (qint64 id : ids) all.push_back(exportRunJson(store, id));
            bytes = QByteArray::fromStdString(all.dump(2) + "\n");
        } else {
            QString csv = "id,kind,engine,objective,graph,seed,status,evaluations,best_cost,elapsed_s,started_at\n";
            for (qint64 id : ids) {
                const RunSummary s = store.run(id);
                const RunRecord& r = s.run;
                auto num = [](const std::optional<double>& v) {
                    return v ? QString::number(*v, 'g', 17) : QString();
                };
                csv += QStringList{QString::number(r.id), csvField(QString::fromStdString(r.kind)),
                                   csvField(QString::fromStdString(r.engine)), csvField(QString::fromStdString(r.objective)),
                                   csvField(QString::fromStdString(r.graphName)), QString::number(r.seed),
                                   runStatusName(r.status), QString::number(s.evaluations), num(s.bestCost),
                                   num(s.elapsedS), QString::fromStdString(r.startedAt)}
                           .join(",") +
                       "\n";
            }
            bytes = csv.toUtf8();
        }
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit()) {
        if (error) *error = tr("%1: cannot write: %2").arg(path, out.errorString());
        return false;
    }
    return true;
}

void RunsBrowser::askAndExport() {
    if (selectedRunIds().isEmpty()) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export runs"), "runs.csv",
                                                      tr("CSV, one row per run (*.csv);;JSON, every run in full (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportSelection(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
}

}  // namespace graphopt::ui
