// A StableHLO function (func.func) under construction, and the regions nested
// in its ops (reduce bodies, sort comparators, while/if bodies), which are
// built with the same class.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hlo/attr_text.h"
#include "hlo/comparison.h"
#include "hlo/conv_dims.h"
#include "hlo/dot_dims.h"
#include "hlo/elementwise_ops.h"
#include "hlo/fft_type.h"
#include "hlo/gather_dims.h"
#include "hlo/precision.h"
#include "hlo/rng_algorithm.h"
#include "hlo/scatter_dims.h"
#include "hlo/types.h"

namespace torchtpu::hlo {

class Function;
class Module;

// Builds the body of a region. It receives the region (build ops on it, not on
// the enclosing function) and the region's block arguments, and returns the
// values the region yields (the builder emits the stablehlo.return). The region
// object lives only during the call, and values made in it are not usable
// outside it. Bodies of reduce, reduce_window, scatter, sort and
// select_and_scatter are isolated (they see only their arguments); while and if
// regions may also use the enclosing function's values.
// Replica groups of a collective: each lists replica ids.
using ReplicaGroups = std::vector<std::vector<int64_t>>;

using RegionFn =
    std::function<std::vector<Value>(Function& region, const std::vector<Value>& args)>;

namespace detail {
struct ValueTable;
}

class Function {
 public:
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;
  ~Function();

  // ---- identity and signature -------------------------------------------
  const std::string& name() const { return name_; }  // "" for a region
  bool isPublic() const { return isPublic_; }
  bool isRegion() const { return parent_ != nullptr; }
  int numParams() const { return static_cast<int>(params_.size()); }
  // Parameter i (or block argument i of a region).
  Value param(int i) const;
  std::vector<TensorType> paramTypes() const;
  // Set by ret(); empty before.
  const std::vector<TensorType>& resultTypes() const { return resultTypes_; }
  bool finished() const { return finished_; }
  // The module this function (or region) belongs to.
  Module& module() const { return *module_; }

  // ---- argument attributes (top-level functions only) --------------------
  // Parameter `param`'s buffer may be reused for result `output` (they must
  // have the same type): "tf.aliasing_output = N : i32". Checked at toText().
  void aliasParamToOutput(int param, int output);
  // Parameter `param`'s buffer may be reused for any result of the same type:
  // "jax.buffer_donor = true".
  void markDonor(int param);

  // ---- constants and iota -------------------------------------------------
  // A splat of `v` converted to `t`: floats round to nearest (NaN/inf kept),
  // integers must be exact and in range, i1 is v != 0, complex is (v, 0).
  Value constant(double v, ElementType t, std::vector<int64_t> dims = {});
  Value constantInt(int64_t v, ElementType t, std::vector<int64_t> dims = {});
  Value constantComplex(double re, double im, ElementType t, std::vector<int64_t> dims = {});
  // Dense data from `t.numElements()` raw little-endian row-major elements
  // (one byte per i1 element).
  Value constantData(const TensorType& t, const void* data);
  // 0, 1, 2, ... along `dim`, repeated along the other dims.
  Value iota(const TensorType& t, int64_t dim);

  // ---- elementwise --------------------------------------------------------
  Value unary(UnaryOp op, Value x);
  Value binary(BinaryOp op, Value a, Value b);
  Value add(Value a, Value b) { return binary(BinaryOp::kAdd, a, b); }
  Value subtract(Value a, Value b) { return binary(BinaryOp::kSubtract, a, b); }
  Value multiply(Value a, Value b) { return binary(BinaryOp::kMultiply, a, b); }
  Value divide(Value a, Value b) { return binary(BinaryOp::kDivide, a, b); }
  Value maximum(Value a, Value b) { return binary(BinaryOp::kMaximum, a, b); }
  Value minimum(Value a, Value b) { return binary(BinaryOp::kMinimum, a, b); }
  Value negate(Value x) { return unary(UnaryOp::kNegate, x); }
  Value abs(Value x) { return unary(UnaryOp::kAbs, x); }
  Value exp(Value x) { return unary(UnaryOp::kExponential, x); }
  Value log(Value x) { return unary(UnaryOp::kLog, x); }
  Value sqrt(Value x) { return unary(UnaryOp::kSqrt, x); }
  // Comparison with an explicit type; without one, defaultComparisonType()
  // (FLOAT for floats and complex, SIGNED / UNSIGNED for integers and i1).
  Value compare(Value a, Value b, ComparisonDirection dir,
                std::optional<ComparisonType> type = std::nullopt);
  // `pred` is an i1 scalar or has the operands' shape.
  Value select(Value pred, Value onTrue, Value onFalse);
  // `min` and `max` are scalars or have x's shape.
  Value clamp(Value min, Value x, Value max);
  Value convert(Value x, ElementType t);
  // Reinterprets bits. Same width: same shape. To a narrower type: adds a
  // trailing dim of from/to width; to a wider type: drops a trailing dim that
  // must be to/from width.
  Value bitcastConvert(Value x, ElementType t);
  // Rounds floats to a format with the given exponent and mantissa bits.
  Value reducePrecision(Value x, int32_t exponentBits, int32_t mantissaBits);

