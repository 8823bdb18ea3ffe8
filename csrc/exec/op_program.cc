#include "exec/op_program.h"

#include <algorithm>

#include "hlo/module.h"
#include "lower/lowering.h"
#include "lower/views.h"

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

}  // namespace

OpProgram buildOpProgram(const ir::OpCall& call) {
  const lower::LowerFn* lowering = lower::findLowering(call.op);
  if (lowering == nullptr) throw lower::LoweringError(call.op + ": no lowering");

  std::vector<TensorType> params = call.arrays;
  params.insert(params.end(), call.scalars.begin(), call.scalars.end());
  hlo::Module module("op");
  hlo::Function& fn = module.addFunction("main", params, /*isPublic=*/true);
  const int numArrays = static_cast<int>(call.arrays.size());

  std::vector<std::vector<Value>> values(call.args.size());
  for (size_t k = 0; k < call.args.size(); ++k) {
    const ir::ArgValue& a = call.args[k];
    if (a.kind == Kind::kTensor && a.tensor.present()) {
      values[k].push_back(lower::readView(fn, fn.param(a.tensor.array), a.tensor));
    } else if (a.kind == Kind::kTensorList) {
      for (const auto& t : a.tensors) {
        if (t.present()) values[k].push_back(lower::readView(fn, fn.param(t.array), t));
      }
    } else if (a.kind == Kind::kScalar || a.kind == Kind::kRng) {
      values[k].push_back(fn.param(numArrays + a.scalar));
    }
  }

  lower::LowerCtx ctx(fn, call, values);
  std::vector<Value> results = (*lowering)(ctx);
  if (results.size() != call.results.size()) {
    throw lower::LoweringError(call.op + ": the lowering returned " +
                               std::to_string(results.size()) + " result(s), PyTorch expects " +
                               std::to_string(call.results.size()));
  }

  OpProgram program;
  std::vector<Value> outputs;
  std::vector<Value> arrays;
  for (int a = 0; a < numArrays; ++a) arrays.push_back(fn.param(a));
  // New results first (all of them), then the updated arrays.
  for (size_t j = 0; j < results.size(); ++j) {
    const bool isNew = j >= call.writeBack.size() || call.writeBack[j].arg < 0;
    if (isNew) {
      outputs.push_back(fitResult(fn, results[j], call.results[j], call.op, j));
      ++program.numNewResults;
    }
  }
  for (size_t j = 0; j < call.writeBack.size() && j < results.size(); ++j) {
    const ir::OpCall::WriteTarget target = call.writeBack[j];
    if (target.arg < 0) continue;
    Value r = fitResult(fn, results[j], call.results[j], call.op, j);
    const ir::ArgValue& arg = call.args[target.arg];
    const ir::TensorRef& ref = target.element < 0 ? arg.tensor : arg.tensors[target.element];
    if (r.dtype() != ref.dtype) r = fn.convert(r, ref.dtype);
    arrays[ref.array] = lower::writeView(fn, arrays[ref.array], ref, r);
    if (std::find(program.updatedArrays.begin(), program.updatedArrays.end(), ref.array) ==
        program.updatedArrays.end()) {
      program.updatedArrays.push_back(ref.array);
    }
  }
  for (int a : program.updatedArrays) outputs.push_back(arrays[a]);
  fn.ret(outputs);
  for (const Value& v : outputs) program.outputTypes.push_back(v.t());
  program.text = module.toText();
  return program;
}

}  // namespace torchtpu::exec
