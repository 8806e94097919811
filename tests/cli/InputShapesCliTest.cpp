// Input sizes (--batch N, --input-shape NAME=D1xD2x...) on the commands that place, tune, train
// and evaluate: shapes are re-inferred from the new inputs, the stored run records them, bad values
// are one line on stderr with exit status 2, and train-policy never reads a test-split file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "GraphoptCli.h"

namespace fs = std::filesystem;

namespace {

using graphopt::test_support::CliScratch;
using graphopt::test_support::lineCount;
using graphopt::test_support::runGraphopt;
using Result = graphopt::test_support::CliResult;

const std::string kModels = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models";
const std::string kResnet = kModels + "/resnet18.onnx";
// Exported with a symbolic batch dimension: input float32[128, batch, 256].
const std::string kTransformer = kModels + "/transformer_encoder.onnx";
// Conv + Relu with its input fixed at 1x3x8x8 in the file (tests/data/onnx/make_fixed_batch.py).
const std::string kFixed = std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/onnx/fixed-batch-conv.onnx";



nlohmann::json parse(const Result& r) {
    try {
        return nlohmann::json::parse(r.out);
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what() << "\n" << r.out << r.err;
        return {};
    }
}

}  // namespace

// Batch 4 is four times the activations and FLOPs, not a scaled guess: the single-device schedule
// takes longer and needs more memory, and the stored run says which inputs it ran with.
TEST(InputShapesCli, PlaceWithABatchRunsLongerNeedsMoreMemoryAndRecordsTheShape) {
    CliScratch s("shapes-place");
    const std::string db = s.file("runs.db");
    const std::string common = " --engine single --budget 50 --seed 1 --json --db " + db;
    Result one = runGraphopt("place " + kTransformer + common);
    Result four = runGraphopt("place " + kTransformer + " --batch 4" + common);
    ASSERT_EQ(one.status, 0) << one.err;
    ASSERT_EQ(four.status, 0) << four.err;
    const nlohmann::json j1 = parse(one), j4 = parse(four);
    EXPECT_EQ(j1["input_dims"], "input:batch=1");  // symbolic in the file: 1 unless given
    EXPECT_EQ(j4["input_dims"], "input:batch=4");
    EXPECT_GT(j4["runtime_s"].get<double>(), j1["runtime_s"].get<double>());
    EXPECT_GT(j4["peak_bytes"].get<int64_t>(), j1["peak_bytes"].get<int64_t>());

    const std::string id = std::to_string(j4["run_id"].get<int64_t>());
    Result show = runGraphopt("runs show " + id + " --db " + db);
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("inputs:     input:batch=4\n"), std::string::npos) << show.out;
    Result showJson = runGraphopt("runs show " + id + " --json --db " + db);
    ASSERT_EQ(showJson.status, 0) << showJson.err;
    EXPECT_EQ(parse(showJson)["spec"]["input_dims"], "input:batch=4") << showJson.out;

    // A whole shape for a model whose input is fixed in the file; the text report names it too.
    Result resnet = runGraphopt("place " + kResnet + " --input-shape input=2x3x224x224 --engine single --budget 20 --db " + db);
    ASSERT_EQ(resnet.status, 0) << resnet.err;
    EXPECT_NE(resnet.out.find("inputs input=2x3x224x224)"), std::string::npos) << resnet.out;
    // Without the options a model whose input is fixed in the file records nothing extra: the
    // spec reads as before. One with a symbolic batch records the 1 it took.
    Result plain = runGraphopt("place " + kFixed + " --engine single --budget 20 --json --db " + db);
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_FALSE(parse(plain).contains("input_dims"));
    Result plainShow = runGraphopt("runs show " + std::to_string(parse(plain)["run_id"].get<int64_t>()) + " --json --db " + db);
    EXPECT_FALSE(parse(plainShow)["spec"].contains("input_dims")) << plainShow.out;
    Result byDefault = runGraphopt("place " + kResnet + " --engine single --budget 20 --json --db " + db);
    ASSERT_EQ(byDefault.status, 0) << byDefault.err;
    EXPECT_EQ(parse(byDefault)["input_dims"], "input:batch=1");
}

