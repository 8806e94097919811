#include "store/RunStore.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <thread>

#include <unistd.h>

#include "store/SqliteDatabase.h"
#include "store/SqliteStatement.h"
#include "store/SqliteTransaction.h"
#include "store/StoreError.h"
#include "store/StoreFileProbe.h"
#include "store/StoreSchema.h"

namespace graphopt {

namespace fs = std::filesystem;

std::string storeTimestampNow() {
    auto now = std::chrono::system_clock::now();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
    std::time_t secs = std::time_t(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, int(ms % 1000));
    return buf;
}

std::string RunStore::defaultPath() {
    fs::path base;
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg && fs::path(xdg).is_absolute()) {
        base = xdg;
    } else if (const char* home = std::getenv("HOME"); home && *home) {
        base = fs::path(home) / ".local" / "share";
    } else {
        throw StoreError("cannot find a folder for the run database: neither XDG_DATA_HOME nor HOME is set "
                         "(choose a file with --db)");
    }
    fs::path dir = base / "graphopt-studio";
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw StoreError(dir.string() + ": cannot create the folder for the run database: " + ec.message());
    return (dir / "runs.db").string();
}

RunStore::RunStore(const std::string& path) : path_(path) { open(latestStoreSchemaVersion()); }

RunStore::RunStore(const std::string& path, int schemaVersion) : path_(path) { open(schemaVersion); }

RunStore::~RunStore() = default;

namespace {

// Sets up a connection: busy timeout, foreign keys, WAL, and the schema up to `schemaVersion`.
void prepareConnection(SqliteDatabase& db, int schemaVersion) {
    db.exec("PRAGMA busy_timeout = 10000");
    db.exec("PRAGMA foreign_keys = ON");
    // Switching to WAL needs a moment alone with a fresh file; another process creating the same
    // new database at the same instant can make it busy, so try again briefly.
    for (int attempt = 0;; ++attempt) {
        try {
            SqliteStatement mode(db, "PRAGMA journal_mode = WAL");
            std::string got = mode.step() ? mode.getText(0) : "";
            if (got != "wal") throw StoreError(db.path() + ": cannot switch the run database to WAL mode (" + got + ")");
            break;
        } catch (const StoreError&) {
            if (attempt >= 100) throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    // In WAL mode NORMAL loses nothing when the process is killed; only a power cut can drop the
    // last commits.
    db.exec("PRAGMA synchronous = NORMAL");
    {
        SqliteTransaction tx(db);  // another process may migrate at the same time: re-read inside
        migrateStoreSchema(db, schemaVersion);
        tx.commit();
    }
}

// A new database is built under a temporary name and linked into place, so no other process
// ever sees a half-made (e.g. zero-length) file at the path, which it would rightly refuse.
// link() never replaces: when another process created the file first, ours is dropped.
void createAtomically(const std::string& path, int schemaVersion) {
    const std::string tmp = path + ".new-" + std::to_string(::getpid()) + "-" +
                            std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()) % 100000);
    fs::path parent = fs::path(path).parent_path();
    if (!parent.empty() && !fs::is_directory(parent))
        throw StoreError(path + ": cannot create the run database: the folder " + parent.string() + " does not exist");
    auto removeTmp = [&] {
        std::error_code ec;
        for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(tmp + suffix, ec);
    };
    try {
        SqliteDatabase db(tmp, SqliteDatabase::Mode::ReadWriteCreate);
        prepareConnection(db, schemaVersion);
    } catch (...) {
        removeTmp();
        throw;
    }
    int rc = ::link(tmp.c_str(), path.c_str());
    int err = errno;
    removeTmp();
    if (rc != 0 && err != EEXIST)
        throw StoreError(path + ": cannot create the run database: " + std::strerror(err));
}

// Why an existing database cannot be written ("" when it can): access() says so for a read-only
// mount even to root (EROFS), and for file modes to everyone else. SQLite also needs to create
// its -wal and -shm files next to the database.
std::string whyNotWritable(const std::string& path) {
    if (::access(path.c_str(), W_OK) != 0) return std::strerror(errno);
    fs::path parent = fs::path(path).parent_path();
    if (parent.empty()) parent = ".";
    if (::access(parent.c_str(), W_OK) != 0) return "its folder " + parent.string() + ": " + std::strerror(errno);
    return {};
}

}  // namespace

void RunStore::requireWritable(const std::string& what) const {
    if (readOnly())
        throw StoreError(path_ + ": the run database is read-only (" + readOnlyReason_ + "): it can be listed and read, "
                         "but cannot " + what + "; record into another file (--db PATH) or do not record (--no-store)");
}

