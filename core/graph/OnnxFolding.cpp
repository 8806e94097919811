#include "graph/OnnxFolding.h"

#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace graphopt::onnxfold {

namespace {

using onnx::TensorProto;

// A small constant tensor. Integer and boolean elements live in `ints` (exact, including the
// INT64_MAX that Slice uses for "to the end"), floating-point ones in `reals`.
struct Value {
    int type = TensorProto::INT64;
    std::vector<int64_t> dims;
    std::vector<int64_t> ints;
    std::vector<double> reals;

    bool isReal() const {
        return type == TensorProto::FLOAT || type == TensorProto::DOUBLE || type == TensorProto::FLOAT16 ||
               type == TensorProto::BFLOAT16;
    }
    size_t size() const { return isReal() ? reals.size() : ints.size(); }
    double at(size_t i) const { return isReal() ? reals[i] : static_cast<double>(ints[i]); }
};

bool supportedType(int t) {
    switch (t) {
        case TensorProto::FLOAT:
        case TensorProto::DOUBLE:
        case TensorProto::INT64:
        case TensorProto::INT32:
        case TensorProto::INT16:
        case TensorProto::INT8:
        case TensorProto::UINT8:
        case TensorProto::UINT16:
        case TensorProto::UINT32:
        case TensorProto::BOOL: return true;
        default: return false;
    }
}

// Element count of `dims`, or nullopt when negative or larger than `limit`.
std::optional<size_t> countOf(const std::vector<int64_t>& dims, size_t limit) {
    size_t n = 1;
    for (int64_t d : dims) {
        if (d < 0) return std::nullopt;
        if (d == 0) return size_t{0};
    }
    for (int64_t d : dims) {
        if (static_cast<uint64_t>(d) > limit || n > limit / static_cast<size_t>(d)) return std::nullopt;
        n *= static_cast<size_t>(d);
    }
    return n;
}

template <typename T>
bool readRaw(const std::string& raw, size_t n, std::vector<T>& out) {
    if (raw.size() != n * sizeof(T)) return false;
    out.resize(n);
    if (n) std::memcpy(out.data(), raw.data(), raw.size());  // ONNX raw data is little-endian, as is x86
    return true;
}

std::optional<Value> fromTensorProto(const TensorProto& t, size_t maxElements) {
    if (!supportedType(t.data_type()) || t.data_location() == TensorProto::EXTERNAL) return std::nullopt;
    Value v;
    v.type = t.data_type();
    v.dims.assign(t.dims().begin(), t.dims().end());
    auto n = countOf(v.dims, maxElements);
    if (!n) return std::nullopt;
    const bool raw = t.has_raw_data();
    auto fill = [&](auto& dst, auto tag) -> bool {
        using T = decltype(tag);
        std::vector<T> tmp;
        if (!readRaw<T>(t.raw_data(), *n, tmp)) return false;
        dst.assign(tmp.begin(), tmp.end());
        return true;
    };
    bool ok = true;
    switch (v.type) {
        case TensorProto::FLOAT:
            if (raw) ok = fill(v.reals, float{});
            else v.reals.assign(t.float_data().begin(), t.float_data().end());
            break;
        case TensorProto::DOUBLE:
            if (raw) ok = fill(v.reals, double{});
            else v.reals.assign(t.double_data().begin(), t.double_data().end());
            break;
        case TensorProto::INT64:
            if (raw) ok = fill(v.ints, int64_t{});
            else v.ints.assign(t.int64_data().begin(), t.int64_data().end());
            break;
        case TensorProto::UINT32:
            if (raw) ok = fill(v.ints, uint32_t{});
            else v.ints.assign(t.uint64_data().begin(), t.uint64_data().end());
            break;
        case TensorProto::INT32:
            if (raw) ok = fill(v.ints, int32_t{});
            else v.ints.assign(t.int32_data().begin(), t.int32_data().end());
            break;
        case TensorProto::INT16:
            if (raw) ok = fill(v.ints, int16_t{});
            else v.ints.assign(t.int32_data().begin(), t.int32_data().end());
            break;
        case TensorProto::UINT16:
            if (raw) ok = fill(v.ints, uint16_t{});
            else v.ints.assign(t.int32_data().begin(), t.int32_data().end());
            break;
        case TensorProto::INT8:
            if (raw) ok = fill(v.ints, int8_t{});
            else v.ints.assign(t.int32_data().begin(), t.int32_data().end());
            break;
        case TensorProto::UINT8:
        case TensorProto::BOOL:
            if (raw) ok = fill(v.ints, uint8_t{});
            else v.ints.assign(t.int32_data().begin(), t.int32_data().end());
            break;
        default: return std::nullopt;
    }
    if (!ok || v.size() != *n) return std::nullopt;
    return v;
}

TensorProto toTensorProto(const Value& v, const std::string& name) {
    TensorProto t;
    t.set_name(name);
    t.set_data_type(v.type);
    for (int64_t d : v.dims) t.add_dims(d);
    switch (v.type) {
        case TensorProto::FLOAT:
            for (double x : v.reals) t.add_float_data(static_cast<float>(x));
            break;
        case TensorProto::DOUBLE:
            for (double x : v.reals) t.add_double_data(x);
            break;
        case TensorProto::INT64:
            for (int64_t x : v.ints) t.add_int64_data(x);
            break;
        case TensorProto::UINT32:
            for (int64_t x : v.ints) t.add_uint64_data(static_cast<uint64_t>(x));
            break;
        default:  // int32, int16, int8, uint16, uint8, bool
            for (int64_t x : v.ints) t.add_int32_data(static_cast<int32_t>(x));
            break;
    }
    return t;
}

// Wraps an integer to the width of `type`, as a cast to that type does.
int64_t wrapTo(int type, int64_t x) {
    switch (type) {
        case TensorProto::INT32: return static_cast<int32_t>(x);
        case TensorProto::INT16: return static_cast<int16_t>(x);
        case TensorProto::INT8: return static_cast<int8_t>(x);
        case TensorProto::UINT32: return static_cast<uint32_t>(x);
        case TensorProto::UINT16: return static_cast<uint16_t>(x);
        case TensorProto::UINT8: return static_cast<uint8_t>(x);
        case TensorProto::BOOL: return x != 0;
        default: return x;
    }
}

Value scalarInt(int64_t x) {
    Value v;
    v.ints = {x};
    return v;
}

std::vector<int64_t> asInts(const Value& v) {
    if (!v.isReal()) return v.ints;
    std::vector<int64_t> out;
    for (double x : v.reals) out.push_back(static_cast<int64_t>(x));
    return out;
}

// Numpy broadcasting of several shapes.
std::optional<std::vector<int64_t>> broadcastShape(const std::vector<const std::vector<int64_t>*>& shapes) {
    size_t rank = 0;
    for (auto* s : shapes) rank = std::max(rank, s->size());
    std::vector<int64_t> out(rank, 1);
    for (auto* s : shapes)
        for (size_t i = 0; i < s->size(); ++i) {
            int64_t d = (*s)[i];
            int64_t& o = out[rank - s->size() + i];
            if (d == o || d == 1) continue;
            if (o == 1)
                o = d;
            else
                return std::nullopt;
        }
    return out;
}

// For each element of a tensor of shape `out`, the flat index of the element of `in` that
// broadcasting reads.
std::vector<size_t> broadcastIndex(const std::vector<int64_t>& in, const std::vector<int64_t>& out, size_t count) {
    std::vector<size_t> index(count, 0);
    const size_t rank = out.size(), offset = rank - in.size();
    std::vector<size_t> inStride(rank, 0);
    size_t stride = 1;
    for (size_t i = in.size(); i-- > 0;) {
        inStride[offset + i] = in[i] == 1 ? 0 : stride;
        stride *= static_cast<size_t>(in[i]);
    }
    std::vector<int64_t> coord(rank, 0);
    for (size_t flat = 0; flat < count; ++flat) {
        size_t src = 0;
        for (size_t d = 0; d < rank; ++d) src += static_cast<size_t>(coord[d]) * inStride[d];
        index[flat] = src;
        for (size_t d = rank; d-- > 0;) {
            if (++coord[d] < out[d]) break;
            coord[d] = 0;
        }
    }
    return index;
}

struct Evaluator {
    const std::unordered_map<std::string, std::vector<int64_t>>& staticShapes;
    const std::unordered_map<std::string, Value>& known;
    int opset;
    size_t maxElements;

