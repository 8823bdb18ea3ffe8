// The process-wide PJRT client the execution layer runs on.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "runtime/client.h"

namespace torchtpu::exec {

// Opens `pluginPath` with `options` (once; later calls with the same path are
// no-ops, with another path an error).
void initRuntime(const std::string& pluginPath, const runtime::ClientOptions& options);
bool runtimeInitialized();
// The client; throws runtime::Error if initRuntime was not called, or in a
// process forked after the client was created (runtime/fork_guard.h).
const std::shared_ptr<runtime::Client>& client();
// The client's device count (0 before initRuntime), also in a forked child:
// torch asks for it where no device is used (autograd's engine on the CPU).
int deviceCountNoThrow();

// Execution modes that change how ops launch.
enum class LaunchMode { kStrict, kLaunchBlocking, kDefer };
LaunchMode launchMode();
void setLaunchMode(LaunchMode mode);  // per thread
// This thread's own choice (unset: it follows the default), to save and
// restore around work that switches modes temporarily.
std::optional<LaunchMode> threadLaunchMode();
void setThreadLaunchMode(std::optional<LaunchMode> mode);
// The mode of threads that have not set one (TORCHTPU_MODE).
void setDefaultLaunchMode(LaunchMode mode);

}  // namespace torchtpu::exec
