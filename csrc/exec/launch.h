// The one launch sequence every device program goes through (single ops in
// strict mode, fused traces, compiled graphs, collectives, internal copies):
// upload the host inputs, run, count the launch, profile it, track its
// completion for synchronize(), and wrap the outputs as device arrays.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exec/device_array.h"
#include "exec/profile_events.h"
#include "runtime/element_type.h"
#include "runtime/executable.h"

namespace torchtpu::exec {

// Host bytes a program takes as a parameter (runtime scalars, random states),
// uploaded at launch; not owned: they stay alive until the launch returns.
struct HostInput {
  runtime::ElementType dtype = runtime::ElementType::kU8;
  const std::vector<int64_t>* dims = nullptr;
  const void* data = nullptr;
  size_t bytes = 0;
};

// What one device taking part in a launch gives the program: its arrays
// (null entries are arrays the program makes itself, and are skipped), then
// its host inputs.
struct LaunchInputs {
  int device = 0;
  std::vector<const DeviceArray*> arrays;
  std::vector<HostInput> host;
};

struct LaunchSpec {
  const runtime::Executable* exe = nullptr;
  std::string_view what;               // the profile span: "program aten::mm", "graph forward_0"
  std::vector<ProfileDetail> details;  // the span's details
  ArrayOrigin origin;                  // of the arrays it makes ...
  std::vector<ArrayOrigin> origins;    // ... or of each output, when given
};

// Runs `spec.exe` on one device; its outputs, in order.
std::vector<ArrayPtr> launchProgram(const LaunchSpec& spec, const LaunchInputs& inputs);

// Runs a replicated program on several devices at once (one launch); the
// outputs of each participant, in order.
std::vector<std::vector<ArrayPtr>> launchReplicated(const LaunchSpec& spec,
                                                    const std::vector<LaunchInputs>& inputs);

}  // namespace torchtpu::exec
