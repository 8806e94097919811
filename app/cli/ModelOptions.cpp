#include "ModelOptions.h"

#include <charconv>

namespace graphopt::cli {

std::vector<OptionSpec> modelShapeOptions(const std::string& which) {
    return {{"batch", "N", "", which + ": the value of every symbolic input dimension named like 'batch' (others: 1)", {}, ""},
            {"input-shape", "NAME=D1xD2x...", "",
             which + ": the whole shape of input NAME (repeatable); shapes are re-inferred from it", {}, ""}};
}

OptionSpec trainingOption() {
    return {"training", "", "",
            "PipeDream profiles: a layer costs its forward plus backward time and keeps its activation for the "
            "backward pass (default: inference, forward time only)", {}, ""};
}

LoadOptions loadOptionsFrom(const Args& args) {
    LoadOptions o;
    o.training = args.declares("training") && args.has("training");
    if (args.has("batch")) o.batch = args.getInt("batch", 1, 1 << 20);
    for (const std::string& item : args.getAll("input-shape")) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 >= item.size())
            throw UsageError("--input-shape " + item + ": expected NAME=D1xD2x... (e.g. input=1x3x224x224)");
        std::vector<int64_t> dims;
        const std::string text = item.substr(eq + 1);
        size_t start = 0;
        while (start <= text.size()) {
            size_t x = text.find('x', start);
            if (x == std::string::npos) x = text.size();
            int64_t d = -1;
            const auto [end, ec] = std::from_chars(text.data() + start, text.data() + x, d);
            if (ec != std::errc() || end != text.data() + x || d < 0 || d > (int64_t(1) << 40))
                throw UsageError("--input-shape " + item + ": '" + text.substr(start, x - start) +
                                 "' is not a dimension (a whole number >= 0)");
            dims.push_back(d);
            start = x + 1;
        }
        if (!o.inputShapes.emplace(item.substr(0, eq), dims).second)
            throw UsageError("--input-shape for '" + item.substr(0, eq) + "' given twice");
    }
    return o;
}

}  // namespace graphopt::cli
