// Native JSON: lossless round trips (generated graphs, every loader's output, every attribute
// kind) and hostile input that must end in a GraphError naming the file and the JSON path.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "GraphTestFiles.h"
#include "graph/GraphCompare.h"
#include "graph/GraphError.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"

using namespace graphopt;
using namespace graphopt::test;

namespace {

void expectRoundTrip(const Graph& g, const TempDir& dir) {
    const std::string path = dir.file("roundtrip.json");
    saveJson(g, path);
    const Graph back = loadJson(path);
    std::string why;
    EXPECT_TRUE(graphsEqual(g, back, &why)) << g.name << ": " << why;
    // Saving the loaded graph again gives the same bytes.
    const std::string first = readBytes(path);
    saveJson(back, path);
    EXPECT_EQ(readBytes(path), first);
}

// Every field set to something other than its default, every attribute kind, awkward values.
Graph everythingGraph() {
    Graph g;
    g.name = "everything \xC3\xA9\xE2\x9C\x93";  // UTF-8
    g.metadata = {{"source_format", "test"}, {"empty", ""}, {"quote\"key", "line\nbreak"}};
    Tensor in;
    in.name = "in";
    in.kind = TensorKind::GraphInput;
    in.dtype = DType::UInt8;
    in.shape = {1, 3, -1, 7};
    in.shapeKnown = true;
    in.bytes = 21;
    g.addTensor(in);
    Tensor w;
    w.name = "w";
    w.kind = TensorKind::Weight;
    w.dtype = DType::BFloat16;
    w.shape = {};
    w.shapeKnown = true;  // a scalar
    w.bytes = 2;
    g.addTensor(w);
    Tensor a;
    a.name = "a";
    a.dtype = DType::Unknown;
    a.bytes = kMaxGraphBytes - 21 - 2 - 99;  // with the others and n1's temporary: the most a graph may hold (Graph.h)
    a.aliasInputPort = 1;
    g.addTensor(a);
    Tensor b;
    b.name = "b";
    b.dtype = DType::Int64;
    b.isGraphOutput = true;
    g.addTensor(b);

    Node n1;
    n1.name = "first";
    n1.op = "Weird.Op";
    n1.attrs["i"] = int64_t{std::numeric_limits<int64_t>::min()};
    n1.attrs["imax"] = int64_t{std::numeric_limits<int64_t>::max()};
    n1.attrs["f"] = 0.1;
    n1.attrs["negzero"] = -0.0;
    n1.attrs["nan"] = std::numeric_limits<double>::quiet_NaN();
    n1.attrs["inf"] = -std::numeric_limits<double>::infinity();
    n1.attrs["whole"] = 2.0;  // a float that looks like an int stays a float
    n1.attrs["s"] = std::string("text with \"quotes\" and \\ and \t");
    n1.attrs["ints"] = std::vector<int64_t>{1, -2, 3};
    n1.attrs["noints"] = std::vector<int64_t>{};
    n1.attrs["floats"] = std::vector<double>{1.5, std::numeric_limits<double>::infinity(), 1e-300, 3.0};
    n1.attrs["nofloats"] = std::vector<double>{};
    n1.attrs["strings"] = std::vector<std::string>{"x", "", "z"};
    n1.attrs["nostrings"] = std::vector<std::string>{};
    n1.inputs = {0, -1, 1};
    n1.outputs = {2};
    n1.flops = 123456789.125;
    n1.computeCostS = 1e-7;
    n1.tempBytes = 99;
    g.addNode(n1);
    Node n2;
    n2.name = "second";
    n2.op = "";
    n2.inputs = {2, 2};
    n2.outputs = {3};
    n2.controlInputs = {0};
    g.addNode(n2);
    Node n3;
    n3.name = "third";
    n3.op = "NoIo";
    n3.controlInputs = {1, 0};
    g.addNode(n3);
    g.finalize();
    g.validate();
    return g;
}

std::string jsonError(const TempDir& dir, const std::string& text, std::string* pathOut = nullptr) {
    const std::string path = dir.file("case.json");
    writeBytes(path, text);
    if (pathOut) *pathOut = path;
    try {
        loadJson(path);
    } catch (const GraphError& e) {
        return e.what();
    }
    return "";
}

const std::string kHead = R"({"format": "graphopt-graph", "version": 1, )";

}  // namespace

