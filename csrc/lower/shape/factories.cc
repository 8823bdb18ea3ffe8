// Factories that compute their values on the device: arange/range (start +
// i * step, in f64 for floating results and i64 for integer ones, as
// PyTorch's CPU kernels accumulate), linspace (PyTorch's two-sided formula,
// which hits both ends exactly), eye and full. The result size comes from
// PyTorch's meta functions.
#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

// A number argument as a 0-d value: the bridge passes the numbers of these
// factories as static ints/floats (so each range compiles to constants), or
// as runtime scalars.
Value number(const LowerCtx& c, const char* name) {
  try {
    return c.fn.constantInt(c.i(name), ElementType::kS64);
  } catch (const LoweringError&) {
  }
  try {
    return c.fn.constant(c.d(name), ElementType::kF64);
  } catch (const LoweringError&) {
  }
  return c.scalar(name);
}

Value scalarOr(const LowerCtx& c, const char* name, double fallback) {
  if (c.has(name) && !c.isNone(name)) return number(c, name);
  return c.fn.constant(fallback, ElementType::kF64);
}

std::vector<Value> lowerArange(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  if (out.rank() != 1) c.fail("expects a 1-d result");
  const ElementType ct = runtime::isFloating(out.dtype) ? ElementType::kF64 : ElementType::kS64;
  if (!runtime::isFloating(out.dtype) && !runtime::isInteger(out.dtype))
    c.fail("unsupported dtype");
  Value start = castTo(fn, scalarOr(c, "start", 0), ct);
  Value step = castTo(fn, scalarOr(c, "step", 1), ct);
  Value i = fn.iota(TensorType(ct, out.dims), 0);
  Value r = fn.add(fn.broadcastInDim(start, out.dims, {}),
                   fn.multiply(i, fn.broadcastInDim(step, out.dims, {})));
  return {r};
}

std::vector<Value> lowerLinspace(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const int64_t steps = c.i("steps");
  if (out.rank() != 1 || out.dims[0] != steps) c.fail("unexpected result shape");
  const bool floating = runtime::isFloating(out.dtype);
  if (!floating && !runtime::isInteger(out.dtype)) c.fail("unsupported dtype");
  // Floating results compute in their own type (f32 for 16-bit); integers in f64.
  const ElementType ct = floating ? accType(out.dtype) : ElementType::kF64;
  Value start = castTo(fn, number(c, "start"), floating ? ct : out.dtype);
  Value end = castTo(fn, number(c, "end"), floating ? ct : out.dtype);
  start = castTo(fn, start, ct);
  end = castTo(fn, end, ct);
  if (steps <= 1) return {fn.broadcastInDim(start, out.dims, {})};
  Value step = fn.divide(fn.subtract(end, start), fn.constant(static_cast<double>(steps - 1), ct));
  const std::vector<int64_t>& d = out.dims;
  Value i = fn.iota(TensorType(ElementType::kS64, d), 0);
  Value fromStart = fn.add(fn.broadcastInDim(start, d, {}),
                           fn.multiply(fn.broadcastInDim(step, d, {}), fn.convert(i, ct)));
  Value back = fn.subtract(fn.constantInt(steps - 1, ElementType::kS64, d), i);
  Value fromEnd = fn.subtract(fn.broadcastInDim(end, d, {}),
                              fn.multiply(fn.broadcastInDim(step, d, {}), fn.convert(back, ct)));
  Value firstHalf =
      fn.compare(i, fn.constantInt(steps / 2, ElementType::kS64, d), hlo::ComparisonDirection::kLt);
  return {fn.select(firstHalf, fromStart, fromEnd)};
}

std::vector<Value> lowerEye(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  if (out.rank() != 2) c.fail("expects a 2-d result");
  const TensorType idx(ElementType::kS64, out.dims);
  Value diag = fn.compare(fn.iota(idx, 0), fn.iota(idx, 1), hlo::ComparisonDirection::kEq);
  return {diag};
}

std::vector<Value> lowerFull(LowerCtx& c) {
  const TensorType& out = c.result();
  return {fit(c.fn, c.scalar("fill_value"), out.dtype, out.dims)};
}

const Registrar kArange({"aten::arange", "aten::arange.start", "aten::arange.start_step",
                         "aten::arange.out", "aten::arange.start_out", "aten::range",
                         "aten::range.step", "aten::range.out", "aten::range.out_"},
                        lowerArange, OpTraits{.staticScalars = true});
const Registrar kLinspace({"aten::linspace", "aten::linspace.out"}, lowerLinspace,
                          OpTraits{.staticScalars = true});
const Registrar kEye({"aten::eye", "aten::eye.m", "aten::eye.out", "aten::eye.m_out"}, lowerEye);
const Registrar kFull({"aten::full", "aten::full.out"}, lowerFull);
// A zero tensor autograd makes for unused gradients: plain zeros here.
const Registrar kEfficientZero({"aten::_efficientzerotensor", "aten::_efficientzerotensor.out"},
                               [](LowerCtx& c) -> std::vector<Value> {
                                 const TensorType& out = c.result();
                                 return {c.fn.constant(0, out.dtype, out.dims)};
                               });

}  // namespace
}  // namespace torchtpu::lower
