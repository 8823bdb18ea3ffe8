#include "exec/trace_owner.h"

namespace torchtpu::exec {
namespace {

std::atomic<TraceOwnerSource> source{nullptr};

TraceOwner& ownerOfThisThread() {
  thread_local TraceOwner owner{newTraceOwnerId()};
  return owner;
}

}  // namespace

uint64_t newTraceOwnerId() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

TraceOwner& currentTraceOwner() {
  const TraceOwnerSource s = source.load(std::memory_order_acquire);
  return s != nullptr ? s() : ownerOfThisThread();
}

void setTraceOwnerSource(TraceOwnerSource s) { source.store(s, std::memory_order_release); }

}  // namespace torchtpu::exec
