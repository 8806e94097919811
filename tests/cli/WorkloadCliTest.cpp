// The partitioning workloads through the program, on the hand-made files of tests/data/workloads:
// `info` lists a workload's own devices, `place` runs on them unless --devices is given and
// exports the placement, `convert` keeps them, --training reaches the PipeDream loader, and a
// malformed file is one line on stderr with exit status 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "GraphoptCli.h"

namespace fs = std::filesystem;

namespace {

using graphopt::test_support::CliScratch;
using graphopt::test_support::lineCount;
using graphopt::test_support::runGraphopt;
using Result = graphopt::test_support::CliResult;

const std::string kData = std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/workloads";
const std::string kNeurips = kData + "/two_accelerators.json";
const std::string kProfile = kData + "/small_profile.txt";


nlohmann::json parse(const std::string& text) {
    try {
        return nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what() << "\n" << text;
        return {};
    }
}

nlohmann::json readJson(const std::string& path) {
    std::ifstream in(path);
    return parse(std::string(std::istreambuf_iterator<char>(in), {}));
}


}  // namespace

TEST(WorkloadCli, InfoListsTheWorkloadsAcceleratorsWithTheirLimitAndCpus) {
    const Result r = runGraphopt("info " + kNeurips);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("devices           2 accelerators of 1000 B (acc0, acc1), 1 CPU (cpu0, memory not limited, "
                         "pays no transfers) (from the file)"),
              std::string::npos)
        << r.out;
    const Result j = runGraphopt("info " + kNeurips + " --json");
    ASSERT_EQ(j.status, 0) << j.err;
    const auto info = parse(j.out);
    ASSERT_EQ(info["devices"]["devices"].size(), 3u);
    EXPECT_EQ(info["devices"]["devices"][0]["memory_bytes"], 1000);
    EXPECT_EQ(info["devices"]["devices"][2]["kind"], "cpu");
    EXPECT_EQ(info["nodes"], 5);
}

TEST(WorkloadCli, TrainingReachesThePipeDreamLoaderAndOnlyIt) {
    const Result inference = runGraphopt("info " + kProfile);
    ASSERT_EQ(inference.status, 0) << inference.err;
    EXPECT_NE(inference.out.find("costs             inference"), std::string::npos) << inference.out;
    EXPECT_EQ(inference.out.find("devices "), std::string::npos) << "a profile brings no devices";
    const Result training = runGraphopt("info " + kProfile + " --training");
    ASSERT_EQ(training.status, 0) << training.err;
    EXPECT_NE(training.out.find("costs             training"), std::string::npos) << training.out;
    const Result refused = runGraphopt("info " + kNeurips + " --training");
    EXPECT_EQ(refused.status, 2);
    EXPECT_EQ(lineCount(refused.err), 1) << refused.err;
    EXPECT_NE(refused.err.find("only be chosen for PipeDream profiles"), std::string::npos) << refused.err;
}

TEST(WorkloadCli, MalformedWorkloadsAreOneLineAndExitStatus2) {
    CliScratch s("workload-bad");
    const std::vector<std::pair<std::string, std::string>> files = {
        {"w.json", R"({"maxSizePerFPGA": 10, "maxFPGAs": 1, "maxCPUs": 1, "nodes": [{"id": 1}], "edges": []})"},
        {"p.txt", "node1 -- Input0 -- forward_compute_time=0, backward_compute_time=0, activation_size=1, parameter_size=0\n"
                  "\tnode1 -- node7\n"},
    };
    for (const auto& [name, text] : files) {
        std::ofstream(s.file(name)) << text;
        const Result r = runGraphopt("info " + s.file(name));
        EXPECT_EQ(r.status, 2) << name;
        EXPECT_EQ(lineCount(r.err), 1) << r.err;
        EXPECT_EQ(r.err.rfind("graphopt info: " + s.file(name) + ": ", 0), 0u) << r.err;
    }
}

