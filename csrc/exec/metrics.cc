#include "exec/metrics.h"

namespace torchtpu::exec {

Metrics& metrics() {
  static Metrics* m = new Metrics();  // never destroyed: used during shutdown
  return *m;
}

void Metrics::addFallback(const std::string& op) {
  std::lock_guard<std::mutex> lock(mu_);
  ++fallbacks_[op];
}

void Metrics::addFlush(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  ++flushes_[reason];
}

std::map<std::string, int64_t> Metrics::flushes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return flushes_;
}

std::map<std::string, int64_t> Metrics::fallbacks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fallbacks_;
}

void Metrics::addLiveBytes(int64_t bytes) {
  int64_t now = liveBytes.fetch_add(bytes) + bytes;
  int64_t peak = peakLiveBytes.load();
  while (now > peak && !peakLiveBytes.compare_exchange_weak(peak, now)) {
  }
}

void Metrics::reset() {
  compiles = 0;
  compileNanos = 0;
  cacheHits = 0;
  diskCacheHits = 0;
  launches = 0;
  hostToDeviceBytes = 0;
  deviceToHostBytes = 0;
  peakLiveBytes = liveBytes.load();
  fusedOps = 0;
  recompiles = 0;
  graphCompiles = 0;
  graphCompileNanos = 0;
  graphRuns = 0;
  graphEagerRuns = 0;
  compiledCollectives = 0;
  programEvictions = 0;
  backgroundCompiles = 0;
  std::lock_guard<std::mutex> lock(mu_);
  fallbacks_.clear();
  flushes_.clear();
}

}  // namespace torchtpu::exec
