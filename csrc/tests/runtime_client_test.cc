// Client, transfers, compilation, execution, donation and serialization on
// the real plugin.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <thread>

#include "runtime/client.h"
#include "runtime/error.h"
#include "tests/test_support.h"

namespace torchtpu::runtime {
namespace {

using testing::HostArray;
using testing::runProgram;
using testing::testClient;

constexpr const char* kAddProgram = R"(module @add {
  func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %c = stablehlo.add %a, %b : tensor<4xf32>
    return %c : tensor<4xf32>
  }
})";

std::vector<float> toHostF32(const Buffer& b) {
  std::vector<float> out(b.numElements());
  b.copyToHost(out.data(), out.size() * sizeof(float));
  return out;
}

TEST(Client, ListsDevices) {
  auto client = testClient();
  EXPECT_EQ(client->platformName(), "cpu");
  ASSERT_EQ(client->deviceCount(), 2);
  for (int i = 0; i < client->deviceCount(); ++i) {
    EXPECT_EQ(client->devices()[i].index, i);
    EXPECT_FALSE(client->devices()[i].kind.empty());
  }
  EXPECT_NE(client->devices()[0].id, client->devices()[1].id);
}

TEST(Client, UnknownCreateOptionIsAnError) {
  auto plugin = Plugin::load(testClient()->plugin().path());
  // Plugins of API 0.81 ignore unknown options; newer ones refuse them.
  if (plugin->version().minor >= 100) {
    EXPECT_THROW(Client::create(plugin, {{"no_such_option_xyz", int64_t{1}}}), Error);
  }
  EXPECT_EQ(Client::create(plugin, {{"cpu_device_count", int64_t{1}}})->deviceCount(), 1);
}

TEST(Transfer, RoundTripsEveryElementType) {
  auto client = testClient();
  const ElementType types[] = {ElementType::kPred, ElementType::kS8,   ElementType::kS16,
                               ElementType::kS32,  ElementType::kS64,  ElementType::kU8,
                               ElementType::kU16,  ElementType::kU32,  ElementType::kU64,
                               ElementType::kF16,  ElementType::kBF16, ElementType::kF32,
                               ElementType::kF64,  ElementType::kC64,  ElementType::kC128};
  for (ElementType t : types) {
    const std::vector<int64_t> dims = {3, 5};
    std::vector<uint8_t> data(15 * elementByteSize(t));
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + 1);
    if (t == ElementType::kPred) {
      for (size_t i = 0; i < data.size(); ++i) data[i] = i % 3 == 0;
    }
    Buffer b = client->toDevice(data.data(), t, dims, 1);
    EXPECT_EQ(b.elementType(), t);
    EXPECT_EQ(b.dims(), dims);
    EXPECT_EQ(b.deviceIndex(), 1);
    std::vector<uint8_t> back(data.size());
    b.copyToHost(back.data(), back.size());
    EXPECT_EQ(back, data) << elementTypeName(t);
  }
}

TEST(Transfer, AsynchronousWithEvents) {
  auto client = testClient();
  std::vector<float> data(1 << 16);
  std::iota(data.begin(), data.end(), 0.0f);
  auto t = client->toDeviceAsync(data.data(), ElementType::kF32, {256, 256});
  t.hostDone.await();
  t.buffer.readyEvent().await();
  std::vector<float> back(data.size());
  Event e = t.buffer.copyToHostAsync(back.data(), back.size() * sizeof(float));
  std::atomic<bool> called{false};
  e.onReady([&](std::optional<Error> err) {
    EXPECT_FALSE(err.has_value());
    called = true;
  });
  e.await();
  for (int i = 0; i < 1000 && !called; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(called);
  EXPECT_TRUE(e.isReady());
  EXPECT_EQ(back, data);
  EXPECT_GE(t.buffer.onDeviceSizeBytes(), data.size() * sizeof(float));
}

TEST(Transfer, WrongHostSizeIsAnError) {
  auto client = testClient();
  float x[4] = {1, 2, 3, 4};
  Buffer b = client->toDevice(x, ElementType::kF32, {4});
  float y[2];
  EXPECT_THROW(b.copyToHost(y, sizeof(y)), Error);
  EXPECT_THROW(client->toDevice(x, ElementType::kF32, {4}, 7), Error);
}

TEST(Execute, CompilesAndRuns) {
  auto out =
      runProgram(kAddProgram, {HostArray::of<float>(ElementType::kF32, {4}, {1, 2, 3, 4}),
                               HostArray::of<float>(ElementType::kF32, {4}, {10, 20, 30, 40})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{11, 22, 33, 44}));
}

// Runs kAddProgram's `exe` on {1, 2, 3, 4} + itself on `device` and checks
// the result and where it is.
void expectAddRunsOn(const Client& client, const Executable& exe, int device) {
  float a[4] = {1, 2, 3, 4};
  Buffer x = client.toDevice(a, ElementType::kF32, {4}, device);
  ExecuteOptions opts;
  opts.device = device;
  auto r = exe.execute({&x, &x}, opts);
  r.done.await();
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].deviceIndex(), device);
  EXPECT_EQ(toHostF32(r.outputs[0]), (std::vector<float>{2, 4, 6, 8}));
}

