#include "aten/bridge.h"

#include <ATen/EmptyTensor.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/native/Resize.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <unordered_map>

#include "aten/call_contract.h"
#include "aten/dtype.h"
#include "aten/generator.h"
#include "aten/mask_indices.h"
#include "aten/python_source.h"
#include "aten/storage.h"
#include "aten/storage_resize.h"
#include "exec/device_memory.h"
#include "exec/executor.h"
#include "exec/metrics.h"
#include "exec/op_calls.h"
#include "exec/profile_events.h"
#include "exec/program_limit.h"
#include "exec/runtime_state.h"
#include "exec/trace.h"
#include "lower/core/lowering.h"
#include "runtime/error.h"

namespace torchtpu::aten {
namespace {

using Kind = ir::ArgValue::Kind;
using c10::TypeKind;

std::atomic<bool> fallbackEnabled{true};

// How one schema return is produced.
struct ReturnSpec {
  // kUndefined: an optional result PyTorch does not want (e.g. a gradient
  // masked out of convolution_backward); the lowering's value is discarded.
  enum class Kind { kNew, kNewList, kAliasArg, kUndefined, kNone } kind = Kind::kNone;
  int arg = -1;   // kAliasArg: the argument returned
  int count = 1;  // results it takes (list length for kNewList)
  // kNew/kNewList: each result's sizes and strides, as PyTorch gives them.
  std::vector<std::vector<int64_t>> sizes, strides;
};

std::string opName(const c10::FunctionSchema& schema) {
  const auto& n = schema.operator_name();
  return n.overload_name.empty() ? n.name : n.name + "." + n.overload_name;
}

const c10::Type* unwrapOptional(const c10::TypePtr& t) {
  if (auto o = t->castRaw<c10::OptionalType>()) return o->getElementType().get();
  return t.get();
}

// What the kernel needs to know about an operator by its name, worked out
// once per operator and thread instead of on every call.
struct OpInfo {
  // Checks that the schema address still is this operator.
  std::string baseName, overloadName;
  std::string name;          // "aten::add.Tensor"
  lower::OpTraits traits;    // declared with its lowering
  bool lowered = false;      // a lowering was found (lowerings are never removed)
  bool valueChecks = false;  // checkCallValues has checks for it
  // The signature of this thread's last supported call of the operator, and
  // the signature cache's generation before it was looked up: a call
  // described the same reuses it while the cache is unchanged (prepareCall).
  mutable exec::FoundSignature lastFound;
  mutable uint64_t lastGeneration = 0;
};

const OpInfo& opInfo(const c10::FunctionSchema& schema) {
  // Keyed by the schema's address, which is stable while the operator is
  // registered; a schema freed and another registered at its address (custom
  // ops) is caught by the name check.
  thread_local std::unordered_map<const c10::FunctionSchema*, OpInfo> cache;
  OpInfo& info = cache[&schema];
  if (info.name.empty() || info.baseName != schema.name() ||
      info.overloadName != schema.overload_name()) {
    info.baseName = schema.name();
    info.overloadName = schema.overload_name();
    info.name = opName(schema);
    info.lowered = false;
    info.valueChecks = checksValuesPerCall(schema);
    info.lastFound = {};
  }
  // Not cached while missing: custom kernels register lowerings at run time.
  if (!info.lowered) {
    info.lowered = lower::findLowering(info.name) != nullptr;
    if (info.lowered) info.traits = lower::loweringTraits(info.name);
  }
  return info;
}

std::vector<uint8_t> scalarBytes(const c10::Scalar& s, hlo::TensorType& type) {
  std::vector<uint8_t> out;
  auto put = [&](const void* p, size_t n) {
    out.resize(n);
    std::memcpy(out.data(), p, n);
  };
  if (s.isBoolean()) {
    uint8_t v = s.toBool() ? 1 : 0;
    type = hlo::TensorType(runtime::ElementType::kPred);
    put(&v, 1);
  } else if (s.isIntegral(false)) {
    int64_t v = s.toLong();
    type = hlo::TensorType(runtime::ElementType::kS64);
    put(&v, 8);
  } else if (s.isComplex()) {
    c10::complex<double> v = s.toComplexDouble();
    type = hlo::TensorType(runtime::ElementType::kC128);
    put(&v, 16);
  } else {
    double v = s.toDouble();
    type = hlo::TensorType(runtime::ElementType::kF64);
    put(&v, 8);
  }
  return out;
}

// Gathers an op call's arrays, views and scalars from the stack.
class CallBuilder {
 public:
  explicit CallBuilder(const std::string& name, size_t nargs = 2) { reset(name, nargs); }

  // Empties the builder for another call of `name`, keeping its buffers.
  void reset(const std::string& name, size_t nargs) {
    call_.op = name;
    call_.argNames.clear();
    call_.args.clear();
    call_.arrays.clear();
    call_.zeroArrays.clear();
    call_.scalars.clear();
    call_.results.clear();
    call_.writeBack.clear();
    call_.resultOrder.clear();
    storages_.clear();
    scalars_.clear();
    bindings_.clear();
    key_.clear();
    device_ = -1;
    cpuIndices_ = false;
    call_.argNames.reserve(nargs + 1);
    call_.args.reserve(nargs + 1);
    call_.arrays.reserve(nargs);
    storages_.reserve(nargs);
    bindings_.reserve(nargs);
  }

  ir::OpCall call_;
  std::string key_;                             // call_'s key, once described
  std::vector<exec::DeviceStorage*> storages_;  // per array; null for temporaries
  std::vector<exec::HostScalar> scalars_;
  int device_ = -1;

