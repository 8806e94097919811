#include "tuning/LearnedTuners.h"

#include <set>
#include <string>

#include "tuning/ModelBasedTuner.h"
#include "tuning/PpoExplorer.h"
#include "tuning/XgbCostModel.h"

namespace graphopt::tuning {

std::unique_ptr<Tuner> makeReleaseTuner(const TunerContext& context) {
    ModelBasedOptions o;
    o.name = "release";
    o.adaptiveSampling = true;
    XgbOptions x;
    x.objective = XgbObjective::Regression;
    PpoParams p;
    readTunerParams(o.name, context.params, [&](std::set<std::string>& known) {
        o.readParams(context.params, known);
        x.readParams(context.params, known);
        p = PpoParams::fromJson(context.params, &known);
    });
    return makeModelBasedTuner(context, std::move(o), makeXgbCostModel(context, x), std::make_unique<PpoExplorer>(p));
}

void registerLearnedTuners() { registerTuner("release", makeReleaseTuner); }

}  // namespace graphopt::tuning
