// Making loader error messages safe to print. Parser messages and names quote bytes straight from
// the file; a damaged file would put control characters (terminal escapes) and broken UTF-8 into
// the CLI's stderr and the GUI's dialogs.
#pragma once

#include <exception>
#include <string>

#include "graph/GraphError.h"

namespace graphopt {

// Valid UTF-8 is kept; control characters and bytes that are not valid UTF-8 become "\xNN".
// Longer texts are cut at about `maxBytes` and end with "...".
std::string printableText(const std::string& text, size_t maxBytes = 600);

// nlohmann's parser is iterative but destroying a parsed value recurses: throws GraphError
// "PATH: JSON nested more than N levels deep (at byte B)" before such a text is parsed.
void checkJsonNesting(const std::string& text, const std::string& path, int maxDepth);
// An exception's message without nlohmann's "[json.exception.parse_error.101] " prefix.
std::string jsonErrorMessage(const std::exception& e);

// Runs `load()`; a GraphError it throws is re-thrown with everything after "PATH: " made printable.
template <class Load>
auto withPrintableErrors(const std::string& path, Load&& load) -> decltype(load()) {
    try {
        return load();
    } catch (const GraphError& e) {
        const std::string what = e.what();
        const std::string prefix = path + ": ";
        if (what.rfind(prefix, 0) == 0) throw GraphError(prefix + printableText(what.substr(prefix.size())));
        throw GraphError(printableText(what));
    }
}

}  // namespace graphopt
