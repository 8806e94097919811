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
