// The "tpu" random generator: a seed and an offset. Random ops receive both
// as runtime inputs and advance the offset, so results are reproducible per
// seed and no program is recompiled for a new seed.
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/GeneratorImpl.h>

#include <cstdint>
#include <utility>

namespace torchtpu::aten {

class TpuGenerator final : public c10::GeneratorImpl {
 public:
  explicit TpuGenerator(c10::DeviceIndex device);

  void set_current_seed(uint64_t seed) override;
  void set_offset(uint64_t offset) override;
  uint64_t get_offset() const override;
  uint64_t current_seed() const override;
  uint64_t seed() override;
  // State: 16 bytes, the seed then the offset (as DTensor expects of
  // Philox-like generators).
  void set_state(const c10::TensorImpl& new_state) override;
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override;
  static c10::DeviceType device_type() { return c10::DeviceType::PrivateUse1; }

  // Returns (seed, offset) for one random op and advances the offset.
  std::pair<uint64_t, uint64_t> next(uint64_t increment = 1);

 private:
  TpuGenerator* clone_impl() const override;
  uint64_t seed_ = 67280421310721ULL;
  uint64_t offset_ = 0;
};

const at::Generator& defaultGenerator(c10::DeviceIndex device);
at::Generator newGenerator(c10::DeviceIndex device);

}  // namespace torchtpu::aten
