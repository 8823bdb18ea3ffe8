// The execution layer without PyTorch: single-op programs built from an op
// call (a broadcast with a runtime scalar, an in-place op writing through a
// view) run on the plugin; the growing-dimension watcher; profile spans.
#include <thread>

#include "exec/op_program.h"
#include "exec/profile_events.h"
#include "exec/recompile_explainer.h"
#include "tests/hlo_testing.h"
#include "tests/ir_testing.h"

namespace torchtpu::exec {
namespace {

using hlo::test::f32;
using runtime::ElementType;
using testing::HostArray;

using ir::test::tensorArg;
using ir::test::view;

// aten::add(self, other, alpha) over arrays 0 and 1, alpha a runtime f64.
ir::OpCall addCall(const std::string& op, ir::TensorRef self, ir::TensorRef other,
                   std::vector<hlo::TensorType> arrays, std::vector<int64_t> resultDims) {
  ir::OpCall c;
  c.op = op;
  c.argNames = {"self", "other", "alpha"};
  c.args = {tensorArg(std::move(self)), tensorArg(std::move(other))};
  ir::ArgValue alpha;
  alpha.kind = ir::ArgValue::Kind::kScalar;
  alpha.scalar = 0;
  c.args.push_back(alpha);
  c.arrays = std::move(arrays);
  c.scalars = {hlo::TensorType(ElementType::kF64)};
  c.results = {hlo::TensorType(ElementType::kF32, std::move(resultDims))};
  return c;
}

HostArray f64Scalar(double v) { return HostArray::of<double>(ElementType::kF64, {}, {v}); }

TEST(OpProgram, BroadcastWithARuntimeScalar) {
  // self: f32[2, 3] (a whole array), other: f32[3] broadcast; out = self + 2 * other.
  const ir::OpCall call = addCall(
      "aten::add.Tensor", view(0, {2, 3}, {3, 1}), view(1, {3}, {1}),
      {hlo::TensorType(ElementType::kF32, {6}), hlo::TensorType(ElementType::kF32, {3})}, {2, 3});
  const OpProgram p = buildOpProgram(call);
  EXPECT_EQ(p.numNewResults, 1);
  EXPECT_TRUE(p.updatedArrays.empty());
  auto out = testing::runProgram(
      p.text, {f32({6}, {1, 2, 3, 4, 5, 6}), f32({3}, {10, 20, 30}), f64Scalar(2.0)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{21, 42, 63, 24, 45, 66}));
  // The same program serves another alpha: it is a parameter, not a constant.
  out = testing::runProgram(
      p.text, {f32({6}, {1, 2, 3, 4, 5, 6}), f32({3}, {10, 20, 30}), f64Scalar(-1.0)});
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{-9, -18, -27, -6, -15, -24}));
}

TEST(OpProgram, InPlaceOpWritesThroughAView) {
  // x = arange(8); x[2:5].add_(y, alpha=1): the program returns the whole
  // updated storage, the rest of it unchanged.
  ir::OpCall call = addCall(
      "aten::add_.Tensor", view(0, {3}, {1}, 2), view(1, {3}, {1}),
      {hlo::TensorType(ElementType::kF32, {8}), hlo::TensorType(ElementType::kF32, {3})}, {3});
  call.writeBack = {ir::OpCall::WriteTarget{0, -1}};
  const OpProgram p = buildOpProgram(call);
  EXPECT_EQ(p.numNewResults, 0);
  EXPECT_EQ(p.updatedArrays, (std::vector<int>{0}));
  auto out = testing::runProgram(
      p.text, {f32({8}, {0, 1, 2, 3, 4, 5, 6, 7}), f32({3}, {100, 100, 100}), f64Scalar(1.0)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{0, 1, 102, 103, 104, 5, 6, 7}));
}

TEST(OpProgram, AnOpWithoutALoweringIsALoweringError) {
  ir::OpCall call = addCall(
      "aten::no_such_op", view(0, {3}, {1}), view(1, {3}, {1}),
      {hlo::TensorType(ElementType::kF32, {3}), hlo::TensorType(ElementType::kF32, {3})}, {3});
  EXPECT_THROW(buildOpProgram(call), lower::LoweringError);
}

// ---- the growing-dimension watcher ------------------------------------------------

TraceSummary oneOpTrace(const ir::OpCall& call, const std::string& key, const SmallInts& arrays) {
  TraceSummary t;
  t.nodes.push_back({&call, &key, &arrays, nullptr});
  return t;
}

ir::OpCall growing(int64_t n) {
  return addCall("aten::add.Tensor", view(0, {n}, {1}), view(1, {n}, {1}),
                 {hlo::TensorType(ElementType::kF32, {n}), hlo::TensorType(ElementType::kF32, {n})},
                 {n});
}

TEST(GrowthWatcher, WarnsOnceWhenADimensionKeepsGrowing) {
  clearRecompileReport();
  const std::string key = "k";
  SmallInts arrays;
  arrays.push_back(-1);
  arrays.push_back(-2);
  for (int64_t n = 10; n < 10 + kGrowthWarnAfter; ++n) {
    const ir::OpCall c = growing(n);
    watchTraceGrowth(oneOpTrace(c, key, arrays));
  }
  EXPECT_TRUE(growthWarnings().empty());  // kGrowthWarnAfter programs: not yet
  for (int64_t n = 10 + kGrowthWarnAfter; n < 20 + kGrowthWarnAfter; ++n) {
    const ir::OpCall c = growing(n);
    watchTraceGrowth(oneOpTrace(c, key, arrays));
  }
  const std::vector<std::string> w = growthWarnings();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("dimension 0 of self of op #0 aten::add.Tensor: 10 -> 14"), std::string::npos)
      << w[0];
  clearRecompileReport();
}

TEST(GrowthWatcher, ShapesThatShrinkStartOver) {
  clearRecompileReport();
  const std::string key = "k";
  SmallInts arrays;
  arrays.push_back(-1);
  arrays.push_back(-2);
  for (int round = 0; round < 4; ++round) {
    for (int64_t n : {20, 21, 22}) {  // grows twice, then shrinks
      const ir::OpCall c = growing(n);
      watchTraceGrowth(oneOpTrace(c, key, arrays));
    }
  }
  EXPECT_TRUE(growthWarnings().empty());
  clearRecompileReport();
}

// ---- profile spans -----------------------------------------------------------------

TEST(ProfileEvents, HostSpansRecordOnlyWhileProfiling) {
  {
    HostSpan before(SpanKind::kCompile, "before");
  }
  beginProfile();
  EXPECT_TRUE(profiling());
  {
    HostSpan s(SpanKind::kFlush, "tpu::flush", 0);
    ASSERT_TRUE(s.active());
    s.detail("reason", std::string("value needed"));
    s.detail("ops", int64_t{7});
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::vector<ProfileSpan> spans = endProfile(1.0);
  EXPECT_FALSE(profiling());
  {
    HostSpan after(SpanKind::kCompile, "after");
  }
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].name, "tpu::flush");
  EXPECT_EQ(spans[0].device, 0);
  EXPECT_GE(spans[0].endNs - spans[0].startNs, 2'000'000);
  ASSERT_EQ(spans[0].details.size(), 2u);
  EXPECT_EQ(spans[0].details[0].value, "value needed");
  EXPECT_TRUE(spans[0].details[0].quoted);
  EXPECT_EQ(spans[0].details[1].value, "7");
  EXPECT_FALSE(spans[0].details[1].quoted);
  beginProfile();
  EXPECT_TRUE(endProfile(1.0).empty());  // nothing left over from before
}

}  // namespace
}  // namespace torchtpu::exec