TEST(JsonFormat, RoundTripsEveryFieldAndAttributeKind) {
    TempDir dir;
    const Graph g = everythingGraph();
    expectRoundTrip(g, dir);
    const Graph back = loadJson(dir.file("roundtrip.json"));
    const Node& n = back.nodes()[0];
    EXPECT_TRUE(std::holds_alternative<double>(n.attrs.at("whole")));
    EXPECT_TRUE(std::signbit(std::get<double>(n.attrs.at("negzero"))));
    EXPECT_TRUE(std::isnan(std::get<double>(n.attrs.at("nan"))));
    EXPECT_TRUE(std::holds_alternative<std::vector<int64_t>>(n.attrs.at("noints")));
    EXPECT_TRUE(std::holds_alternative<std::vector<double>>(n.attrs.at("nofloats")));
    EXPECT_TRUE(std::holds_alternative<std::vector<std::string>>(n.attrs.at("nostrings")));
    EXPECT_EQ(n.inputs, (std::vector<int>{0, -1, 1}));
}

TEST(JsonFormat, RoundTripsGeneratedGraphs) {
    TempDir dir;
    for (GraphFamily f : allGraphFamilies())
        for (int nodes : {10, 300})
            expectRoundTrip(generateGraph({f, nodes, 7}), dir);
}

TEST(JsonFormat, RoundTripsLoaderOutputs) {
    TempDir dir;
    for (const char* f : {"costgraph/mlp.pbtxt", "costgraph/regal_style.pbtxt", "costgraph/future_fields.pbtxt",
                          "dot/residual.dot", "dot/plain.dot"})
        expectRoundTrip(loadGraph(dataPath(f)), dir);
    const std::string onnx = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx";
    if (std::filesystem::exists(onnx)) expectRoundTrip(loadGraph(onnx), dir);
}

TEST(JsonFormat, FileStartsWithFormatAndVersion) {
    TempDir dir;
    saveJson(generateGraph({GraphFamily::Chain, 10, 1}), dir.file("g.json"));
    const std::string text = readBytes(dir.file("g.json"));
    EXPECT_EQ(text.rfind("{\n  \"format\": \"graphopt-graph\",\n  \"version\": 1,", 0), 0u) << text.substr(0, 80);
    EXPECT_FALSE(std::filesystem::exists(dir.file("g.json.tmp")));
}

