// Gather/scatter-style indexing: index_select, gather, scatter (src, value,
// reduce), scatter_add, scatter_reduce, index_add, advanced indexing
// (index.Tensor) and index_put (_index_put_impl_), masked_scatter.
//
// Semantics follow PyTorch: negative indices wrap for advanced indexing;
// several index tensors broadcast together, and their result dims replace the
// indexed dims in place when those are adjacent, else they come first. Bool
// masks as indices give data-dependent shapes and are left to the CPU, except
// for index_put with a single mask and a one-element value (x[mask] = v),
// which is a select. Out-of-range indices are clamped by the device; each op
// declares PyTorch's range check as a device-side check, which
// launch_blocking programs compute and raise.
#include <algorithm>
#include <climits>
#include <cmath>

#include "lower/core/common.h"
#include "lower/core/device_checks.h"

namespace torchtpu::lower {
namespace {

using Error = DeviceCheck::Error;
using hlo::GatherDims;
using hlo::ScatterDims;

using Combiner = std::function<Value(Function&, Value, Value)>;

hlo::RegionFn combinerBody(Combiner f) {
  return [f](Function& r, const std::vector<Value>& a) {
    return std::vector<Value>{f(r, a[0], a[1])};
  };
}

Value replaceOp(Function&, Value, Value b) { return b; }
Value addOp(Function& r, Value a, Value b) {
  return a.dtype() == ElementType::kPred ? r.binary(hlo::BinaryOp::kOr, a, b) : r.add(a, b);
}
Value mulOp(Function& r, Value a, Value b) {
  return a.dtype() == ElementType::kPred ? r.binary(hlo::BinaryOp::kAnd, a, b) : r.multiply(a, b);
}
Value maxOp(Function& r, Value a, Value b) { return r.maximum(a, b); }
Value minOp(Function& r, Value a, Value b) { return r.minimum(a, b); }

Value toIndex(Function& fn, const LowerCtx& c, Value idx) {
  if (idx.dtype() == ElementType::kPred || !runtime::isInteger(idx.dtype())) {
    c.fail("index tensors of type " + std::string(runtime::elementTypeName(idx.dtype())) +
           " are not lowered");
  }
  return castTo(fn, idx, ElementType::kS64);
}

// Index vectors (index.dims..., rank) addressing self[..., index, ...] along
// `dim` and the index's own position along every other dim.
Value alongDimIndices(Function& fn, Value index, int64_t dim, int64_t rank) {
  std::vector<int64_t> withVec = index.dims();
  withVec.push_back(1);
  std::vector<Value> parts;
  for (int64_t d = 0; d < rank; ++d) {
    Value part = d == dim ? index : fn.iota(TensorType(ElementType::kS64, index.dims()), d);
    parts.push_back(fn.reshape(part, withVec));
  }
  return parts.size() == 1 ? parts[0] : fn.concatenate(parts, rank);
}

std::vector<int64_t> iotaList(int64_t n) {
  std::vector<int64_t> v;
  for (int64_t k = 0; k < n; ++k) v.push_back(k);
  return v;
}

// gather / scatter's check: every index in [0, size) (negative ones raise).
void checkAlongDim(LowerCtx& c, const Value& index, int64_t dim, int64_t size) {
  checkIndexRange(c, index, 0, size, Error::kRuntime, outOfBoundsMessage(dim, size));
}

// A 0-d tensor is handled as a 1-element vector.
Value atLeast1d(Function& fn, Value v) { return v.rank() == 0 ? fn.reshape(v, {1}) : v; }

// ---- index_select / gather ------------------------------------------------------

std::vector<Value> lowerIndexSelect(LowerCtx& c) {
  Function& fn = c.fn;
  const bool multiDim = c.tensor("self").rank() > 1;
  Value self = atLeast1d(fn, c.tensor("self"));
  Value index = toIndex(fn, c, c.tensor("index"));
  const int64_t r = self.rank();
  const int64_t dim = normDim(c.i("dim"), r);
  const int64_t n = index.t().numElements();
  const int64_t axis = self.dims()[dim];
  const bool empty = self.t().numElements() == 0;
  // The CPU kernel's bounds checks: for a tensor of two or more dims that is
  // empty, or along dim 1, a RuntimeError with the index; else IndexError.
  if (multiDim && (empty || dim == 1)) {
    checkIndexRange(
        c, index, 0, axis, Error::kRuntime,
        "INDICES element is out of DATA bounds, id={} axis_dim=" + std::to_string(axis));
  } else {
    checkIndexRange(c, index, 0, axis, Error::kIndex, "index out of range in self");
  }
  if (n == 0 || empty) return {constantLike(fn, 0, self.dtype(), c.result().dims)};
  index = fn.reshape(index, {n, 1});
  // gather puts the index's batch dim first and the slice dims after it; the
  // batch dim is moved to `dim` afterwards.
  GatherDims g;
  for (int64_t d = 1; d < r; ++d) g.offsetDims.push_back(d);
  g.collapsedSliceDims = {dim};
  g.startIndexMap = {dim};
  g.indexVectorDim = 1;
  std::vector<int64_t> sizes = self.dims();
  sizes[dim] = 1;
  Value out = fn.gather(self, index, g, sizes);
  if (dim != 0) {
    std::vector<int64_t> perm;
    for (int64_t d = 1; d <= dim; ++d) perm.push_back(d);
    perm.push_back(0);
    for (int64_t d = dim + 1; d < r; ++d) perm.push_back(d);
    out = fn.transpose(out, perm);
  }
  return {out};
}

std::vector<Value> lowerGather(LowerCtx& c) {
  Function& fn = c.fn;
  Value self = atLeast1d(fn, c.tensor("self"));
  Value index = atLeast1d(fn, toIndex(fn, c, c.tensor("index")));
  const int64_t r = self.rank();
  // An empty index may have any rank (PyTorch checks ranks only when it reads).
  if (index.t().numElements() == 0) return {constantLike(fn, 0, self.dtype(), c.result().dims)};
  if (index.rank() != r) c.fail("index and self must have the same number of dimensions");
  const int64_t dim = normDim(c.i("dim"), r);
  checkAlongDim(c, index, dim, self.dims()[dim]);
  GatherDims g;
  g.collapsedSliceDims = iotaList(r);
  g.startIndexMap = iotaList(r);
  g.indexVectorDim = r;
  return {fn.gather(self, alongDimIndices(fn, index, dim, r), g, std::vector<int64_t>(r, 1))};
}

// ---- scatter family -------------------------------------------------------------

// self with `updates` (of index's shape) combined at self[..., index, ...].
Value scatterAlongDim(Function& fn, Value self, Value index, int64_t dim, Value updates,
                      const Combiner& f) {
  const int64_t r = self.rank();
  ScatterDims s;
  s.insertedWindowDims = iotaList(r);
  s.scatterDimsToOperandDims = iotaList(r);
  s.indexVectorDim = r;
  return fn.scatter({self}, alongDimIndices(fn, index, dim, r), {updates}, s, combinerBody(f))[0];
}

Combiner reduceCombiner(const LowerCtx& c, const std::string& reduce) {
  if (reduce == "add" || reduce == "sum") return addOp;
  if (reduce == "multiply" || reduce == "prod") return mulOp;
  if (reduce == "amax") return maxOp;
  if (reduce == "amin") return minOp;
  c.fail("reduce='" + reduce + "' is not lowered");
}

// The updates for scatter: src cut to index's shape, or the value broadcast.
Value scatterUpdates(LowerCtx& c, const Value& index, ElementType t) {
  Function& fn = c.fn;
  if (c.has("src")) {
    Value src = atLeast1d(fn, c.tensor("src"));
    if (src.rank() != index.rank()) c.fail("src and index must have the same rank");
    if (src.dims() != index.dims())
      src = fn.slice(src, std::vector<int64_t>(src.rank(), 0), index.dims());
    return castTo(fn, src, t);
  }
  return fit(fn, c.scalar("value"), t, index.dims());
}

std::vector<Value> lowerScatter(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  Value self0 = c.tensor("self");
  Value self = atLeast1d(fn, castTo(fn, self0, out.dtype));
  Value index = atLeast1d(fn, toIndex(fn, c, c.tensor("index")));
  const int64_t dim = normDim(c.i("dim"), self.rank());
  if (index.t().numElements() == 0) return {castTo(fn, self0, out.dtype)};
  if (index.rank() != self.rank()) c.fail("index and self must have the same number of dimensions");
  checkAlongDim(c, index, dim, self.dims()[dim]);
  Combiner f = replaceOp;
  if (c.op().find("scatter_add") != std::string::npos) {
    f = addOp;
  } else if (c.has("reduce")) {
    f = reduceCombiner(c, c.str("reduce"));
  }
  Value updates = scatterUpdates(c, index, self.dtype());
  return {scatterAlongDim(fn, self, index, dim, updates, f)};
}

// scatter_reduce.two: sum/prod/mean/amax/amin, with or without self's values.
std::vector<Value> lowerScatterReduce(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const ElementType t = out.dtype;
  Value self = atLeast1d(fn, castTo(fn, c.tensor("self"), t));
  Value index = atLeast1d(fn, toIndex(fn, c, c.tensor("index")));
  const int64_t dim = normDim(c.i("dim"), self.rank());
  if (index.t().numElements() == 0) return {castTo(fn, c.tensor("self"), t)};
  if (index.rank() != self.rank()) c.fail("index and self must have the same number of dimensions");
  checkAlongDim(c, index, dim, self.dims()[dim]);
  const std::string reduce = c.str("reduce");
  const bool includeSelf = c.b("include_self");
  Value updates = scatterUpdates(c, index, t);
  const bool mean = reduce == "mean";
  Combiner f = mean ? Combiner(addOp) : reduceCombiner(c, reduce);
  Value base = self;
  Value touched;
  if (!includeSelf || mean) {
    Value none = constantLike(fn, 0, ElementType::kPred, self.dims());
    touched = scatterAlongDim(fn, none, index, dim,
                              constantLike(fn, 1, ElementType::kPred, index.dims()), replaceOp);
  }
  if (!includeSelf) {
    // Positions that receive values start from the reduction's identity.
    double identity = 0;
    if (reduce == "prod") identity = 1;
    Value idv;
    if (reduce == "amax" || reduce == "amin") {
      const bool isMax = reduce == "amax";
      if (runtime::isFloating(t)) {
        idv = fn.constant(isMax ? -INFINITY : INFINITY, t, self.dims());
      } else if (runtime::isInteger(t) && t != ElementType::kU64) {
        const int bits = static_cast<int>(runtime::elementByteSize(t)) * 8;
        const bool u = runtime::isUnsigned(t);
        const int64_t lo = u ? 0 : (bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1)));
        const int64_t hi = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - (u ? 0 : 1))) - 1;
        idv = fn.constantInt(isMax ? lo : hi, t, self.dims());
      } else {
        c.fail("amax/amin without include_self is not lowered for this dtype");
      }
    } else {
      idv = constantLike(fn, identity, t, self.dims());
    }
    base = fn.select(touched, idv, self);
  }
  Value r = scatterAlongDim(fn, base, index, dim, updates, f);
  if (mean) {
    Value counts = scatterAlongDim(fn, constantLike(fn, includeSelf ? 1 : 0, t, self.dims()), index,
                                   dim, constantLike(fn, 1, t, index.dims()), addOp);
    Value safe = fn.maximum(counts, constantLike(fn, 1, t, self.dims()));
    Value q;
    if (runtime::isFloating(t) || runtime::isComplex(t)) {
      q = fn.divide(r, safe);
    } else {  // floor division for integers
      q = fn.divide(r, safe);
      Value rem = fn.binary(hlo::BinaryOp::kRemainder, r, safe);
      Value zero = constantLike(fn, 0, t, self.dims());
      Value adjust =
          fn.binary(hlo::BinaryOp::kAnd, fn.compare(rem, zero, hlo::ComparisonDirection::kNe),
                    fn.compare(rem, zero, hlo::ComparisonDirection::kLt));
      q = fn.select(adjust, fn.subtract(q, constantLike(fn, 1, t, self.dims())), q);
    }
    r = fn.select(touched, q, r);
  }
  return {r};
}

