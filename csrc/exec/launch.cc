#include "exec/launch.h"

#include <utility>

#include "exec/executor.h"
#include "exec/metrics.h"
#include "exec/runtime_state.h"
#include "runtime/client.h"

namespace torchtpu::exec {
namespace {

// Uploads the host inputs (kept alive in `uploads`) and lists every argument.
std::vector<const runtime::Buffer*> arguments(const LaunchInputs& in,
                                              std::vector<runtime::Buffer>& uploads) {
  const auto& c = client();
  uploads.reserve(in.host.size());
  for (const HostInput& h : in.host) {
    uploads.push_back(c->toDevice(h.data, h.dtype, *h.dims, in.device));
    metrics().hostToDeviceBytes += static_cast<int64_t>(h.bytes);
  }
  std::vector<const runtime::Buffer*> args;
  args.reserve(in.arrays.size() + uploads.size());
  for (const DeviceArray* a : in.arrays) {
    if (a != nullptr) args.push_back(&a->buffer());
  }
  for (const runtime::Buffer& b : uploads) args.push_back(&b);
  return args;
}

std::vector<ArrayPtr> wrap(const LaunchSpec& spec, std::vector<runtime::Buffer>& outputs) {
  std::vector<ArrayPtr> out;
  out.reserve(outputs.size());
  for (size_t k = 0; k < outputs.size(); ++k) {
    const ArrayOrigin& origin = k < spec.origins.size() ? spec.origins[k] : spec.origin;
    out.push_back(std::make_shared<DeviceArray>(std::move(outputs[k]), origin));
  }
  return out;
}

}  // namespace

std::vector<ArrayPtr> launchProgram(const LaunchSpec& spec, const LaunchInputs& inputs) {
  std::vector<runtime::Buffer> uploads;
  const std::vector<const runtime::Buffer*> args = arguments(inputs, uploads);
  runtime::ExecuteOptions opts;
  opts.device = inputs.device;
  const int64_t launchNs = launchClockNs();
  runtime::ExecuteResult r = spec.exe->execute(args, opts);
  if (launchNs != 0)
    profileLaunch(std::string(spec.what), inputs.device, launchNs, r.done, spec.details);
  metrics().launches += 1;
  trackLaunch(inputs.device, std::move(r.done));
  return wrap(spec, r.outputs);
}

std::vector<std::vector<ArrayPtr>> launchReplicated(const LaunchSpec& spec,
                                                    const std::vector<LaunchInputs>& inputs) {
  std::vector<std::vector<runtime::Buffer>> uploads(inputs.size());
  std::vector<std::vector<const runtime::Buffer*>> args;
  args.reserve(inputs.size());
  for (size_t d = 0; d < inputs.size(); ++d) args.push_back(arguments(inputs[d], uploads[d]));
  const int64_t launchNs = launchClockNs();
  std::vector<runtime::ExecuteResult> results = spec.exe->executeReplicated(args);
  metrics().launches += 1;
  std::vector<std::vector<ArrayPtr>> out;
  out.reserve(results.size());
  for (size_t d = 0; d < results.size(); ++d) {
    if (launchNs != 0) {
      profileLaunch(std::string(spec.what), inputs[d].device, launchNs, results[d].done,
                    spec.details);
    }
    trackLaunch(inputs[d].device, std::move(results[d].done));
    out.push_back(wrap(spec, results[d].outputs));
  }
  return out;
}

}  // namespace torchtpu::exec
