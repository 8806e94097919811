// The tuner comparison's protocol (tuning/TunerRace.h): the target is the best any run found,
// runs that never get there are charged twice their clock, speed-ups are taken per task and seed.
#include <gtest/gtest.h>

#include <sstream>

#include "tuning/TunerRace.h"

using namespace graphopt::tuning;

namespace {

// A run whose best-so-far is `best` after each measurement, one measurement every `step` seconds.
RaceRun run(const std::string& tuner, const std::string& task, uint64_t seed, std::vector<double> best,
            double step = 10) {
    RaceRun r;
    r.tuner = tuner;
    r.task = task;
    r.seed = seed;
    r.best = std::move(best);
    for (size_t i = 0; i < r.best.size(); ++i) r.clock.push_back(step * static_cast<double>(i + 1));
    return r;
}

}  // namespace

TEST(TunerRace, TargetIsTheBestOfEveryRunNotTheBaselines) {
    const std::vector<RaceRun> runs = {run("autotvm", "m:1", 1, {10, 50, 80}), run("release", "m:1", 1, {20, 100, 100}),
                                       run("random", "m:2", 1, {5, 6, 7})};
    const auto t = raceTargets(runs);
    EXPECT_DOUBLE_EQ(t.at("m:1"), 100);
    EXPECT_DOUBLE_EQ(t.at("m:2"), 7);
}

TEST(TunerRace, ARunThatNeverGetsThereIsChargedTwiceItsClock) {
    const RaceRun r = run("autotvm", "m:1", 1, {10, 50, 98.5, 98.9}, 10);  // 40 s, 4 measurements
    const RaceReach at97 = reachShare(r, 100, 0.97);
    EXPECT_TRUE(at97.reached);
    EXPECT_EQ(at97.measurements, 3);
    EXPECT_DOUBLE_EQ(at97.seconds, 30);
    const RaceReach at99 = reachShare(r, 100, 0.99);
    EXPECT_FALSE(at99.reached);
    EXPECT_EQ(at99.measurements, 8);
    EXPECT_DOUBLE_EQ(at99.seconds, 80);
    // exactly at the level counts as there
    EXPECT_TRUE(reachShare(run("x", "m:1", 1, {99}), 100, 0.99).reached);
}

TEST(TunerRace, SpeedUpsAreTakenPerTaskAndSeedAgainstTheBaseline) {
    // Task m:1, target 100. Seed 1: autotvm gets there at 50 s, release at 10 s (5x). Seed 2:
    // autotvm never does (charged 2 x 60 s), release at 40 s (3x). Seed 3: both at 30 s (1x).
    const std::vector<RaceRun> runs = {
        run("autotvm", "m:1", 1, {1, 2, 3, 4, 100, 100}), run("release", "m:1", 1, {100, 100, 100, 100, 100, 100}),
        run("autotvm", "m:1", 2, {1, 2, 3, 4, 5, 6}),     run("release", "m:1", 2, {1, 2, 3, 100, 100, 100}),
        run("autotvm", "m:1", 3, {1, 2, 100, 100, 100, 100}), run("release", "m:1", 3, {1, 2, 100, 100, 100, 100}),
    };
    const auto s = summarizeRace(runs, {"random", "autotvm", "release"});
    ASSERT_EQ(s.size(), 2u);  // random has no run: left out
    const RaceTunerSummary& release = s[1];
    EXPECT_EQ(release.tuner, "release");
    EXPECT_EQ(release.runs, 3);
    EXPECT_EQ(release.reached.at(0.99), 3);
    ASSERT_EQ(release.speedups.at(0.99).size(), 3u);
    EXPECT_DOUBLE_EQ(release.speedups.at(0.99)[0], 5);
    EXPECT_DOUBLE_EQ(release.speedups.at(0.99)[1], 3);
    EXPECT_DOUBLE_EQ(release.speedups.at(0.99)[2], 1);
    EXPECT_NEAR(release.shareAtLeast(0.99, 4), 1.0 / 3, 1e-12);
    EXPECT_NEAR(release.shareAtLeast(0.99, 1), 1.0, 1e-12);
    EXPECT_EQ(s[0].reached.at(0.99), 2);
    EXPECT_TRUE(s[0].speedups.empty());  // the baseline is not compared with itself
    // Fixed time: the shortest whole clock of the task's runs (60 s here), so finals equal it.
    EXPECT_NEAR(s[0].meanShareAtFixedTime, (1 + 0.06 + 1) / 3, 1e-12);

    const std::string report = raceReport(runs, {"autotvm", "release"});
    EXPECT_NE(report.find("release >= 4x faster than autotvm in >= 75 % of runs: missed (33 % of 3 runs"),
              std::string::npos)
        << report;
    EXPECT_NE(report.find("| m:1 | 100.0 | "), std::string::npos) << report;
    EXPECT_NE(report.find("2/3, "), std::string::npos) << report;  // autotvm: 2 of 3 seeds
}