void RunStore::open(int schemaVersion) {
    // Nothing below writes to an existing file before the probe has accepted it.
    StoreFileProbe probe = StoreFileProbe::inspect(path_, latestStoreSchemaVersion());
    if (probe.exists) readOnlyReason_ = whyNotWritable(path_);
    if (readOnly()) {
        db_ = std::make_unique<SqliteDatabase>(path_, SqliteDatabase::Mode::ReadOnly);
        db_->exec("PRAGMA busy_timeout = 10000");
        db_->exec("PRAGMA foreign_keys = ON");
        if (probe.schemaVersion < schemaVersion)
            throw StoreError(path_ + ": the run database is read-only (" + readOnlyReason_ + ") and has schema version " +
                             std::to_string(probe.schemaVersion) + ", older than this program's " +
                             std::to_string(schemaVersion) + ", which it cannot migrate without writing; the file was "
                             "left unchanged");
        return;  // no runs are marked interrupted: that would be a write
    }
    if (!probe.exists) {
        createAtomically(path_, schemaVersion);
        probe = StoreFileProbe::inspect(path_, latestStoreSchemaVersion());  // ours, or a racer's
    }
    db_ = std::make_unique<SqliteDatabase>(path_, SqliteDatabase::Mode::ReadWrite);
    prepareConnection(*db_, schemaVersion);
    if (schemaVersion >= latestStoreSchemaVersion()) interruptedAtOpen_ = markInterruptedRuns();
}

int RunStore::schemaVersion() { return storeSchemaVersion(*db_); }

std::vector<int64_t> RunStore::markInterruptedRuns() {
    if (readOnly()) return {};
    struct Candidate {
        int64_t id;
        ProcessIdentity owner;
    };
    std::vector<Candidate> dead;
    {
        SqliteStatement q(*db_,
                          "SELECT id, coalesce(owner_pid, 0), coalesce(owner_host, ''), coalesce(owner_boot_id, ''), "
                          "coalesce(owner_start_ticks, -1) FROM runs WHERE status = 'running'");
        while (q.step()) {
            Candidate c{q.getInt(0), {q.getInt(1), q.getText(2), q.getText(3), q.getInt(4)}};
            if (processLiveness(c.owner) == ProcessLiveness::Dead) dead.push_back(std::move(c));
        }
    }
    std::vector<int64_t> marked;
    if (dead.empty()) return marked;
    SqliteTransaction tx(*db_);
    // The end time is the last progress the run reported (start time plus its last elapsed time).
    auto& up = db_->cached(
        "UPDATE runs SET status = 'interrupted', error = ?2, "
        "ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', started_at, '+' || coalesce("
        "(SELECT elapsed_s FROM events WHERE run_id = ?1 ORDER BY id DESC LIMIT 1), 0) || ' seconds') "
        "WHERE id = ?1 AND status = 'running'");
    for (const auto& c : dead) {
        up.bindInt(1, c.id)
            .bindText(2, "the process that ran it (pid " + std::to_string(c.owner.pid) + " on " + c.owner.host +
                             ") ended without finishing it; what it recorded is kept")
            .run();
        if (db_->changes() > 0) marked.push_back(c.id);
    }
    tx.commit();
    return marked;
}

int64_t RunStore::addGraph(const GraphRecord& g) {
    requireWritable("record a graph");
    SqliteTransaction tx(*db_);
    db_->cached("INSERT INTO graphs (content_hash, name, source_path, nodes, edges, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (content_hash) DO NOTHING")
        .bindText(1, g.contentHash)
        .bindText(2, g.name)
        .bindText(3, g.sourcePath)
        .bindInt(4, g.nodes)
        .bindInt(5, g.edges)
        .bindText(6, storeTimestampNow())
        .run();
    auto& q = db_->cached("SELECT id FROM graphs WHERE content_hash = ?");
    q.bindText(1, g.contentHash);
    if (!q.step()) throw StoreError(path_ + ": the graph just added cannot be found");
    int64_t id = q.getInt(0);
    q.reset();
    tx.commit();
    return id;
}

