// Functions of the error function and the normal distribution: special_erfcx
// (exp(x^2) erfc(x)), special_log_ndtr (log of the normal CDF) and
// special_ndtri (its inverse). Chebyshev series in float32, as the Bessel
// functions (lower/special/bessel.cc) are computed: our own interpolants
// (mpmath, 40 digits); integers and bools promote to float32, float64 is not
// lowered. Special values follow PyTorch's CPU kernels.
#include <cmath>
#include <numbers>
#include <vector>

#include "hlo/comparison.h"
#include "lower/elementwise/elementwise_math.h"
#include "lower/special/util.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using Dir = hlo::ComparisonDirection;
using special::affine;
using special::cheb;
using special::cmpK;
using special::input;
using special::inverse;
using special::isInf;
using special::k;
using special::lor;
using special::unaryOp;
constexpr double kInf = INFINITY;

// ---- Chebyshev coefficients (sum c[k] T_k(t), t in [-1, 1]) ---------------
// ERFCX: erfcx(x) (x + 4), x >= 0, t = (x - 4)/(x + 4).
// NDTRI_C: ndtri(1/2 + u)/u, |u| <= 1/2 - e^-2, t = 2 u^2/(1/2 - e^-2)^2 - 1.
// NDTRI_T: -ndtri(p)/r with r = sqrt(-2 log p) in [2, 14.5],
// t = 2 (2/r - 2/14.5)/(1 - 2/14.5) - 1.
const std::vector<double> kErfcx = {
    1.6320978781965259,     -1.5054329427054696,     0.5903214182888945,
    -0.19828527172011037,   0.05690843022846869,     -0.013773973050870084,
    0.0027290167331352577,  -0.00041361807903032307, 3.89141838081028e-05,
    4.795485501828228e-07,  -8.699107080554364e-07,  1.2116707091334314e-07,
    3.791967064518531e-09,  -3.4533647255727093e-09, 2.748863299653405e-10,
    6.813949879142374e-11,  -1.356843046485586e-11,  -1.0463469452837804e-12,
    4.850655484675955e-13,  8.529889840350168e-15,   -1.6522352193427774e-14,
    2.1269191730627554e-16, 6.862047034507404e-16};
const std::vector<double> kNdtriC = {
    2.7375941110405506,    0.25371828459510615,    0.025578018924084893,   0.003217372097953974,
    0.0004497329737723075, 6.686412408848484e-05,  1.0351019857610722e-05, 1.648745684173344e-06,
    2.682380067232091e-07, 4.4359237097323444e-08, 7.431542975578175e-09,  1.257195486595306e-09,
    2.0852421248235644e-10};
const std::vector<double> kNdtriT = {
    0.7914733804097507,     -0.21840311776589266,   -0.02434608723396221,    0.0023094874246389827,
    -0.0003220589443024389, 5.872740821350046e-05,  -1.3184990600916389e-05, 3.413581110267735e-06,
    -9.679566918876361e-07, 2.919000006134924e-07,  -9.224733850627019e-08,  3.029980520983091e-08,
    -1.028160476034802e-08, 3.5848093941046697e-09, -1.2762676736239014e-09, 4.563084196224665e-10,
    -1.4773252924018261e-10};