TEST(Execute, RunsOnTheSecondDevice) {
  auto client = testClient();
  expectAddRunsOn(*client, *client->compile(kAddProgram), 1);
}

// On a client of one device a program is compiled for that device (its
// launches skip the portable path); on a client of several it stays portable.
TEST(Execute, OneDeviceClientPinsItsPrograms) {
  auto multi = testClient();
  ASSERT_GT(multi->deviceCount(), 1);
  EXPECT_TRUE(multi->compile(kAddProgram)->devices().empty());

  auto plugin = Plugin::load(multi->plugin().path());
  auto single = Client::create(plugin, {{"cpu_device_count", int64_t{1}}});
  auto exe = single->compile(kAddProgram);
  EXPECT_EQ(exe->devices(), std::vector<int>{0});
  expectAddRunsOn(*single, *exe, 0);
  // Serialized and loaded again, it is still pinned.
  EXPECT_EQ(single->deserialize(exe->serialize())->devices(), std::vector<int>{0});
  float a[4] = {1, 2, 3, 4};
  Buffer x = single->toDevice(a, ElementType::kF32, {4});
  ExecuteOptions opts;
  opts.device = 1;
  EXPECT_THROW(exe->execute({&x, &x}, opts), Error);
}

TEST(Execute, ParseErrorShowsTheParserMessageAndLine) {
  const char* bad = R"(module @bad {
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %c = stablehlo.addd %a, %a : tensor<4xf32>
    return %c : tensor<4xf32>
  }
})";
  try {
    testClient()->compile(bad);
    FAIL() << "expected a parse error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("stablehlo.addd"), std::string::npos) << msg;
    EXPECT_NE(msg.find(":3:"), std::string::npos) << msg;  // line 3
  }
  // The client keeps working.
  EXPECT_NO_THROW(testClient()->compile(kAddProgram));
}

TEST(Execute, WrongArgumentsAreErrors) {
  auto client = testClient();
  auto exe = client->compile(kAddProgram);
  float a[4] = {1, 2, 3, 4};
  Buffer x = client->toDevice(a, ElementType::kF32, {4});
  int32_t ia[4] = {1, 2, 3, 4};
  Buffer xi = client->toDevice(ia, ElementType::kS32, {4});
  Buffer x8 = client->toDevice(a, ElementType::kF32, {2, 2});
  EXPECT_THROW(exe->execute({&x}), Error);          // too few
  EXPECT_THROW(exe->execute({&x, &x, &x}), Error);  // too many
  EXPECT_THROW(exe->execute({&x, &xi}), Error);     // wrong type
  EXPECT_THROW(exe->execute({&x, &x8}), Error);     // wrong shape
  auto r = exe->execute({&x, &x});                  // still works
  EXPECT_EQ(toHostF32(r.outputs[0]), (std::vector<float>{2, 4, 6, 8}));
}

