// Errors raised by the runtime layer.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace torchtpu::runtime {

// The absl-style status codes PJRT reports (PJRT_Error_Code).
enum class ErrorCode : int {
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

std::string_view errorCodeName(ErrorCode code);

// Every failure in the runtime layer: a PJRT error (carrying the plugin's own
// message and code) or a misuse detected before the plugin is called.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);

  ErrorCode code() const { return code_; }
  // The message without the "[CODE] " prefix that what() carries.
  const std::string& message() const { return message_; }

 private:
  ErrorCode code_;
  std::string message_;
};

}  // namespace torchtpu::runtime
