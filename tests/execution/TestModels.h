// The reference model of the execution tests: tests/data/exec/tiny_branches.onnx, exported with
// its weights by tools/make_exec_reference.py, and PyTorch's output for a fixed input beside it.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace graphopt::test_support {

inline const std::string kTinyModel = std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/exec/tiny_branches.onnx";

struct TinyReference {
    std::string inputName, outputName;
    std::vector<float> input, output;
};

inline TinyReference tinyReference() {
    std::ifstream in(std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/exec/tiny_branches.json");
    const auto j = nlohmann::json::parse(in);
    TinyReference r;
    r.inputName = j["input"]["name"];
    r.outputName = j["output"]["name"];
    r.input = j["input"]["values"].get<std::vector<float>>();
    r.output = j["output"]["values"].get<std::vector<float>>();
    return r;
}

}  // namespace graphopt::test_support
