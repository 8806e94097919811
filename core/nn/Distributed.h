// Ranks over c10d: rendezvous through a TCPStore that rank 0 hosts on MASTER_PORT, collectives
// through ProcessGroupGloo, and a heartbeat through the store so that a rank whose exchange fails
// can name the rank that died or reported a failure. No LibTorch header here: the rest of the
// program sees run/Communicator.h only.
#pragma once

#include <memory>

#include "run/Communicator.h"

namespace graphopt::nn {

// Joins the world `config` describes; a world of one rank is a LocalCommunicator (no socket).
// Throws std::invalid_argument with a one-line message when the master's address does not resolve
// (or, on rank 0, is not an address of this machine), the port is in use, or the other ranks do
// not all join within config.timeoutS.
std::unique_ptr<Communicator> connectRanks(const DistributedConfig& config);

}  // namespace graphopt::nn
