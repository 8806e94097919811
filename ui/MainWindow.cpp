#include "MainWindow.h"

#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "NodeTableModel.h"
#include "graph/Loaders.h"

namespace graphopt::ui {

namespace {
constexpr int kMaxRecent = 8;
const char* kRecentKey = "recentFiles";
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("GraphOpt Studio"));
    model_ = new NodeTableModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(Qt::UserRole);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy_->setFilterKeyColumn(-1);  // match name, op or shape

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    summary_ = new QLabel(tr("No model loaded. File > Open (Ctrl+O) reads ONNX, CostGraphDef text, DOT and JSON."), central);
    summary_->setWordWrap(true);
    filter_ = new QLineEdit(central);
    filter_->setPlaceholderText(tr("Filter nodes by name, op or shape"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    table_ = new QTableView(central);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->hide();
    table_->sortByColumn(NodeTableModel::Index, Qt::AscendingOrder);  // file order until the user sorts
    table_->setAlternatingRowColors(true);
    layout->addWidget(summary_);
    layout->addWidget(filter_);
    layout->addWidget(table_);
    setCentralWidget(central);

    buildMenus();
    connect(&loadWatcher_, &QFutureWatcher<LoadOutcome>::finished, this, &MainWindow::onLoadFinished);
    statusBar()->showMessage(tr("Ready"));

    QSettings settings;
    if (!restoreGeometry(settings.value("mainWindow/geometry").toByteArray())) resize(1100, 720);
}

MainWindow::~MainWindow() {
    QSettings settings;
    settings.setValue("mainWindow/geometry", saveGeometry());
    loadWatcher_.waitForFinished();
}

const Graph* MainWindow::graph() const { return model_->graph(); }

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open..."), this, &MainWindow::chooseAndOpen);
    open->setShortcut(QKeySequence::Open);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);
    updateRecentMenu();
}

void MainWindow::chooseAndOpen() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open model"), QFileInfo(currentPath_).absolutePath(),
        tr("Computation graphs (*.onnx *.pbtxt *.txt *.dot *.gv *.json);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
}

void MainWindow::openModel(const QString& path) {
    const int generation = ++loadGeneration_;
    statusBar()->showMessage(tr("Loading %1 ...").arg(QFileInfo(path).fileName()));
    setCursor(Qt::BusyCursor);
    loadWatcher_.setFuture(QtConcurrent::run([path, generation]() {
        Q_UNUSED(generation);
        LoadOutcome out;
        out.path = path;
        try {
            out.graph = std::make_shared<const Graph>(loadGraph(path.toStdString()));
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
    currentPath_ = out.path;
    model_->setGraph(out.graph);
    table_->resizeColumnsToContents();
    table_->horizontalHeader()->setSectionResizeMode(NodeTableModel::Name, QHeaderView::Stretch);
    const Graph& g = *out.graph;
    const QLocale loc;
    summary_->setText(tr("<b>%1</b> &mdash; %2 nodes, %3 edges, %4 GFLOP, activations %5, weights %6")
                          .arg(QFileInfo(out.path).fileName().toHtmlEscaped())
                          .arg(g.nodeCount())
                          .arg(g.edges().size())
                          .arg(loc.toString(g.totalFlops() / 1e9, 'f', 3))
                          .arg(loc.formattedDataSize(g.activationBytes()))
                          .arg(loc.formattedDataSize(g.weightBytes())));
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
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString& path : recent)
        recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openModel(path); })->setToolTip(path);
    recentMenu_->setEnabled(!recent.isEmpty());
}

}  // namespace graphopt::ui
