// Internal to csrc/runtime/: the PJRT C API declarations and the helpers every
// runtime file uses to call it. Nothing above the runtime layer includes this.
//
// The declarations come from the pjrt_c_api.h that the `xla-cpu-pjrt` wheel
// installs (found at build time; never committed).
#pragma once

#include <pjrt_c_api.h>

#include <cstddef>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "runtime/error.h"

namespace torchtpu::runtime::detail {

// An args struct with zeroed room after it. Structs only grow by appending
// fields and plugins accept a struct_size at least as large as their own, so
// padding lets this binary call plugins built against a newer header.
template <class T>
class Args {
 public:
  Args() {
    std::memset(storage_, 0, sizeof(storage_));
    get()->struct_size = sizeof(storage_);
  }
  Args(const Args&) = delete;
  Args& operator=(const Args&) = delete;

  T* get() { return std::launder(reinterpret_cast<T*>(storage_)); }
  T* operator->() { return get(); }

 private:
  alignas(T) unsigned char storage_[sizeof(T) + 256];
};

// Turns a PJRT_Error into a runtime::Error (destroying the PJRT object) and
// throws it; does nothing for NULL. `what` names the call for the message.
void check(const PJRT_Api* api, PJRT_Error* error, std::string_view what);

// Reads and destroys a PJRT_Error. Returns an Error value (never throws).
Error takeError(const PJRT_Api* api, PJRT_Error* error, std::string_view what);

// Whether the plugin's function table is long enough to hold `slot` and the
// function is set. Calling a slot past the plugin's struct_size is undefined.
template <class Fn>
bool hasFunction(const PJRT_Api* api, Fn* PJRT_Api::* slot) {
  const auto offset = static_cast<size_t>(reinterpret_cast<const char*>(&(api->*slot)) -
                                          reinterpret_cast<const char*>(api));
  return offset + sizeof(void*) <= api->struct_size && api->*slot != nullptr;
}

// Returns the function in `slot`, or throws UNIMPLEMENTED naming `name`.
template <class Fn>
Fn* require(const PJRT_Api* api, Fn* PJRT_Api::* slot, const char* name) {
  if (!hasFunction(api, slot)) {
    throw Error(ErrorCode::kUnimplemented, std::string("the PJRT plugin does not provide ") + name +
                                               " (its API version is too old for this operation)");
  }
  return api->*slot;
}

}  // namespace torchtpu::runtime::detail

// Calls PJRT function NAME on args object ARGS (a detail::Args<...>) and throws
// on error.
#define TORCHTPU_PJRT_CALL(API, NAME, ARGS)                                                   \
  ::torchtpu::runtime::detail::check(                                                         \
      (API), ::torchtpu::runtime::detail::require((API), &PJRT_Api::NAME, #NAME)(ARGS.get()), \
      #NAME)
