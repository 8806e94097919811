// A run whose process died is marked `interrupted` at the next open, with what it wrote kept; a
// run still alive in another process (the GUI and a CLI at once) is left alone.
#include <algorithm>

#include <gtest/gtest.h>

#include "StoreTestSupport.h"
#include "store/RunRecorder.h"
#include "store/RunStore.h"
#include "store/StoreError.h"

using namespace graphopt;
using namespace graphopt::testing;

namespace {

// One byte through a pipe: a barrier between parent and child.
struct Pipe {
    int fd[2] = {-1, -1};
    Pipe() {
        if (::pipe(fd) != 0) throw std::runtime_error("pipe failed");
    }
    ~Pipe() {
        ::close(fd[0]);
        ::close(fd[1]);
    }
    void signal() {
        char c = 1;
        (void)!::write(fd[1], &c, 1);
    }
    bool wait() {
        char c;
        return ::read(fd[0], &c, 1) == 1;
    }
};

}  // namespace

TEST(InterruptedRun, DeadWriterIsMarkedInterruptedAndItsEventsKept) {
    TempDir dir;
    const std::string path = dir.file("runs.db");
    int64_t finishedId;
    {
        RunRecorder earlier(path, sampleSpec("random"), sampleGraph());
        earlier.record(sampleEvent(0));
        earlier.finish({1.0, {}, {}, {}});
        finishedId = earlier.runId();
    }
    pid_t child = forkChild([&] {
        RunRecorder rec(path, sampleSpec(), sampleGraph());
        for (int i = 0; i < 25; ++i) rec.record(sampleEvent(i));
        rec.flush();
        ::_exit(0);  // dies without finish(), without the destructor: like a crash
        return 0;
    });
    ASSERT_EQ(waitChild(child), 0);

    RunStore store(path);
    auto runs = store.listRuns();
    ASSERT_EQ(runs.size(), 2u);
    const RunSummary& dead = runs[1];
    EXPECT_EQ(dead.run.status, RunStatus::Interrupted);
    EXPECT_EQ(store.interruptedAtOpen(), std::vector<int64_t>{dead.run.id});
    EXPECT_EQ(dead.run.ownerPid, child);
    EXPECT_NE(dead.run.error.find("pid " + std::to_string(child)), std::string::npos) << dead.run.error;
    EXPECT_FALSE(dead.run.endedAt.empty());
    EXPECT_EQ(dead.eventCount, 25);
    auto events = store.events(dead.run.id);
    ASSERT_EQ(events.size(), 25u);
    EXPECT_EQ(events[24].values, sampleEvent(24).values);
    // The earlier run is untouched.
    EXPECT_EQ(store.run(finishedId).run.status, RunStatus::Finished);
    // Marked once: the next open finds nothing more to do.
    RunStore again(path);
    EXPECT_TRUE(again.interruptedAtOpen().empty());
    EXPECT_EQ(again.run(dead.run.id).run.status, RunStatus::Interrupted);
}

TEST(InterruptedRun, RunLiveInAnotherProcessIsLeftAlone) {
    TempDir dir;
    const std::string path = dir.file("runs.db");
    { RunStore create(path); }
    Pipe started, mayFinish;
    pid_t child = forkChild([&] {
        RunRecorder rec(path, sampleSpec(), std::nullopt);
        for (int i = 0; i < 10; ++i) rec.record(sampleEvent(i));
        rec.flush();
        started.signal();
        if (!mayFinish.wait()) return 4;
        for (int i = 10; i < 20; ++i) rec.record(sampleEvent(i));
        rec.finish({0.5, {}, {}, {}});
        return 0;
    });
    ASSERT_TRUE(started.wait());
    int64_t id;
    {
        RunStore store(path);  // the GUI opening while the CLI runs
        ASSERT_EQ(store.listRuns().size(), 1u);
        id = store.listRuns()[0].run.id;
        EXPECT_EQ(store.run(id).run.status, RunStatus::Running);
        EXPECT_TRUE(store.interruptedAtOpen().empty());
        EXPECT_TRUE(store.markInterruptedRuns().empty());
        EXPECT_THROW(store.deleteRun(id), StoreError);
    }
    mayFinish.signal();
    ASSERT_EQ(waitChild(child), 0);
    RunStore store(path);
    EXPECT_EQ(store.run(id).run.status, RunStatus::Finished);
    EXPECT_EQ(store.events(id).size(), 20u);
}

TEST(InterruptedRun, ZombieWriterCountsAsDead) {
    // A child that exited but is not reaped yet still has a pid; it can write nothing more.
    TempDir dir;
    const std::string path = dir.file("runs.db");
    Pipe done;
    pid_t child = forkChild([&] {
        RunStore store(path);
        store.beginRun(sampleSpec(), std::nullopt);
        done.signal();
        return 0;
    });
    ASSERT_TRUE(done.wait());
    // Wait for the exit without reaping it.
    siginfo_t info{};
    ASSERT_EQ(::waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT), 0);
    RunStore store(path);
    EXPECT_EQ(store.interruptedAtOpen().size(), 1u);
    waitChild(child);
}

TEST(InterruptedRun, ReusedPidIsNotMistakenForTheWriter) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    ProcessIdentity me = ProcessIdentity::current();
    ASSERT_GE(me.startTicks, 0);
    ProcessIdentity earlierHolderOfMyPid = me;
    earlierHolderOfMyPid.startTicks = me.startTicks - 1;
    int64_t stale = store.beginRun(sampleSpec(), std::nullopt, "", earlierHolderOfMyPid);
    int64_t mine = store.beginRun(sampleSpec(), std::nullopt, "", me);
    ProcessIdentity pid1 = me;  // init: alive, but started long before this run's writer did
    pid1.pid = 1;
    int64_t reused = store.beginRun(sampleSpec(), std::nullopt, "", pid1);
    ProcessIdentity otherBoot = me;
    otherBoot.bootId = "00000000-0000-0000-0000-000000000000";
    int64_t beforeReboot = store.beginRun(sampleSpec(), std::nullopt, "", otherBoot);
    ProcessIdentity otherHost = me;
    otherHost.host = "some-other-machine";
    otherHost.pid = 999999;
    int64_t remote = store.beginRun(sampleSpec(), std::nullopt, "", otherHost);

    auto marked = store.markInterruptedRuns();
    std::sort(marked.begin(), marked.end());
    EXPECT_EQ(marked, (std::vector<int64_t>{stale, reused, beforeReboot}));
    EXPECT_EQ(store.run(mine).run.status, RunStatus::Running);
    // Another machine sharing the file: we cannot know, so we do not touch it.
    EXPECT_EQ(store.run(remote).run.status, RunStatus::Running);
}