    std::optional<int64_t> intAttr(const onnx::NodeProto& n, const char* name) const {
        for (const auto& a : n.attribute())
            if (a.name() == name && a.type() == onnx::AttributeProto::INT) return a.i();
        return std::nullopt;
    }
    std::optional<std::vector<int64_t>> intsAttr(const onnx::NodeProto& n, const char* name) const {
        for (const auto& a : n.attribute())
            if (a.name() == name && a.type() == onnx::AttributeProto::INTS)
                return std::vector<int64_t>(a.ints().begin(), a.ints().end());
        return std::nullopt;
    }
    const onnx::AttributeProto* attr(const onnx::NodeProto& n, const char* name) const {
        for (const auto& a : n.attribute())
            if (a.name() == name) return &a;
        return nullptr;
    }

    // Elementwise op over broadcast inputs. `real` computes on doubles, `integer` on int64
    // (nullopt when undefined, such as division by zero).
    std::optional<Value> elementwise(const std::vector<const Value*>& in, int outType,
                                     const std::function<std::optional<double>(const std::vector<double>&)>& real,
                                     const std::function<std::optional<int64_t>(const std::vector<int64_t>&)>& integer) const {
        std::vector<const std::vector<int64_t>*> shapes;
        for (auto* v : in) shapes.push_back(&v->dims);
        auto shape = broadcastShape(shapes);
        if (!shape) return std::nullopt;
        auto count = countOf(*shape, maxElements);
        if (!count) return std::nullopt;
        std::vector<std::vector<size_t>> idx;
        for (auto* v : in) idx.push_back(broadcastIndex(v->dims, *shape, *count));
        const bool anyReal = std::any_of(in.begin(), in.end(), [](const Value* v) { return v->isReal(); });
        Value out;
        out.type = outType;
        out.dims = *shape;
        for (size_t i = 0; i < *count; ++i) {
            if (anyReal) {
                std::vector<double> args;
                for (size_t k = 0; k < in.size(); ++k) args.push_back(in[k]->at(idx[k][i]));
                auto r = real(args);
                if (!r) return std::nullopt;
                if (out.isReal())
                    out.reals.push_back(*r);
                else
                    out.ints.push_back(static_cast<int64_t>(*r));
            } else {
                std::vector<int64_t> args;
                for (size_t k = 0; k < in.size(); ++k) args.push_back(in[k]->ints[idx[k][i]]);
                auto r = integer(args);
                if (!r) return std::nullopt;
                out.ints.push_back(wrapTo(outType, *r));
            }
        }
        return out;
    }

    // Normalizes axis `a` against `rank`; nullopt when out of range.
    static std::optional<size_t> axis(int64_t a, size_t rank) {
        const int64_t r = static_cast<int64_t>(rank);
        if (a < -r || a >= r) return std::nullopt;
        return static_cast<size_t>(a < 0 ? a + r : a);
    }

    // Selects elements of `v` by a per-axis list of indices.
    static Value select(const Value& v, const std::vector<std::vector<int64_t>>& picks) {
        Value out;
        out.type = v.type;
        for (const auto& p : picks) out.dims.push_back(static_cast<int64_t>(p.size()));
        size_t count = 1;
        for (const auto& p : picks) count *= p.size();
        std::vector<size_t> stride(v.dims.size(), 1);
        for (size_t d = v.dims.size(); d-- > 1;) stride[d - 1] = stride[d] * static_cast<size_t>(v.dims[d]);
        std::vector<size_t> coord(picks.size(), 0);
        for (size_t flat = 0; flat < count; ++flat) {
            size_t src = 0;
            for (size_t d = 0; d < picks.size(); ++d) src += static_cast<size_t>(picks[d][coord[d]]) * stride[d];
            if (v.isReal())
                out.reals.push_back(v.reals[src]);
            else
                out.ints.push_back(v.ints[src]);
            for (size_t d = picks.size(); d-- > 0;) {
                if (++coord[d] < picks[d].size()) break;
                coord[d] = 0;
            }
        }
        return out;
    }

