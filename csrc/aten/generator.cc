#include "aten/generator.h"

#include <ATen/Functions.h>
#include <ATen/core/GeneratorForPrivateuseone.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/Exception.h>

#include <cstring>
#include <deque>
#include <mutex>
#include <random>

#include "aten/storage.h"

namespace torchtpu::aten {

TpuGenerator::TpuGenerator(c10::DeviceIndex device)
    : c10::GeneratorImpl(c10::Device(c10::DeviceType::PrivateUse1, device),
                         c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)) {}

void TpuGenerator::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}
void TpuGenerator::set_offset(uint64_t offset) { offset_ = offset; }
uint64_t TpuGenerator::get_offset() const { return offset_; }
uint64_t TpuGenerator::current_seed() const { return seed_; }

uint64_t TpuGenerator::seed() {
  std::random_device rd;
  const uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  set_current_seed(s);
  return s;
}

void TpuGenerator::set_state(const c10::TensorImpl& state) {
  TORCH_CHECK(state.numel() == 16 && state.dtype() == caffe2::TypeMeta::Make<uint8_t>(),
              "torchtpu: a generator state is a ByteTensor of 16 bytes (seed, offset)");
  uint64_t v[2];
  std::memcpy(v, state.data(), 16);
  seed_ = v[0];
  offset_ = v[1];
}

c10::intrusive_ptr<c10::TensorImpl> TpuGenerator::get_state() const {
  at::Tensor t = at::empty({16}, at::TensorOptions().dtype(at::kByte).device(at::kCPU));
  const uint64_t v[2] = {seed_, offset_};
  std::memcpy(t.data_ptr(), v, 16);
  return t.getIntrusivePtr();
}

std::pair<uint64_t, uint64_t> TpuGenerator::next(uint64_t increment) {
  auto out = std::make_pair(seed_, offset_);
  offset_ += increment;
  return out;
}

TpuGenerator* TpuGenerator::clone_impl() const {
  auto* g = new TpuGenerator(device().index());
  g->seed_ = seed_;
  g->offset_ = offset_;
  return g;
}

const at::Generator& defaultGenerator(c10::DeviceIndex device) {
  static std::mutex mu;
  static std::deque<at::Generator> gens;  // stable addresses
  std::lock_guard<std::mutex> lock(mu);
  if (device < 0) device = currentDevice();
  while (static_cast<c10::DeviceIndex>(gens.size()) <= device) {
    gens.push_back(at::make_generator<TpuGenerator>(static_cast<c10::DeviceIndex>(gens.size())));
  }
  return gens[device];
}

at::Generator newGenerator(c10::DeviceIndex device) {
  if (device < 0) device = currentDevice();
  return at::make_generator<TpuGenerator>(device);
}

}  // namespace torchtpu::aten