int64_t RunStore::beginRun(const RunSpec& spec, std::optional<int64_t> graphId, const std::string& note,
                           const ProcessIdentity& owner) {
    requireWritable("start a run");
    SqliteTransaction tx(*db_);
    db_->cached("INSERT INTO runs (kind, engine, objective, spec_json, graph_id, seed, started_at, status, note, "
                "owner_pid, owner_host, owner_boot_id, owner_start_ticks) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)")
        .bindText(1, spec.kind)
        .bindText(2, spec.engine)
        .bindText(3, spec.objective)
        .bindText(4, spec.toJson().dump())
        .bindOptionalInt(5, graphId)
        .bindInt(6, int64_t(spec.seed))
        .bindText(7, storeTimestampNow())
        .bindText(8, note)
        .bindInt(9, owner.pid)
        .bindText(10, owner.host)
        .bindText(11, owner.bootId)
        .bindInt(12, owner.startTicks)
        .run();
    int64_t id = db_->lastInsertId();
    tx.commit();
    return id;
}

void RunStore::appendEvents(int64_t runId, const std::vector<ProgressEvent>& events) {
    if (events.empty()) return;
    requireWritable("record events");
    SqliteTransaction tx(*db_);
    auto& ins = db_->cached(
        "INSERT INTO events (run_id, step, evaluations, best_cost, elapsed_s, values_json) VALUES (?, ?, ?, ?, ?, ?)");
    for (const auto& e : events) {
        ins.bindInt(1, runId).bindInt(2, e.step).bindInt(3, e.evaluations);
        if (std::isnan(e.bestCost))
            ins.bindNull(4);
        else
            ins.bindDouble(4, e.bestCost);
        ins.bindDouble(5, e.elapsedS).bindText(6, e.values.dump()).run();
    }
    tx.commit();
}

void RunStore::setResult(int64_t runId, const RunResult& r) {
    requireWritable("record a result");
    SqliteTransaction tx(*db_);
    auto& ins = db_->cached(
        "INSERT OR REPLACE INTO results (run_id, cost, costs_json, placement_json, schedule_json) "
        "VALUES (?, ?, ?, ?, ?)");
    ins.bindInt(1, runId);
    if (r.cost && !std::isnan(*r.cost))
        ins.bindDouble(2, *r.cost);
    else
        ins.bindNull(2);
    ins.bindText(3, r.costs.dump()).bindText(4, r.placement.dump()).bindText(5, r.schedule.dump()).run();
    tx.commit();
}

void RunStore::addMeasurements(int64_t runId, const std::vector<TuningMeasurement>& ms) {
    if (ms.empty()) return;
    requireWritable("record measurements");
    SqliteTransaction tx(*db_);
    auto& ins = db_->cached(
        "INSERT INTO tuning_measurements (run_id, task, config_json, latency_s, gflops, error, cluster_id, batch, "
        "elapsed_s, compile_s, repeats) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const auto& m : ms) {
        const nlohmann::json config = {{"index", m.config}, {"knobs", m.knobs}};
        ins.bindInt(1, runId).bindText(2, m.task).bindText(3, config.dump());
        if (m.ok) {
            ins.bindDouble(4, m.latencyS).bindDouble(5, m.gflops);
        } else {
            ins.bindNull(4).bindNull(5);
        }
        ins.bindText(6, m.error).bindOptionalInt(7, m.cluster).bindInt(8, m.batch).bindDouble(9, m.elapsedS);
        ins.bindDouble(10, m.compileS).bindInt(11, m.repeats).run();
    }
    tx.commit();
}

void RunStore::endRun(int64_t runId, RunStatus status, const std::string& error) {
    requireWritable("end a run");
    if (status == RunStatus::Running) throw StoreError(path_ + ": a run cannot end in status 'running'");
    SqliteTransaction tx(*db_);
    db_->cached("UPDATE runs SET status = ?, error = ?, ended_at = ? WHERE id = ?")
        .bindText(1, runStatusName(status))
        .bindText(2, error)
        .bindText(3, storeTimestampNow())
        .bindInt(4, runId)
        .run();
    if (db_->changes() == 0) throw StoreError(path_ + ": no run with id " + std::to_string(runId));
    tx.commit();
}

int64_t RunStore::addPolicy(const PolicyRecord& p) {
    requireWritable("record a policy");
    SqliteTransaction tx(*db_);
    db_->cached("INSERT INTO policies (file, content_hash, training_run_id, created_at) VALUES (?, ?, ?, ?)")
        .bindText(1, p.file)
        .bindText(2, p.contentHash)
        .bindOptionalInt(3, p.trainingRunId)
        .bindText(4, p.createdAt.empty() ? storeTimestampNow() : p.createdAt)
        .run();
    int64_t id = db_->lastInsertId();
    tx.commit();
    return id;
}