    std::optional<Value> slice(const onnx::NodeProto& n, const std::vector<const Value*>& x) const {
        const Value& data = *x[0];
        std::vector<int64_t> starts, ends, axes, steps;
        if (opset < 10) {
            auto s = intsAttr(n, "starts"), e = intsAttr(n, "ends");
            if (!s || !e) return std::nullopt;
            starts = *s;
            ends = *e;
            if (auto a = intsAttr(n, "axes")) axes = *a;
        } else {
            if (x.size() < 3 || !x[1] || !x[2]) return std::nullopt;
            starts = asInts(*x[1]);
            ends = asInts(*x[2]);
            if (x.size() > 3 && x[3]) axes = asInts(*x[3]);
            if (x.size() > 4 && x[4]) steps = asInts(*x[4]);
        }
        if (starts.size() != ends.size()) return std::nullopt;
        if (axes.empty())
            for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
        if (steps.empty()) steps.assign(starts.size(), 1);
        if (axes.size() != starts.size() || steps.size() != starts.size()) return std::nullopt;
        std::vector<std::vector<int64_t>> picks;
        for (int64_t d : data.dims) {
            std::vector<int64_t> all(static_cast<size_t>(d));
            for (int64_t i = 0; i < d; ++i) all[static_cast<size_t>(i)] = i;
            picks.push_back(std::move(all));
        }
        for (size_t i = 0; i < starts.size(); ++i) {
            auto ax = axis(axes[i], data.dims.size());
            if (!ax || steps[i] == 0) return std::nullopt;
            const int64_t dim = data.dims[*ax], step = steps[i];
            auto clampIndex = [&](int64_t v, int64_t lo, int64_t hi) {
                if (v < 0) v = v < -dim ? lo : v + dim;
                return std::clamp(v, lo, hi);
            };
            int64_t s, e;
            if (step > 0) {
                s = clampIndex(starts[i], 0, dim);
                e = clampIndex(ends[i], 0, dim);
            } else {
                s = clampIndex(starts[i], 0, dim - 1);
                e = ends[i] < -dim ? -1 : clampIndex(ends[i], -1, dim - 1);
            }
            std::vector<int64_t> pick;
            for (int64_t k = s; step > 0 ? k < e : k > e; k += step) pick.push_back(k);
            picks[*ax] = std::move(pick);
        }
        return select(data, picks);
    }

    std::optional<Value> gather(const onnx::NodeProto& n, const Value& data, const Value& indices) const {
        auto ax = axis(intAttr(n, "axis").value_or(0), data.dims.size());
        if (!ax || indices.isReal()) return std::nullopt;
        const int64_t dim = data.dims[*ax];
        Value out;
        out.type = data.type;
        out.dims.assign(data.dims.begin(), data.dims.begin() + static_cast<long>(*ax));
        out.dims.insert(out.dims.end(), indices.dims.begin(), indices.dims.end());
        out.dims.insert(out.dims.end(), data.dims.begin() + static_cast<long>(*ax) + 1, data.dims.end());
        if (!countOf(out.dims, maxElements)) return std::nullopt;
        size_t outer = 1, inner = 1;
        for (size_t d = 0; d < *ax; ++d) outer *= static_cast<size_t>(data.dims[d]);
        for (size_t d = *ax + 1; d < data.dims.size(); ++d) inner *= static_cast<size_t>(data.dims[d]);
        for (size_t o = 0; o < outer; ++o)
            for (int64_t index : indices.ints) {
                if (index < -dim || index >= dim) return std::nullopt;
                const size_t row = static_cast<size_t>(index < 0 ? index + dim : index);
                for (size_t i = 0; i < inner; ++i) {
                    const size_t src = (o * static_cast<size_t>(dim) + row) * inner + i;
                    if (data.isReal())
                        out.reals.push_back(data.reals[src]);
                    else
                        out.ints.push_back(data.ints[src]);
                }
            }
        return out;
    }

    std::optional<Value> concat(const onnx::NodeProto& n, const std::vector<const Value*>& x) const {
        if (x.empty() || !x[0]) return std::nullopt;
        const size_t rank = x[0]->dims.size();
        auto ax = axis(intAttr(n, "axis").value_or(0), rank);
        if (!ax) return std::nullopt;
        Value out;
        out.type = x[0]->type;
        out.dims = x[0]->dims;
        out.dims[*ax] = 0;
        for (auto* v : x) {
            if (!v || v->dims.size() != rank || v->isReal() != x[0]->isReal()) return std::nullopt;
            for (size_t d = 0; d < rank; ++d)
                if (d != *ax && v->dims[d] != x[0]->dims[d]) return std::nullopt;
            out.dims[*ax] += v->dims[*ax];
        }
        if (!countOf(out.dims, maxElements)) return std::nullopt;
        size_t outer = 1;
        for (size_t d = 0; d < *ax; ++d) outer *= static_cast<size_t>(out.dims[d]);
        for (size_t o = 0; o < outer; ++o)
            for (auto* v : x) {
                const size_t chunk = v->size() / std::max<size_t>(outer, 1);
                for (size_t i = 0; i < chunk; ++i) {
                    if (v->isReal())
                        out.reals.push_back(v->reals[o * chunk + i]);
                    else
                        out.ints.push_back(v->ints[o * chunk + i]);
                }
            }
        return out;
    }

