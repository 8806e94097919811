#include "tuning/LearnedTuners.h"

#include <set>
#include <stdexcept>
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
    try {
        std::set<std::string> known;
        o.readParams(context.params, known);
        x.readParams(context.params, known);
        p = PpoParams::fromJson(context.params, &known);
        rejectUnknownParams(o.name, context.params, known);
    } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        if (msg.rfind(o.name + ":", 0) == 0) throw;
        throw std::invalid_argument(o.name + ": " + msg);
    }
    return makeModelBasedTuner(context, std::move(o), makeXgbCostModel(context, x), std::make_unique<PpoExplorer>(p));
}

void registerLearnedTuners() { registerTuner("release", makeReleaseTuner); }

}  // namespace graphopt::tuning
