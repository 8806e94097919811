// graphopt runs list|show|compare|export|delete: the recorded runs, for comparison.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "Args.h"
#include "Commands.h"
#include "StoreOptions.h"
#include "store/BestSoFarCurves.h"
#include "store/RunComparison.h"
#include "store/RunExport.h"
#include "store/RunStore.h"
#include "store/StoreError.h"

namespace graphopt::cli {

namespace {

const char kRunsUsage[] = "runs list|show|compare|export|delete (see graphopt runs --help)";

const OptionSpec kJson{"json", "", "", "print JSON instead of text"};

int64_t parseRunId(const std::string& text) {
    int64_t id = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || p != text.data() + text.size() || id <= 0)
        throw UsageError("a run ID is a positive whole number (see `graphopt runs list`), not '" + text + "'");
    return id;
}

std::string number(std::optional<double> v, const char* fmt = "%.6g") {
    if (!v || std::isnan(*v)) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, *v);
    return buf;
}

// "2026-11-30T03:04:05.123Z" -> "2026-11-30 03:04:05" for tables.
std::string shortTime(const std::string& iso) {
    if (iso.size() < 19) return iso.empty() ? "-" : iso;
    std::string t = iso.substr(0, 19);
    t[10] = ' ';
    return t;
}

std::string pad(const std::string& s, size_t width) { return s.size() >= width ? s : s + std::string(width - s.size(), ' '); }
std::string padLeft(const std::string& s, size_t width) {
    return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// A result's scalar figures ("runtime_s=0.0123 peak_bytes=1.2e+09 ...").
std::string scalarCosts(const nlohmann::json& costs) {
    std::string out;
    if (!costs.is_object()) return out;
    for (auto it = costs.begin(); it != costs.end(); ++it) {
        if (!it.value().is_number()) continue;
        out += (out.empty() ? "" : "  ") + it.key() + "=" + number(it.value().get<double>(), "%.10g");
    }
    return out;
}

// The database must exist for commands that read a given run: creating an empty one to say "no
// run 3" would leave a stray file behind a typo in --db.
RunStore openExisting(const Args& a) {
    std::string path = storePathFrom(a);
    if (!std::filesystem::exists(path)) throw StoreError(path + ": no run database here (nothing recorded yet)");
    return RunStore(path);
}

int runsList(const ArgList& args) {
    const CommandSpec spec = runsSubcommand("list");
    Args a(args, spec);
    a.noPositional();
    RunFilter f;
    f.graph = a.get("graph").value_or("");
    f.engine = a.get("engine").value_or("");
    f.kind = a.get("kind").value_or("");
    if (a.has("status")) f.status = runStatusFromName(a.getChoice("status"));
    f.limit = a.getInt("limit", 0, 1000000000);
    std::string path = storePathFrom(a);
    RunStore store(path);
    auto runs = store.listRuns(f);
    if (a.has("json")) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& s : runs) {
            auto j = runSummaryToJson(s);
            j.erase("spec");
            out.push_back(std::move(j));
        }
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    if (runs.empty()) {
        std::cout << "no runs" << (f.graph.empty() && f.engine.empty() && f.kind.empty() && !f.status ? "" : " match")
                  << " in " << path << "\n";
        return 0;
    }
    // Every column as wide as its longest cell, so long graph names never run into the next one.
    std::vector<std::vector<std::string>> table = {
        {"ID", "STATUS", "KIND", "ENGINE", "OBJECTIVE", "GRAPH", "SEED", "EVALS", "BEST", "EVENTS", "STARTED (UTC)"}};
    for (const auto& s : runs) {
        const auto& r = s.run;
        table.push_back({std::to_string(r.id), runStatusName(r.status), r.kind, r.engine,
                         r.objective.empty() ? "-" : r.objective, r.graphName.empty() ? "-" : r.graphName,
                         std::to_string(r.seed), std::to_string(s.evaluations), number(s.bestCost),
                         std::to_string(s.eventCount), shortTime(r.startedAt)});
    }
    const std::set<size_t> rightAligned = {0, 6, 7, 8, 9};
    std::vector<size_t> width(table[0].size(), 0);
    for (const auto& cells : table)
        for (size_t c = 0; c < cells.size(); ++c) width[c] = std::max(width[c], cells[c].size());
    for (const auto& cells : table) {
        std::string line;
        for (size_t c = 0; c < cells.size(); ++c) {
            if (c) line += "  ";
            const bool last = c + 1 == cells.size();
            line += rightAligned.count(c) ? padLeft(cells[c], width[c]) : last ? cells[c] : pad(cells[c], width[c]);
        }
        std::cout << line << "\n";
    }
    return 0;
}

