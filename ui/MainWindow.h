// The main window: opens a model (off the GUI thread) and lists its nodes. The graph view, runs
// and charts arrive with the application issue; this is the frame they dock into.
#pragma once

#include <QFutureWatcher>
#include <QMainWindow>
#include <memory>

#include "graph/Graph.h"

class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QTableView;

namespace graphopt::ui {

class NodeTableModel;

struct LoadOutcome {
    std::shared_ptr<const Graph> graph;
    QString error;  // empty on success
    QString path;
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts loading `path` on a worker thread; emits modelLoaded or loadFailed when done.
    void openModel(const QString& path);
    const Graph* graph() const;
    QString currentPath() const { return currentPath_; }

signals:
    void modelLoaded(const QString& path);
    void loadFailed(const QString& message);

private:
    void buildMenus();
    void onLoadFinished();
    void updateRecentMenu();
    void chooseAndOpen();

    NodeTableModel* model_ = nullptr;
    QSortFilterProxyModel* proxy_ = nullptr;
    QTableView* table_ = nullptr;
    QLineEdit* filter_ = nullptr;
    QLabel* summary_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QFutureWatcher<LoadOutcome> loadWatcher_;
    QString currentPath_;
    int loadGeneration_ = 0;  // a newer openModel() makes older results stale
};

}  // namespace graphopt::ui
