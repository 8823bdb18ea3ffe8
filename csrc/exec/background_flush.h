// Flushes whose program compiles on a thread of their own: the trace is cut,
// its live values become late arrays (exec/device_array.h) right away, and the
// host goes on recording (a training step's backward) while the forward's
// program compiles; the program launches as soon as it is built. Anything
// that needs one of its arrays' buffers waits for that launch; a program that
// donates an array such a flush still reads launches after it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exec/device_array.h"

namespace torchtpu::exec {

class BackgroundFlush : public ArrayPromise, public std::enable_shared_from_this<BackgroundFlush> {
 public:
  // A flush building the program of `key` (the promise of its late arrays);
  // start() runs it.
  static std::shared_ptr<BackgroundFlush> make(std::string key);
  // Runs `work` (compile and launch) on a new thread. `held`: the arrays the
  // work holds a reference to until it is done (its trace's inputs and the
  // late arrays it settles); `release` drops those references, under the
  // lock that useCountOutsideBackground() takes, once the work is done.
  void start(std::function<void()> work, std::function<void()> release,
             std::vector<const DeviceArray*> held);

  // Returns once the work is done; throws its failure.
  void wait() const override;
  // Returns once the work is done, whatever its outcome.
  void join() const;
  const std::string& key() const { return key_; }

 private:
  BackgroundFlush() = default;
  // References the unfinished flushes hold to `a`; requires the registry's lock.
  static long holdsLocked(const DeviceArray* a);
  friend long useCountOutsideBackground(const ArrayPtr& a);
  friend bool heldInBackground(const DeviceArray* a);
  void run(std::function<void()> work, std::function<void()> release);

  std::string key_;
  std::vector<const DeviceArray*> held_;  // guarded by the registry's lock
  std::shared_ptr<BackgroundFlush> previous_;
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
  bool done_ = false;
  std::exception_ptr error_;
};

// Whether flushes at a backward pass's start compile in the background
// (TORCHTPU_BACKGROUND_COMPILE=0 turns it off).
bool backgroundCompileEnabled();

// Waits for every background flush to be done (failures are raised to whoever
// reads their arrays).
void joinBackgroundFlushes();

// Whether an unfinished background flush holds `a` (reads it, or makes it).
// A program that donates such an array launches only after those flushes
// (joinBackgroundFlushes()); arrays are otherwise never written in place, so
// nothing else has to wait for them.
bool heldInBackground(const DeviceArray* a);

// a.use_count() less the references that unfinished background flushes hold
// to it: the holders a donation has to count (a program donating it launches
// after those flushes).
long useCountOutsideBackground(const ArrayPtr& a);

// The unfinished background flush building the program of `key`, if any.
std::shared_ptr<BackgroundFlush> backgroundFlushOf(const std::string& key);

}  // namespace torchtpu::exec
