// torch.profiler on "tpu": a Kineto child profiler, registered through
// PyTorch's PrivateUse1 profiler registry, that turns the spans the
// execution layer records (exec/profile_events.h) into trace activities.
// Programs appear as kernels on a row per tpu device, linked to the ATen op
// (or the flush) that launched them, so key_averages() counts their device
// time against that op; compiles, flushes and copies appear as runtime events
// on the host thread that ran them, with what they did as arguments.
//
// Kineto (inside libtorch_cpu) and its headers come with the torch wheel; this
// is the only file that includes them.
#if __has_include(<torch/csrc/profiler/standalone/privateuse1_profiler.h>)
#define TORCHTPU_HAS_PROFILER 1
#include <ActivityType.h>
#include <GenericTraceActivity.h>
#include <IActivityProfiler.h>
#include <libkineto.h>
#include <output_base.h>
#include <torch/csrc/profiler/standalone/privateuse1_profiler.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>
#endif

#include "aten/profiler.h"
#include "exec/profile_events.h"

namespace torchtpu::aten {
#if defined(TORCHTPU_HAS_PROFILER) && defined(USE_KINETO)
namespace {

// The framework ops running on this thread, innermost last (Kineto pushes
// and pops their correlation ids around each op while a profile records).
thread_local std::vector<uint64_t> correlationStack;

// The first of the activity ids this profiler gives its events (far above the
// framework's correlation ids, which count ops from 1).
constexpr int32_t kOwnIds = 1 << 30;

uint64_t currentCorrelation() { return correlationStack.empty() ? 0 : correlationStack.back(); }

// A program's device span runs from its launch to its completion event, but a
// device runs its programs one after another: a program launched while an
// earlier one still runs starts when that one completes. Without this, queued
// programs would overlap on the device's row and their times would count the
// wait twice.
void serializeDeviceSpans(std::vector<exec::ProfileSpan>& spans) {
  std::vector<exec::ProfileSpan*> programs;
  for (exec::ProfileSpan& s : spans) {
    if (s.kind == exec::SpanKind::kProgram) programs.push_back(&s);
  }
  std::sort(programs.begin(), programs.end(), [](const auto* a, const auto* b) {
    return a->device != b->device ? a->device < b->device : a->endNs < b->endNs;
  });
  int device = -2;
  int64_t previousEnd = 0;
  for (exec::ProfileSpan* s : programs) {
    if (s->device != device) {
      device = s->device;
      previousEnd = 0;
    }
    s->startNs = std::min(std::max(s->startNs, previousEnd), s->endNs);
    previousEnd = s->endNs;
  }
}

const char* kindName(exec::SpanKind kind) {
  switch (kind) {
    case exec::SpanKind::kProgram:
      return "program";
    case exec::SpanKind::kLaunch:
      return "launch";
    case exec::SpanKind::kCompile:
      return "compile";
    case exec::SpanKind::kFlush:
      return "flush";
    case exec::SpanKind::kCopyToDevice:
      return "copy to device";
    case exec::SpanKind::kCopyToHost:
      return "copy to host";
  }
  return "";
}

class Session : public libkineto::IActivityProfilerSession {
 public:
  explicit Session(bool record) : record_(record) {}

  void start() override {
    if (!record_) return;
    correlationStack.clear();
    exec::setProfileCorrelationSource(&currentCorrelation);
    exec::beginProfile();
    status_ = libkineto::TraceStatus::RECORDING;
  }

  void stop() override {
    if (!record_) return;
    spans_ = exec::endProfile();
    serializeDeviceSpans(spans_);
    status_ = libkineto::TraceStatus::PROCESSING;
  }

  std::vector<std::string> errors() override { return {}; }

  void processTrace(libkineto::ActivityLogger& logger) override {
    processTrace(logger, [](int32_t) -> const libkineto::ITraceActivity* { return nullptr; }, 0, 0);
  }

