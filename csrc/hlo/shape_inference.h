// Result types of the StableHLO ops, computed from operand types and
// attributes per the StableHLO spec. Every function throws
// std::invalid_argument naming the op and the operand types when the
// operands or attributes are not valid for the op.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "hlo/attr_text.h"
#include "hlo/comparison.h"
#include "hlo/conv_dims.h"
#include "hlo/dot_dims.h"
#include "hlo/elementwise_ops.h"
#include "hlo/fft_type.h"
#include "hlo/gather_dims.h"
#include "hlo/rng_algorithm.h"
#include "hlo/scatter_dims.h"
#include "hlo/types.h"

namespace torchtpu::hlo::infer {

using Types = std::vector<TensorType>;

TensorType unary(UnaryOp op, const TensorType& x);
TensorType binary(BinaryOp op, const TensorType& a, const TensorType& b);
TensorType compare(const TensorType& a, const TensorType& b, ComparisonDirection dir,
                   ComparisonType type);
TensorType select(const TensorType& pred, const TensorType& onTrue, const TensorType& onFalse);
TensorType clamp(const TensorType& min, const TensorType& x, const TensorType& max);
TensorType convert(const TensorType& x, ElementType to);
TensorType bitcastConvert(const TensorType& x, ElementType to);
TensorType reducePrecision(const TensorType& x, int32_t exponentBits, int32_t mantissaBits);
TensorType iota(const TensorType& t, int64_t dim);

// FFT over the trailing fftLength.size() dims (1 to 3).
TensorType fft(const TensorType& x, FftType type, const std::vector<int64_t>& fftLength);
// a: [..., n, n] floating or complex.
TensorType cholesky(const TensorType& a);
// a: [..., n, n]; b: [..., n, k] (left side) or [..., k, n] (right side).
TensorType triangularSolve(const TensorType& a, const TensorType& b, bool leftSide);

TensorType broadcastInDim(const TensorType& x, const std::vector<int64_t>& outDims,
                          const std::vector<int64_t>& broadcastDims);
TensorType reshape(const TensorType& x, const std::vector<int64_t>& dims);
TensorType transpose(const TensorType& x, const std::vector<int64_t>& perm);
TensorType reverse(const TensorType& x, const std::vector<int64_t>& dims);
TensorType slice(const TensorType& x, const std::vector<int64_t>& start,
                 const std::vector<int64_t>& limit, const std::vector<int64_t>& strides);
TensorType dynamicSlice(const TensorType& x, const Types& startIndices,
                        const std::vector<int64_t>& sizes);
TensorType dynamicUpdateSlice(const TensorType& x, const TensorType& update,
                              const Types& startIndices);
TensorType concatenate(const Types& xs, int64_t dim);
TensorType pad(const TensorType& x, const TensorType& padValue, const std::vector<int64_t>& lo,
               const std::vector<int64_t>& hi, const std::vector<int64_t>& interior);

TensorType dotGeneral(const TensorType& lhs, const TensorType& rhs, const DotDims& dims,
                      std::optional<ElementType> resultType);
TensorType convolution(const TensorType& lhs, const TensorType& rhs, const ConvDims& dims,
                       const std::vector<int64_t>& strides, const std::vector<PadPair>& padding,
                       const std::vector<int64_t>& lhsDilation,
                       const std::vector<int64_t>& rhsDilation, int64_t featureGroupCount,
                       int64_t batchGroupCount, std::optional<ElementType> resultType);

// Reductions return one type per input; the body takes the init types (as
// scalars) twice and returns them once.
Types reduce(const Types& inputs, const Types& inits, const std::vector<int64_t>& dims);
Types reduceWindow(const Types& inputs, const Types& inits, const std::vector<int64_t>& windowDims,
                   const std::vector<int64_t>& windowStrides,
                   const std::vector<int64_t>& baseDilations,
                   const std::vector<int64_t>& windowDilations,
                   const std::vector<PadPair>& padding);
TensorType gather(const TensorType& operand, const TensorType& indices, const GatherDims& d,
                  const std::vector<int64_t>& sliceSizes);
Types scatter(const Types& inputs, const TensorType& indices, const Types& updates,
              const ScatterDims& d);
// Checks `dim` (already made non-negative) against the inputs; returns their types.
Types sort(const Types& inputs, int64_t dim);
TensorType selectAndScatter(const TensorType& operand, const TensorType& source,
                            const TensorType& init, const std::vector<int64_t>& windowDims,
                            const std::vector<int64_t>& windowStrides,
                            const std::vector<PadPair>& padding);
// (new state type, output type)
std::pair<TensorType, TensorType> rngBitGenerator(const TensorType& state, RngAlgorithm alg,
                                                  const TensorType& out);

}  // namespace torchtpu::hlo::infer