  // A tpu tensor (or a 0-d CPU tensor, uploaded) as a view of an array.
  ir::TensorRef tensor(const at::Tensor& t) {
    if (!t.defined()) return ir::TensorRef{};
    if (t.device().type() != c10::DeviceType::PrivateUse1) {
      // CPU scalars, and CPU index tensors (as PyTorch allows for CUDA), are uploaded.
      TORCH_CHECK(t.device().is_cpu() && (t.dim() == 0 || cpuIndices_),
                  "Expected all tensors to be on the same device, but found at least two devices, ",
                  deviceName(), " and ", t.device(), "! (in ", call_.op, ")");
      return uploadCpu(t);
    }
    noteDevice(t.device().index());
    ir::TensorRef ref = viewOf(t);
    exec::DeviceStorage* ds = &deviceStorage(t);
    // One array per storage and call, whatever dtypes its views read: a view
    // of another dtype than the array's (view_as_real, view_as_complex, ...)
    // reads its bytes as the view's type inside the program (lower::readView).
    int index = -1;
    for (size_t k = 0; k < storages_.size(); ++k) {
      if (storages_[k] == ds) index = static_cast<int>(k);
    }
    if (index < 0) {
      index = static_cast<int>(storages_.size());
      // A value of a trace stays pending (exec computes it first where the call
      // runs at once), whatever the view's dtype: nothing is flushed for it.
      auto [a, pend] = ds->contents();
      // A computed array of another dtype is repointed to the view's: later
      // calls read it without a reinterpretation.
      if (a && a->type().dtype != ref.dtype) a = storageArrayAs(*ds, ref.dtype);
      if (pend) {
        call_.arrays.push_back(pend->type);
        call_.zeroArrays.push_back(false);
      } else if (a) {
        call_.arrays.push_back(a->type());
        call_.zeroArrays.push_back(false);
      } else {
        // Uninitialized: the program makes the zeros, nothing is uploaded.
        const int64_t n = static_cast<int64_t>(ds->nbytes() / runtime::elementByteSize(ref.dtype));
        call_.arrays.emplace_back(ref.dtype, std::vector<int64_t>{n});
        call_.zeroArrays.push_back(true);
      }
      addArray(std::move(a), std::move(pend));
      storages_.push_back(ds);
    }
    ref.array = index;
    return ref;
  }

  int scalar(const c10::Scalar& s) {
    hlo::TensorType type;
    scalars_.push_back(scalarBytes(s, type));
    call_.scalars.push_back(type);
    return static_cast<int>(scalars_.size()) - 1;
  }

  int scalarList(const std::vector<c10::Scalar>& list) {
    bool allInt = true;
    for (const auto& s : list) allInt = allInt && s.isIntegral(true);
    exec::HostScalar bytes(list.size() * 8);
    for (size_t k = 0; k < list.size(); ++k) {
      if (allInt) {
        int64_t v = list[k].toLong();
        std::memcpy(bytes.data() + 8 * k, &v, 8);
      } else {
        double v = list[k].toDouble();
        std::memcpy(bytes.data() + 8 * k, &v, 8);
      }
    }
    scalars_.push_back(std::move(bytes));
    call_.scalars.emplace_back(allInt ? runtime::ElementType::kS64 : runtime::ElementType::kF64,
                               std::vector<int64_t>{static_cast<int64_t>(list.size())});
    return static_cast<int>(scalars_.size()) - 1;
  }

  int rng(const std::optional<at::Generator>& gen) {
    at::Generator g = gen.has_value() && gen->defined()
                          ? *gen
                          : defaultGenerator(device_ >= 0 ? device_ : currentDevice());
    auto* impl = at::check_generator<TpuGenerator>(g);
    std::lock_guard<std::mutex> lock(g.mutex());
    auto [seed, offset] = impl->next();
    exec::HostScalar bytes(16);
    std::memcpy(bytes.data(), &seed, 8);
    std::memcpy(bytes.data() + 8, &offset, 8);
    scalars_.push_back(std::move(bytes));
    call_.scalars.emplace_back(runtime::ElementType::kU64, std::vector<int64_t>{2});
    return static_cast<int>(scalars_.size()) - 1;
  }

  int device() const { return device_ >= 0 ? device_ : currentDevice(); }

  // Where each array comes from (moved out).
  std::vector<exec::ArrayBinding> takeBindings() { return std::move(bindings_); }

  // Per array, where it comes from: a pending value of a trace, an array, or
  // zeros (an uninitialized storage).
  std::vector<exec::ArrayBinding> bindings_;

  bool cpuIndices_ = false;  // set while describing an "indices" argument

 private:
  std::string deviceName() const {
    return "tpu:" + std::to_string(device_ >= 0 ? device_ : currentDevice());
  }

  void noteDevice(int index) {
    if (device_ < 0) {
      device_ = index;
      return;
    }
    TORCH_CHECK(device_ == index,
                "Expected all tensors to be on the same device, but found at least two devices, "
                "tpu:",
                device_, " and tpu:", index, "! (in ", call_.op, ")");
  }

  void addArray(exec::ArrayPtr a, exec::PendingPtr pend) {
    exec::ArrayBinding& binding = bindings_.emplace_back();
    if (pend) {
      binding.kind = exec::ArrayBinding::Kind::kPending;
      binding.pending = std::move(pend);
    } else if (a) {
      binding.kind = exec::ArrayBinding::Kind::kArray;
      binding.array = std::move(a);
    }
  }

  ir::TensorRef uploadCpu(const at::Tensor& t) {
    ir::TensorRef ref;
    ref.dtype = requireElementType(t.scalar_type());
    at::Tensor c = t.resolve_conj().resolve_neg().contiguous();
    exec::HostSpan span(exec::SpanKind::kCopyToDevice, "tpu::copy_to_device", device());
    span.detail("bytes", static_cast<int64_t>(c.nbytes()));
    ref.sizes.assign(c.sizes().begin(), c.sizes().end());
    ref.strides.assign(c.strides().begin(), c.strides().end());
    auto buffer = exec::client()->toDevice(c.data_ptr(), ref.dtype, ref.sizes, device());
    exec::metrics().hostToDeviceBytes += static_cast<int64_t>(c.nbytes());
    ref.array = static_cast<int>(storages_.size());
    auto a = std::make_shared<exec::DeviceArray>(std::move(buffer), hostCopyOrigin());
    call_.arrays.push_back(a->type());
    call_.zeroArrays.push_back(false);
    addArray(std::move(a), nullptr);
    storages_.push_back(nullptr);
    return ref;
  }
};

// A builder for one boxedKernel call, taken from the thread's spares and
// returned emptied (its buffers kept), so a call allocates no new vectors for
// them. Nested calls (a fallback's, a lowering's internal ops) take another.
class PooledBuilder {
 public:
  PooledBuilder() {
    auto& spares = pool();
    if (spares.empty()) {
      builder_ = std::make_unique<CallBuilder>(std::string());
    } else {
      builder_ = std::move(spares.back());
      spares.pop_back();
    }
  }
  ~PooledBuilder() {
    builder_->reset(std::string(), 0);  // drops the call's arrays and values now
    auto& spares = pool();
    if (spares.size() < kMaxSpares) spares.push_back(std::move(builder_));
  }
  PooledBuilder(const PooledBuilder&) = delete;
  PooledBuilder& operator=(const PooledBuilder&) = delete;

