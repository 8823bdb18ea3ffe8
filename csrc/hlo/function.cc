#include "hlo/function.h"

#include <atomic>
#include <stdexcept>

#include "hlo/literal.h"
#include "hlo/module.h"
#include "hlo/shape_inference.h"

namespace torchtpu::hlo {

namespace detail {

// What the builder knows about the values of one top-level function and the
// regions nested in it; shared by the function and its regions.
struct ValueTable {
  uint64_t owner = 0;               // unique per top-level function, copied into its Values
  int numParams = 0;                // parameters of the top-level function, printed %argN
  std::vector<TensorType> types;    // per value id
  std::vector<int> scopeOf;         // per value id: the scope that defines it
  std::vector<int> scopeParent;     // per scope: the enclosing scope, -1 for the function
  std::vector<bool> scopeIsolated;  // per scope: outer values are not visible inside

  int newScope(int parent, bool isolated) {
    scopeParent.push_back(parent);
    scopeIsolated.push_back(isolated);
    return static_cast<int>(scopeParent.size()) - 1;
  }
};

}  // namespace detail

namespace {

uint64_t nextOwnerId() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

std::string join(const std::vector<std::string>& parts, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) s += sep;
    s += parts[i];
  }
  return s;
}

// "tensor<f32>" for one result, "(a, b)" otherwise.
std::string resultTypesText(const std::vector<TensorType>& types) {
  if (types.size() == 1) return types[0].str();
  return typesStr(types);
}

// Prefixes every line of `text` with `n` spaces.
std::string indent(const std::string& text, int n) {
  const std::string pad(n, ' ');
  std::string s;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    s += pad;
    s.append(text, start, end - start);
    s += '\n';
    start = end + 1;
  }
  return s;
}

std::vector<TensorType> typesOf(const std::vector<Value>& vs) {
  std::vector<TensorType> t;
  t.reserve(vs.size());
  for (const Value& v : vs) t.push_back(v.type);
  return t;
}

std::vector<int64_t> onesIfEmpty(std::vector<int64_t> v, size_t n) {
  if (v.empty()) v.assign(n, 1);
  return v;
}

std::vector<PadPair> zerosIfEmpty(std::vector<PadPair> v, size_t n) {
  if (v.empty()) v.assign(n, PadPair{0, 0});
  return v;
}

std::vector<TensorType> scalarsOf(const std::vector<Value>& vs) {
  std::vector<TensorType> t;
  for (const Value& v : vs) t.push_back(TensorType(v.dtype()));
  return t;
}

}  // namespace

// ---- construction -------------------------------------------------------------

Function::Function(Module* module, std::string name, std::vector<TensorType> params, bool isPublic)
    : module_(module), name_(std::move(name)), isPublic_(isPublic) {
  table_ = std::make_shared<detail::ValueTable>();
  table_->owner = nextOwnerId();
  table_->numParams = static_cast<int>(params.size());
  scope_ = table_->newScope(-1, false);
  for (size_t i = 0; i < params.size(); ++i) {
    for (int64_t d : params[i].dims) {
      if (d < 0) {
        throw std::invalid_argument("hlo::Function @" + name_ + ": parameter " + std::to_string(i) +
                                    " has a negative dimension: " + params[i].str());
      }
    }
    params_.push_back(newValue(params[i]));
  }
  aliasOutput_.assign(params.size(), std::nullopt);
  donor_.assign(params.size(), false);
}

Function::Function(Function* parent, const std::vector<TensorType>& args, bool isolated)
    : module_(parent->module_), parent_(parent), table_(parent->table_) {
  scope_ = table_->newScope(parent->scope_, isolated);
  for (const TensorType& t : args) params_.push_back(newValue(t));
}

Function::~Function() = default;

Function* Function::root() {
  Function* f = this;
  while (f->parent_) f = f->parent_;
  return f;
}

const Function* Function::root() const {
  const Function* f = this;
  while (f->parent_) f = f->parent_;
  return f;
}

Value Function::param(int i) const {
  if (i < 0 || i >= numParams()) {
    throw std::invalid_argument("hlo::Function::param: index " + std::to_string(i) +
                                " out of range (" + std::to_string(numParams()) + " params)");
  }
  return params_[i];
}

