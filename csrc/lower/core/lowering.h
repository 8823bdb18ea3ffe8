// Lowerings: one function per ATen op that emits StableHLO for it. A lowering
// sees IR values (types and builder values), never a PyTorch tensor, and is
// shared by every execution mode.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/function.h"
#include "ir/op_call.h"

namespace torchtpu::lower {

using hlo::Function;
using hlo::TensorType;
using hlo::Value;
using runtime::ElementType;

// A device-side check, the device's TORCH_CHECK: `failed` (an i1 scalar) is
// true when the check fails; `values` (integer scalars) replace the "{}" of
// `message` in order. Device programs cannot raise, so only launch_blocking
// programs compute checks, as extra outputs that the executor reads after
// the launch and turns into the exception PyTorch's CPU kernel raises.
struct DeviceCheck {
  enum class Error { kRuntime, kIndex };  // RuntimeError, IndexError
  Error error = Error::kRuntime;
  std::string message;
  Value failed;
  std::vector<Value> values;
};
// Builds a check's values; called only for checked programs, after the
// lowering returned (it may use any value the lowering made).
using CheckFn = std::function<DeviceCheck(Function&)>;

// What a lowering is given: the op call, the builder, and the values of its
// tensor and scalar arguments (views already resolved to their logical shape).
class LowerCtx {
 public:
  // values[k]: the values of argument k (one for a tensor or scalar, one per
  // present entry of a tensor list, none for static arguments).
  LowerCtx(Function& fn, const ir::OpCall& call, std::vector<std::vector<Value>> values);

  Function& fn;
  const ir::OpCall& call;
  const std::string& op() const { return call.op; }

  // Argument access by schema name. Each throws LoweringError naming the op
  // when the argument is missing or of another kind.
  bool has(std::string_view name) const;
  bool isNone(std::string_view name) const;  // absent optional (or missing)
  // A Tensor argument. A Python number PyTorch wrapped as a 0-d tensor
  // arrives as a 0-d scalar value (f64 / i64 / i1 / complex<f64>); check
  // isScalarArg() where type promotion must treat it as a number.
  Value tensor(std::string_view name) const;
  bool isScalarArg(std::string_view name) const;
  std::optional<Value> optTensor(std::string_view name) const;
  std::vector<Value> tensors(std::string_view name) const;                    // Tensor[]
  std::vector<std::optional<Value>> optTensors(std::string_view name) const;  // Tensor?[]
  // A Scalar argument as a 0-d value (f64, i64, i1 or complex<f64>).
  Value scalar(std::string_view name) const;
  bool b(std::string_view name) const;
  int64_t i(std::string_view name) const;
  double d(std::string_view name) const;  // float (or int) argument
  std::vector<int64_t> ints(std::string_view name) const;
  std::optional<int64_t> optInt(std::string_view name) const;
  std::optional<double> optDouble(std::string_view name) const;
  std::optional<std::vector<int64_t>> optInts(std::string_view name) const;
  std::string str(std::string_view name) const;
  std::optional<ElementType> dtype(std::string_view name) const;
  // The u64[2] {seed, offset} state of the call's generator.
  Value rng(std::string_view name) const;

  // The result types PyTorch expects; the bridge converts a lowering's result
  // to exactly this type, so a lowering may return any dtype of the right shape.
  const std::vector<TensorType>& results() const { return call.results; }
  const TensorType& result(size_t i = 0) const;

  [[noreturn]] void fail(const std::string& message) const;

  // Declares a device-side check of this call (see DeviceCheck). Checks are
  // evaluated in declaration order; the first that fails is reported.
  void check(CheckFn fn) { checks_.push_back(std::move(fn)); }
  const std::vector<CheckFn>& checks() const { return checks_; }

 private:
  const ir::ArgValue* find(std::string_view name) const;
  const ir::ArgValue& get(std::string_view name,
                          std::initializer_list<ir::ArgValue::Kind> kinds) const;
  int index(std::string_view name) const;
  std::vector<std::vector<Value>> values_;  // per argument: its tensor/scalar values
  std::vector<CheckFn> checks_;
};

// Raised for a call a lowering cannot handle (the bridge then falls back).
class LoweringError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using LowerFn = std::function<std::vector<Value>(LowerCtx&)>;

// What the integration layer needs to know about an op beyond its schema,
// declared with its lowering.
struct OpTraits {
  // Its Scalar arguments decide result shapes (arange, linspace): they are
  // static values of the program, not runtime scalars.
  bool staticScalars = false;
  // It draws random numbers though some of its overloads have no Generator
  // argument (native_dropout, randperm): those use the default generator.
  bool implicitRng = false;
  // Tensor arguments it writes without saying so in its schema, when its
  // bool argument "training" is true (native_batch_norm's running statistics).
  std::vector<std::string> writesWhenTraining;
};

// Registers `fn` for the given ops ("aten::add.Tensor"). In-place and out=
// overloads ("aten::add_.Tensor", "aten::add.out") may share the functional
// lowering: the bridge writes the results into the mutated arguments. `loc`
// (the caller's) is kept for each op as where its lowering is registered.
void registerLowering(const std::vector<std::string>& ops, LowerFn fn,
                      std::source_location loc = std::source_location::current(),
                      OpTraits traits = {});
const LowerFn* findLowering(const std::string& op);
// The traits registered with an op's lowering (defaults for other ops).
OpTraits loweringTraits(const std::string& op);
std::vector<std::string> registeredOps();
// Where each registered op's lowering was registered, by op name:
// "lower/nn/pooling.cc:42", the file relative to csrc/ and the line the
// compiler gives the registration (GCC: the line where the statement ends).
std::map<std::string, std::string> loweringSources();

// Static registration at namespace scope, every op name written out in full:
//   const Registrar kRelu({"aten::relu", "aten::relu_"}, [](LowerCtx& c) { ... });
// With traits: const Registrar kArange({"aten::arange", ...}, lowerArange,
//                                      OpTraits{.staticScalars = true});
struct Registrar {
  Registrar(const std::vector<std::string>& ops, LowerFn fn,
            std::source_location loc = std::source_location::current()) {
    registerLowering(ops, std::move(fn), loc);
  }
  Registrar(const std::vector<std::string>& ops, LowerFn fn, OpTraits traits,
            std::source_location loc = std::source_location::current()) {
    registerLowering(ops, std::move(fn), loc, std::move(traits));
  }
};

}  // namespace torchtpu::lower
