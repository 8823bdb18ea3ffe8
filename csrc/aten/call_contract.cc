#include "aten/call_contract.h"

#include <ATen/Dispatch.h>
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/TypeProperties.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/index.h>
#include <ATen/ops/index_meta_dispatch.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/zeros.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aten/bridge.h"
#include "aten/torch_compat.h"

namespace torchtpu::aten {
namespace {

const c10::Type* unwrapOptional(const c10::TypePtr& t) {
  if (auto o = t->castRaw<c10::OptionalType>()) return o->getElementType().get();
  return t.get();
}

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
  return oneOf(family, {"cumsum", "cumprod", "bernoulli", "sum", "nansum", "prod", "_scaled_mm"});
}

// Ops whose CPU kernels write through an expanded (self-overlapping) view
// without complaint; every other op raises. (fill_ with a tensor value
// raises; with a number it does not.)
bool allowsOverlappingWrites(std::string_view family, const std::string& overload) {
  if (family == "fill") return overload == "Scalar";
  return oneOf(family, {"zero", "masked_fill", "index_fill", "index_put", "_index_put_impl",
                        "addmv", "baddbmm", "tril", "triu", "threshold", "conj_physical"});
}

// Ops whose CPU kernels refuse any overlap between what they write and what
// they read, the same memory included (x.index_copy_(0, i, x)), where other
// ops refuse only partial overlap.
bool refusesAnyOverlap(std::string_view family) {
  return oneOf(family, {"index_put", "_index_put_impl", "_unsafe_index_put", "index_copy",
                        "index_add", "index_reduce", "scatter", "scatter_add", "scatter_reduce",
                        "put", "take", "cat", "gather", "index_select"});
}

// Ops whose CPU kernels do not check that what they write and what they read
// do not overlap (reductions, matrix products, softmax, sort, scans of
// values and indices): torch.mean(x, 1, out=view_of_x) is allowed.
bool skipsReadOverlapCheck(std::string_view family) {
  return oneOf(family, {"sum",
                        "mean",
                        "prod",
                        "amax",
                        "amin",
                        "nansum",
                        "std",
                        "var",
                        "std_mean",
                        "var_mean",
                        "norm",
                        "linalg_vector_norm",
                        "linalg_matrix_norm",
                        "logsumexp",
                        "all",
                        "any",
                        "argmax",
                        "argmin",
                        "mm",
                        "bmm",
                        "addmm",
                        "matmul",
                        "mv",
                        "dot",
                        "softmax",
                        "_softmax",
                        "log_softmax",
                        "_log_softmax",
                        "sort",
                        "cummax",
                        "cummin",
                        "logcumsumexp"});
}

bool isIndexPut(std::string_view family) {
  return oneOf(family, {"index_put", "_index_put_impl", "_unsafe_index_put"});
}

// Ops whose CPU kernels read a 0-d tensor argument as a number: it may alias
// the written tensor.
bool readsZeroDimAsNumber(std::string_view family) {
  return oneOf(family, {"fill", "masked_fill", "index_fill"});
}

// Ops whose CPU kernels accept a 0-d tensor of another dtype where they
// otherwise require one dtype (it is converted).
bool convertsZeroDim(std::string_view family) { return isIndexPut(family) || family == "lerp"; }

// Ops whose CPU kernels require an out= tensor of exactly the result's dtype
// (reductions, matrix products, indexing; most elementwise ops cast instead).
bool requiresExactOutDtype(std::string_view family) {
  return oneOf(family, {"all",
                        "any",
                        "amax",
                        "amin",
                        "argmax",
                        "argmin",
                        "aminmax",
                        "max",
                        "min",
                        "mm",
                        "bmm",
                        "addmm",
                        "addbmm",
                        "baddbmm",
                        "addmv",
                        "mv",
                        "dot",
                        "vdot",
                        "matmul",
                        "gather",
                        "index_select",
                        "index_add",
                        "index_copy",
                        "index_reduce",
                        "scatter",
                        "scatter_add",
                        "scatter_reduce",
                        "take",
                        "take_along_dim",
                        "masked_select",
                        "nonzero",
                        "searchsorted",
                        "bucketize",
                        "softmax",
                        "_softmax",
                        "log_softmax",
                        "_log_softmax",
                        "logcumsumexp",
                        "tril",
                        "triu",
                        "diag",
                        "diff",
                        "renorm",
                        "cross",
                        "linalg_cross",
                        "histc",
                        "isin",
                        "isposinf",
                        "isneginf",
                        "signbit",
                        "nan_to_num",
                        "where",
                        "linalg_vector_norm",
                        "linalg_matrix_norm",
                        "norm",
                        "msort"});
}

// Ops whose CPU kernels concatenate: a result that cannot be cast to the out=
// tensor is a TypeError there.
bool concatenates(std::string_view family) { return oneOf(family, {"cat", "concat", "stack"}); }

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

// index_put_ with a single boolean mask and a one-element value runs as
// masked_fill_ on the CPU, which converts the value; with integer indices
// (x[i] = torch.tensor(True) into an int64 x) the CPU kernel requires the
// value's dtype to be self's (found by the fuzzer).
bool indexPutFillsThroughMask(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args) {
  const auto at = schema.argumentIndexWithName("indices");
  if (!at || !args[*at].isOptionalTensorList()) return false;
  const c10::List<std::optional<at::Tensor>> indices = args[*at].toOptionalTensorList();
  if (indices.size() != 1) return false;
  const std::optional<at::Tensor> index = indices.get(0);
  return index.has_value() && index->defined() &&
         (index->scalar_type() == at::kBool || index->scalar_type() == at::kByte);
}

void checkSameDtype(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                    std::string_view family) {
  const SameDtypeRule* rule = sameDtypeRule(family);
  if (rule == nullptr) return;
  const at::Tensor* first = nullptr;
  std::string_view firstName;
  for (std::string_view name : rule->args) {
    const at::Tensor* t = tensorArg(schema, args, name);
    if (t == nullptr || (t->dim() == 0 && convertsZeroDim(family))) continue;
    // The CPU's batched products and addr of empty tensors return before
    // their checks; every other op checks (found by the fuzzer: mv, index_add,
    // index_copy_, index_put_ of empty tensors).
    if (t->numel() == 0 && oneOf(family, {"bmm", "baddbmm", "addbmm", "addr"})) return;
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
    TORCHTPU_CHECK_BOOL_SUB(
        !(selfBool && otherBool),
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
        "`^` or `logical_xor()` operator instead.");
    TORCHTPU_CHECK_BOOL_SUB(
        !selfBool && !otherBool,
        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
        "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    if (schema.arguments()[k].name() != "alpha" || !args[k].isBool()) continue;
    TORCH_CHECK(selfBool && otherBool, "Boolean alpha only supported for Boolean results.");
  }
}

std::optional<double> doubleArg(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                                std::string_view name) {
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    if (schema.arguments()[k].name() == name && (args[k].isDouble() || args[k].isInt())) {
      return args[k].isDouble() ? args[k].toDouble() : static_cast<double>(args[k].toInt());
    }
  }
  return std::nullopt;
}

// The argument checks of the CPU's random kernels (their meta kernels check
// nothing): the parameters of a distribution must make sense.
void checkRandomArguments(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                          std::string_view family) {
  auto arg = [&](std::string_view name) { return doubleArg(schema, args, name); };
  if (family == "uniform") {
    const double from = arg("from").value_or(0), to = arg("to").value_or(1);
    TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from,
                " > to=", to);
  } else if (family == "bernoulli" && oneOf(schema.overload_name(), {"float", "p"})) {
    const double p = arg("p").value_or(0.5);
    TORCH_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  } else if (family == "exponential") {
    const double lambd = arg("lambd").value_or(1);
    TORCH_CHECK(lambd > 0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  } else if (family == "geometric") {
    const double p = arg("p").value_or(0.5);
    TORCH_CHECK(0 < p && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  } else if (family == "log_normal") {
    const double std = arg("std").value_or(2);
    TORCH_CHECK(std > 0, "log_normal_ expects std > 0.0, but found std=", std);
  } else if (family == "cauchy") {
    const double sigma = arg("sigma").value_or(1);
    TORCH_CHECK(sigma > 0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  } else if (family == "random" && (arg("to") || arg("from"))) {
    const double from = arg("from").value_or(0);
    if (const auto to = arg("to")) {
      TORCH_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=",
                  static_cast<int64_t>(from), " >= to=", static_cast<int64_t>(*to));
    }
  }
}

// index_select of a 0-d tensor takes exactly one index.
void checkIndexSelect(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                      std::string_view family) {
  if (family != "index_select") return;
  const at::Tensor* self = tensorArg(schema, args, "self");
  const at::Tensor* index = tensorArg(schema, args, "index");
  if (self == nullptr || index == nullptr || self->dim() != 0) return;
  TORCH_CHECK(index->numel() == 1, "index_select(): Index to scalar can have only 1 value, got ",
              index->numel(), " value(s)");
}

// max and min (values and indices, or of all elements) of an empty tensor:
// the CPU kernels raise, the meta kernels do not.
void checkEmptyMaxMin(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                      std::string_view family) {
  if (!oneOf(family, {"max", "min"})) return;
  const at::Tensor* self = tensorArg(schema, args, "self");
  if (self == nullptr || tensorArg(schema, args, "other") != nullptr) return;
  const auto dimAt = schema.argumentIndexWithName("dim");
  if (!dimAt) {
    TORCH_CHECK(self->numel() > 0, family,
                "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                "reduction dim with the 'dim' argument.");
    return;
  }
  if (!args[*dimAt].isInt() || self->dim() == 0) return;
  const int64_t dim = c10::maybe_wrap_dim(args[*dimAt].toInt(), self->dim());
  TORCH_CHECK_INDEX(self->size(dim) > 0, family, "(): Expected reduction dim ", dim,
                    " to have non-zero size.");
}

// index_put's values must broadcast to the indexing result's shape (meta
// kernels skip this where the result is empty; the CPU kernel raises).
void checkIndexPutValues(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                         std::string_view family) {
  if (!isIndexPut(family)) return;
  const at::Tensor* self = tensorArg(schema, args, "self");
  const at::Tensor* values = tensorArg(schema, args, "values");
  const auto at = schema.argumentIndexWithName("indices");
  if (self == nullptr || values == nullptr || !at || !args[*at].isOptionalTensorList()) return;
  c10::List<std::optional<at::Tensor>> indices;
  for (const std::optional<at::Tensor>& t : args[*at].toOptionalTensorList()) {
    if (t.has_value() && t->defined() && t->scalar_type() != at::kLong &&
        t->scalar_type() != at::kInt) {
      return;  // masks: their result shape depends on the data (checked by the kernel)
    }
    indices.push_back(t.has_value() && t->defined()
                          ? std::optional<at::Tensor>(metaArgument(*t).toTensor().to(at::kMeta))
                          : t);
  }
  at::Tensor result;
  try {
    result = at::index(metaArgument(*self).toTensor(), indices);
  } catch (const std::exception&) {
    return;  // the indices themselves are wrong: the meta kernel says so
  }
  TORCH_CHECK(at::is_expandable_to(values->sizes(), result.sizes()),
              "shape mismatch: value tensor of shape ", values->sizes(),
              " cannot be broadcast to indexing result of shape ", result.sizes());
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
    if (const size_t p = name.find("::__i"); p != std::string::npos && name.ends_with("__")) {
      name.erase(p + 4, 1);  // Python's in-place operators: __irshift__ computes __rshift__
    } else if (name.back() == '_') {
      name.pop_back();
    }
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

// The shape and dtype rules for written tensor `w` and the result it receives.
void checkResult(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                 const Written& w, const at::Tensor& result, std::string_view family) {
  if (!result.defined()) return;
  const at::Tensor& target = *w.tensor;
  if (keepsShape(schema, args, w.arg) && target.sizes() != result.sizes()) {
    throwInPlaceShape(target.sizes(), result.sizes());
  }
  const c10::ScalarType from = result.scalar_type();
  const c10::ScalarType to = target.scalar_type();
  if (w.kind == WriteKind::kOut) {
    // An explicit dtype= names the out= tensor's dtype (sum, nansum, cumsum, ...).
    for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
      if (schema.arguments()[k].name() != "dtype" || !args[k].isInt()) continue;
      TORCH_CHECK(args[k].toScalarType() == to, schema.name(),
                  ": provided dtype must match dtype of result. Got ", args[k].toScalarType(),
                  " and ", to, ".");
    }
  }
  if (from == to || computesInDestinationType(family)) return;
  if (w.kind == WriteKind::kOut && requiresExactOutDtype(family)) {
    TORCH_CHECK(false, schema.name(), ": expected the out= tensor to have dtype ", from,
                " (the result's), but got ", to);
  }
  TORCH_CHECK_TYPE(!concatenates(family) || c10::canCast(from, to), "torch.", family,
                   "(): input types can't be cast to the desired output type ", to);
  TORCH_CHECK(c10::canCast(from, to), "result type ", from,
              " can't be cast to the desired output type ", to);
}

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
  const QuietWarnings quiet;
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
    if (w.element < 0 && meta[r].isTensor()) {
      checkResult(schema, args, w, meta[r].toTensor(), family);
    } else if (w.element >= 0 && meta[r].isTensorList()) {
      const auto list = meta[r].toTensorList();
      if (static_cast<size_t>(w.element) < list.size()) {
        checkResult(schema, args, w, list.get(w.element), family);
      }
    }
  }
}

}  // namespace

