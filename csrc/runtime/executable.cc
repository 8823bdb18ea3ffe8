#include "runtime/executable.h"

#include "runtime/client.h"
#include "runtime/fork_guard.h"
#include "runtime/pjrt_api.h"

namespace torchtpu::runtime {

Executable::Executable(std::shared_ptr<const Client> client, PJRT_LoadedExecutable* exe)
    : client_(std::move(client)), exe_(exe) {
  const PJRT_Api* api = client_->plugin().api();
  detail::Args<PJRT_LoadedExecutable_GetExecutable_Args> get;
  get->loaded_executable = exe_;
  TORCHTPU_PJRT_CALL(api, PJRT_LoadedExecutable_GetExecutable, get);
  PJRT_Executable* inner = get->executable;

  detail::Args<PJRT_Executable_NumOutputs_Args> outs;
  outs->executable = inner;
  TORCHTPU_PJRT_CALL(api, PJRT_Executable_NumOutputs, outs);
  numOutputs_ = outs->num_outputs;

  detail::Args<PJRT_Executable_Name_Args> name;
  name->executable = inner;
  TORCHTPU_PJRT_CALL(api, PJRT_Executable_Name, name);
  name_.assign(name->executable_name, name->executable_name_size);

  detail::Args<PJRT_Executable_Destroy_Args> destroy;
  destroy->executable = inner;
  TORCHTPU_PJRT_CALL(api, PJRT_Executable_Destroy, destroy);

  detail::Args<PJRT_LoadedExecutable_AddressableDevices_Args> devs;
  devs->executable = exe_;
  TORCHTPU_PJRT_CALL(api, PJRT_LoadedExecutable_AddressableDevices, devs);
  for (size_t i = 0; i < devs->num_addressable_devices; ++i) {
    devices_.push_back(client_->deviceIndexOf(devs->addressable_devices[i]));
  }
}

Executable::~Executable() {
  if (forkedAfterClient()) return;
  const PJRT_Api* api = client_->plugin().api();
  detail::Args<PJRT_LoadedExecutable_Destroy_Args> args;
  args->executable = exe_;
  if (PJRT_Error* e = api->PJRT_LoadedExecutable_Destroy(args.get())) {
    (void)detail::takeError(api, e, "");
  }
}

std::vector<PJRT_Buffer*> Executable::rawArguments(const std::vector<const Buffer*>& args,
                                                   int device) const {
  if (parameters_ && args.size() != parameters_->size()) {
    throw Error(ErrorCode::kInvalidArgument,
                "program '" + name_ + "' takes " + std::to_string(parameters_->size()) +
                    " argument(s) but was given " + std::to_string(args.size()));
  }
  std::vector<PJRT_Buffer*> rawArgs;
  rawArgs.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == nullptr || !args[i]->valid() || args[i]->isDeleted()) {
      throw Error(ErrorCode::kInvalidArgument, "argument " + std::to_string(i) + " of program '" +
                                                   name_ + "' is a deleted or donated buffer");
    }
    if (parameters_) {
      const ArrayType given{args[i]->elementType(), args[i]->dims()};
      if (!(given == (*parameters_)[i])) {
        throw Error(ErrorCode::kInvalidArgument,
                    "argument " + std::to_string(i) + " of program '" + name_ + "' must be " +
                        (*parameters_)[i].str() + ", got " + given.str());
      }
    }
    if (device >= 0 && args[i]->deviceIndex() != device) {
      throw Error(ErrorCode::kInvalidArgument, "argument " + std::to_string(i) + " of program '" +
                                                   name_ + "' is on device " +
                                                   std::to_string(args[i]->deviceIndex()) +
                                                   ", expected device " + std::to_string(device));
    }
    rawArgs.push_back(args[i]->raw());
  }
  return rawArgs;
}

