// Telling the partitioning workloads (docs/formats.md, "Partitioning workloads") from the formats
// that share their extensions: a NeurIPS 2020 workload is a .json file like native JSON, a
// PipeDream profile a .txt file like CostGraphDef text. Used by loadGraph's detection.
#pragma once

#include <string>

namespace graphopt {

// True when the file is a JSON object with the top-level keys "maxSizePerFPGA" and "nodes" and
// without "format" (native JSON's first key). Reads the file as a stream of JSON events, stopping
// as soon as the answer is known; false for a file that is not valid JSON (its loader says why).
bool isNeuripsWorkloadFile(const std::string& path);

// True when the file's first non-empty line has " -- " and "forward_compute_time=".
bool isPipeDreamProfileFile(const std::string& path);

}  // namespace graphopt
