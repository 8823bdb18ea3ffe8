// Reductions: sum, mean, prod, nansum, amax/amin, max/min (full and .dim),
// argmax/argmin, aminmax, var/std(_mean) with correction, norm /
// linalg_vector_norm, logsumexp, any/all, count_nonzero.
//
// PyTorch semantics implemented here:
// - a None dim list reduces every dim; an empty list does too, except for
//   any.dims / all.dims where it reduces nothing;
// - integer and bool inputs of sum/prod/nansum accumulate in int64 (the result
//   type PyTorch expects), f16/bf16 accumulate in f32, and dtype= casts the
//   input first;
// - max/min/amax/amin propagate NaN; max.dim/min.dim/argmax/argmin return the
//   first index of the extreme, a NaN counting as the extreme;
// - var/std divide by max(N - correction, 0) (correction defaults to 1);
// - the norm order is a runtime Scalar, so the program branches on it
//   (2, 1, inf, -inf, 0, other p).
#include <cmath>
#include <limits>

#include "lower/core/reduction_util.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using hlo::ComparisonDirection;
using hlo::UnaryOp;

// v reshaped to result i's dims (keepdim / dim=None shapes differ only by 1s).
Value shaped(LowerCtx& c, Value v, size_t i = 0) {
  const TensorType& want = c.result(i);
  if (v.dims() != want.dims && v.t().numElements() == want.numElements()) {
    v = c.fn.reshape(v, want.dims);
  }
  return v;
}

// The input, cast to dtype= when given (PyTorch casts before reducing).
Value inputWithDtype(LowerCtx& c) {
  Value x = c.tensor("self");
  if (c.has("dtype")) {
    if (auto t = c.dtype("dtype")) x = castTo(c.fn, x, *t);
  }
  return x;
}

// ---- sum / mean / prod / nansum -------------------------------------------

std::vector<Value> lowerSum(LowerCtx& c) {
  Value x = inputWithDtype(c);
  const std::vector<int64_t> dims = reductionDims(c, "dim", x.rank());
  x = castTo(c.fn, x, accType(c.result().dtype));
  return {shaped(c, reduceSum(c.fn, x, dims))};
}

std::vector<Value> lowerNansum(LowerCtx& c) {
  Value x = inputWithDtype(c);
  const std::vector<int64_t> dims = reductionDims(c, "dim", x.rank());
  x = castTo(c.fn, x, accType(c.result().dtype));
  if (runtime::isFloating(x.dtype())) x = c.fn.select(isNan(c.fn, x), splatLike(c.fn, 0, x), x);
  return {shaped(c, reduceSum(c.fn, x, dims))};
}

std::vector<Value> lowerMean(LowerCtx& c) {
  Value x = inputWithDtype(c);
  const std::vector<int64_t> dims = reductionDims(c, "dim", x.rank());
  const ElementType out = c.result().dtype;
  if (!runtime::isFloating(out) && !runtime::isComplex(out)) c.fail("mean of a non-float type");
  x = castTo(c.fn, x, accType(out));
  const int64_t n = countOf(x.dims(), dims);
  Value s = reduceSum(c.fn, x, dims);
  Value r = c.fn.divide(s, constantLike(c.fn, static_cast<double>(n), s.dtype(), s.dims()));
  return {shaped(c, r)};
}

std::vector<Value> lowerProd(LowerCtx& c) {
  Value x = inputWithDtype(c);
  const std::vector<int64_t> dims = reductionDims(c, "dim", x.rank());
  x = castTo(c.fn, x, accType(c.result().dtype));
  return {shaped(c, reduceProd(c.fn, x, dims))};
}

const Registrar kSum({"aten::sum", "aten::sum.out", "aten::sum.dim_IntList",
                      "aten::sum.IntList_out"},
                     lowerSum);
const Registrar kNansum({"aten::nansum", "aten::nansum.out"}, lowerNansum);
const Registrar kMean({"aten::mean", "aten::mean.dtype_out", "aten::mean.dim", "aten::mean.out"},
                      lowerMean);
