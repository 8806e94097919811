// Who writes a run: enough to tell, later and from another process, whether that writer is
// still alive. A pid alone is not enough: pids are reused, and a database may be shared between
// machines or survive a reboot. So we keep the host name, the kernel boot id and the process
// start time (clock ticks since boot, from /proc/PID/stat) as well.
#pragma once

#include <cstdint>
#include <string>

namespace graphopt {

struct ProcessIdentity {
    int64_t pid = 0;
    std::string host;
    std::string bootId;
    int64_t startTicks = -1;  // -1 when /proc is not available

    static ProcessIdentity current();
};

enum class ProcessLiveness { Alive, Dead, Unknown };

// Dead: same host, and either another boot, no such pid (kill(pid, 0) gives ESRCH), a zombie, or
// a pid reused by a process that started at another time. Unknown: another host.
ProcessLiveness processLiveness(const ProcessIdentity& owner);

}  // namespace graphopt