std::vector<TensorType> Function::paramTypes() const { return typesOf(params_); }

// ---- values -------------------------------------------------------------------

Value Function::newValue(const TensorType& t) {
  Value v;
  v.id = static_cast<int>(table_->types.size());
  v.type = t;
  v.owner = table_->owner;
  table_->types.push_back(t);
  table_->scopeOf.push_back(scope_);
  return v;
}

std::string Function::ref(const Value& v) const {
  if (v.id < table_->numParams) return "%arg" + std::to_string(v.id);
  return "%" + std::to_string(v.id);
}

void Function::use(const Value& v, const std::string& op) const {
  const auto& t = *table_;
  if (!v.valid()) throw std::invalid_argument(op + ": operand is an empty (default) Value");
  if (v.owner != t.owner || v.id >= static_cast<int>(t.types.size()) || t.types[v.id] != v.type) {
    throw std::invalid_argument(op + ": operand " + v.type.str() +
                                " is not a value of this function");
  }
  for (int s = scope_; s != t.scopeOf[v.id]; s = t.scopeParent[s]) {
    if (s < 0 || t.scopeIsolated[s] || t.scopeParent[s] < 0) {
      throw std::invalid_argument(
          op + ": operand " + ref(v) + " (" + v.type.str() +
          (s >= 0 && t.scopeIsolated[s]
               ? ") is defined outside this region, and reduce/sort/scatter/"
                 "select_and_scatter bodies cannot use values of the enclosing function"
               : ") is not visible here (defined in another region)"));
    }
  }
}

void Function::checkOpen(const std::string& op) const {
  if (finished_) {
    throw std::invalid_argument(op + ": function " + (isRegion() ? "region" : "@" + name_) +
                                " is already finished (ret() was called)");
  }
}

std::vector<Value> Function::emit(const std::string& op, const std::vector<Value>& operands,
                                  const std::string& attrs, const std::vector<TensorType>& results,
                                  const std::vector<std::string>& regions) {
  checkOpen(op);
  for (const Value& v : operands) use(v, op);
  std::vector<Value> outs;
  std::vector<std::string> names;
  for (const TensorType& t : results) {
    outs.push_back(newValue(t));
    names.push_back(ref(outs.back()));
  }
  std::vector<std::string> args;
  for (const Value& v : operands) args.push_back(ref(v));
  std::string s;
  if (!outs.empty()) s = join(names) + " = ";
  s += "\"" + op + "\"(" + join(args) + ")";
  if (!regions.empty()) s += " (" + join(regions) + ")";
  if (!attrs.empty()) s += " {" + attrs + "}";
  s += " : " + typesStr(operands) + " -> " + resultTypesText(results);
  ops_.push_back(std::move(s));
  return outs;
}

std::string Function::region(const std::string& op, const std::vector<TensorType>& argTypes,
                             const RegionFn& fn, bool isolated,
                             const std::optional<std::vector<TensorType>>& expected,
                             std::vector<TensorType>* actual) {
  checkOpen(op);
  Function r(this, argTypes, isolated);
  std::vector<Value> results = fn(r, r.params_);
  r.checkOpen(op + " region");
  for (const Value& v : results) r.use(v, op + " region result");
  const std::vector<TensorType> types = typesOf(results);
  if (expected && types != *expected) {
    throw std::invalid_argument(op + ": region must return " + typesStr(*expected) + ", got " +
                                typesStr(types));
  }
  if (actual) *actual = types;
  std::vector<std::string> names;
  for (const Value& v : results) names.push_back(r.ref(v));
  r.ops_.push_back("\"stablehlo.return\"(" + join(names) + ") : " + typesStr(types) + " -> ()");
  r.finished_ = true;

  std::string s = "{\n";
  if (!argTypes.empty()) {
    std::vector<std::string> args;
    for (const Value& v : r.params_) args.push_back(r.ref(v) + ": " + v.type.str());
    s += "^bb0(" + join(args) + "):\n";
  }
  for (const std::string& line : r.ops_) s += indent(line, 2);
  return s + "}";
}

// ---- argument attributes --------------------------------------------------------

