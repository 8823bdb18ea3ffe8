#include "exec/program_key.h"

#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "exec/program_limit.h"

namespace torchtpu::exec::detail {
namespace {

// Per op-call site (op key and which call of it in the trace): the values its
// runtime scalars had when first flushed, each dropped for good once one
// differs.
std::unordered_map<std::string, std::vector<std::optional<HostScalar>>>& scalarHistory() {
  static auto* h = new std::unordered_map<std::string, std::vector<std::optional<HostScalar>>>();
  return *h;
}

// The scalars of a call that are program inputs from its first flush: lists
// of numbers (a foreach op's per-tensor values, such as an optimizer's bias
// corrections, which change every step) and generator states (whose offset
// advances at every call). A single number starts as a constant.
std::vector<size_t> inputsFromTheStart(const ir::OpCall& call) {
  std::vector<size_t> out;
  for (const ir::ArgValue& a : call.args) {
    if (a.scalar < 0) continue;
    const bool list = a.kind == ir::ArgValue::Kind::kScalar && !call.scalars[a.scalar].dims.empty();
    if (list || a.kind == ir::ArgValue::Kind::kRng) out.push_back(static_cast<size_t>(a.scalar));
  }
  return out;
}

// A trace structure met before, with what programKey() derives from it.
struct Structure {
  uint64_t number = 0;  // unique in the process: the program key's stem
  std::vector<hlo::TensorType> inputTypes;
  std::vector<ir::KeyedCallPtr> calls;
  std::vector<SmallInts> arrays;
  std::vector<int> outputs;
  std::vector<std::pair<int, int>> donations;
  // Per node with scalars, in order: its call site's history (scalarHistory()
  // never drops an entry, and a map's elements stay where they are).
  std::vector<std::vector<std::optional<HostScalar>>*> sites;
};

// Guarded by traceMutex(); at most cachedProgramLimit() structures.
std::unordered_map<uint64_t, std::vector<std::unique_ptr<const Structure>>>& structures() {
  static auto* s =
      new std::unordered_map<uint64_t, std::vector<std::unique_ptr<const Structure>>>();
  return *s;
}
size_t structureCount = 0;
uint64_t nextStructureNumber = 1;

// TORCHTPU_TEST_STRUCTURE_COLLISIONS=1: every structure hashes alike (for the
// tests of the full comparison). Read once.
bool everyHashCollides() {
  static const bool on = [] {
    const char* v = std::getenv("TORCHTPU_TEST_STRUCTURE_COLLISIONS");
    return v != nullptr && std::string(v) == "1";
  }();
  return on;
}

uint64_t mixHash(uint64_t h, uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

// A hash of the structure (equal structures, equal hashes): its inputs' types,
// its ops' keys and wiring, its outputs and donations.
uint64_t structureHash(const Trace& t, const FlushPlan& plan) {
  if (everyHashCollides()) return 0;
  uint64_t h = mixHash(t.inputs.size(), t.nodes.size());
  for (const auto& in : t.inputs) {
    const hlo::TensorType& type = in->type();
    h = mixHash(h, static_cast<uint64_t>(type.dtype));
    h = mixHash(h, type.dims.size());
    for (int64_t d : type.dims) h = mixHash(h, static_cast<uint64_t>(d));
  }
  for (const Node& n : t.nodes) {
    h = mixHash(h, n.shared->keyHash);
    h = mixHash(h, n.arrays.size());
    for (int a : n.arrays) h = mixHash(h, static_cast<uint64_t>(a));
  }
  h = mixHash(h, plan.outputs.size());
  for (int v : plan.outputs) h = mixHash(h, static_cast<uint64_t>(v));
  for (auto [p, o] : plan.donations) h = mixHash(mixHash(h, p), o);
  return h;
}

// Whether `s` is the structure of `t` flushed with `plan`: compared in full,
// so two structures whose hashes collide never share a program.
bool sameStructure(const Structure& s, const Trace& t, const FlushPlan& plan) {
  if (s.calls.size() != t.nodes.size() || s.inputTypes.size() != t.inputs.size() ||
      s.outputs != plan.outputs || s.donations != plan.donations) {
    return false;
  }
  for (size_t i = 0; i < t.inputs.size(); ++i) {
    if (!(s.inputTypes[i] == t.inputs[i]->type())) return false;
  }
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    if (s.calls[i] != n.shared && s.calls[i]->key != n.key()) return false;
    if (!(s.arrays[i] == n.arrays)) return false;
  }
  return true;
}

// The sites of the calls of `t` that have scalars, in order. The history of a
// call is keyed by its op key and which call of that op it is in the trace
// (the third mul of this shape), so two sites of one op with different
// numbers (x * 0.5 and y * 2) keep both as constants, while the same site's
// number changing from one flush to the next becomes an input.
// Sites are also told apart by the trace's first op, so traces of other
// parts of a loop (a step's forward, and its backward, which starts with
// the gradient seed's fill) never share a site: a forward's fill with 0
// and a backward's seed fill with 1 are two sites, not one number that
// changed. One loop's traces start the same from one iteration to the next.
std::vector<std::vector<std::optional<HostScalar>>*> scalarSites(const Trace& t) {
  std::vector<std::vector<std::optional<HostScalar>>*> sites;
  const std::string head =
      t.nodes.empty() ? std::string() : std::to_string(std::hash<std::string>{}(t.nodes[0].key()));
  std::unordered_map<std::string, int> occurrences;
  for (const Node& n : t.nodes) {
    if (n.call().scalars.empty()) continue;
    std::string site = head;
    site += '|';
    site += n.key();
    site += '@';
    site += std::to_string(occurrences[n.key()]++);
    sites.push_back(&scalarHistory()[site]);
  }
  return sites;
}

// The structure of `t` flushed with `plan`, found again or made.
const Structure& structureOf(const Trace& t, const FlushPlan& plan) {
  const uint64_t h = structureHash(t, plan);
  if (auto it = structures().find(h); it != structures().end()) {
    for (const auto& s : it->second) {
      if (sameStructure(*s, t, plan)) return *s;
    }
  }
  if (structureCount >= cachedProgramLimit()) {
    structures().clear();
    structureCount = 0;
  }
  auto s = std::make_unique<Structure>();
  s->number = nextStructureNumber++;
  for (const auto& in : t.inputs) s->inputTypes.push_back(in->type());
  for (const Node& n : t.nodes) {
    s->calls.push_back(n.shared);
    s->arrays.push_back(n.arrays);
  }
  s->outputs = plan.outputs;
  s->donations = plan.donations;
  s->sites = scalarSites(t);
  structureCount += 1;
  auto& bucket = structures()[h];
  bucket.push_back(std::move(s));
  return *bucket.back();
}

}  // namespace

ProgramKey programKey(const Trace& t, const FlushPlan& plan) {
  const Structure& s = structureOf(t, plan);
  ProgramKey k;
  k.constant.assign(t.scalars.size(), false);
  size_t site = 0;
  for (const Node& n : t.nodes) {
    const size_t count = n.call().scalars.size();
    if (count == 0) continue;
    std::vector<std::optional<HostScalar>>& seen = *s.sites[site++];
    const auto first = static_cast<size_t>(n.firstScalar);
    if (seen.size() != count) {
      seen.assign(t.scalars.begin() + first, t.scalars.begin() + first + count);
      for (size_t x : inputsFromTheStart(n.call())) seen[x].reset();
    }
    for (size_t x = 0; x < count; ++x) {
      if (seen[x] && *seen[x] != t.scalars[first + x]) seen[x].reset();
      k.constant[first + x] = seen[x].has_value();
    }
  }
  k.key = std::to_string(s.number);
  k.key += '#';
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t x = 0; x < t.scalars.size(); ++x) {
    if (!k.constant[x]) {
      k.key += '*';
      continue;
    }
    for (uint8_t byte : t.scalars[x]) {
      k.key += kHex[byte >> 4];
      k.key += kHex[byte & 15];
    }
    k.key += ',';
  }
  return k;
}

}  // namespace torchtpu::exec::detail
