// A loop's state made at its first iteration (zero fills of new storages that
// outlive the trace, such as an optimizer's moment buffers) is split off the
// trace and run as a program of its own before it, so the first iteration's
// program is the one every later iteration runs.
#pragma once

#include <optional>
#include <vector>

#include "exec/trace_state.h"

namespace torchtpu::exec::detail {

struct StateInit {
  Trace trace;                     // the fills, each making one output
  std::vector<PendingPtr> values;  // its outputs (held here so they are live)
  std::vector<int> replaced;       // per output: the value of the split trace it makes
};

// The fresh zero fills of `t` whose storage outlives the trace (its last
// contents are still referenced), as a trace of their own; nullopt when
// there are none, or when nothing else would be left.
std::optional<StateInit> splitStateInit(const Trace& t);

// After `init`'s trace ran: drops its fills from `t` and makes the arrays they
// made inputs of `t`, numbered in the order `t`'s nodes first read them.
void replaceStateInit(Trace& t, StateInit init);

}  // namespace torchtpu::exec::detail
