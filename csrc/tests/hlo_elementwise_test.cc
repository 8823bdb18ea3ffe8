// Elementwise ops on the plugin, checked against host loops: unary and binary
// math for floats (f32, f64, f16, bf16, complex) and integers (signed,
// unsigned, i1), compare, select, clamp, convert, bitcast_convert,
// reduce_precision.
#include <bit>
#include <climits>
#include <complex>
#include <map>

#include "tests/hlo_testing.h"

namespace torchtpu::hlo::test {
namespace {

using LD = long double;

const std::vector<double> kXs = {0.3, 1.7, -0.6, 2.5, -2.5, 0.5, -3.2, 10.0};

double roundHalfEven(double v) { return std::nearbyint(v); }  // default mode: to even

struct UnaryRef {
  UnaryOp op;
  std::function<double(double)> f;
};

std::vector<UnaryRef> floatUnaryRefs() {
  return {
      {UnaryOp::kAbs, [](double v) { return std::fabs(v); }},
      {UnaryOp::kNegate, [](double v) { return -v; }},
      {UnaryOp::kSign, [](double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : v); }},
      {UnaryOp::kFloor, [](double v) { return std::floor(v); }},
      {UnaryOp::kCeil, [](double v) { return std::ceil(v); }},
      {UnaryOp::kRoundNearestEven, roundHalfEven},
      {UnaryOp::kRoundNearestAfz, [](double v) { return std::round(v); }},
      {UnaryOp::kExponential, [](double v) { return std::exp(v); }},
      {UnaryOp::kExponentialMinusOne, [](double v) { return std::expm1(v); }},
      {UnaryOp::kLog, [](double v) { return std::log(v); }},
      {UnaryOp::kLogPlusOne, [](double v) { return std::log1p(v); }},
      {UnaryOp::kLogistic, [](double v) { return 1 / (1 + std::exp(-v)); }},
      {UnaryOp::kSqrt, [](double v) { return std::sqrt(v); }},
      {UnaryOp::kRsqrt, [](double v) { return 1 / std::sqrt(v); }},
      {UnaryOp::kCbrt, [](double v) { return std::cbrt(v); }},
      {UnaryOp::kSine, [](double v) { return std::sin(v); }},
      {UnaryOp::kCosine, [](double v) { return std::cos(v); }},
      {UnaryOp::kTan, [](double v) { return std::tan(v); }},
      {UnaryOp::kTanh, [](double v) { return std::tanh(v); }},
      {UnaryOp::kReal, [](double v) { return v; }},
      {UnaryOp::kImag, [](double) { return 0.0; }},
  };
}

// All float unary ops in one program per float type; the reference is
// computed in double from the (rounded) inputs and rounded to the type.
TEST(Elementwise, FloatUnary) {
  const std::map<ElementType, double> tolerance = {{ElementType::kF32, 2e-6},
                                                   {ElementType::kF64, 1e-13},
                                                   {ElementType::kF16, 2e-3},
                                                   {ElementType::kBF16, 1.6e-2}};
  for (auto [t, tol] : tolerance) {
    const std::string tn(runtime::elementTypeName(t));
    const HostArray x = encode(t, {8}, std::vector<LD>(kXs.begin(), kXs.end()));
    const std::vector<LD> xs = decode(x);
    const auto refs = floatUnaryRefs();
    auto out = run({x}, [&](Function& f, const std::vector<Value>& p) {
      std::vector<Value> r;
      for (const auto& ref : refs) r.push_back(f.unary(ref.op, p[0]));
      return r;
    });
    ASSERT_EQ(out.size(), refs.size());
    for (size_t k = 0; k < refs.size(); ++k) {
      const std::string what = tn + " " + std::string(opName(refs[k].op));
      EXPECT_EQ(out[k].type, t) << what;
      const std::vector<LD> got = decode(out[k]);
      for (size_t i = 0; i < xs.size(); ++i) {
        const double want = refs[k].f(static_cast<double>(xs[i]));
        const double g = static_cast<double>(got[i]);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(g)) << what << " of " << static_cast<double>(xs[i]);
        } else {
          EXPECT_NEAR(g, want, tol * (1 + std::fabs(want)))
              << what << " of " << static_cast<double>(xs[i]);
        }
      }
    }
  }
}

