#include "exec/profile_events.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "runtime/event.h"

namespace torchtpu::exec {
namespace detail {
std::atomic<bool> profilingOn{false};
}

namespace {

struct Recorder {
  std::mutex mu;
  std::condition_variable idle;
  uint64_t session = 0;  // bumped by each beginProfile: late spans of an old one are dropped
  int inFlight = 0;      // programs of this session not yet complete
  uint64_t nextFlow = 0;
  std::vector<ProfileSpan> spans;
};

Recorder& recorder() {
  static auto* r = new Recorder();  // completion callbacks may run at exit
  return *r;
}

std::atomic<uint64_t (*)()> correlationSource{nullptr};

uint64_t currentCorrelation() {
  uint64_t (*source)() = correlationSource.load(std::memory_order_acquire);
  return source != nullptr ? source() : 0;
}

int64_t currentThreadId() { return static_cast<int64_t>(::syscall(SYS_gettid)); }

uint64_t currentSession() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.session;
}

}  // namespace

int64_t profileClockNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void setProfileCorrelationSource(uint64_t (*source)()) {
  correlationSource.store(source, std::memory_order_release);
}

void beginProfile() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  r.session += 1;
  r.inFlight = 0;
  r.nextFlow = 0;
  r.spans.clear();
  detail::profilingOn.store(true, std::memory_order_relaxed);
}

std::vector<ProfileSpan> endProfile(double waitSeconds) {
  Recorder& r = recorder();
  std::unique_lock<std::mutex> lock(r.mu);
  detail::profilingOn.store(false, std::memory_order_relaxed);
  r.idle.wait_for(lock, std::chrono::duration<double>(waitSeconds),
                  [&r] { return r.inFlight == 0; });
  r.session += 1;  // whatever completes later belongs to no profile
  r.inFlight = 0;
  std::vector<ProfileSpan> out;
  out.swap(r.spans);
  return out;
}

HostSpan::HostSpan(SpanKind kind, std::string_view name, int device) {
  if (!profiling()) return;
  active_ = true;
  session_ = currentSession();
  span_.kind = kind;
  span_.name = std::string(name);
  span_.device = device;
  span_.correlation = currentCorrelation();
  span_.threadId = currentThreadId();
  span_.startNs = profileClockNs();
}

void HostSpan::detail(std::string key, std::string value) {
  if (active_) span_.details.push_back({std::move(key), std::move(value), true});
}

void HostSpan::detail(std::string key, int64_t value) {
  if (active_) span_.details.push_back({std::move(key), std::to_string(value), false});
}

HostSpan::~HostSpan() {
  if (!active_) return;
  span_.endNs = profileClockNs();
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.session == session_) r.spans.push_back(std::move(span_));
}

void profileLaunch(std::string name, int device, int64_t launchNs, const runtime::Event& done,
                   std::vector<ProfileDetail> details) {
  auto span = std::make_shared<ProfileSpan>();
  span->kind = SpanKind::kProgram;
  span->name = std::move(name);
  span->device = device;
  span->startNs = launchNs;
  span->correlation = currentCorrelation();
  span->threadId = currentThreadId();
  ProfileSpan launch;
  launch.kind = SpanKind::kLaunch;
  launch.name = "tpu::launch";
  launch.device = device;
  launch.startNs = launchNs;
  launch.endNs = profileClockNs();
  launch.correlation = span->correlation;
  launch.threadId = span->threadId;
  launch.details.push_back({"program", span->name, true});
  uint64_t session = 0;
  {
    Recorder& r = recorder();
    std::lock_guard<std::mutex> lock(r.mu);
    session = r.session;
    r.inFlight += 1;
    span->flow = launch.flow = ++r.nextFlow;
    r.spans.push_back(std::move(launch));
  }
  span->details = std::move(details);
  auto finished = [span, session](const std::optional<runtime::Error>& error) {
    span->endNs = profileClockNs();
    if (error) span->details.push_back({"error", error->message(), true});
    Recorder& r = recorder();
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.session != session) return;
    r.inFlight -= 1;
    r.spans.push_back(std::move(*span));
    if (r.inFlight == 0) r.idle.notify_all();
  };
  try {
    done.onReady(finished);
  } catch (const runtime::Error& e) {
    finished(e);  // the plugin cannot report completion: end the span now
  }
}

}  // namespace torchtpu::exec
