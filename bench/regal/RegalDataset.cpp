// regal_dataset --out DIR [--families chain,branchy,layered,series-parallel] [--count N] [--nodes MIN,MAX]
//               [--devices PRESET|FILE[,...]] [--objective runtime|memory] [--share MIN,MAX] [--low E] [--high E]
//               [--gain G] [--seed S] [--threads T] [--rank R --ranks K] [--validation-every V]
//
// REGAL's training data set, built the way its paper built it (issue 31; core/placement/regal/
// RegalDataset.h): N graphs per family are generated (node counts drawn in [MIN, MAX]), each on
// the device setup with every device's memory set to a share of what the graph needs on one
// device (drawn in the share range, below 1: the limits bind), and BRKGA at the low and the high
// evaluation limit decides whether the graph has room for improvement. Kept graphs are written
// to DIR/train/ or DIR/validation/ (every V-th candidate index goes to validation; the split is
// fixed by the index, so it does not depend on which graphs are kept) as native JSON with their
// device setup inside (Graph::metadata "device_setup": placement reads it as the graph's own
// devices). Every verdict, kept or not, is a line of DIR/manifest-R.jsonl.
//
// Resumable and spread over processes: candidate i of a family goes to rank i % K; a rank skips
// what its manifest already holds, so an interrupted run, or a later session, goes on where it
// stopped. At the end (and with --summary alone) it prints how many graphs were generated and
// kept per family and why the others were not, from every rank's manifest in DIR.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"
#include "placement/model/DeviceModel.h"
#include "placement/regal/RegalDataset.h"
#include "run/Rng.h"
#include "run/TextList.h"

using namespace graphopt;
using namespace graphopt::regal;
namespace fs = std::filesystem;

namespace {

const char* const kUsage =
    "usage: regal_dataset --out DIR [--families a,b] [--count N] [--nodes MIN,MAX] [--devices PRESET|FILE[,...]]"
    " [--objective runtime|memory|throughput] [--share MIN,MAX] [--low E] [--high E] [--gain G] [--seed S] [--threads T]"
    " [--rank R --ranks K] [--validation-every V] [--summary]";

std::pair<double, double> range(const std::string& s, const char* flag) {
    const auto v = splitList(s);
    if (v.size() != 2) throw std::invalid_argument(std::string(flag) + " wants MIN,MAX");
    const double a = std::stod(v[0]), b = std::stod(v[1]);
    if (!(a <= b)) throw std::invalid_argument(std::string(flag) + ": MIN must be <= MAX");
    return {a, b};
}

// A seed per (run seed, family, index): the same candidate on every rank and in every session.
uint64_t candidateSeed(uint64_t seed, const std::string& family, int64_t index) {
    uint64_t h = 1469598103934665603ull ^ seed;
    for (char c : family) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    h = (h ^ static_cast<uint64_t>(index)) * 1099511628211ull;
    return h ^ (h >> 29);
}

struct Summary {
    int64_t generated = 0, kept = 0, train = 0, validation = 0;
    std::map<std::string, int64_t> reasons;  // of the graphs not kept, by reason
    double seconds = 0;
};

// Every rank's manifest in `dir`: per family.
std::map<std::string, Summary> summarize(const fs::path& dir) {
    std::map<std::string, Summary> out;
    if (!fs::exists(dir)) return out;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("manifest-", 0) != 0 || e.path().extension() != ".jsonl") continue;
        std::ifstream in(e.path());
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty()) continue;
            nlohmann::json j;
            try {
                j = nlohmann::json::parse(line);
            } catch (const std::exception&) {
                continue;  // a line cut short by an interrupted run: that candidate is made again
            }
            Summary& s = out[j.value("family", "?")];
            ++s.generated;
            s.seconds += j.value("seconds", 0.0);
            const auto& v = j.at("verdict");
            if (v.value("keep", false)) {
                ++s.kept;
                (j.value("split", "") == "validation" ? s.validation : s.train)++;
            } else {
                std::string r = v.value("reason", "");
                // "no room: the high limit is only 3.2 % better" -> one class
                if (const auto pos = r.find(" is only "); pos != std::string::npos) r = r.substr(0, pos) + " gains less than min_gain";
                ++s.reasons[r];
            }
        }
    }
    return out;
}

