// Ops with regions on the plugin against host loops: reduce (one and several
// inputs), reduce_window, sort, select_and_scatter, while, if.
#include <algorithm>
#include <numeric>

#include "tests/hlo_testing.h"

namespace torchtpu::hlo::test {
namespace {

using Args = std::vector<Value>;

TEST(Region, ReduceSumMaxAndIdentity) {
  const std::vector<float> x = {1, -2, 3, 4, 5, -6};  // [2, 3]
  auto out = run({f32({2, 3}, x), arr<uint8_t>(ElementType::kPred, {2, 2}, {1, 1, 1, 0})},
                 [](Function& f, const Args& p) -> Args {
                   Value zero = f.constant(0, ElementType::kF32);
                   Value ninf = f.constant(-INFINITY, ElementType::kF32);
                   return {
                       f.reduce(p[0], zero, {1}, BinaryOp::kAdd),
                       f.reduce(p[0], zero, {0}, BinaryOp::kAdd),
                       f.reduce(p[0], ninf, {0, 1}, BinaryOp::kMaximum),
                       f.reduce(p[0], zero, {}, BinaryOp::kAdd),
                       f.reduce(p[1], f.constant(1, ElementType::kPred), {1}, BinaryOp::kAnd),
                       // A body with more than one op: sum of squares.
                       f.reduce({p[0]}, {zero}, {1},
                                [](Function& r, const Args& a) -> Args {
                                  return {r.add(a[0], r.multiply(a[1], a[1]))};
                                })[0],
                   };
                 });
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{2, 3}));
  EXPECT_EQ(out[1].values<float>(), (std::vector<float>{5, 3, -3}));
  EXPECT_TRUE(out[2].dims.empty());
  EXPECT_EQ(out[2].values<float>(), (std::vector<float>{5}));
  EXPECT_EQ(out[3].values<float>(), x);
  EXPECT_EQ(out[4].values<uint8_t>(), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(out[5].values<float>(), (std::vector<float>{14, 77}));
}

// Two inputs reduced together: argmax with the lowest index winning ties.
TEST(Region, ReduceArgmax) {
  const std::vector<float> x = {1, 7, 7, 2, 9, 0, 3, 9, -1, -1, -1, -1};  // [3, 4]
  auto out = run({f32({3, 4}, x)}, [](Function& f, const Args& p) -> Args {
    Value idx = f.iota(TensorType(ElementType::kS32, {3, 4}), 1);
    return f.reduce({p[0], idx},
                    {f.constant(-INFINITY, ElementType::kF32), f.constantInt(0, ElementType::kS32)},
                    {1}, [](Function& r, const Args& a) -> Args {
                      // a = (accValue, accIndex, value, index)
                      Value gt = r.compare(a[2], a[0], ComparisonDirection::kGt);
                      Value eq = r.compare(a[2], a[0], ComparisonDirection::kEq);
                      Value lower = r.compare(a[3], a[1], ComparisonDirection::kLt);
                      Value take = r.binary(BinaryOp::kOr, gt, r.binary(BinaryOp::kAnd, eq, lower));
                      return {r.select(take, a[2], a[0]), r.select(take, a[3], a[1])};
                    });
  });
  ASSERT_EQ(out.size(), 2u);
  std::vector<float> maxes;
  std::vector<int32_t> args;
  for (int i = 0; i < 3; ++i) {
    auto row = x.begin() + i * 4;
    auto it = std::max_element(row, row + 4);  // first maximum
    maxes.push_back(*it);
    args.push_back(static_cast<int32_t>(it - row));
  }
  EXPECT_EQ(out[0].values<float>(), maxes);
  EXPECT_EQ(out[1].values<int32_t>(), args);
}

TEST(Region, ReduceWindow) {
  const std::vector<float> x = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  // x is [4, 5].
  auto at = [&](int64_t i, int64_t j) { return x[i * 5 + j]; };
  auto out = run({f32({4, 5}, x)}, [](Function& f, const Args& p) -> Args {
    auto maxBody = [](Function& r, const Args& a) -> Args { return {r.maximum(a[0], a[1])}; };
    auto sumBody = [](Function& r, const Args& a) -> Args { return {r.add(a[0], a[1])}; };
    Value ninf = f.constant(-INFINITY, ElementType::kF32);
    Value zero = f.constant(0, ElementType::kF32);
    Args r;
    // 2x2 max pool, stride 2, one column of padding on the right.
    r.push_back(
        f.reduceWindow({p[0]}, {ninf}, {2, 2}, {2, 2}, {}, {}, {{0, 0}, {0, 1}}, maxBody)[0]);
    // Window dilation 2 along columns, stride 1, no padding: sums x[i][j] + x[i][j+2].
    r.push_back(f.reduceWindow({p[0]}, {zero}, {1, 2}, {}, {}, {1, 2}, {}, sumBody)[0]);
    // Base dilation 2 along rows: holes between rows; window 2 rows sums a row and a hole.
    r.push_back(f.reduceWindow({p[0]}, {zero}, {2, 1}, {1, 1}, {2, 1}, {}, {}, sumBody)[0]);
    // Two inputs at once: (sum, max) over a 4x1 window (a column reduction).
    auto both = f.reduceWindow({p[0], p[0]}, {zero, ninf}, {4, 1}, {}, {}, {}, {},
                               [](Function& rr, const Args& a) -> Args {
                                 return {rr.add(a[0], a[2]), rr.maximum(a[1], a[3])};
                               });
    r.insert(r.end(), both.begin(), both.end());
    return r;
  });
  ASSERT_EQ(out.size(), 5u);
  // Max pool: output [2, 3].
  std::vector<float> pool;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      float m = -INFINITY;
      for (int64_t di = 0; di < 2; ++di) {
        for (int64_t dj = 0; dj < 2; ++dj) {
          if (2 * j + dj < 5) m = std::max(m, at(2 * i + di, 2 * j + dj));
        }
      }
      pool.push_back(m);
    }
  }
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(out[0].values<float>(), pool);
  std::vector<float> dil;
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) dil.push_back(at(i, j) + at(i, j + 2));
  }
  EXPECT_EQ(out[1].dims, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(out[1].values<float>(), dil);
  // Base-dilated rows: 7 rows (x0, hole, x1, hole, x2, hole, x3); windows of 2 -> 6 rows.
  std::vector<float> based;
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t j = 0; j < 5; ++j) based.push_back(i % 2 == 0 ? at(i / 2, j) : at(i / 2 + 1, j));
  }
  EXPECT_EQ(out[2].dims, (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(out[2].values<float>(), based);
  std::vector<float> colSum, colMax;
  for (int64_t j = 0; j < 5; ++j) {
    colSum.push_back(at(0, j) + at(1, j) + at(2, j) + at(3, j));
    colMax.push_back(at(3, j));
  }
  EXPECT_EQ(out[3].values<float>(), colSum);
  EXPECT_EQ(out[4].values<float>(), colMax);
}

TEST(Region, Sort) {
  const std::vector<float> keys = {3, 1, 2, 1, 3, 0};  // [2, 3]
  const std::vector<int32_t> vals = {0, 1, 2, 3, 4, 5};
  auto less = [](Function& r, const Args& a) -> Args {
    return {r.compare(a[0], a[1], ComparisonDirection::kLt)};
  };
  auto out = run({f32({2, 3}, keys), i32({2, 3}, vals), f32({6}, keys)},
                 [&](Function& f, const Args& p) -> Args {
                   Args r;
                   r.push_back(f.sort({p[0]}, 1, false, less)[0]);
                   r.push_back(f.sort({p[0]}, 0, false, less)[0]);
                   // Stable descending key sort carrying values along.
                   auto kv = f.sort({p[2], f.reshape(p[1], {6})}, -1, true,
                                    [](Function& rr, const Args& a) -> Args {
                                      return {rr.compare(a[0], a[1], ComparisonDirection::kGt)};
                                    });
                   r.insert(r.end(), kv.begin(), kv.end());
                   return r;
                 });
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{1, 2, 3, 0, 1, 3}));
  EXPECT_EQ(out[1].values<float>(), (std::vector<float>{1, 1, 0, 3, 3, 2}));
  std::vector<int32_t> order(6);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] > keys[b]; });
  std::vector<float> sortedKeys;
  for (int i : order) sortedKeys.push_back(keys[i]);
  EXPECT_EQ(out[2].values<float>(), sortedKeys);
  EXPECT_EQ(out[3].values<int32_t>(), order);
}