// `tune --batch` is the model's batch, as everywhere; the configurations measured together are
// --measure-batch, still `batch_size` in the output and in the stored run's params.
TEST(InputShapesCli, TuneBatchChangesTheTaskShapesAndMeasureBatchIsTheOldOption) {
    CliScratch s("shapes-tune");
    const std::string db = s.file("runs.db");
    const std::string common = " --task 0 --tuner random --measurer sim --trials 2 --seed 1 --json --db " + db;
    Result one = runGraphopt("tune " + kTransformer + common);
    Result four = runGraphopt("tune " + kTransformer + " --batch 4 --measure-batch 2" + common);
    ASSERT_EQ(one.status, 0) << one.err;
    ASSERT_EQ(four.status, 0) << four.err;
    const nlohmann::json j1 = parse(one), j4 = parse(four);
    EXPECT_EQ(j1["batch_size"], 8);
    EXPECT_EQ(j4["batch_size"], 2);
    EXPECT_EQ(j4["input_dims"], "input:batch=4");
    ASSERT_EQ(j1["tasks"].size(), 1u);
    ASSERT_EQ(j4["tasks"].size(), 1u);
    EXPECT_NE(j1["tasks"][0]["task_info"], j4["tasks"][0]["task_info"]);
    // The task tuned is the one `graphopt tasks --batch 4` lists, with 4x its batch-1 FLOPs.
    Result tasks1 = runGraphopt("tasks " + kTransformer + " --json");
    Result tasks4 = runGraphopt("tasks " + kTransformer + " --batch 4 --json");
    ASSERT_EQ(tasks4.status, 0) << tasks4.err;
    nlohmann::json listed = parse(tasks4)["tasks"][0];
    for (const char* k : {"index", "space_size"}) listed.erase(k);
    nlohmann::json tuned = j4["tasks"][0]["task_info"];
    for (auto it = listed.begin(); it != listed.end(); ++it) EXPECT_EQ(tuned[it.key()], it.value()) << it.key();
    const double f1 = parse(tasks1)["tasks"][0].value("flops", 0.0), f4 = listed.value("flops", 0.0);
    if (f1 > 0) EXPECT_NEAR(f4 / f1, 4.0, 0.01);

    // Both runs are stored: the measure batch in params as before, the model's inputs beside them.
    Result show = runGraphopt("runs show " + std::to_string(j4["tasks"][0]["run_id"].get<int64_t>()) + " --json --db " + db);
    ASSERT_EQ(show.status, 0) << show.err;
    const nlohmann::json spec = parse(show)["spec"];
    EXPECT_EQ(spec["params"]["batch_size"], 2);
    EXPECT_EQ(spec["input_dims"], "input:batch=4");
}