int runsShow(const ArgList& args) {
    const CommandSpec spec = runsSubcommand("show");
    Args a(args, spec);
    int64_t id = parseRunId(a.onePositional("run ID"));
    RunStore store = openExisting(a);
    RunSummary s = store.run(id);
    std::optional<GraphRecord> graph;
    if (s.run.graphId) graph = store.graph(*s.run.graphId);
    auto result = store.result(id);
    if (a.has("json")) {
        nlohmann::json j = runSummaryToJson(s);
        if (graph)
            j["graph"] = {{"id", graph->id},       {"name", graph->name},   {"content_hash", graph->contentHash},
                          {"source_path", graph->sourcePath}, {"nodes", graph->nodes}, {"edges", graph->edges}};
        j["result"] = result ? nlohmann::json{{"cost", result->cost ? nlohmann::json(*result->cost) : nlohmann::json()},
                                              {"costs", result->costs}}
                             : nlohmann::json();
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    const RunRecord& r = s.run;
    std::cout << "run " << r.id << ": " << r.kind << " " << r.engine;
    if (!r.objective.empty()) std::cout << ", objective " << r.objective;
    std::cout << ", " << runStatusName(r.status) << "\n";
    if (graph)
        std::cout << "graph:      " << graph->name << " (" << graph->nodes << " nodes, " << graph->edges
                  << " edges, hash " << graph->contentHash.substr(0, 12) << ")"
                  << (graph->sourcePath.empty() ? "" : " " + graph->sourcePath) << "\n";
    // The model's input sizes when they were set at load (--batch, --input-shape); training runs
    // keep theirs in params (they apply to every model of the train split).
    if (r.spec.contains("input_dims") && r.spec["input_dims"].is_string())
        std::cout << "inputs:     " << r.spec["input_dims"].get<std::string>() << "\n";
    else if (const nlohmann::json p = r.spec.value("params", nlohmann::json::object());
             r.kind == "training" && p.is_object() && (p.contains("batch") || p.contains("input_shapes"))) {
        std::cout << "inputs:     ";
        if (p.contains("batch")) std::cout << "batch " << p["batch"].dump() << (p.contains("input_shapes") ? ", " : "");
        if (p.contains("input_shapes")) std::cout << "shapes " << p["input_shapes"].dump();
        std::cout << " (models of the train split)\n";
    }
    std::cout << "seed:       " << r.seed << "\n";
    std::cout << "started:    " << r.startedAt << "\n";
    std::cout << "ended:      " << (r.endedAt.empty() ? "-" : r.endedAt) << "\n";
    std::cout << "events:     " << s.eventCount;
    if (s.eventCount > 0) std::cout << " (last at " << s.evaluations << " evaluations, " << number(s.elapsedS) << " s)";
    std::cout << "\n";
    std::cout << "best cost:  " << number(s.bestCost, "%.10g") << "\n";
    if (result) std::cout << "result:     " << scalarCosts(result->costs) << "\n";
    if (!r.error.empty()) std::cout << "error:      " << r.error << "\n";
    if (!r.note.empty()) std::cout << "note:       " << r.note << "\n";
    if (r.status == RunStatus::Running) std::cout << "writer:     pid " << r.ownerPid << " on " << r.ownerHost << "\n";
    std::cout << "spec:       " << r.spec.dump() << "\n";
    return 0;
}

int runsCompare(const ArgList& args) {
    const CommandSpec spec = runsSubcommand("compare");
    Args a(args, spec);
    if (a.positional().size() < 2) throw UsageError("compare needs at least two run IDs");
    std::vector<int64_t> ids;
    for (const auto& p : a.positional()) ids.push_back(parseRunId(p));
    const bool json = a.has("json");
    // Text shows a short table of the curves; JSON every point unless --points says otherwise.
    size_t points = a.has("points") ? size_t(a.getInt("points", 0, 1000000)) : (json ? 0 : 11);
    RunStore store = openExisting(a);
    const RunComparison cmp = compareRuns(store, ids);
    const std::vector<RunSummary>& runs = cmp.runs;
    AlignedCurves curves = alignBestSoFar(store, ids, points);
    const std::vector<std::string>& warnings = cmp.warnings;

    if (json) {
        nlohmann::json out = {{"runs", nlohmann::json::array()}, {"curves", curves.toJson()}, {"warnings", warnings}};
        for (size_t i = 0; i < runs.size(); ++i) {
            auto j = runSummaryToJson(runs[i]);
            const auto& result = cmp.results[i];
            j["result"] = result ? nlohmann::json{{"cost", result->cost ? nlohmann::json(*result->cost) : nlohmann::json()},
                                                  {"costs", result->costs}}
                                 : nlohmann::json();
            j["feasible"] = i >= cmp.feasible.size() || cmp.feasible[i];
            out["runs"].push_back(std::move(j));
        }
        nlohmann::json ranking = nlohmann::json::array();  // run ids, best first, infeasible last
        for (size_t r : cmp.ranking) ranking.push_back(runs[r].run.id);
        out["ranking"] = ranking;
        nlohmann::json figures = nlohmann::json::array();
        for (const auto& f : cmp.figures) {
            nlohmann::json values = nlohmann::json::array();
            for (const auto& v : f.values) values.push_back(v ? nlohmann::json(*v) : nlohmann::json());
            figures.push_back({{"name", f.name},
                               {"values", values},
                               {"better", f.better < 0 ? "lower" : f.better > 0 ? "higher" : "none"},
                               {"best_run", f.best ? nlohmann::json(runs[*f.best].run.id) : nlohmann::json()}});
        }
        out["figures"] = figures;
        if (cmp.placementsComparable)
            out["placement_differences"] = {{"nodes", cmp.placedNodes}, {"differ", cmp.nodesPlacedDifferently}};
        if (cmp.tuningComparable)
            out["knob_differences"] = {{"task", cmp.task}, {"best_knobs", cmp.bestKnobs}, {"differ", cmp.knobsThatDiffer}};
        std::cout << out.dump(2) << "\n";
        return 0;
    }

    // Rows first, then every column as wide as its longest cell: graph names and figure names of
    // any length stay apart. The best value of a score is marked with '*'.
    std::vector<std::pair<std::string, std::vector<std::string>>> rows;
    auto row = [&](const std::string& label, auto value) {
        std::vector<std::string> cells;
        for (size_t i = 0; i < runs.size(); ++i) cells.push_back(value(i));
        rows.push_back({label, std::move(cells)});
    };
    row("", [&](size_t i) { return "run " + std::to_string(runs[i].run.id); });
    row("engine", [&](size_t i) { return runs[i].run.engine; });
    row("objective", [&](size_t i) { return runs[i].run.objective.empty() ? "-" : runs[i].run.objective; });
    row("graph", [&](size_t i) { return runs[i].run.graphName.empty() ? "-" : runs[i].run.graphName; });
    row("seed", [&](size_t i) { return std::to_string(runs[i].run.seed); });
    row("status", [&](size_t i) { return std::string(runStatusName(runs[i].run.status)); });
    // Feasible runs first by best cost, then the infeasible ones (RunComparison::ranking).
    std::vector<size_t> rankOf(runs.size(), 0);
    for (size_t r = 0; r < cmp.ranking.size(); ++r) rankOf[cmp.ranking[r]] = r + 1;
    row("rank", [&](size_t i) {
        const bool feasible = i >= cmp.feasible.size() || cmp.feasible[i];
        return std::to_string(rankOf[i]) + (feasible ? "" : " (infeasible)");
    });
    for (const auto& f : cmp.figures)
        row(f.name, [&](size_t i) {
            // An infeasible run's cost is the penalty's, not a score: say what it is instead.
            if (f.name == "best cost" && i < cmp.feasible.size() && !cmp.feasible[i]) return cmp.infeasibleText(i);
            std::string cell = f.name == "elapsed s" ? number(f.values[i], "%.4g") : number(f.values[i]);
            return (f.best && *f.best == i) ? "*" + cell : cell;
        });
    const size_t curveRow = rows.size();
    row("evaluations", [&](size_t i) { return "run " + std::to_string(runs[i].run.id); });
    for (size_t x = 0; x < curves.evaluations.size(); ++x)
        row(std::to_string(curves.evaluations[x]), [&](size_t r) { return number(curves.best[r][x]); });
    size_t labelWidth = 0;
    std::vector<size_t> width(runs.size(), 0);
    for (const auto& [label, cells] : rows) {
        labelWidth = std::max(labelWidth, label.size());
        for (size_t i = 0; i < cells.size(); ++i) width[i] = std::max(width[i], cells[i].size());
    }
    auto print = [&](const std::pair<std::string, std::vector<std::string>>& r) {
        std::cout << pad(r.first, labelWidth);
        for (size_t i = 0; i < r.second.size(); ++i) std::cout << "  " << padLeft(r.second[i], width[i]);
        std::cout << "\n";
    };
    for (size_t i = 0; i < curveRow; ++i) print(rows[i]);
    std::cout << "\nbest so far, aligned by evaluations:\n";
    for (size_t i = curveRow; i < rows.size(); ++i) print(rows[i]);
    if (curves.evaluations.empty()) std::cout << "(no progress events recorded)\n";
    if (cmp.placementsComparable) {
        std::cout << "\nnodes placed differently: " << cmp.nodesPlacedDifferently.size() << " of " << cmp.placedNodes;
        for (size_t i = 0; i < cmp.nodesPlacedDifferently.size() && i < 10; ++i)
            std::cout << (i ? ", " : ": ") << cmp.nodesPlacedDifferently[i];
        if (cmp.nodesPlacedDifferently.size() > 10) std::cout << ", ...";
        std::cout << "\n";
    }
    if (cmp.tuningComparable) {
        std::cout << "\nbest configurations (" << cmp.task << "):\n";
        for (size_t i = 0; i < runs.size(); ++i)
            std::cout << "  run " << runs[i].run.id << ": " << (cmp.bestKnobs[i].empty() ? "-" : cmp.bestKnobs[i]) << "\n";
        std::cout << "knobs that differ: ";
        for (size_t i = 0; i < cmp.knobsThatDiffer.size(); ++i) std::cout << (i ? ", " : "") << cmp.knobsThatDiffer[i];
        std::cout << (cmp.knobsThatDiffer.empty() ? "none\n" : "\n");
    }
    std::cout << "(* marks the best value of a score)\n";
    for (const auto& warning : warnings) std::cout << "note: " << warning << "\n";
    return 0;
}

int runsExport(const ArgList& args) {
    const CommandSpec spec = runsSubcommand("export");
    Args a(args, spec);
    int64_t id = parseRunId(a.onePositional("run ID"));
    if (a.has("csv") == a.has("json")) throw UsageError("export needs exactly one of --csv or --json");
    RunStore store = openExisting(a);
    std::string text = a.has("csv") ? exportRunCsv(store, id) : exportRunJson(store, id).dump(2) + "\n";
    auto out = a.get("out");
    if (!out) {
        std::cout << text;
        return 0;
    }
    std::ofstream file(*out, std::ios::binary | std::ios::trunc);
    if (!file) throw std::runtime_error(*out + ": cannot write the export file");
    file << text;
    file.close();
    if (!file) throw std::runtime_error(*out + ": writing the export failed (disk full?)");
    std::cout << "run " << id << " exported to " << *out << "\n";
    return 0;
}

int runsDelete(const ArgList& args) {
    const CommandSpec spec = runsSubcommand("delete");
    Args a(args, spec);
    int64_t id = parseRunId(a.onePositional("run ID"));
    RunStore store = openExisting(a);
    int64_t events = store.run(id).eventCount;
    store.deleteRun(id);
    std::cout << "deleted run " << id << " (" << events << " events)\n";
    return 0;
}

}  // namespace

