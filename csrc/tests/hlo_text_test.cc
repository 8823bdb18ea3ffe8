// The builder's text without a device: types, literals, attributes, whole
// op lines and a whole module, checked against expected strings.
#include <gtest/gtest.h>

#include <cmath>

#include "hlo/literal.h"
#include "hlo/module.h"

namespace torchtpu::hlo {
namespace {

TEST(Text, TensorTypes) {
  EXPECT_EQ(TensorType(ElementType::kF32, {2, 3}).str(), "tensor<2x3xf32>");
  EXPECT_EQ(TensorType(ElementType::kF32).str(), "tensor<f32>");
  EXPECT_EQ(TensorType(ElementType::kC64, {0, 4}).str(), "tensor<0x4xcomplex<f32>>");
  EXPECT_EQ(TensorType(ElementType::kU8, {4}).str(), "tensor<4xui8>");
  EXPECT_EQ(TensorType(ElementType::kPred).str(), "tensor<i1>");
  EXPECT_EQ(TensorType(ElementType::kBF16, {1, 1, 7}).str(), "tensor<1x1x7xbf16>");
  EXPECT_EQ(TensorType(ElementType::kS64, {2, 5}).numElements(), 10);
  EXPECT_EQ(TensorType(ElementType::kS64).numElements(), 1);
  EXPECT_EQ(TensorType(ElementType::kS64, {3, 0}).numElements(), 0);
  EXPECT_EQ(TensorType(ElementType::kF32, {2}), TensorType(ElementType::kF32, {2}));
  EXPECT_NE(TensorType(ElementType::kF32, {2}), TensorType(ElementType::kF16, {2}));
}

TEST(Text, Literals) {
  EXPECT_EQ(elementLiteral(0.5, ElementType::kF32), "5.0e-01");
  EXPECT_EQ(elementLiteral(0.1, ElementType::kF64), "1.0e-01");
  EXPECT_EQ(elementLiteral(0.1, ElementType::kF32), "1.0000000149011612e-01");  // float(0.1)
  EXPECT_EQ(elementLiteral(-0.0, ElementType::kF64), "-0.0e+00");
  EXPECT_EQ(elementLiteral(NAN, ElementType::kF32), "0x7FC00000");
  EXPECT_EQ(elementLiteral(-INFINITY, ElementType::kBF16), "0xFF80");
  EXPECT_EQ(elementLiteral(INFINITY, ElementType::kF64), "0x7FF0000000000000");
  EXPECT_EQ(elementLiteral(1e6, ElementType::kF16), "0x7C00");  // overflows to inf
  EXPECT_EQ(elementLiteral(3.0, ElementType::kS8), "3");
  EXPECT_EQ(elementLiteral(-128.0, ElementType::kS8), "-128");
  EXPECT_EQ(elementLiteral(18446744073709549568.0, ElementType::kU64), "18446744073709549568");
  EXPECT_EQ(elementLiteral(int64_t{-5}, ElementType::kS64), "-5");
  EXPECT_EQ(elementLiteral(2.0, ElementType::kPred), "true");
  EXPECT_EQ(elementLiteral(int64_t{0}, ElementType::kPred), "false");
  EXPECT_EQ(elementLiteral(2.0, ElementType::kC64), "(2.0e+00, 0.0e+00)");
  EXPECT_EQ(complexLiteral(1, -2, ElementType::kC128), "(1.0e+00, -2.0e+00)");
  EXPECT_EQ(complexLiteral(NAN, 0, ElementType::kC64), "\"0x0000C07F00000000\"");
  EXPECT_THROW(elementLiteral(3.5, ElementType::kS32), std::invalid_argument);
  EXPECT_THROW(elementLiteral(128.0, ElementType::kS8), std::invalid_argument);
  EXPECT_THROW(elementLiteral(-1.0, ElementType::kU32), std::invalid_argument);
  EXPECT_THROW(elementLiteral(NAN, ElementType::kS64), std::invalid_argument);
  EXPECT_THROW(elementLiteral(int64_t{256}, ElementType::kU8), std::invalid_argument);
  EXPECT_THROW(elementLiteral(int64_t{-1}, ElementType::kU64), std::invalid_argument);
}

// Round to nearest, ties to even, in the 16-bit formats.
TEST(Text, RoundToFloatType) {
  EXPECT_EQ(roundToFloatType(1 + std::ldexp(1.0, -8), ElementType::kBF16), 1.0);  // tie -> even
  EXPECT_EQ(roundToFloatType(1 + 3 * std::ldexp(1.0, -8), ElementType::kBF16),
            1 + std::ldexp(1.0, -6));
  EXPECT_EQ(roundToFloatType(std::ldexp(1.0, -25), ElementType::kF16), 0.0);  // subnormal tie
  EXPECT_EQ(roundToFloatType(3 * std::ldexp(1.0, -25), ElementType::kF16), std::ldexp(1.0, -23));
  EXPECT_EQ(roundToFloatType(65519, ElementType::kF16), 65504);
  EXPECT_EQ(roundToFloatType(65520, ElementType::kF16), INFINITY);
  EXPECT_EQ(roundToFloatType(-1e39, ElementType::kBF16), -INFINITY);
  EXPECT_EQ(roundToFloatType(0.1, ElementType::kF32), static_cast<double>(0.1f));
  EXPECT_TRUE(std::isnan(roundToFloatType(NAN, ElementType::kF16)));
}

TEST(Text, Attributes) {
  EXPECT_EQ(i64ArrayAttr({}), "array<i64>");
  EXPECT_EQ(i64ArrayAttr({1, -2}), "array<i64: 1, -2>");
  EXPECT_EQ(paddingAttr({{1, 2}, {0, -1}}), "dense<[[1, 2], [0, -1]]> : tensor<2x2xi64>");
  EXPECT_EQ((DotDims{{0}, {0}, {2}, {1}}).attr(),
            "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
            "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>");
  EXPECT_EQ((DotDims{{}, {}, {1}, {0}}).attr(),
            "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>");
  EXPECT_EQ(ConvDims::channelsFirst(2).attr(),
            "#stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>");
  EXPECT_EQ(ConvDims::channelsLast(2).attr(),
            "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>");
  EXPECT_EQ((GatherDims{{1}, {0}, {}, {}, {0}, 1}).attr(),
            "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
            "start_index_map = [0], index_vector_dim = 1>");
  EXPECT_EQ((GatherDims{{}, {1}, {0}, {0}, {1}, 2}).attr(),
            "#stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], "
            "start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>");
  EXPECT_EQ((ScatterDims{{1}, {0}, {}, {}, {0}, 1}).attr(),
            "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], "
            "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>");
  EXPECT_EQ(precisionConfigAttr(Precision::kDefault), "");
  EXPECT_EQ(precisionConfigAttr(Precision::kHighest),
            "precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]");
}

TEST(Text, DenseData) {
  const uint8_t bools[] = {1, 0, 0, 1};
  EXPECT_EQ(denseDataAttr(TensorType(ElementType::kPred, {2, 2}), bools),
            "dense<[[true, false], [false, true]]> : tensor<2x2xi1>");
  EXPECT_EQ(denseDataAttr(TensorType(ElementType::kPred), bools), "dense<true> : tensor<i1>");
  const float one = 1.0f;
  EXPECT_EQ(denseDataAttr(TensorType(ElementType::kF32, {1}), &one),
            "dense<\"0x0000803F\"> : tensor<1xf32>");
  const int16_t s[] = {1, -2};
  EXPECT_EQ(denseDataAttr(TensorType(ElementType::kS16, {2}), s),
            "dense<\"0x0100FEFF\"> : tensor<2xi16>");
  EXPECT_EQ(denseDataAttr(TensorType(ElementType::kF32, {0, 3}), nullptr),
            "dense<> : tensor<0x3xf32>");
}

TEST(Text, WholeModule) {
  Module m("m");
  Function& f = m.addFunction(
      "main", {TensorType(ElementType::kF32, {2, 3}), TensorType(ElementType::kF32, {3})}, true);
  Value b = f.broadcastInDim(f.param(1), {2, 3}, {1});
  f.ret({f.add(f.param(0), b)});
  EXPECT_EQ(m.toText(),
            "module @m {\n"
            "  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> "
            "(tensor<2x3xf32>) {\n"
            "    %2 = \"stablehlo.broadcast_in_dim\"(%arg1) {broadcast_dimensions = array<i64: 1>}"
            " : (tensor<3xf32>) -> tensor<2x3xf32>\n"
            "    %3 = \"stablehlo.add\"(%arg0, %2) : (tensor<2x3xf32>, tensor<2x3xf32>) -> "
            "tensor<2x3xf32>\n"
            "    \"func.return\"(%3) : (tensor<2x3xf32>) -> ()\n"
            "  }\n"
            "}\n");
}

TEST(Text, OpLines) {
  Module m("m");
  const TensorType t(ElementType::kF32, {4});
  Function& f = m.addFunction("main", {t, TensorType(ElementType::kS32, {4})}, true);
  Value c =
      f.compare(f.param(0), f.param(0), ComparisonDirection::kGe, ComparisonType::kTotalOrder);
  Value u = f.compare(f.param(1), f.param(1), ComparisonDirection::kLt, ComparisonType::kSigned);
  Value k = f.constant(1.5, ElementType::kF32, {4});
  Value s = f.reduce(f.param(0), f.constant(0, ElementType::kF32), {0}, BinaryOp::kMaximum);
  Value rng = f.rngBitGenerator(f.constantInt(0, ElementType::kU64, {2}), RngAlgorithm::kThreeFry,
                                TensorType(ElementType::kU32, {3}))
                  .second;
  f.ret({c, u, k, s, rng});
  const std::string text = m.toText();
  auto contains = [&](const std::string& line) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing:\n" << line << "\nin:\n" << text;
  };
  contains(
      "%2 = \"stablehlo.compare\"(%arg0, %arg0) {comparison_direction = "
      "#stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type "
      "TOTALORDER>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>");
  contains("compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4xi32>, tensor<4xi32>)");
  contains(
      "%4 = \"stablehlo.constant\"() {value = dense<1.5e+00> : tensor<4xf32>} : () -> "
      "tensor<4xf32>");
  contains(
      "%9 = \"stablehlo.reduce\"(%arg0, %5) ({\n"
      "    ^bb0(%6: tensor<f32>, %7: tensor<f32>):\n"
      "      %8 = \"stablehlo.maximum\"(%6, %7) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
      "      \"stablehlo.return\"(%8) : (tensor<f32>) -> ()\n"
      "    }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>");
  contains(
      "%11, %12 = \"stablehlo.rng_bit_generator\"(%10) {rng_algorithm = "
      "#stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, "
      "tensor<3xui32>)");
}

}  // namespace
}  // namespace torchtpu::hlo