void Function::aliasParamToOutput(int param, int output) {
  if (isRegion()) throw std::invalid_argument("aliasParamToOutput: not valid on a region");
  if (param < 0 || param >= numParams() || output < 0) {
    throw std::invalid_argument("aliasParamToOutput: parameter " + std::to_string(param) +
                                " / output " + std::to_string(output) + " out of range");
  }
  if (donor_[param]) {
    throw std::invalid_argument("aliasParamToOutput: parameter " + std::to_string(param) +
                                " is already marked as a buffer donor");
  }
  aliasOutput_[param] = output;
}

void Function::markDonor(int param) {
  if (isRegion()) throw std::invalid_argument("markDonor: not valid on a region");
  if (param < 0 || param >= numParams()) {
    throw std::invalid_argument("markDonor: parameter " + std::to_string(param) + " out of range");
  }
  if (aliasOutput_[param]) {
    throw std::invalid_argument("markDonor: parameter " + std::to_string(param) +
                                " already aliases an output");
  }
  donor_[param] = true;
}

// ---- constants --------------------------------------------------------------------

Value Function::constant(double v, ElementType t, std::vector<int64_t> dims) {
  TensorType type(t, std::move(dims));
  const std::string attr = "value = " + denseSplatAttr(elementLiteral(v, t), type);
  return emit("stablehlo.constant", {}, attr, {type})[0];
}

Value Function::constantInt(int64_t v, ElementType t, std::vector<int64_t> dims) {
  TensorType type(t, std::move(dims));
  const std::string attr = "value = " + denseSplatAttr(elementLiteral(v, t), type);
  return emit("stablehlo.constant", {}, attr, {type})[0];
}

Value Function::constantComplex(double re, double im, ElementType t, std::vector<int64_t> dims) {
  TensorType type(t, std::move(dims));
  const std::string attr = "value = " + denseSplatAttr(complexLiteral(re, im, t), type);
  return emit("stablehlo.constant", {}, attr, {type})[0];
}

Value Function::constantData(const TensorType& t, const void* data) {
  for (int64_t d : t.dims) {
    if (d < 0) throw std::invalid_argument("stablehlo.constant: negative dimension in " + t.str());
  }
  if (!data && t.numElements() > 0) {
    throw std::invalid_argument("stablehlo.constant: null data for " + t.str());
  }
  return emit("stablehlo.constant", {}, "value = " + denseDataAttr(t, data), {t})[0];
}

Value Function::iota(const TensorType& t, int64_t dim) {
  const TensorType type = infer::iota(t, dim);
  return emit("stablehlo.iota", {}, "iota_dimension = " + std::to_string(dim) + " : i64",
              {type})[0];
}

// ---- elementwise ------------------------------------------------------------------

Value Function::unary(UnaryOp op, Value x) {
  const std::string name(opName(op));
  use(x, name);
  return emit(name, {x}, "", {infer::unary(op, x.type)})[0];
}

Value Function::binary(BinaryOp op, Value a, Value b) {
  const std::string name(opName(op));
  use(a, name);
  use(b, name);
  return emit(name, {a, b}, "", {infer::binary(op, a.type, b.type)})[0];
}

Value Function::compare(Value a, Value b, ComparisonDirection dir,
                        std::optional<ComparisonType> type) {
  const ComparisonType ct = type.value_or(defaultComparisonType(a.dtype()));
  const TensorType out = infer::compare(a.type, b.type, dir, ct);
  const std::string attrs =
      "comparison_direction = #stablehlo<comparison_direction " + std::string(directionName(dir)) +
      ">, compare_type = #stablehlo<comparison_type " + std::string(comparisonTypeName(ct)) + ">";
  return emit("stablehlo.compare", {a, b}, attrs, {out})[0];
}

Value Function::select(Value pred, Value onTrue, Value onFalse) {
  const TensorType out = infer::select(pred.type, onTrue.type, onFalse.type);
  return emit("stablehlo.select", {pred, onTrue, onFalse}, "", {out})[0];
}

Value Function::clamp(Value min, Value x, Value max) {
  const TensorType out = infer::clamp(min.type, x.type, max.type);
  return emit("stablehlo.clamp", {min, x, max}, "", {out})[0];
}