// index_add: self[..., index[i], ...] += alpha * source[..., i, ...].
std::vector<Value> lowerIndexAdd(LowerCtx& c) {
  Function& fn = c.fn;
  const ElementType t = c.result().dtype;
  Value self = atLeast1d(fn, castTo(fn, c.tensor("self"), t));
  Value source = atLeast1d(fn, castTo(fn, c.tensor("source"), t));
  Value index = toIndex(fn, c, c.tensor("index"));
  const int64_t r = self.rank();
  const int64_t dim = normDim(c.i("dim"), r);
  const int64_t n = index.t().numElements();
  if (n == 0) return {self};
  if (source.rank() != r) c.fail("source and self must have the same rank");
  checkAlongDim(c, index, dim, self.dims()[dim]);
  source = fn.multiply(source, fit(fn, c.scalar("alpha"), t, source.dims()));
  ScatterDims s;
  for (int64_t d = 0; d < r; ++d) {
    if (d != dim) s.updateWindowDims.push_back(d);
  }
  s.insertedWindowDims = {dim};
  s.scatterDimsToOperandDims = {dim};
  s.indexVectorDim = 1;
  return {fn.scatter({self}, fn.reshape(index, {n, 1}), {source}, s, combinerBody(addOp))[0]};
}

// ---- advanced indexing -------------------------------------------------------------

