// `graphopt tasks` and `graphopt tune`, run as the user runs them.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <unistd.h>

#include <nlohmann/json.hpp>

namespace {

struct Output {
    int status = -1;
    std::string out;
};

Output runGraphopt(const std::string& args, bool withStderr = false) {
    const std::string cmd =
        std::string(GRAPHOPT_BINARY_DIR) + "/app/graphopt " + args + (withStderr ? " 2>&1" : " 2>/dev/null");
    Output o;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return o;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.out.append(buf.data(), n);
    const int st = pclose(p);
    o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return o;
}

std::string resnet18() { return std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx"; }

}  // namespace

TEST(TuneCli, TasksListsResNet18AsJson) {
    ASSERT_TRUE(std::filesystem::exists(resnet18())) << "resnet18.onnx not bundled (a committed or installed resource is missing)";
    const Output o = runGraphopt("tasks " + resnet18() + " --json");
    ASSERT_EQ(o.status, 0);
    const auto j = nlohmann::json::parse(o.out);
    ASSERT_EQ(j["tasks"].size(), 12u);
    EXPECT_EQ(j["tasks"][1]["index"], 1);
    EXPECT_EQ(j["tasks"][1]["weight"], 4);
    EXPECT_EQ(j["tasks"][11]["kind"], "dense");
    EXPECT_GT(j["tasks"][0]["flops"].get<double>(), 2e8);
    // The spaces are those of the template real measurements search: tiled, >= 10^5 per conv.
    EXPECT_EQ(j["template"], "tiled");
    for (size_t i = 0; i < 11; ++i) {
        EXPECT_EQ(j["tasks"][i]["template"], "tiled") << i;
        EXPECT_GE(j["tasks"][i]["space_size"].get<uint64_t>(), 100000u) << i;
    }
    // --template nchw: the simulated CPU's template, a different space.
    const Output n = runGraphopt("tasks " + resnet18() + " --json --template nchw");
    ASSERT_EQ(n.status, 0);
    const auto jn = nlohmann::json::parse(n.out);
    EXPECT_EQ(jn["tasks"][1]["template"], "nchw");
    EXPECT_NE(jn["tasks"][1]["space_size"], j["tasks"][1]["space_size"]);
    EXPECT_EQ(runGraphopt("tasks " + resnet18() + " --template blocked").status, 2);
}

TEST(TuneCli, TuneWithTheSimulatedMeasurerGivesEveryMeasurement) {
    ASSERT_TRUE(std::filesystem::exists(resnet18())) << "resnet18.onnx not bundled (a committed or installed resource is missing)";
    const Output o = runGraphopt("tune " + resnet18() + " --task 4 --tuner ga --measurer sim --trials 20 --seed 3 --json");
    ASSERT_EQ(o.status, 0);
    const auto j = nlohmann::json::parse(o.out);
    ASSERT_EQ(j["tasks"].size(), 1u);
    const auto& t = j["tasks"][0];
    EXPECT_EQ(t["task"], 4);
    EXPECT_EQ(t["measurements"].size(), 20u);
    EXPECT_GT(t["best_gflops"].get<double>(), 0);
    EXPECT_GT(t["best_latency_s"].get<double>(), 0);
    EXPECT_TRUE(t["best_config"].contains("tile_co"));
    // Same seed, same run (wall-clock fields aside).
    const auto again = nlohmann::json::parse(
        runGraphopt("tune " + resnet18() + " --task 4 --tuner ga --measurer sim --trials 20 --seed 3 --json").out);
    const auto& u = again["tasks"][0];
    EXPECT_EQ(u["best_gflops"], t["best_gflops"]);
    for (size_t i = 0; i < 20; ++i) EXPECT_EQ(u["measurements"][i]["config"], t["measurements"][i]["config"]);
}

// The simulated CPU is a model: every line the CLI prints with it, progress included, says so.
TEST(TuneCli, EveryLineOfASimulatedRunSaysSimulated) {
    const Output o = runGraphopt("tune " + resnet18() + " --task 4 --tuner autotvm --measurer sim --trials 24 --no-store", true);
    ASSERT_EQ(o.status, 0) << o.out;
    int lines = 0;
    std::string line;
    for (char ch : o.out + "\n") {
        if (ch != '\n' && ch != '\r') {
            line += ch;
            continue;
        }
        if (line.find_first_not_of(' ') != std::string::npos) {
            ++lines;
            EXPECT_NE(line.find("[simulated CPU]"), std::string::npos) << line;
        }
        line.clear();
    }
    EXPECT_GE(lines, 4);  // header, progress, result, best, total
    const auto j = nlohmann::json::parse(
        runGraphopt("tune " + resnet18() + " --task 4 --tuner random --measurer sim --trials 8 --no-store --json").out);
    EXPECT_EQ(j["simulated"], true);
}

TEST(TuneCli, TuneWithHalideMeasuresForReal) {
    ASSERT_TRUE(std::filesystem::exists(resnet18())) << "resnet18.onnx not bundled (a committed or installed resource is missing)";
    // The dense layer: small and quick to compile.
    const Output o = runGraphopt("tune " + resnet18() + " --task 11 --measurer halide --trials 2 --min-time 0 --json");
    ASSERT_EQ(o.status, 0);
    const auto j = nlohmann::json::parse(o.out);
    const auto& t = j["tasks"][0];
    EXPECT_EQ(t["measurements"].size(), 2u);
    EXPECT_EQ(t["failures"], 0);
    EXPECT_GT(t["best_gflops"].get<double>(), 0);
}

TEST(TuneCli, UsageErrorsExitWithStatus2) {
    EXPECT_EQ(runGraphopt("tune " + resnet18() + " --task 0 --tuner nosuch").status, 2);
    EXPECT_EQ(runGraphopt("tune " + resnet18() + " --task 99 --measurer sim").status, 2);
    EXPECT_EQ(runGraphopt("tune " + resnet18() + " --measurer sim").status, 2);  // neither --task nor --all
    EXPECT_EQ(runGraphopt("tasks").status, 2);
}

TEST(TuneCli, AutoTvmWithAdaptiveSamplingStoresItsClusters) {
    ASSERT_TRUE(std::filesystem::exists(resnet18())) << "resnet18.onnx not bundled (a committed or installed resource is missing)";
    const std::filesystem::path db = std::filesystem::temp_directory_path() / ("tune-cli-as-" + std::to_string(getpid()) + ".db");
    std::filesystem::remove(db);
    const Output o = runGraphopt("tune " + resnet18() + " --task 8 --tuner autotvm-as --measurer sim --trials 48 --seed 2" +
                                 " --measure-batch 8 --tuner-params '{\"plan_size\": 16}' --json --db " + db.string());
    ASSERT_EQ(o.status, 0);
    const auto j = nlohmann::json::parse(o.out);
    const auto& t = j["tasks"][0];
    ASSERT_EQ(t["measurements"].size(), 48u);
    EXPECT_EQ(t["tuner"], "autotvm-as");
    const Output e = runGraphopt("runs export " + std::to_string(t["run_id"].get<int64_t>()) + " --json --db " + db.string());
    ASSERT_EQ(e.status, 0);
    const auto run = nlohmann::json::parse(e.out);
    int clustered = 0, explorations = 0;
    for (const auto& m : run["measurements"]) clustered += !m["cluster_id"].is_null();
    for (const auto& ev : run["events"]) explorations += ev["values"]["tuner"].contains("exploration");
    EXPECT_GT(clustered, 0);
    EXPECT_GT(explorations, 0);
    std::filesystem::remove(db);
    // A misspelt tuner parameter is a usage error.
    EXPECT_EQ(runGraphopt("tune " + resnet18() + " --task 8 --tuner autotvm --measurer sim --no-store" +
                          " --tuner-params '{\"plan_sise\": 16}'").status, 2);
}

// Real measurements: conv tasks take the tiled template, every task is compared with libtorch
// (interleaved, per thread count) and the model total says tuned / libtorch.
TEST(TuneCli, RealMeasurementsReportTheTemplateAndLibtorch) {
    ASSERT_TRUE(std::filesystem::exists(resnet18())) << "resnet18.onnx not bundled (a committed or installed resource is missing)";
    const Output o = runGraphopt("tune " + resnet18() +
                                 " --task 4 --tuner random --measurer halide --trials 4 --seed 1 --min-time 0 --json --no-store");
    ASSERT_EQ(o.status, 0);
    const auto j = nlohmann::json::parse(o.out);
    ASSERT_EQ(j["tasks"].size(), 1u);
    const auto& t = j["tasks"][0];
    for (const char* key : {"best_gflops", "best_latency_s", "measurements", "best_config"}) EXPECT_TRUE(t.contains(key)) << key;
    EXPECT_EQ(t["template"], "tiled");
    ASSERT_TRUE(t["libtorch_gflops"].is_number()) << t.dump();
    EXPECT_GT(t["libtorch_gflops"].get<double>(), 0);
    ASSERT_TRUE(j["tuned_vs_libtorch"].is_number()) << j.dump();
    EXPECT_GT(j["tuned_vs_libtorch"].get<double>(), 0);
    // The older templates stay available for the same task.
    const Output packed = runGraphopt("tune " + resnet18() +
                                      " --task 4 --tuner random --measurer halide --template packed --trials 1 --min-time 0 --json --no-store");
    ASSERT_EQ(packed.status, 0);
    EXPECT_EQ(nlohmann::json::parse(packed.out)["tasks"][0]["template"], "packed");
    const Output nchw = runGraphopt("tune " + resnet18() +
                                    " --task 4 --tuner random --measurer halide --template nchw --trials 1 --min-time 0 --json --no-store");
    ASSERT_EQ(nchw.status, 0);
    EXPECT_EQ(nlohmann::json::parse(nchw.out)["tasks"][0]["template"], "nchw");
}
