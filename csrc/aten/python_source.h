// The user's Python line that is calling into torchtpu, for error messages
// about deferred ops.
#pragma once

#include <string>

#include "exec/device_array.h"

namespace torchtpu::aten {

// "train.py:42": the innermost Python frame outside torch and torchtpu on
// this thread ("" when there is none, e.g. on autograd's worker threads).
std::string userSourceLine();

// The origin of an array copied from the host: with source lines on
// (exec::sourceLinesEnabled()), the user's line too.
exec::ArrayOrigin hostCopyOrigin();

}  // namespace torchtpu::aten
