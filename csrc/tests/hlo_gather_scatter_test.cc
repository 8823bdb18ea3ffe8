// gather and scatter on the plugin against hand-written host loops for the
// usual shapes: row select, point gather, windows with start clamping,
// batching dims (take-along-axis), leading index vector dim; scatter-add with
// duplicates, replace, out-of-bounds skipping, batching dims, two inputs.
#include "tests/hlo_testing.h"

namespace torchtpu::hlo::test {
namespace {

using Args = std::vector<Value>;

std::vector<float> seq(int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return v;
}

TEST(Gather, RowsPointsWindows) {
  const std::vector<float> a = seq(15);  // [5, 3]
  const std::vector<float> b = seq(20);  // [4, 5]
  const std::vector<int32_t> rows = {4, 0, 2, 2};
  const std::vector<int64_t> points = {2, 1, 0, 3};  // [2, 2] into b viewed as [4, 5]
  const std::vector<int32_t> starts = {3, 1};        // [2, 1]
  auto out =
      run({f32({5, 3}, a), i32({4}, rows), f32({4, 5}, b),
           arr<int64_t>(ElementType::kS64, {2, 2}, points), i32({2, 1}, starts)},
          [](Function& f, const Args& p) -> Args {
            GatherDims rowSel{{1}, {0}, {}, {}, {0}, 1};
            GatherDims point{{}, {0, 1}, {}, {}, {0, 1}, 1};
            GatherDims window{{1, 2}, {}, {}, {}, {0}, 1};
            GatherDims leadingVector{{}, {0, 1}, {}, {}, {0, 1}, 0};
            return {f.gather(p[0], p[1], rowSel, {1, 3}), f.gather(p[2], p[3], point, {1, 1}),
                    f.gather(p[2], p[4], window, {2, 5}),
                    f.gather(p[2], f.transpose(p[3], {1, 0}), leadingVector, {1, 1})};
          });
  ASSERT_EQ(out.size(), 4u);
  std::vector<float> w0;
  for (int32_t r : rows) {
    for (int j = 0; j < 3; ++j) w0.push_back(a[r * 3 + j]);
  }
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(out[0].values<float>(), w0);
  const std::vector<float> w1 = {b[2 * 5 + 1], b[0 * 5 + 3]};
  EXPECT_EQ(out[1].values<float>(), w1);
  std::vector<float> w2;
  for (int32_t s : starts) {
    const int32_t r0 = std::min(s, 4 - 2);  // clamped so the 2-row window fits
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 5; ++j) w2.push_back(b[(r0 + i) * 5 + j]);
    }
  }
  EXPECT_EQ(out[2].dims, (std::vector<int64_t>{2, 2, 5}));
  EXPECT_EQ(out[2].values<float>(), w2);
  EXPECT_EQ(out[3].values<float>(), w1);
}

// take_along_axis(x, idx, axis=1) with batching dims instead of an iota.
TEST(Gather, BatchingDims) {
  const std::vector<float> x = seq(8);                  // [2, 4]
  const std::vector<int32_t> idx = {3, 0, 3, 1, 1, 2};  // [2, 3, 1]
  auto out = run({f32({2, 4}, x), i32({2, 3, 1}, idx)}, [](Function& f, const Args& p) -> Args {
    GatherDims d;
    d.offsetDims = {};
    d.collapsedSliceDims = {1};
    d.operandBatchingDims = {0};
    d.startIndicesBatchingDims = {0};
    d.startIndexMap = {1};
    d.indexVectorDim = 2;
    return {f.gather(p[0], p[1], d, {1, 1}, /*indicesAreSorted=*/false)};
  });
  std::vector<float> want;
  for (int b = 0; b < 2; ++b) {
    for (int j = 0; j < 3; ++j) want.push_back(x[b * 4 + idx[b * 3 + j]]);
  }
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(out[0].values<float>(), want);
}

