// The op-call IR: what a program's cache key covers (op, views, static
// arguments, array and scalar types) and what it leaves to runtime values.
#include <gtest/gtest.h>

#include "ir/op_call.h"
#include "tests/ir_testing.h"

namespace torchtpu::ir {
namespace {

using runtime::ElementType;

using test::tensorArg;
using test::view;

// aten::mul.Tensor(self, other) on views of one f32[12] storage, with a
// runtime scalar.
OpCall mulCall(TensorRef self, TensorRef other) {
  OpCall c;
  c.op = "aten::mul.Tensor";
  c.argNames = {"self", "other", "alpha"};
  c.args = {tensorArg(std::move(self)), tensorArg(std::move(other))};
  ArgValue alpha;
  alpha.kind = ArgValue::Kind::kScalar;
  alpha.scalar = 0;
  c.args.push_back(alpha);
  c.arrays = {hlo::TensorType(ElementType::kF32, {12})};
  c.scalars = {hlo::TensorType(ElementType::kF64)};
  return c;
}

TEST(OpCall, KeyCoversViewsButNotScalarValues) {
  const OpCall base = mulCall(view(0, {3, 4}, {4, 1}), view(0, {4}, {1}));
  const std::string key = base.key();
  EXPECT_EQ(mulCall(view(0, {3, 4}, {4, 1}), view(0, {4}, {1})).key(), key);
  // Another view: offset, strides or sizes.
  EXPECT_NE(mulCall(view(0, {3, 4}, {4, 1}), view(0, {4}, {1}, 8)).key(), key);
  EXPECT_NE(mulCall(view(0, {3, 4}, {1, 3}), view(0, {4}, {1})).key(), key);
  EXPECT_NE(mulCall(view(0, {2, 4}, {4, 1}), view(0, {4}, {1})).key(), key);
  // Another storage type or op.
  OpCall bigger = base;
  bigger.arrays[0] = hlo::TensorType(ElementType::kF32, {13});
  EXPECT_NE(bigger.key(), key);
  OpCall other = base;
  other.op = "aten::div.Tensor";
  EXPECT_NE(other.key(), key);
  // A runtime scalar's type is in the key; its value never is (it is not in
  // the call at all).
  OpCall wider = base;
  wider.scalars[0] = hlo::TensorType(ElementType::kS64);
  EXPECT_NE(wider.key(), key);
}

TEST(OpCall, StaticArgumentsAreInTheKey) {
  auto sumCall = [](std::vector<int64_t> dims, bool keepdim) {
    OpCall c;
    c.op = "aten::sum.dim_IntList";
    c.argNames = {"self", "dim", "keepdim"};
    c.args = {tensorArg(view(0, {3, 4}, {4, 1}))};
    ArgValue d;
    d.kind = ArgValue::Kind::kInts;
    d.ints = std::move(dims);
    ArgValue k;
    k.kind = ArgValue::Kind::kBool;
    k.b = keepdim;
    c.args.push_back(d);
    c.args.push_back(k);
    c.arrays = {hlo::TensorType(ElementType::kF32, {12})};
    return c;
  };
  const std::string key = sumCall({1}, false).key();
  EXPECT_EQ(sumCall({1}, false).key(), key);
  EXPECT_NE(sumCall({0}, false).key(), key);
  EXPECT_NE(sumCall({1}, true).key(), key);
}

// The bridge reuses an op's last signature when sameDescription holds, in
// place of building and looking up the key: it must never hold for calls of
// different keys.
TEST(OpCall, SameDescriptionImpliesTheSameKey) {
  const OpCall base = mulCall(view(0, {3, 4}, {4, 1}), view(0, {4}, {1}));
  std::vector<OpCall> variants;
  variants.push_back(mulCall(view(0, {3, 4}, {4, 1}), view(0, {4}, {1}, 8)));
  variants.push_back(mulCall(view(0, {3, 4}, {1, 3}), view(0, {4}, {1})));
  variants.push_back(mulCall(view(0, {2, 4}, {4, 1}), view(0, {4}, {1})));
  OpCall v = base;
  v.arrays[0] = hlo::TensorType(ElementType::kF32, {13});
  variants.push_back(v);
  v = base;
  v.op = "aten::div.Tensor";
  variants.push_back(v);
  v = base;
  v.scalars[0] = hlo::TensorType(ElementType::kS64);
  variants.push_back(v);
  v = base;
  v.zeroArrays = {true};
  variants.push_back(v);
  v = base;
  v.args[2].kind = ArgValue::Kind::kDouble;
  v.args[2].d = 0.0;
  variants.push_back(v);
  OpCall negZero = v;
  negZero.args[2].d = -0.0;  // equal as doubles, not in the key
  variants.push_back(negZero);
  for (const OpCall& c : variants) {
    ASSERT_NE(c.key(), base.key());
    EXPECT_FALSE(base.sameDescription(c)) << c.key();
    EXPECT_FALSE(c.sameDescription(base)) << c.key();
  }
  EXPECT_TRUE(base.sameDescription(mulCall(view(0, {3, 4}, {4, 1}), view(0, {4}, {1}))));
  EXPECT_FALSE(v.sameDescription(negZero));
  // A stored call has its write targets filled in after its key was made;
  // a call just described has none, and one that has is not compared.
  OpCall stored = base;
  stored.writeBack = {{0, -1}};
  EXPECT_TRUE(stored.sameDescription(base));
  EXPECT_FALSE(base.sameDescription(stored));
}

TEST(TensorRef, WholeArrayMeansTheStorageInRowMajorOrder) {
  const hlo::TensorType flat(ElementType::kF32, {12});
  EXPECT_TRUE(view(0, {3, 4}, {4, 1}).isWholeArray(flat));
  EXPECT_TRUE(view(0, {12}, {1}).isWholeArray(flat));
  EXPECT_FALSE(view(0, {4, 3}, {1, 4}).isWholeArray(flat));  // transposed
  EXPECT_FALSE(view(0, {2, 4}, {4, 1}, 4).isWholeArray(flat));
  EXPECT_FALSE(view(0, {3, 4}, {4, 1}).isWholeArray(hlo::TensorType(ElementType::kF32, {13})));
  EXPECT_EQ(view(0, {3, 0, 4}, {4, 4, 1}).numel(), 0);
  EXPECT_EQ(view(0, {3, 4}, {4, 1}).numel(), 12);
}

TEST(OpCall, StoredTypeFollowsTheResultOrder) {
  OpCall c = mulCall(view(0, {3, 4}, {4, 1}), view(0, {4}, {1}));
  c.results = {hlo::TensorType(ElementType::kF32, {3, 4})};
  EXPECT_EQ(c.storedType(0).dims, (std::vector<int64_t>{3, 4}));
  c.resultOrder = {{1, 0}};  // stored as its transpose (a column-major layout)
  EXPECT_EQ(c.storedType(0).dims, (std::vector<int64_t>{4, 3}));
}

}  // namespace
}  // namespace torchtpu::ir
