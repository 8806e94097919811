// Where the bundled files (models, REGAL policies) are, for the CLI and the GUI alike, installed
// or not. The resources folder is the first of:
//   1. $GRAPHOPT_RESOURCE_DIR, when set;
//   2. share/graphopt-studio/resources beside the running program's prefix (an installed program:
//      /usr/bin/graphopt -> /usr/share/graphopt-studio/resources);
//   3. the source tree this program was built from (a build that was never installed).
// Policies are looked up in $GRAPHOPT_POLICY_DIR first (a user's own trained policies), then in
// the resources folder's policies/.
#pragma once

#include <string>
#include <vector>

namespace graphopt {

std::string resourcesDir();
std::string modelsDir();    // resourcesDir()/models
std::string policiesDir();  // resourcesDir()/policies
// Every folder searched for a policy file, in order (existing or not).
std::vector<std::string> policySearchDirs();
// Where policies the user trains go (the GUI's training view writes there, its run panel lists
// them): $GRAPHOPT_USER_POLICY_DIR, else $XDG_DATA_HOME/graphopt-studio/policies, else
// ~/.local/share/graphopt-studio/policies. Not created here.
std::string userPolicyDir();
// resourcesDir()/models/FILE when it exists, else "".
std::string bundledModelPath(const std::string& fileName);

// The project's programs that are not user commands (graphopt-measure-worker, graphopt-nn) are
// looked for, in order: beside the running program, in ../libexec/graphopt-studio (installed), and
// in the build tree's app/ seen from its tests/ and bench/ folders. Every candidate path, existing
// or not (for an error message), and the first that exists, else "".
std::vector<std::string> helperProgramCandidates(const std::string& name);
std::string findHelperProgram(const std::string& name);

}  // namespace graphopt
