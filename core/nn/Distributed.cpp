// c10d behind run/Communicator.h. The one translation unit that includes c10d's headers.
//
// Why a heartbeat of our own: when a rank dies, Gloo tells its peers "connection closed" with a
// socket address, not a rank, and a rank that hangs is only seen at the timeout. Every rank
// therefore sets graphopt/hb/RANK = "BEAT EXCHANGE" in the store every heartbeatS from a thread
// with its own store connection; a rank whose exchange fails waits (at most deadAfterS) for the
// heartbeats to tell which rank fell silent, or which one wrote graphopt/fail/RANK before
// stopping, and names it.
#include "nn/Distributed.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <glog/logging.h>
#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "run/Elapsed.h"

namespace graphopt::nn {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

milliseconds ms(double seconds) { return milliseconds(int64_t(seconds * 1000.0)); }

// c10d's messages carry C++ backtraces and several lines; a user gets the first line.
std::string firstLine(const std::exception& e) {
    std::string s;
    if (const auto* c = dynamic_cast<const c10::Error*>(&e))
        s = c->what_without_backtrace();
    else
        s = e.what();
    const size_t nl = s.find('\n');
    if (nl != std::string::npos) s.resize(nl);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
    return s;
}

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
std::string text(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

struct Resolved {
    bool loopback = false;
};

// Resolves the master's address; on rank 0 also checks it is this machine's (the store listens
// here) and that the port is free. No packet leaves the machine.
Resolved checkMaster(const DistributedConfig& c) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    const int rc = ::getaddrinfo(c.masterAddr.c_str(), nullptr, &hints, &res);
    if (rc != 0 || !res)
        throw std::invalid_argument("master address '" + c.masterAddr + "' does not resolve (" + ::gai_strerror(rc) + ")");
    Resolved r;
    bool local = false;
    for (addrinfo* a = res; a; a = a->ai_next) {
        if (a->ai_family == AF_INET) {
            const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
            if ((ntohl(in->sin_addr.s_addr) >> 24) == 127) r.loopback = true;
        } else if (a->ai_family == AF_INET6) {
            const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
            if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) r.loopback = true;
        }
        if (c.rank != 0 || local) continue;
        const int fd = ::socket(a->ai_family, SOCK_STREAM, 0);
        if (fd < 0) continue;
        sockaddr_storage addr{};
        std::memcpy(&addr, a->ai_addr, a->ai_addrlen);
        if (a->ai_family == AF_INET) reinterpret_cast<sockaddr_in*>(&addr)->sin_port = 0;
        if (a->ai_family == AF_INET6) reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port = 0;
        if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), a->ai_addrlen) == 0) local = true;
        ::close(fd);
    }
    ::freeaddrinfo(res);
    if (c.rank != 0) return r;
    if (!local)
        throw std::invalid_argument("master address '" + c.masterAddr +
                                    "' is not an address of this machine, and rank 0 hosts the rendezvous store");
    // The store listens on every interface; a listener already there makes it fail.
    for (int family : {AF_INET6, AF_INET}) {
        const int fd = ::socket(family, SOCK_STREAM, 0);
        if (fd < 0) continue;
        int one = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        int err = 0;
        if (family == AF_INET6) {
            sockaddr_in6 a{};
            a.sin6_family = AF_INET6;
            a.sin6_addr = in6addr_any;
            a.sin6_port = htons(uint16_t(c.masterPort));
            if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) err = errno;
        } else {
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_addr.s_addr = htonl(INADDR_ANY);
            a.sin_port = htons(uint16_t(c.masterPort));
            if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) err = errno;
        }
        ::close(fd);
        if (err == EADDRINUSE)
            throw std::invalid_argument("port " + std::to_string(c.masterPort) +
                                        " is in use: rank 0 cannot host the rendezvous store there (choose another MASTER_PORT)");
    }
    return r;
}