const Registrar kProd({"aten::prod", "aten::prod.out", "aten::prod.dim_int", "aten::prod.int_out"},
                      lowerProd);

// ---- amax / amin / max / min / argmax / argmin / aminmax ---------------------

// bool has no ordering ops in StableHLO: compare it as u8.
Value orderable(Function& fn, Value x) {
  return x.dtype() == ElementType::kPred ? fn.convert(x, ElementType::kU8) : x;
}

std::vector<Value> lowerAmax(LowerCtx& c) {
  Value x = orderable(c.fn, c.tensor("self"));
  return {shaped(c, reduceMax(c.fn, x, reductionDims(c, "dim", x.rank())))};
}

std::vector<Value> lowerAmin(LowerCtx& c) {
  Value x = orderable(c.fn, c.tensor("self"));
  return {shaped(c, reduceMin(c.fn, x, reductionDims(c, "dim", x.rank())))};
}

const Registrar kAmax({"aten::amax", "aten::amax.out", "aten::max", "aten::max.unary_out"},
                      lowerAmax);
const Registrar kAmin({"aten::amin", "aten::amin.out", "aten::min", "aten::min.unary_out"},
                      lowerAmin);

std::vector<Value> lowerMaxMinDim(LowerCtx& c, bool isMax) {
  Value x = c.tensor("self");
  const int64_t dim = x.rank() == 0 ? 0 : normDim(c.i("dim"), x.rank());
  auto [values, indices] = reduceArgExtreme(c.fn, x, dim, isMax);
  return {shaped(c, values, 0), shaped(c, indices, 1)};
}

const Registrar kMaxDim({"aten::max.dim", "aten::max.dim_max"},
                        [](LowerCtx& c) { return lowerMaxMinDim(c, true); });
const Registrar kMinDim({"aten::min.dim", "aten::min.dim_min"},
                        [](LowerCtx& c) { return lowerMaxMinDim(c, false); });

std::vector<Value> lowerArg(LowerCtx& c, bool isMax) {
  Value x = c.tensor("self");
  int64_t dim = 0;
  if (c.isNone("dim") || x.rank() == 0) {
    x = c.fn.reshape(x, {x.t().numElements()});
  } else {
    dim = normDim(c.i("dim"), x.rank());
  }
  return {shaped(c, reduceArgExtreme(c.fn, x, dim, isMax).second)};
}

const Registrar kArgmax({"aten::argmax", "aten::argmax.out"},
                        [](LowerCtx& c) { return lowerArg(c, true); });
const Registrar kArgmin({"aten::argmin", "aten::argmin.out"},
                        [](LowerCtx& c) { return lowerArg(c, false); });

std::vector<Value> lowerAminmax(LowerCtx& c) {
  Value x = orderable(c.fn, c.tensor("self"));
  std::vector<int64_t> dims = allDims(x.rank());
  if (!c.isNone("dim") && x.rank() > 0) dims = {normDim(c.i("dim"), x.rank())};
  return {shaped(c, reduceMin(c.fn, x, dims), 0), shaped(c, reduceMax(c.fn, x, dims), 1)};
}

const Registrar kAminmax({"aten::aminmax", "aten::aminmax.out"}, lowerAminmax);

// ---- var / std / var_mean / std_mean --------------------------------------

struct Moments {
  Value var;
  Value mean;
};

Moments varMean(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  const std::vector<int64_t> dims = reductionDims(c, "dim", x.rank());
  const ElementType out = c.result().dtype;  // real for complex inputs
  if (!runtime::isFloating(out)) c.fail("var/std of a non-float type");
  const ElementType acc = accType(out);
  x = castTo(fn, x, runtime::isComplex(x.dtype()) ? x.dtype() : acc);
  const int64_t n = countOf(x.dims(), dims);
  Value mean = reduceSum(fn, x, dims);
  mean = fn.divide(mean, constantLike(fn, static_cast<double>(n), mean.dtype(), mean.dims()));
  Value d = fn.subtract(x, expandReduced(fn, mean, x.dims(), dims));
  Value sq;
  if (runtime::isComplex(d.dtype())) {
    const Value re = fn.unary(UnaryOp::kReal, d), im = fn.unary(UnaryOp::kImag, d);
    sq = fn.add(fn.multiply(re, re), fn.multiply(im, im));
  } else {
    sq = fn.multiply(d, d);
  }
  Value ss = reduceSum(fn, castTo(fn, sq, acc), dims);
  // divisor = max(N - correction, 0)
  Value corr =
      c.isNone("correction") ? fn.constant(1, acc) : castTo(fn, c.scalar("correction"), acc);
  Value div =
      fn.maximum(fn.subtract(fn.constant(static_cast<double>(n), acc), corr), fn.constant(0, acc));
  Value var = fn.divide(ss, fn.broadcastInDim(div, ss.dims(), {}));
  return {var, mean};
}

