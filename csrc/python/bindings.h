// Registration functions of the torchtpu._C submodules.
#pragma once

#include <pybind11/pybind11.h>

namespace torchtpu::python {

void bindRuntime(pybind11::module_& m);
void bindTorch(pybind11::module_& m);
void bindGraphs(pybind11::module_& m);
void bindKernels(pybind11::module_& m);
void bindCollectives(pybind11::module_& m);

}  // namespace torchtpu::python
