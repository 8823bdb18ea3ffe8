// Python bindings of graph capture (torch.compile's backend, torchtpu/_dynamo):
// capture a graph run over tpu tensors into one program, then run it on new
// tensors of the same layout.
#include <ATen/core/Generator.h>
#include <torch/extension.h>

#include <algorithm>
#include <mutex>

#include "aten/bridge.h"
#include "aten/dtype.h"
#include "aten/generator.h"
#include "aten/storage.h"
#include "exec/capture.h"
#include "exec/metrics.h"
#include "exec/runtime_state.h"
#include "python/bindings.h"

namespace py = pybind11;

namespace torchtpu::python {
namespace {

using OptTensors = std::vector<std::optional<at::Tensor>>;

// The layout of one output tensor, to rebuild it on every run.
struct OutputLayout {
  bool present = false;
  c10::ScalarType dtype = c10::ScalarType::Float;
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  size_t nbytes = 0;
};

class Graph {
 public:
  std::shared_ptr<exec::CapturedGraph> graph;
  std::vector<OutputLayout> layouts;

  OptTensors run(const OptTensors& inputs) const;
};

bool isTpu(const std::optional<at::Tensor>& t) {
  return t.has_value() && t->defined() && t->device().type() == c10::DeviceType::PrivateUse1;
}

std::vector<exec::DeviceStorage*> storagesOf(const OptTensors& tensors) {
  std::vector<exec::DeviceStorage*> out;
  out.reserve(tensors.size());
  for (const auto& t : tensors) out.push_back(isTpu(t) ? &aten::deviceStorage(*t) : nullptr);
  return out;
}

// Everything about the inputs that a captured program depends on: per tpu
// tensor its dtype, view, storage size and state, and which inputs share a
// storage.
std::string graphKey(const OptTensors& inputs) {
  std::string key;
  key.reserve(inputs.size() * 48);
  std::vector<const exec::DeviceStorage*> seen;
  for (const auto& t : inputs) {
    if (!t.has_value() || !t->defined()) {
      key += "-;";
      continue;
    }
    TORCH_CHECK(isTpu(t), "torchtpu: a compiled graph got a tensor on ", t->device(),
                "; graph inputs must be on tpu");
    const exec::DeviceStorage& ds = aten::deviceStorage(*t);
    int shared = -1;
    for (size_t k = 0; k < seen.size() && shared < 0; ++k) {
      if (seen[k] == &ds) shared = static_cast<int>(k);
    }
    seen.push_back(&ds);
    key += std::to_string(static_cast<int>(t->scalar_type())) + "@" +
           std::to_string(t->device().index()) + "[";
    for (auto s : t->sizes()) key += std::to_string(s) + ",";
    key += "](";
    for (auto s : t->strides()) key += std::to_string(s) + ",";
    key += ")+" + std::to_string(t->storage_offset()) + "/" + std::to_string(ds.nbytes());
    if (exec::PendingPtr p = ds.pending()) {
      key += p->type.str();
    } else if (exec::ArrayPtr a = ds.array()) {
      key += a->type().str();
    } else {
      key += "u";
    }
    if (shared >= 0) key += "=" + std::to_string(shared);
    key += ";";
  }
  return key;
}

int deviceOf(const OptTensors& tensors) {
  for (const auto& t : tensors) {
    if (isTpu(t)) return t->device().index();
  }
  return aten::currentDevice();
}

// A tensor with `layout` over `storage`.
at::Tensor tensorOver(c10::Storage storage, const OutputLayout& layout) {
  at::Tensor t = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      caffe2::TypeMeta::fromScalarType(layout.dtype));
  t.unsafeGetTensorImpl()->set_sizes_and_strides(layout.sizes, layout.strides, layout.offset);
  return t;
}

OptTensors Graph::run(const OptTensors& inputs) const {
  const int device = graph->device();
  c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, device));
  auto rng = [device]() {
    at::Generator g = aten::defaultGenerator(device);
    std::lock_guard<std::mutex> lock(g.mutex());
    return at::check_generator<aten::TpuGenerator>(g)->next();
  };
  std::vector<exec::ArrayPtr> arrays;
  try {
    arrays = graph->run(storagesOf(inputs), rng);
  } catch (const std::exception& e) {
    aten::rethrowRuntimeError(e, "compiled graph '" + graph->name() + "'");
  }
  OptTensors out;
  out.reserve(layouts.size());
  // Outputs that shared a storage at capture (a result and views of it) share
  // one again: the same program output gets one storage.
  std::vector<std::pair<const exec::DeviceArray*, c10::Storage>> made;
  for (size_t k = 0; k < layouts.size(); ++k) {
    const OutputLayout& layout = layouts[k];
    if (!layout.present) {
      out.emplace_back(std::nullopt);
      continue;
    }
    const exec::GraphOutput& o = graph->outputs()[k];
    if (o.kind == exec::GraphOutput::Kind::kInputStorage) {
      out.emplace_back(tensorOver(inputs[o.index]->storage(), layout));
      continue;
    }
    auto same = std::find_if(made.begin(), made.end(), [&](const auto& m) {
      return arrays[k] && m.first == arrays[k].get();
    });
    if (same != made.end()) {
      out.emplace_back(tensorOver(same->second, layout));
      continue;
    }
    c10::Storage storage(c10::Storage::use_byte_size_t(), layout.nbytes, aten::tpuAllocator(),
                         /*resizable=*/true);
    if (arrays[k]) {
      aten::deviceStorage(storage).setArray(arrays[k]);
      made.emplace_back(arrays[k].get(), storage);
    }
    out.emplace_back(tensorOver(std::move(storage), layout));
  }
  return out;
}

