// Shape and copy ops that make new tensors (views are not lowered here):
// cat (1-d empty tensors skipped, as PyTorch's legacy rule), stack,
// constant_pad_nd (negative pads crop), flip, roll, tril/triu, repeat,
// expand_copy, clone, _to_copy (a dtype conversion on the device) and
// channel_shuffle.
#include <algorithm>

#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

std::vector<Value> lowerCat(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const int64_t dim = normDim(c.i("dim"), out.rank());
  std::vector<Value> parts;
  for (const Value& v : c.tensors("tensors")) {
    if (v.t().numElements() == 0) continue;  // contributes nothing (and [0] is skipped)
    if (v.rank() != out.rank()) c.fail("tensors must have the same number of dimensions");
    parts.push_back(castTo(fn, v, out.dtype));
  }
  if (parts.empty()) return {constantLike(fn, 0, out.dtype, out.dims)};
  return {parts.size() == 1 ? parts[0] : fn.concatenate(parts, dim)};
}

std::vector<Value> lowerStack(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const int64_t dim = normDim(c.i("dim"), out.rank());
  std::vector<Value> parts;
  for (const Value& v : c.tensors("tensors")) {
    std::vector<int64_t> dims = v.dims();
    dims.insert(dims.begin() + dim, 1);
    parts.push_back(fn.reshape(castTo(fn, v, out.dtype), dims));
  }
  if (parts.empty()) c.fail("stack expects a non-empty list");
  return {parts.size() == 1 ? parts[0] : fn.concatenate(parts, dim)};
}

// pad = (last_lo, last_hi, prev_lo, prev_hi, ...); negative values remove.
std::vector<Value> lowerConstantPadNd(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  const std::vector<int64_t> pad = c.ints("pad");
  const int64_t r = x.rank();
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size() / 2) > r) c.fail("bad pad length");
  std::vector<int64_t> lo(r, 0), hi(r, 0);
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    lo[r - 1 - k] = pad[2 * k];
    hi[r - 1 - k] = pad[2 * k + 1];
  }
  if (x.t().numElements() == 0) {  // nothing to pad: all value (or empty)
    return {fit(fn, c.scalar("value"), x.dtype(), c.result().dims)};
  }
  Value value = castTo(fn, c.scalar("value"), x.dtype());
  return {fn.pad(x, value, lo, hi)};
}

std::vector<Value> lowerFlip(LowerCtx& c) {
  Value x = c.tensor("self");
  std::vector<int64_t> dims = normDims(c.ints("dims"), x.rank(), false);
  if (dims.empty() || x.rank() == 0) return {x};
  return {c.fn.reverse(x, dims)};
}

// roll: element i moves to (i + shift) mod n along each dim; without dims,
// the flattened tensor is rolled.
std::vector<Value> lowerRoll(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  const std::vector<int64_t> shifts = c.ints("shifts");
  std::vector<int64_t> dims = c.ints("dims");
  const std::vector<int64_t> shape = x.dims();
  if (x.t().numElements() == 0) return {x};
  if (dims.empty()) {
    if (shifts.size() != 1) c.fail("without dims, shifts must have one element");
    x = fn.reshape(x, {x.t().numElements()});
    dims = {0};
  }
  if (dims.size() != shifts.size()) c.fail("shifts and dims must have the same length");
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t d = normDim(dims[k], x.rank());
    const int64_t n = x.dims()[d];
    const int64_t s = ((shifts[k] % n) + n) % n;
    if (s == 0) continue;
    std::vector<int64_t> start(x.rank(), 0), mid = x.dims(), limit = x.dims();
    mid[d] = n - s;
    Value head = fn.slice(x, start, mid);  // [0, n - s)
    start[d] = n - s;
    Value tail = fn.slice(x, start, limit);  // [n - s, n)
    x = fn.concatenate({tail, head}, d);
  }
  return {fn.reshape(x, shape)};
}

