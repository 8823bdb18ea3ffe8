// Background flushes without PyTorch: a late array waits for the flush that
// settles it, takes its buffer, and raises the flush's failure; donation
// counts leave out the references a flush holds, and only while it runs.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "exec/background_flush.h"
#include "exec/metrics.h"
#include "runtime/error.h"
#include "tests/test_support.h"

namespace torchtpu::exec {
namespace {

using runtime::ElementType;

ArrayPtr upload(const std::vector<float>& values) {
  const auto client = testing::testClient();
  return std::make_shared<DeviceArray>(
      client->toDevice(values.data(), ElementType::kF32, {static_cast<int64_t>(values.size())}, 0));
}

std::vector<float> download(const DeviceArray& a) {
  std::vector<float> out(static_cast<size_t>(a.type().numElements()));
  a.buffer().copyToHost(out.data(), out.size() * sizeof(float));
  return out;
}

TEST(BackgroundFlush, LateArrayWaitsForItsBufferAndDonationCountsSkipTheFlush) {
  const ArrayPtr input = upload({1, 2, 3});
  const int64_t liveBefore = metrics().liveBytes.load();
  auto flush = BackgroundFlush::make("settles");
  auto late = std::make_shared<DeviceArray>(hlo::TensorType(ElementType::kF32, {3}), 0, flush);
  EXPECT_TRUE(late->late());
  EXPECT_EQ(metrics().liveBytes.load(), liveBefore);  // no memory yet
  EXPECT_EQ(late->type(), hlo::TensorType(ElementType::kF32, {3}));
  std::promise<void> go;
  std::shared_future<void> ready = go.get_future().share();
  struct State {
    ArrayPtr input, late;
  };
  auto state = std::make_shared<State>(State{input, late});
  flush->start(
      [state, ready] {
        ready.wait();
        ArrayPtr made = upload({4, 5, 6});
        settleLate(*state->late, *made);
      },
      [state] { *state = State(); }, {input.get(), late.get()});
  // While it runs: found by its key, holding its arrays, which count as if
  // it had let them go.
  EXPECT_EQ(backgroundFlushOf("settles"), flush);
  EXPECT_TRUE(heldInBackground(input.get()));
  EXPECT_EQ(input.use_count(), 2);
  EXPECT_EQ(useCountOutsideBackground(input), 1);
  go.set_value();
  EXPECT_EQ(download(*late), (std::vector<float>{4, 5, 6}));  // waits
  EXPECT_FALSE(late->late());
  flush->join();
  joinBackgroundFlushes();
  // The buffer is counted once, as the late array's.
  EXPECT_EQ(metrics().liveBytes.load(), liveBefore + 12);
  EXPECT_EQ(backgroundFlushOf("settles"), nullptr);
  EXPECT_FALSE(heldInBackground(input.get()));
  EXPECT_EQ(input.use_count(), 1);
  EXPECT_EQ(useCountOutsideBackground(input), 1);
}

TEST(BackgroundFlush, FailureIsRaisedByItsLateArraysAndTheProcessGoesOn) {
  auto flush = BackgroundFlush::make("fails");
  auto late = std::make_shared<DeviceArray>(hlo::TensorType(ElementType::kF32, {2}), 0, flush);
  flush->start([] { throw runtime::Error(runtime::ErrorCode::kInternal, "it did not compile"); },
               [] {}, {late.get()});
  try {
    (void)late->buffer();
    FAIL() << "a late array of a failed flush gave a buffer";
  } catch (const runtime::Error& e) {
    EXPECT_NE(std::string(e.what()).find("it did not compile"), std::string::npos) << e.what();
  }
  EXPECT_THROW(flush->wait(), runtime::Error);
  joinBackgroundFlushes();  // does not raise
  EXPECT_TRUE(late->late());
  // Later work is unaffected.
  EXPECT_EQ(download(*upload({7, 8})), (std::vector<float>{7, 8}));
}

TEST(BackgroundFlush, LaterFlushesRunAfterEarlierOnes) {
  std::vector<int> order;
  std::mutex mu;
  auto first = BackgroundFlush::make("first");
  auto second = BackgroundFlush::make("second");
  first->start(
      [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::lock_guard<std::mutex> lock(mu);
        order.push_back(1);
      },
      [] {}, {});
  second->start(
      [&] {
        std::lock_guard<std::mutex> lock(mu);
        order.push_back(2);
      },
      [] {}, {});
  joinBackgroundFlushes();
  second->join();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace torchtpu::exec