const Registrar kVar({"aten::var.correction", "aten::var.correction_out"},
                     [](LowerCtx& c) -> std::vector<Value> { return {shaped(c, varMean(c).var)}; });
const Registrar kStd({"aten::std.correction", "aten::std.correction_out"},
                     [](LowerCtx& c) -> std::vector<Value> {
                       return {shaped(c, c.fn.sqrt(varMean(c).var))};
                     });
const Registrar kVarMean({"aten::var_mean.correction", "aten::var_mean.correction_out"},
                         [](LowerCtx& c) -> std::vector<Value> {
                           Moments m = varMean(c);
                           return {shaped(c, m.var, 0), shaped(c, m.mean, 1)};
                         });
const Registrar kStdMean({"aten::std_mean.correction", "aten::std_mean.correction_out"},
                         [](LowerCtx& c) -> std::vector<Value> {
                           Moments m = varMean(c);
                           return {shaped(c, c.fn.sqrt(m.var), 0), shaped(c, m.mean, 1)};
                         });

// ---- norm / linalg_vector_norm ----------------------------------------------

// The vector p-norm of |x| over dims, with p a runtime 0-d value of a's type.
Value vectorNorm(Function& fn, Value a, Value p, const std::vector<int64_t>& dims) {
  const ElementType t = a.dtype();
  const double inf = std::numeric_limits<double>::infinity();
  auto is = [&](double v) { return fn.compare(p, fn.constant(v, t), ComparisonDirection::kEq); };
  using Branch = std::function<Value(Function&)>;
  // if (p == v) then `then` else `rest`
  auto cond = [](Function& f, Value pred, const Branch& then, const Branch& rest) {
    return f.ifElse(
        pred, [&](Function& r, const std::vector<Value>&) { return std::vector<Value>{then(r)}; },
        [&](Function& r, const std::vector<Value>&) { return std::vector<Value>{rest(r)}; })[0];
  };
  const Branch two = [&](Function& r) { return r.sqrt(reduceSum(r, r.multiply(a, a), dims)); };
  const Branch one = [&](Function& r) { return reduceSum(r, a, dims); };
  const Branch pinf = [&](Function& r) { return reduceMax(r, a, dims); };
  const Branch ninf = [&](Function& r) { return reduceMin(r, a, dims); };
  const Branch zero = [&](Function& r) {
    Value nz = r.compare(a, splatLike(r, 0, a), ComparisonDirection::kNe);
    return reduceSum(r, r.convert(nz, t), dims);
  };
  const Branch general = [&](Function& r) {
    Value pw = r.binary(BinaryOp::kPower, a, r.broadcastInDim(p, a.dims(), {}));
    Value s = reduceSum(r, pw, dims);
    Value inv = r.divide(r.constant(1, t), p);
    return r.binary(BinaryOp::kPower, s, r.broadcastInDim(inv, s.dims(), {}));
  };
  // Each level is a region of the previous one (the predicates are computed
  // in the enclosing function, which every nested region can see).
  const Value p2 = is(2), p1 = is(1), pi = is(inf), pn = is(-inf), p0 = is(0);
  return cond(fn, p2, two, [&](Function& f1) {
    return cond(f1, p1, one, [&](Function& f2) {
      return cond(f2, pi, pinf, [&](Function& f3) {
        return cond(f3, pn, ninf, [&](Function& f4) { return cond(f4, p0, zero, general); });
      });
    });
  });
}

