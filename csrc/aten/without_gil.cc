#include "aten/without_gil.h"

#include <Python.h>

namespace torchtpu::aten {

WithoutGil::WithoutGil() {
  if (Py_IsInitialized() && PyGILState_Check()) saved_ = PyEval_SaveThread();
}

WithoutGil::~WithoutGil() {
  if (saved_ != nullptr) PyEval_RestoreThread(static_cast<PyThreadState*>(saved_));
}

}  // namespace torchtpu::aten
