#include "exec/runtime_state.h"

#include <atomic>
#include <mutex>
#include <optional>

#include "runtime/error.h"

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
  return theClient;
}

LaunchMode launchMode() { return tlsMode.value_or(defaultMode.load()); }
void setLaunchMode(LaunchMode mode) { tlsMode = mode; }
std::optional<LaunchMode> threadLaunchMode() { return tlsMode; }
void setThreadLaunchMode(std::optional<LaunchMode> mode) { tlsMode = mode; }
void setDefaultLaunchMode(LaunchMode mode) { defaultMode = mode; }

}  // namespace torchtpu::exec
