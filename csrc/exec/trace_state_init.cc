// State made at a loop's first iteration, run as a program of its own: the
// zero fills of new storages that outlive their trace (an optimizer's moment
// buffers, created by its first step). Left in the step's trace they would
// make the first step's program differ from every later step's, which reads
// that state as inputs instead, so the loop would build its update program
// twice. Split off, the first step's trace has the later steps' structure.
#include "exec/trace_state_init.h"

#include <algorithm>
#include <utility>

#include "exec/op_program.h"

namespace torchtpu::exec::detail {

namespace {

// A fill that makes a new storage's zeros: zero_ on an uninitialized array,
// with no runtime scalars (so the trace's scalar numbering is unchanged
// without it). Checked at every flush: the op's name is compared last.
bool isFreshZeroFill(const Node& n) {
  return n.arrays.size() == 1 && n.arrays[0] == kZeroBinding && n.outputs.size() == 1 &&
         n.call().scalars.empty() && n.call().op == "aten::zero_";
}

}  // namespace

std::optional<StateInit> splitStateInit(const Trace& t) {
  if (t.capturing || std::none_of(t.nodes.begin(), t.nodes.end(), isFreshZeroFill)) {
    return std::nullopt;
  }
  // Per value: the value that an in-place op made from it (its storage's
  // next contents), or -1.
  std::vector<int> next(t.values.size(), -1);
  for (const Node& n : t.nodes) {
    const std::vector<int> updated = updatedArrayOrder(n.call());
    const size_t numNew = n.outputs.size() - updated.size();
    for (size_t j = 0; j < updated.size(); ++j) {
      const int b = n.arrays[updated[j]];
      if (b >= 0) next[b] = n.outputs[numNew + j];
    }
  }
  StateInit init;
  init.trace.device = t.device;
  init.trace.owner = t.owner;
  for (const Node& n : t.nodes) {
    if (!isFreshZeroFill(n)) continue;
    int last = n.outputs[0];
    while (next[last] >= 0) last = next[last];
    if (t.values[last].expired()) continue;  // a temporary: its zeros stay a constant
    Node fill;
    fill.shared = n.shared;
    fill.arrays.push_back(kZeroBinding);
    fill.source = n.source;
    const int v = n.outputs[0];
    auto value = std::make_shared<PendingValue>();
    value->type = t.valueTypes[v];
    value->id = static_cast<int>(init.trace.values.size());
    value->device = t.device;
    value->owner = t.owner;
    fill.outputs.push_back(value->id);
    init.trace.values.push_back(value);
    init.trace.valueTypes.push_back(value->type);
    init.trace.nodes.push_back(std::move(fill));
    init.values.push_back(std::move(value));
    init.replaced.push_back(v);
  }
  // Nothing to split off, or nothing would remain.
  if (init.replaced.empty() || init.replaced.size() == t.nodes.size()) return std::nullopt;
  return init;
}

void replaceStateInit(Trace& t, StateInit init) {
  // The arrays the split-off program made, by the value of `t` they replace.
  std::vector<ArrayPtr> made(t.values.size());
  for (size_t i = 0; i < init.replaced.size(); ++i) {
    const int v = init.replaced[i];
    made[v] = std::move(init.values[i]->resolved);
    if (PendingPtr p = t.values[v].lock()) resolveValue(*p, made[v]);
  }
  init = StateInit();  // the inputs' only other holders: donation counts on it
  // The remaining nodes, with the made arrays as inputs. Inputs are numbered
  // in the order the nodes first read them, as recording numbers them, so the
  // trace is the one a later iteration records with this state as inputs.
  Trace out;
  out.id = t.id;
  out.device = t.device;
  out.owner = t.owner;
  out.scalars = std::move(t.scalars);
  out.scalarTypes = std::move(t.scalarTypes);
  std::vector<int> renumbered(t.values.size(), -1);
  for (Node& n : t.nodes) {
    if (isFreshZeroFill(n) && made[n.outputs[0]]) continue;
    Node m;
    m.shared = std::move(n.shared);
    m.firstScalar = n.firstScalar;  // the nodes left out have no scalars
    m.source = std::move(n.source);
    for (int b : n.arrays) {
      if (b == kZeroBinding) {
        m.arrays.push_back(b);
      } else if (b < 0) {
        m.arrays.push_back(out.bindInput(t.inputs[-1 - b]));
      } else if (made[b]) {
        m.arrays.push_back(out.bindInput(made[b]));
      } else {
        m.arrays.push_back(renumbered[b]);
      }
    }
    for (int v : n.outputs) {
      renumbered[v] = static_cast<int>(out.values.size());
      if (PendingPtr p = t.values[v].lock()) p->id = renumbered[v];
      out.values.push_back(std::move(t.values[v]));
      out.valueTypes.push_back(t.valueTypes[v]);
      m.outputs.push_back(renumbered[v]);
    }
    out.nodes.push_back(std::move(m));
  }
  t = std::move(out);
}

}  // namespace torchtpu::exec::detail