    std::optional<Value> reshape(const onnx::NodeProto& n, const Value& data, const Value& target) const {
        std::vector<int64_t> shape = asInts(target);
        const bool allowZero = intAttr(n, "allowzero").value_or(0) != 0;
        int inferred = -1;
        size_t known = 1;
        for (size_t i = 0; i < shape.size(); ++i) {
            if (shape[i] == 0 && !allowZero) {
                if (i >= data.dims.size()) return std::nullopt;
                shape[i] = data.dims[i];
            }
            if (shape[i] == -1) {
                if (inferred >= 0) return std::nullopt;
                inferred = static_cast<int>(i);
            } else if (shape[i] < 0) {
                return std::nullopt;
            } else {
                known *= static_cast<size_t>(shape[i]);
            }
        }
        if (inferred >= 0) {
            if (known == 0 || data.size() % known) return std::nullopt;
            shape[static_cast<size_t>(inferred)] = static_cast<int64_t>(data.size() / known);
        }
        auto count = countOf(shape, maxElements);
        if (!count || *count != data.size()) return std::nullopt;
        Value out = data;
        out.dims = shape;
        return out;
    }

    std::optional<Value> castTo(const Value& x, int to) const {
        if (!supportedType(to)) return std::nullopt;
        Value out;
        out.type = to;
        out.dims = x.dims;
        if (out.isReal()) {
            for (size_t i = 0; i < x.size(); ++i) out.reals.push_back(x.at(i));
        } else if (x.isReal()) {
            for (double r : x.reals) {
                if (!std::isfinite(r) || std::fabs(r) > 9.0e18) return std::nullopt;
                out.ints.push_back(wrapTo(to, static_cast<int64_t>(r)));
            }
        } else {
            for (int64_t i : x.ints) out.ints.push_back(wrapTo(to, i));
        }
        return out;
    }

    std::optional<std::vector<int64_t>> axesOf(const onnx::NodeProto& n, const std::vector<const Value*>& x) const {
        if (opset >= 13) {
            if (x.size() > 1 && x[1]) return asInts(*x[1]);
            return std::vector<int64_t>{};
        }
        return intsAttr(n, "axes").value_or(std::vector<int64_t>{});
    }