void printSummary(const fs::path& dir, const RoomRule* rule) {
    const auto s = summarize(dir);
    std::cout << "\n| family | generated | kept | train | validation | kept share | not kept, by reason | BRKGA s |\n"
                 "|---|---:|---:|---:|---:|---:|---|---:|\n";
    Summary all;
    for (const auto& [family, f] : s) {
        std::ostringstream why;
        for (const auto& [r, n] : f.reasons) why << (why.tellp() ? "; " : "") << r << ": " << n;
        std::cout << "| " << family << " | " << f.generated << " | " << f.kept << " | " << f.train << " | "
                  << f.validation << " | " << std::fixed << std::setprecision(0)
                  << (f.generated ? 100.0 * f.kept / f.generated : 0) << " % | " << why.str() << " | "
                  << f.seconds << " |\n"
                  << std::defaultfloat;
        all.generated += f.generated;
        all.kept += f.kept;
        all.train += f.train;
        all.validation += f.validation;
        all.seconds += f.seconds;
    }
    std::cout << "| all | " << all.generated << " | " << all.kept << " | " << all.train << " | " << all.validation
              << " | " << std::fixed << std::setprecision(0) << (all.generated ? 100.0 * all.kept / all.generated : 0)
              << " % | | " << all.seconds << " |\n"
              << std::defaultfloat;
    if (rule) std::cout << "rule: " << rule->toJson().dump() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    std::string out, devicesArg = "4xv100-16gb-nvlink", objective = "runtime";
    std::vector<std::string> families;
    for (auto f : allGraphFamilies()) families.push_back(graphFamilyName(f));
    int64_t count = 100;
    std::pair<double, double> nodes{40, 400}, share{0.3, 0.9};
    RoomRule rule;
    uint64_t seed = 1;
    int threads = 1, rank = 0, ranks = 1, validationEvery = 10;
    bool summaryOnly = false;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            auto next = [&]() -> std::string {
                if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
                return argv[++i];
            };
            if (a == "--help" || a == "-h") {
                std::cout << kUsage << "\n"
                             "Generates N graphs per family on devices whose memory is a share of each graph's"
                             " single-device need, keeps those with room for improvement (BRKGA at --low"
                             " evaluations does not fit but at --high does, or --high is --gain better), and writes"
                             " them to DIR/train and DIR/validation with a manifest of every verdict. Resumable.\n";
                return 0;
            }
            if (a == "--out") out = next();
            else if (a == "--families") families = splitList(next());
            else if (a == "--count") count = std::stoll(next());
            else if (a == "--nodes") nodes = range(next(), "--nodes");
            else if (a == "--devices") devicesArg = next();
            else if (a == "--objective") objective = next();
            else if (a == "--share") share = range(next(), "--share");
            else if (a == "--low") rule.lowBudget = std::stoll(next());
            else if (a == "--high") rule.highBudget = std::stoll(next());
            else if (a == "--gain") rule.minGain = std::stod(next());
            else if (a == "--seed") seed = std::stoull(next());
            else if (a == "--threads") threads = std::stoi(next());
            else if (a == "--rank") rank = std::stoi(next());
            else if (a == "--ranks") ranks = std::stoi(next());
            else if (a == "--validation-every") validationEvery = std::stoi(next());
            else if (a == "--summary") summaryOnly = true;
            else throw std::invalid_argument("unknown option " + a);
        }
        if (out.empty()) throw std::invalid_argument("--out DIR is required");
        if (count < 0 || nodes.first < 10 || nodes.second > 10000 || !(share.first > 0) || share.second > 1 ||
            threads < 1 || ranks < 1 || rank < 0 || rank >= ranks || validationEvery < 2)
            throw std::invalid_argument(
                "need --count >= 0, --nodes within 10-10000, --share within (0, 1], --threads >= 1, 0 <= --rank < --ranks,"
                " --validation-every >= 2");
        for (const auto& f : families) graphFamilyFromName(f);  // throws on an unknown one
    } catch (const std::exception& e) {
        std::cerr << "regal_dataset: " << e.what() << "\n" << kUsage << "\n";
        return 2;
    }
    const fs::path dir(out);
    if (summaryOnly) {
        printSummary(dir, nullptr);
        return 0;
    }
    try {
        // Several setups (comma-separated): each candidate draws one, so a data set for a
        // per-device policy mixes device counts.
        std::vector<DeviceModel> bases;
        for (const std::string& d : splitList(devicesArg)) bases.push_back(DeviceModel::load(d));
        if (bases.empty()) throw std::invalid_argument("--devices names no device setup");
        std::string basesText;
        for (const DeviceModel& b : bases)
            basesText += (basesText.empty() ? "" : ", ") + b.name + " (" + std::to_string(b.deviceCount()) + ")";
        const PlacementObjective obj = objectiveFromName(objective);
        fs::create_directories(dir / "train");
        fs::create_directories(dir / "validation");
        const fs::path manifest = dir / ("manifest-" + std::to_string(rank) + ".jsonl");
        std::set<std::pair<std::string, int64_t>> done;
        if (std::ifstream in(manifest); in) {
            std::string line;
            while (std::getline(in, line)) try {
                    const auto j = nlohmann::json::parse(line);
                    done.insert({j.at("family").get<std::string>(), j.at("index").get<int64_t>()});
                } catch (const std::exception&) {
                }
        }
        std::ofstream log(manifest, std::ios::app);
        if (!log) throw std::runtime_error("cannot write " + manifest.string());
        std::cout << "regal_dataset: " << families.size() << " families x " << count << " candidates, rank " << rank
 << " of " << ranks << ", devices " << basesText
                  << ", objective " << objective << ", rule " << rule.toJson().dump() << "; " << done.size()
                  << " already in " << manifest.string() << "\n"
                  << std::flush;
        int64_t made = 0;
        const auto start = std::chrono::steady_clock::now();
        for (int64_t i = 0; i < count; ++i)
            for (const auto& family : families) {
                if (i % ranks != rank || done.count({family, i})) continue;
                const auto t0 = std::chrono::steady_clock::now();
                const uint64_t s = candidateSeed(seed, family, i);
                Rng rng(s);
                GeneratorOptions go;
                go.family = graphFamilyFromName(family);
                go.nodes = static_cast<int>(std::lround(nodes.first + rng.uniform() * (nodes.second - nodes.first)));
                go.seed = s;
                const double sh = share.first + rng.uniform() * (share.second - share.first);
                const DeviceModel& base =
                    bases.size() == 1 ? bases[0] : bases[std::min(bases.size() - 1, size_t(rng.uniform() * double(bases.size())))];
                Graph g = generateGraph(go);
                const int64_t need = singleDevicePeakBytes(g, base);
                const DeviceModel devices = withMemoryShare(base, need, sh);
                const std::string name = family + "-" + std::to_string(i);
                g.name = name;
                const PolicyGraph pg = preparePolicyGraph(name, g, devices, obj);
                const RoomVerdict v = roomForImprovement(pg, rule, 1, threads);
                const std::string split = i % validationEvery == validationEvery - 1 ? "validation" : "train";
                nlohmann::json line = {{"family", family},     {"index", i},       {"nodes", go.nodes},
                                       {"graph_seed", s},      {"share", sh},      {"need_bytes", need},
                                       {"objective", objective}, {"rule", rule.toJson()}, {"verdict", v.toJson()},
                                       {"devices", base.name}};
                if (v.keep) {
                    g.metadata[DeviceModel::kGraphDevicesKey] = devices.toJson().dump();
                    const fs::path file = dir / split / (name + ".json");
                    saveJson(g, file.string());
                    line["split"] = split;
                    line["file"] = fs::relative(file, dir).string();
                }
                line["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                log << line.dump() << "\n" << std::flush;
                ++made;
                std::cout << "  " << std::left << std::setw(22) << name << std::right << std::setw(5) << go.nodes
                          << " nodes, memory " << std::fixed << std::setprecision(0) << 100 * sh << " %: "
                          << (v.keep ? "kept (" + split + "), " : "left out, ") << v.reason << std::defaultfloat
                          << "\n"
                          << std::flush;
            }
        std::cout << made << " candidates judged in " << std::fixed << std::setprecision(0)
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n"
                  << std::defaultfloat;
        printSummary(dir, &rule);
    } catch (const std::exception& e) {
        std::cerr << "regal_dataset: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