std::optional<c10::ScalarType> computeDtypeOfOut(const c10::OperatorHandle& op,
                                                 c10::ArrayRef<c10::IValue> args, size_t arg) {
  const c10::FunctionSchema& schema = op.schema();
  // Elementwise ops PyTorch does not tag pointwise compute the same way
  // (floor_divide of bfloat16 into a float32 out= rounds to bfloat16 first;
  // found by the fuzzer).
  if (!op.hasTag(at::Tag::pointwise) &&
      !oneOf(familyName(schema), {"floor_divide", "true_divide", "rsub"})) {
    return std::nullopt;
  }
  auto functional = functionalIndex().find(schema);
  if (!functional) return std::nullopt;
  // The result that `arg` receives: as many results precede it as written
  // arguments do.
  size_t r = 0;
  for (size_t k = 0; k < arg && k < schema.arguments().size(); ++k) {
    if (isWriteArg(schema.arguments()[k])) ++r;
  }
  torch::jit::Stack meta;
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    const c10::Argument& a = schema.arguments()[k];
    if (!(isWriteArg(a) && a.kwarg_only())) meta.push_back(metaArgument(args[k]));
  }
  const QuietWarnings quiet;
  try {
    functional->callBoxed(&meta);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (r >= meta.size() || !meta[r].isTensor() || !meta[r].toTensor().defined()) {
    return std::nullopt;
  }
  return meta[r].toTensor().scalar_type();
}

