// TORCHTPU_DUMP_DIR=dir: every program built (compiled, or loaded from the
// compile cache) is written there as StableHLO text, <name>.mlir, with a JSON
// file beside it, <name>.json: its kind (op, trace, graph, collective,
// internal), what it is, the ATen ops in it (with their Python lines when
// recorded), its input and output types, donated inputs, compile time and
// cache key. Names start with the time in microseconds, so they sort by time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchtpu::exec {

// Where a program comes from, for the dump.
struct ProgramOrigin {
  std::string kind = "internal";  // "op", "trace", "graph", "collective", "internal"
  std::vector<std::string> ops;   // the ATen ops in it, as recorded
};

// The dump directory ("" when off). Read once.
const std::string& programDumpDir();

// Writes `text` and its description; never throws (a failed write warns once).
void dumpProgram(const std::string& text, const std::string& what, const ProgramOrigin& origin,
                 double compileSeconds, bool fromDiskCache, uint64_t cacheKey);

}  // namespace torchtpu::exec
