// The torch releases torchtpu builds against, and the one place where the C++
// side handles their differences (the Python side's counterpart is
// torchtpu/_torch_compat.py). Code elsewhere never tests TORCH_VERSION_* itself:
// it uses what this header defines.
#pragma once

#include <torch/version.h>

// (major, minor) as one number, e.g. 213 for torch 2.13.
#define TORCHTPU_TORCH_RELEASE (TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR)
#define TORCHTPU_TORCH_AT_LEAST(major, minor) (TORCHTPU_TORCH_RELEASE >= (major) * 100 + (minor))

static_assert(TORCHTPU_TORCH_RELEASE == 211 || TORCHTPU_TORCH_RELEASE == 213 ||
                  TORCHTPU_TORCH_RELEASE == 214,
              "torchtpu builds against torch 2.11, 2.13 or 2.14 (see torchtpu/_torch_compat.py)");

// torch 2.11's autocast op lists (ATen/autocast_mode.h, which csrc/aten/autocast.cc
// expands) still hold the named-tensor overload norm.names_ScalarOpt_dim, whose
// signature names DimnameList unqualified; torch 2.13 dropped both.
#if !TORCHTPU_TORCH_AT_LEAST(2, 13)
#include <ATen/core/ATen_fwd.h>
namespace torchtpu::aten {
using at::DimnameList;
}  // namespace torchtpu::aten
#endif

#include <c10/util/ThreadLocalDebugInfo.h>

#include <string_view>

namespace torchtpu::aten::compat {

// A c10::DebugInfoKind of torchtpu's own (csrc/aten/trace_owner.cc). torch 2.13
// made DebugInfoKind open (a kind is the address of a name); in torch 2.11 it is
// a closed enum, and torchtpu borrows TEST_INFO_2, which only c10's tests use.
#if TORCHTPU_TORCH_AT_LEAST(2, 13)
inline constexpr std::string_view kTraceOwnerKindName = "TORCHTPU_TRACE_OWNER";
inline const c10::DebugInfoKind kTraceOwnerKind(&kTraceOwnerKindName);
#else
inline constexpr c10::DebugInfoKind kTraceOwnerKind = c10::DebugInfoKind::TEST_INFO_2;
#endif

// Subtraction with bool tensors: torch 2.14's CPU kernel raises
// NotImplementedError where 2.11 and 2.13 raise RuntimeError.
#if TORCHTPU_TORCH_AT_LEAST(2, 14)
#define TORCHTPU_CHECK_BOOL_SUB TORCH_CHECK_NOT_IMPLEMENTED
#else
#define TORCHTPU_CHECK_BOOL_SUB TORCH_CHECK
#endif

// The torch release this binary was compiled against ("2.14.1"): torchtpu._C
// exposes it so that `import torchtpu` can refuse a mismatched torch.
inline constexpr const char* kTorchVersion = TORCH_VERSION;

}  // namespace torchtpu::aten::compat