TEST(Elementwise, IsFinite) {
  auto out = run({f32({4}, {1.0f, INFINITY, -INFINITY, NAN})},
                 [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
                   return {f.unary(UnaryOp::kIsFinite, p[0])};
                 });
  EXPECT_EQ(out[0].type, ElementType::kPred);
  EXPECT_EQ(out[0].values<uint8_t>(), (std::vector<uint8_t>{1, 0, 0, 0}));
}

TEST(Elementwise, ComplexUnary) {
  using C = std::complex<float>;
  const std::vector<C> xs = {{0.5f, 1.0f}, {-1.5f, 0.25f}, {2.0f, -3.0f}};
  auto out = run({arr<C>(ElementType::kC64, {3}, xs)},
                 [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
                   return {f.exp(p[0]),
                           f.log(p[0]),
                           f.sqrt(p[0]),
                           f.negate(p[0]),
                           f.abs(p[0]),
                           f.unary(UnaryOp::kReal, p[0]),
                           f.unary(UnaryOp::kImag, p[0])};
                 });
  ASSERT_EQ(out.size(), 7u);
  auto check = [&](const HostArray& a, auto ref, const char* what) {
    auto got = a.values<C>();
    ASSERT_EQ(got.size(), xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      const std::complex<double> want = ref(std::complex<double>(xs[i]));
      EXPECT_NEAR(got[i].real(), want.real(), 1e-5 * (1 + std::abs(want))) << what;
      EXPECT_NEAR(got[i].imag(), want.imag(), 1e-5 * (1 + std::abs(want))) << what;
    }
  };
  check(out[0], [](std::complex<double> z) { return std::exp(z); }, "exp");
  check(out[1], [](std::complex<double> z) { return std::log(z); }, "log");
  check(out[2], [](std::complex<double> z) { return std::sqrt(z); }, "sqrt");
  check(out[3], [](std::complex<double> z) { return -z; }, "negate");
  EXPECT_EQ(out[4].type, ElementType::kF32);
  std::vector<float> absWant, re, im;
  for (C z : xs) {
    absWant.push_back(std::abs(z));
    re.push_back(z.real());
    im.push_back(z.imag());
  }
  expectNear(out[4].values<float>(), absWant, 1e-6f, "abs");
  EXPECT_EQ(out[5].values<float>(), re);
  EXPECT_EQ(out[6].values<float>(), im);
}

// Binary float ops in f32 and f64.
TEST(Elementwise, FloatBinary) {
  const std::vector<double> a = {1.5, -2.25, 7.0, -7.0, 0.5, 3.0, -0.0, 100.0};
  const std::vector<double> b = {0.5, 4.0, -2.5, 2.5, 3.0, -1.5, 2.0, 0.01};
  struct Ref {
    BinaryOp op;
    std::function<double(double, double)> f;
  };
  const std::vector<Ref> refs = {
      {BinaryOp::kAdd, [](double x, double y) { return x + y; }},
      {BinaryOp::kSubtract, [](double x, double y) { return x - y; }},
      {BinaryOp::kMultiply, [](double x, double y) { return x * y; }},
      {BinaryOp::kDivide, [](double x, double y) { return x / y; }},
      {BinaryOp::kRemainder, [](double x, double y) { return std::fmod(x, y); }},
      {BinaryOp::kPower, [](double x, double y) { return std::pow(x, y); }},
      {BinaryOp::kMaximum, [](double x, double y) { return std::max(x, y); }},
      {BinaryOp::kMinimum, [](double x, double y) { return std::min(x, y); }},
      {BinaryOp::kAtan2, [](double x, double y) { return std::atan2(x, y); }},
  };
  for (ElementType t : {ElementType::kF32, ElementType::kF64}) {
    const HostArray ha = encode(t, {8}, std::vector<LD>(a.begin(), a.end()));
    const HostArray hb = encode(t, {8}, std::vector<LD>(b.begin(), b.end()));
    auto out = run({ha, hb}, [&](Function& f, const std::vector<Value>& p) {
      std::vector<Value> r;
      for (const auto& ref : refs) r.push_back(f.binary(ref.op, p[0], p[1]));
      return r;
    });
    ASSERT_EQ(out.size(), refs.size());
    const double tol = t == ElementType::kF32 ? 2e-6 : 1e-13;
    for (size_t k = 0; k < refs.size(); ++k) {
      const std::vector<LD> got = decode(out[k]);
      for (size_t i = 0; i < a.size(); ++i) {
        const double want =
            refs[k].f(static_cast<double>(decode(ha)[i]), static_cast<double>(decode(hb)[i]));
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(static_cast<double>(got[i]))) << opName(refs[k].op) << " " << i;
        } else {
          EXPECT_NEAR(static_cast<double>(got[i]), want, tol * (1 + std::fabs(want)))
              << opName(refs[k].op) << " [" << i << "]";
        }
      }
    }
  }
}