// Refused before anything runs or is stored: one line on stderr, exit status 2, nothing on stdout.
TEST(InputShapesCli, BadSizesAreOneLineUsageErrors) {
    CliScratch s("shapes-bad");
    const std::string db = s.file("runs.db");
    const std::string graph = s.file("g.json");
    ASSERT_EQ(runGraphopt("generate --family chain --nodes 12 --seed 1 --out " + graph).status, 0);
    struct Case {
        std::string args, needle;
    };
    std::vector<Case> cases;
    const std::vector<std::pair<std::string, std::string>> bad = {
        {" --batch 0", "--batch"},
        {" --batch four", "four"},
        {" --input-shape input", "NAME=D1xD2x"},
        {" --input-shape input=4xAx224x224", "'A' is not a dimension"},
        {" --input-shape input=1x3 --input-shape input=1x3", "given twice"},
    };
    // Every malformed value on place; two on each other command (the same parser, checked first).
    for (const auto& [opts, needle] : bad) {
        cases.push_back({"place " + kTransformer + opts + " --db " + db, needle});
        if (opts != bad[0].first && opts != bad[3].first) continue;
        cases.push_back({"tune " + kTransformer + " --task 0 --measurer sim --trials 2" + opts + " --db " + db, needle});
        cases.push_back({"train-policy --out " + s.file("p.json") + opts + " --db " + db, needle});
        cases.push_back({"eval-policy --test " + kTransformer + opts, needle});
    }
    // Sizes a model cannot take: no symbolic batch dimension, no such input, a wrong rank, a
    // format without input shapes.
    for (const std::string& cmd : {"place ", "tune "}) {
        const std::string tail = cmd == "tune " ? " --task 0 --measurer sim --trials 2 --db " + db : " --db " + db;
        cases.push_back({cmd + kFixed + " --batch 4" + tail, "no input has a symbolic dimension named like 'batch'"});
        cases.push_back({cmd + kResnet + " --input-shape image=1x3x224x224" + tail, "no input named 'image'"});
        cases.push_back({cmd + kResnet + " --input-shape input=1x3" + tail, "rank"});
        cases.push_back({cmd + graph + " --batch 2" + tail, "can only be set for ONNX models"});
    }
    cases.push_back({"eval-policy --test " + kFixed + " --batch 4", "fixed-batch-conv.onnx"});
    cases.push_back({"eval-policy --test " + graph + " --batch 4", "can only be set for ONNX models"});
    // Sizes the train split's models cannot take: the first model that cannot is named.
    cases.push_back({"train-policy --out " + s.file("p.json") + " --input-shape image=1x3x224x224 --epochs 1 --db " + db,
                     ".onnx"});
    cases.push_back({"train-policy --out " + s.file("p.json") + " --batch 4 --models none --db " + db, "models none"});
    for (const auto& c : cases) {
        SCOPED_TRACE(c.args);
        Result r = runGraphopt(c.args);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_EQ(lineCount(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    // Nothing was stored (the database may not even exist).
    if (fs::exists(db)) {
        Result list = runGraphopt("runs list --json --db " + db);
        EXPECT_EQ(parse(list), nlohmann::json::array()) << list.out;
    }
}

// The guard of issue 19: training reads the train split and never a test-split file. Every file
// the test split names here is unreadable to the loader (garbage, missing, a folder), so a run
// that opened any of them would fail. The train split's model is read with the given batch, and
// the stored run and the policy file say so.
TEST(InputShapesCli, TrainPolicyNeverOpensATestSplitFileAndReadsTheTrainSplitWithTheBatch) {
    CliScratch s("shapes-train");
    fs::copy_file(kTransformer, s.dir / "transformer_encoder.onnx");
    { std::ofstream(s.dir / "garbage.onnx") << "\x08\x07not an onnx model at all\xff\xff\xff"; }
    fs::create_directories(s.dir / "folder.onnx");
    std::ofstream(s.dir / "splits.json") << R"({"train": ["transformer_encoder.onnx"],
                                               "test": ["garbage.onnx", "missing.onnx", "folder.onnx"]})";
    // The poison works: evaluating on that test split fails on its first file.
    Result poisoned = runGraphopt("eval-policy --test " + s.dir.string() + " --budget 10 --seeds 1");
    EXPECT_EQ(poisoned.status, 2);
    EXPECT_NE(poisoned.err.find("garbage.onnx"), std::string::npos) << poisoned.err;

    const std::string db = s.file("runs.db"), policy = s.file("policy.json");
    const std::string tiny = " --epochs 1 --seed 1 --budget 20 --samples 1 --sizes 10 --graph-seeds 1 --hidden 8 --rounds 1 "
                             "--threads 1 --out " + policy;
    Result plain = runGraphopt("train-policy --models " + s.dir.string() + tiny + " --no-store");
    ASSERT_EQ(plain.status, 0) << plain.err;
    Result tr = runGraphopt("train-policy --models " + s.dir.string() + " --batch 2" + tiny + " --db " + db);
    ASSERT_EQ(tr.status, 0) << tr.err;
    std::ifstream in(policy);
    const nlohmann::json file = nlohmann::json::parse(in);
    EXPECT_EQ(file["training"]["batch"], 2) << file["training"].dump();

    Result list = runGraphopt("runs list --kind training --json --db " + db);
    ASSERT_EQ(list.status, 0) << list.err;
    ASSERT_EQ(parse(list).size(), 1u) << list.out;
    const std::string id = std::to_string(parse(list)[0]["id"].get<int64_t>());
    Result show = runGraphopt("runs show " + id + " --db " + db);
    EXPECT_NE(show.out.find("inputs:     batch 2 (models of the train split)"), std::string::npos) << show.out;
}

// eval-policy --json keeps its contract and adds summary.vs_best_baseline with the same three
// keys when --baselines is given; --batch reaches the test graphs.
TEST(InputShapesCli, EvalPolicySummaryHasAVsBestBaselineObjectAndTakesABatch) {
    Result ev = runGraphopt("eval-policy --objective memory --test " + kTransformer +
                            " --batch 2 --budget 30 --seeds 2 --baselines single,heft --json");
    ASSERT_EQ(ev.status, 0) << ev.err;
    const nlohmann::json j = parse(ev);
    EXPECT_EQ(j["batch"], 2);
    ASSERT_EQ(j["graphs"].size(), 1u);
    EXPECT_EQ(j["graphs"][0]["input_dims"], "input:batch=2");
    const nlohmann::json& summary = j["summary"];
    ASSERT_TRUE(summary.contains("vs_best_baseline")) << summary.dump();
    for (const char* k : {"mean_improvement_pct", "median_improvement_pct", "win_rate"}) {
        SCOPED_TRACE(k);
        EXPECT_TRUE(summary[k].is_number());  // against uniform BRKGA, as before
        ASSERT_TRUE(summary["vs_best_baseline"][k].is_number());
        EXPECT_EQ(summary["vs_best_baseline"][k], summary[std::string("vs_best_baseline_") + k]);  // flat keys kept
    }
    EXPECT_EQ(summary["vs_best_baseline"].size(), 3u);

    Result without = runGraphopt("eval-policy --objective memory --test " + kTransformer + " --budget 30 --seeds 1 --json");
    ASSERT_EQ(without.status, 0) << without.err;
    EXPECT_FALSE(parse(without)["summary"].contains("vs_best_baseline"));
    EXPECT_FALSE(parse(without).contains("batch"));
}

// One model that cannot take the batch does not sink the set (issue 29): eval-policy and
// train-policy report it (file and reason, on stderr, in the summary and in --json), go on with
// the others and exit 0; a fixed leading dimension that already equals the batch is no error.
TEST(InputShapesCli, CommandsOverManyModelsSkipTheOnesThatCannotTakeTheBatchAndGoOn) {
    CliScratch s("shapes-skip");
    fs::copy_file(kTransformer, s.dir / "transformer_encoder.onnx");
    fs::copy_file(kFixed, s.dir / "fixed-batch-conv.onnx");
    std::ofstream(s.dir / "splits.json") << R"({"train": ["fixed-batch-conv.onnx", "transformer_encoder.onnx"],
                                               "test": ["fixed-batch-conv.onnx", "transformer_encoder.onnx"]})";
    Result ev = runGraphopt("eval-policy --objective memory --test " + s.dir.string() + " --batch 4 --budget 20 --seeds 1 --json");
    ASSERT_EQ(ev.status, 0) << ev.err;
    const nlohmann::json j = parse(ev);
    ASSERT_EQ(j["graphs"].size(), 1u) << ev.out;
    EXPECT_EQ(j["graphs"][0]["graph"], "transformer_encoder.onnx");
    ASSERT_EQ(j["skipped"].size(), 1u) << ev.out;
    EXPECT_NE(j["skipped"][0]["file"].get<std::string>().find("fixed-batch-conv.onnx"), std::string::npos);
    EXPECT_NE(j["skipped"][0]["reason"].get<std::string>().find("named like 'batch'"), std::string::npos) << j["skipped"];
    EXPECT_NE(ev.err.find("skipped " + (s.dir / "fixed-batch-conv.onnx").string()), std::string::npos) << ev.err;

    Result table = runGraphopt("eval-policy --objective memory --test " + s.dir.string() + " --batch 4 --budget 20 --seeds 1");
    ASSERT_EQ(table.status, 0) << table.err;
    EXPECT_NE(table.out.find("skipped:           1 of 2 graphs could not be used"), std::string::npos) << table.out;

    // The file's own batch asked for: nothing to set, nothing wrong.
    Result same = runGraphopt("eval-policy --objective memory --test " + kFixed + " --batch 1 --budget 20 --seeds 1 --json");
    ASSERT_EQ(same.status, 0) << same.err;
    EXPECT_EQ(parse(same)["skipped"].size(), 0u);

    // None usable: one line naming each, exit 2, nothing evaluated.
    Result none = runGraphopt("eval-policy --test " + kFixed + "," + kFixed + " --batch 4 --budget 20 --seeds 1");
    EXPECT_EQ(none.status, 2);
    EXPECT_EQ(lineCount(none.err), 1) << none.err;
    EXPECT_NE(none.err.find("none of the 2 graphs can be used"), std::string::npos) << none.err;
    EXPECT_TRUE(none.out.empty()) << none.out;

    const std::string policy = s.file("policy.json");
    Result tr = runGraphopt("train-policy --models " + s.dir.string() + " --batch 4 --epochs 1 --seed 1 --budget 20 "
                            "--samples 1 --sizes 10 --graph-seeds 1 --hidden 8 --rounds 1 --threads 1 --json --no-store "
                            "--out " + policy);
    ASSERT_EQ(tr.status, 0) << tr.err;
    const nlohmann::json t = parse(tr);
    ASSERT_EQ(t["skipped"].size(), 1u) << tr.out;
    EXPECT_NE(t["skipped"][0]["file"].get<std::string>().find("fixed-batch-conv.onnx"), std::string::npos);
    EXPECT_NE(tr.err.find("trained without 1 input(s) it could not use"), std::string::npos) << tr.err;
}