  CallBuilder& get() { return *builder_; }

 private:
  static constexpr size_t kMaxSpares = 4;
  static std::vector<std::unique_ptr<CallBuilder>>& pool() {
    thread_local std::vector<std::unique_ptr<CallBuilder>> spares;
    return spares;
  }
  std::unique_ptr<CallBuilder> builder_;
};

// A list argument (tensors, numbers, ints, floats, bools). False (with `why`)
// for a kind the bridge does not handle.
bool describeList(const c10::Argument& a, const c10::Type* type, const c10::IValue& v,
                  bool staticScalars, CallBuilder& b, ir::ArgValue& av, std::string& why) {
  const c10::Type* elem = unwrapOptional(type->castRaw<c10::ListType>()->getElementType());
  if (elem->kind() == TypeKind::TensorType) {
    av.kind = Kind::kTensorList;
    b.cpuIndices_ = a.name() == "indices";
    for (const c10::IValue& e : v.toListRef()) {
      av.tensors.push_back(e.isTensor() ? b.tensor(e.toTensor()) : ir::TensorRef{});
    }
    b.cpuIndices_ = false;
  } else if (elem->kind() == TypeKind::NumberType && !staticScalars) {
    std::vector<c10::Scalar> list;
    for (const c10::IValue& e : v.toListRef()) list.push_back(e.toScalar());
    av.kind = Kind::kScalar;
    av.scalar = b.scalarList(list);
  } else if (elem->kind() == TypeKind::IntType || elem->kind() == TypeKind::SymIntType) {
    av.kind = Kind::kInts;
    for (const c10::IValue& e : v.toListRef()) {
      av.ints.push_back(e.isSymInt() ? e.toSymInt().expect_int() : e.toInt());
    }
  } else if (elem->kind() == TypeKind::FloatType || elem->kind() == TypeKind::NumberType) {
    av.kind = Kind::kDoubles;
    for (const c10::IValue& e : v.toListRef()) av.doubles.push_back(e.toScalar().toDouble());
  } else if (elem->kind() == TypeKind::BoolType) {
    av.kind = Kind::kInts;
    for (const c10::IValue& e : v.toListRef()) av.ints.push_back(e.toBool() ? 1 : 0);
  } else {
    why = "argument '" + a.name() + "' of type " + a.type()->str();
    return false;
  }
  return true;
}

// A Python number (Scalar): a static value of the program for ops whose
// numbers decide shapes, else a runtime scalar.
void describeNumber(const c10::IValue& v, bool staticScalars, CallBuilder& b, ir::ArgValue& av) {
  if (!staticScalars) {
    av.kind = Kind::kScalar;
    av.scalar = b.scalar(v.toScalar());
    return;
  }
  const c10::Scalar s = v.toScalar();
  if (s.isIntegral(false)) {
    av.kind = Kind::kInt;
    av.i = s.toLong();
  } else if (s.isBoolean()) {
    av.kind = Kind::kBool;
    av.b = s.toBool();
  } else {
    av.kind = Kind::kDouble;
    av.d = s.toDouble();
  }
}

// Any other argument: numbers, strings, dtypes, generators, and the layout,
// device and memory-format arguments lowerings ignore.
bool describeValue(const c10::Argument& a, const c10::Type* type, const c10::IValue& v,
                   bool staticScalars, CallBuilder& b, ir::ArgValue& av, std::string& why) {
  switch (type->kind()) {
    case TypeKind::NumberType:
      describeNumber(v, staticScalars, b, av);
      return true;
    case TypeKind::IntType:
    case TypeKind::SymIntType:
      av.kind = Kind::kInt;
      av.i = v.isSymInt() ? v.toSymInt().expect_int() : v.toInt();
      return true;
    case TypeKind::FloatType:
      av.kind = Kind::kDouble;
      av.d = v.toDouble();
      return true;
    case TypeKind::BoolType:
      av.kind = Kind::kBool;
      av.b = v.toBool();
      return true;
    case TypeKind::StringType:
      av.kind = Kind::kString;
      av.s = v.toStringRef();
      return true;
    case TypeKind::ScalarTypeType:
      av.kind = Kind::kDType;
      av.dtype = requireElementType(v.toScalarType());
      return true;
    case TypeKind::GeneratorType:
      av.kind = Kind::kRng;
      av.scalar = b.rng(v.toOptional<at::Generator>());
      return true;
    case TypeKind::LayoutType:
    case TypeKind::DeviceObjType:
    case TypeKind::MemoryFormatType:
      av.kind = Kind::kOther;
      return true;
    default:
      why = "argument '" + a.name() + "' of type " + a.type()->str();
      return false;
  }
}

// The index of the first tpu tensor argument (args.size() when none).
size_t firstTpuTensor(c10::ArrayRef<c10::IValue> args) {
  for (size_t k = 0; k < args.size(); ++k) {
    const c10::IValue& v = args[k];
    if (v.isTensor() && v.toTensor().defined() &&
        v.toTensor().device().type() == c10::DeviceType::PrivateUse1) {
      return k;
    }
  }
  return args.size();
}

// Fills the builder from the stack. Returns false (with `why`) for an argument
// kind the bridge does not handle.
bool describeArgs(const c10::FunctionSchema& schema, const OpInfo& info,
                  c10::ArrayRef<c10::IValue> args, CallBuilder& b, std::string& why) {
  const bool staticScalars = info.traits.staticScalars;
  // The device first, so CPU scalars and generators know where to go.
  const size_t first = firstTpuTensor(args);
  ir::TensorRef firstRef;
  if (first < args.size()) firstRef = b.tensor(args[first].toTensor());
  for (size_t k = 0; k < args.size(); ++k) {
    const c10::Argument& a = schema.arguments()[k];
    const c10::IValue& v = args[k];
    ir::ArgValue av;
    b.call_.argNames.push_back(a.name());
    const c10::Type* type = unwrapOptional(a.real_type());
    if (k == first) {
      // Described above (describing it again would give the same view).
      av.kind = Kind::kTensor;
      av.tensor = std::move(firstRef);
    } else if (v.isNone()) {
      av.kind = Kind::kNone;
    } else if (v.isTensor() && v.toTensor().defined() &&
               v.toTensor().unsafeGetTensorImpl()->is_wrapped_number()) {
      // A Python number PyTorch wrapped into a 0-d CPU tensor: a runtime
      // scalar (no upload of its own, no recompile when it changes).
      av.kind = Kind::kScalar;
      av.scalar = b.scalar(v.toTensor().item());
    } else if (v.isTensor()) {
      av.kind = Kind::kTensor;
      // The scalars of a _foreach_ op may be a CPU tensor (as PyTorch allows).
      b.cpuIndices_ = a.name() == "scalars";
      av.tensor = b.tensor(v.toTensor());
      b.cpuIndices_ = false;
    } else if (type->kind() == TypeKind::ListType) {
      if (!describeList(a, type, v, staticScalars, b, av, why)) return false;
    } else if (!describeValue(a, type, v, staticScalars, b, av, why)) {
      return false;
    }
    // A generator argument that was None still needs the default generator.
    if (av.kind == Kind::kNone && type->kind() == TypeKind::GeneratorType) {
      av.kind = Kind::kRng;
      av.scalar = b.rng(std::nullopt);
    }
    b.call_.args.push_back(std::move(av));
  }
  // Random ops whose schema has no generator still draw from the default one.
  bool hasRng = false;
  for (const auto& a : b.call_.args) hasRng = hasRng || a.kind == Kind::kRng;
  if (!hasRng && info.traits.implicitRng) {
    ir::ArgValue av;
    av.kind = Kind::kRng;
    av.scalar = b.rng(std::nullopt);
    b.call_.argNames.push_back("generator");
    b.call_.args.push_back(std::move(av));
  }
  return true;
}

bool isWrite(const c10::Argument& a) { return a.alias_info() && a.alias_info()->isWrite(); }

// The mutable argument a return aliases, or -1.
int aliasedArg(const c10::FunctionSchema& schema, const c10::Argument& ret) {
  if (!ret.alias_info()) return -1;
  for (size_t k = 0; k < schema.arguments().size(); ++k) {
    const auto& a = schema.arguments()[k];
    if (a.alias_info() && a.alias_info()->beforeSets() == ret.alias_info()->beforeSets()) {
      return static_cast<int>(k);
    }
  }
  return -1;
}

at::Tensor metaTensor(const at::Tensor& t) {
  if (!t.defined() || t.device().type() != c10::DeviceType::PrivateUse1) return t;
  return at::empty_strided(t.sizes(), t.strides(), t.options().device(c10::kMeta));
}

}  // namespace

c10::IValue metaArgument(const c10::IValue& v) {
  if (v.isTensor()) return metaTensor(v.toTensor());
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorList()) out.push_back(metaTensor(t));
    return out;
  }
  if (v.isOptionalTensorList()) {
    c10::List<std::optional<at::Tensor>> out;
    for (const std::optional<at::Tensor>& t : v.toOptionalTensorList()) {
      out.push_back(t.has_value() ? std::optional<at::Tensor>(metaTensor(*t)) : std::nullopt);
    }
    return out;
  }
  if (v.isGenerator()) return c10::IValue();
  // Factory ops: create on meta, not on tpu (which would come back here).
  if (v.isDevice() && v.toDevice().type() == c10::DeviceType::PrivateUse1) {
    return c10::Device(c10::kMeta);
  }
  return v;
}