TEST(TunerRace, BestAtAFixedTime) {
    const RaceRun r = run("x", "m:1", 1, {10, 20, 30}, 10);
    EXPECT_DOUBLE_EQ(r.bestAt(5), 0);
    EXPECT_DOUBLE_EQ(r.bestAt(20), 20);
    EXPECT_DOUBLE_EQ(r.bestAt(1000), 30);
}

TEST(TunerRace, ReadsTheBenchsCsvAndKeepsTheLongerRun) {
    std::istringstream first(
        "model,task,template,tuner,seed,measurement,clock_s,gflops,best_gflops,own_s\n"
        "resnet18,1,tiled,autotvm,1,1,0.5,10,10,0.01\n"
        "resnet18,1,tiled,autotvm,1,2,1.0,20,20,0.02\n");
    std::istringstream longer(
        "model,task,template,tuner,seed,measurement,clock_s,gflops,best_gflops\n"
        "resnet18,1,tiled,autotvm,1,1,0.5,10,10\n"
        "resnet18,1,tiled,autotvm,1,2,1.0,20,20\n"
        "resnet18,1,tiled,autotvm,1,3,1.5,5,20\n");
    std::vector<RaceRun> runs;
    readRaceCsv(first, "a.csv", runs);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].task, "resnet18:1");
    EXPECT_DOUBLE_EQ(runs[0].ownS, 0.02);
    readRaceCsv(longer, "b.csv", runs);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].best.size(), 3u);
    EXPECT_DOUBLE_EQ(runs[0].wallS(), 1.5);
}

TEST(TunerRace, AMalformedCsvNamesTheFileAndLine) {
    std::istringstream skipped(
        "model,task,template,tuner,seed,measurement,clock_s,gflops,best_gflops\n"
        "resnet18,1,tiled,autotvm,1,1,0.5,10,10\n"
        "resnet18,1,tiled,autotvm,1,3,1.5,5,20\n");
    std::vector<RaceRun> runs;
    try {
        readRaceCsv(skipped, "c.csv", runs);
        FAIL() << "a skipped measurement was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("c.csv:3"), std::string::npos) << e.what();
    }
    std::istringstream noColumn("model,task,tuner\n");
    EXPECT_THROW(readRaceCsv(noColumn, "d.csv", runs), std::runtime_error);
    std::istringstream empty("");
    EXPECT_THROW(readRaceCsv(empty, "e.csv", runs), std::runtime_error);
}

