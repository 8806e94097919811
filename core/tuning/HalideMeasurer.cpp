#include "tuning/HalideMeasurer.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/ResourceLocator.h"

namespace graphopt::tuning {

std::string findMeasureWorker() {
    if (const char* env = std::getenv("GRAPHOPT_MEASURE_WORKER"); env && *env) return env;
    const char* name = "graphopt-measure-worker";
    const std::string found = findHelperProgram(name);
    return found.empty() ? name : found;
}

HalideMeasurer::HalideMeasurer(HalideMeasurerOptions options) : options_(std::move(options)) {
    if (options_.workerPath.empty()) options_.workerPath = findMeasureWorker();
}

HalideMeasurer::~HalideMeasurer() { stopWorker(); }

void HalideMeasurer::startWorker() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        throw std::runtime_error(std::string("cannot create the worker socket: ") + std::strerror(errno));
    const std::string path = options_.workerPath;
    const bool hooks = !options_.testHooks.empty();
    const int threads = options_.threads;
    const bool avx512 = hostVectorLanes() == 16;
    const pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        throw std::runtime_error(std::string("cannot fork the measure worker: ") + std::strerror(errno));
    }
    if (pid == 0) {
        // Child: the socket becomes stdin and stdout (dup2 clears close-on-exec).
        dup2(sv[1], 0);
        dup2(sv[1], 1);
        // Nothing else of the parent's (databases, other workers' sockets) leaks into the worker.
        close_range(3, ~0U, 0);
        // Halide's thread pool reads HL_NUM_THREADS at its first use and the worker sets libtorch's
        // intra-op threads from it; OpenBLAS (libtorch's mm and its im2col convs) and OpenMP read
        // theirs at load time. All at one count, so "1 thread" means one thread on both sides.
        if (threads > 0) {
            const std::string n = std::to_string(threads);
            for (const char* var : {"HL_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"}) setenv(var, n.c_str(), 1);
        }
        // Debian's OpenBLAS 0.3.21 does not know recent Xeons (family 6 model 207 here) and falls
        // back to its SSE3 "Prescott" kernels, which made libtorch's 1x1 convs and mm 4-5x slower
        // than they are. On AVX-512 hosts it is told to use its Skylake-X kernels, unless the
        // user chose a core type.
        if (avx512 && !std::getenv("OPENBLAS_CORETYPE")) setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
        const char* argv[] = {path.c_str(), hooks ? "--test-hooks" : nullptr, nullptr};
        if (path.find('/') != std::string::npos)
            execv(path.c_str(), const_cast<char* const*>(argv));
        else
            execvp(path.c_str(), const_cast<char* const*>(argv));
        _exit(127);
    }
    close(sv[1]);
    pid_ = pid;
    fd_ = sv[0];
    readBuffer_.clear();
    preparedKey_.clear();
    ++workerStarts_;
}

void HalideMeasurer::stopWorker() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    if (pid_ > 0) {
        kill(pid_, SIGKILL);
        int status = 0;
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
    }
    pid_ = -1;
    preparedKey_.clear();
}

