// A small fixed pool of std::threads for data-parallel loops (BRKGA decodes its offspring on it).
// The calling thread takes part as worker 0, so a pool of size 1 starts no thread at all.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace graphopt {

class WorkerPool {
public:
    explicit WorkerPool(int threads);  // threads <= 0: std::thread::hardware_concurrency()
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    int size() const { return size_; }
    // Calls fn(index, worker) for every index in [0, count), worker in [0, size()), and returns
    // when all are done. Rethrows the first exception a call threw.
    void forEach(int count, const std::function<void(int index, int worker)>& fn);

private:
    void workerLoop(int worker);
    void drain(int worker);

    int size_ = 1;
    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(int, int)>* job_ = nullptr;
    int count_ = 0, next_ = 0, active_ = 0;
    uint64_t generation_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
};

}  // namespace graphopt