namespace {

hlo::TensorType typeOf(const at::Tensor& t) {
  return hlo::TensorType(requireElementType(t.scalar_type()),
                         std::vector<int64_t>(t.sizes().begin(), t.sizes().end()));
}

// The order in which a result with PyTorch's sizes and strides `t` is stored
// (see OpCall::resultOrder): its dims of size > 1 by decreasing stride, after
// its dims of size 1. Empty when that is row-major, or when the strides are
// not a dense permuted layout (such a result is stored row-major and gets
// contiguous strides).
std::vector<int64_t> storageOrder(const at::Tensor& t) {
  const int64_t n = t.dim();
  std::vector<int64_t> order;
  for (int64_t d = 0; d < n; ++d) {
    if (t.size(d) == 1) order.push_back(d);
  }
  const size_t unit = order.size();
  for (int64_t d = 0; d < n; ++d) {
    if (t.size(d) != 1) order.push_back(d);
  }
  if (t.numel() == 0) return {};
  std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(unit), order.end(),
                   [&](int64_t a, int64_t b) { return t.stride(a) > t.stride(b); });
  int64_t expected = 1;
  for (size_t k = order.size(); k-- > unit;) {
    if (t.stride(order[k]) != expected) return {};
    expected *= t.size(order[k]);
  }
  bool rowMajor = true;
  for (size_t k = unit + 1; k < order.size(); ++k) rowMajor = rowMajor && order[k - 1] < order[k];
  if (rowMajor) return {};
  return order;
}

// Notes a new result's sizes, strides and storage order.
void addNewResult(const at::Tensor& t, ir::OpCall& call, ReturnSpec& spec) {
  call.results.push_back(typeOf(t));
  call.writeBack.push_back({-1, -1});
  call.resultOrder.resize(call.results.size());
  spec.sizes.emplace_back(t.sizes().begin(), t.sizes().end());
  if (t.numel() == 0 || t.is_non_overlapping_and_dense()) {
    call.resultOrder.back() = storageOrder(t);
    spec.strides.emplace_back(t.strides().begin(), t.strides().end());
  } else {
    const c10::DimVector contiguous = c10::contiguous_strides(t.sizes());
    spec.strides.emplace_back(contiguous.begin(), contiguous.end());
  }
}

