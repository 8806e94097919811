#include "placement/search/WorkerPool.h"

#include <algorithm>

namespace graphopt {

WorkerPool::WorkerPool(int threads) {
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    size_ = threads;
    for (int w = 1; w < size_; ++w) threads_.emplace_back([this, w] { workerLoop(w); });
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
}

void WorkerPool::drain(int worker) {
    for (;;) {
        int i;
        {
            std::lock_guard lock(mutex_);
            if (next_ >= count_) return;
            i = next_++;
        }
        try {
            (*job_)(i, worker);
        } catch (...) {
            std::lock_guard lock(mutex_);
            if (!error_) error_ = std::current_exception();
            next_ = count_;
        }
    }
}

void WorkerPool::workerLoop(int worker) {
    uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            ++active_;
        }
        drain(worker);
        {
            std::lock_guard lock(mutex_);
            --active_;
        }
        done_.notify_all();
    }
}

void WorkerPool::forEach(int count, const std::function<void(int, int)>& fn) {
    if (count <= 0) return;
    if (size_ == 1) {
        for (int i = 0; i < count; ++i) fn(i, 0);
        return;
    }
    {
        std::lock_guard lock(mutex_);
        job_ = &fn;
        count_ = count;
        next_ = 0;
        error_ = nullptr;
        ++generation_;
    }
    wake_.notify_all();
    drain(0);
    std::exception_ptr err;
    {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return next_ >= count_ && active_ == 0; });
        job_ = nullptr;
        err = error_;
    }
    if (err) std::rethrow_exception(err);
}

}  // namespace graphopt
