#include "exec/collective.h"

#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>

#include "exec/executor.h"
#include "exec/launch.h"
#include "exec/metrics.h"
#include "exec/profile_events.h"
#include "exec/runtime_state.h"
#include "hlo/module.h"

namespace torchtpu::exec {
namespace {

using hlo::BinaryOp;
using hlo::ElementType;
using hlo::Function;
using hlo::TensorType;
using hlo::Value;

BinaryOp combinerFor(ReduceKind r, ElementType t) {
  const bool pred = t == ElementType::kPred;
  switch (r) {
    case ReduceKind::kSum:
    case ReduceKind::kAvg:
      return pred ? BinaryOp::kOr : BinaryOp::kAdd;
    case ReduceKind::kProduct:
      return pred ? BinaryOp::kAnd : BinaryOp::kMultiply;
    case ReduceKind::kMin:
      return BinaryOp::kMinimum;
    case ReduceKind::kMax:
      return BinaryOp::kMaximum;
  }
  return BinaryOp::kAdd;
}

void checkReduce(ReduceKind r, ElementType t) {
  if (r == ReduceKind::kAvg && !runtime::isFloating(t) && !runtime::isComplex(t)) {
    throw std::invalid_argument("ReduceOp.AVG needs floating-point tensors, got " +
                                std::string(runtime::elementTypeName(t)));
  }
  if ((r == ReduceKind::kMin || r == ReduceKind::kMax) && runtime::isComplex(t)) {
    throw std::invalid_argument("ReduceOp.MIN and MAX are not defined for complex tensors");
  }
}

// The unsigned integer type of t's width (broadcast moves bits, not values).
std::optional<ElementType> bitsType(ElementType t) {
  switch (runtime::elementByteSize(t)) {
    case 1:
      return t == ElementType::kPred ? std::nullopt : std::optional(ElementType::kU8);
    case 2:
      return ElementType::kU16;
    case 4:
      return ElementType::kU32;
    case 8:
      return ElementType::kU64;
    default:
      return std::nullopt;
  }
}

// Exact broadcast: every replica but the root contributes zero bits, and the
// all_reduce keeps the largest unsigned bit pattern, which is the root's.
Value broadcastValue(Function& f, Value x, int64_t root, const hlo::ReplicaGroups& groups) {
  const ElementType t = x.dtype();
  const bool complex = runtime::isComplex(t);
  std::optional<ElementType> bits = complex ? std::nullopt : bitsType(t);
  Value v = bits ? f.bitcastConvert(x, *bits) : x;
  const Value isRoot = f.compare(f.replicaId(), f.constantInt(root, ElementType::kU32),
                                 hlo::ComparisonDirection::kEq);
  const Value zero =
      complex ? f.constantComplex(0, 0, v.dtype(), v.dims()) : f.constant(0, v.dtype(), v.dims());
  v = f.select(isRoot, v, zero);
  const BinaryOp combine = complex                           ? BinaryOp::kAdd
                           : v.dtype() == ElementType::kPred ? BinaryOp::kOr
                                                             : BinaryOp::kMaximum;
  v = f.allReduce(v, groups, combine);
  return bits ? f.bitcastConvert(v, t) : v;
}

// ReduceOp.AVG: the sum divided by the group size.
Value averaged(Function& f, Value sum, ReduceKind r, int64_t n) {
  if (r != ReduceKind::kAvg) return sum;
  const ElementType t = sum.dtype();
  const double size = static_cast<double>(n);
  return f.divide(sum, runtime::isComplex(t) ? f.constantComplex(size, 0, t, sum.dims())
                                             : f.constant(size, t, sum.dims()));
}

std::string programText(const Collective& c, const std::vector<TensorType>& types, int64_t n) {
  hlo::Module m("collective");
  Function& f = m.addFunction("main", types, true);
  std::vector<int64_t> all;
  for (int64_t i = 0; i < n; ++i) all.push_back(i);
  const hlo::ReplicaGroups groups = {all};
  std::vector<Value> outs;
  for (size_t k = 0; k < types.size(); ++k) {
    const Value x = f.param(static_cast<int>(k));
    const ElementType t = x.dtype();
    switch (c.kind) {
      case CollectiveKind::kAllReduce: {
        checkReduce(c.reduce, t);
        outs.push_back(averaged(f, f.allReduce(x, groups, combinerFor(c.reduce, t)), c.reduce, n));
        break;
      }
      case CollectiveKind::kBroadcast:
        outs.push_back(broadcastValue(f, x, c.root, groups));
        break;
      case CollectiveKind::kAllGather:
        outs.push_back(f.allGather(x, c.dim, groups));
        break;
      case CollectiveKind::kReduceScatter: {
        checkReduce(c.reduce, t);
        outs.push_back(
            averaged(f, f.reduceScatter(x, c.dim, groups, combinerFor(c.reduce, t)), c.reduce, n));
        break;
      }
      case CollectiveKind::kAllToAll:
        outs.push_back(f.allToAll(x, c.dim, c.dim, groups));
        break;
    }
  }
  f.ret(outs);
  return m.toText();
}

// One replicated program runs at a time. XLA's CPU client runs each replica on
// a thread of a shared pool, where it blocks until every replica reaches the
// collective (and aborts the process after 40 s). Two replicated programs in
// flight at once can hold all the pool's threads with replicas waiting for
// partners that then never get a thread: so launches are serialized, each
// one starts only when all its inputs are computed, and it is finished before
// the next begins.
std::mutex launchMu;

}  // namespace

std::string collectiveName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kBroadcast:
      return "broadcast";
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kAllToAll:
      return "all_to_all";
  }
  return "collective";
}