// Runs the op's meta kernel over the arguments' meta versions; its results
// replace them on `meta`. False (with `why`) when it fails and the op may
// fall back to the CPU; PyTorch's error is thrown where it may not.
bool runMeta(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args,
             torch::jit::Stack& meta, std::string& why) {
  for (const auto& v : args) meta.push_back(metaArgument(v));
  try {
    const QuietWarnings quiet;
    op.callBoxed(&meta);
  } catch (const std::exception& e) {
    // Without the CPU fallback, PyTorch's own error is the answer (most often
    // the user's: shapes that do not broadcast, a dtype an op refuses). So it
    // is for ops the CPU cannot run either.
    if (!fallbackEnabled.load() || !op.hasComputedKernelForDispatchKey(c10::DispatchKey::CPU)) {
      throw;
    }
    const auto* ce = dynamic_cast<const c10::Error*>(&e);
    std::string msg = ce != nullptr ? ce->what_without_backtrace() : e.what();
    // Meta kernels written in Python append their traceback.
    if (auto at = msg.find("\n\nAt:\n"); at != std::string::npos) msg.resize(at);
    why = "meta kernel: " + msg;
    return false;
  }
  applyCpuLayouts(op, args, meta);
  return true;
}

// In-place ops returning nothing: the mutated arguments get the results.
bool resultsOfMutatedArguments(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                               ir::OpCall& call, std::string& why) {
  for (size_t k = 0; k < schema.arguments().size(); ++k) {
    if (!isWrite(schema.arguments()[k])) continue;
    const c10::IValue& v = args[k];
    if (v.isTensor()) {
      call.results.push_back(typeOf(v.toTensor()));
      call.writeBack.push_back({static_cast<int>(k), -1});
    } else if (v.isTensorList()) {
      int e = 0;
      for (const at::Tensor& t : v.toTensorList()) {
        call.results.push_back(typeOf(t));
        call.writeBack.push_back({static_cast<int>(k), e++});
      }
    }
  }
  if (call.results.empty()) why = "no results";
  return !call.results.empty();
}

// A return that aliases mutable argument `alias` (in-place and out= ops):
// in-place targets keep their shape, out= arguments are resized (and take
// the result's layout, as on the CPU; `resized` is set).
void aliasedReturn(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args, int alias,
                   const at::Tensor& m, ir::OpCall& call, bool& resized) {
  const at::Tensor& actual = args[alias].toTensor();
  if (actual.sizes() != m.sizes()) {
    if (keepsShape(op.schema(), args, alias)) throwInPlaceShape(actual.sizes(), m.sizes());
    if (at::native::resize_output(actual, m.sizes()) && m.is_non_overlapping_and_dense() &&
        !m.is_contiguous()) {
      actual.as_strided_(m.sizes(), m.strides());
    }
    resized = true;
  }
  call.results.push_back(typeOf(m));
  // Elementwise ops compute in their own dtype and cast into the target.
  if (auto computed = computeDtypeOfOut(op, args, static_cast<size_t>(alias));
      computed && *computed != m.scalar_type()) {
    if (auto e = toElementType(*computed)) call.results.back().dtype = *e;
  }
  call.writeBack.push_back({alias, -1});
}

// How return `r` (whose meta value is `mv`) is produced. False (with `why`)
// for a return that is not a tensor.
bool describeReturn(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args, size_t r,
                    const c10::IValue& mv, ir::OpCall& call, ReturnSpec& spec, bool& resized,
                    std::string& why) {
  const int alias = aliasedArg(op.schema(), op.schema().returns()[r]);
  if (alias >= 0 && mv.isTensor()) {
    spec.kind = ReturnSpec::Kind::kAliasArg;
    spec.arg = alias;
    aliasedReturn(op, args, alias, mv.toTensor(), call, resized);
  } else if (alias < 0 && mv.isTensor() && !mv.toTensor().defined()) {
    spec.kind = ReturnSpec::Kind::kUndefined;
    call.results.emplace_back();
    call.writeBack.push_back({ir::OpCall::kDiscard, -1});
  } else if (alias < 0 && mv.isTensor()) {
    spec.kind = ReturnSpec::Kind::kNew;
    const at::Tensor& t = mv.toTensor();
    addNewResult(cpuResultIsContiguous(op.schema()) ? t.contiguous() : t, call, spec);
  } else if (alias < 0 && mv.isTensorList()) {
    spec.kind = ReturnSpec::Kind::kNewList;
    spec.count = static_cast<int>(mv.toTensorList().size());
    for (const at::Tensor& t : mv.toTensorList()) addNewResult(t, call, spec);
  } else {
    why = "return " + std::to_string(r) + " is not a tensor";
    return false;
  }
  return true;
}

// Whether an op writes argument `name` without saying so in its schema (its
// traits' writesWhenTraining, while its "training" argument is true).
bool writtenUnannounced(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                        const lower::OpTraits& traits, const std::string& name) {
  if (traits.writesWhenTraining.empty()) return false;
  bool listed = false;
  for (const std::string& w : traits.writesWhenTraining) listed = listed || w == name;
  if (!listed) return false;
  const auto training = schema.argumentIndexWithName("training");
  return training && args[*training].isBool() && args[*training].toBool();
}

// Arguments written but not returned (batch norm's running statistics):
// extra results after the returns, written back into those arguments.
void writtenArguments(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                      const lower::OpTraits& traits, const std::vector<ReturnSpec>& returns,
                      ir::OpCall& call) {
  for (size_t k = 0; k < schema.arguments().size(); ++k) {
    const auto& a = schema.arguments()[k];
    const bool written = isWrite(a) || writtenUnannounced(schema, args, traits, a.name());
    if (!written || !args[k].isTensor() || !args[k].toTensor().defined()) continue;
    bool returned = false;
    for (const auto& r : returns)
      returned =
          returned || (r.kind == ReturnSpec::Kind::kAliasArg && r.arg == static_cast<int>(k));
    if (returned) continue;
    call.results.push_back(typeOf(args[k].toTensor()));
    call.writeBack.push_back({static_cast<int>(k), -1});
  }
}

