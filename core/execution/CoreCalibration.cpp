#include "execution/CoreCalibration.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstring>
#include <thread>
#include <vector>

#include "execution/CorePinning.h"

namespace graphopt::exec {

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

CoreLinkMeasurement measureCoreLink(int a, int b) {
    CoreLinkMeasurement m;
    constexpr size_t kBig = size_t(32) << 20;
    constexpr int kHandOffs = 400, kBigRounds = 5;
    std::vector<char> src(kBig, 1), dst(kBig, 0);
    std::atomic<int> turn{0};  // even: a's turn, odd: b's
    std::vector<double> handOff, big;
    char small[64] = {};
    std::mutex mu;
    std::condition_variable cv;
    std::thread tb([&] {
        pinThisThreadToCore(b);
        char mine[64];
        // Hand-offs, the way the executor's workers hand a tensor over: a sets the flag under the
        // lock and notifies; b, asleep on the condition variable, wakes, copies 64 bytes, answers.
        for (int i = 0; i < kHandOffs; ++i) {
            std::unique_lock<std::mutex> lock(mu);
            cv.wait(lock, [&] { return turn.load() == 2 * i + 1; });
            std::memcpy(mine, small, sizeof(mine));
            turn.store(2 * i + 2);
            lock.unlock();
            cv.notify_all();
        }
        // Large copies: a writes the buffer, b copies it.
        for (int r = 0; r < kBigRounds; ++r) {
            std::unique_lock<std::mutex> lock(mu);
            cv.wait(lock, [&] { return turn.load() == 2 * (kHandOffs + r) + 1; });
            lock.unlock();
            const double t0 = now();
            std::memcpy(dst.data(), src.data(), kBig);
            big.push_back(now() - t0);
            lock.lock();
            turn.store(2 * (kHandOffs + r) + 2);
            lock.unlock();
            cv.notify_all();
        }
        (void)mine[0];
    });
    pinThisThreadToCore(a);
    auto handTo = [&](int value, int answer) {
        std::unique_lock<std::mutex> lock(mu);
        turn.store(value);
        lock.unlock();
        cv.notify_all();
        lock.lock();
        cv.wait(lock, [&] { return turn.load() == answer; });
    };
    for (int i = 0; i < kHandOffs; ++i) {
        small[i % 64] = char(i);
        // Let b fall asleep first: the executor's waiting worker sleeps.
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        const double t0 = now();
        handTo(2 * i + 1, 2 * i + 2);
        handOff.push_back((now() - t0) / 2);  // one way of the round trip
    }
    for (int r = 0; r < kBigRounds; ++r) {
        std::memset(src.data(), r + 2, kBig);
        handTo(2 * (kHandOffs + r) + 1, 2 * (kHandOffs + r) + 2);
    }
    tb.join();
    std::sort(handOff.begin(), handOff.end());
    std::sort(big.begin(), big.end());
    m.latencyS = handOff[handOff.size() / 2];
    m.bandwidth = double(kBig) / big[big.size() / 2];
    // Within one core: the same copy, the source written by this thread.
    std::vector<double> local;
    for (int r = 0; r < kBigRounds; ++r) {
        std::memset(src.data(), r + 3, kBig);
        const double t0 = now();
        std::memcpy(dst.data(), src.data(), kBig);
        local.push_back(now() - t0);
    }
    std::sort(local.begin(), local.end());
    m.localBandwidth = 2.0 * double(kBig) / local[local.size() / 2];  // read + write, as the roofline counts bytes touched
    unpinThisThread();
    return m;
}

DeviceModel cpuCoresModel(int cores, double flopsPerCore, double overheadS, int64_t memoryBytesPerCore,
                          const CoreLinkMeasurement& link) {
    std::vector<DeviceSpec> devices;
    for (int k = 0; k < cores; ++k) {
        DeviceSpec d;
        d.name = "core" + std::to_string(k);
        d.flopsPerS = flopsPerCore;
        d.overheadS = overheadS;
        d.memoryBytes = memoryBytesPerCore;
        d.memoryBandwidth = link.localBandwidth;
        d.kind = "cpu";
        d.paysTransfers = true;
        devices.push_back(d);
    }
    return DeviceModel("cpu-cores", devices, LinkSpec{link.latencyS, link.bandwidth});
}

}  // namespace graphopt::exec