  void processTrace(libkineto::ActivityLogger& logger, libkineto::getLinkedActivityCallback linked,
                    int64_t startNs, int64_t endNs) override {
    traceSpan_ = std::make_unique<libkineto::TraceSpan>(startNs, endNs, "tpu");
    std::set<int> devices;
    const int32_t pid = static_cast<int32_t>(::getpid());
    int32_t index = 0;
    for (const exec::ProfileSpan& s : spans_) {
      const bool program = s.kind == exec::SpanKind::kProgram;
      libkineto::GenericTraceActivity a(*traceSpan_,
                                        program ? libkineto::ActivityType::CONCURRENT_KERNEL
                                                : libkineto::ActivityType::PRIVATEUSE1_RUNTIME,
                                        s.name);
      a.startTime = s.startNs;
      a.endTime = s.endNs > s.startNs ? s.endNs : s.startNs;
      a.threadId = static_cast<int32_t>(s.threadId);
      // Ids of their own, apart from the framework's correlation ids: torch
      // attributes a kernel to every host event whose id is its op's, and
      // gives a runtime event without an id its enclosing op's.
      a.id = kOwnIds + (index++ % kOwnIds);
      if (s.correlation != 0) a.linked = linked(static_cast<int32_t>(s.correlation));
      if (s.flow != 0) {
        a.flow.id = static_cast<uint32_t>(s.flow);
        a.flow.type = libkineto::kLinkAsyncCpuGpu;
        a.flow.start = program ? 0 : 1;
      }
      if (program) {
        const int device = s.device < 0 ? 0 : s.device;
        devices.insert(device);
        a.device = device;
        a.resource = 0;
        a.addMetadataQuoted("device", "tpu:" + std::to_string(device));
      } else {
        a.device = pid;
        a.resource = static_cast<int32_t>(s.threadId);
        if (s.device >= 0) a.addMetadataQuoted("device", "tpu:" + std::to_string(s.device));
      }
      a.addMetadataQuoted("torchtpu", kindName(s.kind));
      for (const exec::ProfileDetail& d : s.details) {
        if (d.quoted) {
          a.addMetadataQuoted(d.key, jsonEscaped(d.value));
        } else {
          a.addMetadata(d.key, d.value);
        }
      }
      logger.handleGenericActivity(a);
    }
    for (int device : devices) {
      if (device == 0) continue;  // getDeviceInfo() names the first
      logger.handleDeviceInfo(deviceInfo(device), startNs);
    }
    for (int device : devices) {
      logger.handleResourceInfo(libkineto::ResourceInfo{0, 0, device, "tpu programs"}, startNs);
    }
    status_ = libkineto::TraceStatus::READY;
  }

  std::unique_ptr<libkineto::DeviceInfo> getDeviceInfo() override {
    return std::make_unique<libkineto::DeviceInfo>(deviceInfo(0));
  }

  std::vector<libkineto::ResourceInfo> getResourceInfos() override { return {}; }

  std::unique_ptr<libkineto::CpuTraceBuffer> getTraceBuffer() override { return nullptr; }

  void pushCorrelationId(uint64_t id) override { correlationStack.push_back(id); }

  void popCorrelationId() override {
    if (!correlationStack.empty()) correlationStack.pop_back();
  }

 private:
  static libkineto::DeviceInfo deviceInfo(int device) {
    return libkineto::DeviceInfo{device, device, "tpu:" + std::to_string(device), "tpu"};
  }

  // Kineto writes metadata values between quotes without escaping them.
  static std::string jsonEscaped(const std::string& s) {
    std::string out;
    for (char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        out += ' ';
      } else {
        out += c;
      }
    }
    return out;
  }

  bool record_;
  std::vector<exec::ProfileSpan> spans_;
  std::unique_ptr<libkineto::TraceSpan> traceSpan_;
};

class TpuProfiler : public libkineto::IActivityProfiler {
 public:
  const std::string& name() const override { return name_; }

  const std::set<libkineto::ActivityType>& availableActivities() const override {
    return activities_;
  }

  std::unique_ptr<libkineto::IActivityProfilerSession> configure(
      const std::set<libkineto::ActivityType>& types, const libkineto::Config&) override {
    // Asked for device activity (torch.profiler with ProfilerActivity.PrivateUse1,
    // which is in its default set when "tpu" is registered).
    return std::make_unique<Session>(types.count(libkineto::ActivityType::CONCURRENT_KERNEL) > 0);
  }

  std::unique_ptr<libkineto::IActivityProfilerSession> configure(
      int64_t, int64_t, const std::set<libkineto::ActivityType>& types,
      const libkineto::Config& config) override {
    return configure(types, config);
  }

 private:
  std::string name_ = "torchtpu";
  std::set<libkineto::ActivityType> activities_{libkineto::ActivityType::CONCURRENT_KERNEL,
                                                libkineto::ActivityType::PRIVATEUSE1_RUNTIME};
};

REGISTER_PRIVATEUSE1_PROFILER(TpuProfiler);

}  // namespace

bool profilerAvailable() { return true; }
#else
// This torch has no PrivateUse1 profiler registry (or was built without
// Kineto): torch.profiler shows tpu ops' host spans only.
bool profilerAvailable() { return false; }
#endif
}  // namespace torchtpu::aten