// A lucky single measurement (the winner's curse) decides the race until the top is re-measured:
// then the run whose kernel is really faster is the one that gets there.
TEST(TunerRace, ReMeasuredKernelsReplaceTheRunsSingleMeasurements) {
    std::istringstream csv(
        "model,task,template,tuner,seed,measurement,clock_s,gflops,best_gflops,own_s,config\n"
        "m,1,tiled,autotvm,1,1,10,90,90,0.1,7\n"
        "m,1,tiled,autotvm,1,2,20,104,104,0.2,8\n"  // config 8: lucky once
        "m,1,tiled,release,1,1,5,100,100,0.1,9\n"
        "m,1,tiled,release,1,2,9,0,100,0.2,10\n");  // a failed measurement
    std::vector<RaceRun> runs;
    readRaceCsv(csv, "race.csv", runs);
    ASSERT_EQ(runs.size(), 2u);
    ASSERT_EQ(runs[0].configs, (std::vector<int64_t>{7, 8}));
    EXPECT_DOUBLE_EQ(raceTargets(runs).at("m:1"), 104);
    EXPECT_FALSE(reachShare(runs[1], 104, 0.99).reached);

    // Re-measured on a machine now half as fast (the anchors, configs 7 and 11, say so): config 8
    // is a 97 GFLOP/s kernel in the race's units, config 9 a 101 one (medians of 3, and of 2).
    std::istringstream lines(
        "{\"task\":\"m:1\",\"config\":8,\"gflops\":48.5}\n"
        "{\"task\":\"m:1\",\"config\":7,\"gflops\":45,\"anchor\":true,\"single\":90}\n"
        "{\"task\":\"m:1\",\"config\":8,\"gflops\":48}\n"
        "{\"task\":\"m:1\",\"config\":11,\"gflops\":30,\"anchor\":true,\"single\":60}\n"
        "{\"task\":\"m:1\",\"config\":8,\"gflops\":49.5}\n"
        "{\"task\":\"m:1\",\"config\":9,\"gflops\":50}\n"
        "{\"task\":\"m:1\",\"config\":9,\"gflops\":51}\n"
        "{\"task\":\"m:2\",\"config\":8,\"gflops\":1}\n");
    const RemeasuredKernels k = readRemeasured(lines, "again.jsonl");
    EXPECT_EQ(k.at("m:1").anchors, 2);
    EXPECT_DOUBLE_EQ(k.at("m:1").drift, 0.5);
    EXPECT_EQ(k.at("m:1").kernels.size(), 2u);  // the anchors are not candidates
    EXPECT_DOUBLE_EQ(k.at("m:1").kernels.at(8), 97);
    EXPECT_DOUBLE_EQ(k.at("m:1").kernels.at(9), 101);
    EXPECT_DOUBLE_EQ(k.at("m:2").drift, 1);  // no anchors: taken as they are
    EXPECT_DOUBLE_EQ(k.at("m:2").kernels.at(8), 1);
    EXPECT_EQ(applyRemeasured(runs, k), 2u);
    EXPECT_EQ(runs[0].best, (std::vector<double>{90, 97}));
    EXPECT_EQ(runs[1].best, (std::vector<double>{101, 101}));
    EXPECT_DOUBLE_EQ(raceTargets(runs).at("m:1"), 101);
    const RaceReach release = reachShare(runs[1], 101, 0.99);
    EXPECT_TRUE(release.reached);
    EXPECT_DOUBLE_EQ(release.seconds, 5);
    EXPECT_FALSE(reachShare(runs[0], 101, 0.97).reached);

    // Runs read from a CSV without the config column are left as they were.
    std::vector<RaceRun> old = {run("autotvm", "m:1", 1, {90, 104})};
    EXPECT_EQ(applyRemeasured(old, k), 0u);
    EXPECT_EQ(old[0].best, (std::vector<double>{90, 104}));
}

TEST(TunerRace, AMalformedReMeasurementNamesTheFileAndLine) {
    std::istringstream lines(
        "{\"task\":\"m:1\",\"config\":8,\"gflops\":97}\n{\"task\":\"m:1\",\"config\":8}\n");
    std::istringstream anchor("{\"task\":\"m:1\",\"config\":8,\"gflops\":97,\"anchor\":true,\"single\":0}\n");
    EXPECT_THROW(readRemeasured(anchor, "a.jsonl"), std::runtime_error);
    try {
        readRemeasured(lines, "again.jsonl");
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("again.jsonl:2"), std::string::npos) << e.what();
    }
}
