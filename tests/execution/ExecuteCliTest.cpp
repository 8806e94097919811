// `graphopt profile`, `place --costs`, `execute` and `calibrate` as a user runs them, on the tiny
// reference model: the cost file feeds the placement and the prediction; bad inputs are one line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "GraphoptCli.h"
#include "TestModels.h"

namespace fs = std::filesystem;
using graphopt::test_support::runGraphopt;

namespace {

struct Scratch {
    fs::path dir = fs::temp_directory_path() / ("graphopt-execute-" + std::to_string(::getpid()));
    Scratch() {
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    ~Scratch() { fs::remove_all(dir); }
    std::string file(const std::string& name) const { return (dir / name).string(); }
};

TEST(ExecuteCli, ProfilesPlacesWithTheCostsAndExecutesThePlacement) {
    Scratch s;
    const std::string model = graphopt::test_support::kTinyModel;
    const std::string db = "--db " + s.file("runs.db");
    auto prof = runGraphopt("profile " + model + " --repeats 2 --out " + s.file("tiny.costs.json") + " " + db);
    ASSERT_EQ(prof.status, 0) << prof.err;
    EXPECT_NE(prof.out.find("profiled:  17 operators, 0 not run"), std::string::npos) << prof.out;
    ASSERT_TRUE(fs::exists(s.file("tiny.costs.json")));
    auto runs = runGraphopt("runs list --kind profile --json " + db);
    ASSERT_EQ(runs.status, 0) << runs.err;
    EXPECT_EQ(nlohmann::json::parse(runs.out).size(), 1u) << "the profile is a stored run";

    auto place = runGraphopt("place " + model + " --devices cpu-cores --costs " + s.file("tiny.costs.json") +
                             " --budget 200 --threads 1 --export " + s.file("p.json") + " --json " + db);
    ASSERT_EQ(place.status, 0) << place.err;
    const auto placed = nlohmann::json::parse(place.out);
    auto exec = runGraphopt("execute " + model + " --placement " + s.file("p.json") + " --costs " + s.file("tiny.costs.json") +
                            " --repeats 2 --no-pin --json");
    ASSERT_EQ(exec.status, 0) << exec.err;
    const auto j = nlohmann::json::parse(exec.out);
    EXPECT_DOUBLE_EQ(j["predicted_makespan_s"].get<double>(), placed["runtime_s"].get<double>())
        << "the prediction is the placement run's own figure";
    EXPECT_GT(j["measured_makespan_s"].get<double>(), 0);
    EXPECT_EQ(j["per_device"].size(), 2u);
    EXPECT_EQ(j["nodes_not_run"], 0);
    // The stored run works as well as the file.
    auto byId = runGraphopt("execute " + model + " --placement " + std::to_string(placed["run_id"].get<int64_t>()) +
                            " --repeats 1 --no-pin " + db);
    EXPECT_EQ(byId.status, 0) << byId.err;
    EXPECT_NE(byId.out.find("makespan:   measured"), std::string::npos) << byId.out;
}

TEST(ExecuteCli, BadInputsAreOneLineWithStatusTwo) {
    Scratch s;
    const std::string model = graphopt::test_support::kTinyModel;
    auto json = runGraphopt("profile " + std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/workloads/two_accelerators.json --no-store");
    EXPECT_EQ(json.status, 2);
    EXPECT_NE(json.err.find("needs an ONNX file"), std::string::npos) << json.err;
    std::ofstream(s.file("junk.json")) << "{\"format\": \"something\"}";
    auto costs = runGraphopt("place " + model + " --devices cpu-cores --costs " + s.file("junk.json") + " --no-store");
    EXPECT_EQ(costs.status, 2);
    EXPECT_NE(costs.err.find("junk.json: not a cost file"), std::string::npos) << costs.err;
    auto placement = runGraphopt("execute " + model + " --placement " + s.file("junk.json") + " --repeats 1");
    EXPECT_EQ(placement.status, 2);
    EXPECT_NE(placement.err.find("junk.json: not a placement export"), std::string::npos) << placement.err;
    auto gpus = runGraphopt("place " + model + " --devices 2xgpu-pcie --costs " + s.file("junk.json") + " --no-store");
    EXPECT_EQ(gpus.status, 2);
}

TEST(ExecuteCli, CalibrateWritesADeviceFileThatPlacementReads) {
    Scratch s;
    auto cal = runGraphopt("calibrate --cores 2 --memory-per-core 1 --out " + s.file("cores.json"));
    ASSERT_EQ(cal.status, 0) << cal.err;
    auto info = runGraphopt("place " + graphopt::test_support::kTinyModel + " --devices " + s.file("cores.json") +
                            " --budget 50 --threads 1 --no-store --json");
    ASSERT_EQ(info.status, 0) << info.err;
    const auto j = nlohmann::json::parse(info.out);
    EXPECT_EQ(j["device_names"], nlohmann::json({"core0", "core1"}));
}

}  // namespace
