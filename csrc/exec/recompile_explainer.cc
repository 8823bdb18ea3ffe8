#include "exec/recompile_explainer.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

#include "runtime/element_type.h"

namespace torchtpu::exec {
namespace {

std::atomic<bool>& enabled() {
  static std::atomic<bool> on = [] {
    const char* v = std::getenv("TORCHTPU_EXPLAIN_RECOMPILES");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  return on;
}

std::mutex mu;
std::vector<RecompileExplanation>& report() {
  static auto* r = new std::vector<RecompileExplanation>();
  return *r;
}

// ---- arguments, as text ----------------------------------------------------

std::string intsText(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t k = 0; k < v.size(); ++k) out += (k ? ", " : "") + std::to_string(v[k]);
  return out + "]";
}

bool rowMajor(const ir::TensorRef& t) {
  int64_t expect = 1;
  for (size_t k = t.sizes.size(); k-- > 0;) {
    if (t.sizes[k] != 1 && t.strides[k] != expect) return false;
    expect *= t.sizes[k];
  }
  return true;
}

// "i64[1, 1] offset 9 of i64[1, 18]": a view of part of a storage names the
// storage's type too (a view of a storage that grew is a new program).
std::string tensorText(const ir::OpCall& call, const ir::TensorRef& t, bool showStorage) {
  if (!t.present()) return "None";
  std::string out = std::string(runtime::elementTypeName(t.dtype)) + intsText(t.sizes);
  if (!rowMajor(t)) out += " strides " + intsText(t.strides);
  if (t.offset != 0) out += " offset " + std::to_string(t.offset);
  if (t.array < static_cast<int>(call.arrays.size())) {
    const hlo::TensorType& storage = call.arrays[t.array];
    if (!t.isWholeArray(storage)) {
      out += " of " + std::string(runtime::elementTypeName(storage.dtype)) + intsText(storage.dims);
    }
  }
  if (showStorage) out += " in storage #" + std::to_string(t.array);
  return out;
}

std::string argName(const ir::OpCall& call, size_t k) {
  return k < call.argNames.size() ? call.argNames[k] : "arg" + std::to_string(k);
}

struct ArgText {
  std::string name;
  std::string text;
  std::string cause;  // how a change of it is classified
};

std::vector<ArgText> argTexts(const ir::OpCall& call) {
  size_t tensors = 0;
  for (const ir::ArgValue& a : call.args) {
    if (a.kind == ir::ArgValue::Kind::kTensor && a.tensor.present()) ++tensors;
    if (a.kind == ir::ArgValue::Kind::kTensorList) tensors += a.tensors.size();
  }
  const bool sharing = call.arrays.size() < tensors;  // two arguments view one storage
  std::vector<ArgText> out;
  for (size_t k = 0; k < call.args.size(); ++k) {
    const ir::ArgValue& a = call.args[k];
    ArgText t;
    t.name = argName(call, k);
    using Kind = ir::ArgValue::Kind;
    switch (a.kind) {
      case Kind::kTensor:
        t.text = tensorText(call, a.tensor, sharing);
        t.cause = "tensor";
        break;
      case Kind::kTensorList:
        t.text = "[";
        for (size_t e = 0; e < a.tensors.size(); ++e) {
          t.text += (e ? ", " : "") + tensorText(call, a.tensors[e], sharing);
        }
        t.text += "]";
        t.cause = "tensor";
        break;
      case Kind::kScalar:
        t.text = "a number (" +
                 std::string(runtime::elementTypeName(call.scalars[a.scalar].dtype)) + ")";
        break;
      case Kind::kBool:
        t.text = a.b ? "True" : "False";
        break;
      case Kind::kInt:
        t.text = std::to_string(a.i);
        break;
      case Kind::kDouble:
        t.text = std::to_string(a.d);
        break;
      case Kind::kInts:
        t.text = intsText(a.ints);
        break;
      case Kind::kDoubles: {
        t.text = "[";
        for (size_t e = 0; e < a.doubles.size(); ++e) {
          t.text += (e ? ", " : "") + std::to_string(a.doubles[e]);
        }
        t.text += "]";
        break;
      }
      case Kind::kString:
        t.text = "'" + a.s + "'";
        break;
      case Kind::kDType:
        t.text = std::string(runtime::elementTypeName(a.dtype));
        break;
      case Kind::kRng:
        t.text = "a generator";
        break;
      case Kind::kNone:
        t.text = "None";
        break;
      case Kind::kOther:
        break;
    }
    if (t.cause.empty()) t.cause = "static argument";
    out.push_back(std::move(t));
  }
  return out;
}

// What differs between two calls of one op: the cause and "name: before -> after; ...".
std::pair<std::string, std::string> argDifference(const std::vector<ArgText>& before,
                                                  const std::vector<ArgText>& now) {
  std::string cause, detail;
  int shown = 0;
  for (size_t k = 0; k < now.size() && k < before.size(); ++k) {
    if (now[k].text == before[k].text) continue;
    if (shown++ == 3) {
      detail += "; ...";
      break;
    }
    if (!detail.empty()) detail += "; ";
    detail += now[k].name + ": " + before[k].text + " -> " + now[k].text;
    if (!cause.empty()) continue;
    if (now[k].cause != "tensor" || before[k].cause != "tensor") {
      cause = "static argument";
    } else if (now[k].text.substr(0, now[k].text.find('[')) !=
               before[k].text.substr(0, before[k].text.find('['))) {
      cause = "dtype";
    } else {
      // Shapes: the view's, or those of the storage it views ("... of i64[1, 18]").
      // (A whole storage and a view of one differ in layout, not in shape.)
      const auto dims = [](const std::string& s) { return s.substr(0, s.find(']') + 1); };
      const auto storage = [](const std::string& s) {
        const size_t of = s.find(" of ");
        return of == std::string::npos ? std::string() : s.substr(of);
      };
      const std::string a = storage(now[k].text), b = storage(before[k].text);
      const bool grew = !a.empty() && !b.empty() && dims(a.substr(4)) != dims(b.substr(4));
      cause = dims(now[k].text) != dims(before[k].text) || grew ? "shapes" : "strides";
    }
  }
  return {cause, detail};
}

size_t sameArgs(const std::vector<ArgText>& a, const std::vector<ArgText>& b) {
  size_t n = 0;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) n += a[k].text == b[k].text ? 1 : 0;
  return n;
}

constexpr const char* kEvicted =
    "the same program was built before; the in-memory program cache was full and emptied "
    "(TORCHTPU_MAX_CACHED_PROGRAMS)";

// ---- strict ops -------------------------------------------------------------

std::unordered_map<std::string, std::deque<std::vector<ArgText>>>& opHistory() {
  static auto* h = new std::unordered_map<std::string, std::deque<std::vector<ArgText>>>();
  return *h;
}

// ---- traces -------------------------------------------------------------------

struct NodeRecord {
  std::string key;
  std::vector<int> arrays;
  std::string op;
  std::vector<ArgText> args;
  std::string source;
  int firstScalar = 0;
};

struct TraceRecord {
  int device = 0;
  std::vector<NodeRecord> nodes;
  std::vector<std::string> inputTypes;
  std::vector<bool> scalarIsInput;
  std::string outputs;
  std::string reason;
};

std::deque<TraceRecord>& traceHistory() {
  static auto* h = new std::deque<TraceRecord>();
  return *h;
}

size_t commonPrefix(const TraceRecord& a, const TraceRecord& b) {
  size_t n = 0;
  while (n < a.nodes.size() && n < b.nodes.size() && a.nodes[n].key == b.nodes[n].key &&
         a.nodes[n].arrays == b.nodes[n].arrays) {
    ++n;
  }
  return n;
}

std::string nodeName(const NodeRecord& n, size_t index) {
  std::string out = "op #" + std::to_string(index) + " " + n.op;
  if (!n.source.empty()) out += " at " + n.source;
  return out;
}

std::string tracesDifference(const TraceRecord& before, const TraceRecord& now,
                             std::string& cause) {
  const size_t p = commonPrefix(before, now);
  if (p < before.nodes.size() && p < now.nodes.size()) {
    const NodeRecord& b = before.nodes[p];
    const NodeRecord& n = now.nodes[p];
    if (b.op != n.op) {
      cause = "ops";
      return "op #" + std::to_string(p) + " is " + n.op +
             (n.source.empty() ? "" : " at " + n.source) + " where it was " + b.op;
    }
    if (b.key != n.key) {
      auto [c, d] = argDifference(b.args, n.args);
      cause = c.empty() ? "static argument" : c;
      return nodeName(n, p) + ": " + (d.empty() ? "its static arguments differ" : d);
    }
    cause = "input layout";
    return nodeName(n, p) +
           " reads other values (which earlier results or inputs it reads, or which "
           "inputs share a storage, differ)";
  }
  if (before.nodes.size() != now.nodes.size()) {
    cause = "trace cut";
    return "the trace was cut after " + std::to_string(now.nodes.size()) + " ops (" + now.reason +
           ") where the nearest was cut after " + std::to_string(before.nodes.size()) + " (" +
           before.reason + ")";
  }
  for (size_t k = 0; k < now.inputTypes.size() && k < before.inputTypes.size(); ++k) {
    if (now.inputTypes[k] != before.inputTypes[k]) {
      cause = "input layout";
      return "trace input " + std::to_string(k) + ": " + before.inputTypes[k] + " -> " +
             now.inputTypes[k];
    }
  }
  if (now.inputTypes.size() != before.inputTypes.size()) {
    cause = "input layout";
    return std::to_string(now.inputTypes.size()) + " trace inputs where there were " +
           std::to_string(before.inputTypes.size()) + " (storages shared differently)";
  }
  for (size_t k = 0; k < now.scalarIsInput.size() && k < before.scalarIsInput.size(); ++k) {
    if (now.scalarIsInput[k] == before.scalarIsInput[k]) continue;
    size_t owner = 0;
    for (size_t i = 0; i < now.nodes.size(); ++i) {
      if (now.nodes[i].firstScalar <= static_cast<int>(k)) owner = i;
    }
    cause = "python number";
    return "a Python number of " + nodeName(now.nodes[owner], owner) +
           (now.scalarIsInput[k] ? " changed and is now a program input (later values reuse "
                                   "this program)"
                                 : " is a constant again");
  }
  if (now.outputs != before.outputs) {
    cause = "outputs";
    return "other values are live after the trace (program outputs) or other inputs are "
           "donated";
  }
  cause = "evicted";
  return kEvicted;
}

// ---- growing dimensions ---------------------------------------------------------

// One tensor argument of a trace: its view's sizes, then its storage's.
struct ShapeEntry {
  size_t node = 0;
  std::string arg;
  std::vector<int64_t> dims;
  size_t viewRank = 0;  // dims[viewRank:] are the viewed storage's
};

std::vector<ShapeEntry> traceShapes(const TraceSummary& trace) {
  std::vector<ShapeEntry> out;
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const ir::OpCall& call = *trace.nodes[i].call;
    for (size_t k = 0; k < call.args.size(); ++k) {
      const ir::ArgValue& a = call.args[k];
      const std::string name = argName(call, k);
      auto add = [&](const ir::TensorRef& t) {
        if (!t.present()) return;
        std::vector<int64_t> dims = t.sizes;
        if (t.array < static_cast<int>(call.arrays.size())) {
          const auto& storage = call.arrays[t.array].dims;
          dims.insert(dims.end(), storage.begin(), storage.end());
        }
        out.push_back({i, name, std::move(dims), t.sizes.size()});
      };
      if (a.kind == ir::ArgValue::Kind::kTensor) add(a.tensor);
      if (a.kind == ir::ArgValue::Kind::kTensorList) {
        for (const ir::TensorRef& t : a.tensors) add(t);
      }
    }
    for (size_t r = 0; r < call.results.size(); ++r) {
      out.push_back(
          {i, "result " + std::to_string(r), call.results[r].dims, call.results[r].dims.size()});
    }
  }
  return out;
}