// The capturing thread's own mode choice before the capture (a thread that
// follows the default, like autograd's workers, keeps following it).
thread_local bool capturingHere = false;
thread_local std::optional<exec::LaunchMode> modeBeforeCapture;

void restoreMode() {
  if (capturingHere) exec::setThreadLaunchMode(modeBeforeCapture);
  capturingHere = false;
  modeBeforeCapture.reset();
}

}  // namespace

void bindGraphs(py::module_& m) {
  py::class_<Graph, std::shared_ptr<Graph>>(m, "_Graph")
      .def("run", &Graph::run, py::arg("inputs"),
           "Runs the captured program on inputs laid out as at capture (one launch).")
      .def_property_readonly("name", [](const Graph& g) { return g.graph->name(); })
      .def_property_readonly("num_ops", [](const Graph& g) { return g.graph->numOps(); });
  m.def("_graph_key", &graphKey, py::arg("inputs"));
  m.def(
      "_capture_begin",
      [](const OptTensors& inputs) {
        TORCH_CHECK(!capturingHere, "torchtpu: a graph capture is already in progress");
        try {
          exec::beginCapture(deviceOf(inputs), storagesOf(inputs));
        } catch (const std::exception& e) {
          aten::rethrowRuntimeError(e, "starting a graph capture");
        }
        modeBeforeCapture = exec::threadLaunchMode();
        capturingHere = true;
        exec::setLaunchMode(exec::LaunchMode::kDefer);
      },
      py::arg("inputs"));
  m.def(
      "_capture_end",
      [](const OptTensors& outputs, const std::string& name) {
        restoreMode();
        auto g = std::make_shared<Graph>();
        for (const auto& t : outputs) {
          OutputLayout layout;
          if (isTpu(t)) {
            layout.present = true;
            layout.dtype = t->scalar_type();
            layout.sizes.assign(t->sizes().begin(), t->sizes().end());
            layout.strides.assign(t->strides().begin(), t->strides().end());
            layout.offset = t->storage_offset();
            layout.nbytes = t->storage().nbytes();
          } else {
            TORCH_CHECK(!t.has_value() || !t->defined(),
                        "torchtpu: a compiled graph returned a tensor on ", t->device());
          }
          g->layouts.push_back(std::move(layout));
        }
        try {
          g->graph = exec::endCapture(storagesOf(outputs), name);
        } catch (const std::exception& e) {
          exec::abortCapture();
          aten::rethrowRuntimeError(e, "compiling graph '" + name + "'");
        }
        return g;
      },
      py::arg("outputs"), py::arg("name"));
  m.def("_capture_abort", []() {
    restoreMode();
    exec::abortCapture();
  });
  m.def("_count_graph_eager_run", []() { exec::metrics().graphEagerRuns += 1; });
}

}  // namespace torchtpu::python
