// Processes that work on one job together (ranks 0..worldSize-1, possibly on several machines),
// without LibTorch: the few collective exchanges that distributed training, evaluation and tuning
// need. The implementation over c10d's TCPStore and ProcessGroupGloo lives in graphopt_nn
// (nn/Distributed.h); one process is LocalCommunicator, whose exchanges return at once.
//
// Every rank must call the same collectives in the same order. A collective that fails (a rank
// died, hung past the timeout, or reported a failure) throws DistributedError naming the rank
// when it is known; after that the communicator is unusable.
//
// Launch convention (torchrun's): MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK in the environment,
// or the flags --master HOST:PORT, --world-size N, --rank R, which win over the environment.
// Rank 0 hosts the rendezvous store on MASTER_PORT; neither set means one process.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace graphopt {

class DistributedError : public std::runtime_error {
public:
    DistributedError(const std::string& what, int rank = -1) : std::runtime_error(what), rank_(rank) {}
    int rank() const { return rank_; }  // the rank at fault, -1 when unknown
private:
    int rank_;
};

class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int worldSize() const = 0;
    bool distributed() const { return worldSize() > 1; }

    // Every rank's `mine`, in rank order, on every rank.
    virtual std::vector<std::string> allGather(const std::string& mine) = 0;
    // Rank `root`'s `data` on every rank.
    virtual void broadcast(std::string& data, int root) = 0;
    // Element-wise sum over the ranks (all must pass the same length).
    virtual void allReduceSum(std::vector<double>& values) = 0;
    virtual void barrier() = 0;
    // Best effort: tells the other ranks why this one is about to stop, so that their error names
    // it and says why.
    virtual void reportFailure(const std::string& reason) { (void)reason; }
};

class LocalCommunicator final : public Communicator {
public:
    int rank() const override { return 0; }
    int worldSize() const override { return 1; }
    std::vector<std::string> allGather(const std::string& mine) override { return {mine}; }
    void broadcast(std::string&, int) override {}
    void allReduceSum(std::vector<double>&) override {}
    void barrier() override {}
};

// Where the ranks meet and who this one is.
struct DistributedConfig {
    int worldSize = 1;
    int rank = 0;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 29500;
    double timeoutS = 120;   // rendezvous, and waiting for the other ranks at any exchange
    double heartbeatS = 0.5;  // how often each rank says it is alive
    double deadAfterS = 10;   // silence after which a rank counts as gone
    bool distributed() const { return worldSize > 1; }
    std::string describe() const;  // "rank 1 of 2 (master 127.0.0.1:29500)"
};

// Flags (nullopt = not given) over the environment (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK).
// Throws std::invalid_argument with a one-line message for a bad value, a rank outside
// 0..worldSize-1, or a world of several ranks without a master port.
DistributedConfig resolveDistributedConfig(std::optional<int> worldSize, std::optional<int> rank,
                                           std::optional<std::string> master, std::optional<double> timeoutS);

// Byte helpers for exchanging numbers exactly (host byte order: all ranks run this program).
void appendDoubles(std::string& out, const std::vector<double>& v);
void appendFloats(std::string& out, const std::vector<float>& v);
// Reads `count` values at `offset` and advances it; throws DistributedError when out of range.
std::vector<double> readDoubles(const std::string& in, size_t& offset, size_t count);
std::vector<float> readFloats(const std::string& in, size_t& offset, size_t count);

// FNV-1a over bytes: the checksum ranks compare to make sure they hold the same weights.
uint64_t fnv1a(const std::string& bytes, uint64_t h = 1469598103934665603ull);

}  // namespace graphopt
