// Python bindings of the runtime layer (torchtpu._C.runtime): plugins,
// clients, buffers and executables, with numpy arrays on the host side.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>

#include "python/bindings.h"
#include "runtime/client.h"
#include "runtime/discovery.h"
#include "runtime/error.h"
#include "runtime/plugin.h"

namespace py = pybind11;

namespace torchtpu::python {
namespace {

using runtime::Buffer;
using runtime::Client;
using runtime::ElementType;
using runtime::Executable;
using runtime::Plugin;

// numpy dtype name <-> element type (bf16 has no numpy type: use bytes).
ElementType elementTypeFromNumpy(const py::dtype& dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'b') return ElementType::kPred;
  if (kind == 'f' && size == 2) return ElementType::kF16;
  if (kind == 'f' && size == 4) return ElementType::kF32;
  if (kind == 'f' && size == 8) return ElementType::kF64;
  if (kind == 'c' && size == 8) return ElementType::kC64;
  if (kind == 'c' && size == 16) return ElementType::kC128;
  if (kind == 'i' && size == 1) return ElementType::kS8;
  if (kind == 'i' && size == 2) return ElementType::kS16;
  if (kind == 'i' && size == 4) return ElementType::kS32;
  if (kind == 'i' && size == 8) return ElementType::kS64;
  if (kind == 'u' && size == 1) return ElementType::kU8;
  if (kind == 'u' && size == 2) return ElementType::kU16;
  if (kind == 'u' && size == 4) return ElementType::kU32;
  if (kind == 'u' && size == 8) return ElementType::kU64;
  throw py::type_error("torchtpu: numpy dtype " + std::string(py::str(py::handle(dt))) +
                       " has no device element type");
}

py::dtype numpyFromElementType(ElementType t) {
  switch (t) {
    case ElementType::kPred:
      return py::dtype("bool");
    case ElementType::kS8:
      return py::dtype("int8");
    case ElementType::kS16:
      return py::dtype("int16");
    case ElementType::kS32:
      return py::dtype("int32");
    case ElementType::kS64:
      return py::dtype("int64");
    case ElementType::kU8:
      return py::dtype("uint8");
    case ElementType::kU16:
      return py::dtype("uint16");
    case ElementType::kU32:
      return py::dtype("uint32");
    case ElementType::kU64:
      return py::dtype("uint64");
    case ElementType::kF16:
      return py::dtype("float16");
    case ElementType::kBF16:
      return py::dtype("uint16");  // raw bits
    case ElementType::kF32:
      return py::dtype("float32");
    case ElementType::kF64:
      return py::dtype("float64");
    case ElementType::kC64:
      return py::dtype("complex64");
    case ElementType::kC128:
      return py::dtype("complex128");
  }
  return py::dtype("uint8");
}

py::array bufferToNumpy(const Buffer& b) {
  py::array out(numpyFromElementType(b.elementType()), b.dims());
  {
    py::gil_scoped_release release;
    b.copyToHost(out.mutable_data(), b.hostSizeBytes());
  }
  return out;
}

// runtime::Error raises RuntimeError with the plugin's message.
void registerErrorTranslator() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const runtime::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}

// Plugin discovery and loading.
void bindPlugins(py::module_& m) {
  m.def("resolve_plugin_path", &runtime::resolvePluginPath, py::arg("spec"), py::arg("search_dirs"),
        "Resolves a plugin spec (path, 'cpu', 'cuda', 'tpu', '' or 'auto') to a file.");
  m.def("auto_plugin_name", &runtime::autoPluginName, py::arg("search_dirs"));
  m.def("supported_api_major_version", &runtime::supportedApiMajorVersion);

  py::class_<Plugin, std::shared_ptr<Plugin>>(m, "Plugin")
      .def_static("load", &Plugin::load, py::arg("path"))
      .def_property_readonly("path", &Plugin::path)
      .def_property_readonly(
          "api_version",
          [](const Plugin& p) { return py::make_tuple(p.version().major, p.version().minor); })
      .def_property_readonly("attributes", &Plugin::attributes)
      .def("describe", &Plugin::describe);
}