// The gradient of a 2x2 max pool: each source element goes to the argmax of
// its window (first maximum wins with GE), summed where windows overlap.
TEST(Region, SelectAndScatter) {
  const std::vector<float> x = {1, 5, 2, 2, 3, 4, 5, 0, 1, 9, 9, 2, 0, 1, 2, 3};  // [4, 4]
  const std::vector<float> src = {10, 20, 30, 40, 50, 60, 70, 80, 90};            // [3, 3]
  auto out = run({f32({4, 4}, x), f32({3, 3}, src)}, [](Function& f, const Args& p) -> Args {
    return {f.selectAndScatter(
        p[0], p[1], f.constant(0, ElementType::kF32), {2, 2}, {1, 1}, {},
        [](Function& r, const Args& a) -> Args {
          return {r.compare(a[0], a[1], ComparisonDirection::kGe)};
        },
        [](Function& r, const Args& a) -> Args { return {r.add(a[0], a[1])}; })};
  });
  std::vector<float> want(16, 0);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      int64_t best = i * 4 + j;
      for (int64_t di = 0; di < 2; ++di) {
        for (int64_t dj = 0; dj < 2; ++dj) {
          const int64_t k = (i + di) * 4 + j + dj;
          if (!(x[best] >= x[k])) best = k;
        }
      }
      want[best] += src[i * 3 + j];
    }
  }
  EXPECT_EQ(out[0].values<float>(), want);
}