// How self[indices] is laid out: which dims are indexed, the broadcast index
// shape, and where the non-indexed dims land in the result.
struct Advanced {
  std::vector<int64_t> indexedDims;
  std::vector<Value> indices;  // s64, wrapped, broadcast to `batch`
  std::vector<int64_t> batch;
  std::vector<int64_t> resultDims;
  std::vector<int64_t> offsetDims;  // result positions of the non-indexed dims
  Value vectors;                    // (batch..., indexedDims.size())
};

Advanced advanced(LowerCtx& c, const Value& self, const std::vector<std::optional<Value>>& list) {
  Function& fn = c.fn;
  Advanced a;
  const int64_t r = self.rank();
  if (static_cast<int64_t>(list.size()) > r) c.fail("too many indices");
  std::vector<std::vector<int64_t>> shapes;
  for (size_t k = 0; k < list.size(); ++k) {
    if (!list[k]) continue;
    a.indexedDims.push_back(static_cast<int64_t>(k));
    a.indices.push_back(toIndex(fn, c, *list[k]));
    shapes.push_back(list[k]->dims());
  }
  if (a.indices.empty()) c.fail("no index tensors");
  a.batch = broadcastShapes(shapes);
  std::vector<int64_t> withVec = a.batch;
  withVec.push_back(1);
  std::vector<Value> parts;
  for (size_t k = 0; k < a.indices.size(); ++k) {
    const int64_t size = self.dims()[a.indexedDims[k]];
    Value idx = broadcastTo(fn, a.indices[k], a.batch);
    Value wrapped = fn.add(idx, fn.constantInt(size, ElementType::kS64, a.batch));
    Value neg = fn.compare(idx, fn.constantInt(0, ElementType::kS64, a.batch),
                           hlo::ComparisonDirection::kLt);
    idx = fn.select(neg, wrapped, idx);
    a.indices[k] = idx;
    parts.push_back(fn.reshape(idx, withVec));
  }
  a.vectors =
      parts.size() == 1 ? parts[0] : fn.concatenate(parts, static_cast<int64_t>(a.batch.size()));
  bool adjacent = true;
  for (size_t k = 1; k < a.indexedDims.size(); ++k) {
    adjacent = adjacent && a.indexedDims[k] == a.indexedDims[k - 1] + 1;
  }
  const int64_t nb = static_cast<int64_t>(a.batch.size());
  const int64_t first = adjacent ? a.indexedDims[0] : 0;
  // Non-indexed dims before the batch (adjacent case), the batch, the rest.
  int64_t pos = 0;
  for (int64_t d = 0; d < first; ++d) {
    a.offsetDims.push_back(pos++);
    a.resultDims.push_back(self.dims()[d]);
  }
  a.resultDims.insert(a.resultDims.end(), a.batch.begin(), a.batch.end());
  pos += nb;
  for (int64_t d = first; d < r; ++d) {
    if (std::find(a.indexedDims.begin(), a.indexedDims.end(), d) != a.indexedDims.end()) continue;
    a.offsetDims.push_back(pos++);
    a.resultDims.push_back(self.dims()[d]);
  }
  // Each index tensor in [-size, size) of its dim (checked where there is
  // something to read or write, as PyTorch's kernel does).
  int64_t count = 1;
  for (int64_t d : a.resultDims) count *= d;
  for (size_t k = 0; count > 0 && k < list.size(); ++k) {
    if (!list[k]) continue;
    const int64_t size = self.dims()[k];
    checkIndexRange(c, *list[k], -size, size, Error::kIndex,
                    outOfBoundsMessage(static_cast<int64_t>(k), size));
  }
  return a;
}