namespace {

void checkInternalOverlap(const at::Tensor& t) {
  TORCH_CHECK(at::has_internal_overlap(t) != at::MemOverlap::Yes,
              "unsupported operation: more than one element of the written-to tensor refers to a "
              "single memory location. Please clone() the tensor before performing the "
              "operation.");
}

void checkOverlap(const at::Tensor& written, const at::Tensor& read, bool anyOverlap) {
  const at::MemOverlapStatus status = at::get_overlap_status(written, read);
  TORCH_CHECK(status != at::MemOverlapStatus::Partial &&
                  !(anyOverlap && status == at::MemOverlapStatus::Full),
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

bool isIntegralOrBool(const at::Tensor& t) {
  return at::isIntegralType(t.scalar_type(), /*includeBool=*/true);
}

// Which tensors a CPU stand-in gives the float32 dtype instead of their own.
enum class Recast { kNone, kIntegral, kAll };

// A CPU tensor of ones with t's shape, or with t's rank and every dim of
// size 1 (`small`), in t's dtype or (see Recast) in float32.
at::Tensor cpuStandIn(const at::Tensor& t, bool small, Recast recast) {
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) {
    // A Python number: 1 of its kind, so that its value (x % 0) raises nothing.
    at::Tensor one = at::ones_like(t);
    one.unsafeGetTensorImpl()->set_wrapped_number(true);
    return one;
  }
  if (t.device().is_cpu()) return t;
  c10::TensorOptions options = t.options().device(c10::kCPU);
  if (recast == Recast::kAll || (recast == Recast::kIntegral && isIntegralOrBool(t))) {
    options = options.dtype(c10::kFloat);
  }
  if (!small) return at::ones(t.sizes(), options);
  return at::ones(std::vector<int64_t>(t.dim(), 1), options);
}

c10::IValue cpuStandIn(const c10::IValue& v, bool small, Recast recast) {
  if (v.isTensor()) return v.toTensor().defined() ? cpuStandIn(v.toTensor(), small, recast) : v;
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorList()) out.push_back(cpuStandIn(t, small, recast));
    return out;
  }
  if (v.isOptionalTensorList()) {
    c10::List<std::optional<at::Tensor>> out;
    for (const std::optional<at::Tensor>& t : v.toOptionalTensorList()) {
      out.push_back(t.has_value() && t->defined()
                        ? std::optional<at::Tensor>(cpuStandIn(*t, small, recast))
                        : t);
    }
    return out;
  }
  if (v.isDevice() && v.toDevice().type() == c10::DeviceType::PrivateUse1) {
    return c10::Device(c10::kCPU);
  }
  return v;
}

