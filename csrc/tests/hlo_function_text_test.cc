// Functions imported from StableHLO text (custom kernels): renaming, the
// signature read from the text, calls checked against it, and runs on the plugin.
#include <string>

#include "hlo/function_text.h"
#include "tests/hlo_testing.h"

namespace torchtpu::hlo::test {
namespace {

// As jax.export writes it: module attributes, argument and result attributes,
// locations, a private helper and a multi-line signature.
const char* kKernel = R"(#loc1 = loc("x")
module @jit_k attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> {mhlo.layout_mode = "default"} loc("x"),
      %arg1: tensor<f32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<3xf32> loc(#loc1)
    %1 = call @helper(%arg0, %0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32> loc(unknown)
  } loc(#loc1)
  func.func private @helper(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.multiply %a, %b : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
} loc(#loc1)
)";

TEST(FunctionText, ReadsTheSignatureAndRenames) {
  FunctionText f = importFunctionText(kKernel, "kernel.k");
  EXPECT_EQ(f.params, (std::vector<TensorType>{TensorType(ElementType::kF32, {3}),
                                               TensorType(ElementType::kF32)}));
  EXPECT_EQ(f.results, (std::vector<TensorType>{TensorType(ElementType::kF32, {3})}));
  EXPECT_NE(f.text.find("func.func private @kernel.k("), std::string::npos);
  EXPECT_NE(f.text.find("call @kernel.k.helper("), std::string::npos);
  EXPECT_EQ(f.text.find("@main"), std::string::npos);
  EXPECT_EQ(f.text.find("loc("), std::string::npos);
  EXPECT_EQ(f.text.find("module"), std::string::npos);
}

TEST(FunctionText, CalledFromABuiltModule) {
  Module m("host");
  const TensorType vec(ElementType::kF32, {3});
  Function& k = m.addFunctionText("kernel.k", kKernel);
  EXPECT_TRUE(k.finished());
  Function& main = m.addFunction("main", {vec}, /*isPublic=*/true);
  Value x = main.add(main.param(0), main.param(0));
  auto r = main.call(k, {x, main.constant(3, ElementType::kF32)});
  main.ret({main.call(k, {r[0], main.constant(-1, ElementType::kF32)})[0]});
  auto out = testing::runProgram(m.toText(), {f32({3}, {1, 2, 3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{-6, -12, -18}));
  // The call is checked against the text's signature.
  Function& other = m.addFunction("other", {TensorType(ElementType::kF16, {3})});
  EXPECT_THROW(other.call(k, {other.param(0), other.constant(1, ElementType::kF32)}),
               std::invalid_argument);
}

TEST(FunctionText, Errors) {
  EXPECT_THROW(importFunctionText("func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {}", "k"),
               std::invalid_argument);  // no @main
  EXPECT_THROW(importFunctionText("func.func @main(%x: tensor<?xf32>) -> tensor<2xf32> {}", "k"),
               std::invalid_argument);  // dynamic shape
  EXPECT_THROW(importFunctionText("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {", "k"),
               std::invalid_argument);  // unbalanced
  EXPECT_THROW(importFunctionText("func.func @main(%x: tensor<2xf32>) {}", "k"),
               std::invalid_argument);  // no results
}

}  // namespace
}  // namespace torchtpu::hlo::test
