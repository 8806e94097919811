// graphopt tasks MODEL [--json]: the tuning tasks of a model (heavy operators, merged by shape).
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Args.h"
#include "Commands.h"
#include "ModelOptions.h"
#include "graph/Loaders.h"
#include "tuning/Task.h"
#include "tuning/TemplateSpace.h"

namespace graphopt::cli {

CommandSpec tasksCommand() {
    return {"tasks",
            "MODEL",
            "The tuning tasks of a model: its heavy operators (conv2d, depthwise, conv3d, dense, batch_matmul) merged by shape, with FLOPs and uses",
            {{"json", "", "", "print JSON instead of text"},
             {"template", "T", "tiled",
              "conv template whose space sizes are printed: tiled (what tune --measurer halide searches), packed, or "
              "nchw (what the simulated CPU models)",
              {"tiled", "packed", "nchw"}},
             modelShapeOptions()[0],
             modelShapeOptions()[1]},
            {"graphopt tasks resources/models/resnet18.onnx", "graphopt tasks resources/models/transformer_encoder.onnx --batch 4",
             "graphopt tasks resources/models/resnet18.onnx --template nchw"}};
}

int cmdTasks(const ArgList& argv) {
    const CommandSpec spec = tasksCommand();
    Args args(argv, spec);
    const std::string path = args.onePositional("MODEL");
    const Graph g = loadGraph(path, loadOptionsFrom(args));
    std::vector<std::string> skipped;
    auto tasks = tuning::extractTasks(g, &skipped);
    // The space each task is searched in: the template tune uses with the same --template.
    const std::string templ = args.getChoice("template");
    for (auto& t : tasks) t = tuning::withTemplate(t, templ);

    if (args.has("json")) {
        nlohmann::json j;
        j["file"] = path;
        j["flops_convention"] = "a multiply-add counts as 2 FLOPs";
        j["template"] = templ;
        nlohmann::json list = nlohmann::json::array();
        for (size_t i = 0; i < tasks.size(); ++i) {
            nlohmann::json t = tasks[i].toJson();
            t["index"] = i;
            t["space_size"] = tuning::templateSpace(tasks[i]).size();
            list.push_back(std::move(t));
        }
        j["tasks"] = std::move(list);
        j["skipped"] = skipped;
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    double total = 0;
    for (const auto& t : tasks) total += t.flops() * t.weight;
    std::cout << path << ": " << tasks.size() << " tasks, " << std::setprecision(4) << total / 1e9
              << " GFLOP in tuned operators (multiply-add = 2); configs: the " << templ << " template's space";
    if (templ != "nchw") std::cout << " at " << tuning::hostVectorLanes() << " lanes";
    std::cout << "\n";
    std::cout << std::left << std::setw(4) << "#" << std::setw(18) << "kind" << std::setw(46) << "shape"
              << std::right << std::setw(10) << "MFLOP" << std::setw(8) << "weight" << std::setw(14) << "configs" << "  template"
              << "\n";
    for (size_t i = 0; i < tasks.size(); ++i) {
        const auto& t = tasks[i];
        std::string shape = t.describe();
        shape = shape.substr(shape.find(' ') + 1);
        std::cout << std::left << std::setw(4) << i << std::setw(18) << tuning::taskKindName(t.kind) << std::setw(46)
                  << shape << std::right << std::setw(10) << std::fixed << std::setprecision(1) << t.flops() / 1e6
                  << std::setw(8) << t.weight << std::setw(14) << tuning::templateSpace(t).size() << "  " << t.templateName()
                  << "\n";
        std::cout.unsetf(std::ios::fixed);
    }
    for (const auto& s : skipped) std::cout << "  skipped: " << s << "\n";
    return 0;
}

}  // namespace graphopt::cli