TEST(JsonFormat, HostileInputNamesFileAndJsonPath) {
    TempDir dir;
    std::string path;
    jsonError(dir, "", &path);
    const std::string tensor = R"({"name": "t", "kind": "input", "bytes": 4})";
    struct Case {
        std::string text;
        std::string expected;  // the message after "PATH: "
    };
    const std::vector<Case> cases = {
        {"[]", "$: expected an object, found an array"},
        {"{}", "$: missing key \"format\""},
        {R"({"format": "onnx", "version": 1})", "$.format: expected \"graphopt-graph\", found \"onnx\""},
        {R"({"format": "graphopt-graph"})", "$: missing key \"version\""},
        {R"({"format": "graphopt-graph", "version": "1"})", "$.version: expected an integer, found a string"},
        {kHead + R"("tensors": [], "nodes": [], "version": 2})",  // duplicate key: the last one counts
         "$.version: version 2 was written by a newer GraphOpt (this one reads version 1)"},
        {R"({"format": "graphopt-graph", "version": 7, "tensors": [], "nodes": []})",
         "$.version: version 7 was written by a newer GraphOpt (this one reads version 1)"},
        {kHead + R"("nodes": []})", "$: missing key \"tensors\""},
        {kHead + R"("tensors": {}, "nodes": []})", "$.tensors: expected an array, found an object"},
        {kHead + R"("tensors": [7], "nodes": []})", "$.tensors[0]: expected an object, found an integer"},
        {kHead + R"("tensors": [{"name": 3}], "nodes": []})", "$.tensors[0].name: expected a string, found an integer"},
        {kHead + R"("tensors": [{"name": "t", "kind": "input", "bytes": -1}], "nodes": []})",
         "$.tensors[0].bytes: integer -1 is out of range (0 .. 9223372036854775807)"},
        {kHead + R"("tensors": [{"name": "t", "kind": "input", "bytes": 1e30}], "nodes": []})",
         "$.tensors[0].bytes: expected an integer, found a number"},
        {kHead + R"("tensors": [{"name": "t", "kind": "input", "bytes": 18446744073709551615}], "nodes": []})",
         "$.tensors[0].bytes: integer 18446744073709551615 is out of range (0 .. 9223372036854775807)"},
        {kHead + R"("tensors": [{"name": "t", "kind": "input", "aliasInputPort": 3000000000}], "nodes": []})",
         "$.tensors[0].aliasInputPort: integer 3000000000 is out of range (-1 .. 2147483647)"},
        {kHead + R"("tensors": [{"name": "t", "kind": "bogus"}], "nodes": []})",
         "$.tensors[0].kind: expected \"activation\", \"input\" or \"weight\", found \"bogus\""},
        {kHead + R"("tensors": [{"name": "t", "dtype": "float128"}], "nodes": []})",
         "$.tensors[0].dtype: unknown dtype \"float128\""},
        {kHead + R"("tensors": [{"name": "t", "shape": [1, "2"]}], "nodes": []})",
         "$.tensors[0].shape[1]: expected an integer, found a string"},
        {kHead + R"("tensors": [{"name": "t", "shapeKnown": 1}], "nodes": []})",
         "$.tensors[0].shapeKnown: expected true or false, found an integer"},
        {kHead + R"("tensors": [)" + tensor + "," + tensor + R"(], "nodes": []})",
         "$.tensors[1].name: duplicate tensor name \"t\""},
        {kHead + R"("tensors": [], "nodes": [{"op": "X"}]})", "$.nodes[0]: missing key \"name\""},
        {kHead + R"("tensors": [], "nodes": [{"name": "n"}, {"name": "n"}]})",
         "$.nodes[1].name: duplicate node name \"n\""},
        {kHead + R"("tensors": [], "nodes": [{"name": "n", "inputs": ["nope"]}]})",
         "$.nodes[0].inputs[0]: no tensor named \"nope\""},
        {kHead + R"("tensors": [], "nodes": [{"name": "n", "outputs": [null]}]})",
         "$.nodes[0].outputs[0]: expected a string, found null"},
        {kHead + R"("tensors": [], "nodes": [{"name": "n", "controlInputs": ["m"]}]})",
         "$.nodes[0].controlInputs[0]: no node named \"m\""},
        {kHead + R"("tensors": [], "nodes": [{"name": "n", "attrs": {"k": {"int": 1.5}}}]})",
         "$.nodes[0].attrs.k.int: expected an integer, found a number"},
        {kHead + R"("tensors": [], "nodes": [{"name": "n", "attrs": {"k": {"int": 1, "float": 2}}}]})",
         "$.nodes[0].attrs.k: expected exactly one of \"int\", \"float\", \"string\", \"ints\", \"floats\", \"strings\""},
        {kHead + R"("tensors": [], "nodes": [{"name": "n", "attrs": {"a b": {"bogus": 1}}}]})",
         "$.nodes[0].attrs[\"a b\"]: unknown attribute kind \"bogus\" (expected int, float, string, ints, floats or strings)"},
        {kHead + R"("tensors": [], "nodes": [{"name": "n", "attrs": {"k": {"floats": [1, "x"]}}}]})",
         "$.nodes[0].attrs.k.floats[1]: expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), found a string"},
        {kHead + R"("tensors": [], "nodes": [{"name": "n", "flops": -5}]})", "$.nodes[0].flops: must not be negative"},
        {kHead + R"("tensors": [], "nodes": [{"name": "n", "flops": "NaN"}]})",
         "$.nodes[0].flops: expected a number, found a string"},
        {kHead + R"("tensors": [], "nodes": [{"name": "n", "tempBytes": true}]})",
         "$.nodes[0].tempBytes: expected an integer, found a boolean"},
        {kHead + R"("tensors": [{"name": "t"}], "nodes": [{"name": "n", "inputs": ["t"]}]})",
         "tensor 't' is never produced (read by node 'n')"},
        {kHead + R"("tensors": [{"name": "t", "kind": "weight"}], "nodes": [{"name": "n", "outputs": ["t"]}]})",
         "node 'n' writes weight tensor 't'"},
        {kHead + R"("tensors": [], "nodes": [{"name": "n", "controlInputs": ["n"]}]})",
         "the graph has a cycle through node 'n'"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.text);
        EXPECT_EQ(jsonError(dir, c.text), c.expected.empty() ? "" : path + ": " + c.expected);
    }
}