Value Function::convert(Value x, ElementType t) {
  const TensorType out = infer::convert(x.type, t);
  if (x.dtype() == ElementType::kPred && t != ElementType::kPred && runtime::isFloating(t)) {
    // Bool to float as the bits of 0.0 / 1.0, not stablehlo.convert: XLA
    // rewrites convert(b) * y (and convert(b) / scalar) into select(b, y, 0),
    // which gives 0 where IEEE arithmetic gives NaN (0 * inf, 0 / 0).
    if (runtime::isComplex(t)) {
      const ElementType part = t == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
      return convert(convert(x, part), t);
    }
    ElementType bits = ElementType::kU32;
    int64_t one = 0x3f800000;  // 1.0f
    if (t == ElementType::kF64) {
      bits = ElementType::kU64;
      one = 0x3ff0000000000000;
    } else if (t == ElementType::kF16) {
      bits = ElementType::kU16;
      one = 0x3c00;
    } else if (t == ElementType::kBF16) {
      bits = ElementType::kU16;
      one = 0x3f80;
    }
    Value b = emit("stablehlo.convert", {x}, "", {infer::convert(x.type, bits)})[0];
    return bitcastConvert(multiply(b, constantInt(one, bits, x.dims())), t);
  }
  return emit("stablehlo.convert", {x}, "", {out})[0];
}

Value Function::bitcastConvert(Value x, ElementType t) {
  return emit("stablehlo.bitcast_convert", {x}, "", {infer::bitcastConvert(x.type, t)})[0];
}

Value Function::reducePrecision(Value x, int32_t exponentBits, int32_t mantissaBits) {
  const TensorType out = infer::reducePrecision(x.type, exponentBits, mantissaBits);
  const std::string attrs = "exponent_bits = " + std::to_string(exponentBits) +
                            " : i32, mantissa_bits = " + std::to_string(mantissaBits) + " : i32";
  return emit("stablehlo.reduce_precision", {x}, attrs, {out})[0];
}

// ---- shape --------------------------------------------------------------------------

Value Function::broadcastInDim(Value x, std::vector<int64_t> outDims,
                               std::vector<int64_t> broadcastDimensions) {
  const TensorType out = infer::broadcastInDim(x.type, outDims, broadcastDimensions);
  return emit("stablehlo.broadcast_in_dim", {x},
              "broadcast_dimensions = " + i64ArrayAttr(broadcastDimensions), {out})[0];
}

Value Function::reshape(Value x, std::vector<int64_t> dims) {
  return emit("stablehlo.reshape", {x}, "", {infer::reshape(x.type, dims)})[0];
}

Value Function::transpose(Value x, std::vector<int64_t> perm) {
  const TensorType out = infer::transpose(x.type, perm);
  return emit("stablehlo.transpose", {x}, "permutation = " + i64ArrayAttr(perm), {out})[0];
}

Value Function::reverse(Value x, std::vector<int64_t> dims) {
  const TensorType out = infer::reverse(x.type, dims);
  return emit("stablehlo.reverse", {x}, "dimensions = " + i64ArrayAttr(dims), {out})[0];
}

Value Function::slice(Value x, std::vector<int64_t> start, std::vector<int64_t> limit,
                      std::vector<int64_t> strides) {
  strides = onesIfEmpty(std::move(strides), x.dims().size());
  const TensorType out = infer::slice(x.type, start, limit, strides);
  const std::string attrs = "start_indices = " + i64ArrayAttr(start) +
                            ", limit_indices = " + i64ArrayAttr(limit) +
                            ", strides = " + i64ArrayAttr(strides);
  return emit("stablehlo.slice", {x}, attrs, {out})[0];
}

Value Function::dynamicSlice(Value x, std::vector<Value> startIndices, std::vector<int64_t> sizes) {
  const TensorType out = infer::dynamicSlice(x.type, typesOf(startIndices), sizes);
  std::vector<Value> operands{x};
  operands.insert(operands.end(), startIndices.begin(), startIndices.end());
  return emit("stablehlo.dynamic_slice", operands, "slice_sizes = " + i64ArrayAttr(sizes),
              {out})[0];
}

Value Function::dynamicUpdateSlice(Value x, Value update, std::vector<Value> startIndices) {
  const TensorType out = infer::dynamicUpdateSlice(x.type, update.type, typesOf(startIndices));
  std::vector<Value> operands{x, update};
  operands.insert(operands.end(), startIndices.begin(), startIndices.end());
  return emit("stablehlo.dynamic_update_slice", operands, "", {out})[0];
}

