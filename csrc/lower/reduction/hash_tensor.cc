// aten::hash_tensor: the xor of the elements' 64-bit patterns over the given
// dims (mode 0, PyTorch's only mode). Floats count as their float64 bits,
// integers and bools as their value sign-extended to 64 bits.
#include <vector>

#include "lower/core/common.h"
#include "lower/core/lowering.h"

namespace torchtpu::lower {
namespace {

std::vector<Value> lowerHashTensor(LowerCtx& c) {
  Function& fn = c.fn;
  if (c.i("mode") != 0) c.fail("only mode 0 (xor_sum) exists");
  Value x = c.tensor("self");
  if (runtime::isComplex(x.dtype())) c.fail("complex inputs are not supported");
  Value bits = runtime::isFloating(x.dtype())
                   ? fn.bitcastConvert(castTo(fn, x, ElementType::kF64), ElementType::kU64)
                   : fn.bitcastConvert(castTo(fn, x, ElementType::kS64), ElementType::kU64);
  if (bits.rank() == 0) bits = fn.reshape(bits, {1});  // a 0-d input's dim 0 / -1
  const std::vector<int64_t> dims = normDims(c.ints("dim"), bits.rank(), true);
  Value h = fn.reduce(bits, fn.constantInt(0, ElementType::kU64), dims, hlo::BinaryOp::kXor);
  return {fn.reshape(h, c.result().dims)};
}

const Registrar kHashTensor({"aten::hash_tensor", "aten::hash_tensor.out"}, lowerHashTensor);

}  // namespace
}  // namespace torchtpu::lower