std::vector<std::vector<ArrayPtr>> runCollective(
    const Collective& c, const std::vector<std::vector<ArrayPtr>>& perDevice) {
  const std::string name = collectiveName(c.kind);
  const int64_t n = static_cast<int64_t>(perDevice.size());
  if (n == 0) throw std::invalid_argument(name + ": no participants");
  if (c.kind == CollectiveKind::kBroadcast && (c.root < 0 || c.root >= n)) {
    throw std::invalid_argument(name + ": root " + std::to_string(c.root) + " is not one of the " +
                                std::to_string(n) + " participants");
  }
  const size_t k = perDevice[0].size();
  std::vector<TensorType> types;
  std::vector<int> devices;
  std::set<int> seen;
  for (int64_t d = 0; d < n; ++d) {
    const auto& arrays = perDevice[d];
    if (arrays.size() != k) {
      throw std::invalid_argument(name + ": participant " + std::to_string(d) + " gives " +
                                  std::to_string(arrays.size()) +
                                  " tensor(s), participant 0 gives " + std::to_string(k));
    }
    if (k == 0) throw std::invalid_argument(name + ": no tensors");
    const int device = arrays[0]->device();
    for (size_t i = 0; i < k; ++i) {
      if (!arrays[i]) throw std::invalid_argument(name + ": missing tensor");
      if (arrays[i]->device() != device) {
        throw std::invalid_argument(name + ": participant " + std::to_string(d) +
                                    " has tensors on more than one device");
      }
      const TensorType t = arrays[i]->type();
      if (d == 0) {
        types.push_back(t);
      } else if (!(t == types[i])) {
        throw std::invalid_argument(name + ": tensor " + std::to_string(i) + " is " + t.str() +
                                    " on participant " + std::to_string(d) + " but " +
                                    types[i].str() + " on participant 0");
      }
    }
    if (!seen.insert(device).second) {
      throw std::invalid_argument(name + ": two participants are on device " +
                                  std::to_string(device) + "; each needs its own device");
    }
    devices.push_back(device);
  }

  const std::string text = programText(c, types, n);
  runtime::CompileOptions options;
  for (int d : devices) options.replicaDevices.push_back(client()->devices().at(d).id);
  std::shared_ptr<runtime::Executable> exe =
      programFor(text, name + " over " + std::to_string(n) + " devices", options,
                 ProgramOrigin{"collective", {name}});
  if (exe->devices() != devices) {
    throw std::runtime_error(name + ": the plugin placed the replicated program on other devices");
  }
  std::vector<LaunchInputs> inputs(n);
  for (int64_t d = 0; d < n; ++d) {
    inputs[d].device = devices[d];
    for (const ArrayPtr& a : perDevice[d]) inputs[d].arrays.push_back(a.get());
  }
  LaunchSpec spec;
  spec.exe = exe.get();
  spec.what = name;
  spec.origin = makeOrigin(name);
  std::vector<std::vector<ArrayPtr>> out = launchReplicated(spec, inputs);
  metrics().compiledCollectives += 1;
  return out;
}

}  // namespace torchtpu::exec