nlohmann::json HalideMeasurer::request(const nlohmann::json& req, double timeoutS) {
    using Clock = std::chrono::steady_clock;
    if (pid_ <= 0) startWorker();
    const std::string line = req.dump() + "\n";
    size_t sent = 0;
    while (sent < line.size()) {
        const ssize_t n = send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
    }
    // The worker died: reap it and say how.
    auto diedError = [&]() -> std::string {
        int status = 0;
        pid_t w;
        while ((w = waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
        }
        pid_ = -1;
        if (w > 0 && WIFSIGNALED(status))
            return std::string("measure worker crashed (signal ") + std::to_string(WTERMSIG(status)) + ", " +
                   strsignal(WTERMSIG(status)) + "); restarted";
        if (w > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127)
            return "cannot run the measure worker '" + options_.workerPath + "'";
        return "measure worker exited (status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
    };
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeoutS);
    std::string error;
    // A failed write means the worker is gone (it may not have started at all).
    if (sent < line.size()) error = diedError();
    while (error.empty()) {
        const size_t nl = readBuffer_.find('\n');
        if (nl != std::string::npos) {
            std::string reply = readBuffer_.substr(0, nl);
            readBuffer_.erase(0, nl + 1);
            try {
                return nlohmann::json::parse(reply);
            } catch (const std::exception&) {
                error = "unreadable reply from the measure worker";
                break;
            }
        }
        const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
        if (left <= 0) {
            error = "timeout after " + std::to_string(timeoutS) + " s (worker killed and restarted)";
            break;
        }
        pollfd p{fd_, POLLIN, 0};
        const int r = poll(&p, 1, static_cast<int>(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) continue;
        char buf[4096];
        const ssize_t n = r > 0 ? read(fd_, buf, sizeof buf) : -1;
        if (n > 0) {
            readBuffer_.append(buf, static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        error = diedError();  // EOF or error
    }
    stopWorker();
    return {{"ok", false}, {"error", error}};
}

std::string HalideMeasurer::prepare(const TuningTask& task) {
    if (preparedKey_ == task.key() && pid_ > 0) return {};
    const nlohmann::json prep = request({{"op", "prepare"}, {"task", task.toJson()}}, options_.prepareTimeoutS);
    if (!prep.value("ok", false)) {
        const std::string why = prep.value("error", std::string("unknown error"));
        if (why.rfind("cannot run the measure worker", 0) == 0) throw std::runtime_error(why);
        return "preparing the task failed: " + why;
    }
    preparedKey_ = task.key();
    return {};
}

std::vector<MeasureResult> HalideMeasurer::measure(const TuningTask& task, const std::vector<ConfigIndex>& configs) {
    std::vector<MeasureResult> results;
    const nlohmann::json taskJson = task.toJson();
    for (ConfigIndex c : configs) {
        MeasureResult r;
        r.config = c;
        if (const std::string why = prepare(task); !why.empty()) {
            r.error = why;
            results.push_back(r);
            continue;
        }
        nlohmann::json req = {{"op", "measure"},           {"task", taskJson},
                              {"config", c},               {"min_time_s", options_.minTimeS},
                              {"max_repeats", options_.maxRepeats}, {"check", options_.check}};
        if (auto it = options_.testHooks.find(c); it != options_.testHooks.end()) req["hook"] = it->second;
        const nlohmann::json reply = request(req, options_.timeoutS);
        r.ok = reply.value("ok", false);
        r.compileS = reply.value("compile_s", 0.0);
        if (r.ok) {
            r.latencyS = reply.value("latency_s", 0.0);
            r.repeats = reply.value("repeats", 0);
            r.gflops = r.latencyS > 0 ? task.flops() / r.latencyS * 1e-9 : 0;
        } else {
            r.error = reply.value("error", std::string("unknown error"));
        }
        results.push_back(r);
    }
    return results;
}

LibtorchComparison HalideMeasurer::compareWithLibtorch(const TuningTask& task, ConfigIndex config, double minTimeS) {
    LibtorchComparison c;
    if (const std::string why = prepare(task); !why.empty()) {
        c.error = why;
        return c;
    }
    const nlohmann::json reply =
        request({{"op", "compare"}, {"task", task.toJson()}, {"config", config}, {"min_time_s", minTimeS}},
                options_.timeoutS + 40 * minTimeS);
    c.ok = reply.value("ok", false);
    if (!c.ok) {
        c.error = reply.value("error", std::string("unknown error"));
        return c;
    }
    c.threads = reply.value("threads", 0);
    c.tunedS = reply.value("tuned_s", 0.0);
    c.libtorchS = reply.value("libtorch_s", 0.0);
    c.tunedGflops = reply.value("tuned_gflops", 0.0);
    c.libtorchGflops = reply.value("libtorch_gflops", 0.0);
    c.pairs = reply.value("pairs", 0);
    return c;
}

nlohmann::json HalideMeasurer::workerInfo() { return request({{"op", "info"}}, options_.prepareTimeoutS); }

nlohmann::json LibtorchComparison::toJson() const {
    if (!ok) return {{"ok", false}, {"error", error}};
    return {{"ok", true},           {"threads", threads},
            {"tuned_s", tunedS},    {"libtorch_s", libtorchS},
            {"tuned_gflops", tunedGflops}, {"libtorch_gflops", libtorchGflops},
            {"pairs", pairs},       {"speedup", speedup()}};
}

const LibtorchComparison* FairComparison::atThreads(int threads) const {
    for (const auto& c : byThreads)
        if (c.ok && c.threads == threads) return &c;
    return nullptr;
}

const LibtorchComparison* FairComparison::libtorchBest() const {
    const LibtorchComparison* best = nullptr;
    for (const auto& c : byThreads)
        if (c.ok && (!best || c.libtorchS < best->libtorchS)) best = &c;
    return best;
}

nlohmann::json FairComparison::taskFields() const {
    const LibtorchComparison* b = libtorchBest();
    return {{"libtorch_gflops", b ? nlohmann::json(b->libtorchGflops) : nlohmann::json(nullptr)},
            {"tuned_fair_gflops", b ? nlohmann::json(b->tunedGflops) : nlohmann::json(nullptr)},
            {"libtorch_threads", b ? nlohmann::json(b->threads) : nlohmann::json(nullptr)},
            {"libtorch_fair", toJson()}};
}

nlohmann::json FairComparison::toJson() const {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& c : byThreads) a.push_back(c.toJson());
    return a;
}

FairComparison compareFairly(const TuningTask& task, ConfigIndex config, const std::vector<int>& threadCounts,
                             HalideMeasurerOptions options, double minTimeS) {
    FairComparison out;
    for (int threads : threadCounts) {
        // One worker per thread count: Halide's pool size is fixed when a process first runs a kernel.
        options.threads = threads;
        HalideMeasurer m(options);
        out.byThreads.push_back(m.compareWithLibtorch(task, config, minTimeS));
    }
    return out;
}

}  // namespace graphopt::tuning