Value Function::concatenate(std::vector<Value> xs, int64_t dim) {
  const TensorType out = infer::concatenate(typesOf(xs), dim);
  return emit("stablehlo.concatenate", xs, "dimension = " + std::to_string(dim) + " : i64",
              {out})[0];
}

Value Function::pad(Value x, Value padValue, std::vector<int64_t> lo, std::vector<int64_t> hi,
                    std::vector<int64_t> interior) {
  if (interior.empty()) interior.assign(x.dims().size(), 0);
  const TensorType out = infer::pad(x.type, padValue.type, lo, hi, interior);
  const std::string attrs = "edge_padding_low = " + i64ArrayAttr(lo) +
                            ", edge_padding_high = " + i64ArrayAttr(hi) +
                            ", interior_padding = " + i64ArrayAttr(interior);
  return emit("stablehlo.pad", {x, padValue}, attrs, {out})[0];
}

// ---- contractions ---------------------------------------------------------------------

Value Function::dotGeneral(Value lhs, Value rhs, const DotDims& dims,
                           std::optional<ElementType> resultType, Precision precision) {
  const TensorType out = infer::dotGeneral(lhs.type, rhs.type, dims, resultType);
  std::string attrs = "dot_dimension_numbers = " + dims.attr();
  if (precision != Precision::kDefault) attrs += ", " + precisionConfigAttr(precision);
  return emit("stablehlo.dot_general", {lhs, rhs}, attrs, {out})[0];
}

Value Function::convolution(Value lhs, Value rhs, const ConvDims& dims,
                            std::vector<int64_t> strides, std::vector<PadPair> padding,
                            std::vector<int64_t> lhsDilation, std::vector<int64_t> rhsDilation,
                            int64_t featureGroupCount, int64_t batchGroupCount,
                            std::optional<ElementType> resultType, Precision precision) {
  const size_t s = dims.inputSpatial.size();
  strides = onesIfEmpty(std::move(strides), s);
  padding = zerosIfEmpty(std::move(padding), s);
  lhsDilation = onesIfEmpty(std::move(lhsDilation), s);
  rhsDilation = onesIfEmpty(std::move(rhsDilation), s);
  const TensorType out =
      infer::convolution(lhs.type, rhs.type, dims, strides, padding, lhsDilation, rhsDilation,
                         featureGroupCount, batchGroupCount, resultType);
  std::string attrs =
      "window_strides = " + i64ArrayAttr(strides) + ", padding = " + paddingAttr(padding) +
      ", lhs_dilation = " + i64ArrayAttr(lhsDilation) +
      ", rhs_dilation = " + i64ArrayAttr(rhsDilation) + ", dimension_numbers = " + dims.attr() +
      ", feature_group_count = " + std::to_string(featureGroupCount) +
      " : i64, batch_group_count = " + std::to_string(batchGroupCount) + " : i64";
  if (precision != Precision::kDefault) attrs += ", " + precisionConfigAttr(precision);
  return emit("stablehlo.convolution", {lhs, rhs}, attrs, {out})[0];
}

// ---- ops with regions -------------------------------------------------------------------

std::vector<Value> Function::reduce(std::vector<Value> inputs, std::vector<Value> inits,
                                    std::vector<int64_t> dims, const RegionFn& body) {
  const std::string name = "stablehlo.reduce";
  const std::vector<TensorType> out = infer::reduce(typesOf(inputs), typesOf(inits), dims);
  std::vector<TensorType> args = scalarsOf(inits);
  const std::vector<TensorType> scalars = args;
  args.insert(args.end(), scalars.begin(), scalars.end());
  const std::string body_ = region(name, args, body, true, scalars, nullptr);
  std::vector<Value> operands = inputs;
  operands.insert(operands.end(), inits.begin(), inits.end());
  return emit(name, operands, "dimensions = " + i64ArrayAttr(dims), out, {body_});
}

Value Function::reduce(Value input, Value init, std::vector<int64_t> dims, BinaryOp combiner) {
  return reduce({input}, {init}, std::move(dims),
                [combiner](Function& r, const std::vector<Value>& a) -> std::vector<Value> {
                  return {r.binary(combiner, a[0], a[1])};
                })[0];
}