TEST(JsonFormat, MalformedNestedOrHugeJson) {
    TempDir dir;
    std::string path;
    std::string e = jsonError(dir, std::string(100000, '[') + std::string(100000, ']'), &path);
    EXPECT_EQ(e, path + ": JSON nested more than 32 levels deep (at byte 32)");
    e = jsonError(dir, kHead + R"("tensors": [], "nodes": [], "x": 1e400})");
    EXPECT_EQ(e.rfind(path + ": not valid JSON: ", 0), 0u) << e;
    e = jsonError(dir, kHead + R"("tensors": [)");
    EXPECT_EQ(e.rfind(path + ": not valid JSON: ", 0), 0u) << e;
    e = jsonError(dir, "");
    EXPECT_EQ(e, path + ": the file is empty");
    e = jsonError(dir, "{\"format\": \"\xc3\x28\x1b\"}");
    // nlohmann refuses broken UTF-8 and quotes the bytes it read: escaped in the message.
    EXPECT_EQ(e.rfind(path + ": not valid JSON: ", 0), 0u) << e;
    EXPECT_NE(e.find("ill-formed UTF-8"), std::string::npos) << e;
    EXPECT_NE(e.find("\\xc3("), std::string::npos) << e;
    e = jsonError(dir, std::string("\x89PNG\r\n\x1a\n\0\0", 10));
    EXPECT_EQ(e.rfind(path + ": not valid JSON: ", 0), 0u) << e;
    // Strings that contain brackets do not count as nesting.
    EXPECT_EQ(jsonError(dir, kHead + R"("name": ")" + std::string(1000, '[') + R"(", "tensors": [], "nodes": []})"),
              "");
}

TEST(JsonFormat, SaveErrorsNameTheFile) {
    TempDir dir;
    const std::string bad = dir.file("no/such/dir/g.json");
    try {
        saveJson(generateGraph({GraphFamily::Chain, 10, 1}), bad);
        FAIL() << "saved into a missing directory";
    } catch (const GraphError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(bad + ": cannot write", 0), 0u) << e.what();
    }
    Graph g = generateGraph({GraphFamily::Chain, 10, 1});
    g.mutableNodes()[0].name = "bad\xFF";
    try {
        saveJson(g, dir.file("g.json"));
        FAIL() << "saved invalid UTF-8";
    } catch (const GraphError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(dir.file("g.json") + ": cannot write JSON", 0), 0u) << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("g.json")));
}

TEST(JsonFormat, GraphsEqualReportsTheFirstDifference) {
    const Graph a = generateGraph({GraphFamily::Branchy, 50, 3});
    Graph b = a;
    std::string why;
    EXPECT_TRUE(graphsEqual(a, b, &why));
    b.mutableNodes()[5].attrs["extra"] = int64_t{1};
    EXPECT_FALSE(graphsEqual(a, b, &why));
    EXPECT_NE(why.find("node #5"), std::string::npos) << why;
    b = a;
    b.mutableTensors()[3].bytes += 1;
    EXPECT_FALSE(graphsEqual(a, b, &why));
    EXPECT_NE(why.find("bytes differs"), std::string::npos) << why;
}
