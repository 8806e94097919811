// Where bundled files live: next to an installed binary (../share/graphopt-studio), or in the
// source tree for a build that was never installed.
#pragma once

#include <QString>

namespace graphopt::ui {

QString resourcesDir();
QString bundledModelPath(const QString& fileName);  // empty when not found

}  // namespace graphopt::ui