// tril keeps col - row <= diagonal; triu keeps col - row >= diagonal.
std::vector<Value> triangle(LowerCtx& c, bool lower) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (x.rank() < 2) c.fail("expects a tensor with at least 2 dimensions");
  const int64_t r = x.rank();
  const TensorType idx(ElementType::kS64, x.dims());
  Value diff = fn.subtract(fn.iota(idx, r - 1), fn.iota(idx, r - 2));
  Value diag = fn.constantInt(c.i("diagonal"), ElementType::kS64, x.dims());
  Value keep =
      fn.compare(diff, diag, lower ? hlo::ComparisonDirection::kLe : hlo::ComparisonDirection::kGe);
  return {fn.select(keep, x, constantLike(fn, 0, x.dtype(), x.dims()))};
}

std::vector<Value> lowerTril(LowerCtx& c) { return triangle(c, true); }
std::vector<Value> lowerTriu(LowerCtx& c) { return triangle(c, false); }

// repeat: x (left-padded with 1s to len(repeats) dims) tiled: broadcast to
// (r0, d0, r1, d1, ...) and merge each pair.
std::vector<Value> lowerRepeat(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  const std::vector<int64_t> reps = c.ints("repeats");
  const int64_t n = static_cast<int64_t>(reps.size());
  if (n < x.rank()) c.fail("repeats must cover every dimension");
  std::vector<int64_t> dims(n - x.rank(), 1);
  dims.insert(dims.end(), x.dims().begin(), x.dims().end());
  if (c.result().numElements() == 0) return {constantLike(fn, 0, x.dtype(), c.result().dims)};
  x = fn.reshape(x, dims);
  std::vector<int64_t> wide, map, merged;
  for (int64_t k = 0; k < n; ++k) {
    wide.push_back(reps[k]);
    wide.push_back(dims[k]);
    map.push_back(2 * k + 1);
    merged.push_back(reps[k] * dims[k]);
  }
  return {fn.reshape(fn.broadcastInDim(x, wide, map), merged)};
}

std::vector<Value> lowerExpandCopy(LowerCtx& c) {
  return {broadcastTo(c.fn, c.tensor("self"), c.result().dims)};
}

// clone / _to_copy on the device: the values, converted to the result dtype
// (memory formats are strides, which the bridge owns).
std::vector<Value> lowerClone(LowerCtx& c) {
  const TensorType& out = c.result();
  return {fit(c.fn, c.tensor("self"), out.dtype, out.dims)};
}

const Registrar kCat({"aten::cat", "aten::cat.out"}, lowerCat);
const Registrar kStack({"aten::stack", "aten::stack.out"}, lowerStack);
const Registrar kPad({"aten::constant_pad_nd", "aten::constant_pad_nd.out"}, lowerConstantPadNd);
const Registrar kFlip({"aten::flip", "aten::flip.out"}, lowerFlip);
const Registrar kRoll({"aten::roll", "aten::roll.out"}, lowerRoll);
const Registrar kTril({"aten::tril", "aten::tril.out", "aten::tril_"}, lowerTril);
const Registrar kTriu({"aten::triu", "aten::triu.out", "aten::triu_"}, lowerTriu);
const Registrar kRepeat({"aten::repeat", "aten::repeat.out"}, lowerRepeat);
const Registrar kExpandCopy({"aten::expand_copy", "aten::expand_copy.out"}, lowerExpandCopy);
const Registrar kClone({"aten::clone", "aten::clone.out", "aten::_to_copy", "aten::_to_copy.out"},
                       lowerClone);

// channel_shuffle: (N, C, *) -> (N, g, C/g, *) -> swap -> (N, C, *).
const Registrar kChannelShuffle({"aten::channel_shuffle", "aten::native_channel_shuffle"},
                                [](LowerCtx& c) -> std::vector<Value> {
                                  Function& fn = c.fn;
                                  Value x = c.tensor("self");
                                  const int64_t g = c.i("groups");
                                  if (x.rank() < 2 || g <= 0 || x.dims()[1] % g != 0) {
                                    c.fail("channel_shuffle: channels must divide into groups");
                                  }
                                  std::vector<int64_t> d = {x.dims()[0], g, x.dims()[1] / g};
                                  std::vector<int64_t> perm = {0, 2, 1};
                                  for (int64_t i = 2; i < x.rank(); ++i) {
                                    d.push_back(x.dims()[i]);
                                    perm.push_back(i + 1);
                                  }
                                  Value y = fn.transpose(fn.reshape(x, d), perm);
                                  return {fn.reshape(y, x.dims())};
                                });

}  // namespace
}  // namespace torchtpu::lower