// Signed and unsigned integer ops, including wrap-around, truncating
// division and over-wide shifts.
template <class T>
void checkIntegerBinary(ElementType t, const std::vector<T>& a, const std::vector<T>& b) {
  using U = std::make_unsigned_t<T>;
  constexpr int kBits = sizeof(T) * 8;
  struct Ref {
    BinaryOp op;
    std::function<T(T, T)> f;
  };
  const std::vector<Ref> refs = {
      {BinaryOp::kAdd, [](T x, T y) { return static_cast<T>(U(x) + U(y)); }},
      {BinaryOp::kSubtract, [](T x, T y) { return static_cast<T>(U(x) - U(y)); }},
      {BinaryOp::kMultiply, [](T x, T y) { return static_cast<T>(U(x) * U(y)); }},
      {BinaryOp::kDivide, [](T x, T y) { return static_cast<T>(x / y); }},
      {BinaryOp::kRemainder, [](T x, T y) { return static_cast<T>(x % y); }},
      {BinaryOp::kMaximum, [](T x, T y) { return std::max(x, y); }},
      {BinaryOp::kMinimum, [](T x, T y) { return std::min(x, y); }},
      {BinaryOp::kAnd, [](T x, T y) { return static_cast<T>(x & y); }},
      {BinaryOp::kOr, [](T x, T y) { return static_cast<T>(x | y); }},
      {BinaryOp::kXor, [](T x, T y) { return static_cast<T>(x ^ y); }},
      {BinaryOp::kShiftLeft,
       [](T x, T y) { return U(y) >= kBits ? T(0) : static_cast<T>(U(x) << U(y)); }},
      {BinaryOp::kShiftRightLogical,
       [](T x, T y) { return U(y) >= kBits ? T(0) : static_cast<T>(U(x) >> U(y)); }},
      {BinaryOp::kShiftRightArithmetic,
       [](T x, T y) {
         using S = std::make_signed_t<T>;
         const S sx = static_cast<S>(x);
         const S r = U(y) >= kBits ? (sx < 0 ? S(-1) : S(0)) : static_cast<S>(sx >> U(y));
         return static_cast<T>(r);
       }},
  };
  auto out = run({arr<T>(t, {static_cast<int64_t>(a.size())}, a),
                  arr<T>(t, {static_cast<int64_t>(b.size())}, b)},
                 [&](Function& f, const std::vector<Value>& p) {
                   std::vector<Value> r;
                   for (const auto& ref : refs) r.push_back(f.binary(ref.op, p[0], p[1]));
                   return r;
                 });
  ASSERT_EQ(out.size(), refs.size());
  for (size_t k = 0; k < refs.size(); ++k) {
    std::vector<T> want;
    for (size_t i = 0; i < a.size(); ++i) want.push_back(refs[k].f(a[i], b[i]));
    EXPECT_EQ(out[k].template values<T>(), want)
        << opName(refs[k].op) << " on " << runtime::elementTypeName(t);
  }
}

TEST(Elementwise, IntegerBinary) {
  checkIntegerBinary<int32_t>(ElementType::kS32, {7, -7, 7, -7, 100, 0, INT_MAX, -8},
                              {2, 2, -2, -2, 7, 5, 1, 33});
  checkIntegerBinary<int8_t>(ElementType::kS8, {7, -7, 127, -128, 100, 0, 5, -8},
                             {2, 3, 1, 3, 7, 5, 8, 1});
  checkIntegerBinary<int64_t>(ElementType::kS64, {7, -7, INT64_MAX, -8, 1LL << 40, 0},
                              {2, 2, 1, 65, 3, 5});
  checkIntegerBinary<uint32_t>(ElementType::kU32, {7, 0xFFFFFFFFu, 0x80000000u, 100, 5, 1},
                               {2, 2, 3, 7, 40, 31});
  checkIntegerBinary<uint8_t>(ElementType::kU8, {7, 255, 128, 100, 5, 1}, {2, 2, 3, 7, 8, 7});
  checkIntegerBinary<uint64_t>(ElementType::kU64, {7, ~0ull, 1ull << 63, 100}, {2, 2, 63, 64});
  checkIntegerBinary<int16_t>(ElementType::kS16, {7, -7, 32767, -32768}, {2, 3, 1, 15});
  checkIntegerBinary<uint16_t>(ElementType::kU16, {7, 65535, 32768, 9}, {2, 3, 15, 16});
}