// Runs the CPU kernel on stand-ins of the arguments (argument k recast as
// recast[k]); throws its error.
void runOnCpu(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args, bool small,
              const std::vector<Recast>& recast) {
  const c10::FunctionSchema& schema = op.schema();
  torch::jit::Stack stack;
  for (size_t k = 0; k < args.size(); ++k) {
    const bool number =
        k < schema.arguments().size() &&
        unwrapOptional(schema.arguments()[k].real_type())->kind() == c10::TypeKind::NumberType;
    // A number argument: 1 of its kind, so that its value (x % 0) raises nothing.
    if (number && args[k].isDouble()) {
      stack.emplace_back(1.0);
    } else if (number && args[k].isInt()) {
      stack.emplace_back(int64_t{1});
    } else {
      stack.push_back(cpuStandIn(args[k], small, k < recast.size() ? recast[k] : Recast::kNone));
    }
  }
  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), &stack);
}

// Raises the error the CPU kernel raises for these arguments' dtypes, if any:
// where it raises on stand-ins (ones of the real shapes, or of every dim 1
// when the tensors are large) but not once the `recast` tensors are float32,
// the dtypes are what it refuses, and its own error (type and message) is
// raised.
void raiseCpuDtypeRefusal(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args,
                          const std::vector<Recast>& recast) {
  if (!op.hasComputedKernelForDispatchKey(c10::DispatchKey::CPU)) return;
  int64_t elements = 0;
  for (const c10::IValue& v : args) {
    forEachTensor(v, [&](const at::Tensor& t, int) { elements += t.numel(); });
  }
  static constexpr int64_t kRealShapeLimit = 1 << 16;
  const bool small = elements > kRealShapeLimit;
  const QuietWarnings quiet;
  try {
    runOnCpu(op, args, small, {});
  } catch (const c10::Error&) {
    try {
      runOnCpu(op, args, small, recast);
    } catch (const std::exception&) {
      return;  // another error: the stand-ins' own
    }
    throw;
  } catch (const std::exception&) {
  }
}

