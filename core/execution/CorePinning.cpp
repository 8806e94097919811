#include "execution/CorePinning.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <thread>

namespace graphopt::exec {

namespace {
int cores() { return int(std::max(1u, std::thread::hardware_concurrency())); }
}  // namespace

void pinThisThreadToCore(int core) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core % cores(), &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void unpinThisThread() {
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < cores(); ++c) CPU_SET(c, &all);
    pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
}

}  // namespace graphopt::exec