std::vector<Value> Function::reduceWindow(std::vector<Value> inputs, std::vector<Value> inits,
                                          std::vector<int64_t> windowDims,
                                          std::vector<int64_t> windowStrides,
                                          std::vector<int64_t> baseDilations,
                                          std::vector<int64_t> windowDilations,
                                          std::vector<PadPair> padding, const RegionFn& body) {
  const std::string name = "stablehlo.reduce_window";
  const size_t r = inputs.empty() ? 0 : inputs[0].dims().size();
  windowStrides = onesIfEmpty(std::move(windowStrides), r);
  baseDilations = onesIfEmpty(std::move(baseDilations), r);
  windowDilations = onesIfEmpty(std::move(windowDilations), r);
  padding = zerosIfEmpty(std::move(padding), r);
  const std::vector<TensorType> out =
      infer::reduceWindow(typesOf(inputs), typesOf(inits), windowDims, windowStrides, baseDilations,
                          windowDilations, padding);
  std::vector<TensorType> args = scalarsOf(inits);
  const std::vector<TensorType> scalars = args;
  args.insert(args.end(), scalars.begin(), scalars.end());
  const std::string body_ = region(name, args, body, true, scalars, nullptr);
  std::vector<Value> operands = inputs;
  operands.insert(operands.end(), inits.begin(), inits.end());
  const std::string attrs = "window_dimensions = " + i64ArrayAttr(windowDims) +
                            ", window_strides = " + i64ArrayAttr(windowStrides) +
                            ", base_dilations = " + i64ArrayAttr(baseDilations) +
                            ", window_dilations = " + i64ArrayAttr(windowDilations) +
                            ", padding = " + paddingAttr(padding);
  return emit(name, operands, attrs, out, {body_});
}

Value Function::gather(Value operand, Value indices, const GatherDims& dims,
                       std::vector<int64_t> sliceSizes, bool indicesAreSorted) {
  const TensorType out = infer::gather(operand.type, indices.type, dims, sliceSizes);
  const std::string attrs = "dimension_numbers = " + dims.attr() +
                            ", slice_sizes = " + i64ArrayAttr(sliceSizes) +
                            ", indices_are_sorted = " + boolAttr(indicesAreSorted);
  return emit("stablehlo.gather", {operand, indices}, attrs, {out})[0];
}

std::vector<Value> Function::scatter(std::vector<Value> inputs, Value indices,
                                     std::vector<Value> updates, const ScatterDims& dims,
                                     const RegionFn& body, bool indicesAreSorted,
                                     bool uniqueIndices) {
  const std::string name = "stablehlo.scatter";
  const std::vector<TensorType> out =
      infer::scatter(typesOf(inputs), indices.type, typesOf(updates), dims);
  std::vector<TensorType> args = scalarsOf(inputs);
  const std::vector<TensorType> scalars = args;
  args.insert(args.end(), scalars.begin(), scalars.end());
  const std::string body_ = region(name, args, body, true, scalars, nullptr);
  std::vector<Value> operands = inputs;
  operands.push_back(indices);
  operands.insert(operands.end(), updates.begin(), updates.end());
  const std::string attrs = "scatter_dimension_numbers = " + dims.attr() +
                            ", indices_are_sorted = " + boolAttr(indicesAreSorted) +
                            ", unique_indices = " + boolAttr(uniqueIndices);
  return emit(name, operands, attrs, out, {body_});
}

std::vector<Value> Function::sort(std::vector<Value> inputs, int64_t dim, bool isStable,
                                  const RegionFn& comparator) {
  const std::string name = "stablehlo.sort";
  if (!inputs.empty() && dim < 0) dim += inputs[0].rank();
  const std::vector<TensorType> out = infer::sort(typesOf(inputs), dim);
  std::vector<TensorType> args;
  for (const Value& v : inputs) {
    args.push_back(TensorType(v.dtype()));
    args.push_back(TensorType(v.dtype()));
  }
  const std::string body = region(name, args, comparator, true,
                                  std::vector<TensorType>{TensorType(ElementType::kPred)}, nullptr);
  const std::string attrs =
      "dimension = " + std::to_string(dim) + " : i64, is_stable = " + boolAttr(isStable);
  return emit(name, inputs, attrs, out, {body});
}