// A counted loop that doubles a vector and adds an outer value each trip.
TEST(Region, WhileLoop) {
  auto out = run({f32({3}, {1, 2, 3}), i32({}, {5}), f32({3}, {0.5, 0.5, 0.5})},
                 [](Function& f, const Args& p) -> Args {
                   Value limit = p[1];
                   Value bias = p[2];
                   auto r = f.whileLoop(
                       {f.constantInt(0, ElementType::kS32), p[0]},
                       [&](Function& c, const Args& a) -> Args {
                         return {c.compare(a[0], limit, ComparisonDirection::kLt)};
                       },
                       [&](Function& b, const Args& a) -> Args {
                         Value two = b.constant(2, ElementType::kF32, {3});
                         return {b.add(a[0], b.constantInt(1, ElementType::kS32)),
                                 b.add(b.multiply(a[1], two), bias)};
                       });
                   return r;
                 });
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{5}));
  std::vector<float> want = {1, 2, 3};
  for (int i = 0; i < 5; ++i) {
    for (float& v : want) v = v * 2 + 0.5f;
  }
  EXPECT_EQ(out[1].values<float>(), want);
}

TEST(Region, IfElse) {
  for (uint8_t pred : {uint8_t{0}, uint8_t{1}}) {
    auto out = run({arr<uint8_t>(ElementType::kPred, {}, {pred}), f32({2}, {3, 4})},
                   [](Function& f, const Args& p) -> Args {
                     Value x = p[1];
                     return f.ifElse(
                         p[0],
                         [&](Function& t, const Args&) -> Args {
                           return {t.multiply(x, x), t.constantInt(1, ElementType::kS32)};
                         },
                         [&](Function& e, const Args&) -> Args {
                           return {e.negate(x), e.constantInt(2, ElementType::kS32)};
                         });
                   });
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].values<float>(),
              pred ? (std::vector<float>{9, 16}) : (std::vector<float>{-3, -4}));
    EXPECT_EQ(out[1].values<int32_t>(), (std::vector<int32_t>{pred ? 1 : 2}));
  }
}

// Regions inside regions, a branch that yields an outer value unchanged, and a
// reduce inside a loop body over the body's own values.
TEST(Region, Nested) {
  auto out = run({f32({2, 2}, {1, 2, 3, 4}), arr<uint8_t>(ElementType::kPred, {}, {1})},
                 [](Function& f, const Args& p) -> Args {
                   Value x = p[0];
                   return f.ifElse(
                       p[1],
                       [&](Function& t, const Args&) -> Args {
                         // Three trips of x <- x + sum(x, rows) broadcast back.
                         auto loop = t.whileLoop(
                             {t.constantInt(0, ElementType::kS32), x},
                             [](Function& c, const Args& a) -> Args {
                               return {c.compare(a[0], c.constantInt(3, ElementType::kS32),
                                                 ComparisonDirection::kLt)};
                             },
                             [](Function& b, const Args& a) -> Args {
                               Value rowSum = b.reduce(a[1], b.constant(0, ElementType::kF32), {1},
                                                       BinaryOp::kAdd);
                               return {b.add(a[0], b.constantInt(1, ElementType::kS32)),
                                       b.add(a[1], b.broadcastInDim(rowSum, {2, 2}, {0}))};
                             });
                         return {loop[1]};
                       },
                       [&](Function&, const Args&) -> Args { return {x}; });
                 });
  std::vector<float> want = {1, 2, 3, 4};
  for (int trip = 0; trip < 3; ++trip) {
    const float r0 = want[0] + want[1], r1 = want[2] + want[3];
    want = {want[0] + r0, want[1] + r0, want[2] + r1, want[3] + r1};
  }
  EXPECT_EQ(out[0].values<float>(), want);
}

}  // namespace
}  // namespace torchtpu::hlo::test
