// The graphopt executable as a user runs it: output, exit status, error lines.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "GraphoptCli.h"

#include "store/RunStore.h"

namespace fs = std::filesystem;

namespace {

using graphopt::test_support::runGraphopt;
using Result = graphopt::test_support::CliResult;

const std::string kResnet18 = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx";

}  // namespace

TEST(Cli, InfoJsonReportsResNet18Cost) {
    Result r = runGraphopt("info " + kResnet18 + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    for (const char* key : {"nodes", "edges", "flops", "activation_bytes", "weight_bytes", "ops"})
        EXPECT_TRUE(j.contains(key)) << key;
    // Published: 1.8 G multiply-accumulates = 3.6 GFLOP (multiply-add = 2), within 10 %.
    EXPECT_NEAR(j["flops"].get<double>(), 3.6e9, 0.36e9);
    EXPECT_EQ(j["ops"]["Conv"].get<int>(), 20);
}

// Input sizes from the command line: the shapes are re-inferred (not scaled), and a batch size
// with nowhere to go, a wrong name or a malformed shape is a one-line usage error.
TEST(Cli, InputShapesAndBatchReinferTheModel) {
    const std::string transformer = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/transformer_encoder.onnx";
    Result one = runGraphopt("info " + transformer + " --json");
    Result four = runGraphopt("info " + transformer + " --batch 4 --json");
    ASSERT_EQ(one.status, 0) << one.err;
    ASSERT_EQ(four.status, 0) << four.err;
    const double f1 = nlohmann::json::parse(one.out)["flops"], f4 = nlohmann::json::parse(four.out)["flops"];
    EXPECT_NEAR(f4 / f1, 4.0, 0.01);
    EXPECT_EQ(nlohmann::json::parse(four.out)["input_dims_set"], "input:batch=4");
    Result resnet4 = runGraphopt("info " + kResnet18 + " --input-shape input=4x3x224x224 --json");
    ASSERT_EQ(resnet4.status, 0) << resnet4.err;
    EXPECT_NEAR(nlohmann::json::parse(resnet4.out)["flops"].get<double>(), 4 * 3.64e9, 0.1 * 3.64e9);
    Result tasks = runGraphopt("tasks " + transformer + " --batch 2 --json");
    ASSERT_EQ(tasks.status, 0) << tasks.err;
    // The bundled image models keep a symbolic batch: --batch re-infers them too.
    Result resnetBatch = runGraphopt("info " + kResnet18 + " --batch 4 --json");
    ASSERT_EQ(resnetBatch.status, 0) << resnetBatch.err;
    EXPECT_NEAR(nlohmann::json::parse(resnetBatch.out)["flops"].get<double>(),
                nlohmann::json::parse(resnet4.out)["flops"].get<double>(), 1.0);
    // A model whose input is fixed in the file has no batch to set.
    const std::string fixed = std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/onnx/fixed-batch-conv.onnx";
    for (const std::string& bad : {" --batch 4", " --input-shape image=1x3x224x224", " --input-shape input=1x3",
                                   " --input-shape input=1xAx3x3", " --input-shape input"}) {
        SCOPED_TRACE(bad);
        Result r = runGraphopt("info " + fixed + bad);
        EXPECT_EQ(r.status, 2);
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

TEST(Cli, InfoPlainText) {
    Result r = runGraphopt("info " + kResnet18);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("nodes"), std::string::npos);
    EXPECT_NE(r.out.find("Conv"), std::string::npos);
}

// Weights stored as ONNX external data, with the data files absent: info counts them from their
// declared types and dims (float16 and bfloat16 at 2 bytes) and says they are external.
TEST(Cli, InfoCountsExternalWeightsWithoutTheirData) {
    const std::string small = std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/onnx/external-data.onnx";
    ASSERT_FALSE(fs::exists(small + ".data"));
    Result r = runGraphopt("info " + small + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["parameters"].get<int64_t>(), 272);
    EXPECT_EQ(j["weight_bytes"].get<int64_t>(), 832);
    EXPECT_EQ(j["external_weight_tensors"].get<int64_t>(), 4);
    EXPECT_EQ(j["tensors_without_shape"].get<int>(), 0);
    // A model exported without weights has parameters too (ResNet-18: 11.69 M), and no external data.
    auto resnet = nlohmann::json::parse(runGraphopt("info " + kResnet18 + " --json").out);
    EXPECT_NEAR(resnet["parameters"].get<double>(), 11.69e6, 0.01e6);
    EXPECT_FALSE(resnet.contains("external_weight_tensors"));

    const std::string llama = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/llama_7b.onnx";
    ASSERT_FALSE(fs::exists(llama + ".data"));
    Result big = runGraphopt("info " + llama + " --input-shape input_ids=1x2048 --json");
    ASSERT_EQ(big.status, 0) << big.err;
    auto b = nlohmann::json::parse(big.out);
    EXPECT_GE(b["parameters"].get<double>(), 6.5e9);
    EXPECT_GT(b["weight_bytes"].get<double>(), 26e9);  // float32
    EXPECT_TRUE(b["ops_without_flops"].empty());
    EXPECT_EQ(b["tensors_without_shape"].get<int>(), 0);
    Result text = runGraphopt("info " + llama);
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("parameters        6.739 G"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("external data"), std::string::npos) << text.out;
}

TEST(Cli, ErrorsAreOneLineAndExitTwo) {
    const std::string missing = "/nonexistent/model.onnx";
    for (const std::string& args : std::vector<std::string>{"info " + missing, "info", "info " + kResnet18 + " --bogus", "frobnicate",
                                    "generate --family chain --nodes 5 --out /tmp/x.json",
                                    "generate --family tree --nodes 50 --out /tmp/x.json", "generate --nodes 50"}) {
        SCOPED_TRACE(args);
        Result r = runGraphopt(args);
        EXPECT_EQ(r.status, 2);
        EXPECT_TRUE(r.out.empty()) << r.out;
        ASSERT_FALSE(r.err.empty());
        EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
    }
    Result r = runGraphopt("info " + missing);
    EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

TEST(Cli, GenerateWritesALoadableDeterministicGraph) {
    const fs::path dir = fs::temp_directory_path() / ("graphopt-cli-gen-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string a = (dir / "a.json").string(), b = (dir / "b.json").string();
    ASSERT_EQ(runGraphopt("generate --family branchy --nodes 300 --seed 7 --out " + a).status, 0);
    ASSERT_EQ(runGraphopt("generate --family branchy --nodes 300 --seed 7 --out " + b).status, 0);
    std::ifstream fa(a), fb(b);
    std::string sa((std::istreambuf_iterator<char>(fa)), {}), sb((std::istreambuf_iterator<char>(fb)), {});
    EXPECT_EQ(sa, sb);
    Result info = runGraphopt("info " + a + " --json");
    ASSERT_EQ(info.status, 0) << info.err;
    EXPECT_EQ(nlohmann::json::parse(info.out)["nodes"].get<int>(), 300);
    fs::remove_all(dir);
}

TEST(Cli, TuneRecordsEveryMeasurementInTheStore) {
    const fs::path dir = fs::temp_directory_path() / ("graphopt-cli-tune-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string db = (dir / "runs.db").string();
    Result r = runGraphopt("tune " + kResnet18 + " --task 1 --tuner random --measurer sim --trials 24 --seed 2 --json --db " + db);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const int64_t runId = j["tasks"][0]["run_id"].get<int64_t>();
    graphopt::RunStore store(db);
    const auto run = store.run(runId);
    EXPECT_EQ(run.run.kind, "tuning");
    EXPECT_EQ(run.run.status, graphopt::RunStatus::Finished);
    EXPECT_EQ(run.run.graphName, "resnet18");
    const auto ms = store.measurements(runId);
    ASSERT_EQ(ms.size(), 24u);
    double best = 0;
    for (const auto& m : ms)
        if (m.ok) best = std::max(best, m.gflops);
    EXPECT_DOUBLE_EQ(best, j["tasks"][0]["best_gflops"].get<double>());
    fs::remove_all(dir);
}

// Unknown shapes and ops without a FLOP formula are counted and warned about, not a silent zero;
// formats without shapes (DOT) are not warned about; a complete model has nothing to report.
TEST(Cli, InfoSaysWhatItDoesNotKnow) {
    const auto dir = std::filesystem::temp_directory_path() / ("graphopt-info-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string file = (dir / "partial.json").string();
    std::ofstream(file) << R"({"format": "graphopt-graph", "version": 1, "name": "partial",
      "tensors": [
        {"name": "x", "kind": "input", "shape": [1, 8], "shapeKnown": true, "bytes": 32},
        {"name": "y", "kind": "activation"},
        {"name": "z", "kind": "activation", "shape": [1, 8], "shapeKnown": true, "bytes": 32, "isGraphOutput": true}],
      "nodes": [
        {"name": "a", "op": "MysteryOp", "inputs": ["x"], "outputs": ["y"]},
        {"name": "b", "op": "Relu", "inputs": ["y"], "outputs": ["z"]}]})";
    Result r = runGraphopt("info " + file + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["tensors_without_shape"], 1);
    EXPECT_EQ(j["tensors"], 3);
    // Native JSON stores each node's FLOPs as they were: nothing is re-derived, so nothing is missing.
    EXPECT_EQ(j["nodes_without_flops"], 0);
    EXPECT_EQ(j["ops_without_flops"], nlohmann::json::array());
    EXPECT_NE(j.value("warning", "").find("1 of 3 tensors have no shape"), std::string::npos) << j.dump();
    r = runGraphopt("info " + file);
    EXPECT_NE(r.out.find("without shape     1 of 3 tensors"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("partial.json: warning: 1 of 3 tensors have no shape: their bytes and FLOPs count as 0"),
              std::string::npos)
        << r.err;

    r = runGraphopt("info " + std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/dot/plain.dot --json");
    ASSERT_EQ(r.status, 0) << r.err;
    j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["tensors_without_shape"].get<int>(), 0);  // DOT has no shapes...
    EXPECT_FALSE(j.contains("warning"));                   // ...which is the format, not a gap

    r = runGraphopt("info " + kResnet18 + " --json");
    j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["tensors_without_shape"], 0);
    EXPECT_EQ(j["nodes_without_flops"], 0);
    EXPECT_FALSE(j.contains("warning"));
    std::filesystem::remove_all(dir);
}

// graphopt runs the commands that need no LibTorch itself and hands the rest to graphopt-nn
// (app/cli/FrontMain.cpp). With GRAPHOPT_NN_PROGRAM naming a program that is not there, what
// graphopt runs itself still works, and what it hands on fails with a line naming the program.
TEST(Cli, RunsTheLightCommandsItselfAndHandsTheRestToGraphoptNn) {
    const fs::path dir = fs::temp_directory_path() / ("graphopt-front-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string db = " --db " + (dir / "runs.db").string();
    const std::string missing = (dir / "no-graphopt-nn").string();
    ::setenv("GRAPHOPT_NN_PROGRAM", missing.c_str(), 1);
    Result info = runGraphopt("info " + kResnet18);
    Result place = runGraphopt("place " + kResnet18 + " --engine heft" + db);
    Result runs = runGraphopt("runs list" + db);
    Result regal = runGraphopt("place " + kResnet18 + " --engine regal --budget 100" + db);
    Result tune = runGraphopt("tune " + kResnet18 + " --task 1 --measurer sim --trials 2" + db);
    Result help = runGraphopt("info --help");
    ::unsetenv("GRAPHOPT_NN_PROGRAM");
    EXPECT_EQ(info.status, 0) << info.err;
    EXPECT_EQ(place.status, 0) << place.err;
    EXPECT_EQ(runs.status, 0) << runs.err;
    EXPECT_NE(runs.out.find("heft"), std::string::npos) << runs.out;
    for (const Result* r : {&regal, &tune, &help}) {
        EXPECT_EQ(r->status, 2);
        EXPECT_EQ(r->err.rfind("graphopt: cannot run " + missing, 0), 0u) << r->err;
        EXPECT_NE(r->err.find("the program that runs this command"), std::string::npos) << r->err;
        EXPECT_NE(r->err.find(missing), std::string::npos) << r->err;
    }
    // Found (beside graphopt in the build tree), it answers as graphopt always has: REGAL places,
    // and its exit status and error lines come back unchanged.
    Result regalRun = runGraphopt("place " + kResnet18 + " --engine regal --budget 100 --no-store");
    EXPECT_EQ(regalRun.status, 0) << regalRun.err;
    EXPECT_NE(regalRun.out.find("regal"), std::string::npos) << regalRun.out;
    Result badTuner = runGraphopt("tune " + kResnet18 + " --tuner nope --no-store");
    EXPECT_EQ(badTuner.status, 2);
    EXPECT_EQ(badTuner.err.rfind("graphopt tune: ", 0), 0u) << badTuner.err;
    fs::remove_all(dir);
}