TEST(Execute, DonatedInputIsConsumed) {
  const char* program = R"(module @donate {
  func.func public @main(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32>) -> tensor<4xf32> {
    %c = stablehlo.multiply %a, %b : tensor<4xf32>
    return %c : tensor<4xf32>
  }
})";
  auto client = testClient();
  auto exe = client->compile(program);
  float a[4] = {1, 2, 3, 4};
  float b[4] = {2, 2, 2, 2};
  Buffer x = client->toDevice(a, ElementType::kF32, {4});
  Buffer y = client->toDevice(b, ElementType::kF32, {4});
  auto r = exe->execute({&x, &y});
  EXPECT_EQ(toHostF32(r.outputs[0]), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_TRUE(x.isDeleted());
  EXPECT_FALSE(y.isDeleted());
  float dst[4];
  EXPECT_THROW(x.copyToHost(dst, sizeof(dst)), Error);
  EXPECT_THROW(exe->execute({&x, &y}), Error);
  // Marked non-donatable, the input survives.
  Buffer z = client->toDevice(a, ElementType::kF32, {4});
  ExecuteOptions keep;
  keep.nonDonatable = {0};
  auto r2 = exe->execute({&z, &y}, keep);
  EXPECT_EQ(toHostF32(r2.outputs[0]), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_FALSE(z.isDeleted());
}

TEST(Executable, SerializeRoundTrip) {
  auto client = testClient();
  auto exe = client->compile(kAddProgram);
  std::string bytes = exe->serialize();
  ASSERT_FALSE(bytes.empty());
  auto again = client->deserialize(bytes);
  EXPECT_EQ(again->numOutputs(), 1u);
  float a[4] = {1, 2, 3, 4};
  Buffer x = client->toDevice(a, ElementType::kF32, {4});
  auto r = again->execute({&x, &x});
  EXPECT_EQ(toHostF32(r.outputs[0]), (std::vector<float>{2, 4, 6, 8}));
  // Garbage is an error, not a crash.
  EXPECT_THROW(client->deserialize("definitely not an executable"), Error);
  EXPECT_THROW(client->deserialize(bytes.substr(0, bytes.size() / 2)), Error);
}

TEST(Client, MemoryStatsWhereReported) {
  auto client = testClient();
  auto stats = client->memoryStats(0);  // the CPU plugin reports none
  if (stats) {
    EXPECT_GE(stats->bytesInUse, 0);
  }
  EXPECT_THROW(client->memoryStats(5), Error);
}

TEST(CompileOptions, EncodesTheFieldsWeSet) {
  CompileOptions o;
  o.portable = false;
  o.deviceOrdinal = 0;
  o.xlaOptions.clear();
  // executable_build_options { device_ordinal: 0, num_replicas: 1, num_partitions: 1 }
  EXPECT_EQ(o.serialize(), std::string("\x1a\x06\x08\x00\x20\x01\x28\x01", 8));
  o.portable = true;
  EXPECT_EQ(o.serialize(), std::string("\x1a\x06\x08\x00\x20\x01\x28\x01\x20\x01", 10));
  EXPECT_NE(o.fingerprint(), CompileOptions{}.fingerprint() + "x");
  EXPECT_FALSE(o.isDefault());
}

TEST(CompileOptions, DefaultsToNanPropagatingMinMax) {
  // env_option_overrides { key: "xla_cpu_enable_fast_min_max" value { bool_field: false } }
  const std::string name = "xla_cpu_enable_fast_min_max";
  const std::string entry = std::string("\x0a") + static_cast<char>(name.size()) + name +
                            std::string("\x12\x02\x10\x00", 4);
  const std::string field = std::string("\x3a") + static_cast<char>(entry.size()) + entry;
  const std::string out = CompileOptions{}.serialize();
  ASSERT_GE(out.size(), field.size());
  EXPECT_EQ(out.substr(out.size() - field.size()), field);
  EXPECT_NE(CompileOptions{}.fingerprint().find("xla_cpu_enable_fast_min_max=0"),
            std::string::npos);
}

TEST(CompileOptions, MinMaxPropagateNan) {
  // max(NaN, 1) and a max-reduction over a NaN are NaN, as StableHLO says.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = runProgram(R"(module @m {
  func.func public @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
    %one = stablehlo.constant dense<1.0> : tensor<2xf32>
    %m = stablehlo.maximum %a, %one : tensor<2xf32>
    %init = stablehlo.constant dense<-1.0> : tensor<f32>
    %r = stablehlo.reduce(%a init: %init) applies stablehlo.maximum across dimensions = [0]
        : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    return %m, %r : tensor<2xf32>, tensor<f32>
  }
})",
                        {HostArray::of<float>(ElementType::kF32, {2}, {nan, 0.5f})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(std::isnan(out[0].values<float>()[0]));
  EXPECT_EQ(out[0].values<float>()[1], 1.0f);
  EXPECT_TRUE(std::isnan(out[1].values<float>()[0]));
}

}  // namespace
}  // namespace torchtpu::runtime

namespace torchtpu::runtime {
namespace {

TEST(ProgramSignature, ParsesMainArguments) {
  auto sig = parseMainSignature(
      "module @m {\n func.func public @main(%arg0: tensor<2x3xf32> {tf.aliasing_output = 0 : i32}, "
      "%arg1: tensor<i1>, %arg2: tensor<4xcomplex<f32>>) -> tensor<f32> {");
  ASSERT_TRUE(sig.has_value());
  ASSERT_EQ(sig->size(), 3u);
  EXPECT_EQ((*sig)[0].str(), "tensor<2x3xf32>");
  EXPECT_EQ((*sig)[1].type, ElementType::kPred);
  EXPECT_TRUE((*sig)[1].dims.empty());
  EXPECT_EQ((*sig)[2].type, ElementType::kC64);
  EXPECT_FALSE(parseMainSignature("no main here").has_value());
  EXPECT_EQ(parseMainSignature("func.func @main() -> tensor<f32>")->size(), 0u);
}

}  // namespace
}  // namespace torchtpu::runtime