// Runs the op on meta tensors to learn result types; fills results,
// writeBack and returns. Resizes out= arguments that PyTorch would resize
// (and asks the caller to describe the call again). Returns false with `why`
// when the meta kernel fails or the returns are not tensors.
bool inferResults(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args,
                  const lower::OpTraits& traits, ir::OpCall& call, std::vector<ReturnSpec>& returns,
                  bool& resized, std::string& why) {
  torch::jit::Stack meta;
  if (!runMeta(op, args, meta, why)) return false;
  resized = false;
  returns.clear();
  call.results.clear();
  call.writeBack.clear();
  call.resultOrder.clear();
  if (op.schema().returns().empty()) return resultsOfMutatedArguments(op.schema(), args, call, why);
  for (size_t r = 0; r < op.schema().returns().size(); ++r) {
    ReturnSpec spec;
    if (!describeReturn(op, args, r, meta[r], call, spec, resized, why)) return false;
    returns.push_back(spec);
  }
  writtenArguments(op.schema(), args, traits, returns, call);
  return true;
}

// A tpu tensor with PyTorch's sizes and strides for a result, over a new
// storage on `device` (which the caller points at the result's value).
at::Tensor newResultTensor(c10::IntArrayRef sizes, c10::IntArrayRef strides,
                           runtime::ElementType dtype, int device) {
  std::optional<c10::DeviceGuard> guard;  // the allocator makes storages on the current device
  if (device != currentDevice()) guard.emplace(c10::Device(c10::DeviceType::PrivateUse1, device));
  return at::detail::empty_strided_generic(sizes, strides, tpuAllocator(),
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                           toScalarType(dtype));
}

// The same-device rule of lowered ops, for ops that run on the CPU: CPU
// tensors may only be 0-d scalars or index tensors.
void checkSameDevice(const c10::FunctionSchema& schema, const torch::jit::Stack& stack,
                     const std::string& name) {
  const size_t nargs = schema.arguments().size();
  auto check = [&](const at::Tensor& t, const c10::Argument& a) {
    if (!t.defined() || !t.device().is_cpu() || (t.dim() == 0 && !isWrite(a))) return;
    if (a.name() == "indices" && !isWrite(a)) return;
    TORCH_CHECK(false,
                "Expected all tensors to be on the same device, but found at least two devices, "
                "tpu:",
                currentDevice(), " and cpu! (argument '", a.name(), "' of ", name, ")");
  };
  for (size_t k = 0; k < nargs; ++k) {
    const c10::IValue& v = stack[stack.size() - nargs + k];
    const c10::Argument& a = schema.arguments()[k];
    if (v.isTensor()) {
      check(v.toTensor(), a);
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorList()) check(t, a);
    } else if (v.isOptionalTensorList()) {
      for (const std::optional<at::Tensor>& t : v.toOptionalTensorList()) {
        if (t.has_value()) check(*t, a);
      }
    }
  }
}

void cpuFallback(const c10::OperatorHandle& op, torch::jit::Stack* stack, const std::string& name,
                 const std::string& why) {
  checkSameDevice(op.schema(), *stack, name);
  TORCH_CHECK_NOT_IMPLEMENTED(fallbackEnabled.load(), "torchtpu: ", name, " has no tpu lowering (",
                              why,
                              ") and the CPU fallback is off (torchtpu.set_cpu_fallback(True) or "
                              "TORCHTPU_CPU_FALLBACK=1 turns it on)");
  const size_t nargs = op.schema().arguments().size();
  checkFallbackWrites(op,
                      c10::ArrayRef<c10::IValue>(stack->data() + (stack->size() - nargs), nargs));
  // Run first: an error here is the user's (bad shapes, ...), not a fallback
  // to warn about or count.
  at::native::cpu_fallback(op, stack);
  static std::mutex mu;
  static std::set<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (warned.insert(name).second) {
      TORCH_WARN("torchtpu: ", name, " runs on the CPU (", why,
                 "); this copies its tensors to the host and back. torchtpu.metrics counts it.");
    }
  }
  exec::metrics().addFallback(name);
}

}  // namespace

bool cpuFallbackEnabled() { return fallbackEnabled.load(); }
void setCpuFallbackEnabled(bool enabled) { fallbackEnabled = enabled; }

namespace {
// A device-side check that failed in launch_blocking mode raises the error
// PyTorch's CPU kernel raises, with its message alone.
[[noreturn]] void raiseDeviceCheck(const exec::DeviceCheckError& e) {
  TORCH_CHECK_INDEX(e.error() != lower::DeviceCheck::Error::kIndex, e.what());
  TORCH_CHECK(false, e.what());
}
}  // namespace

void rethrowRuntimeError(const std::exception& e, const std::string& what) {
  if (const auto* ce = dynamic_cast<const exec::DeviceCheckError*>(&e)) raiseDeviceCheck(*ce);
  if (const auto* re = dynamic_cast<const runtime::Error*>(&e)) {
    if (re->code() == runtime::ErrorCode::kResourceExhausted) {
      const int device = currentDevice();
      exec::noteOutOfMemory(device);
      const std::string largest = exec::describeLargestLiveArrays(-1, 5);
      TORCH_CHECK_WITH(
          OutOfMemoryError, false, "torchtpu: out of device memory in ", what, ": ", re->what(),
          largest.empty() ? std::string() : "; the largest arrays alive are " + largest,
          " (torch.tpu.memory_summary() has the totals)");
    }
  }
  TORCH_CHECK(false, "torchtpu: ", what, " failed: ", e.what());
}

