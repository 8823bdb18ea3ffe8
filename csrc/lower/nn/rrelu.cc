// aten::rrelu_with_noise: in training, negative inputs are scaled by a
// uniform draw from [lower, upper], recorded in `noise` (1 for the others);
// in eval, by the fixed slope (lower + upper) / 2 and `noise` is untouched.
#include <vector>

#include "lower/core/common.h"
#include "lower/core/lowering.h"
#include "lower/random/random_bits.h"

namespace torchtpu::lower {
namespace {

std::vector<Value> lowerRreluWithNoise(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const ElementType t = out.dtype;
  if (!runtime::isFloating(t)) c.fail("rrelu needs a floating-point input");
  const ElementType ct = computeType(t);
  Value x = castTo(fn, c.tensor("self"), ct);
  Value lower = fn.broadcastInDim(castTo(fn, c.scalar("lower"), ct), x.dims(), {});
  Value upper = fn.broadcastInDim(castTo(fn, c.scalar("upper"), ct), x.dims(), {});
  Value neg = fn.compare(x, fn.constant(0, ct, x.dims()), hlo::ComparisonDirection::kLt);
  std::vector<Value> results;
  Value slope;
  std::optional<Value> noise;
  if (c.b("training")) {
    Value u = uniform01(c, t, x.dims());
    Value r = fn.add(fn.multiply(u, fn.subtract(upper, lower)), lower);
    slope = fn.select(neg, r, fn.constant(1, ct, x.dims()));
    noise = slope;
  } else {
    Value mid = fn.divide(fn.add(lower, upper), fn.constant(2, ct, x.dims()));
    slope = fn.select(neg, mid, fn.constant(1, ct, x.dims()));
  }
  results.push_back(castTo(fn, fn.multiply(x, slope), t));
  // The bridge asks for `noise` after the returns when the op writes it.
  int noiseArg = -1;
  for (size_t k = 0; k < c.call.argNames.size(); ++k) {
    if (c.call.argNames[k] == "noise") noiseArg = static_cast<int>(k);
  }
  for (size_t j = 1; j < c.results().size(); ++j) {
    const int target = j < c.call.writeBack.size() ? c.call.writeBack[j].arg : -1;
    if (target != noiseArg) c.fail("unexpected extra result " + std::to_string(j));
    Value old = c.tensor("noise");
    results.push_back(noise ? fn.reshape(castTo(fn, *noise, old.dtype()), old.dims()) : old);
  }
  if (noise && results.size() == 1) c.fail("training writes noise: needs the bridge to write it");
  return results;
}

const Registrar kRreluWithNoise({"aten::rrelu_with_noise", "aten::rrelu_with_noise_",
                                 "aten::rrelu_with_noise.out"},
                                lowerRreluWithNoise);

}  // namespace
}  // namespace torchtpu::lower
