// Two processes (and threads within one) writing runs into one database at the same time: both
// complete and nothing is lost.
#include <thread>

#include <gtest/gtest.h>

#include "StoreTestSupport.h"
#include "store/RunRecorder.h"
#include "store/RunStore.h"
#include "store/SqliteDatabase.h"

using namespace graphopt;
using namespace graphopt::testing;

namespace {

constexpr int kRunsPerWriter = 12;
constexpr int kEventsPerRun = 300;

// Writes kRunsPerWriter runs with a short batch interval, so the writers' transactions interleave
// many times. The engine name tells the writers apart.
int writeRuns(const std::string& path, const std::string& engine) try {
    for (int r = 0; r < kRunsPerWriter; ++r) {
        RunRecorder rec(path, sampleSpec(engine, uint64_t(r)), sampleGraph(), "", std::chrono::milliseconds(1));
        for (int i = 0; i < kEventsPerRun; ++i) {
            rec.record(sampleEvent(i));
            if (i % 50 == 0) std::this_thread::yield();
        }
        rec.finish({double(r), {{"evaluations", kEventsPerRun}}, {{"n", r}}, nullptr});
        if (!rec.lastError().empty()) return 5;
    }
    return 0;
} catch (const std::exception& e) {
    ADD_FAILURE() << engine << ": " << e.what();
    return 7;
}

void expectAllRunsComplete(const std::string& path, const std::vector<std::string>& engines) {
    RunStore store(path);
    EXPECT_EQ(store.database().queryInt("SELECT count(*) FROM graphs"), 1);
    for (const auto& engine : engines) {
        auto runs = store.listRuns({.engine = engine});
        ASSERT_EQ(runs.size(), size_t(kRunsPerWriter)) << engine;
        for (int r = 0; r < kRunsPerWriter; ++r) {
            const auto& s = runs[size_t(r)];
            EXPECT_EQ(s.run.status, RunStatus::Finished);
            EXPECT_EQ(s.run.seed, uint64_t(r));
            ASSERT_EQ(s.eventCount, kEventsPerRun) << engine << " run " << r;
            auto events = store.events(s.run.id);
            for (int i = 0; i < kEventsPerRun; ++i) ASSERT_EQ(events[size_t(i)].step, i);  // in order
            EXPECT_EQ(store.result(s.run.id)->placement["n"], r);
        }
    }
    EXPECT_EQ(store.database().queryText("PRAGMA integrity_check"), "ok");
}

}  // namespace

TEST(ConcurrentWriters, TwoProcessesWritingAtOnceLoseNothing) {
    TempDir dir;
    const std::string path = dir.file("runs.db");
    // Both start on a file that does not exist yet: creation and migration race too.
    int go[2];
    ASSERT_EQ(::pipe(go), 0);
    auto writer = [&](const char* engine) {
        return forkChild([&, engine] {
            char c;
            if (::read(go[0], &c, 1) != 1) return 6;
            return writeRuns(path, engine);
        });
    };
    pid_t a = writer("brkga");
    pid_t b = writer("random");
    ASSERT_EQ(::write(go[1], "ab", 2), 2);  // release both at once
    EXPECT_EQ(waitChild(a), 0);
    EXPECT_EQ(waitChild(b), 0);
    ::close(go[0]);
    ::close(go[1]);
    expectAllRunsComplete(path, {"brkga", "random"});
}

TEST(ConcurrentWriters, ThreadsOfOneProcessWithTheirOwnRecorders) {
    TempDir dir;
    const std::string path = dir.file("runs.db");
    std::thread t1([&] { EXPECT_EQ(writeRuns(path, "local"), 0); });
    std::thread t2([&] { EXPECT_EQ(writeRuns(path, "heft"), 0); });
    t1.join();
    t2.join();
    expectAllRunsComplete(path, {"local", "heft"});
}
