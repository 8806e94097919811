// Every loader against damaged files: truncated copies (many cut points) and seeded byte-flipped
// copies of good files. Each case must either load or throw a GraphError whose message starts with
// the file's path; anything else (another exception type, a crash, a hang) is a bug.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "GraphTestFiles.h"
#include "graph/GraphCompare.h"
#include "graph/GraphError.h"
#include "graph/LoaderText.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"

using namespace graphopt;
using namespace graphopt::test;

namespace {

using LoadFn = std::function<Graph(const std::string&)>;

struct Outcome {
    int loaded = 0;
    int rejected = 0;
};

void expectLoadsOrClearError(const LoadFn& load, const std::string& path, const std::string& label, Outcome& out,
                             bool printable) {
    try {
        const Graph g = load(path);
        ++out.loaded;
        EXPECT_NO_THROW(g.validate()) << label;
    } catch (const GraphError& e) {
        ++out.rejected;
        const std::string what = e.what();
        EXPECT_EQ(what.rfind(path + ": ", 0), 0u) << label << ": " << what;
        EXPECT_GT(what.size(), path.size() + 3) << label;
        if (printable)
            for (char c : what) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << label << ": " << what;
    } catch (const std::exception& e) {
        ADD_FAILURE() << label << ": threw something other than GraphError: " << e.what();
    }
}

// Truncations at `cuts` points spread over the file (plus the first bytes one by one), then
// `flips` copies with 1-4 bytes replaced (random bytes, or a flipped bit).
// `printable`: also require messages free of control characters (names from a damaged file can
// hold any byte).
Outcome fuzz(const LoadFn& load, const std::string& original, const std::string& ext, const TempDir& dir,
             int cuts, int flips, uint64_t seed, bool printable = true) {
    Outcome out;
    const std::string path = dir.file("damaged" + ext);
    writeBytes(path, original);
    const Graph before = load(path);
    std::vector<size_t> points;
    for (size_t i = 0; i < 16 && i < original.size(); ++i) points.push_back(i);
    for (int i = 0; i < cuts; ++i) points.push_back(original.size() * static_cast<size_t>(i) / cuts);
    points.push_back(original.size() - 1);
    for (size_t p : points) {
        writeBytes(path, original.substr(0, p));
        expectLoadsOrClearError(load, path, "truncated at " + std::to_string(p), out, printable);
    }
    std::mt19937_64 rng(seed);
    for (int i = 0; i < flips; ++i) {
        std::string copy = original;
        const int changes = 1 + static_cast<int>(rng() % 4);
        std::string label = "flip #" + std::to_string(i) + ":";
        for (int c = 0; c < changes; ++c) {
            const size_t at = rng() % copy.size();
            if (rng() % 2)
                copy[at] = static_cast<char>(rng() & 0xff);
            else
                copy[at] = static_cast<char>(copy[at] ^ (1 << (rng() % 8)));
            label += " @" + std::to_string(at);
        }
        writeBytes(path, copy);
        expectLoadsOrClearError(load, path, label, out, printable);
    }
    // No state left behind by all those failures (cgraph keeps its parser in globals).
    writeBytes(path, original);
    std::string why;
    EXPECT_TRUE(graphsEqual(before, load(path), &why)) << why;
    return out;
}

// Empty file, directory, missing file, a binary file: all clear errors naming the path.
void expectPlainErrors(const LoadFn& load, const std::string& ext, const TempDir& dir) {
    Outcome out;
    const std::string empty = dir.file("empty" + ext);
    writeBytes(empty, "");
    const std::string binary = dir.file("binary" + ext);
    std::string bytes;
    std::mt19937_64 rng(99);
    for (int i = 0; i < 4096; ++i) bytes.push_back(static_cast<char>(rng() & 0xff));
    writeBytes(binary, bytes);
    const std::string sub = dir.file("subdir" + ext);
    std::filesystem::create_directories(sub);
    for (const std::string& p : {empty, binary, sub, dir.file("missing" + ext)}) {
        SCOPED_TRACE(p);
        try {
            load(p);
            ADD_FAILURE() << "loaded " << p;
        } catch (const GraphError& e) {
            EXPECT_EQ(std::string(e.what()).rfind(p + ": ", 0), 0u) << e.what();
        } catch (const std::exception& e) {
            ADD_FAILURE() << "threw something other than GraphError: " << e.what();
        }
    }
}

}  // namespace