void RunStore::deleteRun(int64_t runId) {
    requireWritable("delete a run");
    SqliteTransaction tx(*db_);
    SqliteStatement q(*db_,
                      "SELECT status, coalesce(owner_pid, 0), coalesce(owner_host, ''), coalesce(owner_boot_id, ''), "
                      "coalesce(owner_start_ticks, -1) FROM runs WHERE id = ?");
    q.bindInt(1, runId);
    if (!q.step()) throw StoreError(path_ + ": no run with id " + std::to_string(runId));
    if (q.getText(0) == "running") {
        ProcessIdentity owner{q.getInt(1), q.getText(2), q.getText(3), q.getInt(4)};
        if (processLiveness(owner) != ProcessLiveness::Dead)
            throw StoreError(path_ + ": run " + std::to_string(runId) + " is still running (pid " +
                             std::to_string(owner.pid) + " on " + owner.host + "); cancel it before deleting it");
    }
    q.reset();
    // Events, results and measurements go with the run (ON DELETE CASCADE); policies keep their
    // file but forget the training run (ON DELETE SET NULL).
    db_->cached("DELETE FROM runs WHERE id = ?").bindInt(1, runId).run();
    tx.commit();
}

namespace {

const char kSummarySelect[] =
    "SELECT r.id, r.kind, r.engine, r.objective, r.spec_json, r.graph_id, coalesce(g.name, ''), r.seed, "
    "r.started_at, coalesce(r.ended_at, ''), r.status, r.error, r.note, coalesce(r.owner_pid, 0), "
    "coalesce(r.owner_host, ''), "
    "(SELECT count(*) FROM events e WHERE e.run_id = r.id), "
    "(SELECT e.evaluations FROM events e WHERE e.run_id = r.id ORDER BY e.id DESC LIMIT 1), "
    "(SELECT min(e.best_cost) FROM events e WHERE e.run_id = r.id), "
    "(SELECT e.elapsed_s FROM events e WHERE e.run_id = r.id ORDER BY e.id DESC LIMIT 1), "
    "res.cost, res.costs_json "
    "FROM runs r LEFT JOIN graphs g ON g.id = r.graph_id LEFT JOIN results res ON res.run_id = r.id ";

nlohmann::json parseJson(const std::string& text, const std::string& fallback = "null") {
    auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    return j.is_discarded() ? nlohmann::json::parse(fallback) : j;
}

RunSummary readSummary(const SqliteStatement& q) {
    RunSummary s;
    RunRecord& r = s.run;
    r.id = q.getInt(0);
    r.kind = q.getText(1);
    r.engine = q.getText(2);
    r.objective = q.getText(3);
    r.spec = parseJson(q.getText(4), "{}");
    r.graphId = q.getOptionalInt(5);
    r.graphName = q.getText(6);
    r.seed = uint64_t(q.getInt(7));
    r.startedAt = q.getText(8);
    r.endedAt = q.getText(9);
    r.status = runStatusFromName(q.getText(10));
    r.error = q.getText(11);
    r.note = q.getText(12);
    r.ownerPid = q.getInt(13);
    r.ownerHost = q.getText(14);
    s.eventCount = q.getInt(15);
    s.evaluations = q.getOptionalInt(16).value_or(0);
    s.bestCost = q.getOptionalDouble(17);
    s.elapsedS = q.getOptionalDouble(18);
    if (auto cost = q.getOptionalDouble(19)) s.bestCost = cost;
    if (!q.isNull(20)) {
        auto costs = parseJson(q.getText(20), "{}");
        if (costs.is_object() && costs.contains("evaluations") && costs["evaluations"].is_number())
            s.evaluations = costs["evaluations"].get<int64_t>();
    }
    return s;
}

}  // namespace

std::vector<RunSummary> RunStore::querySummaries(const std::string& where, const std::vector<std::string>& args,
                                                 int64_t limit) {
    std::string sql = std::string(kSummarySelect) + where + " ORDER BY r.id";
    if (limit > 0) sql += " DESC LIMIT " + std::to_string(limit);  // the newest `limit` runs
    SqliteStatement q(*db_, sql);
    for (size_t i = 0; i < args.size(); ++i) q.bindText(int(i) + 1, args[i]);
    std::vector<RunSummary> out;
    while (q.step()) out.push_back(readSummary(q));
    if (limit > 0) std::reverse(out.begin(), out.end());
    return out;
}