  // ---- shape --------------------------------------------------------------
  // Operand dim i goes to result dim broadcastDimensions[i] (size 1 or equal).
  Value broadcastInDim(Value x, std::vector<int64_t> outDims,
                       std::vector<int64_t> broadcastDimensions);
  Value reshape(Value x, std::vector<int64_t> dims);
  // result dim i = operand dim perm[i].
  Value transpose(Value x, std::vector<int64_t> perm);
  Value reverse(Value x, std::vector<int64_t> dims);
  // Empty `strides` means all 1.
  Value slice(Value x, std::vector<int64_t> start, std::vector<int64_t> limit,
              std::vector<int64_t> strides = {});
  // Start indices are integer scalars of one type; they are clamped into range
  // by the op, as the spec says.
  Value dynamicSlice(Value x, std::vector<Value> startIndices, std::vector<int64_t> sizes);
  Value dynamicUpdateSlice(Value x, Value update, std::vector<Value> startIndices);
  Value concatenate(std::vector<Value> xs, int64_t dim);
  // Negative low/high padding removes elements; empty `interior` means all 0.
  Value pad(Value x, Value padValue, std::vector<int64_t> lo, std::vector<int64_t> hi,
            std::vector<int64_t> interior = {});

  // ---- contractions ---------------------------------------------------------
  // lhs and rhs have the same element type; the result has `resultType` (default:
  // the operands' type).
  Value dotGeneral(Value lhs, Value rhs, const DotDims& dims,
                   std::optional<ElementType> resultType = std::nullopt,
                   Precision precision = Precision::kDefault);
  // Empty strides / dilations mean all 1, empty padding all 0.
  Value convolution(Value lhs, Value rhs, const ConvDims& dims, std::vector<int64_t> strides = {},
                    std::vector<PadPair> padding = {}, std::vector<int64_t> lhsDilation = {},
                    std::vector<int64_t> rhsDilation = {}, int64_t featureGroupCount = 1,
                    int64_t batchGroupCount = 1,
                    std::optional<ElementType> resultType = std::nullopt,
                    Precision precision = Precision::kDefault);

  // ---- ops with regions -----------------------------------------------------
  // `body` gets 2N scalars (accumulators of the init types, then elements of
  // the same types) and returns N scalars.
  std::vector<Value> reduce(std::vector<Value> inputs, std::vector<Value> inits,
                            std::vector<int64_t> dims, const RegionFn& body);
  // One input reduced with a single binary op (add, maximum, ...).
  Value reduce(Value input, Value init, std::vector<int64_t> dims, BinaryOp combiner);
  // Empty strides / dilations mean all 1, empty padding all 0.
  std::vector<Value> reduceWindow(std::vector<Value> inputs, std::vector<Value> inits,
                                  std::vector<int64_t> windowDims,
                                  std::vector<int64_t> windowStrides,
                                  std::vector<int64_t> baseDilations,
                                  std::vector<int64_t> windowDilations,
                                  std::vector<PadPair> padding, const RegionFn& body);
  Value gather(Value operand, Value indices, const GatherDims& dims,
               std::vector<int64_t> sliceSizes, bool indicesAreSorted = false);
  // `body` gets 2N scalars (current input values, then update values) and
  // returns N scalars, the new values.
  std::vector<Value> scatter(std::vector<Value> inputs, Value indices, std::vector<Value> updates,
                             const ScatterDims& dims, const RegionFn& body,
                             bool indicesAreSorted = false, bool uniqueIndices = false);
  // `comparator` gets 2N scalars (lhs0, rhs0, lhs1, rhs1, ...) and returns one
  // i1 scalar: whether lhs sorts before rhs. `dim` may be negative.
  std::vector<Value> sort(std::vector<Value> inputs, int64_t dim, bool isStable,
                          const RegionFn& comparator);
  // For each window of `operand`, `select` (2 scalars -> i1) picks one element
  // (it returns true when its first argument is preferred); the matching
  // `source` element is combined into that position with `scatter` (2 scalars
  // -> 1), starting from `init` everywhere. Empty strides mean the window dims,
  // empty padding all 0.
  Value selectAndScatter(Value operand, Value source, Value init, std::vector<int64_t> windowDims,
                         std::vector<int64_t> windowStrides, std::vector<PadPair> padding,
                         const RegionFn& select, const RegionFn& scatter);
  // `cond` gets the loop values and returns an i1 scalar; `body` gets them and
  // returns their next values (same types). Both may use values of the
  // enclosing function.
  std::vector<Value> whileLoop(std::vector<Value> init, const RegionFn& cond, const RegionFn& body);
  // Runs one of two argument-less regions; both must return the same types.
  std::vector<Value> ifElse(Value pred, const RegionFn& thenBranch, const RegionFn& elseBranch);