void bindDevicesAndBuffers(py::module_& m) {
  py::class_<runtime::DeviceInfo>(m, "DeviceInfo")
      .def_readonly("index", &runtime::DeviceInfo::index)
      .def_readonly("id", &runtime::DeviceInfo::id)
      .def_readonly("kind", &runtime::DeviceInfo::kind)
      .def_readonly("process_index", &runtime::DeviceInfo::processIndex)
      .def_readonly("local_hardware_id", &runtime::DeviceInfo::localHardwareId)
      .def_readonly("description", &runtime::DeviceInfo::description)
      .def("__repr__", [](const runtime::DeviceInfo& d) {
        return "DeviceInfo(index=" + std::to_string(d.index) + ", id=" + std::to_string(d.id) +
               ", kind='" + d.kind + "')";
      });

  py::class_<Buffer>(m, "Buffer")
      .def_property_readonly("shape", &Buffer::dims)
      .def_property_readonly(
          "dtype",
          [](const Buffer& b) { return std::string(runtime::elementTypeName(b.elementType())); })
      .def_property_readonly("device", &Buffer::deviceIndex)
      .def_property_readonly("on_device_size", &Buffer::onDeviceSizeBytes)
      .def("is_deleted", &Buffer::isDeleted)
      .def("delete", &Buffer::deleteNow)
      .def("numpy", &bufferToNumpy)
      .def("block_until_ready", [](const Buffer& b) {
        py::gil_scoped_release release;
        b.readyEvent().await();
      });
}

void bindExecutables(py::module_& m) {
  py::class_<Executable, std::shared_ptr<Executable>>(m, "Executable")
      .def_property_readonly("name", &Executable::name)
      .def_property_readonly("num_outputs", &Executable::numOutputs)
      .def(
          "execute",
          [](const Executable& exe, const std::vector<const Buffer*>& args, int device) {
            runtime::ExecuteOptions opts;
            opts.device = device;
            std::vector<Buffer> outs;
            {
              py::gil_scoped_release release;
              outs = exe.execute(args, opts).outputs;
            }
            return outs;
          },
          py::arg("args"), py::arg("device") = -1)
      .def("serialize", [](const Executable& e) { return py::bytes(e.serialize()); });
}

void bindClients(py::module_& m) {
  py::class_<Client, std::shared_ptr<Client>>(m, "Client")
      .def_static(
          "create",
          [](std::shared_ptr<Plugin> plugin, const std::map<std::string, int64_t>& options) {
            runtime::ClientOptions o;
            for (const auto& [k, v] : options) o[k] = v;
            return Client::create(std::move(plugin), o);
          },
          py::arg("plugin"), py::arg("options") = std::map<std::string, int64_t>{})
      .def_property_readonly("platform_name", &Client::platformName)
      .def_property_readonly("platform_version", &Client::platformVersion)
      .def_property_readonly("plugin",
                             [](const Client& c) { return Plugin::load(c.plugin().path()); })
      .def("devices", &Client::devices)
      .def(
          "to_device",
          [](const Client& c, py::array array, int device) {
            py::array a = py::array::ensure(array, py::array::c_style);
            ElementType t = elementTypeFromNumpy(a.dtype());
            std::vector<int64_t> dims(a.shape(), a.shape() + a.ndim());
            py::gil_scoped_release release;
            return c.toDevice(a.data(), t, dims, device);
          },
          py::arg("array"), py::arg("device") = 0)
      .def(
          "compile",
          [](const Client& c, const std::string& text) {
            py::gil_scoped_release release;
            return c.compile(text);
          },
          py::arg("mlir"))
      .def(
          "deserialize",
          [](const Client& c, const py::bytes& data) { return c.deserialize(std::string(data)); },
          py::arg("data"))
      .def("memory_stats", [](const Client& c, int device) -> py::object {
        auto s = c.memoryStats(device);
        if (!s) return py::none();
        py::dict d;
        d["bytes_in_use"] = s->bytesInUse;
        if (s->peakBytesInUse) d["peak_bytes_in_use"] = *s->peakBytesInUse;
        if (s->bytesLimit) d["bytes_limit"] = *s->bytesLimit;
        return d;
      });
}

}  // namespace

void bindRuntime(py::module_& m) {
  registerErrorTranslator();
  bindPlugins(m);
  bindDevicesAndBuffers(m);
  bindExecutables(m);
  bindClients(m);
}

}  // namespace torchtpu::python
