// Process-wide counters that tell users what the runtime did.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace torchtpu::exec {

struct Metrics {
  std::atomic<int64_t> compiles{0};
  std::atomic<int64_t> compileNanos{0};
  std::atomic<int64_t> cacheHits{0};
  std::atomic<int64_t> diskCacheHits{0};  // programs loaded from the compile cache
  std::atomic<int64_t> launches{0};
  std::atomic<int64_t> hostToDeviceBytes{0};
  std::atomic<int64_t> deviceToHostBytes{0};
  std::atomic<int64_t> liveBuffers{0};
  std::atomic<int64_t> liveBytes{0};
  std::atomic<int64_t> peakLiveBytes{0};
  std::atomic<int64_t> fusedOps{0};    // ops run inside fused (deferred) programs
  std::atomic<int64_t> recompiles{0};  // fused programs compiled after the first
  // torch.compile: graphs captured and compiled (capture included in the
  // time), runs of captured graphs, graphs run eagerly because capture failed.
  std::atomic<int64_t> graphCompiles{0};
  std::atomic<int64_t> graphCompileNanos{0};
  std::atomic<int64_t> graphRuns{0};
  std::atomic<int64_t> graphEagerRuns{0};
  // Collectives run as replicated device programs (exec/collective.h).
  std::atomic<int64_t> compiledCollectives{0};
  // Times an in-memory program cache was full and emptied (exec/program_limit.h).
  std::atomic<int64_t> programEvictions{0};
  // Fused programs compiled on a thread of their own while the host went on
  // (exec/background_flush.h).
  std::atomic<int64_t> backgroundCompiles{0};

  void addFlush(const std::string& reason);
  std::map<std::string, int64_t> flushes() const;

  void addFallback(const std::string& op);
  std::map<std::string, int64_t> fallbacks() const;
  void addLiveBytes(int64_t bytes);
  void reset();

 private:
  mutable std::mutex mu_;
  std::map<std::string, int64_t> fallbacks_;
  std::map<std::string, int64_t> flushes_;
};

Metrics& metrics();

}  // namespace torchtpu::exec
