// Errors raised while loading or validating a graph. The message is meant for a user: loaders
// prefix it with the file name, so the whole text reads "FILE: REASON".
#pragma once

#include <stdexcept>
#include <string>

namespace graphopt {

class GraphError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace graphopt