Value erfcxPositive(Function& fn, const Value& a) {  // a >= 0
  Value d = fn.add(a, k(fn, 4, a));
  Value r = fn.divide(cheb(fn, fn.divide(fn.subtract(a, k(fn, 4, a)), d), kErfcx), d);
  return fn.select(cmpK(fn, a, kInf, Dir::kEq), k(fn, 0, a), r);
}
// exp(x^2) erfc(x); x < 0 through erfcx(x) = 2 exp(x^2) - erfcx(-x).
Value erfcx(Function& fn, const Value& x) {
  Value a = fn.abs(x);
  Value pos = erfcxPositive(fn, a);
  Value neg = fn.subtract(fn.multiply(k(fn, 2, x), fn.exp(fn.multiply(x, x))), pos);
  return fn.select(cmpK(fn, x, 0, Dir::kLt), neg, pos);
}
// log(ndtr(x)): log(erfcx(-x/sqrt2)/2) - x^2/2 below -1, log1p(-erfc(x/sqrt2)/2) above.
Value logNdtr(Function& fn, const Value& x) {
  Value z = fn.multiply(x, k(fn, std::numbers::sqrt2 / 2, x));
  Value low =
      fn.subtract(fn.log(fn.multiply(erfcx(fn, fn.negate(z)), k(fn, 0.5, x))), fn.multiply(z, z));
  Value high = fn.unary(hlo::UnaryOp::kLogPlusOne, fn.multiply(ew::erfc(fn, z), k(fn, -0.5, x)));
  return fn.select(cmpK(fn, x, -1, Dir::kLt), low, high);
}
// ndtri reads its argument's bits for the zero tests and for log(p) of
// subnormal p: the compiler may flush subnormals to zero in arithmetic.
Value ndtri(Function& fn, const Value& p) {
  const double e2 = std::exp(-2.0), um = 0.5 - e2;
  Value u = fn.subtract(p, k(fn, 0.5, p));
  Value central =
      fn.multiply(u, cheb(fn, affine(fn, fn.multiply(u, u), 2 / (um * um), -1), kNdtriC));
  Value upper = cmpK(fn, p, 0.5, Dir::kGt);
  Value q = fn.select(upper, fn.subtract(k(fn, 1, p), p), p);
  Value bits = fn.bitcastConvert(p, ElementType::kS32);
  Value magnitude =
      fn.binary(BinaryOp::kAnd, bits, fn.constantInt(0x7fffffff, ElementType::kS32, p.dims()));
  Value subnormal =
      fn.compare(magnitude, fn.constantInt(0x800000, ElementType::kS32, p.dims()), Dir::kLt);
  // A subnormal's bits are its value in units of 2^-149.
  Value logSub =
      fn.subtract(fn.log(fn.convert(bits, ElementType::kF32)), k(fn, 149 * std::numbers::ln2, p));
  Value logQ = fn.select(fn.binary(BinaryOp::kAnd, subnormal, fn.unary(hlo::UnaryOp::kNot, upper)),
                         logSub, fn.log(q));
  Value r = fn.sqrt(fn.multiply(k(fn, -2, p), logQ));
  const double s0 = 2 / 14.5, m = 2 / (1 - s0);
  Value tail = fn.multiply(r, cheb(fn, inverse(fn, r, 2 * m, -m * s0 - 1), kNdtriT));
  tail = fn.select(upper, tail, fn.negate(tail));
  Value res = fn.select(cmpK(fn, fn.abs(u), um, Dir::kLe), central, tail);
  Value zero = fn.compare(magnitude, fn.constantInt(0, ElementType::kS32, p.dims()), Dir::kEq);
  Value negative = fn.binary(
      BinaryOp::kAnd, fn.compare(bits, fn.constantInt(0, ElementType::kS32, p.dims()), Dir::kLt),
      fn.unary(hlo::UnaryOp::kNot, zero));
  res = fn.select(zero, k(fn, -kInf, p), res);
  res = fn.select(cmpK(fn, p, 1, Dir::kEq), k(fn, kInf, p), res);
  Value out = lor(fn, negative, cmpK(fn, p, 1, Dir::kGt));
  return fn.select(out, k(fn, NAN, p), res);
}

const Registrar kRegErfcx({"aten::special_erfcx", "aten::special_erfcx.out"}, unaryOp(erfcx));
const Registrar kRegLogNdtr({"aten::special_log_ndtr", "aten::special_log_ndtr.out"},
                            unaryOp(logNdtr));
const Registrar kRegNdtri({"aten::special_ndtri", "aten::special_ndtri.out"}, unaryOp(ndtri));

}  // namespace
}  // namespace torchtpu::lower
