#include "exec/runtime_state.h"

#include <atomic>
#include <mutex>
#include <optional>

#include "exec/trace_owner.h"
#include "runtime/error.h"
#include "runtime/fork_guard.h"

namespace torchtpu::exec {
namespace {

std::mutex mu;
std::shared_ptr<runtime::Client> theClient;
std::atomic<LaunchMode> defaultMode{LaunchMode::kStrict};
thread_local std::optional<LaunchMode> tlsMode;  // unset: the default

}  // namespace

void initRuntime(const std::string& pluginPath, const runtime::ClientOptions& options) {
  std::lock_guard<std::mutex> lock(mu);
  if (theClient) {
    if (theClient->plugin().path() != runtime::Plugin::load(pluginPath)->path()) {
      throw runtime::Error(runtime::ErrorCode::kFailedPrecondition,
                           "torchtpu already runs on plugin " + theClient->plugin().path() +
                               "; a process uses one plugin");
    }
    return;
  }
  auto plugin = runtime::Plugin::load(pluginPath);
  theClient = runtime::Client::create(plugin, options);
}

bool runtimeInitialized() {
  std::lock_guard<std::mutex> lock(mu);
  return theClient != nullptr;
}

const std::shared_ptr<runtime::Client>& client() {
  if (!theClient) {
    throw runtime::Error(runtime::ErrorCode::kFailedPrecondition,
                         "the torchtpu runtime is not initialized (import torchtpu first)");
  }
  if (runtime::forkedAfterClient()) {
    throw runtime::Error(
        runtime::ErrorCode::kFailedPrecondition,
        "this process was forked after its parent started the tpu runtime, and a PJRT "
        "client does not survive fork(): use tpu tensors in the parent only, or start "
        "worker processes with the 'spawn' method "
        "(torch.multiprocessing.set_start_method('spawn'))");
  }
  return theClient;
}

int deviceCountNoThrow() { return theClient ? theClient->deviceCount() : 0; }

LaunchMode launchMode() {
  if (tlsMode) return *tlsMode;
  // A thread working for another (autograd's backward) runs in its owner's mode.
  const int owner = currentTraceOwner().mode.load(std::memory_order_relaxed);
  return owner >= 0 ? static_cast<LaunchMode>(owner) : defaultMode.load();
}
void setLaunchMode(LaunchMode mode) { setThreadLaunchMode(mode); }
std::optional<LaunchMode> threadLaunchMode() { return tlsMode; }
void setThreadLaunchMode(std::optional<LaunchMode> mode) {
  tlsMode = mode;
  TraceOwner& owner = currentTraceOwner();
  if (owner.thread == std::this_thread::get_id()) {
    owner.mode.store(mode ? static_cast<int>(*mode) : -1, std::memory_order_relaxed);
  }
}
void setDefaultLaunchMode(LaunchMode mode) { defaultMode = mode; }

}  // namespace torchtpu::exec
