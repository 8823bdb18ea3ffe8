// A PJRT client: the devices of one plugin, and the entry point for
// transfers, compilation and deserialization.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/buffer.h"
#include "runtime/compile_options.h"
#include "runtime/device.h"
#include "runtime/element_type.h"
#include "runtime/event.h"
#include "runtime/executable.h"
#include "runtime/plugin.h"

struct PJRT_Client;
struct PJRT_Device;

namespace torchtpu::runtime {

// Client creation options (PJRT_NamedValue), e.g. {"cpu_device_count", 4}.
using OptionValue = std::variant<int64_t, std::string, bool, double, std::vector<int64_t>>;
using ClientOptions = std::map<std::string, OptionValue>;

class Client : public std::enable_shared_from_this<Client> {
 public:
  static std::shared_ptr<Client> create(std::shared_ptr<Plugin> plugin,
                                        const ClientOptions& options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const Plugin& plugin() const { return *plugin_; }
  const std::string& platformName() const { return platformName_; }
  const std::string& platformVersion() const { return platformVersion_; }
  const std::vector<DeviceInfo>& devices() const { return devices_; }
  int deviceCount() const { return static_cast<int>(devices_.size()); }

  struct HostToDevice {
    Buffer buffer;
    Event hostDone;  // the host data may be reused once this completes
  };
  // Starts a host-to-device copy of dense row-major data. `data` must stay
  // valid and unchanged until `hostDone` completes.
  HostToDevice toDeviceAsync(const void* data, ElementType type, const std::vector<int64_t>& dims,
                             int device = 0) const;
  // Copies host data to the device; `data` may be reused when this returns.
  Buffer toDevice(const void* data, ElementType type, const std::vector<int64_t>& dims,
                  int device = 0) const;

  // Compiles a StableHLO (MLIR text or bytecode) program. Parse and compile
  // errors carry the plugin's message.
  std::shared_ptr<Executable> compile(std::string_view mlir,
                                      const CompileOptions& options = {}) const;
  // Loads an executable produced by Executable::serialize.
  std::shared_ptr<Executable> deserialize(std::string_view bytes) const;

  // Memory statistics of a device, or nothing where the plugin reports none.
  std::optional<MemoryStats> memoryStats(int device) const;

  // For the runtime layer only.
  Client(std::shared_ptr<Plugin> plugin, PJRT_Client* client);
  PJRT_Client* raw() const { return client_; }
  PJRT_Device* rawDevice(int index) const;
  // The index of an addressable device (-1 if it is not one of this client's).
  int deviceIndexOf(const PJRT_Device* device) const;

 private:
  void checkDevice(int device) const;
  std::shared_ptr<Plugin> plugin_;
  PJRT_Client* client_ = nullptr;
  std::vector<PJRT_Device*> rawDevices_;
  std::vector<DeviceInfo> devices_;
  std::string platformName_;
  std::string platformVersion_;
};

}  // namespace torchtpu::runtime
