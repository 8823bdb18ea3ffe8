#include "runtime/compile_options.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace torchtpu::runtime {
namespace {

// Protocol buffer wire format: just varints and length-delimited fields.
void putVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void putVarintField(std::string& out, int field, int64_t value) {
  putVarint(out, static_cast<uint64_t>(field) << 3);  // wire type 0
  putVarint(out, static_cast<uint64_t>(value));       // negative: ten-byte two's complement
}

void putBoolField(std::string& out, int field, bool value) {
  putVarintField(out, field, value ? 1 : 0);
}

void putMessageField(std::string& out, int field, const std::string& message) {
  putVarint(out, (static_cast<uint64_t>(field) << 3) | 2);
  putVarint(out, message.size());
  out += message;
}

// xla.ExecutableBuildOptionsProto field numbers.
constexpr int kBuildDeviceOrdinal = 1;
constexpr int kBuildNumReplicas = 4;
constexpr int kBuildNumPartitions = 5;
constexpr int kBuildDeviceAssignment = 9;
constexpr int kBuildOptimizationLevel = 24;
// xla.DeviceAssignmentProto (and its ComputationDevice) field numbers.
constexpr int kAssignReplicaCount = 1;
constexpr int kAssignComputationCount = 2;
constexpr int kAssignComputationDevices = 3;
constexpr int kComputationReplicaDeviceIds = 1;
// xla.CompileOptionsProto field numbers.
constexpr int kCompilePortable = 4;
constexpr int kCompileBuildOptions = 3;
constexpr int kCompileEnvOptionOverrides = 7;  // map<string, OptionOverrideProto>
// A map entry, and xla.OptionOverrideProto.
constexpr int kEntryKey = 1;
constexpr int kEntryValue = 2;
constexpr int kOverrideBool = 2;

void putStringField(std::string& out, int field, const std::string& value) {
  putMessageField(out, field, value);  // the same wire format
}

}  // namespace

std::string CompileOptions::serialize() const {
  const bool assigned = !replicaDevices.empty();
  std::string build;
  putVarintField(build, kBuildDeviceOrdinal, deviceOrdinal);
  putVarintField(build, kBuildNumReplicas,
                 assigned ? static_cast<int64_t>(replicaDevices.size()) : numReplicas);
  putVarintField(build, kBuildNumPartitions, numPartitions);
  if (assigned) {
    std::string computation;
    for (int64_t id : replicaDevices) putVarintField(computation, kComputationReplicaDeviceIds, id);
    std::string assignment;
    putVarintField(assignment, kAssignReplicaCount, static_cast<int64_t>(replicaDevices.size()));
    putVarintField(assignment, kAssignComputationCount, 1);
    putMessageField(assignment, kAssignComputationDevices, computation);
    putMessageField(build, kBuildDeviceAssignment, assignment);
  }
  if (optimizationLevel) putVarintField(build, kBuildOptimizationLevel, *optimizationLevel);

  std::string out;
  putMessageField(out, kCompileBuildOptions, build);
  if (portable && !assigned) putBoolField(out, kCompilePortable, true);
  for (const auto& [name, value] : xlaOptions) {
    std::string override;
    putBoolField(override, kOverrideBool, value);
    std::string entry;
    putStringField(entry, kEntryKey, name);
    putMessageField(entry, kEntryValue, override);
    putMessageField(out, kCompileEnvOptionOverrides, entry);
  }
  return out;
}

std::vector<std::pair<std::string, bool>> CompileOptions::defaultXlaOptions() {
  static const std::vector<std::pair<std::string, bool>> options = [] {
    std::vector<std::pair<std::string, bool>> out = {{"xla_cpu_enable_fast_min_max", false}};
    const char* env = std::getenv("TORCHTPU_XLA_OPTIONS");
    std::stringstream in(env != nullptr ? env : "");
    std::string item;
    while (std::getline(in, item, ',')) {
      const size_t eq = item.find('=');
      if (item.empty() || eq == std::string::npos) continue;
      const std::string name = item.substr(0, eq);
      const bool value = item.substr(eq + 1) != "0" && item.substr(eq + 1) != "false";
      auto it =
          std::find_if(out.begin(), out.end(), [&](const auto& o) { return o.first == name; });
      if (it != out.end()) {
        it->second = value;
      } else {
        out.emplace_back(name, value);
      }
    }
    return out;
  }();
  return options;
}

bool CompileOptions::isDefault() const {
  const CompileOptions d;
  return numReplicas == d.numReplicas && replicaDevices.empty() &&
         numPartitions == d.numPartitions && deviceOrdinal == d.deviceOrdinal &&
         portable == d.portable && optimizationLevel == d.optimizationLevel &&
         xlaOptions == d.xlaOptions;
}

std::string CompileOptions::fingerprint() const {
  std::ostringstream out;
  out << "r" << numReplicas;
  if (!replicaDevices.empty()) {
    out << "[";
    for (int64_t id : replicaDevices) out << id << ",";
    out << "]";
  }
  out << "p" << numPartitions << "d" << deviceOrdinal << (portable ? "P" : "") << "o"
      << (optimizationLevel ? std::to_string(*optimizationLevel) : "-");
  for (const auto& [name, value] : xlaOptions) out << "," << name << "=" << (value ? 1 : 0);
  return out.str();
}

}  // namespace torchtpu::runtime
