// Best-so-far curves of several runs aligned on one evaluations axis.
#include <gtest/gtest.h>

#include "StoreTestSupport.h"
#include "store/BestSoFarCurves.h"
#include "store/RunStore.h"
#include "store/StoreError.h"

using namespace graphopt;
using namespace graphopt::testing;

namespace {

ProgressEvent ev(int64_t evaluations, double best) {
    ProgressEvent e;
    e.evaluations = evaluations;
    e.bestCost = best;
    return e;
}

using Opt = std::optional<double>;

}  // namespace

TEST(BestSoFarCurves, AlignsRunsOnTheUnionOfTheirEvaluations) {
    // Run 1 reports every 100 evaluations up to 300; run 2 every 150 up to 450.
    auto c = alignBestSoFar({{1, {ev(100, 5), ev(200, 4), ev(300, 4.5)}},  // 4.5: best-so-far stays 4
                             {2, {ev(150, 6), ev(300, 3), ev(450, 2)}}});
    EXPECT_EQ(c.runIds, (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(c.evaluations, (std::vector<int64_t>{100, 150, 200, 300, 450}));
    EXPECT_EQ(c.best[0], (std::vector<Opt>{5.0, 5.0, 4.0, 4.0, std::nullopt}));  // ended at 300
    EXPECT_EQ(c.best[1], (std::vector<Opt>{std::nullopt, 6.0, 6.0, 3.0, 2.0}));  // began at 150
}

TEST(BestSoFarCurves, ResamplesToAnEvenGrid) {
    std::vector<ProgressEvent> events;
    for (int i = 1; i <= 1000; ++i) events.push_back(ev(i, 1000.0 / i));
    auto c = alignBestSoFar({{7, events}}, 5);
    EXPECT_EQ(c.evaluations, (std::vector<int64_t>{1, 251, 501, 750, 1000}));  // 1 + 999 * i / 4, rounded
    EXPECT_EQ(c.best[0][1], 1000.0 / 251);
    EXPECT_EQ(c.best[0][4], 1.0);
}

TEST(BestSoFarCurves, SkipsEventsWithoutACostAndSortsByEvaluations) {
    auto c = alignBestSoFar({{1, {ev(10, std::nan("")), ev(30, 2), ev(20, 3)}}});
    EXPECT_EQ(c.evaluations, (std::vector<int64_t>{20, 30}));
    EXPECT_EQ(c.best[0], (std::vector<Opt>{3.0, 2.0}));
}

TEST(BestSoFarCurves, FromTheStoreAndToJson) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    int64_t a = store.beginRun(sampleSpec("brkga"), std::nullopt);
    int64_t b = store.beginRun(sampleSpec("random"), std::nullopt);
    store.appendEvents(a, {ev(64, 3), ev(128, 2)});
    store.appendEvents(b, {ev(100, 2.5)});
    auto c = alignBestSoFar(store, {a, b});
    auto j = c.toJson();
    EXPECT_EQ(j["evaluations"], nlohmann::json({64, 100, 128}));
    EXPECT_EQ(j["runs"][0]["best"], nlohmann::json({3.0, 3.0, 2.0}));
    EXPECT_EQ(j["runs"][1]["best"], nlohmann::json({nullptr, 2.5, nullptr}));
    EXPECT_THROW(alignBestSoFar(store, {a, 999}), StoreError);
}
