// Data movement ops on the plugin, checked against host index loops:
// broadcast_in_dim, reshape, transpose, reverse, slice, dynamic_slice,
// dynamic_update_slice, concatenate, pad, iota.
#include <numeric>

#include "tests/hlo_testing.h"

namespace torchtpu::hlo::test {
namespace {

// Row-major helpers.
std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    idx[d] = flat % dims[d];
    flat /= dims[d];
  }
  return idx;
}
int64_t ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  int64_t flat = 0;
  for (size_t d = 0; d < dims.size(); ++d) flat = flat * dims[d] + idx[d];
  return flat;
}
int64_t count(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}
std::vector<float> iotaData(int64_t n, float start = 0) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

TEST(Shape, BroadcastInDim) {
  const std::vector<float> x = iotaData(6, 1);  // [2, 3]
  auto out = run({f32({2, 3}, x), f32({1, 3}, {7, 8, 9})},
                 [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
                   return {f.broadcastInDim(p[0], {3, 2, 5}, {1, 0}),
                           f.broadcastInDim(p[1], {4, 3}, {0, 1}),
                           f.broadcastInDim(f.constant(2.5, ElementType::kF32), {2, 2}, {}),
                           f.broadcastInDim(p[0], {2, 4, 3}, {0, 2})};
                 });
  ASSERT_EQ(out.size(), 4u);
  std::vector<float> w0, w1, w3;
  for (int64_t i = 0; i < 3 * 2 * 5; ++i) {
    auto idx = unravel(i, {3, 2, 5});
    w0.push_back(x[ravel({idx[1], idx[0]}, {2, 3})]);
  }
  for (int64_t i = 0; i < 12; ++i) w1.push_back(std::vector<float>{7, 8, 9}[i % 3]);
  for (int64_t i = 0; i < 24; ++i) {
    auto idx = unravel(i, {2, 4, 3});
    w3.push_back(x[ravel({idx[0], idx[2]}, {2, 3})]);
  }
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{3, 2, 5}));
  EXPECT_EQ(out[0].values<float>(), w0);
  EXPECT_EQ(out[1].values<float>(), w1);
  EXPECT_EQ(out[2].values<float>(), (std::vector<float>(4, 2.5f)));
  EXPECT_EQ(out[3].values<float>(), w3);
}

TEST(Shape, ReshapeTransposeReverse) {
  const std::vector<int64_t> dims = {2, 3, 4};
  const std::vector<float> x = iotaData(24);
  auto out =
      run({f32(dims, x)}, [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
        return {f.reshape(p[0], {4, 1, 6}), f.transpose(p[0], {2, 0, 1}), f.reverse(p[0], {0, 2}),
                f.reshape(f.slice(p[0], {0, 0, 0}, {1, 1, 1}), {})};
      });
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{4, 1, 6}));
  EXPECT_EQ(out[0].values<float>(), x);
  const std::vector<int64_t> perm = {2, 0, 1}, tdims = {4, 2, 3};
  std::vector<float> wt, wr;
  for (int64_t i = 0; i < 24; ++i) {
    auto o = unravel(i, tdims);
    std::vector<int64_t> src(3);
    for (int d = 0; d < 3; ++d) src[perm[d]] = o[d];
    wt.push_back(x[ravel(src, dims)]);
    auto r = unravel(i, dims);
    wr.push_back(x[ravel({1 - r[0], r[1], 3 - r[2]}, dims)]);
  }
  EXPECT_EQ(out[1].dims, tdims);
  EXPECT_EQ(out[1].values<float>(), wt);
  EXPECT_EQ(out[2].values<float>(), wr);
  EXPECT_TRUE(out[3].dims.empty());
  EXPECT_EQ(out[3].values<float>(), (std::vector<float>{0}));
}

TEST(Shape, Slice) {
  const std::vector<float> x = iotaData(30);  // [5, 6]
  auto out =
      run({f32({5, 6}, x)}, [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
        return {f.slice(p[0], {1, 0}, {5, 6}, {2, 4}), f.slice(p[0], {2, 3}, {3, 6}),
                f.slice(p[0], {0, 0}, {0, 6})};
      });
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{6, 10, 18, 22}));
  EXPECT_EQ(out[1].values<float>(), (std::vector<float>{15, 16, 17}));
  EXPECT_EQ(out[2].dims, (std::vector<int64_t>{0, 6}));
}

