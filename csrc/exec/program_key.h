// The key a flush's fused program is cached under, and which of the trace's
// scalars are constants of that program.
//
// A single number starts as a constant of the program (XLA optimizes
// constants much better than inputs); a scalar of an op call site whose value
// has changed between two flushes is a program input for good. Lists of
// numbers and generator states are inputs from the start. With the optimizer
// state's fills split off the first step (exec/trace_state_init.h), a training
// loop's first step builds the programs every later step runs: its
// optimizer's bias corrections (lists) are inputs from the start, and its
// learning rate, a constant until a scheduler changes it, then an input.
//
// A loop's flushes repeat a few trace structures (inputs' types, ops and their
// wiring, live outputs, donated inputs). Each structure met is kept, found
// again by a hash of the trace and then compared in full, so two structures
// whose hashes collide never share a program; a found structure gives its
// number (the program key's stem) and its call sites' scalar histories
// without building either again. Writing the structure out as the key's text
// at every flush cost about 120 µs of host time per flush of the GPT-style
// model's training step.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "exec/pending_value.h"
#include "exec/trace_state.h"

namespace torchtpu::exec::detail {

// What a flush returns and donates: the values still referenced (by a
// storage or anything else), and the inputs that only the trace still holds,
// each giving its buffer to an output of the same type.
struct FlushPlan {
  std::vector<int> outputs;  // value ids
  std::vector<PendingPtr> live;
  std::vector<std::pair<int, int>> donations;  // (input, output)
};

struct ProgramKey {
  // The program cache's key: the structure's number and the constant scalars'
  // bytes.
  std::string key;
  std::vector<bool> constant;  // per trace scalar
};

// The key of flushing `t` with `plan`; updates the scalar histories of its
// call sites. Requires traceMutex().
ProgramKey programKey(const Trace& t, const FlushPlan& plan);

}  // namespace torchtpu::exec::detail