bool hasMask(const std::vector<std::optional<Value>>& list) {
  for (const auto& v : list) {
    if (v && (v->dtype() == ElementType::kPred || v->dtype() == ElementType::kU8)) return true;
  }
  return false;
}

std::vector<Value> lowerIndex(LowerCtx& c) {
  Function& fn = c.fn;
  Value self = c.tensor("self");
  auto list = c.optTensors("indices");
  if (hasMask(list)) c.fail("boolean mask indices give a data-dependent shape");
  Advanced a = advanced(c, self, list);
  for (int64_t d : a.resultDims) {
    if (d == 0) return {constantLike(fn, 0, self.dtype(), a.resultDims)};
  }
  GatherDims g;
  g.offsetDims = a.offsetDims;
  g.collapsedSliceDims = a.indexedDims;
  g.startIndexMap = a.indexedDims;
  g.indexVectorDim = static_cast<int64_t>(a.batch.size());
  std::vector<int64_t> sizes = self.dims();
  for (int64_t d : a.indexedDims) sizes[d] = 1;
  return {fn.gather(self, a.vectors, g, sizes)};
}

// x[mask] = v (or += v) for one mask over consecutive dims and a one-element v.
std::optional<Value> maskPut(LowerCtx& c, Value self, const std::vector<std::optional<Value>>& list,
                             Value values, bool accumulate) {
  Function& fn = c.fn;
  int64_t at = -1;
  for (size_t k = 0; k < list.size(); ++k) {
    if (!list[k]) continue;
    if (at >= 0) return std::nullopt;
    at = static_cast<int64_t>(k);
  }
  if (at < 0 || values.t().numElements() != 1) return std::nullopt;
  Value mask = *list[at];
  if (mask.dtype() != ElementType::kPred) {
    mask = fn.compare(mask, constantLike(fn, 0, mask.dtype(), mask.dims()),
                      hlo::ComparisonDirection::kNe);
  }
  if (at + mask.rank() > self.rank()) return std::nullopt;
  for (int64_t d = 0; d < mask.rank(); ++d) {
    if (mask.dims()[d] != self.dims()[at + d]) return std::nullopt;
  }
  std::vector<int64_t> map;
  for (int64_t d = 0; d < mask.rank(); ++d) map.push_back(at + d);
  Value m = fn.broadcastInDim(mask, self.dims(), map);
  Value v = fn.broadcastInDim(fn.reshape(castTo(fn, values, self.dtype()), {}), self.dims(), {});
  if (accumulate) v = addOp(fn, self, v);
  return fn.select(m, v, self);
}