TEST(Scatter, AddReplaceOutOfBounds) {
  const std::vector<float> base = seq(12);         // [4, 3]
  const std::vector<int32_t> rows = {1, 3, 1, 7};  // 7 is out of bounds: skipped
  const std::vector<float> upd = seq(12);          // [4, 3]
  const std::vector<int32_t> pts = {0, 2, 2, 0};   // [2, 2]
  const std::vector<float> vals = {-1, -2};
  auto out =
      run({f32({4, 3}, base), i32({4}, rows), f32({4, 3}, upd), i32({2, 2}, pts), f32({2}, vals)},
          [](Function& f, const Args& p) -> Args {
            ScatterDims rowsDims{{1}, {0}, {}, {}, {0}, 1};
            ScatterDims pointDims{{}, {0, 1}, {}, {}, {0, 1}, 1};
            Value addRows = f.scatter(
                {p[0]}, p[1], {p[2]}, rowsDims,
                [](Function& r, const Args& a) -> Args { return {r.add(a[0], a[1])}; })[0];
            Value setPoints = f.scatter(
                {p[0]}, p[3], {p[4]}, pointDims,
                [](Function&, const Args& a) -> Args { return {a[1]}; },
                /*indicesAreSorted=*/false, /*uniqueIndices=*/true)[0];
            return {addRows, setPoints};
          });
  ASSERT_EQ(out.size(), 2u);
  std::vector<float> w0 = base;
  for (size_t k = 0; k < rows.size(); ++k) {
    if (rows[k] < 0 || rows[k] >= 4) continue;
    for (int j = 0; j < 3; ++j) w0[rows[k] * 3 + j] += upd[k * 3 + j];
  }
  EXPECT_EQ(out[0].values<float>(), w0);
  std::vector<float> w1 = base;
  w1[0 * 3 + 2] = -1;
  w1[2 * 3 + 0] = -2;
  EXPECT_EQ(out[1].values<float>(), w1);
}

// out[b, idx[b, j]] += upd[b, j] through batching dims, and two inputs
// scattered at once with different combiners.
TEST(Scatter, BatchingDimsAndTwoInputs) {
  const std::vector<float> x = seq(8);              // [2, 4]
  const std::vector<int32_t> idx = {3, 3, 0, 2};    // [2, 2, 1]
  const std::vector<float> upd = {10, 20, 30, 40};  // [2, 2]
  const std::vector<int32_t> xi = {5, 5, 5, 5, 5, 5, 5, 5};
  const std::vector<int32_t> updi = {1, 9, 7, 2};
  auto out = run(
      {f32({2, 4}, x), i32({2, 2, 1}, idx), f32({2, 2}, upd), i32({2, 4}, xi), i32({2, 2}, updi)},
      [](Function& f, const Args& p) -> Args {
        ScatterDims d;
        d.updateWindowDims = {};
        d.insertedWindowDims = {1};
        d.inputBatchingDims = {0};
        d.scatterIndicesBatchingDims = {0};
        d.scatterDimsToOperandDims = {1};
        d.indexVectorDim = 2;
        return f.scatter({p[0], p[3]}, p[1], {p[2], p[4]}, d,
                         [](Function& r, const Args& a) -> Args {
                           // a = (x, xi, updX, updXi)
                           return {r.add(a[0], a[2]), r.maximum(a[1], a[3])};
                         });
      });
  ASSERT_EQ(out.size(), 2u);
  std::vector<float> w0 = x;
  std::vector<int32_t> w1 = xi;
  for (int b = 0; b < 2; ++b) {
    for (int j = 0; j < 2; ++j) {
      const int k = b * 4 + idx[b * 2 + j];
      w0[k] += upd[b * 2 + j];
      w1[k] = std::max(w1[k], updi[b * 2 + j]);
    }
  }
  EXPECT_EQ(out[0].values<float>(), w0);
  EXPECT_EQ(out[1].values<int32_t>(), w1);
}

}  // namespace
}  // namespace torchtpu::hlo::test
