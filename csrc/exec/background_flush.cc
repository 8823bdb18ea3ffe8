#include "exec/background_flush.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <utility>

#include "runtime/error.h"

namespace torchtpu::exec {
namespace {

// The unfinished flushes, in the order they were started.
std::mutex& registryMutex() {
  static auto* m = new std::mutex();
  return *m;
}
std::vector<std::shared_ptr<BackgroundFlush>>& registry() {
  static auto* r = new std::vector<std::shared_ptr<BackgroundFlush>>();
  return *r;
}
std::atomic<int> unfinished{0};

// A forked child has none of the parent's threads: nothing of theirs will
// finish there, so nothing waits for them (its runtime refuses work anyway,
// runtime/fork_guard.h).
void forgetInChild() { unfinished.store(0); }
[[maybe_unused]] const bool forkHandled = [] {
  pthread_atfork(nullptr, nullptr, &forgetInChild);
  return true;
}();

std::vector<std::shared_ptr<BackgroundFlush>> snapshot() {
  std::lock_guard<std::mutex> lock(registryMutex());
  return registry();
}

}  // namespace

std::shared_ptr<BackgroundFlush> BackgroundFlush::make(std::string key) {
  std::shared_ptr<BackgroundFlush> flush(new BackgroundFlush());
  flush->key_ = std::move(key);
  return flush;
}

void BackgroundFlush::start(std::function<void()> work, std::function<void()> release,
                            std::vector<const DeviceArray*> held) {
  std::shared_ptr<BackgroundFlush> self = shared_from_this();
  {
    std::lock_guard<std::mutex> lock(registryMutex());
    held_ = std::move(held);
    if (!registry().empty()) previous_ = registry().back();
    registry().push_back(self);
    unfinished += 1;
  }
  std::thread([self, work = std::move(work), release = std::move(release)]() mutable {
    self->run(std::move(work), std::move(release));
  }).detach();
}

void BackgroundFlush::run(std::function<void()> work, std::function<void()> release) {
  std::exception_ptr error;
  try {
    // An earlier flush launches first (this one may donate what it reads).
    if (previous_) previous_->join();
    work();
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(registryMutex());
    release();
    held_.clear();
    previous_.reset();
    std::erase_if(registry(), [this](const auto& f) { return f.get() == this; });
    unfinished -= 1;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = error;
    done_ = true;
  }
  cv_.notify_all();
}

void BackgroundFlush::join() const {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return done_; });
}

void BackgroundFlush::wait() const {
  join();
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_) std::rethrow_exception(error_);
}

bool backgroundCompileEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("TORCHTPU_BACKGROUND_COMPILE");
    return v == nullptr || std::string(v) != "0";
  }();
  return enabled;
}

void joinBackgroundFlushes() {
  if (unfinished.load() == 0) return;  // also in a forked child
  for (const auto& f : snapshot()) f->join();
}

long BackgroundFlush::holdsLocked(const DeviceArray* a) {
  long n = 0;
  for (const auto& f : registry()) n += std::count(f->held_.begin(), f->held_.end(), a);
  return n;
}

bool heldInBackground(const DeviceArray* a) {
  if (unfinished.load() == 0) return false;
  std::lock_guard<std::mutex> lock(registryMutex());
  return BackgroundFlush::holdsLocked(a) > 0;
}

long useCountOutsideBackground(const ArrayPtr& a) {
  if (unfinished.load() == 0) return a.use_count();
  std::lock_guard<std::mutex> lock(registryMutex());
  return a.use_count() - BackgroundFlush::holdsLocked(a.get());
}

std::shared_ptr<BackgroundFlush> backgroundFlushOf(const std::string& key) {
  if (unfinished.load() == 0) return nullptr;
  std::lock_guard<std::mutex> lock(registryMutex());
  for (const auto& f : registry()) {
    if (f->key() == key) return f;
  }
  return nullptr;
}

}  // namespace torchtpu::exec
