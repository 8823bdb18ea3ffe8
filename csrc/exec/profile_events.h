// What torch.profiler shows of the backend: host spans (compiles, flushes of
// a fused trace, copies between host and device) and the device span of each
// program launched (from its launch to its completion event). Recorded only
// while a profile runs; when none does, each recording site costs one relaxed
// atomic load. The integration layer (csrc/aten/profiler.cc) turns the spans
// into Kineto activities.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torchtpu::runtime {
class Event;
}

namespace torchtpu::exec {

enum class SpanKind { kProgram, kLaunch, kCompile, kFlush, kCopyToDevice, kCopyToHost };

struct ProfileDetail {
  std::string key;
  std::string value;
  bool quoted = false;  // a string (else a number, written as is)
};

struct ProfileSpan {
  SpanKind kind = SpanKind::kProgram;
  std::string name;
  int device = -1;
  int64_t startNs = 0;  // system clock, nanoseconds since the epoch
  int64_t endNs = 0;
  // The framework's op that was running on the recording thread (its
  // profiler correlation id), 0 when none.
  uint64_t correlation = 0;
  int64_t threadId = 0;  // the recording thread (the kernel's id)
  // Pairs a program's host launch span with its device span (0: none).
  uint64_t flow = 0;
  std::vector<ProfileDetail> details;
};

namespace detail {
extern std::atomic<bool> profilingOn;
}

// Whether a profile is recording.
inline bool profiling() { return detail::profilingOn.load(std::memory_order_relaxed); }

// Starts recording (dropping anything left from before).
void beginProfile();
// Stops recording and returns the spans, once the programs launched while
// recording have completed (waits at most `waitSeconds` for them; a program
// still running after that is left out).
std::vector<ProfileSpan> endProfile(double waitSeconds = 60.0);

int64_t profileClockNs();

// The clock before a program launch: profileClockNs() while a profile
// records, else 0 (no profileLaunch to make).
inline int64_t launchClockNs() { return profiling() ? profileClockNs() : 0; }

// The profiler correlation id of the framework op running on the calling
// thread; set by the integration layer.
void setProfileCorrelationSource(uint64_t (*source)());

// A host span: records [construction, destruction) when a profile is
// recording at construction.
class HostSpan {
 public:
  HostSpan(SpanKind kind, std::string_view name, int device = -1);
  ~HostSpan();
  HostSpan(const HostSpan&) = delete;
  HostSpan& operator=(const HostSpan&) = delete;

  bool active() const { return active_; }
  void detail(std::string key, std::string value);
  void detail(std::string key, int64_t value);

 private:
  bool active_ = false;
  uint64_t session_ = 0;
  ProfileSpan span_;
};

// Records a program launched at `launchNs` (a profileClockNs() taken before
// the launch) whose completion is `done`: its host launch span ("tpu::launch",
// from `launchNs` to now, on the calling thread) and its device span (from
// `launchNs` to `done`), paired by a flow. Call only when profiling().
void profileLaunch(std::string name, int device, int64_t launchNs, const runtime::Event& done,
                   std::vector<ProfileDetail> details = {});

}  // namespace torchtpu::exec
