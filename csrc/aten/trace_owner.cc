// The owner of a thread's deferred work (exec/trace_owner.h), carried where
// PyTorch carries a thread's state to the threads that work for it:
// c10::ThreadLocalDebugInfo, which autograd's engine (and at::launch,
// at::parallel_for's workers) propagate with at::ThreadLocalState. So a
// thread's backward, run on autograd's worker thread for the device, records
// into the trace of the thread that called backward(), in that thread's mode.

#include "exec/trace_owner.h"

#include <c10/util/ThreadLocalDebugInfo.h>

#include <memory>
#include <string_view>

#include "aten/torch_compat.h"

namespace torchtpu::aten {
namespace {

const c10::DebugInfoKind& kOwnerKind = compat::kTraceOwnerKind;

struct OwnerInfo final : c10::DebugInfoBase {
  exec::TraceOwner owner{exec::newTraceOwnerId()};
};

exec::TraceOwner& ownerOfThisThread() {
  auto* info = static_cast<OwnerInfo*>(c10::ThreadLocalDebugInfo::get(kOwnerKind));
  if (info == nullptr) {
    auto made = std::make_shared<OwnerInfo>();
    info = made.get();
    // Stays for the thread's life (and in every state captured from it).
    c10::ThreadLocalDebugInfo::_push(kOwnerKind, std::move(made));
  }
  return info->owner;
}

[[maybe_unused]] const bool registered = [] {
  exec::setTraceOwnerSource(&ownerOfThisThread);
  return true;
}();

}  // namespace
}  // namespace torchtpu::aten
