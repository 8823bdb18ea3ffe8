// Why a program compiled again (TORCHTPU_EXPLAIN_RECOMPILES=1, or
// torchtpu.debug.explain_recompiles(True)): when a strict op, a fused trace or
// a compiled graph builds a new program where one was built before, one line
// says which program and what differs from the nearest one already built: the
// first op that differs and how (shapes, dtypes, strides, static arguments), a
// Python number that became a program input, a new input layout, or a trace
// cut at another place (and why it was cut). Off by default; nothing is
// recorded while it is off.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exec/small_ints.h"
#include "ir/op_call.h"

namespace torchtpu::exec {

bool explainRecompiles();
void setExplainRecompiles(bool on);

struct RecompileExplanation {
  std::string kind;     // "op", "trace" or "graph"
  std::string program;  // which program: the op, "a fused trace of N ops", the graph's name
  std::string cause;    // "shapes", "dtype", "strides", "static argument", "python number",
                        // "input layout", "trace cut", "ops", "outputs", "new op"
  std::string detail;   // the readable difference (with the Python line when recorded)
};

// Records one explanation (and prints it to stderr: "torchtpu: recompile: ...").
void noteRecompile(RecompileExplanation e);
std::vector<RecompileExplanation> recompileReport();
void clearRecompileReport();

// A strict op about to compile a program (a cache miss): explained against
// the op's earlier programs, if it has any.
void explainOpCompile(const ir::OpCall& call);
// A strict op compiled again because a Python number compiled into its
// program changed (it is a program input from now on).
void explainOpNumberChange(const ir::OpCall& call);

// A fused trace about to compile (a cache miss), as the trace recorded it.
struct TraceNodeSummary {
  const ir::OpCall* call = nullptr;
  const std::string* key = nullptr;
  const SmallInts* arrays = nullptr;  // wiring: trace inputs (< 0) and values
  const std::string* source = nullptr;
};
struct TraceSummary {
  int device = 0;
  std::vector<TraceNodeSummary> nodes;
  std::vector<std::string> inputTypes;
  std::vector<bool> scalarIsInput;  // per trace scalar: a program input (changed before)
  std::string outputs;              // which values are live outputs, and donations
  std::string reason;               // why the trace was cut ("value needed", "loop", ...)
};
void explainTraceCompile(const TraceSummary& trace);

// Always on (it runs only when a fused trace compiles): when the same
// sequence of ops has compiled kGrowthWarnAfter programs in a row, each
// because one dimension grew (a sequence or cache length in a decoding
// loop), warns once on stderr, naming the op, its argument and the dimension.
inline constexpr int kGrowthWarnAfter = 4;
void watchTraceGrowth(const TraceSummary& trace);
// The warnings given so far (for tests and torchtpu.debug).
std::vector<std::string> growthWarnings();

}  // namespace torchtpu::exec
