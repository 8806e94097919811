// `graphopt place` records its runs: a run killed with SIGKILL mid-way is found `interrupted` with
// its events so far and the database intact; two `place` processes sharing one database both
// land; --no-store records nothing.
#include <chrono>
#include <csignal>
#include <thread>

#include <gtest/gtest.h>

#include "CliSupport.h"
#include "store/RunExport.h"
#include "store/RunStore.h"
#include "store/SqliteDatabase.h"

using namespace graphopt;
using namespace graphopt::testing;

TEST(PlaceRecording, FinishedRunIsStoredWithEventsAndResult) {
    TempDir dir;
    const std::string model = generateLayered(dir, "g.json", 60), db = dir.file("runs.db");
    auto r = runGraphopt(dir, {"place", model, "--budget", "800", "--seed", "5", "--json", "--db", db});
    ASSERT_EQ(r.status, 0) << r.err;
    auto out = nlohmann::json::parse(r.out);
    RunStore store(db);
    auto runs = store.listRuns();
    ASSERT_EQ(runs.size(), 1u);
    const auto& s = runs[0];
    EXPECT_EQ(out["run_id"], s.run.id);
    EXPECT_EQ(s.run.status, RunStatus::Finished);
    EXPECT_EQ(s.run.engine, "brkga");
    EXPECT_EQ(s.run.kind, "placement");
    EXPECT_EQ(s.run.seed, 5u);
    EXPECT_EQ(s.run.spec["budget"], 800);
    EXPECT_GT(s.eventCount, 0);
    auto result = store.result(s.run.id);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->cost, out["cost"].get<double>());
    EXPECT_EQ(result->placement, out["placement"]);
    // The full schedule is stored (the GUI redraws the Gantt chart from it); its order is the
    // order the CLI printed.
    ASSERT_TRUE(result->schedule.contains("ops"));
    nlohmann::json order = nlohmann::json::array();
    for (const auto& v : result->schedule["order"]) order.push_back(result->schedule["node_names"][v.get<size_t>()]);
    EXPECT_EQ(order, out["order"]);
    EXPECT_EQ(result->costs["peak_bytes"], out["peak_bytes"]);
    auto graph = store.graph(*s.run.graphId);
    ASSERT_TRUE(graph);
    EXPECT_EQ(graph->nodes, 60);
}

TEST(PlaceRecording, NoStoreRecordsNothing) {
    TempDir dir;
    const std::string model = generateLayered(dir, "g.json", 30), db = dir.file("runs.db");
    auto r = runGraphopt(dir, {"place", model, "--budget", "200", "--no-store", "--db", db});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(PlaceRecording, KilledRunIsInterruptedWithItsEventsAndTheDatabaseIntact) {
    TempDir dir;
    const std::string small = generateLayered(dir, "small.json", 50), big = generateLayered(dir, "big.json", 5000);
    const std::string db = dir.file("runs.db");
    // Earlier runs that must survive the crash unchanged.
    for (const char* engine : {"brkga", "random"}) {
        auto r = runGraphopt(dir, {"place", small, "--engine", engine, "--budget", "500", "--db", db});
        ASSERT_EQ(r.status, 0) << r.err;
    }
    nlohmann::json before;
    {
        RunStore store(db);
        for (int64_t id : {1, 2}) before.push_back(exportRunJson(store, id));
    }

    pid_t pid = startGraphopt({"place", big, "--budget", "1000000000", "--threads", "1", "--db", db});
    ASSERT_GT(pid, 0);
    // Wait until the long run has stored some progress, then kill it without warning.
    int64_t seenEvents = 0;
    for (int i = 0; i < 600 && seenEvents < 3; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        RunStore store(db);
        if (auto run = store.findRun(3)) {
            EXPECT_EQ(run->run.status, RunStatus::Running);  // alive: not marked by this open
            seenEvents = run->eventCount;
        }
    }
    ASSERT_GE(seenEvents, 3) << "the long run stored no progress within 60 s";
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status));

    auto r = runGraphopt(dir, {"runs", "list", "--json", "--db", db});
    ASSERT_EQ(r.status, 0) << r.err;
    auto list = nlohmann::json::parse(r.out);
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[2]["id"], 3);
    EXPECT_EQ(list[2]["status"], "interrupted");
    EXPECT_GE(list[2]["events"].get<int64_t>(), seenEvents);
    EXPECT_EQ(list[0]["status"], "finished");
    EXPECT_EQ(list[1]["status"], "finished");

    RunStore store(db);
    EXPECT_EQ(store.database().queryText("PRAGMA integrity_check"), "ok");
    EXPECT_EQ(store.database().queryInt("SELECT count(*) FROM pragma_foreign_key_check"), 0);
    for (int64_t id : {1, 2}) EXPECT_EQ(exportRunJson(store, id), before[size_t(id - 1)]) << "run " << id;
    auto events = store.events(3);
    ASSERT_GE(events.size(), size_t(seenEvents));
    for (size_t i = 1; i < events.size(); ++i) EXPECT_LE(events[i].bestCost, events[i - 1].bestCost);
    EXPECT_FALSE(store.result(3));
    r = runGraphopt(dir, {"runs", "show", "3", "--db", db});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("interrupted"), std::string::npos) << r.out;
}

