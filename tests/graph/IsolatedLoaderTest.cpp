// Reading ONNX files in a child process (graph/IsolatedLoader.h): the same graph as reading them
// here, the reader's own errors unchanged, and a reader that hangs stopped with an error naming the
// file.
#include <gtest/gtest.h>

#include "GraphTestFiles.h"
#include "graph/GraphCompare.h"
#include "graph/GraphError.h"
#include "graph/IsolatedLoader.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"

using namespace graphopt;
using namespace graphopt::test;

TEST(IsolatedLoader, GivesTheGraphTheReaderGivesHere) {
    const std::string model = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx";
    for (int64_t batch : {0, 8}) {
        LoadOptions o;
        o.batch = batch;
        const Graph here = loadGraph(model, o), child = loadGraphIsolated(model, o);
        std::string why;
        EXPECT_TRUE(graphsEqual(here, child, &why)) << "batch " << batch << ": " << why;
    }
    // Files of the other formats are read here, as they are.
    TempDir dir;
    const std::string json = dir.file("g.json");
    saveJson(generateGraph({GraphFamily::Chain, 20, 1}), json);
    EXPECT_FALSE(readsWithLibonnx(json));
    EXPECT_TRUE(readsWithLibonnx(model));
    EXPECT_TRUE(readsWithLibonnx(dir.file("no-extension")));
    std::string why;
    EXPECT_TRUE(graphsEqual(loadGraphIsolated(json, {}), loadGraph(json), &why)) << why;
}

TEST(IsolatedLoader, TheReadersErrorsComeBackUnchanged) {
    TempDir dir;
    const std::string bad = dir.file("truncated.onnx");
    const std::string good = readBytes(std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx");
    writeBytes(bad, good.substr(0, good.size() / 3));
    std::string here;
    try {
        loadGraph(bad);
    } catch (const GraphError& e) {
        here = e.what();
    }
    ASSERT_FALSE(here.empty());
    try {
        loadGraphIsolated(bad, {});
        ADD_FAILURE() << "a truncated model loaded";
    } catch (const GraphError& e) {
        EXPECT_EQ(std::string(e.what()), here);
    }
    LoadOptions fixed;
    fixed.inputShapes["no-such-input"] = {1, 2};
    try {
        loadGraphIsolated(std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx", fixed);
        ADD_FAILURE() << "an unknown input name was accepted";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("no-such-input"), std::string::npos) << e.what();
    }
}

// A reader that is still at work when the time is up is killed, and the error names the file (a
// limit of 0 s: no reader meets it, so the kill path runs every time; the readers refuse FIFOs
// and devices, so a real hang cannot be staged from a file).
TEST(IsolatedLoader, AReaderStillAtWorkWhenTheTimeIsUpIsStopped) {
    const std::string model = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx";
    try {
        loadGraphIsolated(model, {}, 0);
        ADD_FAILURE() << "finished within 0 s";
    } catch (const GraphError& e) {
        EXPECT_EQ(std::string(e.what()), model + ": the ONNX reader did not finish within 0 s");
    }
    // And the next read is not disturbed.
    EXPECT_EQ(loadGraphIsolated(model, {}).nodeCount(), loadGraph(model).nodeCount());
}
