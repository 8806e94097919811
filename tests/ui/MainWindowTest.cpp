// The main window, driven headless: open a bundled model off-thread, list its nodes; a bad file
// is reported, not fatal.
#include <gtest/gtest.h>

#include <QAbstractItemModel>
#include <QApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>

#include "MainWindow.h"

using graphopt::ui::MainWindow;

namespace {
const QString kModels = QStringLiteral(GRAPHOPT_SOURCE_DIR "/resources/models/");
}

TEST(MainWindow, OpensABundledModelAndListsItsNodes) {
    MainWindow w;
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    w.openModel(kModels + "resnet18.onnx");
    ASSERT_TRUE(loaded.wait(30000));
    ASSERT_NE(w.graph(), nullptr);
    EXPECT_EQ(w.graph()->nodeCount(), 49u);
    auto* table = w.findChild<QTableView*>();
    ASSERT_NE(table, nullptr);
    EXPECT_EQ(table->model()->rowCount(), 49);
    EXPECT_EQ(table->model()->index(0, 2).data().toString(), "Conv");
    EXPECT_TRUE(w.windowTitle().contains("resnet18.onnx"));
    EXPECT_EQ(QSettings().value("lastModel").toString(), kModels + "resnet18.onnx");
}

TEST(MainWindow, ABadFileIsReportedAndTheOldModelStays) {
    MainWindow w;
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openModel(kModels + "alexnet.onnx");
    ASSERT_TRUE(loaded.wait(30000));
    QTemporaryDir dir;
    const QString bad = dir.filePath("broken.onnx");
    QFile f(bad);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("not a model at all");
    f.close();
    w.openModel(bad);
    ASSERT_TRUE(failed.wait(30000));
    EXPECT_TRUE(failed.first().first().toString().startsWith(bad)) << failed.first().first().toString().toStdString();
    EXPECT_EQ(w.graph()->nodeCount(), 20u);  // AlexNet still shown
    EXPECT_EQ(w.currentPath(), kModels + "alexnet.onnx");
}

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location, not the user's
    QApplication app(argc, argv);
    QApplication::setOrganizationName("GraphOptStudioTests");
    QApplication::setApplicationName("ui_tests");
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
