#include "store/ProcessIdentity.h"

#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>
#include <vector>

#include <sys/types.h>
#include <unistd.h>

namespace graphopt {

namespace {

std::string readFirstLine(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

struct ProcStat {
    char state = '?';
    int64_t startTicks = -1;
};

// /proc/PID/stat: "pid (comm) state ppid ... starttime(22nd field) ...". comm may contain spaces
// and parentheses, so fields are counted from the last ')'.
bool readProcStat(int64_t pid, ProcStat& out) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    if (!in) return false;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto close = text.rfind(')');
    if (close == std::string::npos) return false;
    std::istringstream fields(text.substr(close + 1));
    std::vector<std::string> f;
    for (std::string s; fields >> s;) f.push_back(s);
    if (f.size() < 20) return false;
    out.state = f[0].empty() ? '?' : f[0][0];  // field 3
    try {
        out.startTicks = std::stoll(f[19]);  // field 22
    } catch (...) {
        return false;
    }
    return true;
}

}  // namespace

ProcessIdentity ProcessIdentity::current() {
    ProcessIdentity id;
    id.pid = int64_t(::getpid());
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0) id.host = host;
    id.bootId = readFirstLine("/proc/sys/kernel/random/boot_id");
    ProcStat st;
    if (readProcStat(id.pid, st)) id.startTicks = st.startTicks;
    return id;
}

ProcessLiveness processLiveness(const ProcessIdentity& owner) {
    ProcessIdentity self = ProcessIdentity::current();
    if (owner.host != self.host) return ProcessLiveness::Unknown;
    if (!owner.bootId.empty() && !self.bootId.empty() && owner.bootId != self.bootId) return ProcessLiveness::Dead;
    if (owner.pid <= 0) return ProcessLiveness::Unknown;
    if (owner.pid == self.pid) {
        // Our own pid: alive unless the row was written by an earlier process that had our pid.
        return (owner.startTicks < 0 || owner.startTicks == self.startTicks) ? ProcessLiveness::Alive
                                                                             : ProcessLiveness::Dead;
    }
    if (::kill(pid_t(owner.pid), 0) != 0 && errno == ESRCH) return ProcessLiveness::Dead;
    // The pid exists (kill succeeded or EPERM: another user's process). Is it still our writer?
    ProcStat st;
    if (readProcStat(owner.pid, st)) {
        if (st.state == 'Z' || st.state == 'X') return ProcessLiveness::Dead;  // exited, not yet reaped
        if (owner.startTicks >= 0 && st.startTicks != owner.startTicks) return ProcessLiveness::Dead;
    }
    return ProcessLiveness::Alive;
}

}  // namespace graphopt
