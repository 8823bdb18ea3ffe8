// Building blocks shared by the special functions (the Bessel family, the
// error-function family, the incomplete gamma functions): constants shaped
// like a value, comparisons with a constant, Chebyshev series evaluated by
// Clenshaw's recurrence, and the float32 input and lowering of a unary one.
#pragma once

#include <vector>

#include "hlo/comparison.h"
#include "lower/core/lowering.h"

namespace torchtpu::lower::special {

// v splatted to like's type and shape.
Value k(Function& fn, double v, const Value& like);
// a compared with the constant v.
Value cmpK(Function& fn, const Value& a, double v, hlo::ComparisonDirection d);
// The elementwise or of two i1 values.
Value lor(Function& fn, Value a, Value b);
// m * x + b
Value affine(Function& fn, const Value& x, double m, double b);
// m / x + b
Value inverse(Function& fn, const Value& x, double m, double b);
// |x| == inf
Value isInf(Function& fn, const Value& x);

// Clenshaw's recurrence for sum c[k] T_k(t).
Value cheb(Function& fn, const Value& t, const std::vector<double>& c);

// The input as a float32 value (integers and bools promote, bf16/f16 compute
// in float32); float64 and complex are not lowered.
Value input(LowerCtx& c);

// The lowering of a unary special function: kernel applied to input(c).
using Kernel = Value (*)(Function&, const Value&);
LowerFn unaryOp(Kernel kernel);

}  // namespace torchtpu::lower::special
