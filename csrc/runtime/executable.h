// A compiled program loaded on a client (RAII over PJRT_LoadedExecutable).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/buffer.h"
#include "runtime/event.h"
#include "runtime/program_signature.h"

struct PJRT_Buffer;
struct PJRT_LoadedExecutable;

namespace torchtpu::runtime {

class Client;

struct ExecuteOptions {
  // Device index to run on (portable executables); -1 uses the compiled one.
  int device = -1;
  // Arguments that must not be donated even if the program aliases them.
  std::vector<int64_t> nonDonatable;
};

struct ExecuteResult {
  std::vector<Buffer> outputs;
  Event done;  // completes when the execution finishes
};

class Executable {
 public:
  ~Executable();
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  const std::string& name() const { return name_; }
  size_t numOutputs() const { return numOutputs_; }
  // Parameter types when known (read from the program text at compile time,
  // or set by whoever deserialized it): checked before each launch, since
  // plugins do not check them.
  const std::optional<std::vector<ArrayType>>& parameters() const { return parameters_; }
  void setParameters(std::optional<std::vector<ArrayType>> p) { parameters_ = std::move(p); }

  // Launches the program on one device. Arguments aliased to outputs (tf.aliasing_output)
  // are donated: their Buffer objects report isDeleted() afterwards. The
  // launch is asynchronous; outputs can be used at once (later programs and
  // host copies wait for them).
  ExecuteResult execute(const std::vector<const Buffer*>& args,
                        const ExecuteOptions& options = {}) const;

  // The client device indices this executable runs on, in launch order: one
  // for a single-device program, one per replica for a replicated one.
  const std::vector<int>& devices() const { return devices_; }

  // Launches a replicated program on all of its devices at once (collectives
  // in the program exchange data between them). `argsPerDevice[i]` are the
  // arguments for devices()[i] and must live on that device. Returns one
  // result per device, in the same order.
  std::vector<ExecuteResult> executeReplicated(
      const std::vector<std::vector<const Buffer*>>& argsPerDevice,
      const ExecuteOptions& options = {}) const;

  // Bytes that Client::deserialize turns back into this executable.
  std::string serialize() const;

  // For the runtime layer only.
  Executable(std::shared_ptr<const Client> client, PJRT_LoadedExecutable* exe);

 private:
  // Checks a launch's arguments (count, liveness, types, and their device
  // when `device` >= 0) and returns their PJRT handles.
  std::vector<PJRT_Buffer*> rawArguments(const std::vector<const Buffer*>& args, int device) const;

  std::shared_ptr<const Client> client_;
  PJRT_LoadedExecutable* exe_ = nullptr;
  std::string name_;
  size_t numOutputs_ = 0;
  std::vector<int> devices_;
  std::optional<std::vector<ArrayType>> parameters_;
};

}  // namespace torchtpu::runtime
