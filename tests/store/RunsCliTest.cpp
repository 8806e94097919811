// `graphopt runs ...` end to end: the binary on a database prepared through the store.
#include <algorithm>

#include <gtest/gtest.h>

#include <iterator>
#include <sstream>

#include "CliSupport.h"
#include "store/RunStore.h"
#include "store/SqliteDatabase.h"
#include "store/StoreSchema.h"

using namespace graphopt;
using namespace graphopt::testing;

namespace {

class RunsCli : public ::testing::Test {
protected:
    void SetUp() override {
        db = dir.file("runs.db");
        RunStore store(db);
        int64_t g = store.addGraph(sampleGraph("resnet18"));
        for (int r = 0; r < 3; ++r) {
            int64_t id = store.beginRun(sampleSpec(r == 1 ? "random" : "brkga", uint64_t(r + 1)), g);
            std::vector<ProgressEvent> events;
            for (int i = 0; i < 10; ++i) events.push_back(sampleEvent(i + r));
            store.appendEvents(id, events);
            store.setResult(id, {0.5 + r, {{"runtime_s", 0.5 + r}, {"peak_bytes", 1000 * (r + 1)}}, {{"a", 0}}, {"a"}});
            store.endRun(id, RunStatus::Finished);
        }
    }
    CliResult runs(std::vector<std::string> args) {
        args.insert(args.begin(), "runs");
        args.push_back("--db");
        args.push_back(db);
        return runGraphopt(dir, args);
    }
    TempDir dir;
    std::string db;
};

}  // namespace