struct GrowthRecord {
  std::vector<ShapeEntry> last;
  int growing = 0;  // consecutive compiles in which dimensions only grew
  bool warned = false;
  std::string first;  // the growing dimension of the first such compile
  int64_t firstSize = 0;
};

std::unordered_map<std::string, GrowthRecord>& growthHistory() {
  static auto* h = new std::unordered_map<std::string, GrowthRecord>();
  return *h;
}

std::vector<std::string>& growthReport() {
  static auto* r = new std::vector<std::string>();
  return *r;
}

void emit(const RecompileExplanation& e) {
  std::fprintf(stderr, "torchtpu: recompile (%s): %s: %s: %s\n", e.kind.c_str(), e.program.c_str(),
               e.cause.c_str(), e.detail.c_str());
}

}  // namespace

bool explainRecompiles() { return enabled().load(std::memory_order_relaxed); }
void setExplainRecompiles(bool on) { enabled() = on; }

void noteRecompile(RecompileExplanation e) {
  emit(e);
  std::lock_guard<std::mutex> lock(mu);
  report().push_back(std::move(e));
}

std::vector<RecompileExplanation> recompileReport() {
  std::lock_guard<std::mutex> lock(mu);
  return report();
}

void clearRecompileReport() {
  std::lock_guard<std::mutex> lock(mu);
  report().clear();
  opHistory().clear();
  traceHistory().clear();
  growthHistory().clear();
  growthReport().clear();
}

