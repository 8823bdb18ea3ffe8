#include "aten/call_contract.h"

#include <ATen/MemoryOverlap.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aten/bridge.h"

namespace torchtpu::aten {
namespace {

bool isWriteArg(const c10::Argument& a) { return a.alias_info() && a.alias_info()->isWrite(); }

// "add" for aten::add_.Tensor, aten::add.out and aten::add.Tensor.
std::string_view familyName(const c10::FunctionSchema& s) {
  std::string_view n = s.name();
  if (const size_t p = n.find("::"); p != std::string_view::npos) n.remove_prefix(p + 2);
  if (!n.empty() && n.back() == '_') n.remove_suffix(1);
  return n;
}

bool oneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Ops whose CPU kernels compute in the destination's dtype instead of casting
// a result to it (torch.cumsum(x, 0, out=int_tensor)).
bool computesInDestinationType(std::string_view family) {
  return oneOf(family, {"cumsum", "cumprod", "bernoulli", "nansum", "_scaled_mm"});
}

// Ops whose CPU kernels write through an expanded (self-overlapping) view
// without complaint; every other op raises.
bool allowsOverlappingWrites(std::string_view family) {
  return oneOf(family, {"fill", "zero", "masked_fill", "index_fill", "index_put", "_index_put_impl",
                        "addmv", "baddbmm", "tril", "triu", "threshold", "conj_physical"});
}

// Tensor arguments (by schema name) that must share one dtype, as the CPU
// kernels require. `floatParams`: the later ones may instead be float32 when
// the first is bfloat16 or half (the CPU's mixed-precision norms).
struct SameDtypeRule {
  std::string_view family;
  std::vector<std::string_view> args;
  bool floatParams = false;
};

const std::vector<SameDtypeRule>& sameDtypeRules() {
  static const auto* rules = new std::vector<SameDtypeRule>{
      {"mm", {"self", "mat2"}},
      {"bmm", {"self", "mat2"}},
      {"addmm", {"self", "mat1", "mat2"}},
      {"_addmm_activation", {"self", "mat1", "mat2"}},
      {"addbmm", {"self", "batch1", "batch2"}},
      {"baddbmm", {"self", "batch1", "batch2"}},
      {"mv", {"self", "vec"}},
      {"addmv", {"self", "mat", "vec"}},
      {"dot", {"self", "tensor"}},
      {"vdot", {"self", "other"}},
      {"addr", {"self", "vec1", "vec2"}},
      {"_cdist_forward", {"x1", "x2"}},
      {"complex", {"real", "imag"}},
      {"polar", {"abs", "angle"}},
      {"linalg_cross", {"self", "other"}},
      {"heaviside", {"self", "values"}},
      {"lerp", {"self", "end", "weight"}},
      {"_softmax_backward_data", {"grad_output", "output"}},
      {"_log_softmax_backward_data", {"grad_output", "output"}},
      {"convolution", {"input", "weight", "bias"}},
      {"_convolution", {"input", "weight", "bias"}},
      {"binary_cross_entropy", {"self", "target", "weight"}},
      {"index_copy", {"self", "source"}},
      {"index_add", {"self", "source"}},
      {"index_reduce", {"self", "source"}},
      {"index_put", {"self", "values"}},
      {"_index_put_impl", {"self", "values"}},
      {"_unsafe_index_put", {"self", "values"}},
      {"_unsafe_masked_index_put_accumulate", {"self", "values"}},
      {"put", {"self", "source"}},
      {"masked_scatter", {"self", "source"}},
      {"scatter", {"self", "src"}},
      {"scatter_add", {"self", "src"}},
      {"scatter_reduce", {"self", "src"}},
      {"grid_sampler_2d", {"input", "grid"}},
      {"grid_sampler_3d", {"input", "grid"}},
      {"native_layer_norm", {"input", "weight", "bias"}, true},
      {"native_group_norm", {"input", "weight", "bias"}, true},
      {"native_batch_norm", {"input", "weight", "bias", "running_mean", "running_var"}, true},
      {"_native_batch_norm_legit",
       {"input", "weight", "bias", "running_mean", "running_var"},
       true},
      {"_native_batch_norm_legit_no_training",
       {"input", "weight", "bias", "running_mean", "running_var"},
       true},
      {"_batch_norm_with_update", {"input", "weight", "bias", "running_mean", "running_var"}, true},
      {"_native_batch_norm_legit_functional",
       {"input", "weight", "bias", "running_mean", "running_var"},
       true},
  };
  return *rules;
}

const SameDtypeRule* sameDtypeRule(std::string_view family) {
  for (const auto& r : sameDtypeRules()) {
    if (r.family == family) return &r;
  }
  return nullptr;
}

const at::Tensor* tensorArg(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                            std::string_view name) {
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    if (schema.arguments()[k].name() != name) continue;
    if (!args[k].isTensor() || !args[k].toTensor().defined()) return nullptr;
    return &args[k].toTensor();
  }
  return nullptr;
}

bool isReducedFloat(c10::ScalarType t) {
  return t == c10::ScalarType::BFloat16 || t == c10::ScalarType::Half;
}

void checkSameDtype(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                    std::string_view family) {
  const SameDtypeRule* rule = sameDtypeRule(family);
  if (rule == nullptr) return;
  const at::Tensor* first = nullptr;
  std::string_view firstName;
  for (std::string_view name : rule->args) {
    const at::Tensor* t = tensorArg(schema, args, name);
    if (t == nullptr) continue;
    if (first == nullptr) {
      first = t;
      firstName = name;
      continue;
    }
    const c10::ScalarType a = first->scalar_type();
    const c10::ScalarType b = t->scalar_type();
    if (a == b) continue;
    if (rule->floatParams) {
      TORCH_CHECK(isReducedFloat(a) && b == c10::ScalarType::Float,
                  "mixed dtype (CPU): expect parameter to have scalar type of Float (",
                  schema.name(), ": ", firstName, " is ", a, " and ", name, " is ", b, ")");
      continue;
    }
    TORCH_CHECK(false, schema.name(), ": expected ", firstName, " and ", name,
                " to have the same dtype, but got ", a, " and ", b);
  }
}

bool isBool(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor().defined() && v.toTensor().scalar_type() == c10::kBool;
  return v.isBool();
}

// The CPU's rules for `-` on bools (sub_check) and for a boolean alpha.
void checkBoolArithmetic(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                         std::string_view family) {
  if (!oneOf(family, {"sub", "rsub", "add"}) || args.size() < 2) return;
  const bool selfBool = isBool(args[0]);
  const bool otherBool = isBool(args[1]);
  if (family != "add") {
    TORCH_CHECK(!(selfBool && otherBool),
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                "`^` or `logical_xor()` operator instead.");
    TORCH_CHECK(!selfBool && !otherBool,
                "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    if (schema.arguments()[k].name() != "alpha" || !args[k].isBool()) continue;
    TORCH_CHECK(selfBool && otherBool, "Boolean alpha only supported for Boolean results.");
  }
}

// The functional op an in-place or out= schema computes: the same family
// (aten::pow for aten::pow_.Scalar) with the same arguments but the out=
// ones, and tensor results.
class FunctionalIndex {
 public:
  std::optional<c10::OperatorHandle> find(const c10::FunctionSchema& s) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string key = s.operator_name().name + "." + s.operator_name().overload_name;
    if (auto it = found_.find(key); it != found_.end()) return it->second;
    if (byName_.empty()) {
      for (const c10::OperatorName& n : c10::Dispatcher::singleton().getAllOpNames()) {
        byName_[n.name].push_back(n);
      }
    }
    std::optional<c10::OperatorHandle> result;
    std::string name(s.name());
    if (name.back() == '_') name.pop_back();
    for (const c10::OperatorName& n : byName_[name]) {
      auto handle = c10::Dispatcher::singleton().findSchema(n);
      if (handle && computes(handle->schema(), s)) {
        result = handle;
        break;
      }
    }
    found_.emplace(key, result);
    return result;
  }

 private:
  static bool computes(const c10::FunctionSchema& fn, const c10::FunctionSchema& s) {
    if (fn.is_mutable() || fn.returns().empty()) return false;
    std::vector<const c10::Argument*> want;
    for (const auto& a : s.arguments()) {
      if (!(isWriteArg(a) && a.kwarg_only())) want.push_back(&a);
    }
    if (fn.arguments().size() != want.size()) return false;
    for (size_t k = 0; k < want.size(); ++k) {
      const c10::Argument& a = fn.arguments()[k];
      if (a.name() != want[k]->name() || *a.type() != *want[k]->type()) return false;
    }
    return true;
  }

  std::mutex mu_;
  std::unordered_map<std::string, std::vector<c10::OperatorName>> byName_;
  std::unordered_map<std::string, std::optional<c10::OperatorHandle>> found_;
};

FunctionalIndex& functionalIndex() {
  static auto* index = new FunctionalIndex();
  return *index;
}

struct Written {
  const at::Tensor* tensor;
  WriteKind kind;
  size_t arg;
  int element;  // in a tensor list; -1 for a single tensor
};

// The shape and dtype rules, against the results of the functional op run on
// meta tensors.
void checkResults(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                  const std::vector<Written>& written, std::string_view family) {
  auto functional = functionalIndex().find(schema);
  if (!functional) return;
  torch::jit::Stack meta;
  for (size_t k = 0; k < schema.arguments().size(); ++k) {
    const c10::Argument& a = schema.arguments()[k];
    if (!(isWriteArg(a) && a.kwarg_only())) meta.push_back(metaArgument(args[k]));
  }
  try {
    functional->callBoxed(&meta);
  } catch (const std::exception&) {
    return;  // the op's own kernel reports what is wrong
  }
  // The i-th written argument receives the i-th result.
  std::vector<size_t> writtenArgs;
  for (const Written& w : written) {
    if (writtenArgs.empty() || writtenArgs.back() != w.arg) writtenArgs.push_back(w.arg);
  }
  for (const Written& w : written) {
    const size_t r = std::find(writtenArgs.begin(), writtenArgs.end(), w.arg) - writtenArgs.begin();
    if (r >= meta.size()) continue;
    const at::Tensor* result = nullptr;
    if (w.element < 0 && meta[r].isTensor()) {
      result = &meta[r].toTensor();
    } else if (w.element >= 0 && meta[r].isTensorList()) {
      const auto list = meta[r].toTensorList();
      if (static_cast<size_t>(w.element) < list.size()) {
        // A list element is a reference into the list: keep a copy alive.
        const at::Tensor t = list.get(w.element);
        if (keepsShape(schema, args, w.arg) && w.tensor->sizes() != t.sizes()) {
          throwInPlaceShape(w.tensor->sizes(), t.sizes());
        }
        TORCH_CHECK(computesInDestinationType(family) ||
                        c10::canCast(t.scalar_type(), w.tensor->scalar_type()),
                    "result type ", t.scalar_type(), " can't be cast to the desired output type ",
                    w.tensor->scalar_type());
      }
      continue;
    }
    if (result == nullptr || !result->defined()) continue;
    if (keepsShape(schema, args, w.arg) && w.tensor->sizes() != result->sizes()) {
      throwInPlaceShape(w.tensor->sizes(), result->sizes());
    }
    TORCH_CHECK(computesInDestinationType(family) ||
                    c10::canCast(result->scalar_type(), w.tensor->scalar_type()),
                "result type ", result->scalar_type(), " can't be cast to the desired output type ",
                w.tensor->scalar_type());
  }
}

void checkInternalOverlap(const at::Tensor& t) {
  TORCH_CHECK(at::has_internal_overlap(t) != at::MemOverlap::Yes,
              "unsupported operation: more than one element of the written-to tensor refers to a "
              "single memory location. Please clone() the tensor before performing the "
              "operation.");
}

void checkPartialOverlap(const at::Tensor& written, const at::Tensor& read) {
  TORCH_CHECK(at::get_overlap_status(written, read) != at::MemOverlapStatus::Partial,
              "unsupported operation: some elements of the input tensor and the written-to "
              "tensor refer to a single memory location. Please clone() the tensor before "
              "performing the operation.");
}

template <typename F>
void forEachTensor(const c10::IValue& v, F&& f) {
  if (v.isTensor()) {
    if (v.toTensor().defined()) f(v.toTensor(), -1);
  } else if (v.isTensorList()) {
    const auto list = v.toTensorList();
    for (size_t e = 0; e < list.size(); ++e) {
      const at::Tensor& t = list[e];
      if (t.defined()) f(t, static_cast<int>(e));
    }
  } else if (v.isOptionalTensorList()) {
    const auto list = v.toOptionalTensorList();
    for (size_t e = 0; e < list.size(); ++e) {
      const std::optional<at::Tensor> t = list[e];
      if (t.has_value() && t->defined()) f(*t, static_cast<int>(e));
    }
  }
}

}  // namespace

