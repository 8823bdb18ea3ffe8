// Python bindings of custom kernels (torchtpu.kernels): run-time lowerings
// from StableHLO text, and the routing of a user's op to the tpu bridge.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aten/custom_ops.h"
#include "hlo/function_text.h"
#include "lower/core/custom_kernel.h"
#include "python/bindings.h"

namespace py = pybind11;

namespace torchtpu::python {
namespace {

using Kind = ir::ArgValue::Kind;

py::tuple typeTuple(const hlo::TensorType& t) {
  return py::make_tuple(std::string(runtime::elementTypeName(t.dtype)),
                        py::tuple(py::cast(t.dims)));
}

py::list typeList(const std::vector<hlo::TensorType>& types) {
  py::list out;
  for (const auto& t : types) out.append(typeTuple(t));
  return out;
}

py::object staticValue(const ir::ArgValue& a) {
  switch (a.kind) {
    case Kind::kBool:
      return py::bool_(a.b);
    case Kind::kInt:
      return py::int_(a.i);
    case Kind::kDouble:
      return py::float_(a.d);
    case Kind::kInts:
      return py::tuple(py::cast(a.ints));
    case Kind::kDoubles:
      return py::tuple(py::cast(a.doubles));
    case Kind::kString:
      return py::str(a.s);
    case Kind::kDType:
      return py::str(std::string(runtime::elementTypeName(a.dtype)));
    default:
      return py::none();
  }
}

}  // namespace

void bindKernels(py::module_& m) {
  // provider(inputs: list[(dtype, shape)], statics: dict[name, value]) -> str
  m.def(
      "_register_custom_kernel",
      [](const std::string& op, py::function provider) {
        // Kept for the life of the process: the lowering may run at exit.
        auto* keep = new py::object(std::move(provider));
        lower::registerCustomKernel(
            op, [keep](const ir::OpCall& call, const std::vector<hlo::TensorType>& inputs) {
              py::gil_scoped_acquire gil;
              py::dict statics;
              for (size_t k = 0; k < call.args.size(); ++k) {
                const ir::ArgValue& a = call.args[k];
                if (a.kind == Kind::kTensor || a.kind == Kind::kTensorList) continue;
                statics[py::str(call.argNames[k])] = staticValue(a);
              }
              try {
                return (*keep)(typeList(inputs), statics).cast<std::string>();
              } catch (py::error_already_set& e) {
                throw std::runtime_error(e.what());
              }
            });
        aten::registerBridgeKernel(op);
      },
      py::arg("op"), py::arg("provider"));
  // The (params, results) of a kernel's StableHLO text; raises ValueError
  // when the text has no usable @main.
  m.def(
      "_stablehlo_signature",
      [](const std::string& text) {
        hlo::FunctionText f;
        try {
          f = hlo::importFunctionText(text, "probe");
        } catch (const std::invalid_argument& e) {
          throw py::value_error(e.what());
        }
        return py::make_tuple(typeList(f.params), typeList(f.results));
      },
      py::arg("text"));
}

}  // namespace torchtpu::python