    // The node's outputs, or nullopt when it cannot (or should not) be evaluated here.
    std::optional<std::vector<Value>> evaluate(const onnx::NodeProto& n) const {
        if (!n.domain().empty() && n.domain() != "ai.onnx") return std::nullopt;
        const std::string& op = n.op_type();
        if (op == "Constant") {
            if (auto* a = attr(n, "value"); a && a->has_t()) {
                auto v = fromTensorProto(a->t(), maxElements);
                if (!v) return std::nullopt;
                return std::vector<Value>{*v};
            }
            if (auto i = intAttr(n, "value_int")) return std::vector<Value>{scalarInt(*i)};
            if (auto is = intsAttr(n, "value_ints")) {
                Value v;
                v.ints = *is;
                v.dims = {static_cast<int64_t>(is->size())};
                return std::vector<Value>{v};
            }
            return std::nullopt;
        }
        if (op == "Shape" || op == "Size") {
            if (n.input_size() < 1) return std::nullopt;
            auto it = staticShapes.find(n.input(0));
            if (it == staticShapes.end()) return std::nullopt;
            const auto& shape = it->second;
            if (op == "Size") {
                auto count = countOf(shape, std::numeric_limits<int64_t>::max());
                if (!count) return std::nullopt;
                return std::vector<Value>{scalarInt(static_cast<int64_t>(*count))};
            }
            const int64_t r = static_cast<int64_t>(shape.size());
            int64_t start = intAttr(n, "start").value_or(0), end = intAttr(n, "end").value_or(r);
            if (start < 0) start += r;
            if (end < 0) end += r;
            start = std::clamp<int64_t>(start, 0, r);
            end = std::clamp<int64_t>(end, 0, r);
            Value v;
            for (int64_t i = start; i < end; ++i) v.ints.push_back(shape[static_cast<size_t>(i)]);
            v.dims = {static_cast<int64_t>(v.ints.size())};
            return std::vector<Value>{v};
        }

        // Everything else needs every present input known.
        std::vector<const Value*> x;
        bool anyInput = false;
        for (const auto& name : n.input()) {
            if (name.empty()) {
                x.push_back(nullptr);
                continue;
            }
            auto it = known.find(name);
            if (it == known.end()) return std::nullopt;
            x.push_back(&it->second);
            anyInput = true;
        }
        if (!anyInput) return std::nullopt;
        auto one = [](std::optional<Value> v) -> std::optional<std::vector<Value>> {
            if (!v) return std::nullopt;
            return std::vector<Value>{std::move(*v)};
        };
        auto need = [&](size_t k) { return x.size() >= k && std::all_of(x.begin(), x.begin() + static_cast<long>(k), [](auto* p) { return p != nullptr; }); };
        if (!need(1)) return std::nullopt;

        if (op == "Identity") return one(*x[0]);
        if (op == "Cast") {
            auto to = intAttr(n, "to");
            if (!to) return std::nullopt;
            return one(castTo(*x[0], static_cast<int>(*to)));
        }
        if (op == "Unsqueeze") {
            auto axes = axesOf(n, x);
            if (!axes || axes->empty()) return std::nullopt;
            const size_t rank = x[0]->dims.size() + axes->size();
            std::vector<bool> inserted(rank, false);
            for (int64_t a : *axes) {
                auto ax = axis(a, rank);
                if (!ax || inserted[*ax]) return std::nullopt;
                inserted[*ax] = true;
            }
            Value out = *x[0];
            out.dims.clear();
            size_t src = 0;
            for (size_t d = 0; d < rank; ++d) out.dims.push_back(inserted[d] ? 1 : x[0]->dims[src++]);
            return one(out);
        }
        if (op == "Squeeze") {
            auto axes = axesOf(n, x);
            if (!axes) return std::nullopt;
            const size_t rank = x[0]->dims.size();
            std::vector<bool> removed(rank, false);
            if (axes->empty()) {
                for (size_t d = 0; d < rank; ++d) removed[d] = x[0]->dims[d] == 1;
            } else {
                for (int64_t a : *axes) {
                    auto ax = axis(a, rank);
                    if (!ax || x[0]->dims[*ax] != 1) return std::nullopt;
                    removed[*ax] = true;
                }
            }
            Value out = *x[0];
            out.dims.clear();
            for (size_t d = 0; d < rank; ++d)
                if (!removed[d]) out.dims.push_back(x[0]->dims[d]);
            return one(out);
        }
        if (op == "Gather") {
            if (!need(2)) return std::nullopt;
            return one(gather(n, *x[0], *x[1]));
        }
        if (op == "Concat") return one(concat(n, x));
        if (op == "Slice") return one(slice(n, x));
        if (op == "Reshape") {
            if (opset < 5 || !need(2)) return std::nullopt;
            return one(reshape(n, *x[0], *x[1]));
        }
        if (op == "Flatten") {
            auto ax = intAttr(n, "axis").value_or(1);
            const int64_t rank = static_cast<int64_t>(x[0]->dims.size());
            if (ax < 0) ax += rank;
            if (ax < 0 || ax > rank) return std::nullopt;
            int64_t outer = 1, inner = 1;
            for (int64_t d = 0; d < rank; ++d) (d < ax ? outer : inner) *= x[0]->dims[static_cast<size_t>(d)];
            Value out = *x[0];
            out.dims = {outer, inner};
            return one(out);
        }
        if (op == "ConstantOfShape") {
            std::vector<int64_t> shape = asInts(*x[0]);
            auto count = countOf(shape, maxElements);
            if (!count) return std::nullopt;
            Value fillValue;
            fillValue.type = TensorProto::FLOAT;
            fillValue.reals = {0.0};
            if (auto* a = attr(n, "value"); a && a->has_t()) {
                auto v = fromTensorProto(a->t(), 1);
                if (!v || v->size() != 1) return std::nullopt;
                fillValue = *v;
            }
            Value out;
            out.type = fillValue.type;
            out.dims = shape;
            if (out.isReal())
                out.reals.assign(*count, fillValue.reals[0]);
            else
                out.ints.assign(*count, fillValue.ints[0]);
            return one(out);
        }
        if (op == "Expand") {
            if (!need(2)) return std::nullopt;
            // The target shape takes part in the broadcast as a tensor of that shape whose
            // elements are never used (each output element is the input's): it still needs
            // elements, or the broadcast reads past its end.
            Value shape;
            shape.dims = asInts(*x[1]);
            auto count = countOf(shape.dims, maxElements);
            if (!count) return std::nullopt;
            shape.ints.assign(*count, 0);
            return one(elementwise({x[0], &shape}, x[0]->type,
                                   [](const std::vector<double>& a) { return a[0]; },
                                   [](const std::vector<int64_t>& a) { return a[0]; }));
        }
        if (op == "Range") {
            if (!need(3)) return std::nullopt;
            if (x[0]->size() != 1 || x[1]->size() != 1 || x[2]->size() != 1) return std::nullopt;
            Value out;
            out.type = x[0]->type;
            if (x[0]->isReal()) {
                const double start = x[0]->at(0), limit = x[1]->at(0), delta = x[2]->at(0);
                if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) return std::nullopt;
                const double steps = std::max(0.0, std::ceil((limit - start) / delta));
                if (steps > static_cast<double>(maxElements)) return std::nullopt;
                for (size_t i = 0; i < static_cast<size_t>(steps); ++i) out.reals.push_back(start + static_cast<double>(i) * delta);
            } else {
                const int64_t start = x[0]->ints[0], limit = x[1]->ints[0], delta = x[2]->ints[0];
                if (delta == 0) return std::nullopt;
                const long double steps = std::max<long double>(0, std::ceil((static_cast<long double>(limit) - start) / delta));
                if (steps > static_cast<long double>(maxElements)) return std::nullopt;
                for (int64_t i = 0; i < static_cast<int64_t>(steps); ++i) out.ints.push_back(start + i * delta);
            }
            out.dims = {static_cast<int64_t>(out.size())};
            return one(out);
        }
        if (op == "Transpose") {
            const size_t rank = x[0]->dims.size();
            std::vector<int64_t> perm;
            if (auto p = intsAttr(n, "perm")) perm = *p;
            else
                for (size_t d = rank; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
            if (perm.size() != rank) return std::nullopt;
            // Out element at coord c reads input coord with c[perm^-1]: build per-output-axis picks.
            std::vector<size_t> inStride(rank, 1);
            for (size_t d = rank; d-- > 1;) inStride[d - 1] = inStride[d] * static_cast<size_t>(x[0]->dims[d]);
            Value out;
            out.type = x[0]->type;
            for (int64_t p : perm) {
                if (p < 0 || static_cast<size_t>(p) >= rank) return std::nullopt;
                out.dims.push_back(x[0]->dims[static_cast<size_t>(p)]);
            }
            std::vector<size_t> coord(rank, 0);
            for (size_t flat = 0; flat < x[0]->size(); ++flat) {
                size_t src = 0;
                for (size_t d = 0; d < rank; ++d) src += coord[d] * inStride[static_cast<size_t>(perm[d])];
                if (out.isReal())
                    out.reals.push_back(x[0]->reals[src]);
                else
                    out.ints.push_back(x[0]->ints[src]);
                for (size_t d = rank; d-- > 0;) {
                    if (++coord[d] < static_cast<size_t>(out.dims[d])) break;
                    coord[d] = 0;
                }
            }
            return one(out);
        }
        if (op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMin" || op == "ReduceMax") {
            // Only a full reduction of a vector, which is what shape arithmetic uses.
            if (x[0]->dims.size() > 1 || x[0]->size() == 0) return std::nullopt;
            const bool keep = intAttr(n, "keepdims").value_or(1) != 0;
            Value out;
            out.type = x[0]->type;
            if (keep) out.dims = {1};
            double r = x[0]->at(0);
            int64_t ri = x[0]->isReal() ? 0 : x[0]->ints[0];
            for (size_t i = 1; i < x[0]->size(); ++i) {
                const double v = x[0]->at(i);
                if (op == "ReduceProd") r *= v;
                if (op == "ReduceSum") r += v;
                if (op == "ReduceMin") r = std::min(r, v);
                if (op == "ReduceMax") r = std::max(r, v);
                if (!x[0]->isReal()) {
                    const int64_t w = x[0]->ints[i];
                    if (op == "ReduceProd" && __builtin_mul_overflow(ri, w, &ri)) return std::nullopt;
                    if (op == "ReduceSum" && __builtin_add_overflow(ri, w, &ri)) return std::nullopt;
                    if (op == "ReduceMin") ri = std::min(ri, w);
                    if (op == "ReduceMax") ri = std::max(ri, w);
                }
            }
            if (out.isReal())
                out.reals = {r};
            else
                out.ints = {ri};
            return one(out);
        }

        using R = std::optional<double>;
        using I = std::optional<int64_t>;
        const int t0 = x[0]->type;
        if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" || op == "Min" || op == "Max" ||
            op == "Pow") {
            if (!need(2) || x.size() != 2) return std::nullopt;
            std::function<R(const std::vector<double>&)> real;
            std::function<I(const std::vector<int64_t>&)> integer;
            if (op == "Add") {
                real = [](auto& a) -> R { return a[0] + a[1]; };
                integer = [](auto& a) -> I { int64_t r; return __builtin_add_overflow(a[0], a[1], &r) ? I{} : I{r}; };
            } else if (op == "Sub") {
                real = [](auto& a) -> R { return a[0] - a[1]; };
                integer = [](auto& a) -> I { int64_t r; return __builtin_sub_overflow(a[0], a[1], &r) ? I{} : I{r}; };
            } else if (op == "Mul") {
                real = [](auto& a) -> R { return a[0] * a[1]; };
                integer = [](auto& a) -> I { int64_t r; return __builtin_mul_overflow(a[0], a[1], &r) ? I{} : I{r}; };
            } else if (op == "Div") {
                real = [](auto& a) -> R { return a[0] / a[1]; };
                // ONNX integer division truncates toward zero, as C++ does.
                integer = [](auto& a) -> I {
                    if (a[1] == 0 || (a[0] == std::numeric_limits<int64_t>::min() && a[1] == -1)) return I{};
                    return a[0] / a[1];
                };
            } else if (op == "Mod") {
                const bool fmod = intAttr(n, "fmod").value_or(0) != 0;
                real = [](auto& a) -> R { return std::fmod(a[0], a[1]); };
                integer = [fmod](auto& a) -> I {
                    if (a[1] == 0 || (a[0] == std::numeric_limits<int64_t>::min() && a[1] == -1)) return I{};
                    int64_t r = a[0] % a[1];
                    if (!fmod && r != 0 && ((r < 0) != (a[1] < 0))) r += a[1];  // sign of the divisor
                    return r;
                };
            } else if (op == "Min" || op == "Max") {
                const bool mn = op == "Min";
                real = [mn](auto& a) -> R { return mn ? std::min(a[0], a[1]) : std::max(a[0], a[1]); };
                integer = [mn](auto& a) -> I { return mn ? std::min(a[0], a[1]) : std::max(a[0], a[1]); };
            } else {
                real = [](auto& a) -> R { return std::pow(a[0], a[1]); };
                integer = [](auto& a) -> I {
                    if (a[1] < 0 || a[1] > 62) return I{};
                    int64_t r = 1;
                    for (int64_t k = 0; k < a[1]; ++k)
                        if (__builtin_mul_overflow(r, a[0], &r)) return I{};
                    return r;
                };
            }
            return one(elementwise({x[0], x[1]}, t0, real, integer));
        }
        if (op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual" ||
            op == "And" || op == "Or" || op == "Xor") {
            if (!need(2) || x.size() != 2) return std::nullopt;
            auto cmp = [op](double a, double b) -> bool {
                if (op == "Equal") return a == b;
                if (op == "Less") return a < b;
                if (op == "Greater") return a > b;
                if (op == "LessOrEqual") return a <= b;
                if (op == "GreaterOrEqual") return a >= b;
                if (op == "And") return a != 0 && b != 0;
                if (op == "Or") return a != 0 || b != 0;
                return (a != 0) != (b != 0);
            };
            auto icmp = [op](int64_t a, int64_t b) -> bool {
                if (op == "Equal") return a == b;
                if (op == "Less") return a < b;
                if (op == "Greater") return a > b;
                if (op == "LessOrEqual") return a <= b;
                if (op == "GreaterOrEqual") return a >= b;
                if (op == "And") return a != 0 && b != 0;
                if (op == "Or") return a != 0 || b != 0;
                return (a != 0) != (b != 0);
            };
            return one(elementwise({x[0], x[1]}, TensorProto::BOOL,
                                   [cmp](auto& a) -> R { return cmp(a[0], a[1]) ? 1.0 : 0.0; },
                                   [icmp](auto& a) -> I { return icmp(a[0], a[1]) ? 1 : 0; }));
        }
        if (op == "ScatterND") {
            // data with slices replaced: indices [..., k] pick positions in data's first k axes,
            // updates [..., data.dims[k:]] are written there in order (reduction "none" only).
            if (!need(3) || x[0]->isReal() != x[2]->isReal()) return std::nullopt;
            if (auto* r = attr(n, "reduction"); r && r->s() != "none") return std::nullopt;
            const Value& data = *x[0];
            const Value& idx = *x[1];
            const Value& upd = *x[2];
            if (idx.isReal() || idx.dims.empty()) return std::nullopt;
            const size_t k = static_cast<size_t>(idx.dims.back());
            if (k < 1 || k > data.dims.size()) return std::nullopt;
            size_t slice = 1;
            for (size_t d = k; d < data.dims.size(); ++d) slice *= static_cast<size_t>(data.dims[d]);
            const size_t tuples = k ? idx.ints.size() / k : 0;
            if (upd.size() != tuples * slice) return std::nullopt;
            Value out = data;
            for (size_t t = 0; t < tuples; ++t) {
                size_t offset = 0;
                for (size_t a = 0; a < k; ++a) {
                    int64_t i = idx.ints[t * k + a];
                    const int64_t dim = data.dims[a];
                    if (i < 0) i += dim;
                    if (i < 0 || i >= dim) return std::nullopt;
                    offset = offset * static_cast<size_t>(dim) + static_cast<size_t>(i);
                }
                offset *= slice;
                for (size_t e = 0; e < slice; ++e) {
                    if (out.isReal())
                        out.reals[offset + e] = upd.reals[t * slice + e];
                    else
                        out.ints[offset + e] = upd.ints[t * slice + e];
                }
            }
            return one(out);
        }
        if (op == "Where") {
            if (!need(3) || x[1]->isReal() != x[2]->isReal()) return std::nullopt;
            return one(elementwise({x[0], x[1], x[2]}, x[1]->type,
                                   [](auto& a) -> R { return a[0] != 0 ? a[1] : a[2]; },
                                   [](auto& a) -> I { return a[0] != 0 ? a[1] : a[2]; }));
        }
        if (op == "Not" || op == "Neg" || op == "Abs" || op == "Floor" || op == "Ceil" || op == "Sqrt" ||
            op == "Reciprocal" || op == "Sign") {
            if (x.size() != 1) return std::nullopt;
            const int type = op == "Not" ? TensorProto::BOOL : t0;
            std::function<R(const std::vector<double>&)> real = [op](auto& a) -> R {
                const double v = a[0];
                if (op == "Not") return v == 0 ? 1.0 : 0.0;
                if (op == "Neg") return -v;
                if (op == "Abs") return std::fabs(v);
                if (op == "Floor") return std::floor(v);
                if (op == "Ceil") return std::ceil(v);
                if (op == "Sqrt") return std::sqrt(v);
                if (op == "Reciprocal") return 1.0 / v;
                return static_cast<double>((v > 0) - (v < 0));
            };
            std::function<I(const std::vector<int64_t>&)> integer = [op](auto& a) -> I {
                const int64_t v = a[0];
                if (op == "Not") return v == 0 ? 1 : 0;
                if (v == std::numeric_limits<int64_t>::min() && (op == "Neg" || op == "Abs")) return I{};
                if (op == "Neg") return -v;
                if (op == "Abs") return v < 0 ? -v : v;
                if (op == "Floor" || op == "Ceil") return v;
                if (op == "Sign") return (v > 0) - (v < 0);
                return I{};  // Sqrt and Reciprocal of integers are not defined in ONNX
            };
            return one(elementwise({x[0]}, type, real, integer));
        }
        return std::nullopt;
    }
};