std::vector<Value> lowerIndexPut(LowerCtx& c) {
  Function& fn = c.fn;
  const ElementType t = c.result().dtype;
  Value self = castTo(fn, c.tensor("self"), t);
  auto list = c.optTensors("indices");
  Value values = c.tensor("values");
  const bool accumulate = c.b("accumulate");
  if (hasMask(list)) {
    if (auto r = maskPut(c, self, list, values, accumulate)) return {*r};
    c.fail("boolean mask indices are lowered only for a single mask and a one-element value");
  }
  Advanced a = advanced(c, self, list);
  for (int64_t d : a.resultDims) {
    if (d == 0) return {self};
  }
  Value updates = fit(fn, values, t, a.resultDims);
  ScatterDims s;
  s.updateWindowDims = a.offsetDims;
  s.insertedWindowDims = a.indexedDims;
  s.scatterDimsToOperandDims = a.indexedDims;
  s.indexVectorDim = static_cast<int64_t>(a.batch.size());
  Combiner f = accumulate ? Combiner(addOp) : Combiner(replaceOp);
  return {fn.scatter({self}, a.vectors, {updates}, s, combinerBody(f))[0]};
}

// masked_scatter: the k-th true position of the mask (row-major) takes source's
// k-th element. The position of each element in source is a prefix count.
std::vector<Value> lowerMaskedScatter(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  Value self = fit(fn, c.tensor("self"), out.dtype, out.dims);
  Value mask = c.tensor("mask");
  if (mask.dtype() != ElementType::kPred) c.fail("mask must be bool");
  mask = broadcastTo(fn, mask, out.dims);
  const int64_t n = out.numElements();
  Value source = c.tensor("source");
  const int64_t ns = source.t().numElements();
  if (n == 0) return {self};
  if (ns == 0) c.fail("empty source");
  Value flatMask = fn.reshape(mask, {n});
  Value ones = fn.convert(flatMask, ElementType::kS64);
  // Inclusive prefix sum by a window covering everything before each element.
  Value prefix = fn.reduceWindow({ones}, {fn.constantInt(0, ElementType::kS64)}, {n}, {1}, {}, {},
                                 {{n - 1, 0}}, [](Function& r, const std::vector<Value>& v) {
                                   return std::vector<Value>{r.add(v[0], v[1])};
                                 })[0];
  Value pos = fn.subtract(prefix, fn.constantInt(1, ElementType::kS64, {n}));
  pos = fn.clamp(fn.constantInt(0, ElementType::kS64), pos,
                 fn.constantInt(ns - 1, ElementType::kS64));
  GatherDims g;
  g.collapsedSliceDims = {0};
  g.startIndexMap = {0};
  g.indexVectorDim = 1;
  Value flatSource = castTo(fn, fn.reshape(source, {ns}), out.dtype);
  Value picked = fn.gather(flatSource, fn.reshape(pos, {n, 1}), g, {1});
  Value r = fn.select(flatMask, picked, fn.reshape(self, {n}));
  return {fn.reshape(r, out.dims)};
}