Value Function::selectAndScatter(Value operand, Value source, Value init,
                                 std::vector<int64_t> windowDims,
                                 std::vector<int64_t> windowStrides, std::vector<PadPair> padding,
                                 const RegionFn& select, const RegionFn& scatter) {
  const std::string name = "stablehlo.select_and_scatter";
  if (windowStrides.empty()) windowStrides = windowDims;
  padding = zerosIfEmpty(std::move(padding), operand.dims().size());
  const TensorType out = infer::selectAndScatter(operand.type, source.type, init.type, windowDims,
                                                 windowStrides, padding);
  const TensorType scalar(operand.dtype());
  const std::string selectBody =
      region(name, {scalar, scalar}, select, true,
             std::vector<TensorType>{TensorType(ElementType::kPred)}, nullptr);
  const std::string scatterBody =
      region(name, {scalar, scalar}, scatter, true, std::vector<TensorType>{scalar}, nullptr);
  const std::string attrs = "window_dimensions = " + i64ArrayAttr(windowDims) +
                            ", window_strides = " + i64ArrayAttr(windowStrides) +
                            ", padding = " + paddingAttr(padding);
  return emit(name, {operand, source, init}, attrs, {out}, {selectBody, scatterBody})[0];
}

std::vector<Value> Function::whileLoop(std::vector<Value> init, const RegionFn& cond,
                                       const RegionFn& body) {
  const std::string name = "stablehlo.while";
  for (const Value& v : init) use(v, name);
  const std::vector<TensorType> types = typesOf(init);
  const std::string condBody =
      region(name + " condition", types, cond, false,
             std::vector<TensorType>{TensorType(ElementType::kPred)}, nullptr);
  const std::string loopBody = region(name + " body", types, body, false, types, nullptr);
  return emit(name, init, "", types, {condBody, loopBody});
}

std::vector<Value> Function::ifElse(Value pred, const RegionFn& thenBranch,
                                    const RegionFn& elseBranch) {
  const std::string name = "stablehlo.if";
  use(pred, name);
  if (pred.type != TensorType(ElementType::kPred)) {
    throw std::invalid_argument(name + ": predicate must be tensor<i1>, got " + pred.type.str());
  }
  std::vector<TensorType> types;
  const std::string thenBody = region(name + " then", {}, thenBranch, false, std::nullopt, &types);
  const std::string elseBody = region(name + " else", {}, elseBranch, false, types, nullptr);
  return emit(name, {pred}, "", types, {thenBody, elseBody});
}

// ---- misc -----------------------------------------------------------------------------------

Value Function::fft(Value x, FftType type, std::vector<int64_t> fftLength) {
  const TensorType out = infer::fft(x.type, type, fftLength);
  const std::string attrs = "fft_type = #stablehlo<fft_type " + std::string(fftTypeName(type)) +
                            ">, fft_length = " + i64ArrayAttr(fftLength);
  return emit("stablehlo.fft", {x}, attrs, {out})[0];
}

Value Function::cholesky(Value a, bool lower) {
  const TensorType out = infer::cholesky(a.type);
  return emit("stablehlo.cholesky", {a}, std::string("lower = ") + (lower ? "true" : "false"),
              {out})[0];
}

Value Function::triangularSolve(Value a, Value b, bool leftSide, bool lower, bool unitDiagonal,
                                Transpose transposeA) {
  const TensorType out = infer::triangularSolve(a.type, b.type, leftSide);
  const char* t = transposeA == Transpose::kNo          ? "NO_TRANSPOSE"
                  : transposeA == Transpose::kTranspose ? "TRANSPOSE"
                                                        : "ADJOINT";
  auto flag = [](bool v) { return v ? std::string("true") : std::string("false"); };
  const std::string attrs = "left_side = " + flag(leftSide) + ", lower = " + flag(lower) +
                            ", unit_diagonal = " + flag(unitDiagonal) +
                            ", transpose_a = #stablehlo<transpose " + t + ">";
  return emit("stablehlo.triangular_solve", {a, b}, attrs, {out})[0];
}

