#include "runtime/event.h"

#include "runtime/fork_guard.h"
#include "runtime/pjrt_api.h"

namespace torchtpu::runtime {

Event::~Event() { reset(); }

Event::Event(Event&& other) noexcept : api_(other.api_), event_(other.event_) {
  other.event_ = nullptr;
}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    reset();
    api_ = other.api_;
    event_ = other.event_;
    other.event_ = nullptr;
  }
  return *this;
}

void Event::reset() {
  if (event_ == nullptr) return;
  if (forkedAfterClient()) {
    event_ = nullptr;
    return;
  }
  detail::Args<PJRT_Event_Destroy_Args> args;
  args->event = event_;
  if (PJRT_Error* e = api_->PJRT_Event_Destroy(args.get())) (void)detail::takeError(api_, e, "");
  event_ = nullptr;
}

bool Event::isReady() const {
  if (event_ == nullptr) return true;
  detail::Args<PJRT_Event_IsReady_Args> args;
  args->event = event_;
  TORCHTPU_PJRT_CALL(api_, PJRT_Event_IsReady, args);
  return args->is_ready;
}

void Event::await() const {
  if (event_ == nullptr) return;
  detail::Args<PJRT_Event_Await_Args> args;
  args->event = event_;
  // Await returns the error the event completed with.
  TORCHTPU_PJRT_CALL(api_, PJRT_Event_Await, args);
}

namespace {

struct Callback {
  const PJRT_Api* api;
  std::function<void(std::optional<Error>)> fn;
};

void onReadyTrampoline(PJRT_Error* error, void* user) {
  auto* cb = static_cast<Callback*>(user);
  std::optional<Error> err;
  if (error != nullptr) err = detail::takeError(cb->api, error, "event");
  cb->fn(std::move(err));
  delete cb;
}

}  // namespace

void Event::onReady(std::function<void(std::optional<Error>)> callback) const {
  if (event_ == nullptr) {
    callback(std::nullopt);
    return;
  }
  auto* cb = new Callback{api_, std::move(callback)};
  detail::Args<PJRT_Event_OnReady_Args> args;
  args->event = event_;
  args->callback = &onReadyTrampoline;
  args->user_arg = cb;
  PJRT_Error* e =
      detail::require(api_, &PJRT_Api::PJRT_Event_OnReady, "PJRT_Event_OnReady")(args.get());
  if (e != nullptr) {
    delete cb;
    detail::check(api_, e, "PJRT_Event_OnReady");
  }
}

}  // namespace torchtpu::runtime