// Elementwise ops (TensorIterator ones on the CPU). In-place and out=
// variants (abs_) carry no pointwise tag of their own.
bool isPointwise(const c10::OperatorHandle& op) {
  if (op.hasTag(at::Tag::pointwise)) return true;
  const auto functional = functionalIndex().find(op.schema());
  return functional && functional->hasTag(at::Tag::pointwise);
}

// The ops checkCpuImplementsDtypes asks the CPU about: elementwise ones and
// these (whose index-like arguments, if any, stand-ins cannot break).
bool asksCpuForDtypes(const c10::OperatorHandle& op) {
  if (isPointwise(op)) return true;
  return oneOf(
      familyName(op.schema()),
      {"topk",         "kthvalue",   "argmax",  "argmin",   "max",         "min",          "median",
       "nanmedian",    "mode",       "sort",    "argsort",  "trace",       "cummax",       "cummin",
       "logcumsumexp", "logsumexp",  "softmax", "_softmax", "log_softmax", "_log_softmax", "glu",
       "hardshrink",   "softshrink", "var",     "std",      "var_mean",    "std_mean",     "mean",
       "nanmean",      "prod",       "cumprod", "cumsum",   "sum",         "nansum",       "amax",
       "amin",         "aminmax",    "renorm",  "dist",     "histc"});
}

// The CPU kernels do not implement every op for bool and integer data
// ("abs_cpu" not implemented for 'Bool', "topk does not support bool", "std
// and var only support floating point", addcdiv's integer division), and
// meta kernels do not say so. For a call with such tensors (checked once,
// when its signature is learned), the CPU kernel is asked, with integer and
// bool tensors recast to float32 for the comparison.
void checkCpuImplementsDtypes(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args,
                              bool random) {
  const c10::FunctionSchema& schema = op.schema();
  if (random || !asksCpuForDtypes(op)) return;
  bool integral = false;
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    const c10::Argument& a = schema.arguments()[k];
    // Sizes given as numbers would make the stand-ins' results large.
    if (oneOf(a.name(), {"size", "sizes", "shape", "repeats", "output_size"})) return;
    if (unwrapOptional(a.real_type())->kind() == c10::TypeKind::GeneratorType) return;
    forEachTensor(args[k], [&](const at::Tensor& t, int) {
      integral = integral || (isIntegralOrBool(t) && !t.unsafeGetTensorImpl()->is_wrapped_number());
    });
  }
  if (integral) raiseCpuDtypeRefusal(op, args, std::vector<Recast>(args.size(), Recast::kIntegral));
}

// The same-dtype rules (checkSameDtype) with the CPU's own error where its
// kernel can say it: the arguments the rule names, recast to float32, make
// the comparison.
void checkSameDtypeAsCpu(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args,
                         std::string_view family) {
  const c10::FunctionSchema& schema = op.schema();
  try {
    checkSameDtype(schema, args, family);
  } catch (const c10::Error&) {
    std::vector<Recast> recast(args.size(), Recast::kNone);
    for (std::string_view name : sameDtypeRule(family)->args) {
      const auto k = schema.argumentIndexWithName(name);
      if (k && static_cast<size_t>(*k) < recast.size()) recast[*k] = Recast::kAll;
    }
    raiseCpuDtypeRefusal(op, args, recast);
    throw;
  }
}

}  // namespace