WriteKind writeKind(const c10::FunctionSchema& schema, size_t arg) {
  const c10::Argument& a = schema.arguments()[arg];
  if (!isWriteArg(a)) return WriteKind::kNone;
  const std::string& name = schema.name();
  return !a.kwarg_only() && !name.empty() && name.back() == '_' ? WriteKind::kInPlace
                                                                : WriteKind::kOut;
}

bool keepsShape(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args, size_t arg) {
  const WriteKind kind = writeKind(schema, arg);
  if (kind != WriteKind::kOut) return kind == WriteKind::kInPlace;
  if (!args[arg].isTensor()) return false;
  const at::Tensor& out = args[arg].toTensor();
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    if (k != arg && writeKind(schema, k) == WriteKind::kNone && args[k].isTensor() &&
        args[k].toTensor().is_same(out)) {
      return true;
    }
  }
  return false;
}

void applyCpuLayouts(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                     torch::jit::Stack& results) {
  const std::string_view family = familyName(schema);
  if (!oneOf(family, {"convolution", "_convolution", "convolution_backward"})) return;
  // The CPU's convolutions (mkldnn and the slow 2-d kernels) work in
  // channels_last when the input or the weight is channels_last.
  const at::Tensor* input = tensorArg(schema, args, "input");
  const at::Tensor* weight = tensorArg(schema, args, "weight");
  if (input == nullptr || weight == nullptr) return;
  const int64_t k = input->dim();
  c10::MemoryFormat format = c10::MemoryFormat::Contiguous;
  auto is = [&](c10::MemoryFormat f) {
    return input->suggest_memory_format() == f || weight->suggest_memory_format() == f;
  };
  if (k == 4 && is(c10::MemoryFormat::ChannelsLast)) format = c10::MemoryFormat::ChannelsLast;
  if (k == 5 && is(c10::MemoryFormat::ChannelsLast3d)) format = c10::MemoryFormat::ChannelsLast3d;
  if (format == c10::MemoryFormat::Contiguous) return;
  // convolution: the output; convolution_backward: grad_input and grad_weight.
  const size_t n = family == "convolution_backward" ? 2 : 1;
  for (size_t r = 0; r < n && r < results.size(); ++r) {
    if (!results[r].isTensor() || !results[r].toTensor().defined()) continue;
    const at::Tensor& m = results[r].toTensor();
    if (m.dim() != k) continue;
    results[r] = at::empty(m.sizes(), m.options().memory_format(format));
  }
}

