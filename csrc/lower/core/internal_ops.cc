// Lowerings of torchtpu's own ops, used by copies and host reads.
#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

// torchtpu::copy(self, src): src converted to self's dtype and broadcast to
// its shape; the bridge writes it into self's view.
std::vector<Value> lowerCopy(LowerCtx& c) {
  const TensorType& out = c.result();
  return {fit(c.fn, c.tensor("src"), out.dtype, out.dims)};
}

// torchtpu::dense(self): the view's values as a new dense array.
std::vector<Value> lowerDense(LowerCtx& c) { return {c.tensor("self")}; }

const Registrar kCopy({"torchtpu::copy"}, lowerCopy);
const Registrar kDense({"torchtpu::dense"}, lowerDense);

}  // namespace
}  // namespace torchtpu::lower
