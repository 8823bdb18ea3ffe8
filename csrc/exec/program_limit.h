// How many loaded programs each in-memory program cache keeps.
//
// Every loaded executable holds a few memory mappings of the process (the XLA
// CPU plugin maps its code and constants), and Linux caps a process's mappings
// (vm.max_map_count, 65530 by default). A cache that keeps every program it
// ever compiled runs into that cap in a long process (a test suite, a
// notebook trying many shapes): compiles start failing and the process may
// not survive the error. Each cache therefore holds at most
// cachedProgramLimit() programs and is emptied when full; programs still in
// use stay alive through their other owners, and the rest compile again (from
// the compile cache when it is on).
#pragma once

#include <cstddef>

#include "exec/metrics.h"

namespace torchtpu::exec {

// TORCHTPU_MAX_CACHED_PROGRAMS when set (at least 1), else vm.max_map_count / 16
// (4095 on a stock kernel), at least 64. Read once.
size_t cachedProgramLimit();

// Empties `cache` (any map of programs) when it is full, before an insert.
template <class Cache>
void makeRoomForProgram(Cache& cache) {
  if (cache.size() < cachedProgramLimit()) return;
  cache.clear();
  metrics().programEvictions += 1;
}

}  // namespace torchtpu::exec