void QuietWarnings::Silent::process(const c10::Warning& /*warning*/) {}

QuietWarnings::QuietWarnings() : previous_(c10::WarningUtils::get_warning_handler()) {
  c10::WarningUtils::set_warning_handler(&silent_);
}

QuietWarnings::~QuietWarnings() { c10::WarningUtils::set_warning_handler(previous_); }

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

namespace {

// The dtype the CPU's TensorIterator computes an elementwise op in: the
// promoted type of its tensor and number arguments, or the result's floating
// type where the op promotes integers to floats (div, sqrt, copysign).
c10::ScalarType computeType(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                            c10::ScalarType result) {
  at::native::ResultTypeState state;
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    if (writeKind(schema, k) != WriteKind::kNone) continue;
    if (args[k].isTensor() && args[k].toTensor().defined()) {
      state = at::native::update_result_type_state(args[k].toTensor(), state);
    } else if (args[k].isScalar()) {
      state = at::native::update_result_type_state(args[k].toScalar(), state);
    }
  }
  const c10::ScalarType common = at::native::result_type(state);
  const bool toFloat = (c10::isFloatingType(result) || c10::isComplexType(result)) &&
                       !c10::isFloatingType(common) && !c10::isComplexType(common);
  return toFloat ? result : common;
}

// The layout TensorIterator gives the output of an elementwise op over these
// (meta) inputs, or an undefined tensor when it cannot be built. As on the
// CPU, an input of another dtype than `common` is first copied to it
// (Tensor.to keeps a dense layout and makes any other one contiguous), so an
// expanded int64 operand of a float op no longer decides the layout.
at::Tensor iteratorLayout(const std::vector<at::Tensor>& inputs, c10::ScalarType common) {
  try {
    at::TensorIteratorConfig config;
    config.add_owned_output(at::Tensor());
    for (const at::Tensor& t : inputs) {
      config.add_owned_const_input(
          t.scalar_type() == common ? t : at::empty_like(t, t.options().dtype(common)));
    }
    config.check_all_same_dtype(false).enforce_safe_casting_to_output(false);
    return config.build().output();
  } catch (const std::exception&) {
    return at::Tensor();
  }
}

void applyIteratorLayout(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                         torch::jit::Stack& results) {
  if (results.size() != 1 || !results[0].isTensor() || !results[0].toTensor().defined()) return;
  // A memory format asked for (x.contiguous(), x.to(memory_format=...)) decides.
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    if (schema.arguments()[k].name() == "memory_format" && args[k].isInt() &&
        args[k].toMemoryFormat() != c10::MemoryFormat::Preserve) {
      return;
    }
  }
  const at::Tensor& m = results[0].toTensor();
  if (m.dim() < 2 || m.numel() < 2) return;
  std::vector<at::Tensor> inputs;
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    if (writeKind(schema, k) != WriteKind::kNone || !args[k].isTensor()) continue;
    const at::Tensor& t = args[k].toTensor();
    if (t.defined() && t.dim() > 0) inputs.push_back(metaArgument(t).toTensor());
  }
  if (inputs.empty()) return;
  const at::Tensor out = iteratorLayout(inputs, computeType(schema, args, m.scalar_type()));
  if (!out.defined() || out.sizes() != m.sizes() || out.strides() == m.strides()) return;
  results[0] = at::empty_strided(m.sizes(), out.strides(), m.options());
}

// aten::index.Tensor: PyTorch's meta kernel for it (a Python one) looks at
// self's layout only; the CPU's TensorIterator also looks at the indices.
// ATen's own structured meta function is the CPU's rule.
void applyIndexLayout(c10::ArrayRef<c10::IValue> args, torch::jit::Stack& results) {
  if (args.size() != 2 || !args[0].isTensor() || !args[1].isOptionalTensorList()) return;
  if (results.size() != 1 || !results[0].isTensor()) return;
  const at::Tensor& m = results[0].toTensor();
  if (!m.defined() || m.dim() < 2 || m.numel() < 2) return;
  try {
    const at::Tensor self = metaArgument(args[0]).toTensor();
    const auto indices = metaArgument(args[1]).toOptionalTensorList();
    const at::Tensor out = at::meta::index(self, indices);
    if (out.sizes() != m.sizes() || out.strides() == m.strides()) return;
    results[0] = at::empty_strided(m.sizes(), out.strides(), m.options());
  } catch (const std::exception&) {
    // Boolean indices need their values (nonzero); the meta result stands.
  }
}

}  // namespace