void explainOpCompile(const ir::OpCall& call) {
  std::vector<ArgText> now = argTexts(call);
  std::optional<RecompileExplanation> e;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto& seen = opHistory()[call.op];
    if (!seen.empty()) {
      const std::vector<ArgText>* nearest = &seen.back();
      for (auto it = seen.rbegin(); it != seen.rend(); ++it) {
        if (sameArgs(*it, now) > sameArgs(*nearest, now)) nearest = &*it;
      }
      auto [cause, detail] = argDifference(*nearest, now);
      e = RecompileExplanation{"op", call.op, cause.empty() ? "evicted" : cause,
                               detail.empty() ? kEvicted : detail};
    }
    seen.push_back(std::move(now));
    if (seen.size() > 8) seen.pop_front();
  }
  if (e) noteRecompile(std::move(*e));
}

void explainOpNumberChange(const ir::OpCall& call) {
  noteRecompile(RecompileExplanation{
      "op", call.op, "python number",
      "a Python number changed and is now a program input (later values reuse this program)"});
}

void explainTraceCompile(const TraceSummary& trace) {
  TraceRecord now;
  now.device = trace.device;
  for (const TraceNodeSummary& n : trace.nodes) {
    NodeRecord r;
    r.key = *n.key;
    r.arrays = n.arrays->toVector();
    r.op = n.call->op;
    r.args = argTexts(*n.call);
    if (n.source != nullptr) r.source = *n.source;
    now.nodes.push_back(std::move(r));
  }
  // firstScalar: each node's first trace scalar, from the calls' scalar counts.
  int scalar = 0;
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    now.nodes[i].firstScalar = scalar;
    scalar += static_cast<int>(trace.nodes[i].call->scalars.size());
  }
  now.inputTypes = trace.inputTypes;
  now.scalarIsInput = trace.scalarIsInput;
  now.outputs = trace.outputs;
  now.reason = trace.reason;
  std::optional<RecompileExplanation> e;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto& seen = traceHistory();
    // The programs built for the same place: traces that start with the same op.
    // A trace that starts elsewhere is a new program, not a recompile.
    const TraceRecord* nearest = nullptr;
    size_t best = 0;
    for (auto it = seen.rbegin(); it != seen.rend() && !now.nodes.empty(); ++it) {
      if (it->nodes.empty() || it->nodes[0].op != now.nodes[0].op) continue;
      const size_t p = commonPrefix(*it, now) + (it->device == now.device ? 1 : 0);
      if (nearest == nullptr || p > best) {
        nearest = &*it;
        best = p;
      }
    }
    if (nearest != nullptr) {
      std::string cause;
      std::string detail = tracesDifference(*nearest, now, cause);
      e = RecompileExplanation{
          "trace", "a fused trace of " + std::to_string(now.nodes.size()) + " ops", cause, detail};
    }
    seen.push_back(std::move(now));
    if (seen.size() > 32) seen.pop_front();
  }
  if (e) noteRecompile(std::move(*e));
}

