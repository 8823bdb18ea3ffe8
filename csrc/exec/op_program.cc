#include "exec/op_program.h"

#include <algorithm>

#include "hlo/module.h"
#include "lower/core/lowering.h"
#include "lower/core/views.h"

namespace torchtpu::exec {
namespace {

using hlo::TensorType;
using hlo::Value;
using Kind = ir::ArgValue::Kind;

// Converts a lowering's result to the type PyTorch expects.
Value fitResult(hlo::Function& fn, Value v, const TensorType& want, const std::string& op,
                size_t index) {
  if (v.dtype() != want.dtype) v = fn.convert(v, want.dtype);
  if (v.dims() != want.dims) {
    if (v.t().numElements() == want.numElements()) {
      v = fn.reshape(v, want.dims);
    } else {
      throw lower::LoweringError(op + ": result " + std::to_string(index) + " has shape " +
                                 hlo::dimsStr(v.dims()) + " but PyTorch expects " +
                                 hlo::dimsStr(want.dims));
    }
  }
  return v;
}

ir::OpCall::WriteTarget targetOf(const ir::OpCall& call, size_t j) {
  return j < call.writeBack.size() ? call.writeBack[j] : ir::OpCall::WriteTarget{};
}

const ir::TensorRef& targetRef(const ir::OpCall& call, const ir::OpCall::WriteTarget& t) {
  const ir::ArgValue& arg = call.args[t.arg];
  return t.element < 0 ? arg.tensor : arg.tensors[t.element];
}

}  // namespace

Value zeros(hlo::Function& fn, const TensorType& t) {
  return t.dtype == runtime::ElementType::kPred || runtime::isInteger(t.dtype)
             ? fn.constantInt(0, t.dtype, t.dims)
             : fn.constant(0, t.dtype, t.dims);
}

std::vector<int> updatedArrayOrder(const ir::OpCall& call) {
  std::vector<int> out;
  for (size_t j = 0; j < call.results.size(); ++j) {
    const auto t = targetOf(call, j);
    if (t.arg < 0) continue;
    const int a = targetRef(call, t).array;
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  return out;
}

EmittedOp emitOpCall(hlo::Function& fn, const ir::OpCall& call, const std::vector<Value>& arrays,
                     const std::vector<Value>& scalars, bool withChecks) {
  const lower::LowerFn* lowering = lower::findLowering(call.op);
  if (lowering == nullptr) throw lower::LoweringError(call.op + ": no lowering");

  std::vector<std::vector<Value>> values(call.args.size());
  for (size_t k = 0; k < call.args.size(); ++k) {
    const ir::ArgValue& a = call.args[k];
    if (a.kind == Kind::kTensor && a.tensor.present()) {
      values[k].push_back(lower::readView(fn, arrays[a.tensor.array], a.tensor));
    } else if (a.kind == Kind::kTensorList) {
      for (const auto& t : a.tensors) {
        if (t.present()) values[k].push_back(lower::readView(fn, arrays[t.array], t));
      }
    } else if (a.kind == Kind::kScalar || a.kind == Kind::kRng) {
      values[k].push_back(scalars[a.scalar]);
    }
  }

  lower::LowerCtx ctx(fn, call, values);
  std::vector<Value> results = (*lowering)(ctx);
  if (results.size() != call.results.size()) {
    throw lower::LoweringError(call.op + ": the lowering returned " +
                               std::to_string(results.size()) + " result(s), PyTorch expects " +
                               std::to_string(call.results.size()));
  }

  EmittedOp out;
  out.declaredChecks = static_cast<int>(ctx.checks().size());
  if (withChecks) {
    for (const lower::CheckFn& check : ctx.checks()) out.checks.push_back(check(fn));
  }
  std::vector<Value> current = arrays;
  for (size_t j = 0; j < results.size(); ++j) {
    const auto target = targetOf(call, j);
    if (target.arg == ir::OpCall::kDiscard) continue;
    Value r = fitResult(fn, results[j], call.results[j], call.op, j);
    if (target.arg < 0) {
      if (j < call.resultOrder.size() && !call.resultOrder[j].empty()) {
        r = fn.transpose(r, call.resultOrder[j]);  // stored in PyTorch's layout
      }
      out.newResults.push_back(r);
      continue;
    }
    const ir::TensorRef& ref = targetRef(call, target);
    if (r.dtype() != ref.dtype) r = fn.convert(r, ref.dtype);
    current[ref.array] = lower::writeView(fn, current[ref.array], ref, r);
  }
  out.updatedArrays = updatedArrayOrder(call);
  for (int a : out.updatedArrays) out.updatedValues.push_back(current[a]);
  return out;
}

hlo::Value bakedScalar(hlo::Function& fn, const hlo::TensorType& t, const void* data) {
  hlo::Value v = fn.constantData(t, data);
  // Integer zeros too: 0 + x converts the number 0 to x's floating type.
  if (!runtime::isFloating(t.dtype) && !runtime::isInteger(t.dtype)) return v;
  const size_t width = runtime::elementByteSize(t.dtype);
  const auto* bytes = static_cast<const unsigned char*>(data);
  const int64_t n = t.numElements();
  for (int64_t e = 0; e < n; ++e) {
    // Little-endian: the sign bit is the top bit of the last byte.
    for (size_t b = 0; b < width; ++b) {
      const bool sign = b + 1 == width && runtime::isFloating(t.dtype);
      const unsigned char mask = sign ? 0x7f : 0xff;
      if ((bytes[static_cast<size_t>(e) * width + b] & mask) != 0) return v;
    }
  }
  return fn.optimizationBarrier({v})[0];
}

OpProgram buildOpProgram(const ir::OpCall& call, bool withChecks,
                         const std::vector<std::optional<HostScalar>>& constants) {
  auto isConstant = [&](size_t k) { return k < constants.size() && constants[k].has_value(); };
  const int numArrays = static_cast<int>(call.arrays.size());
  auto isZero = [&](int a) {
    return a < static_cast<int>(call.zeroArrays.size()) && call.zeroArrays[a];
  };
  std::vector<TensorType> params;
  for (int a = 0; a < numArrays; ++a) {
    if (!isZero(a)) params.push_back(call.arrays[a]);
  }
  const int numArrayParams = static_cast<int>(params.size());
  for (size_t k = 0; k < call.scalars.size(); ++k) {
    if (!isConstant(k)) params.push_back(call.scalars[k]);
  }
  hlo::Module module("op");
  hlo::Function& fn = module.addFunction("main", params, /*isPublic=*/true);
  std::vector<Value> arrays;
  for (int a = 0, p = 0; a < numArrays; ++a) {
    arrays.push_back(isZero(a) ? zeros(fn, call.arrays[a]) : fn.param(p++));
  }
  std::vector<Value> scalars;
  for (size_t k = 0, p = 0; k < call.scalars.size(); ++k) {
    scalars.push_back(isConstant(k) ? bakedScalar(fn, call.scalars[k], constants[k]->data())
                                    : fn.param(numArrayParams + static_cast<int>(p++)));
  }

  EmittedOp emitted = emitOpCall(fn, call, arrays, scalars, withChecks);
  OpProgram program;
  std::vector<Value> outputs = emitted.newResults;
  outputs.insert(outputs.end(), emitted.updatedValues.begin(), emitted.updatedValues.end());
  program.numNewResults = static_cast<int>(emitted.newResults.size());
  program.updatedArrays = emitted.updatedArrays;
  program.declaredChecks = emitted.declaredChecks;
  if (!emitted.checks.empty()) {
    // One s64 vector: per check, failed then its values.
    std::vector<Value> parts;
    for (const lower::DeviceCheck& check : emitted.checks) {
      parts.push_back(fn.reshape(fn.convert(check.failed, runtime::ElementType::kS64), {1}));
      for (const Value& v : check.values) {
        parts.push_back(fn.reshape(fn.convert(v, runtime::ElementType::kS64), {1}));
      }
      program.checks.push_back({check.error, check.message, static_cast<int>(check.values.size())});
    }
    outputs.push_back(parts.size() == 1 ? parts[0] : fn.concatenate(parts, 0));
  }
  fn.ret(outputs);
  for (const Value& v : outputs) program.outputTypes.push_back(v.t());
  program.text = module.toText();
  return program;
}

}  // namespace torchtpu::exec