TEST(Elementwise, IntegerPower) {
  auto out = run({i32({5}, {2, -3, 5, 0, 1}), i32({5}, {10, 3, 0, 4, 7})},
                 [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
                   return {f.binary(BinaryOp::kPower, p[0], p[1])};
                 });
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{1024, -27, 1, 0, 1}));
}

TEST(Elementwise, IntegerUnary) {
  const std::vector<int32_t> s = {5, -7, 0, INT_MIN, 255, -1};
  const std::vector<uint8_t> u = {0, 1, 128, 255, 37};
  auto out =
      run({i32({6}, s), arr<uint8_t>(ElementType::kU8, {5}, u)},
          [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
            std::vector<Value> r;
            for (UnaryOp op : {UnaryOp::kAbs, UnaryOp::kNegate, UnaryOp::kSign, UnaryOp::kNot,
                               UnaryOp::kPopcnt, UnaryOp::kCountLeadingZeros}) {
              r.push_back(f.unary(op, p[0]));
            }
            for (UnaryOp op :
                 {UnaryOp::kNot, UnaryOp::kPopcnt, UnaryOp::kCountLeadingZeros, UnaryOp::kNegate}) {
              r.push_back(f.unary(op, p[1]));
            }
            return r;
          });
  ASSERT_EQ(out.size(), 10u);
  std::vector<int32_t> abs, neg, sign, nots, pop, clz;
  for (int32_t v : s) {
    const uint32_t uv = static_cast<uint32_t>(v);
    abs.push_back(v == INT_MIN ? INT_MIN : std::abs(v));
    neg.push_back(static_cast<int32_t>(0u - uv));
    sign.push_back(v > 0 ? 1 : (v < 0 ? -1 : 0));
    nots.push_back(~v);
    pop.push_back(std::popcount(uv));
    clz.push_back(std::countl_zero(uv));
  }
  EXPECT_EQ(out[0].values<int32_t>(), abs);
  EXPECT_EQ(out[1].values<int32_t>(), neg);
  EXPECT_EQ(out[2].values<int32_t>(), sign);
  EXPECT_EQ(out[3].values<int32_t>(), nots);
  EXPECT_EQ(out[4].values<int32_t>(), pop);
  EXPECT_EQ(out[5].values<int32_t>(), clz);
  std::vector<uint8_t> unot, upop, uclz, uneg;
  for (uint8_t v : u) {
    unot.push_back(static_cast<uint8_t>(~v));
    upop.push_back(static_cast<uint8_t>(std::popcount(v)));
    uclz.push_back(static_cast<uint8_t>(std::countl_zero(v)));
    uneg.push_back(static_cast<uint8_t>(0u - v));
  }
  EXPECT_EQ(out[6].values<uint8_t>(), unot);
  EXPECT_EQ(out[7].values<uint8_t>(), upop);
  EXPECT_EQ(out[8].values<uint8_t>(), uclz);
  EXPECT_EQ(out[9].values<uint8_t>(), uneg);
}

TEST(Elementwise, BoolOps) {
  const std::vector<uint8_t> a = {0, 0, 1, 1}, b = {0, 1, 0, 1};
  auto out =
      run({arr<uint8_t>(ElementType::kPred, {4}, a), arr<uint8_t>(ElementType::kPred, {4}, b)},
          [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
            std::vector<Value> r;
            for (BinaryOp op : {BinaryOp::kAnd, BinaryOp::kOr, BinaryOp::kXor, BinaryOp::kAdd,
                                BinaryOp::kMultiply, BinaryOp::kMaximum, BinaryOp::kMinimum}) {
              r.push_back(f.binary(op, p[0], p[1]));
            }
            r.push_back(f.unary(UnaryOp::kNot, p[0]));
            return r;
          });
  ASSERT_EQ(out.size(), 8u);
  using V = std::vector<uint8_t>;
  EXPECT_EQ(out[0].values<uint8_t>(), (V{0, 0, 0, 1}));
  EXPECT_EQ(out[1].values<uint8_t>(), (V{0, 1, 1, 1}));
  EXPECT_EQ(out[2].values<uint8_t>(), (V{0, 1, 1, 0}));
  EXPECT_EQ(out[3].values<uint8_t>(), (V{0, 1, 1, 1}));
  EXPECT_EQ(out[4].values<uint8_t>(), (V{0, 0, 0, 1}));
  EXPECT_EQ(out[5].values<uint8_t>(), (V{0, 1, 1, 1}));
  EXPECT_EQ(out[6].values<uint8_t>(), (V{0, 0, 0, 1}));
  EXPECT_EQ(out[7].values<uint8_t>(), (V{1, 1, 0, 0}));
}

