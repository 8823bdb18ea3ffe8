// Views on the plugin: readView and writeView of every kind of strided view
// over a flat storage (a whole array, a contiguous run, a box read with slices
// and transposes, a box past the storage's end, a broadcast, and strides that
// do not nest, read with a gather and written with a scatter), checked against
// the element indices PyTorch's strides give.
#include <bit>
#include <numeric>

#include "lower/core/lowering.h"
#include "lower/core/views.h"
#include "tests/hlo_testing.h"
#include "tests/ir_testing.h"

namespace torchtpu::lower {
namespace {

using hlo::test::f32;
using hlo::test::run;
using runtime::ElementType;
using testing::HostArray;

constexpr int64_t kStorage = 12;

// A view of the storage (call array 0).
ir::TensorRef view(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) {
  return ir::test::view(0, std::move(sizes), std::move(strides), offset);
}

// The storage index of each element of the view, in row-major order.
std::vector<int64_t> indices(const ir::TensorRef& t) {
  std::vector<int64_t> out;
  std::vector<int64_t> at(t.sizes.size(), 0);
  const int64_t n = t.numel();
  for (int64_t e = 0; e < n; ++e) {
    int64_t idx = t.offset;
    for (size_t k = 0; k < at.size(); ++k) idx += at[k] * t.strides[k];
    out.push_back(idx);
    for (size_t k = at.size(); k-- > 0;) {
      if (++at[k] < t.sizes[k]) break;
      at[k] = 0;
    }
  }
  return out;
}

HostArray storage() {
  std::vector<float> v(kStorage);
  std::iota(v.begin(), v.end(), 0.0f);
  return f32({kStorage}, v);
}

struct Case {
  const char* name;
  ir::TensorRef ref;
};

std::vector<Case> cases() {
  return {
      {"whole array", view({3, 4}, {4, 1}, 0)},
      {"contiguous run", view({5}, {1}, 3)},
      {"transposed box", view({4, 3}, {1, 4}, 0)},
      {"stepped slice", view({3}, {3}, 1)},
      {"box past the end", view({2, 2}, {6, 2}, 1)},
      {"broadcast", view({3, 2}, {0, 1}, 2)},
      {"strides that do not nest", view({3, 3}, {2, 3}, 0)},
      {"size-one dims", view({1, 4, 1}, {7, 2, 5}, 1)},
  };
}

TEST(Views, ReadMatchesStrides) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    auto out = run({storage()}, [&](hlo::Function& fn, const std::vector<hlo::Value>& p) {
      return std::vector<hlo::Value>{readView(fn, p[0], c.ref)};
    });
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].dims, c.ref.sizes);
    std::vector<float> expected;
    for (int64_t i : indices(c.ref)) expected.push_back(static_cast<float>(i));
    EXPECT_EQ(out[0].values<float>(), expected);
  }
}

TEST(Views, WriteChangesOnlyTheViewsElements) {
  for (const Case& c : cases()) {
    if (std::string(c.name) == "broadcast") continue;  // overlapping writes: ill-defined
    SCOPED_TRACE(c.name);
    const int64_t n = c.ref.numel();
    std::vector<float> value(static_cast<size_t>(n));
    for (int64_t e = 0; e < n; ++e) value[e] = 100.0f + static_cast<float>(e);
    auto out = run({storage(), f32(c.ref.sizes, value)},
                   [&](hlo::Function& fn, const std::vector<hlo::Value>& p) {
                     return std::vector<hlo::Value>{writeView(fn, p[0], c.ref, p[1])};
                   });
    ASSERT_EQ(out.size(), 1u);
    std::vector<float> expected = storage().values<float>();
    const std::vector<int64_t> idx = indices(c.ref);
    for (size_t e = 0; e < idx.size(); ++e) expected[idx[e]] = value[e];
    EXPECT_EQ(out[0].values<float>(), expected);
  }
}

TEST(Views, ZeroSizeViewsReadZerosAndWriteNothing) {
  const ir::TensorRef empty = view({0, 3}, {3, 1}, 4);
  auto out =
      run({storage(), f32({0, 3}, {})}, [&](hlo::Function& fn, const std::vector<hlo::Value>& p) {
        return std::vector<hlo::Value>{readView(fn, p[0], empty), writeView(fn, p[0], empty, p[1])};
      });
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(out[1].values<float>(), storage().values<float>());
}

// A view of another dtype than its array (view_as_complex of a float result,
// Tensor.view(torch.int32), ...) reads and writes the array's bytes.
TEST(Views, AViewOfAnotherDtypeReadsAndWritesTheBytes) {
  ir::TensorRef ints = view({2, 2}, {1, 2}, 3);  // transposed, at an offset
  ints.dtype = ElementType::kS32;
  auto out = run({storage(), hlo::test::i32({2, 2}, {-1, -2, -3, -4})},
                 [&](hlo::Function& fn, const std::vector<hlo::Value>& p) {
                   return std::vector<hlo::Value>{readView(fn, p[0], ints),
                                                  writeView(fn, p[0], ints, p[1])};
                 });
  std::vector<int32_t> bits;
  for (int64_t i : indices(ints)) bits.push_back(std::bit_cast<int32_t>(static_cast<float>(i)));
  EXPECT_EQ(out[0].values<int32_t>(), bits);
  EXPECT_EQ(out[1].dims, (std::vector<int64_t>{kStorage}));
  std::vector<int32_t> written(kStorage);
  for (int64_t k = 0; k < kStorage; ++k) {
    written[k] = std::bit_cast<int32_t>(out[1].values<float>()[k]);
  }
  const std::vector<int64_t> idx = indices(ints);
  for (size_t e = 0; e < idx.size(); ++e) EXPECT_EQ(written[idx[e]], -1 - static_cast<int>(e));
  EXPECT_EQ(out[1].values<float>()[0], 0.0f);  // the rest is untouched
  EXPECT_EQ(out[1].values<float>()[11], 11.0f);

  // complex64 over float32: (re, im) pairs; the real parts of elements 1..3.
  ir::TensorRef pairs = view({3}, {1}, 1);
  pairs.dtype = ElementType::kC64;
  auto re = run({storage()}, [&](hlo::Function& fn, const std::vector<hlo::Value>& p) {
    return std::vector<hlo::Value>{fn.unary(hlo::UnaryOp::kReal, readView(fn, p[0], pairs))};
  });
  EXPECT_EQ(re[0].values<float>(), (std::vector<float>{2.0f, 4.0f, 6.0f}));
}

}  // namespace
}  // namespace torchtpu::lower