int defaultOpset(const onnx::ModelProto& model) {
    for (const auto& o : model.opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx") return static_cast<int>(o.version());
    return 1;
}

// Shape inference, with ONNX's own data propagation where it works.
std::string inferShapes(onnx::ModelProto& model) {
    model.mutable_graph()->clear_value_info();  // rebuilt from scratch: stale entries would conflict
    try {
        onnx::ShapeInferenceOptions options(false, 0, true);
        onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
        return {};
    } catch (const std::exception&) {
    }
    model.mutable_graph()->clear_value_info();
    try {
        onnx::shape_inference::InferShapes(model);
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

std::optional<std::vector<int64_t>> staticShapeOf(const onnx::ValueInfoProto& vi) {
    if (!vi.has_type() || !vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return std::nullopt;
    std::vector<int64_t> dims;
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0) return std::nullopt;
        dims.push_back(d.dim_value());
    }
    return dims;
}

}  // namespace

std::vector<std::string> setInputShapes(onnx::ModelProto& model, const InputShapeOptions& options) {
    std::vector<std::string> changes;
    auto* g = model.mutable_graph();
    std::unordered_set<std::string> initializers;
    for (const auto& init : g->initializer()) initializers.insert(init.name());
    std::set<std::string> used;
    bool batchUsed = false;
    bool batchFixed = false;  // an input whose leading dimension is already the batch asked for
    std::string inputsText;  // for the message when the batch size has nowhere to go
    int listed = 0;
    for (auto& in : *g->mutable_input()) {
        if (initializers.count(in.name())) continue;
        if (!in.has_type() || !in.type().has_tensor_type()) continue;
        auto* tt = in.mutable_type()->mutable_tensor_type();
        auto given = options.shapes.find(in.name());
        if (given != options.shapes.end()) {
            used.insert(in.name());
            if (tt->has_shape() && tt->shape().dim_size() != static_cast<int>(given->second.size()))
                throw std::invalid_argument("input '" + in.name() + "' has rank " + std::to_string(tt->shape().dim_size()) +
                                            ", but the given shape has " + std::to_string(given->second.size()) +
                                            " dimensions");
            auto* shape = tt->mutable_shape();
            shape->clear_dim();
            std::string text;
            for (int64_t d : given->second) {
                shape->add_dim()->set_dim_value(d);
                text += (text.empty() ? "" : "x") + std::to_string(d);
            }
            changes.push_back(in.name() + "=" + text);
            continue;
        }
        if (!tt->has_shape()) continue;  // rank unknown: nothing to set
        if (options.batch > 0 && tt->shape().dim_size() > 0 && tt->shape().dim(0).has_dim_value() &&
            tt->shape().dim(0).dim_value() == options.batch)
            batchFixed = true;
        {
            std::string dims;
            for (const auto& d : tt->shape().dim())
                dims += (dims.empty() ? "" : "x") + (d.has_dim_value() ? std::to_string(d.dim_value()) : d.dim_param().empty() ? "?" : d.dim_param());
            if (++listed <= 2) inputsText += (inputsText.empty() ? "" : ", ") + in.name() + " " + dims;
            else if (listed == 3) inputsText += ", ...";
        }
        for (int i = 0; i < tt->shape().dim_size(); ++i) {
            auto* d = tt->mutable_shape()->mutable_dim(i);
            if (d->has_dim_value() && d->dim_value() >= 0) continue;
            std::string label = d->has_dim_param() && !d->dim_param().empty() ? d->dim_param() : "";
            std::string lower = label;
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
            const bool isBatch = options.batch > 0 && lower.find("batch") != std::string::npos;
            batchUsed = batchUsed || isBatch;
            const int64_t value = isBatch ? options.batch : options.defaultDim;
            d->set_dim_value(value);
            changes.push_back(in.name() + (label.empty() ? "[" + std::to_string(i) + "]" : ":" + label) + "=" +
                              std::to_string(value));
        }
    }
    for (const auto& [name, shape] : options.shapes)
        if (!used.count(name)) throw std::invalid_argument("the model has no input named '" + name + "'");
    if (options.batch > 0 && !batchUsed && !batchFixed)
        throw std::invalid_argument("a batch size was given, but no input has a symbolic dimension named like 'batch' "
                                    "(inputs: " + inputsText + "); give the whole shape with --input-shape NAME=D1xD2x...");
    // Declared output shapes were written for the old input shapes: let inference redo them.
    if (!options.shapes.empty())
        for (auto& out : *g->mutable_output())
            if (out.has_type() && out.type().has_tensor_type()) out.mutable_type()->mutable_tensor_type()->clear_shape();
    return changes;
}

FoldStats foldShapeComputations(onnx::ModelProto& model, size_t maxElements, int maxRounds) {
    FoldStats stats;
    const int opset = defaultOpset(model);
    auto* g = model.mutable_graph();
    std::unordered_set<std::string> graphOutputs;
    for (const auto& o : g->output()) graphOutputs.insert(o.name());

    bool stale = true;  // nodes changed since the last shape inference
    for (int round = 0; round < maxRounds; ++round) {
        stats.inferenceError = inferShapes(model);
        ++stats.rounds;
        stale = false;

        std::unordered_map<std::string, std::vector<int64_t>> shapes;
        for (const auto& vi : g->value_info())
            if (auto s = staticShapeOf(vi)) shapes[vi.name()] = *s;
        for (const auto& vi : g->input())
            if (auto s = staticShapeOf(vi)) shapes[vi.name()] = *s;
        for (const auto& vi : g->output())
            if (auto s = staticShapeOf(vi)) shapes[vi.name()] = *s;
        std::unordered_map<std::string, Value> known;
        for (const auto& init : g->initializer()) {
            shapes[init.name()].assign(init.dims().begin(), init.dims().end());
            if (auto v = fromTensorProto(init, maxElements)) known[init.name()] = *v;
        }

        Evaluator eval{shapes, known, opset, maxElements};
        std::vector<bool> folded(static_cast<size_t>(g->node_size()), false);
        int newlyFolded = 0;
        for (int i = 0; i < g->node_size(); ++i) {
            const auto& n = g->node(i);
            const bool isConstant = n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx");
            bool writesOutput = false;
            for (const auto& o : n.output()) writesOutput = writesOutput || graphOutputs.count(o);
            if (writesOutput || n.output_size() == 0) continue;
            auto values = eval.evaluate(n);
            if (!values || values->size() < static_cast<size_t>(n.output_size())) continue;
            bool small = true;
            for (const auto& v : *values) small = small && v.size() <= maxElements;
            if (!small) continue;
            for (int k = 0; k < n.output_size(); ++k)
                if (!n.output(k).empty()) {
                    known[n.output(k)] = (*values)[static_cast<size_t>(k)];
                    shapes[n.output(k)] = (*values)[static_cast<size_t>(k)].dims;
                }
            if (!isConstant) {
                folded[static_cast<size_t>(i)] = true;
                ++newlyFolded;
            }
        }
        if (newlyFolded == 0) break;

        // Which values are still read by a node that stays (folded nodes read nothing any more).
        std::unordered_set<std::string> needed(graphOutputs.begin(), graphOutputs.end());
        for (int i = 0; i < g->node_size(); ++i) {
            if (folded[static_cast<size_t>(i)]) continue;
            for (const auto& in : g->node(i).input()) needed.insert(in);
            // Subgraphs (If, Loop, Scan) may read outer values by name.
            for (const auto& a : g->node(i).attribute()) {
                std::function<void(const onnx::GraphProto&)> scan = [&](const onnx::GraphProto& sub) {
                    for (const auto& sn : sub.node()) {
                        for (const auto& in : sn.input()) needed.insert(in);
                        for (const auto& sa : sn.attribute()) {
                            if (sa.has_g()) scan(sa.g());
                            for (const auto& sg : sa.graphs()) scan(sg);
                        }
                    }
                };
                if (a.has_g()) scan(a.g());
                for (const auto& sg : a.graphs()) scan(sg);
            }
        }
        // A folded value still read becomes a Constant at its producer's position, so the node
        // list stays topologically sorted; folded values nobody reads are dropped.
        google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
        for (int i = 0; i < g->node_size(); ++i) {
            const auto& n = g->node(i);
            if (!folded[static_cast<size_t>(i)]) {
                // A Constant that only folded nodes read goes with them.
                const bool deadConstant = n.op_type() == "Constant" && n.output_size() == 1 && !needed.count(n.output(0));
                if (!deadConstant) *nodes.Add() = n;
                continue;
            }
            ++stats.foldedNodes;
            for (const auto& out : n.output()) {
                if (out.empty() || !needed.count(out)) continue;
                onnx::NodeProto c;
                c.set_op_type("Constant");
                c.set_name(n.output_size() == 1 && !n.name().empty() ? n.name() : out);
                c.add_output(out);
                auto* a = c.add_attribute();
                a->set_name("value");
                a->set_type(onnx::AttributeProto::TENSOR);
                *a->mutable_t() = toTensorProto(known.at(out), out);
                *nodes.Add() = std::move(c);
            }
        }
        g->mutable_node()->Swap(&nodes);
        stale = true;
    }
    if (stale) {
        stats.inferenceError = inferShapes(model);
        ++stats.rounds;
    }
    return stats;
}

}  // namespace graphopt::onnxfold
