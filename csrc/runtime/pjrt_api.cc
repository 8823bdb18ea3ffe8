#include "runtime/pjrt_api.h"

namespace torchtpu::runtime::detail {

Error takeError(const PJRT_Api* api, PJRT_Error* error, std::string_view what) {
  Args<PJRT_Error_Message_Args> msg;
  msg->error = error;
  api->PJRT_Error_Message(msg.get());
  std::string text(msg->message, msg->message_size);

  Args<PJRT_Error_GetCode_Args> code;
  code->error = error;
  ErrorCode ec = ErrorCode::kUnknown;
  if (api->PJRT_Error_GetCode(code.get()) == nullptr) {
    int c = static_cast<int>(code->code);
    if (c >= 1 && c <= 16) ec = static_cast<ErrorCode>(c);
  }

  Args<PJRT_Error_Destroy_Args> destroy;
  destroy->error = error;
  api->PJRT_Error_Destroy(destroy.get());
  return Error(ec, std::string(what) + ": " + text);
}

void check(const PJRT_Api* api, PJRT_Error* error, std::string_view what) {
  if (error != nullptr) throw takeError(api, error, what);
}

}  // namespace torchtpu::runtime::detail