// Start indices come in as parameters; out-of-range starts are clamped so the
// slice stays inside the operand.
TEST(Shape, DynamicSliceAndUpdate) {
  const std::vector<float> x = iotaData(20);  // [4, 5]
  for (auto [r, c] : std::vector<std::pair<int32_t, int32_t>>{{1, 2}, {3, -1}, {0, 9}}) {
    auto out = run({f32({4, 5}, x), i32({}, {r}), i32({}, {c}), f32({2, 2}, {-1, -2, -3, -4})},
                   [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
                     return {f.dynamicSlice(p[0], {p[1], p[2]}, {2, 3}),
                             f.dynamicUpdateSlice(p[0], p[3], {p[1], p[2]}),
                             f.dynamicSlice(p[0],
                                            {f.convert(p[1], ElementType::kS64),
                                             f.convert(p[2], ElementType::kS64)},
                                            {1, 1})};
                   });
    ASSERT_EQ(out.size(), 3u);
    const int64_t r0 = std::clamp<int64_t>(r, 0, 4 - 2), c0 = std::clamp<int64_t>(c, 0, 5 - 3);
    std::vector<float> ws;
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t j = 0; j < 3; ++j) ws.push_back(x[(r0 + i) * 5 + c0 + j]);
    }
    EXPECT_EQ(out[0].values<float>(), ws) << r << "," << c;
    const int64_t ur = std::clamp<int64_t>(r, 0, 2), uc = std::clamp<int64_t>(c, 0, 3);
    std::vector<float> wu = x;
    const std::vector<float> upd = {-1, -2, -3, -4};
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t j = 0; j < 2; ++j) wu[(ur + i) * 5 + uc + j] = upd[i * 2 + j];
    }
    EXPECT_EQ(out[1].values<float>(), wu) << r << "," << c;
    const int64_t pr = std::clamp<int64_t>(r, 0, 3), pc = std::clamp<int64_t>(c, 0, 4);
    EXPECT_EQ(out[2].values<float>(), (std::vector<float>{x[pr * 5 + pc]}));
  }
}

TEST(Shape, Concatenate) {
  auto out = run({i32({2, 1}, {1, 2}), i32({2, 3}, {3, 4, 5, 6, 7, 8}), i32({2, 0}, {})},
                 [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
                   return {f.concatenate({p[0], p[1], p[2]}, 1), f.concatenate({p[1], p[1]}, 0)};
                 });
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{1, 3, 4, 5, 2, 6, 7, 8}));
  EXPECT_EQ(out[1].values<int32_t>(), (std::vector<int32_t>{3, 4, 5, 6, 7, 8, 3, 4, 5, 6, 7, 8}));
}

// Low/high edge padding (negative crops) and interior padding.
TEST(Shape, Pad) {
  const std::vector<float> x = iotaData(6, 1);  // [2, 3]
  const std::vector<int64_t> lo = {1, -1}, hi = {0, 2}, interior = {1, 1};
  auto out =
      run({f32({2, 3}, x)}, [&](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
        return {f.pad(p[0], f.constant(-9, ElementType::kF32), lo, hi, interior),
                f.pad(p[0], f.constant(0, ElementType::kF32), {0, 0}, {1, 0})};
      });
  ASSERT_EQ(out.size(), 2u);
  // Reference: place each element, then crop negative low padding.
  std::vector<int64_t> odims(2);
  for (int d = 0; d < 2; ++d) {
    const int64_t n = std::vector<int64_t>{2, 3}[d];
    odims[d] = lo[d] + hi[d] + n + (n - 1) * interior[d];
  }
  std::vector<float> want(count(odims), -9);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      const int64_t oi = lo[0] + i * (interior[0] + 1), oj = lo[1] + j * (interior[1] + 1);
      if (oi >= 0 && oi < odims[0] && oj >= 0 && oj < odims[1]) {
        want[oi * odims[1] + oj] = x[i * 3 + j];
      }
    }
  }
  EXPECT_EQ(out[0].dims, odims);
  EXPECT_EQ(out[0].values<float>(), want);
  EXPECT_EQ(out[1].values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6, 0, 0, 0}));
}

TEST(Shape, Iota) {
  auto out = run([](Function& f) -> std::vector<Value> {
    return {f.iota(TensorType(ElementType::kS32, {2, 3}), 0),
            f.iota(TensorType(ElementType::kF32, {2, 3}), 1),
            f.iota(TensorType(ElementType::kU8, {4}), 0),
            f.iota(TensorType(ElementType::kS64, {3, 0}), 0)};
  });
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(out[1].values<float>(), (std::vector<float>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(out[2].values<uint8_t>(), (std::vector<uint8_t>{0, 1, 2, 3}));
  EXPECT_EQ(out[3].dims, (std::vector<int64_t>{3, 0}));
}

}  // namespace
}  // namespace torchtpu::hlo::test
