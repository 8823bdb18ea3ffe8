// Who owns a deferred trace: the thread that records into it, followed onto
// the threads that work for it (autograd runs a thread's backward on its own
// worker thread per device; the torch layer carries the owner there).
//
// Each owner has its own trace per device, so threads in defer mode never
// record into each other's traces (one shared trace interleaved their ops and
// every flush was a new program), and an owner's mode is the mode its helper
// threads run in.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace torchtpu::exec {

struct TraceOwner {
  uint64_t id = 0;
  // The owner's mode (a LaunchMode), or -1 while it never chose one. Only
  // the owning thread sets it; the threads that work for it read it.
  std::atomic<int> mode{-1};
  std::thread::id thread = std::this_thread::get_id();  // the owning thread
};

// The owner of the calling thread's work: from the source set by the torch
// layer (which makes one per thread on first use), else one per thread.
TraceOwner& currentTraceOwner();

// Installs the source (once, at start-up). It must return the owner of the
// calling thread's work, alive at least until the caller returns.
using TraceOwnerSource = TraceOwner& (*)();
void setTraceOwnerSource(TraceOwnerSource source);

// A new owner id (never 0).
uint64_t newTraceOwnerId();

}  // namespace torchtpu::exec
