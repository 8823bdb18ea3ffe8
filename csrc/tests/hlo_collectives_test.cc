// Collective ops of the builder: their text, their shape rules and errors,
// and their results on two replicas of the test plugin against host arithmetic.
#include <vector>

#include "runtime/client.h"
#include "tests/hlo_testing.h"

namespace torchtpu::hlo::test {
namespace {

const ReplicaGroups kPair = {{0, 1}};

// Runs @main (one f32 parameter of `dims`) on replicas 0 and 1 (devices 0, 1)
// with inputs a and b; returns each replica's first result.
std::vector<std::vector<float>> runPair(const std::vector<int64_t>& dims,
                                        const std::vector<float>& a, const std::vector<float>& b,
                                        const Body& body) {
  const std::string text = mainText({TensorType(ElementType::kF32, dims)}, body);
  auto client = testing::testClient();
  runtime::CompileOptions options;
  options.replicaDevices = {client->devices()[0].id, client->devices()[1].id};
  auto exe = client->compile(text, options);
  runtime::Buffer x = client->toDevice(a.data(), ElementType::kF32, dims, 0);
  runtime::Buffer y = client->toDevice(b.data(), ElementType::kF32, dims, 1);
  auto results = exe->executeReplicated({{&x}, {&y}});
  std::vector<std::vector<float>> out;
  for (auto& r : results) {
    const runtime::Buffer& o = r.outputs.at(0);
    std::vector<float> v(o.numElements());
    o.copyToHost(v.data(), v.size() * sizeof(float));
    out.push_back(std::move(v));
  }
  return out;
}

TEST(Collectives, AllReduceMaxAndText) {
  const Body body = [](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
    return {f.allReduce(p[0], kPair, BinaryOp::kMaximum)};
  };
  const std::string text = mainText({TensorType(ElementType::kF32, {2})}, body);
  EXPECT_NE(text.find("replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>"), std::string::npos);
  auto out = runPair({2}, {1, 5}, {3, 2}, body);
  EXPECT_EQ(out[0], (std::vector<float>{3, 5}));
  EXPECT_EQ(out[1], (std::vector<float>{3, 5}));
}

TEST(Collectives, AllGatherConcatenatesInReplicaOrder) {
  auto out = runPair({1, 2}, {1, 2}, {3, 4}, [](Function& f, const std::vector<Value>& p) {
    const Value g = f.allGather(p[0], 0, kPair);
    EXPECT_EQ(g.dims(), (std::vector<int64_t>{2, 2}));
    return std::vector<Value>{g};
  });
  EXPECT_EQ(out[0], (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(out[1], (std::vector<float>{1, 2, 3, 4}));
}

TEST(Collectives, ReduceScatterKeepsEachReplicasBlock) {
  auto out =
      runPair({4}, {1, 2, 3, 4}, {10, 20, 30, 40}, [](Function& f, const std::vector<Value>& p) {
        return std::vector<Value>{f.reduceScatter(p[0], 0, kPair, BinaryOp::kAdd)};
      });
  EXPECT_EQ(out[0], (std::vector<float>{11, 22}));
  EXPECT_EQ(out[1], (std::vector<float>{33, 44}));
}

TEST(Collectives, AllToAllExchangesBlocks) {
  auto out =
      runPair({4}, {1, 2, 3, 4}, {10, 20, 30, 40}, [](Function& f, const std::vector<Value>& p) {
        return std::vector<Value>{f.allToAll(p[0], 0, 0, kPair)};
      });
  EXPECT_EQ(out[0], (std::vector<float>{1, 2, 10, 20}));
  EXPECT_EQ(out[1], (std::vector<float>{3, 4, 30, 40}));
}

TEST(Collectives, PermuteAndReplicaId) {
  auto out = runPair({2}, {1, 2}, {3, 4}, [](Function& f, const std::vector<Value>& p) {
    const Value moved = f.collectivePermute(p[0], {{0, 1}});  // replica 0 receives nothing
    const Value id = f.convert(f.replicaId(), ElementType::kF32);
    return std::vector<Value>{f.add(moved, f.broadcastInDim(id, {2}, {}))};
  });
  EXPECT_EQ(out[0], (std::vector<float>{0, 0}));
  EXPECT_EQ(out[1], (std::vector<float>{2, 3}));
}

TEST(Collectives, RejectBadGroupsAndShapes) {
  Module m("bad");
  Function& f = m.addFunction("main", {TensorType(ElementType::kF32, {3})}, true);
  const Value x = f.param(0);
  EXPECT_THROW(f.allReduce(x, {}, BinaryOp::kAdd), std::invalid_argument);
  EXPECT_THROW(f.allReduce(x, {{0, 1}, {2}}, BinaryOp::kAdd), std::invalid_argument);
  EXPECT_THROW(f.allReduce(x, {{0, 0}}, BinaryOp::kAdd), std::invalid_argument);
  EXPECT_THROW(f.allReduce(x, {{0, 2}}, BinaryOp::kAdd), std::invalid_argument);
  EXPECT_THROW(f.reduceScatter(x, 0, kPair, BinaryOp::kAdd), std::invalid_argument);  // 3 % 2
  EXPECT_THROW(f.allGather(x, 1, kPair), std::invalid_argument);
  EXPECT_THROW(f.allToAll(x, 0, 0, kPair), std::invalid_argument);
  EXPECT_THROW(f.collectivePermute(x, {{0, 1}, {0, 1}}), std::invalid_argument);
  EXPECT_THROW(f.collectivePermute(x, {}), std::invalid_argument);
}

}  // namespace
}  // namespace torchtpu::hlo::test
