// The run store on a bad day, through the programs that write it:
// - a full disk (RLIMIT_FSIZE on the `graphopt place` process: a write beyond the limit fails as
//   it does on a full file system) is reported in one line, exit status 1, and the database stays
//   intact with every run committed before, byte for byte as exported before;
// - a read-only database (a read-only bind mount when root, since root ignores file modes; file
//   modes otherwise) lists and shows its runs, refuses to start one with a message saying so, and
//   is not changed by a single byte;
// - the GUI's way of recording (RecordedRun in this process, as ui/BackgroundJob does) and the
//   CLI's (`graphopt place`) writing one database at the same time lose no event: both record the
//   same deterministic run, so their stored event lists must be equal, and as long as the list of
//   events this process saw.
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "CliSupport.h"
#include "graph/Loaders.h"
#include "placement/PlacementRun.h"
#include "placement/model/DeviceModel.h"
#include "store/RecordedRun.h"
#include "store/RunExport.h"
#include "store/RunStore.h"
#include "store/SqliteDatabase.h"

using namespace graphopt;
using namespace graphopt::testing;

namespace {

// `graphopt ARGS...` with its files limited to `maxFileBytes` (SIGXFSZ ignored, so a write past
// the limit fails with EFBIG, as one on a full disk fails with ENOSPC).
CliResult runGraphoptWithFileLimit(const TempDir& dir, const std::vector<std::string>& args, rlim_t maxFileBytes) {
    const std::string out = dir.file("limited.out"), err = dir.file("limited.err");
    pid_t pid = ::fork();
    if (pid == 0) {
        ::signal(SIGXFSZ, SIG_IGN);
        int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(o, 1);
        ::dup2(e, 2);
        rlimit limit{maxFileBytes, maxFileBytes};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        std::vector<std::string> argv = {graphoptBinary()};
        argv.insert(argv.end(), args.begin(), args.end());
        std::vector<char*> cargs;
        for (auto& a : argv) cargs.push_back(a.data());
        cargs.push_back(nullptr);
        ::execv(cargs[0], cargs.data());
        ::_exit(127);
    }
    CliResult r;
    r.status = waitChild(pid);
    r.out = readBytes(out);
    r.err = readBytes(err);
    return r;
}

int64_t fileSize(const std::string& path) {
    std::error_code ec;
    auto n = std::filesystem::file_size(path, ec);
    return ec ? 0 : int64_t(n);
}

// Makes `dir` read-only for this test: a read-only bind mount of it onto itself when we may mount
// (root in CI: root writes files whatever their modes), else file modes. Undone on destruction.
class ReadOnlyFolder {
public:
    explicit ReadOnlyFolder(const std::string& dir) : dir_(dir) {
        if (::geteuid() == 0) {
            if (::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) == 0) {
                mounted_ = true;
                if (::mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) == 0) return;
            }
            how_ = std::string("root, but cannot mount read-only: ") + std::strerror(errno);
            return;
        }
        for (const auto& e : std::filesystem::directory_iterator(dir)) ::chmod(e.path().c_str(), 0444);
        ::chmod(dir.c_str(), 0555);
        moded_ = true;
    }
    ~ReadOnlyFolder() {
        if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
        if (moded_) ::chmod(dir_.c_str(), 0755);
    }
    // Empty when the folder is read-only now, else why not.
    const std::string& failure() const { return how_; }

private:
    std::string dir_, how_;
    bool mounted_ = false, moded_ = false;
};

}  // namespace

TEST(StoreBadDay, FullDiskReportsOneLineExitsOneAndKeepsEveryCommittedRun) {
    TempDir dir;
    const std::string small = generateLayered(dir, "small.json", 40), big = generateLayered(dir, "big.json", 300);
    const std::string db = dir.file("runs.db");
    for (const char* engine : {"brkga", "random"}) {
        auto r = runGraphopt(dir, {"place", small, "--engine", engine, "--budget", "400", "--db", db});
        ASSERT_EQ(r.status, 0) << r.err;
    }
    nlohmann::json before;
    {
        RunStore store(db);
        for (int64_t id : {1, 2}) before.push_back(exportRunJson(store, id));
    }
    ASSERT_FALSE(std::filesystem::exists(db + "-wal"));  // checkpointed at the last close
    // Room for the database as it is and a little more: the run begins, then its events fill the
    // write-ahead log up to the limit, and the run stops there (its budget would take minutes).
    const rlim_t limit = rlim_t(fileSize(db) + 48 * 1024);
    auto r = runGraphoptWithFileLimit(dir, {"place", big, "--budget", "2000000", "--threads", "1", "--db", db}, limit);
    EXPECT_EQ(r.status, 1) << r.err;
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line:\n" << r.err;
    EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cannot write the run database"), std::string::npos) << r.err;

    // With room again: intact, every earlier run as it was, the cut-short run not `finished`.
    RunStore store(db);
    EXPECT_EQ(store.database().queryText("PRAGMA integrity_check"), "ok");
    EXPECT_EQ(store.database().queryInt("SELECT count(*) FROM pragma_foreign_key_check"), 0);
    auto runs = store.listRuns();
    ASSERT_GE(runs.size(), 2u);
    for (int64_t id : {1, 2}) EXPECT_EQ(exportRunJson(store, id), before[size_t(id - 1)]) << "run " << id;
    if (runs.size() == 3) {
        EXPECT_NE(runs[2].run.status, RunStatus::Finished);
        EXPECT_FALSE(store.result(runs[2].run.id));
        // What it stored is a prefix of its progress: no event missing in between.
        auto events = store.events(runs[2].run.id);
        for (size_t i = 1; i < events.size(); ++i) EXPECT_EQ(events[i].step, events[i - 1].step + 1);
    }
    auto list = runGraphopt(dir, {"runs", "list", "--db", db});
    EXPECT_EQ(list.status, 0) << list.err;
}