// Every direction under the default comparison type, plus TOTALORDER, for
// floats with NaN and signed zeros, signed/unsigned integers and i1.
TEST(Elementwise, Compare) {
  const std::vector<ComparisonDirection> dirs = {
      ComparisonDirection::kEq, ComparisonDirection::kNe, ComparisonDirection::kGe,
      ComparisonDirection::kGt, ComparisonDirection::kLe, ComparisonDirection::kLt};
  auto cmp = [](ComparisonDirection d, auto x, auto y) -> uint8_t {
    switch (d) {
      case ComparisonDirection::kEq:
        return x == y;
      case ComparisonDirection::kNe:
        return x != y;
      case ComparisonDirection::kGe:
        return x >= y;
      case ComparisonDirection::kGt:
        return x > y;
      case ComparisonDirection::kLe:
        return x <= y;
      case ComparisonDirection::kLt:
        return x < y;
    }
    return 0;
  };
  const std::vector<float> fa = {1, 2, NAN, -0.0f, 3, NAN};
  const std::vector<float> fb = {2, 2, 1, 0.0f, -1, NAN};
  const std::vector<int32_t> ia = {-1, 5, INT_MIN, 7};
  const std::vector<int32_t> ib = {1, 5, 0, -7};
  const std::vector<uint8_t> ba = {0, 0, 1, 1}, bb = {0, 1, 0, 1};
  auto out =
      run({f32({6}, fa), f32({6}, fb), i32({4}, ia), i32({4}, ib),
           arr<uint8_t>(ElementType::kPred, {4}, ba), arr<uint8_t>(ElementType::kPred, {4}, bb)},
          [&](Function& f, const std::vector<Value>& p) {
            std::vector<Value> r;
            for (auto d : dirs) {
              r.push_back(f.compare(p[0], p[1], d));
              r.push_back(f.compare(p[0], p[1], d, ComparisonType::kTotalOrder));
              r.push_back(f.compare(p[2], p[3], d));
              // The same bits compared as unsigned.
              r.push_back(f.compare(f.convert(p[2], ElementType::kU32),
                                    f.convert(p[3], ElementType::kU32), d));
              r.push_back(f.compare(p[4], p[5], d));
            }
            return r;
          });
  ASSERT_EQ(out.size(), dirs.size() * 5);
  // IEEE total order key: flips the magnitude bits of negatives.
  auto totalKey = [](float v) {
    const int32_t b = static_cast<int32_t>(floatBits(v));
    return b < 0 ? static_cast<int32_t>(b ^ 0x7FFFFFFF) : b;
  };
  for (size_t k = 0; k < dirs.size(); ++k) {
    const auto d = dirs[k];
    std::vector<uint8_t> wf, wt, ws, wu, wb;
    for (size_t i = 0; i < fa.size(); ++i) {
      wf.push_back(cmp(d, fa[i], fb[i]));
      wt.push_back(cmp(d, totalKey(fa[i]), totalKey(fb[i])));
    }
    for (size_t i = 0; i < ia.size(); ++i) {
      ws.push_back(cmp(d, ia[i], ib[i]));
      wu.push_back(cmp(d, static_cast<uint32_t>(ia[i]), static_cast<uint32_t>(ib[i])));
      wb.push_back(cmp(d, ba[i], bb[i]));
    }
    const std::string dn(directionName(d));
    EXPECT_EQ(out[5 * k + 0].values<uint8_t>(), wf) << "float " << dn;
    EXPECT_EQ(out[5 * k + 1].values<uint8_t>(), wt) << "totalorder " << dn;
    EXPECT_EQ(out[5 * k + 2].values<uint8_t>(), ws) << "signed " << dn;
    EXPECT_EQ(out[5 * k + 3].values<uint8_t>(), wu) << "unsigned " << dn;
    EXPECT_EQ(out[5 * k + 4].values<uint8_t>(), wb) << "i1 " << dn;
  }
}

