// The torchtpu._C extension module.
#include <pybind11/pybind11.h>

#include "aten/torch_compat.h"
#include "python/bindings.h"

PYBIND11_MODULE(_C, m) {
  m.doc() = "torchtpu native core";
  m.attr("_torch_version") = torchtpu::aten::compat::kTorchVersion;
  auto runtime = m.def_submodule("runtime", "The PJRT runtime layer");
  torchtpu::python::bindRuntime(runtime);
  torchtpu::python::bindTorch(m);
  torchtpu::python::bindGraphs(m);
  torchtpu::python::bindKernels(m);
  torchtpu::python::bindCollectives(m);
}