TEST(StoreBadDay, ReadOnlyDatabaseListsAndShowsButRefusesToStartARun) {
    TempDir dir;
    const std::string model = generateLayered(dir, "g.json", 40);
    const std::string folder = dir.file("store");
    std::filesystem::create_directory(folder);
    const std::string db = folder + "/runs.db";
    for (const char* engine : {"brkga", "random"}) {
        auto r = runGraphopt(dir, {"place", model, "--engine", engine, "--budget", "300", "--db", db});
        ASSERT_EQ(r.status, 0) << r.err;
    }
    const std::string bytes = readBytes(db);
    ReadOnlyFolder readOnly(folder);
    if (!readOnly.failure().empty()) GTEST_SKIP() << readOnly.failure();

    auto list = runGraphopt(dir, {"runs", "list", "--json", "--db", db});
    ASSERT_EQ(list.status, 0) << list.err;
    auto runs = nlohmann::json::parse(list.out);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0]["status"], "finished");
    EXPECT_EQ(runs[1]["engine"], "random");
    auto show = runGraphopt(dir, {"runs", "show", "2", "--db", db});
    EXPECT_EQ(show.status, 0) << show.err;
    {
        RunStore store(db);  // what the Runs tab does
        EXPECT_TRUE(store.readOnly());
        EXPECT_EQ(store.listRuns().size(), 2u);
        EXPECT_GT(store.events(1).size(), 0u);
    }

    auto place = runGraphopt(dir, {"place", model, "--budget", "300", "--db", db});
    EXPECT_NE(place.status, 0);
    EXPECT_EQ(place.err.find('\n'), place.err.size() - 1) << "not one line:\n" << place.err;
    EXPECT_NE(place.err.find("read-only"), std::string::npos) << place.err;
    EXPECT_NE(place.err.find("cannot start a run"), std::string::npos) << place.err;
    EXPECT_EQ(place.out, "");  // refused before it ran
    EXPECT_EQ(readBytes(db), bytes) << "the read-only database changed";
}

TEST(StoreBadDay, GuiAndCliRecordingAtOnceLoseNoEvent) {
    TempDir dir;
    const std::string model = generateLayered(dir, "g.json", 60), db = dir.file("runs.db");
    const std::string budget = "60000", seed = "11";
    // The CLI's run, and the same run recorded the GUI's way in this process, at the same time.
    pid_t cli = startGraphopt({"place", model, "--budget", budget, "--seed", seed, "--threads", "1", "--db", db});
    ASSERT_GT(cli, 0);
    // Start once the CLI's run is in the database, so that the two writers overlap.
    for (int i = 0; i < 600; ++i) {
        if (std::filesystem::exists(db) && RunStore(db).listRuns().size() == 1) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const Graph graph = loadGraph(model);
    RunSpec spec;
    spec.kind = "placement";
    spec.engine = "brkga";
    spec.objective = "runtime";
    spec.devices = DeviceModel::defaultPresetName();
    spec.budget = std::stoll(budget);
    spec.seed = std::stoull(seed);
    spec.threads = 1;
    PlacementRun run(graph, spec, model);
    std::vector<ProgressEvent> seen;
    RunReporter reporter;
    reporter.progress = [&](const ProgressEvent& e) { seen.push_back(e); };
    int64_t guiRun = 0;
    {
        RecordedRun recorded(run, db);
        recorded.execute(reporter);
        guiRun = *recorded.runId();
    }
    ASSERT_EQ(waitChild(cli), 0);
    ASSERT_GE(seen.size(), 200u) << "too few events to interleave";

    RunStore store(db);
    auto runs = store.listRuns();
    ASSERT_EQ(runs.size(), 2u);
    const int64_t cliRun = runs[0].run.id == guiRun ? runs[1].run.id : runs[0].run.id;
    auto gui = store.events(guiRun), cliEvents = store.events(cliRun);
    ASSERT_EQ(gui.size(), seen.size());
    ASSERT_EQ(cliEvents.size(), seen.size());
    for (size_t i = 0; i < seen.size(); ++i) {
        EXPECT_EQ(gui[i].step, seen[i].step) << i;
        EXPECT_EQ(gui[i].evaluations, seen[i].evaluations) << i;
        EXPECT_EQ(cliEvents[i].step, seen[i].step) << i;
        EXPECT_EQ(cliEvents[i].evaluations, seen[i].evaluations) << i;
        EXPECT_EQ(cliEvents[i].bestCost, seen[i].bestCost) << i;
    }
    for (const auto& s : runs) {
        EXPECT_EQ(s.run.status, RunStatus::Finished);
        EXPECT_TRUE(store.result(s.run.id));
    }
    EXPECT_EQ(store.result(guiRun)->cost, store.result(cliRun)->cost);
    EXPECT_EQ(store.database().queryText("PRAGMA integrity_check"), "ok");
}