std::vector<CommandSpec> runsSubcommands() {
    const OptionSpec db = dbOption();
    return {
        {"runs list",
         "",
         "The recorded runs, newest first, with their best cost",
         {db,
          {"graph", "G", "", "only runs on graphs whose name, file or content hash starts with G"},
          {"engine", "E", "", "only runs of this engine or tuner"},
          {"kind", "K", "", "only placement, tuning or training runs"},
          {"status", "S", "", "only runs in this status", {"running", "finished", "cancelled", "failed", "interrupted"}},
          {"limit", "N", "0", "at most N runs (0 = all)"},
          kJson},
         {"graphopt runs list --kind placement --limit 10"}},
        {"runs show", "ID", "One run: spec, status, result and progress", {db, kJson}, {"graphopt runs show 3"}},
        {"runs compare",
         "ID ID [ID...]",
         "Runs side by side: final figures and best-so-far curves sampled at the same points",
         {db, {"points", "N", "", "curve points per run", {}, "11; all with --json"}, kJson},
         {"graphopt runs compare 1 2"}},
        {"runs export",
         "ID",
         "One run with every event, measurement and its result, as CSV or JSON",
         {db,
          {"csv", "", "", "write CSV"},
          {"json", "", "", "write JSON"},
          {"out", "FILE", "", "write to FILE instead of standard output"}},
         {"graphopt runs export 3 --csv --out run3.csv"}},
        {"runs delete", "ID", "Deletes a run with its events, measurements and result", {db}, {"graphopt runs delete 3"}},
    };
}

CommandSpec runsSubcommand(const std::string& name) {
    for (auto& sub : runsSubcommands())
        if (sub.name == "runs " + name) return sub;
    throw std::logic_error("no description of graphopt runs " + name);
}

CommandSpec runsCommand() {
    CommandSpec spec{"runs", "list|show|compare|export|delete ...", "The recorded runs, for comparison", {}, {}, ""};
    for (const auto& sub : runsSubcommands()) {
        spec.details += "graphopt " + sub.usageLine() + "\n    " + sub.summary + "\n";
        spec.examples.push_back(sub.examples.front());
    }
    return spec;
}

int cmdRuns(const ArgList& args) {
    if (args.empty()) throw UsageError(std::string("missing what to do: ") + kRunsUsage);
    const std::string& what = args[0];
    ArgList rest(args.begin() + 1, args.end());
    if (what == "list") return runsList(rest);
    if (what == "show") return runsShow(rest);
    if (what == "compare") return runsCompare(rest);
    if (what == "export") return runsExport(rest);
    if (what == "delete") return runsDelete(rest);
    throw UsageError("unknown runs command '" + what + "': " + kRunsUsage);
}

}  // namespace graphopt::cli
