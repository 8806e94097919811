// `graphopt tune` streams its measurements to the store as they complete: Ctrl-C during
// `tune --all` stores the running task as `cancelled` with its measurements so far and starts no
// other task (exit 130); a `tune` killed with SIGKILL leaves an `interrupted` run holding every
// measurement it had reported as done.
#include <chrono>
#include <csignal>
#include <fstream>
#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include "CliSupport.h"
#include "placement/regal/TrainingRun.h"
#include "store/RecordedRun.h"
#include "store/RunStore.h"
#include "store/SqliteDatabase.h"

using namespace graphopt;
using namespace graphopt::testing;

namespace {

const std::string kResnet = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx";

// Waits (up to a minute) until run 1 of `db` has at least `n` measurements; returns how many.
size_t waitForMeasurements(const std::string& db, size_t n) {
    size_t seen = 0;
    for (int i = 0; i < 600 && seen < n; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (!std::filesystem::exists(db)) continue;
        RunStore store(db);
        if (store.findRun(1)) seen = store.measurements(1).size();
    }
    return seen;
}

// The largest "N/T measured" progress count `graphopt tune` printed on stderr.
int64_t lastReportedCount(const std::string& errFile) {
    const std::string err = readBytes(errFile);
    static const std::regex progress(R"((\d+)/\d+ measured)");
    int64_t last = 0;
    for (auto it = std::sregex_iterator(err.begin(), err.end(), progress); it != std::sregex_iterator(); ++it)
        last = std::max<int64_t>(last, std::stoll((*it)[1]));
    return last;
}

}  // namespace

TEST(TuneRecording, CtrlCDuringTuneAllStoresTheRunningTaskAsCancelledAndStartsNoOther) {
    TempDir dir;
    const std::string db = dir.file("runs.db");
    // Far more measurements than the test waits for, one configuration per batch.
    pid_t pid = startGraphopt({"tune", kResnet, "--all", "--tuner", "random", "--measurer", "sim", "--trials", "1000000",
                               "--measure-batch", "1", "--db", db});
    ASSERT_GE(waitForMeasurements(db, 20), 20u);
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    EXPECT_EQ(waitChild(pid), 130);

    RunStore store(db);
    const auto runs = store.listRuns();
    ASSERT_EQ(runs.size(), 1u) << "a task after the interrupted one was started";
    const auto& run = runs[0].run;
    EXPECT_EQ(run.kind, "tuning");
    EXPECT_EQ(run.status, RunStatus::Cancelled);
    const auto ms = store.measurements(run.id);
    EXPECT_GE(ms.size(), 20u);
    EXPECT_LT(ms.size(), 1000000u);
    // The result names the best of exactly these measurements.
    const auto result = store.result(run.id);
    ASSERT_TRUE(result);
    double best = 0;
    for (const auto& m : ms) {
        EXPECT_TRUE(m.ok);
        EXPECT_GE(m.config, 0);
        EXPECT_FALSE(m.knobs.empty());
        best = std::max(best, m.gflops);
    }
    EXPECT_DOUBLE_EQ(result->costs["best_gflops"].get<double>(), best);
    EXPECT_EQ(result->costs["status"], "cancelled");
}

TEST(TuneRecording, SigkillLeavesAnInterruptedRunWithEveryMeasurementReportedBeforeTheKill) {
    TempDir dir;
    const std::string db = dir.file("runs.db"), err = dir.file("tune.err");
    pid_t pid = startGraphopt({"tune", kResnet, "--task", "1", "--tuner", "random", "--measurer", "sim", "--trials",
                               "1000000", "--measure-batch", "4", "--db", db},
                              err);
    ASSERT_GE(waitForMeasurements(db, 40), 40u);
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    EXPECT_EQ(waitChild(pid), -1);
    // `tune` prints "N/T measured" after the batch's measurements are committed to the store.
    const int64_t reported = lastReportedCount(err);
    ASSERT_GE(reported, 40);

    RunStore store(db);  // this open finds the dead writer's run
    ASSERT_EQ(store.interruptedAtOpen(), std::vector<int64_t>{1});
    EXPECT_EQ(store.run(1).run.status, RunStatus::Interrupted);
    const auto ms = store.measurements(1);
    EXPECT_GE(int64_t(ms.size()), reported);
    for (size_t i = 0; i < ms.size(); ++i) EXPECT_EQ(ms[i].batch, int(i / 4) + 1) << i;
    EXPECT_EQ(store.database().queryText("PRAGMA integrity_check"), "ok");
}

TEST(TuneRecording, TrainingIsRecordedEpochByEpoch) {
    TempDir dir;
    const std::string db = dir.file("runs.db"), policy = dir.file("policy.json");
    auto r = runGraphopt(dir, {"train-policy", "--objective", "memory", "--epochs", "2", "--sizes", "30", "--graph-seeds",
                               "1", "--models", "none", "--budget", "100", "--samples", "2", "--out", policy, "--db", db});
    ASSERT_EQ(r.status, 0) << r.err;
    RunStore store(db);
    const auto runs = store.listRuns();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].run.kind, "training");
    EXPECT_EQ(runs[0].run.status, RunStatus::Finished);
    const auto events = store.events(runs[0].run.id);
    ASSERT_EQ(events.size(), 2u);
    for (size_t i = 0; i < events.size(); ++i) {
        EXPECT_EQ(events[i].step, int64_t(i) + 1);
        for (const char* key : {"mean_reward", "validation_win_rate", "validation_mean_improvement", "entropy"})
            EXPECT_TRUE(events[i].values.contains(key)) << key;
    }
    const auto result = store.result(runs[0].run.id);
    ASSERT_TRUE(result && result->cost);
    EXPECT_DOUBLE_EQ(*result->cost, 1.0 - result->costs["validation_mean_improvement"].get<double>());
    EXPECT_EQ(result->costs["policy"], policy);
    EXPECT_TRUE(std::filesystem::exists(policy));
}

TEST(TuneRecording, EachEpochIsInTheStoreBeforeTheNextOneStarts) {
    TempDir dir;
    const std::string db = dir.file("runs.db");
    RunSpec spec;
    spec.objective = "runtime";
    spec.budget = 100;
    spec.seed = 3;
    spec.params = {{"epochs", 3},           {"sizes", "30"},   {"graph_seeds", 1}, {"models", "none"},
                   {"samples", 1},          {"out", dir.file("p.json")}};
    regal::TrainingRun run(spec);
    RecordedRun recorded(run, db);
    std::vector<size_t> storedAtEpoch;
    RunReporter reporter;
    reporter.progress = [&](const ProgressEvent& e) {
        // Reported after the previous epochs were committed: the store already holds them.
        RunStore store(db);
        storedAtEpoch.push_back(store.events(*recorded.runId()).size());
        EXPECT_EQ(e.step, int64_t(storedAtEpoch.size()));
    };
    const auto result = recorded.executeAs<regal::TrainingResult>(reporter);
    EXPECT_EQ(result.status(), RunStatus::Finished);
    ASSERT_EQ(storedAtEpoch.size(), 3u);
    for (size_t i = 0; i < storedAtEpoch.size(); ++i) EXPECT_GE(storedAtEpoch[i], i) << "epoch " << i + 1;
    RunStore store(db);
    EXPECT_EQ(store.events(*recorded.runId()).size(), 3u);
}