const Registrar kIndexSelect({"aten::index_select", "aten::index_select.out"}, lowerIndexSelect);
const Registrar kGather({"aten::gather", "aten::gather.out"}, lowerGather);
const Registrar kScatter({"aten::scatter.src", "aten::scatter.value", "aten::scatter.reduce",
                          "aten::scatter.value_reduce", "aten::scatter.src_out",
                          "aten::scatter.value_out", "aten::scatter.reduce_out",
                          "aten::scatter.value_reduce_out", "aten::scatter_.src",
                          "aten::scatter_.value", "aten::scatter_.reduce",
                          "aten::scatter_.value_reduce", "aten::scatter_add",
                          "aten::scatter_add.out", "aten::scatter_add_"},
                         lowerScatter);
const Registrar kScatterReduce({"aten::scatter_reduce.two", "aten::scatter_reduce.two_out",
                                "aten::scatter_reduce_.two"},
                               lowerScatterReduce);
const Registrar kIndexAdd({"aten::index_add", "aten::index_add.out", "aten::index_add_"},
                          lowerIndexAdd);
const Registrar kIndex({"aten::index.Tensor", "aten::index.Tensor_out",
                        "aten::index.Tensor_hacked_twin"},
                       lowerIndex);
const Registrar kIndexPut({"aten::index_put", "aten::index_put.out", "aten::index_put_",
                           "aten::index_put.hacked_twin", "aten::index_put_.hacked_twin",
                           "aten::_index_put_impl", "aten::_index_put_impl.out",
                           "aten::_index_put_impl_", "aten::_index_put_impl_.hacked_twin"},
                          lowerIndexPut);
const Registrar kMaskedScatter({"aten::masked_scatter", "aten::masked_scatter.out",
                                "aten::masked_scatter_"},
                               lowerMaskedScatter);

}  // namespace
}  // namespace torchtpu::lower