void watchTraceGrowth(const TraceSummary& trace) {
  if (trace.nodes.empty()) return;
  std::string place = std::to_string(trace.device);
  for (const TraceNodeSummary& n : trace.nodes) place += "|" + n.call->op;
  std::vector<ShapeEntry> now = traceShapes(trace);
  std::string warning;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto& history = growthHistory();
    if (history.size() > 4096) history.clear();  // bounded: many distinct traces
    GrowthRecord& g = history[place];
    // The first dimension that differs, if every difference is a growth.
    bool grew = false, other = g.last.size() != now.size();
    std::string where;
    int64_t before = 0, after = 0;
    for (size_t e = 0; !other && e < now.size(); ++e) {
      const ShapeEntry& b = g.last[e];
      const ShapeEntry& n = now[e];
      if (b.dims.size() != n.dims.size() || b.node != n.node) {
        other = true;
        break;
      }
      for (size_t d = 0; d < n.dims.size(); ++d) {
        if (n.dims[d] == b.dims[d]) continue;
        if (n.dims[d] < b.dims[d]) {
          other = true;
          break;
        }
        if (!grew) {
          grew = true;
          const ir::OpCall& call = *trace.nodes[n.node].call;
          where = d < n.viewRank ? "dimension " + std::to_string(d) + " of " + n.arg
                                 : "dimension " + std::to_string(d - n.viewRank) +
                                       " of the storage that " + n.arg + " views";
          where += " of op #" + std::to_string(n.node) + " " + call.op;
          const std::string* source = trace.nodes[n.node].source;
          if (source != nullptr && !source->empty()) where += " at " + *source;
          before = b.dims[d];
          after = n.dims[d];
        }
      }
    }
    if (grew && !other) {
      if (g.growing == 0) {
        g.first = where;
        g.firstSize = before;
      }
      g.growing += 1;
    } else {
      g.growing = 0;
    }
    g.last = std::move(now);
    if (g.growing >= kGrowthWarnAfter && !g.warned) {
      g.warned = true;
      warning = "a fused trace of " + std::to_string(trace.nodes.size()) + " ops has compiled " +
                std::to_string(g.growing + 1) + " programs in a row because a dimension grows (" +
                where + ": " + std::to_string(g.first == where ? g.firstSize : before) + " -> " +
                std::to_string(after) +
                "); each new size compiles a new program: pad such tensors to a few fixed sizes "
                "to reuse programs (TORCHTPU_EXPLAIN_RECOMPILES=1 explains each compile)";
      growthReport().push_back(warning);
    }
  }
  if (!warning.empty()) std::fprintf(stderr, "torchtpu: warning: %s\n", warning.c_str());
}

std::vector<std::string> growthWarnings() {
  std::lock_guard<std::mutex> lock(mu);
  return growthReport();
}

}  // namespace torchtpu::exec