void applyCpuLayouts(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args,
                     torch::jit::Stack& results) {
  const c10::FunctionSchema& schema = op.schema();
  // floor_divide is a TensorIterator op on the CPU without the pointwise tag.
  if (op.hasTag(at::Tag::pointwise) || familyName(schema) == "floor_divide") {
    applyIteratorLayout(schema, args, results);
    return;
  }
  const std::string_view family = familyName(schema);
  if (schema.name() == "aten::index" && schema.overload_name() == "Tensor") {
    applyIndexLayout(args, results);
    return;
  }
  // Ops whose CPU kernels start from self.clone(): the result keeps self's
  // strides (size-1 dims included).
  if (oneOf(family, {"index_put", "_unsafe_index_put", "index_fill", "put"})) {
    const at::Tensor* self = tensorArg(schema, args, "self");
    if (self == nullptr || results.empty() || !results[0].isTensor()) return;
    const at::Tensor& m = results[0].toTensor();
    if (!m.defined() || m.sizes() != self->sizes()) return;
    results[0] = at::empty_like(metaArgument(*self).toTensor(), m.options());
    return;
  }
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

namespace {

// The tensors a call writes; `keep` holds them (list elements are
// temporaries), so it must outlive the result.
std::vector<Written> writtenTensors(const c10::FunctionSchema& schema,
                                    c10::ArrayRef<c10::IValue> args,
                                    std::vector<at::Tensor>& keep) {
  std::vector<Written> written;
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    const WriteKind kind = writeKind(schema, k);
    if (kind == WriteKind::kNone) continue;
    forEachTensor(args[k], [&](const at::Tensor& t, int element) {
      keep.push_back(t);
      written.push_back({nullptr, kind, k, element});
    });
  }
  for (size_t i = 0; i < written.size(); ++i) written[i].tensor = &keep[i];
  return written;
}

}  // namespace

void checkCall(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args) {
  const c10::FunctionSchema& schema = op.schema();
  const std::string_view family = familyName(schema);
  checkSameDtypeAsCpu(op, args, family);
  checkBoolArithmetic(schema, args, family);
  checkRandomArguments(schema, args, family);
  checkIndexSelect(schema, args, family);
  checkEmptyMaxMin(schema, args, family);
  checkIndexPutValues(schema, args, family);
  std::vector<at::Tensor> keep;
  const std::vector<Written> written = writtenTensors(schema, args, keep);
  if (written.empty()) return;
  bool readsTensors = false;
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    if (writeKind(schema, k) != WriteKind::kNone) continue;
    forEachTensor(args[k], [&](const at::Tensor& read, int) {
      readsTensors = readsTensors || !read.unsafeGetTensorImpl()->is_wrapped_number();
    });
  }
  // Factories (torch.arange(5, out=t)) take their dtype from the out= tensor.
  if (readsTensors || writeKind(schema, written.front().arg) == WriteKind::kInPlace) {
    checkResults(schema, args, written, family);
  }
}

bool checksReadOverlapBeforeResize(const c10::OperatorHandle& op) {
  return op.hasTag(at::Tag::pointwise) && !refusesAnyOverlap(familyName(op.schema()));
}

void checkReadOverlap(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args) {
  const c10::FunctionSchema& schema = op.schema();
  const std::string_view family = familyName(schema);
  if (skipsReadOverlapCheck(family)) return;
  std::vector<at::Tensor> keep;
  const std::vector<Written> written = writtenTensors(schema, args, keep);
  if (written.empty()) return;
  const bool anyOverlap = refusesAnyOverlap(family);
  for (size_t k = 0; k < schema.arguments().size() && k < args.size(); ++k) {
    if (writeKind(schema, k) != WriteKind::kNone) continue;
    forEachTensor(args[k], [&](const at::Tensor& read, int) {
      // (Only the value: masked_fill's 0-d mask is not read as a number.)
      if (read.dim() == 0 && readsZeroDimAsNumber(family) &&
          schema.arguments()[k].name() == "value") {
        return;
      }
      for (const Written& w : written) checkOverlap(*w.tensor, read, anyOverlap);
    });
  }
}

namespace {

// No tensor the call writes may be a view whose elements overlap, except in
// the ops whose CPU kernels allow it. True when the call writes anything.
bool checkWrittenInternalOverlap(const c10::FunctionSchema& schema,
                                 c10::ArrayRef<c10::IValue> args) {
  std::vector<at::Tensor> keep;
  const std::vector<Written> written = writtenTensors(schema, args, keep);
  if (allowsOverlappingWrites(familyName(schema), schema.overload_name())) return !written.empty();
  for (const Written& w : written) checkInternalOverlap(*w.tensor);
  return !written.empty();
}

}  // namespace

