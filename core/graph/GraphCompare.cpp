#include "graph/GraphCompare.h"

#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

namespace graphopt {

namespace {

bool sameDouble(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return std::memcmp(&a, &b, sizeof a) == 0;  // also tells 0.0 from -0.0
}

std::string attrToString(const AttrValue& v) {
    std::ostringstream os;
    os.precision(17);
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, int64_t>) os << "int " << x;
            else if constexpr (std::is_same_v<T, double>) os << "float " << x;
            else if constexpr (std::is_same_v<T, std::string>) os << "string \"" << x << '"';
            else {
                os << (std::is_same_v<T, std::vector<int64_t>>    ? "ints ["
                       : std::is_same_v<T, std::vector<double>> ? "floats ["
                                                                : "strings [");
                for (size_t i = 0; i < x.size(); ++i) os << (i ? ", " : "") << x[i];
                os << ']';
            }
        },
        v);
    return os.str();
}

bool sameAttr(const AttrValue& a, const AttrValue& b) {
    if (a.index() != b.index()) return false;
    if (const auto* x = std::get_if<double>(&a)) return sameDouble(*x, std::get<double>(b));
    if (const auto* x = std::get_if<std::vector<double>>(&a)) {
        const auto& y = std::get<std::vector<double>>(b);
        if (x->size() != y.size()) return false;
        for (size_t i = 0; i < x->size(); ++i)
            if (!sameDouble((*x)[i], y[i])) return false;
        return true;
    }
    return a == b;
}

template <class T>
std::string str(const T& v) {
    std::ostringstream os;
    os.precision(17);
    if constexpr (std::is_same_v<T, std::vector<int>> || std::is_same_v<T, std::vector<int64_t>>) {
        os << '[';
        for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
        os << ']';
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
        os << '[';
        for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
        os << ']';
    } else if constexpr (std::is_same_v<T, std::map<std::string, double>>) {
        os << '{';
        for (auto it = v.begin(); it != v.end(); ++it) os << (it == v.begin() ? "" : ",") << it->first << ":" << it->second;
        os << '}';
    } else {
        os << v;
    }
    return os.str();
}

}  // namespace

bool graphsEqual(const Graph& a, const Graph& b, std::string* why) {
    auto differ = [&](const std::string& what) {
        if (why) *why = what;
        return false;
    };
#define GRAPHOPT_CMP(where, field)                                                                              \
    if (!(x.field == y.field))                                                                                  \
        return differ(where + ": " #field " differs (" + str(x.field) + " vs " + str(y.field) + ")");
#define GRAPHOPT_CMPD(where, field)                                                                             \
    if (!sameDouble(x.field, y.field))                                                                          \
        return differ(where + ": " #field " differs (" + str(x.field) + " vs " + str(y.field) + ")");

    if (a.name != b.name) return differ("graph name differs ('" + a.name + "' vs '" + b.name + "')");
    if (a.metadata != b.metadata) {
        for (const auto& [k, v] : a.metadata) {
            auto it = b.metadata.find(k);
            if (it == b.metadata.end()) return differ("metadata '" + k + "' missing in the second graph");
            if (it->second != v) return differ("metadata '" + k + "' differs ('" + v + "' vs '" + it->second + "')");
        }
        return differ("the second graph has more metadata keys");
    }
    if (a.tensorCount() != b.tensorCount())
        return differ("tensor count differs (" + str(a.tensorCount()) + " vs " + str(b.tensorCount()) + ")");
    if (a.nodeCount() != b.nodeCount())
        return differ("node count differs (" + str(a.nodeCount()) + " vs " + str(b.nodeCount()) + ")");

    for (size_t i = 0; i < a.tensorCount(); ++i) {
        const Tensor& x = a.tensors()[i];
        const Tensor& y = b.tensors()[i];
        const std::string where = "tensor #" + str(i) + " '" + x.name + "'";
        GRAPHOPT_CMP(where, name)
        if (x.kind != y.kind)
            return differ(where + ": kind differs (" + tensorKindName(x.kind) + " vs " + tensorKindName(y.kind) + ")");
        if (x.dtype != y.dtype)
            return differ(where + ": dtype differs (" + dtypeName(x.dtype) + " vs " + dtypeName(y.dtype) + ")");
        GRAPHOPT_CMP(where, shape)
        GRAPHOPT_CMP(where, shapeKnown)
        GRAPHOPT_CMP(where, bytes)
        GRAPHOPT_CMP(where, isGraphOutput)
        GRAPHOPT_CMP(where, producer)
        GRAPHOPT_CMP(where, producerPort)
        GRAPHOPT_CMP(where, aliasInputPort)
        GRAPHOPT_CMPD(where, transferCostS)
    }
    for (size_t i = 0; i < a.nodeCount(); ++i) {
        const Node& x = a.nodes()[i];
        const Node& y = b.nodes()[i];
        const std::string where = "node #" + str(i) + " '" + x.name + "'";
        GRAPHOPT_CMP(where, name)
        GRAPHOPT_CMP(where, op)
        GRAPHOPT_CMP(where, inputs)
        GRAPHOPT_CMP(where, outputs)
        GRAPHOPT_CMP(where, controlInputs)
        GRAPHOPT_CMPD(where, flops)
        GRAPHOPT_CMPD(where, computeCostS)
        GRAPHOPT_CMP(where, tempBytes)
        GRAPHOPT_CMP(where, costByKindS)
        GRAPHOPT_CMP(where, allowedKinds)
        GRAPHOPT_CMP(where, colocationClass)
        GRAPHOPT_CMP(where, residentBytes)
        GRAPHOPT_CMP(where, isBackward)
        for (const auto& [k, v] : x.attrs) {
            auto it = y.attrs.find(k);
            if (it == y.attrs.end()) return differ(where + ": attribute '" + k + "' missing in the second graph");
            if (!sameAttr(v, it->second))
                return differ(where + ": attribute '" + k + "' differs (" + attrToString(v) + " vs " +
                              attrToString(it->second) + ")");
        }
        if (x.attrs.size() != y.attrs.size()) return differ(where + ": the second graph has more attributes");
    }
#undef GRAPHOPT_CMP
#undef GRAPHOPT_CMPD

    if (a.edges().size() != b.edges().size())
        return differ("edge count differs (" + str(a.edges().size()) + " vs " + str(b.edges().size()) + ")");
    return true;
}

}  // namespace graphopt