namespace {

// The bridge's part of a call signature: how each schema return is produced.
struct Returns final : exec::SignatureExtra {
  std::vector<ReturnSpec> specs;
};

// TORCHTPU_VERIFY_SIGNATURE_MEMO=1 (the test suite sets it): every reuse of
// an operator's last signature also builds the call's key and checks it.
bool verifySignatureMemo() {
  static const bool on = [] {
    const char* v = std::getenv("TORCHTPU_VERIFY_SIGNATURE_MEMO");
    return v != nullptr && std::string(v) == "1";
  }();
  return on;
}

// True when the call, just described, is the thread's last supported call of
// the operator and no signature was added since: its signature is
// info.lastFound, without a key to build and look up.
bool reuseLastSignature(const OpInfo& info, const ir::OpCall& call) {
  if (!info.lastFound || info.lastGeneration != exec::signatureGeneration() ||
      !info.lastFound.signature->call->call.sameDescription(call)) {
    return false;
  }
  if (verifySignatureMemo()) {
    std::string key;
    call.appendKey(key);
    TORCH_CHECK(key == info.lastFound.signature->call->key,
                "torchtpu internal error: the signature memo of ", info.name,
                " matched a call of another key:\n  ", key, "\n  ",
                info.lastFound.signature->call->key);
  }
  return true;
}

void rememberSignature(const OpInfo& info, const exec::FoundSignature& found, uint64_t generation) {
  if (!found.signature->call) return;
  info.lastFound = found;
  info.lastGeneration = generation;
}

// Describes the call (into `builder`, with its key) and finds its signature,
// or learns it at the first call of the key (meta kernels for the results,
// PyTorch's argument rules, the lowering's consent). False, with `why`, when
// the op must fall back to the CPU.
bool prepareCall(const c10::OperatorHandle& op, const OpInfo& info, c10::ArrayRef<c10::IValue> args,
                 CallBuilder& builder, exec::FoundSignature& found, std::string& why) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    builder.reset(info.name, args.size());
    if (!describeArgs(op.schema(), info, args, builder, why)) return false;
    ir::OpCall& call = builder.call_;
    if (reuseLastSignature(info, call)) {
      found = info.lastFound;
      exec::countSignatureHit(found);
      return true;
    }
    const uint64_t generation = exec::signatureGeneration();
    // The key holds everything but the results, which follow from it.
    std::string& key = builder.key_;
    call.appendKey(key);
    found = exec::findSignature(key);
    if (found) {
      why = found.signature->unsupported;
      if (why.empty()) rememberSignature(info, found, generation);
      return why.empty();
    }
    checkCall(op, args);
    if (attempt == 0 && checksReadOverlapBeforeResize(op)) checkReadOverlap(op, args);
    auto returns = std::make_shared<Returns>();
    bool resized = false;
    if (!inferResults(op, args, info.traits, call, returns->specs, resized, why)) {
      exec::markUnsupported(key, why);
      return false;
    }
    if (resized) {
      // out= arguments changed shape: describe again. An out= view that grew
      // still shares its storage, and the ops that refuse any overlap raise
      // now, after the resize, as on the CPU (torch.cat([a, b], out=b)).
      checkRefusedOverlap(op, args);
      continue;
    }
    checkMemoryAndKernel(op, args, info.traits.implicitRng);
    try {
      found = exec::addSignature(call, key, std::move(returns), builder.scalars_);
      rememberSignature(info, found, generation);
      return true;
    } catch (const lower::LoweringError& e) {
      why = e.what();
    } catch (const std::invalid_argument& e) {
      why = std::string("lowering error: ") + e.what();
    } catch (const std::exception& e) {
      rethrowRuntimeError(e, "compiling " + info.name);
    }
    exec::markUnsupported(key, why);
    return false;
  }
  TORCH_CHECK(false, "torchtpu: ", info.name, ": out= arguments kept changing shape");
}

// Lazy conjugate/negative views (x.conj(), x.conj().imag) reach backends
// unresolved for ops such as clone: the ones an op only reads are replaced by
// their values.
void resolveLazyArguments(const c10::FunctionSchema& schema, torch::jit::Stack* stack) {
  const size_t nargs = schema.arguments().size();
  for (size_t k = 0; k < nargs; ++k) {
    c10::IValue& v = (*stack)[stack->size() - nargs + k];
    if (!v.isTensor() || isWrite(schema.arguments()[k])) continue;
    const at::Tensor& t = v.toTensor();
    if (t.defined() && t.device().type() == c10::DeviceType::PrivateUse1 &&
        (t.is_conj() || t.is_neg())) {
      v = resolveLazyBits(t);
    }
  }
}

// The arrays an op writes through a view that covers them whole, with that
// view's shape (what memory reports show for them): array index -> sizes.
std::vector<std::pair<int, std::vector<int64_t>>> wholeWrites(const ir::OpCall& call) {
  std::vector<std::pair<int, std::vector<int64_t>>> out;
  for (const ir::OpCall::WriteTarget& wb : call.writeBack) {
    if (wb.arg < 0) continue;
    const ir::ArgValue& a = call.args[static_cast<size_t>(wb.arg)];
    const ir::TensorRef& ref =
        wb.element < 0 ? a.tensor : a.tensors[static_cast<size_t>(wb.element)];
    if (ref.present() && ref.isWholeArray(call.arrays[static_cast<size_t>(ref.array)])) {
      out.emplace_back(ref.array, ref.sizes);
    }
  }
  return out;
}

// Points a storage at a new value, labelled with the shape of the tensor it
// holds (for memory reports) when that is known.
void setStorage(exec::DeviceStorage& ds, exec::DeviceValue& value,
                const std::vector<int64_t>* shape) {
  if (value.array) {
    if (shape != nullptr) exec::labelShape(*value.array, *shape);
    ds.setArray(std::move(value.array));
  } else {
    if (shape != nullptr) {
      value.pending->shape = *shape;
      value.pending->hasShape = true;
    }
    ds.setPending(std::move(value.pending));
  }
}

// Runs a prepared call in the thread's mode: returns its new results as
// tensors, after pointing the storages it writes at their new values.
std::vector<at::Tensor> runCall(CallBuilder& b, const exec::FoundSignature& found,
                                const std::vector<ReturnSpec>& returns, const std::string& name) {
  const auto whole = wholeWrites(found.signature->call->call);
  const int device = b.device();
  std::string source = exec::sourceLinesEnabled() ? userSourceLine() : std::string();
  // With source lines on, its arrays name the user's line too.
  exec::ArrayOrigin origin = source.empty() ? nullptr : exec::makeOrigin(name, source);
  exec::CallOutputs outs;
  try {
    outs = exec::runOpCall(found, b.takeBindings(), std::move(b.scalars_), device,
                           std::move(source), std::move(origin));
  } catch (const std::exception& e) {
    rethrowRuntimeError(e, name);
  }
  for (size_t k = 0; k < outs.updated.size(); ++k) {
    const int index = outs.updatedArrays[k];
    const std::vector<int64_t>* shape = nullptr;
    for (const auto& [a, s] : whole) {
      if (a == index) shape = &s;
    }
    exec::DeviceStorage* ds = b.storages_[static_cast<size_t>(index)];
    if (ds != nullptr) setStorage(*ds, outs.updated[k], shape);
  }
  std::vector<at::Tensor> tensors;
  tensors.reserve(outs.newResults.size());
  size_t k = 0;
  for (const ReturnSpec& r : returns) {
    for (size_t e = 0; e < r.sizes.size(); ++e, ++k) {
      exec::DeviceValue& v = outs.newResults[k];
      const auto dtype = v.array ? v.array->type().dtype : v.pending->type.dtype;
      at::Tensor t = newResultTensor(r.sizes[e], r.strides[e], dtype, device);
      setStorage(deviceStorage(t), v, &r.sizes[e]);
      tensors.push_back(std::move(t));
    }
  }
  return tensors;
}

