#include "graph/IsolatedLoader.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "graph/GraphError.h"

namespace graphopt {

namespace fs = std::filesystem;

bool readsWithLibonnx(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    return !(ext == ".json" || ext == ".pbtxt" || ext == ".txt" || ext == ".dot" || ext == ".gv");
}

namespace {

// A temporary file name of our own (mkstemp), removed when this goes out of scope.
struct TempJson {
    std::string path;
    TempJson() {
        std::string dir = fs::temp_directory_path().string();
        std::string templ = dir + "/graphopt-isolated-XXXXXX";
        const int fd = ::mkstemp(templ.data());
        if (fd < 0) throw GraphError(std::string("cannot make a temporary file in ") + dir + ": " + std::strerror(errno));
        ::close(fd);
        path = templ;
    }
    ~TempJson() {
        std::error_code ec;
        fs::remove(path, ec);
    }
};

void writeAll(int fd, const std::string& s) {
    size_t at = 0;
    while (at < s.size()) {
        const ssize_t w = ::write(fd, s.data() + at, s.size() - at);
        if (w <= 0 && errno != EINTR) return;
        if (w > 0) at += size_t(w);
    }
}

}  // namespace

Graph loadGraphIsolated(const std::string& path, const LoadOptions& options, int timeoutS) {
    if (!readsWithLibonnx(path)) return loadGraph(path, options);
    TempJson out;
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) throw GraphError(path + ": cannot start a reader (" + std::strerror(errno) + ")");
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(pipeFds[0]);
        ::close(pipeFds[1]);
        throw GraphError(path + ": cannot start a reader (" + std::strerror(errno) + ")");
    }
    if (pid == 0) {
        // The child: read, hand the graph over as JSON, and leave without running this process's
        // exit handlers or flushing its buffers (they belong to the parent).
        ::close(pipeFds[0]);
        int status = 0;
        try {
            saveJson(loadGraph(path, options), out.path);
        } catch (const std::exception& e) {
            writeAll(pipeFds[1], e.what());
            status = 3;
        } catch (...) {
            writeAll(pipeFds[1], path + ": the reader failed");
            status = 3;
        }
        ::_exit(status);
    }
    ::close(pipeFds[1]);
    // The child's error text, until it closes the pipe (it exits) or the time is up.
    std::string message;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutS);
    bool timedOut = false;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timedOut = true;
            break;
        }
        pollfd p{pipeFds[0], POLLIN, 0};
        const int r = ::poll(&p, 1, int(std::min<int64_t>(left.count(), 1000)));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        char buf[4096];
        const ssize_t n = ::read(pipeFds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // EOF: the child is gone
        message.append(buf, size_t(n));
    }
    ::close(pipeFds[0]);
    if (timedOut) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timedOut) throw GraphError(path + ": the ONNX reader did not finish within " + std::to_string(timeoutS) + " s");
    if (WIFSIGNALED(status))
        throw GraphError(path + ": the ONNX reader crashed (signal " + std::to_string(WTERMSIG(status)) + ", " +
                         ::strsignal(WTERMSIG(status)) + ")");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw GraphError(message.empty() ? path + ": the ONNX reader failed (exit status " +
                                               std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")"
                                         : message);
    return loadJson(out.path);
}

}  // namespace graphopt