std::vector<Value> lowerNorm(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = inputWithDtype(c);
  const std::vector<int64_t> dims = reductionDims(c, "dim", x.rank());
  const ElementType out = c.result().dtype;
  if (!runtime::isFloating(out)) c.fail("norm of a non-float type");
  const ElementType acc = accType(out);
  Value a = castTo(fn, fn.abs(x), acc);  // abs of complex is real
  const char* ordName = c.has("ord") ? "ord" : "p";
  Value p = c.isNone(ordName) ? fn.constant(2, acc) : castTo(fn, c.scalar(ordName), acc);
  return {shaped(c, vectorNorm(fn, a, p, dims))};
}

const Registrar kNorm({"aten::linalg_vector_norm", "aten::linalg_vector_norm.out",
                       "aten::norm.Scalar", "aten::norm.Scalar_out", "aten::norm.ScalarOpt_dim",
                       "aten::norm.out", "aten::norm.ScalarOpt_dim_dtype", "aten::norm.dtype_out",
                       "aten::norm.ScalarOpt_dtype", "aten::norm.ScalarOpt_dtype_out"},
                      lowerNorm);

// ---- logsumexp ---------------------------------------------------------------

std::vector<Value> lowerLogsumexp(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  const std::vector<int64_t> dims = reductionDims(c, "dim", x.rank());
  const ElementType out = c.result().dtype;
  if (!runtime::isFloating(out)) c.fail("logsumexp to a non-float type");
  x = castTo(fn, x, accType(out));
  // PyTorch shifts by the max, except where the max is infinite (shift 0).
  Value m = reduceMax(fn, x, dims);
  Value infinite = fn.compare(fn.abs(m), splatLike(fn, INFINITY, m), ComparisonDirection::kEq);
  m = fn.select(infinite, splatLike(fn, 0, m), m);
  Value e = fn.exp(fn.subtract(x, expandReduced(fn, m, x.dims(), dims)));
  Value r = fn.add(fn.log(reduceSum(fn, e, dims)), m);
  return {shaped(c, r)};
}

const Registrar kLogsumexp({"aten::logsumexp", "aten::logsumexp.out"}, lowerLogsumexp);

// ---- any / all / count_nonzero ---------------------------------------------

Value nonzero(Function& fn, Value x) {
  if (x.dtype() == ElementType::kPred) return x;
  return fn.compare(x, splatLike(fn, 0, x), ComparisonDirection::kNe);
}

std::vector<Value> lowerAnyAll(LowerCtx& c, bool isAny) {
  Value x = c.tensor("self");
  // any.dims / all.dims: an empty list reduces nothing.
  const std::vector<int64_t> dims = reductionDims(c, "dim", x.rank(), /*emptyMeansAll=*/false);
  Value nz = nonzero(c.fn, x);
  Value r = isAny ? reduceAny(c.fn, nz, dims) : reduceAll(c.fn, nz, dims);
  return {shaped(c, r)};
}

const Registrar kAny({"aten::any", "aten::any.all_out", "aten::any.dim", "aten::any.out",
                      "aten::any.dims", "aten::any.dims_out"},
                     [](LowerCtx& c) { return lowerAnyAll(c, true); });
const Registrar kAll({"aten::all", "aten::all.all_out", "aten::all.dim", "aten::all.out",
                      "aten::all.dims", "aten::all.dims_out"},
                     [](LowerCtx& c) { return lowerAnyAll(c, false); });

std::vector<Value> lowerCountNonzero(LowerCtx& c) {
  Value x = c.tensor("self");
  const std::vector<int64_t> dims = reductionDims(c, "dim", x.rank());
  Value n = c.fn.convert(nonzero(c.fn, x), ElementType::kS64);
  return {shaped(c, reduceSum(c.fn, n, dims))};
}

const Registrar kCountNonzero({"aten::count_nonzero", "aten::count_nonzero.out",
                               "aten::count_nonzero.dim_IntList",
                               "aten::count_nonzero.dim_IntList_out"},
                              lowerCountNonzero);

}  // namespace
}  // namespace torchtpu::lower
