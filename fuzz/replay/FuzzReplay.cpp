// fuzz_replay: runs a fuzz target's check (fuzz/FuzzChecks.h) over many inputs in ONE process,
// in the order given, in the normal build (gcc, no sanitizers). It exists for the defects that
// need the state earlier inputs left behind: libFuzzer's own replay (`fuzz_onnx FILES...`) runs
// under AddressSanitizer, which sees nothing inside Debian's uninstrumented libraries; this one
// runs under valgrind, which sees every read of freed or unallocated memory wherever it happens:
//
//   valgrind --error-exitcode=99 build/fuzz/replay/fuzz_replay onnx DIR      (files in name order)
//   build/fuzz/replay/fuzz_replay onnx --from 1000 --to 2000 DIR            (a slice, to bisect)
//   build/fuzz/replay/fuzz_replay onnx @LIST                                (one path per line)
//
// As in the fuzz targets, each input is first copied to one fixed path with the target's
// extension (the loaders take the graph's name from it). A check that lets an exception escape
// is reported (file and message) and counted; the exit status is 1 when any did, 2 on bad usage.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "FuzzChecks.h"

namespace {

namespace fs = std::filesystem;

using graphopt::fuzz::Target;
using graphopt::fuzz::targets;

int usage(const std::string& why) {
    std::cerr << "fuzz_replay: " << why << "\n"
              << "usage: fuzz_replay TARGET [--from N] [--to N] [--every N] (DIR | FILE | @LIST)...\n"
              << "  runs the target's check on every input in one process, in order (a DIR in name order);\n"
              << "  --from/--to keep the inputs numbered N.. / ..N (1-based, after expansion), --every N\n"
              << "  prints progress every N inputs. Targets:";
    for (const Target& t : targets()) std::cerr << ' ' << t.name;
    std::cerr << "\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) return usage("need a target and inputs");
    const std::string name = argv[1];
    auto target = std::find_if(targets().begin(), targets().end(), [&](const Target& t) { return name == t.name; });
    if (target == targets().end()) return usage("no fuzz target named '" + name + "'");

    size_t from = 1, to = SIZE_MAX, every = 1000;
    std::vector<std::string> inputs;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        auto number = [&](size_t& out) {
            if (i + 1 >= argc) return false;
            char* end = nullptr;
            const unsigned long long v = std::strtoull(argv[++i], &end, 10);
            if (!end || *end || v == 0) return false;
            out = static_cast<size_t>(v);
            return true;
        };
        if (a == "--from" || a == "--to" || a == "--every") {
            if (!number(a == "--from" ? from : a == "--to" ? to : every)) return usage(a + " needs a positive number");
        } else if (!a.empty() && a[0] == '@') {
            std::ifstream list(a.substr(1));
            if (!list) return usage("cannot read the list " + a.substr(1));
            for (std::string line; std::getline(list, line);)
                if (!line.empty()) inputs.push_back(line);
        } else if (fs::is_directory(a)) {
            std::vector<std::string> files;
            for (const auto& e : fs::directory_iterator(a))
                if (e.is_regular_file()) files.push_back(e.path().string());
            std::sort(files.begin(), files.end());
            inputs.insert(inputs.end(), files.begin(), files.end());
        } else if (fs::is_regular_file(a)) {
            inputs.push_back(a);
        } else {
            return usage("no such file or folder: " + a);
        }
    }
    if (from > inputs.size()) return usage("--from " + std::to_string(from) + " is past the " + std::to_string(inputs.size()) + " inputs");
    to = std::min(to, inputs.size());

    const fs::path work = fs::temp_directory_path() / ("graphopt-fuzz-replay-" + std::to_string(::getpid()));
    fs::create_directories(work);
    const std::string fixed = (work / (std::string("input") + target->extension)).string();
    size_t escaped = 0;
    for (size_t n = from; n <= to; ++n) {
        const std::string& file = inputs[n - 1];
        std::error_code ec;
        fs::copy_file(file, fixed, fs::copy_options::overwrite_existing, ec);
        if (ec) {
            std::cerr << "fuzz_replay: cannot copy " << file << ": " << ec.message() << "\n";
            fs::remove_all(work, ec);
            return 2;
        }
        try {
            target->check(fixed);
        } catch (const std::exception& e) {
            ++escaped;
            std::cout << "input " << n << " (" << file << "): escaped: " << e.what() << std::endl;
        }
        if (n % every == 0) std::cout << "input " << n << " of " << to << " done (" << file << ")" << std::endl;
    }
    std::error_code ec;
    fs::remove_all(work, ec);
    std::cout << "fuzz_replay: " << (to - from + 1) << " inputs (" << from << ".." << to << "), " << escaped
              << " escaped the check" << std::endl;
    return escaped ? 1 : 0;
}