TEST(WorkloadCli, PlaceRunsOnTheWorkloadsDevicesUnlessDevicesIsGiven) {
    const std::string common = " --engine single --budget 20 --seed 1 --no-store --json";
    const Result own = runGraphopt("place " + kNeurips + common);
    ASSERT_EQ(own.status, 0) << own.err;
    const auto j = parse(own.out);
    EXPECT_EQ(j["devices"], "two_accelerators (2 accelerators, 1 CPU)");
    std::set<std::string> used;
    for (const auto& [node, device] : j["placement"].items()) used.insert(device.get<std::string>());
    for (const auto& d : used) EXPECT_TRUE(d == "acc0" || d == "acc1" || d == "cpu0") << d;
    // 'lookup' may run on a CPU only: a setup without one is refused, naming the node.
    const Result gpus = runGraphopt("place " + kNeurips + common + " --devices 2xgpu-pcie");
    EXPECT_EQ(gpus.status, 2) << gpus.out;
    EXPECT_NE(gpus.err.find("'lookup' may run only on devices of kind cpu"), std::string::npos) << gpus.err;
    const Result preset = runGraphopt("place " + kNeurips + common + " --devices cpu+gpu");
    ASSERT_EQ(preset.status, 0) << preset.err;
    const auto p = parse(preset.out);
    EXPECT_EQ(p["devices"], "cpu+gpu");
    EXPECT_EQ(p["placement"]["lookup"], "cpu");
}

TEST(WorkloadCli, ExportWritesThePlacementAndTheNeuripsSplit) {
    CliScratch s("workload-export");
    const std::string common = " --engine single --budget 20 --seed 1 --no-store";
    const Result r = runGraphopt("place " + kNeurips + common + " --export " + s.file("p.json"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("exported:     " + s.file("p.json")), std::string::npos) << r.out;
    const auto p = readJson(s.file("p.json"));
    EXPECT_EQ(p["format"], "graphopt-placement");
    ASSERT_EQ(p["devices"].size(), 3u);
    size_t listed = 0;
    for (const auto& d : p["devices"]) listed += d["nodes"].size();
    EXPECT_EQ(listed, 5u);
    EXPECT_EQ(p["placement"].size(), 5u);
    for (const auto& [node, device] : p["placement"].items())
        EXPECT_TRUE(device == "acc0" || device == "acc1" || device == "cpu0") << node << " on " << device;

    const Result n = runGraphopt("place " + kNeurips + common + " --export " + s.file("split.json") + " --export-format neurips");
    ASSERT_EQ(n.status, 0) << n.err;
    const auto split = readJson(s.file("split.json"));
    ASSERT_EQ(split["fpgas"].size(), 2u);
    ASSERT_EQ(split["cpus"].size(), 1u);
    std::set<int> ids;
    for (const char* group : {"fpgas", "cpus"})
        for (const auto& d : split[group])
            for (const auto& id : d["nodes"]) ids.insert(id.get<int>());
    EXPECT_EQ(ids, (std::set<int>{10, 11, 12, 13, 14}));
    EXPECT_GT(split["maxLoad"].get<double>(), 0);

    // A profile has no NeurIPS ids: refused before the run.
    const Result refused = runGraphopt("place " + kProfile + common + " --export " + s.file("x.json") + " --export-format neurips");
    EXPECT_EQ(refused.status, 2);
    EXPECT_EQ(lineCount(refused.err), 1) << refused.err;
    EXPECT_FALSE(fs::exists(s.file("x.json")));
}

TEST(WorkloadCli, ConvertKeepsTheDevicesAndTheConstraints) {
    CliScratch s("workload-convert");
    const Result c = runGraphopt("convert " + kNeurips + " " + s.file("w.json") + " --quiet");
    ASSERT_EQ(c.status, 0) << c.err;
    const Result info = runGraphopt("info " + s.file("w.json"));
    ASSERT_EQ(info.status, 0) << info.err;
    EXPECT_NE(info.out.find("2 accelerators of 1000 B"), std::string::npos) << info.out;
    const auto g = readJson(s.file("w.json"));
    bool cpuOnly = false;
    for (const auto& n : g["nodes"])
        if (n["name"] == "lookup") cpuOnly = n["allowedKinds"] == nlohmann::json({"cpu"});
    EXPECT_TRUE(cpuOnly);
}
