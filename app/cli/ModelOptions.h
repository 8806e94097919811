// The options that fix a model's input sizes (`--batch N`, `--input-shape NAME=D1xD2x...`,
// repeatable: the convention of trtexec --shapes and onnxsim --overwrite-input-shape), shared by
// the commands that read a model.
#pragma once

#include <string>
#include <vector>

#include "Args.h"
#include "CommandSpec.h"
#include "graph/Loaders.h"

namespace graphopt::cli {

// The two option descriptions, for a command's spec. `which` names the models they apply to in
// the help ("ONNX": the command's model; "ONNX test graphs", ...).
std::vector<OptionSpec> modelShapeOptions(const std::string& which = "ONNX");
// `--training` (PipeDream profiles: forward plus backward costs, activations stashed).
OptionSpec trainingOption();
// LoadOptions from the parsed options (--training where the command has it); UsageError for a
// malformed value.
LoadOptions loadOptionsFrom(const Args& args);

}  // namespace graphopt::cli
