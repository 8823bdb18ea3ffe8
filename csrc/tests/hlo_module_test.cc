// Module-level features on the plugin: several functions and func.call,
// argument aliasing and donation attributes, rng_bit_generator,
// optimization_barrier.
#include <bit>

#include "tests/hlo_testing.h"

namespace torchtpu::hlo::test {
namespace {

using Args = std::vector<Value>;

TEST(Module, CallHelpers) {
  Module m("calls");
  const TensorType vec(ElementType::kF32, {3});
  const TensorType scalar(ElementType::kF32);
  // @scale(x, s) -> (x * s, sum(x * s))
  Function& scale = m.addFunction("scale", {vec, scalar});
  {
    Value s = scale.broadcastInDim(scale.param(1), {3}, {});
    Value y = scale.multiply(scale.param(0), s);
    scale.ret({y, scale.reduce(y, scale.constant(0, ElementType::kF32), {0}, BinaryOp::kAdd)});
  }
  // @twice(x) calls @scale with s = 2.
  Function& twice = m.addFunction("twice", {vec});
  twice.ret({twice.call(scale, {twice.param(0), twice.constant(2, ElementType::kF32)})[0]});
  Function& main = m.addFunction("main", {vec, scalar}, /*isPublic=*/true);
  auto r1 = main.call(scale, {main.param(0), main.param(1)});
  auto r2 = main.call(twice, {r1[0]});
  main.ret({r1[0], r1[1], r2[0]});
  EXPECT_EQ(m.find("twice"), &twice);
  EXPECT_EQ(m.find("nope"), nullptr);
  const std::string text = m.toText();
  EXPECT_NE(text.find("func.func private @scale"), std::string::npos);
  EXPECT_NE(text.find("{callee = @twice}"), std::string::npos);
  auto out = testing::runProgram(text, {f32({3}, {1, 2, 3}), f32({}, {-1.5})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{-1.5, -3, -4.5}));
  EXPECT_EQ(out[1].values<float>(), (std::vector<float>{-9}));
  EXPECT_EQ(out[2].values<float>(), (std::vector<float>{-3, -6, -9}));
}

TEST(Module, AliasingAndDonation) {
  Module m("alias");
  const TensorType t(ElementType::kF32, {4});
  Function& f = m.addFunction("main", {t, t, t}, true);
  f.aliasParamToOutput(0, 1);
  f.markDonor(2);
  Value sum = f.add(f.param(0), f.param(1));
  f.ret({f.multiply(f.param(1), f.param(2)), sum});
  const std::string text = m.toText();
  EXPECT_NE(text.find("%arg0: tensor<4xf32> {tf.aliasing_output = 1 : i32}"), std::string::npos)
      << text;
  EXPECT_NE(text.find("%arg2: tensor<4xf32> {jax.buffer_donor = true}"), std::string::npos);
  auto out = testing::runProgram(
      text, {f32({4}, {1, 2, 3, 4}), f32({4}, {10, 20, 30, 40}), f32({4}, {2, 2, 2, 2})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{20, 40, 60, 80}));
  EXPECT_EQ(out[1].values<float>(), (std::vector<float>{11, 22, 33, 44}));
}

double fractionOfOneBits(const std::vector<uint8_t>& bytes) {
  int64_t ones = 0;
  for (uint8_t b : bytes) ones += std::popcount(b);
  return static_cast<double>(ones) / (8.0 * static_cast<double>(bytes.size()));
}

// Bits are deterministic per state, differ between states, look balanced, and
// the state advances.
TEST(Module, RngBitGenerator) {
  struct Case {
    RngAlgorithm alg;
    int64_t stateSize;
    ElementType out;
  };
  for (const Case& c : {Case{RngAlgorithm::kThreeFry, 2, ElementType::kU32},
                        Case{RngAlgorithm::kPhilox, 3, ElementType::kU64},
                        Case{RngAlgorithm::kDefault, 2, ElementType::kU32}}) {
    const std::string name(rngAlgorithmName(c.alg));
    auto runWith = [&](std::vector<uint64_t> state) {
      return run({arr<uint64_t>(ElementType::kU64, {c.stateSize}, state)},
                 [&](Function& f, const Args& p) -> Args {
                   auto [s, bits] = f.rngBitGenerator(p[0], c.alg, TensorType(c.out, {64, 16}));
                   return {s, bits};
                 });
    };
    std::vector<uint64_t> s1(c.stateSize, 0), s2(c.stateSize, 0);
    s1[0] = 42;
    s2[0] = 43;
    auto a = runWith(s1), b = runWith(s1), d = runWith(s2);
    ASSERT_EQ(a.size(), 2u) << name;
    EXPECT_EQ(a[1].type, c.out) << name;
    EXPECT_EQ(a[1].dims, (std::vector<int64_t>{64, 16})) << name;
    EXPECT_EQ(a[1].bytes, b[1].bytes) << name;
    EXPECT_NE(a[1].bytes, d[1].bytes) << name;
    EXPECT_NE(a[0].values<uint64_t>(), s1) << name;
    EXPECT_NEAR(fractionOfOneBits(a[1].bytes), 0.5, 0.02) << name;
  }
}

TEST(Module, OptimizationBarrier) {
  auto out = run({f32({2}, {1, 2}), i32({}, {7})}, [](Function& f, const Args& p) -> Args {
    auto r = f.optimizationBarrier({f.add(p[0], p[0]), p[1]});
    return {r[0], r[1]};
  });
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(out[1].values<int32_t>(), (std::vector<int32_t>{7}));
}

// A program without outputs and one returning a parameter unchanged.
TEST(Module, EdgeSignatures) {
  auto none = run({f32({2}, {1, 2})}, [](Function&, const Args&) -> Args { return {}; });
  EXPECT_TRUE(none.empty());
  auto same =
      run({f32({2}, {1, 2})}, [](Function&, const Args& p) -> Args { return {p[0], p[0]}; });
  ASSERT_EQ(same.size(), 2u);
  EXPECT_EQ(same[1].values<float>(), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace torchtpu::hlo::test