  // ---- linear algebra and FFT -----------------------------------------------
  Value fft(Value x, FftType type, std::vector<int64_t> fftLength);
  // Lower (or upper) Cholesky factor; the other triangle is unspecified.
  Value cholesky(Value a, bool lower);
  // Solves op(a) x = b (leftSide) or x op(a) = b, a triangular.
  enum class Transpose { kNo, kTranspose, kAdjoint };
  Value triangularSolve(Value a, Value b, bool leftSide, bool lower, bool unitDiagonal,
                        Transpose transposeA = Transpose::kNo);
  // stablehlo.custom_call of a target the compiler implements (e.g. XLA's
  // expanders' "Qr", "Eigh", "ProductOfElementaryHouseholderReflectors").
  std::vector<Value> customCall(const std::string& target, std::vector<Value> operands,
                                std::vector<TensorType> results,
                                const std::string& backendConfig = "");

  // ---- collectives (replicated programs) -------------------------------------
  // Each group lists replica ids; every replica is in exactly one group, and
  // all groups have the same size. The ops run across the replicas of a
  // program compiled with several replicas (runtime CompileOptions).
  // Elementwise reduction of x over each group with `combiner`.
  Value allReduce(Value x, const ReplicaGroups& groups, BinaryOp combiner);
  // The group's x concatenated along `dim`, in group order.
  Value allGather(Value x, int64_t dim, const ReplicaGroups& groups);
  // allReduce, then the group member at position i keeps the i-th of equal
  // blocks along `dim` (whose size must divide by the group size).
  Value reduceScatter(Value x, int64_t dim, const ReplicaGroups& groups, BinaryOp combiner);
  // x split in group-size blocks along `splitDim`; block j goes to member j,
  // which concatenates what it receives along `concatDim` in member order.
  Value allToAll(Value x, int64_t splitDim, int64_t concatDim, const ReplicaGroups& groups);
  // Replica `source` sends x to replica `target` for each pair; replicas that
  // receive nothing get zeros.
  Value collectivePermute(Value x, const std::vector<std::pair<int64_t, int64_t>>& pairs);
  // This replica's id (ui32 scalar).
  Value replicaId();

  // ---- misc ---------------------------------------------------------------
  // Returns (new state, random bits of type `out`).
  std::pair<Value, Value> rngBitGenerator(Value state, RngAlgorithm alg, const TensorType& out);
  // Keeps the compiler from moving computations across this point.
  std::vector<Value> optimizationBarrier(std::vector<Value> xs);
  // func.call of a finished top-level function of the same module.
  std::vector<Value> call(const Function& callee, std::vector<Value> args);

  // Ends a top-level function with func.return and fixes its result types.
  // (A region's results are what its RegionFn returns.)
  void ret(std::vector<Value> results);

  // "func.func public @main(...) -> (...) { ... }". Requires ret().
  std::string toText() const;

 private:
  friend class Module;
  Function(Module* module, std::string name, std::vector<TensorType> params, bool isPublic);
  Function(Function* parent, const std::vector<TensorType>& args, bool isolated);

  // A fresh value of type t defined in this function's scope.
  Value newValue(const TensorType& t);
  // "%12" / "%arg0".
  std::string ref(const Value& v) const;
  // Throws unless v is defined in this function and visible here.
  void use(const Value& v, const std::string& op) const;
  void checkOpen(const std::string& op) const;
  // Appends one op and returns its results. `regions` are texts from region().
  std::vector<Value> emit(const std::string& op, const std::vector<Value>& operands,
                          const std::string& attrs, const std::vector<TensorType>& results,
                          const std::vector<std::string>& regions = {});
  // Builds a region with block arguments `argTypes`. If `expected` is given the
  // results must have those types; the actual types are stored in *actual.
  std::string region(const std::string& op, const std::vector<TensorType>& argTypes,
                     const RegionFn& fn, bool isolated,
                     const std::optional<std::vector<TensorType>>& expected,
                     std::vector<TensorType>* actual);
  // The region of a collective's reduction: two scalars of `t` combined.
  std::string combinerRegion(const std::string& op, ElementType t, BinaryOp combiner);
  Function* root();
  const Function* root() const;

  Module* module_ = nullptr;
  Function* parent_ = nullptr;  // set for regions
  std::string name_;
  bool isPublic_ = false;
  std::shared_ptr<detail::ValueTable> table_;
  int scope_ = 0;
  std::vector<Value> params_;
  std::vector<std::string> ops_;
  std::vector<TensorType> resultTypes_;
  bool finished_ = false;
  std::vector<std::optional<int>> aliasOutput_;  // per param
  std::vector<bool> donor_;                      // per param
  std::string rawText_;  // set for a function imported from text (Module::addFunctionText)
};

}  // namespace torchtpu::hlo
