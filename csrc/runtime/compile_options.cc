#include "runtime/compile_options.h"

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
constexpr int kBuildOptimizationLevel = 24;
// xla.CompileOptionsProto field numbers.
constexpr int kCompilePortable = 4;
constexpr int kCompileBuildOptions = 3;

}  // namespace

std::string CompileOptions::serialize() const {
  std::string build;
  putVarintField(build, kBuildDeviceOrdinal, deviceOrdinal);
  putVarintField(build, kBuildNumReplicas, numReplicas);
  putVarintField(build, kBuildNumPartitions, numPartitions);
  if (optimizationLevel) putVarintField(build, kBuildOptimizationLevel, *optimizationLevel);

  std::string out;
  putMessageField(out, kCompileBuildOptions, build);
  if (portable) putBoolField(out, kCompilePortable, true);
  return out;
}

std::string CompileOptions::fingerprint() const {
  std::ostringstream out;
  out << "r" << numReplicas << "p" << numPartitions << "d" << deviceOrdinal << (portable ? "P" : "")
      << "o" << (optimizationLevel ? std::to_string(*optimizationLevel) : "-");
  return out.str();
}

}  // namespace torchtpu::runtime
