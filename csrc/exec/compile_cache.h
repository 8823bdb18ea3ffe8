// Compiling a program through the persistent compile cache: compiled
// executables are serialized to disk (TORCHTPU_CACHE_DIR, by default
// ~/.cache/torchtpu; "0" or "off" disables it), keyed by the program text, the
// plugin's identity and the compile options, so a second start of the same
// program compiles nothing. A corrupt, truncated or incompatible entry is
// ignored with a warning and rebuilt; concurrent writers leave a valid entry
// (each writes a private file and renames it into place).
#pragma once

#include <memory>
#include <string>

#include "exec/program_dump.h"
#include "runtime/compile_options.h"
#include "runtime/executable.h"

namespace torchtpu::exec {

// Compiles `text` (or loads it from the disk cache), counting compiles, their
// time and disk hits in metrics; `what` names the program in slow-compile
// messages. `options` other than the default (replicated programs) are part
// of the key. `origin` describes the program for TORCHTPU_DUMP_DIR.
std::shared_ptr<runtime::Executable> compileCached(const std::string& text, const std::string& what,
                                                   const runtime::CompileOptions& options = {},
                                                   const ProgramOrigin& origin = {});

// The cache directory in use ("" when disabled).
std::string compileCacheDir();

}  // namespace torchtpu::exec
