// Replicated programs: one compile over several devices, one launch across
// all of them, with collectives exchanging data between the replicas.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/client.h"
#include "runtime/error.h"
#include "tests/test_support.h"

namespace torchtpu::runtime {
namespace {

using testing::testClient;

constexpr const char* kAllReduce = R"(module @allreduce {
  func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {
    %r = "stablehlo.all_reduce"(%a) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
    return %r : tensor<3xf32>
  }
})";

CompileOptions overDevices(const std::vector<int>& indices) {
  CompileOptions options;
  for (int i : indices) options.replicaDevices.push_back(testClient()->devices()[i].id);
  return options;
}

std::vector<float> toHost(const Buffer& b) {
  std::vector<float> out(b.numElements());
  b.copyToHost(out.data(), out.size() * sizeof(float));
  return out;
}

TEST(Replicated, AllReduceSumsAcrossTwoDevices) {
  auto client = testClient();
  ASSERT_GE(client->deviceCount(), 2);
  auto exe = client->compile(kAllReduce, overDevices({0, 1}));
  EXPECT_EQ(exe->devices(), (std::vector<int>{0, 1}));
  const float a[3] = {1, 2, 3};
  const float b[3] = {10, 20, 30};
  Buffer x = client->toDevice(a, ElementType::kF32, {3}, 0);
  Buffer y = client->toDevice(b, ElementType::kF32, {3}, 1);
  auto results = exe->executeReplicated({{&x}, {&y}});
  ASSERT_EQ(results.size(), 2u);
  for (int d = 0; d < 2; ++d) {
    results[d].done.await();
    ASSERT_EQ(results[d].outputs.size(), 1u);
    EXPECT_EQ(results[d].outputs[0].deviceIndex(), d);
    EXPECT_EQ(toHost(results[d].outputs[0]), (std::vector<float>{11, 22, 33}));
  }
}

TEST(Replicated, ReplicaOrderFollowsTheAssignment) {
  auto client = testClient();
  auto exe = client->compile(kAllReduce, overDevices({1, 0}));
  EXPECT_EQ(exe->devices(), (std::vector<int>{1, 0}));
  const float a[3] = {1, 1, 1};
  Buffer on1 = client->toDevice(a, ElementType::kF32, {3}, 1);
  Buffer on0 = client->toDevice(a, ElementType::kF32, {3}, 0);
  auto results = exe->executeReplicated({{&on1}, {&on0}});
  EXPECT_EQ(results[0].outputs[0].deviceIndex(), 1);
  EXPECT_EQ(toHost(results[1].outputs[0]), (std::vector<float>{2, 2, 2}));
}

TEST(Replicated, RejectsMisplacedArgumentsAndSingleDeviceLaunches) {
  auto client = testClient();
  auto exe = client->compile(kAllReduce, overDevices({0, 1}));
  const float a[3] = {1, 2, 3};
  Buffer x = client->toDevice(a, ElementType::kF32, {3}, 0);
  Buffer x2 = client->toDevice(a, ElementType::kF32, {3}, 0);
  EXPECT_THROW(exe->executeReplicated({{&x}, {&x2}}), Error);  // both on device 0
  EXPECT_THROW(exe->executeReplicated({{&x}}), Error);         // one list for two devices
  EXPECT_THROW(exe->execute({&x}), Error);                     // needs every replica
  // The client is still usable afterwards.
  Buffer y = client->toDevice(a, ElementType::kF32, {3}, 1);
  auto results = exe->executeReplicated({{&x}, {&y}});
  EXPECT_EQ(toHost(results[1].outputs[0]), (std::vector<float>{2, 4, 6}));
}

TEST(Replicated, OptionsFingerprintNamesTheDevices) {
  CompileOptions a;
  CompileOptions b;
  b.replicaDevices = {0, 1};
  EXPECT_TRUE(a.isDefault());
  EXPECT_FALSE(b.isDefault());
  EXPECT_NE(a.fingerprint(), b.fingerprint());
  EXPECT_NE(a.serialize(), b.serialize());
}

}  // namespace
}  // namespace torchtpu::runtime