TEST(PlaceRecording, TwoPlaceProcessesShareOneDatabase) {
    TempDir dir;
    const std::string model = generateLayered(dir, "g.json", 400), db = dir.file("runs.db");
    std::vector<pid_t> pids;
    for (int k = 0; k < 2; ++k)
        for (const char* engine : {"brkga", "random"})
            pids.push_back(startGraphopt({"place", model, "--engine", engine, "--budget", "3000", "--seed",
                                          std::to_string(k + 1), "--threads", "1", "--db", db}));
    for (pid_t pid : pids) EXPECT_EQ(waitChild(pid), 0);
    RunStore store(db);
    auto runs = store.listRuns();
    ASSERT_EQ(runs.size(), 4u);
    for (const auto& s : runs) {
        EXPECT_EQ(s.run.status, RunStatus::Finished) << s.run.id;
        EXPECT_GT(s.eventCount, 0) << s.run.id;
        EXPECT_TRUE(store.result(s.run.id)) << s.run.id;
    }
    EXPECT_EQ(store.database().queryInt("SELECT count(*) FROM graphs"), 1);
    EXPECT_EQ(store.database().queryText("PRAGMA integrity_check"), "ok");
}

TEST(PlaceRecording, SigintIsStoredAsCancelledWithTheBestSoFar) {
    TempDir dir;
    const std::string model = generateLayered(dir, "g.json", 2000), db = dir.file("runs.db");
    pid_t pid = startGraphopt({"place", model, "--budget", "1000000000", "--threads", "1", "--db", db});
    int64_t seen = 0;
    for (int i = 0; i < 600 && seen < 2; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        RunStore store(db);
        if (auto run = store.findRun(1)) seen = run->eventCount;
    }
    ASSERT_GE(seen, 2);
    ::kill(pid, SIGINT);
    EXPECT_EQ(waitChild(pid), 130);  // interrupted, documented in `graphopt --help`
    RunStore store(db);
    EXPECT_EQ(store.run(1).run.status, RunStatus::Cancelled);
    EXPECT_TRUE(store.result(1));
}

TEST(PlaceRecording, CorruptDatabaseStopsPlaceBeforeItRunsAndStaysUntouched) {
    TempDir dir;
    const std::string model = generateLayered(dir, "g.json", 30), db = dir.file("runs.db");
    writeBytes(db, "not a database\n");
    auto r = runGraphopt(dir, {"place", model, "--budget", "200", "--db", db});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
    EXPECT_EQ(readBytes(db), "not a database\n");
}