TEST(LoaderRobustness, CostGraphText) {
    TempDir dir;
    expectPlainErrors(loadCostGraphText, ".pbtxt", dir);
    Outcome total;
    for (const char* f : {"costgraph/mlp.pbtxt", "costgraph/regal_style.pbtxt", "costgraph/future_fields.pbtxt"}) {
        Outcome o = fuzz(loadCostGraphText, readBytes(dataPath(f)), ".pbtxt", dir, 60, 150, 1);
        total.loaded += o.loaded;
        total.rejected += o.rejected;
    }
    EXPECT_GT(total.rejected, 100);
    EXPECT_GT(total.loaded, 10);  // flips inside names or numbers often still parse
}

TEST(LoaderRobustness, Dot) {
    TempDir dir;
    expectPlainErrors(loadDot, ".dot", dir);
    Outcome total;
    for (const char* f : {"dot/residual.dot", "dot/plain.dot"}) {
        Outcome o = fuzz(loadDot, readBytes(dataPath(f)), ".dot", dir, 60, 150, 2);
        total.loaded += o.loaded;
        total.rejected += o.rejected;
    }
    EXPECT_GT(total.rejected, 50);
    EXPECT_GT(total.loaded, 10);
}

TEST(LoaderRobustness, Json) {
    TempDir dir;
    expectPlainErrors(loadJson, ".json", dir);
    const std::string generated = dir.file("generated.json");
    saveJson(generateGraph({GraphFamily::Layered, 20, 5}), generated);
    const std::string fromCostGraph = dir.file("costgraph.json");
    saveJson(loadCostGraphText(dataPath("costgraph/mlp.pbtxt")), fromCostGraph);
    Outcome total;
    for (const std::string& f : {generated, fromCostGraph}) {
        Outcome o = fuzz(loadJson, readBytes(f), ".json", dir, 80, 150, 3);
        total.loaded += o.loaded;
        total.rejected += o.rejected;
    }
    EXPECT_GT(total.rejected, 100);
    EXPECT_GT(total.loaded, 10);
}

TEST(LoaderRobustness, OnnxThroughLoadGraph) {
    const std::string models = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models";
    std::vector<std::string> picks;
    for (const char* m : {"alexnet.onnx", "resnet18.onnx"})
        if (std::filesystem::exists(models + "/" + m)) picks.push_back(models + "/" + m);
    ASSERT_FALSE(picks.empty()) << "no ONNX models under " << models << " (a committed or installed resource is missing)";
    TempDir dir;
    const LoadFn load = [](const std::string& p) { return loadGraph(p); };
    expectPlainErrors(load, ".onnx", dir);
    Outcome total;
    for (const std::string& f : picks) {
        Outcome o = fuzz(load, readBytes(f), ".onnx", dir, 40, 120, 4);
        total.loaded += o.loaded;
        total.rejected += o.rejected;
    }
    EXPECT_GT(total.rejected, 40);
}

TEST(LoaderRobustness, TextLoadersRejectAnOnnxFile) {
    const std::string model = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/alexnet.onnx";
    ASSERT_TRUE(std::filesystem::exists(model)) << "no " << model << " (a committed or installed resource is missing)";
    for (const LoadFn& load : {LoadFn(loadCostGraphText), LoadFn(loadDot), LoadFn(loadJson)}) {
        try {
            load(model);
            ADD_FAILURE() << "a text loader accepted an ONNX file";
        } catch (const GraphError& e) {
            EXPECT_EQ(std::string(e.what()).rfind(model + ": ", 0), 0u) << e.what();
        }
    }
}

TEST(LoaderText, EscapesControlBytesAndBrokenUtf8) {
    EXPECT_EQ(printableText("plain"), "plain");
    EXPECT_EQ(printableText("caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x98\x80");
    EXPECT_EQ(printableText("a\nb\x1b[0m\x7f"), "a\\x0ab\\x1b[0m\\x7f");
    EXPECT_EQ(printableText("\xff\xC3"), "\\xff\\xc3");       // invalid byte, truncated sequence
    EXPECT_EQ(printableText("\xC0\xAF"), "\\xc0\\xaf");       // overlong "/"
    EXPECT_EQ(printableText("\xED\xA0\x80"), "\\xed\\xa0\\x80");  // UTF-16 surrogate
    EXPECT_EQ(printableText(std::string(1000, 'x'), 10), "xxxxxxxxxx...");
}
