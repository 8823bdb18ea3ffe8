#include "runtime/fork_guard.h"

#include <pthread.h>

#include <atomic>
#include <mutex>

namespace torchtpu::runtime {
namespace {

std::atomic<bool> forked{false};

void markChild() { forked.store(true, std::memory_order_relaxed); }

}  // namespace

void watchForks() {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, &markChild); });
}

bool forkedAfterClient() { return forked.load(std::memory_order_relaxed); }

}  // namespace torchtpu::runtime
