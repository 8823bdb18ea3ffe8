// A short list of ints kept inline (no allocation up to kInline entries): a
// recorded op's wiring, of which a trace holds one per op.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace torchtpu::exec {

class SmallInts {
 public:
  static constexpr size_t kInline = 6;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int* begin() const { return data(); }
  const int* end() const { return data() + size_; }
  int operator[](size_t k) const { return data()[k]; }

  void reserve(size_t n) {
    if (n > kInline) spill(n);
  }
  void push_back(int v) {
    if (heap_.empty() && size_ < kInline) {
      inline_[size_] = v;
    } else {
      if (heap_.empty()) spill(size_ + 1);
      heap_.push_back(v);
    }
    ++size_;
  }
  std::vector<int> toVector() const { return {begin(), end()}; }
  bool operator==(const SmallInts& o) const {
    if (size_ != o.size_) return false;
    for (size_t k = 0; k < size_; ++k) {
      if ((*this)[k] != o[k]) return false;
    }
    return true;
  }

 private:
  const int* data() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  // Moves the entries to the heap, with room for n.
  void spill(size_t n) {
    if (!heap_.empty()) {
      heap_.reserve(n);
      return;
    }
    heap_.reserve(n);
    heap_.assign(inline_.begin(), inline_.begin() + size_);
    // An empty list spilled for a reserve stays inline until its first entry.
    if (size_ == 0) heap_.clear();
  }

  std::array<int, kInline> inline_{};
  std::vector<int> heap_;
  size_t size_ = 0;
};

}  // namespace torchtpu::exec
