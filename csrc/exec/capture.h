// Graph capture for torch.compile: a whole graph is recorded through the same
// kernels and lowerings as eager (into a DeferAndFuse trace that nothing may
// flush), compiled as one program, and kept. Running a captured graph is one
// launch: its inputs are the storages of the graph's tensor arguments.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exec/device_array.h"
#include "exec/device_storage.h"
#include "hlo/types.h"
#include "runtime/executable.h"

namespace torchtpu::exec {

// How a captured graph produces one of its tensor outputs.
struct GraphOutput {
  enum class Kind {
    kValue,          // program output `index`
    kInputStorage,   // the storage of graph input `index` (a view of an input)
    kConstant,       // an array that existed before the capture
    kUninitialized,  // a storage nothing wrote
  };
  Kind kind = Kind::kUninitialized;
  int index = -1;
  ArrayPtr constant;
};

class CapturedGraph {
 public:
  // Draws {seed, offset} for one random op (the device's default generator).
  using RngSource = std::function<std::pair<uint64_t, uint64_t>()>;

  // Runs the program on the storages of the graph's inputs (null for inputs
  // that are not tensors). Storages of inputs the graph writes are repointed
  // to the new values. Returns, per tensor output, its array (null for
  // kInputStorage and kUninitialized outputs).
  std::vector<ArrayPtr> run(const std::vector<DeviceStorage*>& inputs, const RngSource& rng) const;

  const std::vector<GraphOutput>& outputs() const { return outputs_; }
  const std::string& name() const { return name_; }
  size_t numOps() const { return numOps_; }
  int device() const { return device_; }

 private:
  friend std::shared_ptr<CapturedGraph> endCapture(const std::vector<DeviceStorage*>& outputs,
                                                   const std::string& name);
  struct Param {
    int input = -1;     // graph input whose storage array is passed, or
    ArrayPtr constant;  // an array captured by reference
  };
  std::string name_;
  ArrayOrigin origin_;  // "compiled graph 'forward_0'": of the arrays it makes
  int device_ = 0;
  size_t numOps_ = 0;
  std::shared_ptr<runtime::Executable> exe_;
  std::vector<Param> params_;
  std::vector<hlo::TensorType> paramTypes_;
  // Packed runtime scalars, which are only random-op states (other numbers
  // are program constants): bytes per group, the {seed, offset} at byte
  // `rngSlots[k].second` of group `.first` drawn anew on every run.
  std::vector<runtime::ElementType> scalarGroups_;
  std::vector<std::vector<uint8_t>> scalarBytes_;
  std::vector<std::pair<int, size_t>> rngSlots_;
  std::vector<GraphOutput> outputs_;
  std::vector<std::pair<int, int>> mutations_;  // (graph input, program output)
};

// Starts capturing on `device`: runs any deferred work first, then records
// every op until endCapture. `inputs`: the storage of each graph input (null
// for non-tensors). The caller puts its thread in defer mode meanwhile. Only
// one capture runs at a time.
void beginCapture(int device, const std::vector<DeviceStorage*>& inputs);
// Compiles what was recorded into a graph whose outputs are the storages
// `outputs`, and puts the input storages back as they were before the
// capture (run() then computes the first results).
std::shared_ptr<CapturedGraph> endCapture(const std::vector<DeviceStorage*>& outputs,
                                          const std::string& name);
// Drops a capture that failed (inputs put back as they were).
void abortCapture();
bool capturing();

}  // namespace torchtpu::exec