// The heartbeat thread (see the top of the file).
class Heartbeat {
public:
    Heartbeat(const DistributedConfig& c) : c_(c), last_(size_t(c.worldSize)), lastChange_(size_t(c.worldSize), Clock::now()) {
        c10d::TCPStoreOptions o;
        o.port = uint16_t(c.masterPort);
        o.isServer = false;
        o.waitWorkers = false;
        o.timeout = ms(std::max(1.0, c.heartbeatS * 4));
        store_ = c10::make_intrusive<c10d::TCPStore>(c.masterAddr, o);
        beat();
        thread_ = std::thread([this] { loop(); });
    }
    ~Heartbeat() {
        {
            std::lock_guard<std::mutex> l(m_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

    std::atomic<int64_t> exchange{0};

    // What went wrong with the others, as far as the heartbeats tell; "" when they all look fine.
    std::string verdict(int* rank) {
        std::lock_guard<std::mutex> l(m_);
        for (const auto& [r, reason] : failed_) {
            *rank = r;
            return "rank " + std::to_string(r) + " failed: " + reason;
        }
        if (masterLost_ && c_.rank != 0) {
            *rank = 0;
            return "rank 0 is gone (the rendezvous store it hosts stopped answering)";
        }
        for (int r = 0; r < c_.worldSize; ++r) {
            if (r == c_.rank) continue;
            const double silent = secondsSince(lastChange_[size_t(r)]);
            if (silent > c_.deadAfterS) {
                *rank = r;
                std::ostringstream s;
                s << "rank " << r << " is gone (no heartbeat for " << int(silent) << " s)";
                return s.str();
            }
        }
        return "";
    }
    // Ranks whose last heartbeat says they have not reached exchange `n` yet.
    std::string behind(int64_t n) {
        std::lock_guard<std::mutex> l(m_);
        std::string out;
        for (int r = 0; r < c_.worldSize; ++r) {
            if (r == c_.rank) continue;
            std::istringstream in(last_[size_t(r)]);
            int64_t beat = 0, at = -1;
            in >> beat >> at;
            if (at < n) out += (out.empty() ? "" : ", ") + std::to_string(r);
        }
        return out;
    }
    void postFailure(const std::string& reason) {
        std::lock_guard<std::mutex> l(m_);
        try {
            store_->set("graphopt/fail/" + std::to_string(c_.rank), bytes(reason));
        } catch (const std::exception&) {
        }
    }

private:
    void beat() {
        store_->set("graphopt/hb/" + std::to_string(c_.rank), bytes(std::to_string(++beats_) + " " + std::to_string(exchange.load())));
    }
    void loop() {
        std::unique_lock<std::mutex> l(m_);
        while (!stop_) {
            try {
                beat();
                for (int r = 0; r < c_.worldSize; ++r) {
                    if (r == c_.rank) continue;
                    const std::string hb = "graphopt/hb/" + std::to_string(r), fail = "graphopt/fail/" + std::to_string(r);
                    if (store_->check({hb})) {
                        std::string v = text(store_->get(hb));
                        if (v != last_[size_t(r)]) {
                            last_[size_t(r)] = std::move(v);
                            lastChange_[size_t(r)] = Clock::now();
                        }
                    }
                    if (!failed_.count(r) && store_->check({fail})) failed_[r] = text(store_->get(fail));
                }
            } catch (const std::exception&) {
                masterLost_ = true;
                return;
            }
            cv_.wait_for(l, ms(c_.heartbeatS), [this] { return stop_; });
        }
    }

    DistributedConfig c_;
    c10::intrusive_ptr<c10d::TCPStore> store_;
    std::mutex m_;
    std::condition_variable cv_;
    bool stop_ = false, masterLost_ = false;
    int64_t beats_ = 0;
    std::vector<std::string> last_;
    std::vector<Clock::time_point> lastChange_;
    std::map<int, std::string> failed_;
    std::thread thread_;
};

class GlooCommunicator final : public Communicator {
public:
    explicit GlooCommunicator(const DistributedConfig& c) : c_(c) {
        const Resolved where = checkMaster(c);
        const std::string at = c.masterAddr + ":" + std::to_string(c.masterPort);
        c10d::TCPStoreOptions o;
        o.port = uint16_t(c.masterPort);
        o.isServer = c.rank == 0;
        o.waitWorkers = false;  // counted below, with a message of our own
        o.timeout = ms(c.timeoutS);
        const auto t0 = Clock::now();
        std::ostringstream within;
        within << "within " << c.timeoutS << " s (--dist-timeout)";
        try {
            store_ = c10::make_intrusive<c10d::TCPStore>(c.masterAddr, o);
        } catch (const std::exception& e) {
            if (c.rank == 0)
                throw std::invalid_argument("rank 0: cannot host the rendezvous store at " + at + " (" + firstLine(e) + ")");
            throw std::invalid_argument("rank " + std::to_string(c.rank) + ": no rendezvous store at " + at + " " +
                                        within.str() + "; is rank 0 running there?");
        }
        // Every rank counts itself in and waits for the others, so that a missing rank is named
        // as such (and not as a socket timeout inside Gloo's own rendezvous).
        try {
            int64_t joined = store_->add("graphopt/joined", 1);
            while (joined < c.worldSize && secondsSince(t0) < c.timeoutS) {
                std::this_thread::sleep_for(milliseconds(20));
                joined = store_->add("graphopt/joined", 0);
            }
            if (joined < c.worldSize)
                throw std::invalid_argument("rank " + std::to_string(c.rank) + ": only " + std::to_string(joined) + " of " +
                                            std::to_string(c.worldSize) + " ranks joined at " + at + " " + within.str());
        } catch (const std::invalid_argument&) {
            throw;
        } catch (const std::exception& e) {
            throw std::invalid_argument("rank " + std::to_string(c.rank) + ": lost the rendezvous store at " + at + " (" +
                                        firstLine(e) + ")");
        }
        auto options = c10d::ProcessGroupGloo::Options::create(ms(c.timeoutS));
        if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
            options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
        else if (where.loopback)
            options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(c.masterAddr));
        else
            options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        options->threads = 1;
        try {
            pg_ = c10::make_intrusive<c10d::ProcessGroupGloo>(c10::make_intrusive<c10d::PrefixStore>("pg", store_), c.rank,
                                                              c.worldSize, options);
            heartbeat_ = std::make_unique<Heartbeat>(c);
        } catch (const std::exception& e) {
            throw std::invalid_argument("rank " + std::to_string(c.rank) + ": could not connect to the other ranks (" +
                                        firstLine(e) + ")");
        }
    }

    ~GlooCommunicator() override {
        if (broken_) {
            // A collective may still be stuck in Gloo's worker thread (a rank that hangs), and the
            // process group's destructor would wait for it until Gloo's timeout: it is kept, still
            // reachable, until the process ends.
            // (Never destroyed: a static vector's destructor would wait at exit instead.)
            static std::mutex m;
            static auto* abandoned = new std::vector<c10::intrusive_ptr<c10d::ProcessGroupGloo>>();
            std::lock_guard<std::mutex> l(m);
            abandoned->push_back(std::move(pg_));
        }
    }

    int rank() const override { return c_.rank; }
    int worldSize() const override { return c_.worldSize; }

    std::vector<std::string> allGather(const std::string& mine) override {
        std::vector<int64_t> sizes = allGatherInts(int64_t(mine.size()));
        int64_t longest = 1;
        for (int64_t s : sizes) longest = std::max(longest, s);
        auto in = torch::zeros({longest}, torch::kUInt8);
        std::memcpy(in.data_ptr<uint8_t>(), mine.data(), mine.size());
        std::vector<std::vector<at::Tensor>> out(1);
        for (int r = 0; r < c_.worldSize; ++r) out[0].push_back(torch::empty({longest}, torch::kUInt8));
        std::vector<at::Tensor> ins{in};
        wait(pg_->allgather(out, ins), "exchange");
        std::vector<std::string> all;
        for (int r = 0; r < c_.worldSize; ++r)
            all.emplace_back(reinterpret_cast<const char*>(out[0][size_t(r)].data_ptr<uint8_t>()), size_t(sizes[size_t(r)]));
        return all;
    }

    void broadcast(std::string& data, int root) override {
        auto size = torch::tensor({int64_t(data.size())}, torch::kInt64);
        std::vector<at::Tensor> t{size};
        c10d::BroadcastOptions bo;
        bo.rootRank = root;
        wait(pg_->broadcast(t, bo), "broadcast");
        const int64_t n = std::max<int64_t>(1, size.item<int64_t>());
        auto buf = torch::zeros({n}, torch::kUInt8);
        if (c_.rank == root) std::memcpy(buf.data_ptr<uint8_t>(), data.data(), data.size());
        std::vector<at::Tensor> b{buf};
        wait(pg_->broadcast(b, bo), "broadcast");
        if (c_.rank != root) data.assign(reinterpret_cast<const char*>(buf.data_ptr<uint8_t>()), size_t(size.item<int64_t>()));
    }

    void allReduceSum(std::vector<double>& values) override {
        if (values.empty()) return;
        auto t = torch::from_blob(values.data(), {int64_t(values.size())}, torch::kFloat64).clone();
        std::vector<at::Tensor> ts{t};
        wait(pg_->allreduce(ts), "all-reduce");
        std::memcpy(values.data(), t.data_ptr<double>(), values.size() * sizeof(double));
    }

    void barrier() override { wait(pg_->barrier(), "barrier"); }

    void reportFailure(const std::string& reason) override {
        if (!heartbeat_) return;
        heartbeat_->postFailure(reason);
        // Rank 0's store goes when it exits: give the others' heartbeats time to read the reason.
        if (c_.rank == 0) std::this_thread::sleep_for(ms(3 * c_.heartbeatS));
    }

private:
    std::vector<int64_t> allGatherInts(int64_t mine) {
        auto in = torch::tensor({mine}, torch::kInt64);
        std::vector<std::vector<at::Tensor>> out(1);
        for (int r = 0; r < c_.worldSize; ++r) out[0].push_back(torch::empty({1}, torch::kInt64));
        std::vector<at::Tensor> ins{in};
        wait(pg_->allgather(out, ins), "exchange");
        std::vector<int64_t> v;
        for (const auto& t : out[0]) v.push_back(t.item<int64_t>());
        return v;
    }

    // Waits for a collective, watching the heartbeats, so that a dead rank ends the wait (named)
    // instead of the timeout.
    void wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) {
        if (broken_) throw DistributedError("rank " + std::to_string(c_.rank) + ": the ranks are no longer connected");
        const int64_t n = ++exchanges_;
        heartbeat_->exchange = n;
        const auto t0 = Clock::now();
        auto pause = std::chrono::microseconds(20);
        while (!work->isCompleted()) {
            int who = -1;
            const std::string v = heartbeat_->verdict(&who);
            if (!v.empty()) fail(v, who);
            if (secondsSince(t0) > c_.timeoutS) {
                const std::string late = heartbeat_->behind(n);
                fail(std::string(what) + " #" + std::to_string(n) + " timed out after " + std::to_string(int(c_.timeoutS)) +
                         " s" + (late.empty() ? std::string() : " waiting for rank(s) " + late),
                     -1);
            }
            std::this_thread::sleep_for(pause);
            pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::microseconds(2000));
        }
        if (work->isSuccess()) return;
        std::string reason = "failed";
        try {
            std::rethrow_exception(work->exception());
        } catch (const std::exception& e) {
            reason = firstLine(e);
        }
        // The heartbeats tell who within deadAfterS (a rank that was killed stops beating).
        const auto t1 = Clock::now();
        while (secondsSince(t1) < c_.deadAfterS + 2 * c_.heartbeatS) {
            int who = -1;
            const std::string v = heartbeat_->verdict(&who);
            if (!v.empty()) fail(v, who);
            std::this_thread::sleep_for(ms(c_.heartbeatS / 4));
        }
        fail(std::string(what) + " with the other ranks failed: " + reason, -1);
    }

    [[noreturn]] void fail(const std::string& message, int who) {
        broken_ = true;
        throw DistributedError(message, who);
    }

    DistributedConfig c_;
    c10::intrusive_ptr<c10d::TCPStore> store_;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> pg_;
    std::unique_ptr<Heartbeat> heartbeat_;
    int64_t exchanges_ = 0;
    bool broken_ = false;
};

}  // namespace

std::unique_ptr<Communicator> connectRanks(const DistributedConfig& config) {
    if (!config.distributed()) return std::make_unique<LocalCommunicator>();
    // c10d logs every connection retry as a warning on stderr; errors reach the user through the
    // exceptions (one line). TORCH_CPP_LOG_LEVEL set by the user wins. Read at c10d's first log.
    ::setenv("TORCH_CPP_LOG_LEVEL", "ERROR", 0);
    // ... and logs a failed connection as an error through glog: above what the user reads.
    if (!std::getenv("GLOG_minloglevel")) FLAGS_minloglevel = std::max<int>(FLAGS_minloglevel, google::GLOG_FATAL);
    return std::make_unique<GlooCommunicator>(config);
}

}  // namespace graphopt::nn
