// Python bindings of the torch-facing runtime controls (torchtpu._C): runtime
// start-up, devices, generators, metrics, modes and the CPU fallback switch.
#include <torch/extension.h>

#include "aten/bridge.h"
#include "aten/generator.h"
#include "aten/profiler.h"
#include "aten/storage.h"
#include "exec/background_flush.h"
#include "exec/compile_cache.h"
#include "exec/device_memory.h"
#include "exec/executor.h"
#include "exec/metrics.h"
#include "exec/recompile_explainer.h"
#include "exec/runtime_state.h"
#include "exec/trace.h"
#include "lower/core/lowering.h"
#include "python/bindings.h"
#include "runtime/fork_guard.h"

namespace py = pybind11;

namespace torchtpu::python {
namespace {

aten::TpuGenerator* generatorOf(int device) {
  return at::check_generator<aten::TpuGenerator>(aten::defaultGenerator(device));
}

py::dict metricsDict() {
  auto& m = exec::metrics();
  py::dict d;
  d["compiles"] = m.compiles.load();
  d["compile_seconds"] = m.compileNanos.load() / 1e9;
  d["cache_hits"] = m.cacheHits.load();
  d["disk_cache_hits"] = m.diskCacheHits.load();
  d["launches"] = m.launches.load();
  d["fallbacks"] = m.fallbacks();
  d["host_to_device_bytes"] = m.hostToDeviceBytes.load();
  d["device_to_host_bytes"] = m.deviceToHostBytes.load();
  d["live_buffers"] = m.liveBuffers.load();
  d["live_bytes"] = m.liveBytes.load();
  d["peak_live_bytes"] = m.peakLiveBytes.load();
  d["flushes"] = m.flushes();
  d["fused_ops"] = m.fusedOps.load();
  d["recompiles"] = m.recompiles.load();
  d["graphs_compiled"] = m.graphCompiles.load();
  d["graph_compile_seconds"] = m.graphCompileNanos.load() / 1e9;
  d["graph_runs"] = m.graphRuns.load();
  d["graph_eager_runs"] = m.graphEagerRuns.load();
  d["compiled_collectives"] = m.compiledCollectives.load();
  d["program_evictions"] = m.programEvictions.load();
  d["background_compiles"] = m.backgroundCompiles.load();
  return d;
}

// Start-up, devices, synchronization, lazy initialization and fork detection.
void bindRuntimeControls(py::module_& m) {
  m.def(
      "_init_runtime",
      [](const std::string& path, const std::map<std::string, py::object>& options) {
        runtime::ClientOptions o;
        for (const auto& [k, v] : options) {
          if (py::isinstance<py::bool_>(v)) {  // before int: a Python bool is an int
            o[k] = v.cast<bool>();
          } else if (py::isinstance<py::int_>(v)) {
            o[k] = v.cast<int64_t>();
          } else if (py::isinstance<py::float_>(v)) {
            o[k] = v.cast<double>();
          } else {
            o[k] = v.cast<std::string>();
          }
        }
        exec::initRuntime(path, o);
      },
      py::arg("plugin_path"), py::arg("options"));
  m.def("_runtime_initialized", &exec::runtimeInitialized);
  m.def("_profiler_available", &aten::profilerAvailable);
  m.def("_client", []() { return exec::client(); });
  m.def("_device_count", []() { return static_cast<int>(aten::deviceCount()); });
  m.def("_current_device", []() { return static_cast<int>(aten::currentDevice()); });
  m.def("_set_device", [](int d) { aten::setCurrentDevice(static_cast<c10::DeviceIndex>(d)); });
  m.def(
      "_synchronize",
      [](int device, bool allThreads) {
        py::gil_scoped_release release;
        exec::synchronize(device, allThreads);
      },
      py::arg("device") = -1, py::arg("all_threads") = true);
  m.def("_set_lazy_init", [](py::object init) {
    static auto* keep = new py::object();  // never destroyed: may run at exit
    *keep = std::move(init);
    aten::setLazyInit([] {
      if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
      py::gil_scoped_acquire gil;
      try {
        (*keep)();
      } catch (py::error_already_set& e) {
        e.discard_as_unraisable("torchtpu lazy initialization");
      }
    });
  });
  m.def("_forked_after_start", &runtime::forkedAfterClient);
}

void bindGenerators(py::module_& m) {
  m.def("_manual_seed", [](int device, uint64_t seed) {
    auto* g = generatorOf(device);
    std::lock_guard<std::mutex> lock(g->mutex_);
    g->set_current_seed(seed);
  });
  m.def("_seed", [](int device) {
    auto* g = generatorOf(device);
    std::lock_guard<std::mutex> lock(g->mutex_);
    return g->seed();
  });
  m.def("_initial_seed", [](int device) { return generatorOf(device)->current_seed(); });
  m.def("_get_rng_state", [](int device) {
    auto* g = generatorOf(device);
    std::lock_guard<std::mutex> lock(g->mutex_);
    return at::Tensor(g->get_state());
  });
  m.def("_set_rng_state", [](int device, const at::Tensor& state) {
    auto* g = generatorOf(device);
    std::lock_guard<std::mutex> lock(g->mutex_);
    g->set_state(*state.contiguous().unsafeGetTensorImpl());
  });
  m.def("_default_generator", [](int device) { return aten::defaultGenerator(device); });
}

// The counters of exec::metrics() and the device memory statistics; whether a
// tensor's storage is on the device yet.
void bindMetricsAndMemory(py::module_& m) {
  m.def("_metrics", &metricsDict);
  m.def("_reset_metrics", []() { exec::metrics().reset(); });
  m.def("_reset_peak_memory", []() {
    auto& m = exec::metrics();
    m.peakLiveBytes = m.liveBytes.load();
  });
  m.def(
      "_device_memory_stats",
      [](int device) {
        const exec::DeviceMemoryStats s = exec::deviceMemoryStats(device);
        py::dict d;
        d["bytes"] = s.bytes;
        d["peak_bytes"] = s.peakBytes;
        d["allocated_bytes"] = s.allocatedBytes;
        d["freed_bytes"] = s.freedBytes;
        d["arrays"] = s.arrays;
        d["peak_arrays"] = s.peakArrays;
        d["allocations"] = s.allocations;
        d["frees"] = s.frees;
        d["out_of_memory"] = s.outOfMemory;
        return d;
      },
      py::arg("device"));
  m.def("_reset_peak_device_memory", &exec::resetPeakDeviceMemory, py::arg("device"));
  m.def(
      "_mem_get_info",
      [](int device) -> py::object {
        auto info = exec::deviceMemoryInfo(device);
        if (!info) return py::none();
        return py::make_tuple(info->first, info->second);
      },
      py::arg("device"));
  m.def("_release_freed_device_memory", &exec::releaseFreedDeviceMemory);
  m.def("_reset_accumulated_device_memory", &exec::resetAccumulatedDeviceMemory, py::arg("device"));
  m.def(
      "_largest_live_arrays",
      [](int device, size_t n) {
        py::list out;
        for (const exec::LiveArray& a : exec::largestLiveArrays(device, n)) {
          out.append(py::make_tuple(a.device, exec::arrayLabel(a.type), a.bytes, a.origin));
        }
        return out;
      },
      py::arg("device"), py::arg("n"));
  m.def("_storage_materialized",
        [](const at::Tensor& t) { return aten::deviceStorage(t).materialized(); });
}

// Recompile explanations and the compile cache.
void bindCompilation(py::module_& m) {
  m.def("_explain_recompiles", &exec::setExplainRecompiles, py::arg("on"));
  m.def("_explaining_recompiles", &exec::explainRecompiles);
  m.def("_recompile_report", []() {
    py::list out;
    for (const exec::RecompileExplanation& e : exec::recompileReport()) {
      py::dict d;
      d["kind"] = e.kind;
      d["program"] = e.program;
      d["cause"] = e.cause;
      d["detail"] = e.detail;
      out.append(d);
    }
    return out;
  });
  m.def("_clear_recompile_report", &exec::clearRecompileReport);
  m.def("_growth_warnings", &exec::growthWarnings);
  m.def(
      "_note_recompile",
      [](std::string kind, std::string program, std::string cause, std::string detail) {
        exec::noteRecompile(
            {std::move(kind), std::move(program), std::move(cause), std::move(detail)});
      },
      py::arg("kind"), py::arg("program"), py::arg("cause"), py::arg("detail"));
  m.def("_compile_cache_dir", &exec::compileCacheDir);
}

// Launch modes and deferred traces.
void bindModes(py::module_& m) {
  m.def(
      "_flush",
      [](const std::string& reason, int device) {
        py::gil_scoped_release release;  // other threads run Python meanwhile
        exec::flushTraces(reason, device);
      },
      py::arg("reason"), py::arg("device") = -1);
  m.def("_pending_ops", &exec::pendingOps);
  m.def("_pending_own_ops", &exec::pendingOwnOps);
  m.def(
      "_flush_own",
      [](const std::string& reason, bool background) {
        py::gil_scoped_release release;  // other threads run Python meanwhile
        exec::flushOwnTraces(reason, background);
      },
      py::arg("reason"), py::arg("background") = false);
  m.def("_join_background_flushes", [] {
    py::gil_scoped_release release;
    exec::joinBackgroundFlushes();
  });
  // Modes by name: this thread's (`is_default` false) or every thread's default.
  m.def(
      "_set_mode",
      [](const std::string& name, bool isDefault) {
        exec::LaunchMode mode;
        if (name == "strict") {
          mode = exec::LaunchMode::kStrict;
        } else if (name == "launch_blocking") {
          mode = exec::LaunchMode::kLaunchBlocking;
        } else if (name == "defer") {
          mode = exec::LaunchMode::kDefer;
        } else {
          throw py::value_error("unknown torchtpu mode '" + name + "'");
        }
        if (isDefault) {
          exec::setDefaultLaunchMode(mode);
        } else {
          exec::setLaunchMode(mode);
        }
      },
      py::arg("name"), py::arg("is_default") = false);
  m.def("_launch_mode", []() -> std::string {
    switch (exec::launchMode()) {
      case exec::LaunchMode::kStrict:
        return "strict";
      case exec::LaunchMode::kLaunchBlocking:
        return "launch_blocking";
      case exec::LaunchMode::kDefer:
        return "defer";
    }
    return "unknown";
  });
}

// The lowered ops, the Python overrides of lowered ops, and the CPU fallback.
void bindOps(py::module_& m) {
  m.def("_lowered_ops", &lower::registeredOps);
  m.def("_lowering_sources", &lower::loweringSources);
  m.def("_register_lowered_overrides", &aten::registerLoweredOverrides);
  m.def("_set_cpu_fallback", &aten::setCpuFallbackEnabled);
  m.def("_cpu_fallback_enabled", &aten::cpuFallbackEnabled);
}

}  // namespace

void bindTorch(py::module_& m) {
  bindRuntimeControls(m);
  bindGenerators(m);
  bindMetricsAndMemory(m);
  bindCompilation(m);
  bindModes(m);
  bindOps(m);
}

}  // namespace torchtpu::python