ExecuteResult Executable::execute(const std::vector<const Buffer*>& args,
                                  const ExecuteOptions& options) const {
  const PJRT_Api* api = client_->plugin().api();
  if (devices_.size() > 1) {
    throw Error(ErrorCode::kInvalidArgument, "program '" + name_ + "' is replicated over " +
                                                 std::to_string(devices_.size()) +
                                                 " devices: launch it with executeReplicated");
  }
  // A program compiled for one device (a portable program compiled on a
  // client of one device, see Client::compile) runs there; a portable one
  // runs on the device asked for.
  const bool pinned = devices_.size() == 1;
  if (pinned && options.device >= 0 && options.device != devices_[0]) {
    throw Error(ErrorCode::kInvalidArgument, "program '" + name_ + "' was compiled for device " +
                                                 std::to_string(devices_[0]) + ", not device " +
                                                 std::to_string(options.device));
  }
  const int device = pinned ? devices_[0] : (options.device >= 0 ? options.device : 0);
  std::vector<PJRT_Buffer*> rawArgs = rawArguments(args, pinned ? device : -1);
  PJRT_Buffer* const* argList = rawArgs.data();

  std::vector<PJRT_Buffer*> rawOuts(numOutputs_, nullptr);
  PJRT_Buffer** outList = rawOuts.data();

  detail::Args<PJRT_ExecuteOptions> opts;
  opts->non_donatable_input_indices = options.nonDonatable.data();
  opts->num_non_donatable_input_indices = options.nonDonatable.size();

  PJRT_Event* doneEvent = nullptr;
  detail::Args<PJRT_LoadedExecutable_Execute_Args> exec;
  exec->executable = exe_;
  exec->options = opts.get();
  exec->argument_lists = &argList;
  exec->num_devices = 1;
  exec->num_args = rawArgs.size();
  exec->output_lists = &outList;
  exec->device_complete_events = &doneEvent;
  if (!pinned) exec->execute_device = client_->rawDevice(device);
  TORCHTPU_PJRT_CALL(api, PJRT_LoadedExecutable_Execute, exec);

  ExecuteResult result;
  result.done = Event(api, doneEvent);
  result.outputs.reserve(numOutputs_);
  for (PJRT_Buffer* b : rawOuts) result.outputs.emplace_back(client_, b, device);
  return result;
}

std::vector<ExecuteResult> Executable::executeReplicated(
    const std::vector<std::vector<const Buffer*>>& argsPerDevice,
    const ExecuteOptions& options) const {
  const PJRT_Api* api = client_->plugin().api();
  const size_t n = devices_.size();
  if (argsPerDevice.size() != n) {
    throw Error(ErrorCode::kInvalidArgument, "program '" + name_ + "' runs on " +
                                                 std::to_string(n) + " device(s) but was given " +
                                                 std::to_string(argsPerDevice.size()) +
                                                 " argument list(s)");
  }
  std::vector<std::vector<PJRT_Buffer*>> rawArgs;
  std::vector<PJRT_Buffer* const*> argLists;
  rawArgs.reserve(n);
  for (size_t d = 0; d < n; ++d) {
    rawArgs.push_back(rawArguments(argsPerDevice[d], devices_[d]));
    if (rawArgs.back().size() != rawArgs.front().size()) {
      throw Error(ErrorCode::kInvalidArgument,
                  "program '" + name_ + "': every device needs the same number of arguments");
    }
    argLists.push_back(rawArgs.back().data());
  }
  std::vector<std::vector<PJRT_Buffer*>> rawOuts(n, std::vector<PJRT_Buffer*>(numOutputs_));
  std::vector<PJRT_Buffer**> outLists;
  for (auto& o : rawOuts) outLists.push_back(o.data());
  std::vector<PJRT_Event*> doneEvents(n, nullptr);

  detail::Args<PJRT_ExecuteOptions> opts;
  opts->non_donatable_input_indices = options.nonDonatable.data();
  opts->num_non_donatable_input_indices = options.nonDonatable.size();
  detail::Args<PJRT_LoadedExecutable_Execute_Args> exec;
  exec->executable = exe_;
  exec->options = opts.get();
  exec->argument_lists = argLists.data();
  exec->num_devices = n;
  exec->num_args = rawArgs.empty() ? 0 : rawArgs.front().size();
  exec->output_lists = outLists.data();
  exec->device_complete_events = doneEvents.data();
  TORCHTPU_PJRT_CALL(api, PJRT_LoadedExecutable_Execute, exec);

  std::vector<ExecuteResult> results(n);
  for (size_t d = 0; d < n; ++d) {
    results[d].done = Event(api, doneEvents[d]);
    results[d].outputs.reserve(numOutputs_);
    for (PJRT_Buffer* b : rawOuts[d]) results[d].outputs.emplace_back(client_, b, devices_[d]);
  }
  return results;
}

std::string Executable::serialize() const {
  const PJRT_Api* api = client_->plugin().api();
  detail::Args<PJRT_LoadedExecutable_GetExecutable_Args> get;
  get->loaded_executable = exe_;
  TORCHTPU_PJRT_CALL(api, PJRT_LoadedExecutable_GetExecutable, get);

  detail::Args<PJRT_Executable_Serialize_Args> args;
  args->executable = get->executable;
  PJRT_Error* err = detail::require(api, &PJRT_Api::PJRT_Executable_Serialize,
                                    "PJRT_Executable_Serialize")(args.get());
  std::string bytes;
  if (err == nullptr) {
    bytes.assign(args->serialized_bytes, args->serialized_bytes_size);
    if (args->serialized_executable_deleter != nullptr) {
      args->serialized_executable_deleter(args->serialized_executable);
    }
  }
  detail::Args<PJRT_Executable_Destroy_Args> destroy;
  destroy->executable = get->executable;
  if (PJRT_Error* e = api->PJRT_Executable_Destroy(destroy.get()))
    (void)detail::takeError(api, e, "");
  detail::check(api, err, "PJRT_Executable_Serialize");
  return bytes;
}

}  // namespace torchtpu::runtime
