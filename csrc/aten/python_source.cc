#include "aten/python_source.h"

#include <Python.h>

#include <cstring>

#include "exec/trace.h"

namespace torchtpu::aten {
namespace {

bool isLibraryFile(const char* file) {
  return file == nullptr || std::strstr(file, "/torch/") != nullptr ||
         std::strstr(file, "/torchtpu/") != nullptr || std::strncmp(file, "<frozen", 7) == 0;
}

}  // namespace

std::string userSourceLine() {
  if (!Py_IsInitialized()) return "";
  PyGILState_STATE gil = PyGILState_Ensure();
  std::string out;
  PyFrameObject* frame = PyThreadState_GetFrame(PyThreadState_Get());  // new reference
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);  // new reference
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    if (file == nullptr) PyErr_Clear();
    if (!isLibraryFile(file)) {
      out = std::string(file) + ":" + std::to_string(PyFrame_GetLineNumber(frame));
    }
    Py_DECREF(code);
    PyFrameObject* back = out.empty() ? PyFrame_GetBack(frame) : nullptr;  // new reference
    Py_DECREF(frame);
    frame = back;
  }
  PyGILState_Release(gil);
  return out;
}

exec::ArrayOrigin hostCopyOrigin() {
  static const auto* plain = new exec::ArrayOrigin(exec::makeOrigin("a copy from the host"));
  if (!exec::sourceLinesEnabled()) return *plain;
  return exec::makeOrigin("a copy from the host", userSourceLine());
}

}  // namespace torchtpu::aten
