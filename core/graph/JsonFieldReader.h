// What the JSON loaders (the native format, the NeurIPS workloads) share to check a parsed
// document: the name of a value's type for error messages, and a reader that names the file and
// the JSON path of the first problem ("g.json: $.nodes[3].inputs[1]: ..."). Each loader derives
// its own reader and adds the value checks its format needs.
#pragma once

#include <cstdint>
#include <string>

#include "graph/GraphError.h"

namespace graphopt {

// "an integer", "a number", "a string", "an array", "null", ... for "expected X, found <this>".
template <class Json>
std::string jsonTypeName(const Json& j) {
    if (j.is_number_integer()) return "an integer";
    if (j.is_number_float()) return "a number";
    if (j.is_array() || j.is_object()) return std::string("an ") + j.type_name();
    return std::string(j.is_null() ? "" : "a ") + j.type_name();
}

template <class Json>
class JsonFieldReader {
public:
    explicit JsonFieldReader(std::string path) : path_(std::move(path)) {}

    [[noreturn]] void fail(const std::string& where, const std::string& what) const {
        throw GraphError(path_ + ": " + where + ": " + what);
    }
    const Json& require(const Json& obj, const char* key, const std::string& where) const {
        auto it = obj.find(key);
        if (it == obj.end()) fail(where, std::string("missing key \"") + key + "\"");
        return *it;
    }
    const Json* optional(const Json& obj, const char* key) const {
        auto it = obj.find(key);
        return it == obj.end() ? nullptr : &*it;
    }
    [[noreturn]] void outOfRange(const Json& j, const std::string& where, int64_t lo, int64_t hi) const {
        fail(where, "integer " + j.dump() + " is out of range (" + std::to_string(lo) + " .. " + std::to_string(hi) + ")");
    }

private:
    std::string path_;
};

}  // namespace graphopt