// Replaces the arguments on the stack by the returns.
void pushReturns(torch::jit::Stack* stack, size_t nargs, const std::vector<ReturnSpec>& returns,
                 std::vector<at::Tensor>& newResults) {
  const c10::ArrayRef<c10::IValue> args(stack->data() + (stack->size() - nargs), nargs);
  // Returned arguments are taken before the arguments leave the stack.
  std::vector<c10::IValue> aliased;
  for (const ReturnSpec& r : returns) {
    if (r.kind == ReturnSpec::Kind::kAliasArg) aliased.push_back(args[r.arg]);
  }
  torch::jit::drop(*stack, nargs);
  size_t next = 0;
  size_t nextAlias = 0;
  for (const ReturnSpec& r : returns) {
    switch (r.kind) {
      case ReturnSpec::Kind::kAliasArg:
        stack->push_back(std::move(aliased[nextAlias++]));
        break;
      case ReturnSpec::Kind::kNew:
        stack->push_back(std::move(newResults[next++]));
        break;
      case ReturnSpec::Kind::kNewList: {
        c10::List<at::Tensor> list;
        for (int e = 0; e < r.count; ++e) list.push_back(std::move(newResults[next++]));
        stack->push_back(std::move(list));
        break;
      }
      case ReturnSpec::Kind::kUndefined:
        stack->push_back(at::Tensor());
        break;
      case ReturnSpec::Kind::kNone:
        break;
    }
  }
}

}  // namespace

void boxedKernel(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& schema = op.schema();
  const OpInfo& info = opInfo(schema);
  const std::string& name = info.name;
  if (!info.lowered) return cpuFallback(op, stack, name, "no lowering");
  if (info.valueChecks) {
    checkCallValues(
        op, c10::ArrayRef<c10::IValue>(stack->data() + (stack->size() - schema.arguments().size()),
                                       schema.arguments().size()));
  }
  expandMaskIndices(schema, stack);
  resolveLazyArguments(schema, stack);
  const size_t nargs = schema.arguments().size();
  // The arguments, on the stack until the results replace them.
  const c10::ArrayRef<c10::IValue> args(stack->data() + (stack->size() - nargs), nargs);
  PooledBuilder builder;
  exec::FoundSignature found;
  std::string why;
  if (!prepareCall(op, info, args, builder.get(), found, why)) {
    return cpuFallback(op, stack, name, why);
  }
  const auto& returns = static_cast<const Returns&>(*found.signature->extra).specs;
  std::vector<at::Tensor> newResults = runCall(builder.get(), found, returns, name);
  pushReturns(stack, nargs, returns, newResults);
}

namespace {

// Runs a torchtpu-internal op over tpu tensors, `self` first, in the thread's
// mode; `writeToSelf`: its one result goes into `self`, else it is new.
exec::CallOutputs runInternal(const std::string& op, const std::vector<std::string>& names,
                              const std::vector<at::Tensor>& tensors, bool writeToSelf,
                              CallBuilder& b) {
  for (size_t k = 0; k < tensors.size(); ++k) {
    b.call_.argNames.push_back(names[k]);
    ir::ArgValue av;
    av.kind = Kind::kTensor;
    av.tensor = b.tensor(tensors[k]);
    b.call_.args.push_back(std::move(av));
  }
  b.call_.results.push_back(typeOf(tensors[0]));
  b.call_.writeBack.push_back(writeToSelf ? ir::OpCall::WriteTarget{0, -1}
                                          : ir::OpCall::WriteTarget{});
  std::string key = b.call_.key();
  try {
    exec::FoundSignature found = exec::findSignature(key);
    if (!found) found = exec::addSignature(b.call_, key, nullptr, b.scalars_);
    return exec::runOpCall(found, b.takeBindings(), std::move(b.scalars_), b.device(),
                           exec::sourceLinesEnabled() ? userSourceLine() : std::string(), nullptr);
  } catch (const std::exception& e) {
    rethrowRuntimeError(e, op);
  }
}

}  // namespace

void deviceCopy(const at::Tensor& dst, const at::Tensor& src) {
  CallBuilder b("torchtpu::copy", 2);
  exec::CallOutputs outs = runInternal("torchtpu::copy", {"self", "src"}, {dst, src}, true, b);
  exec::DeviceStorage* ds = b.storages_[static_cast<size_t>(outs.updatedArrays.at(0))];
  if (ds != nullptr) setStorage(*ds, outs.updated[0], nullptr);
}

exec::ArrayPtr denseArray(const at::Tensor& t) {
  exec::DeviceStorage& ds = deviceStorage(t);
  ir::TensorRef ref = viewOf(t);
  storageArrayAs(ds, ref.dtype);
  exec::ArrayPtr array = ds.materialize(ref.dtype);
  if (ref.isWholeArray(array->type()) && array->type().dims == ref.sizes) return array;
  CallBuilder b("torchtpu::dense");
  exec::CallOutputs outs = runInternal("torchtpu::dense", {"self"}, {t}, false, b);
  exec::DeviceValue& v = outs.newResults.at(0);
  if (v.array) return v.array;
  exec::resolvePending(v.pending);  // recorded (defer mode): computed now
  return v.pending->resolved;
}

}  // namespace torchtpu::aten