void checkMemoryAndKernel(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args,
                          bool random) {
  if (checkWrittenInternalOverlap(op.schema(), args) && !checksReadOverlapBeforeResize(op)) {
    checkReadOverlap(op, args);
  }
  checkCpuImplementsDtypes(op, args, random);
}

namespace {

// Ops that write a number into a tensor: the CPU's kernels convert it to the
// tensor's dtype with Scalar::to, which refuses a value that does not fit
// (torch.full_like(int_tensor, nan), x_int.masked_fill(m, 1e30)).
bool fillsWithNumber(std::string_view family) {
  return oneOf(family, {"fill", "masked_fill", "index_fill", "scatter"});
}

void checkFillValue(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args) {
  const at::Tensor* self = tensorArg(schema, args, "self");
  const auto k = schema.argumentIndexWithName("value");
  if (self == nullptr || !k || static_cast<size_t>(*k) >= args.size() || !args[*k].isScalar()) {
    return;
  }
  const c10::Scalar value = args[*k].toScalar();
  if (!value.isFloatingPoint() && !value.isComplex() && !value.isIntegral(false)) return;
  AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(c10::kBool, c10::kHalf, c10::kBFloat16,
                                         self->scalar_type(), "fill",
                                         [&] { (void)value.to<scalar_t>(); });
}

// index_put_'s CPU kernel refuses an index that overlaps self, a boolean mask
// included (x.t()[x] = v); where one boolean mask and a one-element value make
// the call a masked_fill_, only partial overlap (x[x] = True is allowed).
// Checked before masks become index tensors.
void checkIndexPutIndexOverlap(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args) {
  // (The functional index_put writes into a clone of self.)
  if (schema.name().back() != '_') return;
  const at::Tensor* self = tensorArg(schema, args, "self");
  const auto k = schema.argumentIndexWithName("indices");
  if (self == nullptr || !k || static_cast<size_t>(*k) >= args.size()) return;
  if (!args[*k].isOptionalTensorList()) return;
  const at::Tensor* values = tensorArg(schema, args, "values");
  const bool fill =
      indexPutFillsThroughMask(schema, args) && values != nullptr && values->numel() == 1;
  for (const std::optional<at::Tensor>& index : args[*k].toOptionalTensorList()) {
    if (index.has_value() && index->defined()) checkOverlap(*self, *index, !fill);
  }
}

void checkIndexPutZeroDimValue(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args) {
  const at::Tensor* self = tensorArg(schema, args, "self");
  const at::Tensor* values = tensorArg(schema, args, "values");
  if (self == nullptr || values == nullptr || values->dim() != 0) return;
  if (values->scalar_type() == self->scalar_type() || indexPutFillsThroughMask(schema, args)) {
    return;
  }
  TORCH_CHECK(false, "Index put requires the source and destination dtypes match, got ",
              self->scalar_type(), " for the destination and ", values->scalar_type(),
              " for the source.");
}

}  // namespace

void checkFallbackWrites(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args) {
  if (isPointwise(op)) checkWrittenInternalOverlap(op.schema(), args);
}

bool checksValuesPerCall(const c10::FunctionSchema& schema) {
  const std::string_view family = familyName(schema);
  return isIndexPut(family) || fillsWithNumber(family);
}

void checkCallValues(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args) {
  const c10::FunctionSchema& schema = op.schema();
  const std::string_view family = familyName(schema);
  if (isIndexPut(family)) {
    checkIndexPutZeroDimValue(schema, args);
    checkIndexPutIndexOverlap(schema, args);
  }
  if (fillsWithNumber(family)) checkFillValue(schema, args);
}

bool cpuResultIsContiguous(const c10::FunctionSchema& schema) {
  // masked_fill clones its (expanded) input contiguous, then fills it; the
  // loss backwards start from zeros_like(input, contiguous); pow(number,
  // tensor) allocates its result contiguous before its TensorIterator.
  const std::string_view family = familyName(schema);
  if (family == "pow") return schema.overload_name() == "Scalar";
  return oneOf(family, {"masked_fill", "huber_loss_backward", "smooth_l1_loss_backward",
                        "mse_loss_backward"});
}

void checkRefusedOverlap(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args) {
  if (refusesAnyOverlap(familyName(op.schema()))) checkReadOverlap(op, args);
}

void checkCopy(const at::Tensor& dst, const at::Tensor& src) {
  if (!at::is_expandable_to(src.sizes(), dst.sizes())) {
    throwInPlaceShape(dst.sizes(), at::infer_size(dst.sizes(), src.sizes()));
  }
  checkInternalOverlap(dst);
  checkOverlap(dst, src, false);
}

}  // namespace torchtpu::aten
