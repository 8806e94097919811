// The tuners that need graphopt_nn (LibTorch), registered by name so that `graphopt tune --tuner`
// and the GUI find them like the others. No LibTorch header here: callers only link graphopt_nn.
#pragma once

#include <memory>

#include "tuning/Tuner.h"

namespace graphopt::tuning {

// "release" (papers/ReLeASE.md): the XGBoost cost model with the regression objective (its
// prediction is the agent's reward), the PPO explorer (PpoExplorer.h) and adaptive sampling, in
// the ModelBasedTuner AutoTVM uses. Tuner parameters: those of ModelBasedOptions (plan_size,
// epsilon, initial_random, first_k, knee_ratio), of XgbOptions (rounds) and of PpoParams
// (episodes, steps, epochs, minibatch, ...); anything else throws std::invalid_argument.
std::unique_ptr<Tuner> makeReleaseTuner(const TunerContext& context);

// Registers "release". Safe to call more than once.
void registerLearnedTuners();

}  // namespace graphopt::tuning
