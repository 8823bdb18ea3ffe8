// Every element type through the builder and the plugin: splat and dense
// constants, add, and convert in both directions. Complex types separately.
#include <cfloat>
#include <complex>
#include <limits>

#include "tests/hlo_testing.h"

namespace torchtpu::hlo::test {
namespace {

using LD = long double;

struct TypeCase {
  ElementType type;
  std::vector<LD> x;         // parameter
  std::vector<LD> c;         // dense constant added to x
  double splat;              // splat constant (rounded by the builder for floats)
  std::vector<LD> extremes;  // dense constant data at the ends of the range
  int64_t intSplat;          // constantInt
};

std::string name(ElementType t) { return std::string(runtime::elementTypeName(t)); }

// Rounds `v` to `t` on the host (the reference for what the device holds).
LD rounded(ElementType t, LD v) { return decode(encode(t, {1}, {v}))[0]; }

class DtypeTest : public ::testing::TestWithParam<TypeCase> {};

TEST_P(DtypeTest, ConstantsAddConvert) {
  const TypeCase& tc = GetParam();
  const ElementType t = tc.type;
  const HostArray x = encode(t, {4}, tc.x);
  const HostArray c = encode(t, {4}, tc.c);
  const HostArray ext = encode(t, {static_cast<int64_t>(tc.extremes.size())}, tc.extremes);
  // f64 values that convert exactly into t: x itself.
  const HostArray xAsF64 = encode(ElementType::kF64, {4}, decode(x));

  auto out = run({x}, [&](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
    return {
        f.add(p[0], f.constantData(TensorType(t, {4}), c.bytes.data())),
        f.constant(tc.splat, t, {2, 2}),
        f.convert(p[0], ElementType::kF64),
        f.convert(f.constantData(TensorType(ElementType::kF64, {4}), xAsF64.bytes.data()), t),
        f.constantData(TensorType(t, ext.dims), ext.bytes.data()),
        f.constantInt(tc.intSplat, t),
        f.convert(f.convert(p[0], ElementType::kF32), t),
    };
  });
  ASSERT_EQ(out.size(), 7u);
  std::vector<LD> sum;
  const auto xs = decode(x), cs = decode(c);
  for (size_t i = 0; i < 4; ++i) {
    sum.push_back(t == ElementType::kPred ? LD(xs[i] != 0 || cs[i] != 0) : xs[i] + cs[i]);
  }
  expectSame(out[0], t, {4}, sum, "add " + name(t));
  const LD splat = t == ElementType::kPred ? LD(tc.splat != 0) : rounded(t, tc.splat);
  expectSame(out[1], t, {2, 2}, {splat, splat, splat, splat}, "splat " + name(t));
  expectSame(out[2], ElementType::kF64, {4}, xs, "convert to f64 " + name(t));
  expectSame(out[3], t, {4}, xs, "convert from f64 " + name(t));
  expectSame(out[4], t, ext.dims, decode(ext), "dense extremes " + name(t));
  expectSame(out[5], t, {}, {LD(tc.intSplat)}, "constantInt " + name(t));
  std::vector<LD> viaF32;
  for (LD v : xs) viaF32.push_back(rounded(t, rounded(ElementType::kF32, v)));
  expectSame(out[6], t, {4}, viaF32, "convert via f32 " + name(t));
  // The bytes of the dense extremes come back bit-exact.
  EXPECT_EQ(out[4].bytes, ext.bytes) << name(t);
}

constexpr LD kNaN = std::numeric_limits<LD>::quiet_NaN();
constexpr LD kInf = std::numeric_limits<LD>::infinity();

INSTANTIATE_TEST_SUITE_P(
    AllTypes, DtypeTest,
    ::testing::Values(
        TypeCase{ElementType::kF32,
                 {1.5, -2.25, 3e10, 1e-30},
                 {0.5, 0.25, 1e10, 0},
                 0.1,
                 {FLT_MAX, -FLT_TRUE_MIN, kNaN, -kInf, -0.0},
                 -7},
        TypeCase{ElementType::kF64,
                 {1.5, -2.25, 3e100, 1e-300},
                 {0.5, 0.25, 1e100, 0},
                 0.1,
                 {DBL_MAX, -DBL_TRUE_MIN, kNaN, kInf},
                 1LL << 53},
        TypeCase{ElementType::kF16,
                 {1.5, -2.25, 100, 0.125},
                 {0.5, 0.25, 3, 0},
                 0.1,
                 {65504, -0x1p-24L, kNaN, kInf},
                 2048},
        TypeCase{ElementType::kBF16,
                 {1.5, -2.25, 256, 0.125},
                 {0.5, 0.25, 1, 0},
                 0.1,
                 {0x1.FEp127L, 0x1p-133L, -kNaN, -kInf},
                 -255},
        TypeCase{ElementType::kPred, {0, 1, 0, 1}, {0, 0, 1, 1}, 1.0, {0, 1, 1, 0}, 1},
        TypeCase{ElementType::kS8, {1, -2, 3, -4}, {10, 20, -30, 40}, -7, {-128, 127}, -128},
        TypeCase{
            ElementType::kS16, {1, -2, 300, -4}, {10, 20, -30, 40}, -7, {-32768, 32767}, 32767},
        TypeCase{ElementType::kS32,
                 {1, -2, 300000, -4},
                 {10, 20, -30, 40},
                 -7,
                 {-2147483648.0L, 2147483647.0L},
                 -2147483648LL},
        TypeCase{ElementType::kS64,
                 {1, -2, 3e15, -4},
                 {10, 20, -30, 40},
                 -7,
                 {LD(std::numeric_limits<int64_t>::min()), LD(std::numeric_limits<int64_t>::max())},
                 std::numeric_limits<int64_t>::min()},
        TypeCase{ElementType::kU8, {1, 2, 3, 200}, {10, 20, 30, 55}, 255, {0, 255}, 255},
        TypeCase{ElementType::kU16, {1, 2, 3, 60000}, {10, 20, 30, 5535}, 65535, {0, 65535}, 7},
        TypeCase{ElementType::kU32,
                 {1, 2, 3, 4e9},
                 {10, 20, 30, 294967295},
                 4294967295.0,
                 {0, 4294967295.0L},
                 4294967295LL},
        TypeCase{ElementType::kU64,
                 {1, 2, 3, 1e19},
                 {10, 20, 30, 4},
                 18446744073709549568.0,
                 {0, LD(std::numeric_limits<uint64_t>::max())},
                 std::numeric_limits<int64_t>::max()}),
    [](const ::testing::TestParamInfo<TypeCase>& info) {
      std::string n = name(info.param.type);
      for (char& ch : n) {
        if (ch == '<' || ch == '>') ch = '_';
      }
      return n;
    });

// complex<f32> and complex<f64>: constants (tuple and NaN forms), add,
// complex/real/imag, convert from a real type and multiply.
TEST(DtypeComplex, ConstantsAndArithmetic) {
  for (ElementType t : {ElementType::kC64, ElementType::kC128}) {
    const bool single = t == ElementType::kC64;
    const ElementType part = single ? ElementType::kF32 : ElementType::kF64;
    HostArray x;
    x.type = t;
    x.dims = {2};
    std::vector<std::complex<double>> xv{{1.5, -2}, {0.25, 4}}, cv{{1, 1}, {-2, 0.5}};
    std::vector<uint8_t> cBytes;
    auto pack = [&](const std::vector<std::complex<double>>& v) {
      std::vector<uint8_t> b;
      for (auto z : v) {
        if (single) {
          std::complex<float> zf(static_cast<float>(z.real()), static_cast<float>(z.imag()));
          const auto* p = reinterpret_cast<const uint8_t*>(&zf);
          b.insert(b.end(), p, p + sizeof(zf));
        } else {
          const auto* p = reinterpret_cast<const uint8_t*>(&z);
          b.insert(b.end(), p, p + sizeof(z));
        }
      }
      return b;
    };
    auto unpack = [&](const HostArray& a) {
      std::vector<std::complex<double>> v;
      if (single) {
        for (auto z : a.values<std::complex<float>>()) v.emplace_back(z.real(), z.imag());
      } else {
        v = a.values<std::complex<double>>();
      }
      return v;
    };
    x.bytes = pack(xv);
    cBytes = pack(cv);
    auto out = run({x}, [&](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
      Value c = f.constantData(TensorType(t, {2}), cBytes.data());
      Value re = f.unary(UnaryOp::kReal, p[0]);
      Value im = f.unary(UnaryOp::kImag, p[0]);
      return {
          f.add(p[0], c),
          f.constantComplex(1.5, -2, t, {2}),
          f.constantComplex(NAN, INFINITY, t),
          f.binary(BinaryOp::kComplex, im, re),
          f.multiply(f.convert(re, t), c),
          f.constant(3, t),
          f.abs(f.constantComplex(3, 4, t)),
      };
    });
    ASSERT_EQ(out.size(), 7u);
    auto sum = unpack(out[0]);
    EXPECT_EQ(sum, (std::vector<std::complex<double>>{xv[0] + cv[0], xv[1] + cv[1]}));
    EXPECT_EQ(unpack(out[1]), (std::vector<std::complex<double>>{{1.5, -2}, {1.5, -2}}));
    auto nan = unpack(out[2]);
    ASSERT_EQ(nan.size(), 1u);
    EXPECT_TRUE(std::isnan(nan[0].real()));
    EXPECT_EQ(nan[0].imag(), INFINITY);
    EXPECT_EQ(unpack(out[3]),
              (std::vector<std::complex<double>>{{-2, 1.5}, {4, 0.25}}));  // complex(im, re)
    EXPECT_EQ(unpack(out[4]), (std::vector<std::complex<double>>{1.5 * cv[0], 0.25 * cv[1]}));
    EXPECT_EQ(unpack(out[5]), (std::vector<std::complex<double>>{{3, 0}}));
    EXPECT_EQ(out[6].type, part);
    expectSame(out[6], part, {}, {5});
  }
}

}  // namespace
}  // namespace torchtpu::hlo::test
