// Dimension numbers of stablehlo.convolution.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchtpu::hlo {

// Where the batch, feature and spatial dimensions sit in the input (lhs), the
// kernel (rhs) and the output. All three tensors have rank spatialRank() + 2,
// and each field set must name every dimension exactly once.
struct ConvDims {
  int64_t inputBatch = 0;
  int64_t inputFeature = 1;
  std::vector<int64_t> inputSpatial;
  int64_t kernelInputFeature = 1;
  int64_t kernelOutputFeature = 0;
  std::vector<int64_t> kernelSpatial;
  int64_t outputBatch = 0;
  int64_t outputFeature = 1;
  std::vector<int64_t> outputSpatial;

  // PyTorch's layout: input N C D..., kernel O I D..., output N C D...
  static ConvDims channelsFirst(int64_t spatialRank);
  // TensorFlow/JAX's default: input N D... C, kernel D... I O, output N D... C.
  static ConvDims channelsLast(int64_t spatialRank);

  int64_t spatialRank() const { return static_cast<int64_t>(inputSpatial.size()); }

  // Throws std::invalid_argument (naming `op`) unless the three layouts are
  // permutations of 0..spatialRank()+1 with equal spatial counts.
  void validate(const std::string& op) const;

  // The compact form "#stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>".
  // Calls validate().
  std::string attr() const;
};

}  // namespace torchtpu::hlo