void throwInPlaceShape(c10::IntArrayRef target, c10::IntArrayRef result) {
  TORCH_CHECK(false, "output with shape ", target, " doesn't match the broadcast shape ", result);
}

void checkCall(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args) {
  const c10::FunctionSchema& schema = op.schema();
  const std::string_view family = familyName(schema);
  checkSameDtype(schema, args, family);
  checkBoolArithmetic(schema, args, family);

  // The written tensors (list elements are kept alive by the stack).
  std::vector<Written> written;
  std::vector<at::Tensor> keep;
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    const WriteKind kind = writeKind(schema, k);
    if (kind == WriteKind::kNone) continue;
    forEachTensor(args[k], [&](const at::Tensor& t, int element) {
      keep.push_back(t);
      written.push_back({nullptr, kind, k, element});
    });
  }
  if (written.empty()) return;
  for (size_t i = 0; i < written.size(); ++i) written[i].tensor = &keep[i];

  const bool overlapAllowed = allowsOverlappingWrites(family);
  bool readsTensors = false;
  for (const Written& w : written) {
    if (!overlapAllowed) checkInternalOverlap(*w.tensor);
  }
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    if (writeKind(schema, k) != WriteKind::kNone) continue;
    forEachTensor(args[k], [&](const at::Tensor& read, int) {
      readsTensors = readsTensors || !read.unsafeGetTensorImpl()->is_wrapped_number();
      for (const Written& w : written) checkPartialOverlap(*w.tensor, read);
    });
  }
  // Factories (torch.arange(5, out=t)) take their dtype from the out= tensor.
  if (readsTensors || writeKind(schema, written.front().arg) == WriteKind::kInPlace) {
    checkResults(schema, args, written, family);
  }
}

void checkCopy(const at::Tensor& dst, const at::Tensor& src) {
  checkInternalOverlap(dst);
  checkPartialOverlap(dst, src);
}

}  // namespace torchtpu::aten
