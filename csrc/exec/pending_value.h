// A value in the current deferred trace: what a storage points at between
// the op that produces it and the flush that computes it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "exec/device_array.h"
#include "hlo/types.h"

namespace torchtpu::exec {

struct PendingValue {
  hlo::TensorType type;
  uint64_t trace = 0;  // the trace that produces it
  int id = -1;         // value number within that trace
  int device = 0;
  uint64_t owner = 0;  // the trace's owner (exec/trace_owner.h)
  ArrayPtr resolved;   // set by the flush that computed it
  // The shape of the tensor it holds, for memory reports (DeviceArray::reportedType).
  std::vector<int64_t> shape;
  bool hasShape = false;
};

using PendingPtr = std::shared_ptr<PendingValue>;

}  // namespace torchtpu::exec