std::vector<Value> Function::customCall(const std::string& target, std::vector<Value> operands,
                                        std::vector<TensorType> results,
                                        const std::string& backendConfig) {
  if (target.empty() || target.find('"') != std::string::npos) {
    throw std::invalid_argument("stablehlo.custom_call: bad target name '" + target + "'");
  }
  if (backendConfig.find('"') != std::string::npos ||
      backendConfig.find('\\') != std::string::npos) {
    throw std::invalid_argument("stablehlo.custom_call: backend_config must not hold quotes");
  }
  std::string attrs = "call_target_name = \"" + target + "\"";
  if (!backendConfig.empty()) attrs += ", backend_config = \"" + backendConfig + "\"";
  return emit("stablehlo.custom_call", operands, attrs, results);
}

std::pair<Value, Value> Function::rngBitGenerator(Value state, RngAlgorithm alg,
                                                  const TensorType& out) {
  const auto [stateType, outType] = infer::rngBitGenerator(state.type, alg, out);
  const std::string attrs =
      "rng_algorithm = #stablehlo<rng_algorithm " + std::string(rngAlgorithmName(alg)) + ">";
  const std::vector<Value> r =
      emit("stablehlo.rng_bit_generator", {state}, attrs, {stateType, outType});
  return {r[0], r[1]};
}

std::vector<Value> Function::optimizationBarrier(std::vector<Value> xs) {
  return emit("stablehlo.optimization_barrier", xs, "", typesOf(xs));
}

std::vector<Value> Function::call(const Function& callee, std::vector<Value> args) {
  const std::string name = "func.call @" + callee.name();
  if (callee.isRegion() || callee.module_ != module_) {
    throw std::invalid_argument(name + ": callee is not a function of this module");
  }
  if (&callee == root()) throw std::invalid_argument(name + ": recursive calls are not allowed");
  if (!callee.finished()) {
    throw std::invalid_argument(name +
                                ": callee has no ret() yet, so its result types are unknown");
  }
  if (typesOf(args) != callee.paramTypes()) {
    throw std::invalid_argument(name + ": expects arguments " + typesStr(callee.paramTypes()) +
                                ", got " + typesStr(args));
  }
  return emit("func.call", args, "callee = @" + callee.name(), callee.resultTypes());
}

void Function::ret(std::vector<Value> results) {
  if (isRegion()) {
    throw std::invalid_argument(
        "ret(): a region's results are the values its RegionFn returns; do not call ret()");
  }
  checkOpen("func.return");
  for (const Value& v : results) use(v, "func.return");
  std::vector<std::string> names;
  for (const Value& v : results) names.push_back(ref(v));
  ops_.push_back("\"func.return\"(" + join(names) + ") : " + typesStr(results) + " -> ()");
  resultTypes_ = typesOf(results);
  finished_ = true;
}

std::string Function::toText() const {
  if (isRegion()) throw std::invalid_argument("toText: not valid on a region");
  if (!finished_) {
    throw std::invalid_argument("hlo::Function @" + name_ + ": ret() was not called");
  }
  if (!rawText_.empty()) return rawText_;
  std::vector<std::string> args;
  std::vector<bool> outputTaken(resultTypes_.size(), false);
  for (int i = 0; i < numParams(); ++i) {
    std::string a = ref(params_[i]) + ": " + params_[i].type.str();
    if (aliasOutput_[i]) {
      const int out = *aliasOutput_[i];
      if (out >= static_cast<int>(resultTypes_.size()) || resultTypes_[out] != params_[i].type ||
          outputTaken[out]) {
        throw std::invalid_argument("hlo::Function @" + name_ + ": parameter " + std::to_string(i) +
                                    " (" + params_[i].type.str() + ") cannot alias output " +
                                    std::to_string(out) + " (results " + typesStr(resultTypes_) +
                                    ", each aliased at most once)");
      }
      outputTaken[out] = true;
      a += " {tf.aliasing_output = " + std::to_string(out) + " : i32}";
    } else if (donor_[i]) {
      a += " {jax.buffer_donor = true}";
    }
    args.push_back(std::move(a));
  }
  std::string s = "  func.func " + std::string(isPublic_ ? "public" : "private") + " @" + name_ +
                  "(" + join(args) + ") -> " + typesStr(resultTypes_) + " {\n";
  for (const std::string& op : ops_) s += indent(op, 4);
  return s + "  }\n";
}

}  // namespace torchtpu::hlo
