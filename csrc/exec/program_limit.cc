#include "exec/program_limit.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace torchtpu::exec {
namespace {

constexpr size_t kMinimum = 64;
constexpr size_t kMapsPerProgramBudget = 16;  // a program maps ~4; leave room for the rest

size_t fromMapCount() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  long long maps = 0;
  if (!(in >> maps) || maps <= 0) maps = 65530;
  const size_t limit = static_cast<size_t>(maps) / kMapsPerProgramBudget;
  return limit < kMinimum ? kMinimum : limit;
}

size_t readLimit() {
  const char* env = std::getenv("TORCHTPU_MAX_CACHED_PROGRAMS");
  if (env == nullptr || *env == '\0') return fromMapCount();
  char* end = nullptr;
  const long long v = std::strtoll(env, &end, 10);
  if (end == env || *end != '\0' || v < 1) {
    std::fprintf(stderr,
                 "torchtpu: warning: TORCHTPU_MAX_CACHED_PROGRAMS=%s is not a positive integer; "
                 "using %zu\n",
                 env, fromMapCount());
    return fromMapCount();
  }
  return static_cast<size_t>(v);
}

}  // namespace

size_t cachedProgramLimit() {
  static const size_t limit = readLimit();
  return limit;
}

}  // namespace torchtpu::exec