std::vector<RunSummary> RunStore::listRuns(const RunFilter& f) {
    std::string where;
    std::vector<std::string> args;
    auto add = [&](const std::string& cond) { where += (where.empty() ? "WHERE " : " AND ") + cond; };
    if (!f.graph.empty()) {
        args.push_back(f.graph);
        std::string n = std::to_string(args.size());
        add("(g.name = ?" + n + " OR g.source_path = ?" + n + " OR g.content_hash LIKE ?" + n + " || '%')");
    }
    if (!f.engine.empty()) {
        args.push_back(f.engine);
        add("r.engine = ?" + std::to_string(args.size()));
    }
    if (!f.kind.empty()) {
        args.push_back(f.kind);
        add("r.kind = ?" + std::to_string(args.size()));
    }
    if (f.status) {
        args.push_back(runStatusName(*f.status));
        add("r.status = ?" + std::to_string(args.size()));
    }
    return querySummaries(where, args, f.limit);
}

std::optional<RunSummary> RunStore::findRun(int64_t runId) {
    auto v = querySummaries("WHERE r.id = " + std::to_string(runId), {}, 0);
    if (v.empty()) return std::nullopt;
    return v.front();
}

RunSummary RunStore::run(int64_t runId) {
    auto r = findRun(runId);
    if (!r) throw StoreError(path_ + ": no run with id " + std::to_string(runId));
    return *r;
}

std::optional<GraphRecord> RunStore::graph(int64_t graphId) {
    auto& q = db_->cached("SELECT id, content_hash, name, source_path, nodes, edges FROM graphs WHERE id = ?");
    q.bindInt(1, graphId);
    if (!q.step()) return std::nullopt;
    GraphRecord g{q.getInt(0), q.getText(1), q.getText(2), q.getText(3), q.getInt(4), q.getInt(5)};
    q.reset();
    return g;
}

std::vector<ProgressEvent> RunStore::events(int64_t runId) {
    auto& q = db_->cached(
        "SELECT step, evaluations, best_cost, elapsed_s, values_json FROM events WHERE run_id = ? ORDER BY id");
    q.bindInt(1, runId);
    std::vector<ProgressEvent> out;
    while (q.step()) {
        ProgressEvent e;
        e.step = q.getInt(0);
        e.evaluations = q.getInt(1);
        e.bestCost = q.getOptionalDouble(2).value_or(std::nan(""));
        e.elapsedS = q.getDouble(3);
        e.values = parseJson(q.getText(4), "{}");
        out.push_back(std::move(e));
    }
    q.reset();
    return out;
}

std::optional<RunResult> RunStore::result(int64_t runId) {
    auto& q = db_->cached("SELECT cost, costs_json, placement_json, schedule_json FROM results WHERE run_id = ?");
    q.bindInt(1, runId);
    if (!q.step()) return std::nullopt;
    RunResult r;
    r.cost = q.getOptionalDouble(0);
    r.costs = parseJson(q.getText(1), "{}");
    r.placement = parseJson(q.getText(2));
    r.schedule = parseJson(q.getText(3));
    q.reset();
    return r;
}

std::vector<TuningMeasurement> RunStore::measurements(int64_t runId) {
    auto& q = db_->cached(
        "SELECT task, config_json, latency_s, gflops, error, cluster_id, batch, elapsed_s, compile_s, repeats "
        "FROM tuning_measurements WHERE run_id = ? ORDER BY id");
    q.bindInt(1, runId);
    std::vector<TuningMeasurement> out;
    while (q.step()) {
        TuningMeasurement m;
        m.task = q.getText(0);
        const nlohmann::json config = parseJson(q.getText(1), "{}");
        if (config.is_object()) {
            if (config.contains("index") && config["index"].is_number_integer()) m.config = config["index"].get<int64_t>();
            if (config.contains("knobs") && config["knobs"].is_string()) m.knobs = config["knobs"].get<std::string>();
        }
        const std::optional<double> latency = q.getOptionalDouble(2), gflops = q.getOptionalDouble(3);
        m.ok = latency.has_value();
        m.latencyS = latency.value_or(0);
        m.gflops = gflops.value_or(0);
        m.error = q.getText(4);
        m.cluster = q.getOptionalInt(5);
        m.batch = int(q.getOptionalInt(6).value_or(0));
        m.elapsedS = q.getOptionalDouble(7).value_or(0);
        m.compileS = q.getOptionalDouble(8).value_or(0);
        m.repeats = int(q.getOptionalInt(9).value_or(0));
        out.push_back(std::move(m));
    }
    q.reset();
    return out;
}

std::vector<PolicyRecord> RunStore::policies() {
    auto& q = db_->cached("SELECT id, file, content_hash, training_run_id, created_at FROM policies ORDER BY id");
    std::vector<PolicyRecord> out;
    while (q.step()) out.push_back({q.getInt(0), q.getText(1), q.getText(2), q.getOptionalInt(3), q.getText(4)});
    q.reset();
    return out;
}

}  // namespace graphopt
