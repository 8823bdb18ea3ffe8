// What a "tpu" tensor's storage points at: one device array and its state.
#pragma once

#include <cstddef>
#include <mutex>

#include "exec/device_array.h"
#include "exec/pending_value.h"
#include "runtime/element_type.h"

namespace torchtpu::exec {

class DeviceStorage {
 public:
  enum class State { kUninitialized, kMaterialized, kPending };

  DeviceStorage(size_t nbytes, int device) : nbytes_(nbytes), device_(device) {}

  size_t nbytes() const { return nbytes_; }
  int device() const { return device_; }
  State state() const;
  bool materialized() const { return state() == State::kMaterialized; }
  // The array; a pending value is computed first (flushing its trace).
  // Null when uninitialized.
  ArrayPtr array() const;
  // The pending value, or null when the storage is not pending.
  PendingPtr pending() const;
  // What the storage holds now, under one lock: its pending value, or else
  // its array (null when uninitialized); nothing is computed.
  struct Contents {
    ArrayPtr array;
    PendingPtr pending;
  };
  Contents contents() const;
  // Repoints the storage (every tensor over it sees the new contents).
  void setArray(ArrayPtr array);
  void setPending(PendingPtr value);
  // The array, created as zeros of `dtype` if the storage is uninitialized.
  ArrayPtr materialize(runtime::ElementType dtype);
  // Changes the byte size and drops the contents.
  void resetForSize(size_t nbytes);

 private:
  // Adopts a resolved pending value. Requires mu_.
  void adoptResolved() const;
  mutable std::mutex mu_;
  size_t nbytes_;
  int device_;
  mutable ArrayPtr array_;
  mutable PendingPtr pending_;
};

// Computes a pending value (flushes the trace that produces it); installed by
// the trace, called by storages when a pending value is read.
void resolvePending(const PendingPtr& value);

}  // namespace torchtpu::exec