TEST(Elementwise, SelectAndClamp) {
  const std::vector<float> x = {-3, -0.5, 0.25, 2, 9, 1};
  auto out =
      run({f32({2, 3}, x), arr<uint8_t>(ElementType::kPred, {2, 3}, {1, 0, 1, 0, 1, 0}),
           f32({2, 3}, {-1, -1, 0, 0, 1, 1}), f32({2, 3}, {0, 0, 1, 1, 2, 2})},
          [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
            Value zero = f.constant(0, ElementType::kF32, {2, 3});
            Value scalarTrue = f.constant(1, ElementType::kPred);
            return {
                f.select(p[1], p[0], zero),
                f.select(scalarTrue, zero, p[0]),
                f.clamp(f.constant(-1, ElementType::kF32), p[0], f.constant(1, ElementType::kF32)),
                f.clamp(p[2], p[0], p[3]),
            };
          });
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{-3, 0, 0.25, 0, 9, 0}));
  EXPECT_EQ(out[1].values<float>(), (std::vector<float>(6, 0)));
  EXPECT_EQ(out[2].values<float>(), (std::vector<float>{-1, -0.5, 0.25, 1, 1, 1}));
  EXPECT_EQ(out[3].values<float>(), (std::vector<float>{-1, -0.5, 0.25, 1, 2, 1}));
}

TEST(Elementwise, ConvertRounding) {
  auto out = run({f32({6}, {1.7f, -1.7f, 2.5f, 0.0f, -0.0f, 3.0e9f})},
                 [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
                   return {f.convert(f.slice(p[0], {0}, {5}), ElementType::kS32),
                           f.convert(p[0], ElementType::kPred),
                           f.convert(f.convert(p[0], ElementType::kPred), ElementType::kF32),
                           f.convert(p[0], ElementType::kF16), f.convert(p[0], ElementType::kBF16)};
                 });
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{1, -1, 2, 0, 0}));
  EXPECT_EQ(out[1].values<uint8_t>(), (std::vector<uint8_t>{1, 1, 1, 0, 0, 1}));
  EXPECT_EQ(out[2].values<float>(), (std::vector<float>{1, 1, 1, 0, 0, 1}));
  std::vector<uint16_t> h, bf;
  for (float v : {1.7f, -1.7f, 2.5f, 0.0f, -0.0f, 3.0e9f}) {
    h.push_back(toF16(v));
    bf.push_back(toBf16(v));
  }
  EXPECT_EQ(out[3].values<uint16_t>(), h);
  EXPECT_EQ(out[4].values<uint16_t>(), bf);
}

// Same width keeps the shape; narrower adds a trailing dim; wider drops one.
// The memory bytes never change.
TEST(Elementwise, BitcastConvert) {
  const std::vector<float> x = {1.0f, -2.5f, 3.0e-5f, 7.0f};
  const HostArray hx = f32({2, 2}, x);
  auto out = run({hx}, [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
    Value asU16 = f.bitcastConvert(p[0], ElementType::kU16);
    Value asU8 = f.bitcastConvert(p[0], ElementType::kU8);
    return {f.bitcastConvert(p[0], ElementType::kU32),
            asU16,
            asU8,
            f.bitcastConvert(asU8, ElementType::kF32),
            f.bitcastConvert(f.reshape(p[0], {2, 2}), ElementType::kS32),
            f.bitcastConvert(f.reshape(p[0], {2, 2}), ElementType::kF64)};
  });
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(out[1].dims, (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(out[2].dims, (std::vector<int64_t>{2, 2, 4}));
  EXPECT_EQ(out[3].dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(out[5].dims, (std::vector<int64_t>{2}));
  for (const HostArray& o : out) EXPECT_EQ(o.bytes, hx.bytes);
}

TEST(Elementwise, ReducePrecision) {
  const std::vector<float> x = {0.1f, 1.0f / 3, 1000.3f, -7.77f, 1e-3f};
  auto out = run({f32({5}, x)}, [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
    return {f.reducePrecision(p[0], 5, 10), f.reducePrecision(p[0], 8, 7)};
  });
  std::vector<float> h, b;
  for (float v : x) {
    h.push_back(fromF16(toF16(v)));
    b.push_back(fromBf16(toBf16(v)));
  }
  EXPECT_EQ(out[0].values<float>(), h);
  EXPECT_EQ(out[1].values<float>(), b);
}

}  // namespace
}  // namespace torchtpu::hlo::test
