#include "ResourcePaths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace graphopt::ui {

QString resourcesDir() {
    const QString installed =
        QDir(QCoreApplication::applicationDirPath()).absoluteFilePath("../share/graphopt-studio/resources");
    if (QFileInfo(installed).isDir()) return QDir::cleanPath(installed);
    return QStringLiteral(GRAPHOPT_SOURCE_RESOURCES);
}

QString bundledModelPath(const QString& fileName) {
    const QString path = QDir(resourcesDir()).absoluteFilePath("models/" + fileName);
    return QFileInfo::exists(path) ? path : QString();
}

}  // namespace graphopt::ui
