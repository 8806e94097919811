// `graphopt place` as a user runs it: the JSON fields others rely on, the text report, and errors
// as one line on stderr with exit status 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "GraphoptCli.h"

namespace fs = std::filesystem;

namespace {

using graphopt::test_support::runGraphopt;
using Result = graphopt::test_support::CliResult;

const std::string kResnet = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx";

int lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST(PlaceCli, JsonHasTheDocumentedFields) {
    ASSERT_TRUE(fs::exists(kResnet)) << "no " << kResnet << " (a committed or installed resource is missing)";
    Result r = runGraphopt("place " + kResnet + " --objective memory --engine brkga --budget 300 --seed 2 --threads 2 "
                           "--json --no-store");
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    for (const char* key : {"objective", "cost", "runtime_s", "peak_bytes", "evaluations", "wall_s", "placement", "order",
                            "device_peak_bytes"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["objective"], "memory");
    EXPECT_EQ(j["evaluations"], 300);
    EXPECT_EQ(j["placement"].size(), j["order"].size());
    EXPECT_GT(j["peak_bytes"].get<int64_t>(), 0);
    // Same seed, same answer, whatever the thread count.
    Result again = runGraphopt("place " + kResnet + " --objective memory --engine brkga --budget 300 --seed 2 "
                               "--threads 1 --json --no-store");
    ASSERT_EQ(again.status, 0) << again.err;
    auto j2 = nlohmann::json::parse(again.out);
    EXPECT_EQ(j["cost"], j2["cost"]);
    EXPECT_EQ(j["placement"], j2["placement"]);
}

TEST(PlaceCli, TextReportAndEveryEngineRuns) {
    ASSERT_TRUE(fs::exists(kResnet)) << "no " << kResnet << " (a committed or installed resource is missing)";
    for (const char* engine : {"brkga", "random", "local", "list", "dfs", "postorder", "xla-best", "heft", "single"}) {
        Result r = runGraphopt("place " + kResnet + " --engine " + engine + " --budget 200 --devices 4xgpu-nvlink --no-store");
        ASSERT_EQ(r.status, 0) << engine << ": " << r.err;
        for (const char* what : {"running time:", "peak memory:", "gpu3", "evaluations:", "wall time:"})
            EXPECT_NE(r.out.find(what), std::string::npos) << engine << " " << what << "\n" << r.out;
    }
}

TEST(PlaceCli, ErrorsAreOneLineAndExitTwo) {
    struct Case {
        std::string args, needle;
    };
    const std::vector<Case> cases = {
        {"place " + kResnet + " --bogus --no-store", "--bogus"},
        {"place " + kResnet + " --devices 8xtpu --no-store", "8xtpu"},
        {"place /nonexistent/model.onnx --no-store", "/nonexistent/model.onnx"},
        {"place " + kResnet + " --engine magic --no-store", "magic"},
        {"place " + kResnet + " --objective speed --no-store", "speed"},
        {"place " + kResnet + " --budget lots --no-store", "lots"},
        {"place " + kResnet + " --engine exhaustive --no-store", "tiny graphs"},
        {"place --no-store", "MODEL"},
        // Engine parameters are checked as strictly as tuner parameters.
        {"place " + kResnet + " --params '{\"populaton\": 50}' --no-store", "brkga: unknown parameter 'populaton'"},
        {"place " + kResnet + " --params '{\"population\": \"many\"}' --no-store", "population must be an integer"},
        {"place " + kResnet + " --engine heft --params '{\"rho_e\": 0.5}' --no-store", "heft: unknown parameter 'rho_e'"},
        {"place " + kResnet + " --params '[1, 2]' --no-store", "--params must be a JSON object"},
    };
    for (const auto& c : cases) {
        Result r = runGraphopt(c.args);
        EXPECT_EQ(r.status, 2) << c.args;
        EXPECT_EQ(lines(r.err), 1) << c.args << ": " << r.err;
        EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << c.args;
    }
}

// A model bigger than one device: the 7B-class decoder (26 GB of fp32 weights, their data absent)
// on four 16 GB GPUs. Everything on one GPU cannot fit and says by how much; a pipeline of
// micro-batches spread by BRKGA fits.
TEST(PlaceCli, ASevenBillionParameterDecoderDoesNotFitOneGpuButAPipelineDoes) {
    const std::string model = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/llama_7b.onnx";
    ASSERT_TRUE(fs::exists(model)) << model;
    Result single = runGraphopt("place " + model + " --input-shape input_ids=1x512 --devices 4xv100-16gb-nvlink "
                                "--engine single --json --no-store");
    ASSERT_EQ(single.status, 0) << single.err;
    auto s = nlohmann::json::parse(single.out);
    EXPECT_FALSE(s["feasible"].get<bool>());
    const int64_t over = s["over_limit_bytes"]["gpu0"].get<int64_t>();
    EXPECT_GT(over, int64_t(9) << 30);  // 25 GiB of weights on a 16 GiB device
    EXPECT_EQ(s["over_limit_bytes"]["gpu1"].get<int64_t>(), 0);
    EXPECT_EQ(s["device_capacity_bytes"]["gpu0"].get<int64_t>(), int64_t(16) << 30);

    Result text = runGraphopt("place " + model + " --input-shape input_ids=1x512 --devices 4xv100-16gb-nvlink "
                              "--engine single --no-store");
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("memory fit:   infeasible: gpu0 over its 16.00 GiB by"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("cost:         infeasible"), std::string::npos) << text.out;

    Result pipe = runGraphopt("place " + model + " --input-shape input_ids=1x512 --devices 4xv100-16gb-nvlink "
                              "--engine brkga --micro-batches 8 --budget 200 --threads 2 --json --no-store");
    ASSERT_EQ(pipe.status, 0) << pipe.err;
    auto p = nlohmann::json::parse(pipe.out);
    EXPECT_TRUE(p["feasible"].get<bool>());
    EXPECT_EQ(p["micro_batches"], 8);
    for (const char* gpu : {"gpu0", "gpu1", "gpu2", "gpu3"}) EXPECT_EQ(p["over_limit_bytes"][gpu].get<int64_t>(), 0) << gpu;
    EXPECT_GT(p["throughput_s"].get<double>(), 0);
}

// The published programs' one-device figure, on our own small workload (tests/data/workloads: two
// accelerators of 1,000 bytes, one CPU; 'lookup' may run on the CPU only). Its nodes hold 1,100
// bytes, so neither accelerator holds them all: single keeps the CPU, 20 + 40 + 5 + 10 + 8 = 83 ms
// per sample. On acc0 it would take 2 + 4 + 1 + 0.75 = 7.75 ms of compute, plus embed's output sent
// to the CPU (1.5) and lookup's received from it (3): 12.25 ms; the CPU pays no communication.
TEST(PlaceCli, ThroughputOnAWorkloadReportsTheMaxLoadAndTheDeviceThatFits) {
    const std::string file = std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/workloads/two_accelerators.json";
    Result r = runGraphopt("place " + file + " --objective throughput --engine single --json --no-store");
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j["feasible"].get<bool>());
    EXPECT_NEAR(j["throughput_s"].get<double>(), 0.083, 1e-12);
    EXPECT_NEAR(j["cost"].get<double>(), 0.083, 1e-12);
    EXPECT_EQ(j["engine_info"]["device"], "cpu0");
    ASSERT_EQ(j["engine_info"]["infeasible_devices"].size(), 2u);
    for (const auto& d : j["engine_info"]["infeasible_devices"]) {
        EXPECT_EQ(d["over_limit_bytes"].get<int64_t>(), 100);
        EXPECT_NEAR(d["throughput_s"].get<double>(), 0.01225, 1e-12);
    }
    Result text = runGraphopt("place " + file + " --objective throughput --engine single --no-store");
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("everything on acc0, acc1 does not fit: 1.07 KiB, 100 B over its 1000 B (it would take "
                            "12.250 ms per sample)"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("kept cpu0"), std::string::npos) << text.out;
}