TEST_F(RunsCli, ListAsTableAndJsonWithFilters) {
    auto r = runs({"list"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("finished"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("resnet18"), std::string::npos) << r.out;

    r = runs({"list", "--engine", "brkga", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0]["id"], 1);
    EXPECT_EQ(j[1]["id"], 3);
    EXPECT_EQ(j[0]["events"], 10);
    EXPECT_EQ(j[0]["status"], "finished");

    r = runs({"list", "--graph", "resnet18", "--engine", "random", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out).size(), 1u);
    r = runs({"list", "--graph", "nope", "--json"});
    EXPECT_EQ(nlohmann::json::parse(r.out).size(), 0u);
}

TEST_F(RunsCli, ShowTextAndJson) {
    auto r = runs({"show", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("run 2: placement random"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("runtime_s=1.5"), std::string::npos) << r.out;
    r = runs({"show", "2", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["engine"], "random");
    EXPECT_EQ(j["events"], 10);
    EXPECT_EQ(j["spec"]["seed"], 2);
    EXPECT_EQ(j["result"]["costs"]["peak_bytes"], 2000);
    EXPECT_EQ(j["graph"]["nodes"], 69);
}

TEST_F(RunsCli, CompareAlignsCurvesByEvaluations) {
    auto r = runs({"compare", "1", "2", "3"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("best so far, aligned by evaluations"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("peak_bytes"), std::string::npos) << r.out;
    r = runs({"compare", "1", "3", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["runs"].size(), 2u);
    // Run 1 has events at 64..640, run 3 at 192..768: the union is 64..768 every 64.
    EXPECT_EQ(j["curves"]["evaluations"].size(), 12u);
    EXPECT_TRUE(j["curves"]["runs"][1]["best"][0].is_null());  // run 3 starts later
    EXPECT_EQ(j["runs"][1]["result"]["cost"], 2.5);
}

// A run over a device's memory has a penalised cost, not a score: compare ranks it last, prints
// why it is infeasible instead of the number, and marks it best nowhere, however low its number.
TEST_F(RunsCli, CompareRanksAnInfeasibleRunLastAndPrintsItAsInfeasible) {
    int64_t over = 0;
    {
        RunStore store(db);
        const int64_t g = store.addGraph(sampleGraph("resnet18"));
        over = store.beginRun(sampleSpec("brkga", 9), g);
        store.setResult(over, {0.1,
                               {{"runtime_s", 0.1},
                                {"feasible", false},
                                {"over_limit_bytes", {{"gpu0", 0}, {"gpu1", int64_t(3) << 30}}}},
                               {{"a", 0}},
                               {"a"}});
        store.endRun(over, RunStatus::Finished);
    }
    auto r = runs({"compare", "1", std::to_string(over), "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ranking"], (nlohmann::json{1, over}));
    EXPECT_FALSE(j["runs"][1]["feasible"].get<bool>());
    EXPECT_TRUE(j["runs"][0]["feasible"].get<bool>());
    for (const auto& f : j["figures"])
        if (f["name"] == "best cost") EXPECT_EQ(f["best_run"], 1) << f.dump();
    r = runs({"compare", "1", std::to_string(over)});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("infeasible (gpu1 over by"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("2 (infeasible)"), std::string::npos) << r.out;
}

TEST_F(RunsCli, CompareKeepsLongNamesAndValuesApart) {
    {
        RunStore store(db);
        const int64_t g = store.addGraph(sampleGraph("efficientnet_b3_with_a_much_longer_file_name"));
        const int64_t id = store.beginRun(sampleSpec("brkga", 9), g);
        RunResult result;
        result.cost = 1.0;
        result.costs = {{"best_validation_mean_improvement_of_a_long_figure", 0.123456789}};
        store.setResult(id, result);
        store.endRun(id, RunStatus::Finished);
    }
    auto r = runs({"compare", "1", "4"});
    ASSERT_EQ(r.status, 0) << r.err;
    // Every row of the table has its label and one cell per run, however long they are.
    std::istringstream lines(r.out);
    std::string line;
    int checked = 0;
    while (std::getline(lines, line)) {
        if (line.rfind("graph ", 0) == 0 || line.rfind("best_validation_mean_improvement_of_a_long_figure", 0) == 0) {
            std::istringstream cells(line);
            std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
            EXPECT_EQ(words.size(), 3u) << line;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 2) << r.out;
    // The list keeps the long graph name and the seed after it apart too.
    r = runs({"list"});
    ASSERT_EQ(r.status, 0) << r.err;
    bool found = false;
    std::istringstream listLines(r.out);
    while (std::getline(listLines, line))
        if (line.find("efficientnet_b3_with_a_much_longer_file_name") != std::string::npos) {
            found = true;
            EXPECT_NE(line.find("efficientnet_b3_with_a_much_longer_file_name  "), std::string::npos) << line;
        }
    EXPECT_TRUE(found) << r.out;
}

TEST_F(RunsCli, ExportCsvAndJsonToFiles) {
    const std::string csv = dir.file("run1.csv"), json = dir.file("run1.json");
    auto r = runs({"export", "1", "--csv", "--out", csv});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = readBytes(csv);
    EXPECT_EQ(text.rfind("record,step,evaluations,best_cost,elapsed_s,json\n", 0), 0u);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 12);  // header, 10 events, result
    r = runs({"export", "1", "--json", "--out", json});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(readBytes(json));
    EXPECT_EQ(j["events"].size(), 10u);
    EXPECT_EQ(j["events"][3]["values"], sampleEvent(3).values);
    EXPECT_EQ(j["result"]["placement"]["a"], 0);
    r = runs({"export", "1", "--json"});  // to stdout
    EXPECT_EQ(nlohmann::json::parse(r.out)["run"]["id"], 1);
}

TEST_F(RunsCli, DeleteRemovesOneRun) {
    auto r = runs({"delete", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    r = runs({"list", "--json"});
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[1]["id"], 3);
    RunStore store(db);
    EXPECT_TRUE(store.events(2).empty());
}

TEST_F(RunsCli, MistakesAreOneLineAndExitTwo) {
    for (auto args : std::vector<std::vector<std::string>>{{"show", "99"},
                                                           {"show", "abc"},
                                                           {"compare", "1"},
                                                           {"export", "1"},
                                                           {"export", "1", "--csv", "--json"},
                                                           {"delete", "99"},
                                                           {"frobnicate"},
                                                           {"list", "--bogus"}}) {
        auto r = runs(args);
        EXPECT_EQ(r.status, 2) << args[0];
        EXPECT_TRUE(r.out.empty()) << r.out;
        ASSERT_FALSE(r.err.empty()) << args[0];
        EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // exactly one line
    }
    auto r = runGraphopt(dir, {"runs", "show", "1", "--db", dir.file("missing.db")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("missing.db"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("missing.db")));
}

TEST_F(RunsCli, CorruptOrNewerDatabaseIsRefusedUntouched) {
    const std::string bad = dir.file("notes.db");
    writeBytes(bad, "my notes\n");
    auto r = runGraphopt(dir, {"runs", "list", "--db", bad});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
    EXPECT_EQ(readBytes(bad), "my notes\n");

    {
        RunStore store(db);
        store.database().exec("PRAGMA user_version = " + std::to_string(latestStoreSchemaVersion() + 1));
    }
    const std::string before = readBytes(db);
    r = runs({"list"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("newer"), std::string::npos) << r.err;
    EXPECT_EQ(readBytes(db), before);
}

TEST(RunsCliDefaultPath, UsesXdgDataHome) {
    TempDir dir;
    std::string cmd = "XDG_DATA_HOME=" + shellQuote(dir.path().string()) + " " + shellQuote(graphoptBinary()) +
                      " runs list >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "graphopt-studio" / "runs.db"));
}

TEST(RunsCliDbPath, MissingFolderIsAClearError) {
    TempDir dir;
    const std::string db = dir.file("no-such-folder/runs.db");
    auto r = runGraphopt(dir, {"runs", "list", "--db", db});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("no-such-folder")));
}
