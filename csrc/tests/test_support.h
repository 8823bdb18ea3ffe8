// Shared helpers for the C++ tests: one real PJRT client per test binary and a
// way to run a StableHLO module on host data.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/client.h"
#include "runtime/element_type.h"

namespace torchtpu::testing {

// A dense, row-major host array.
struct HostArray {
  runtime::ElementType type = runtime::ElementType::kF32;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;

  template <class T>
  static HostArray of(runtime::ElementType type, std::vector<int64_t> dims,
                      const std::vector<T>& values) {
    HostArray a;
    a.type = type;
    a.dims = std::move(dims);
    a.bytes.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
    return a;
  }

  template <class T>
  std::vector<T> values() const {
    std::vector<T> out(bytes.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

// The plugin under test: TORCHTPU_PJRT_PLUGIN (a path or a short name), else
// the automatic choice. Created once per process.
std::shared_ptr<runtime::Client> testClient();

// A library the build made for a test, by the environment variable ctest sets
// to its path (TORCHTPU_FAKE_PLUGIN, TORCHTPU_NOT_A_PLUGIN); the paths are not
// compiled in, so the test objects are the same in every build folder.
std::string builtLibrary(const char* variable);

// Directories searched for plugins (TORCHTPU_TEST_SITE_DIRS, set by ctest).
std::vector<std::string> siteDirs();

// Compiles `mlir` and runs it once on device 0 with `args`; returns the outputs
// copied back to the host. Throws runtime::Error on any failure.
std::vector<HostArray> runProgram(const std::string& mlir, const std::vector<HostArray>& args);

}  // namespace torchtpu::testing
