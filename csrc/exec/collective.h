// Collectives compiled into device programs: one replicated program launched
// across several devices of this process, its collective ops exchanging the
// data between them (the plugin runs them; no host staging).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exec/device_array.h"

namespace torchtpu::exec {

enum class CollectiveKind {
  kAllReduce,      // every device gets the reduction
  kBroadcast,      // every device gets the root's value
  kAllGather,      // every device gets the values concatenated along dim
  kReduceScatter,  // device i gets block i (along dim) of the reduction
  kAllToAll,       // block j (along dim) of device i goes to device j, at block i
};

enum class ReduceKind { kSum, kAvg, kProduct, kMin, kMax };

struct Collective {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  ReduceKind reduce = ReduceKind::kSum;
  int64_t dim = 0;   // gather / scatter / all-to-all dimension
  int64_t root = 0;  // broadcast source: a position in the device list
};

// Runs `c` once over `perDevice` (perDevice[d] are the tensors of the d-th
// participant, all on one device, distinct per participant; each participant
// gives the same number of tensors, with the same types). Every tensor k gets
// its own collective; all of them run in one replicated program (compiled on
// first use, then cached). Returns the results in the same layout, each on
// its participant's device. Throws std::invalid_argument on bad input (types
// that differ between participants, a shared device, a dimension that does
// not divide, an unsupported dtype).
std::vector<std::vector<ArrayPtr>> runCollective(
    const Collective& c, const std::vector<std::vector<ArrayPtr>>& perDevice);

// A short name for messages ("all_reduce", ...).
std::string collectiveName(CollectiveKind kind);

}  // namespace torchtpu::exec
