// A PJRT event: completion of a transfer or an execution.
#pragma once

#include <functional>
#include <optional>

#include "runtime/error.h"

struct PJRT_Api;
struct PJRT_Event;

namespace torchtpu::runtime {

class Event {
 public:
  Event() = default;
  Event(const PJRT_Api* api, PJRT_Event* event) : api_(api), event_(event) {}
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // An empty event is complete.
  bool valid() const { return event_ != nullptr; }
  bool isReady() const;
  // Blocks until the event completes; throws the error it completed with.
  void await() const;
  // Calls `callback` (on a plugin thread, or at once if already complete) with
  // the error the event completed with, if any. The event may be destroyed
  // before the callback runs.
  void onReady(std::function<void(std::optional<Error>)> callback) const;

 private:
  void reset();
  const PJRT_Api* api_ = nullptr;
  PJRT_Event* event_ = nullptr;
};

}  // namespace torchtpu::runtime
