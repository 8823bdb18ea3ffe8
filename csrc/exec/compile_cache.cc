#include "exec/compile_cache.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "exec/metrics.h"
#include "exec/profile_events.h"
#include "exec/runtime_state.h"
#include "runtime/client.h"
#include "runtime/compile_options.h"
#include "runtime/program_signature.h"

namespace torchtpu::exec {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[] = "torchtpu-exe-v1\n";
constexpr char kMagicFamily[] = "torchtpu-exe-";  // any version of the format
constexpr double kSlowCompileSeconds = 2.0;

// 64-bit FNV-1a; entries also store their full key text, compared on load, so
// a hash collision can only cost a recompile.
uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// The compiler flags a plugin reads from the environment, once, when it first
// compiles (XLA's XLA_FLAGS, libtpu's LIBTPU_INIT_ARGS): what they were when
// this process first asked, as "|NAME=value" for each one set.
const std::string& compilerFlagsFromEnvironment() {
  static const std::string flags = [] {
    std::string out;
    for (const char* name : {"XLA_FLAGS", "LIBTPU_INIT_ARGS"}) {
      if (const char* v = std::getenv(name); v != nullptr && *v != '\0') {
        out += std::string("|") + name + "=" + v;
      }
    }
    return out;
  }();
  return flags;
}

// What makes a compiled program reusable: the plugin, its compiler and the
// compiler's flags (an executable built with other flags is another program).
std::string pluginIdentity() {
  const auto& c = client();
  std::ostringstream out;
  out << c->plugin().path() << "|" << c->platformName() << "|" << c->platformVersion();
  for (const auto& [k, v] : c->plugin().attributes()) out << "|" << k << "=" << v;
  out << compilerFlagsFromEnvironment();
  // Programs compiled on a client of one device are pinned to it
  // (runtime::Client::compile): not for clients with more devices.
  out << "|" << runtime::CompileOptions{}.fingerprint() << "|devices=" << c->deviceCount();
  return out.str();
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void warn(const std::string& message) {
  std::fprintf(stderr, "torchtpu: compile cache: %s\n", message.c_str());
}

// Warns once per entry (path) that it is ignored and rebuilt, and why.
void warnUnusable(const fs::path& path, const std::string& why) {
  static std::mutex mu;
  static std::set<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!warned.insert(path.string()).second) return;
  }
  warn("ignoring unusable entry " + path.string() + " (" + why + "); rebuilding it");
}

// Why an entry whose stored key differs from `key` is foreign.
std::string foreignReason(std::string_view stored, const std::string& identity) {
  const std::string ours = identity + "\n";
  if (stored.substr(0, ours.size()) != ours) {
    const std::string_view theirs = stored.substr(0, stored.find('\n'));
    return "written by another plugin, version or compile options: " +
           std::string(theirs.substr(0, 200));
  }
  return "written for another program or compile options (its key differs)";
}

// One program's disk cache entry: the file, and the key stored in it.
struct CacheEntry {
  std::string identity;  // pluginIdentity()
  std::string key;       // identity, options (unless the default) and program text
  fs::path path;
};

CacheEntry cacheEntry(const std::string& dir, const std::string& text,
                      const runtime::CompileOptions& options) {
  CacheEntry entry;
  entry.identity = pluginIdentity();
  entry.key =
      entry.identity + "\n" + (options.isDefault() ? "" : options.fingerprint() + "\n") + text;
  char name[32];
  std::snprintf(name, sizeof(name), "%016llx.exe",
                static_cast<unsigned long long>(fnv1a(entry.key)));
  entry.path = fs::path(dir) / name;
  return entry;
}

// The executable bytes of an entry file's contents (magic, key length, key,
// executable bytes); throws, saying why, if the file is not an entry for `entry.key`.
std::string_view executableBytes(std::string_view blob, const CacheEntry& entry) {
  const size_t m = sizeof(kMagic) - 1;
  if (blob.compare(0, m, kMagic) != 0) {
    const size_t f = sizeof(kMagicFamily) - 1;
    if (blob.compare(0, f, kMagicFamily) == 0) {
      const std::string version(blob.substr(f, std::min<size_t>(blob.find('\n'), 40) - f));
      throw std::runtime_error("written by another torchtpu version (cache format " + version +
                               ")");
    }
    throw std::runtime_error("not a torchtpu cache entry");
  }
  if (blob.size() < m + 8) throw std::runtime_error("truncated");
  uint64_t keyLen = 0;
  std::memcpy(&keyLen, blob.data() + m, 8);
  if (blob.size() < m + 8 + keyLen) throw std::runtime_error("truncated");
  if (blob.compare(m + 8, keyLen, entry.key) != 0) {
    throw std::runtime_error(foreignReason(blob.substr(m + 8, keyLen), entry.identity));
  }
  return blob.substr(m + 8 + keyLen);
}

// The program loaded from its entry; null if there is none, or (with a
// warning) if it is unusable.
std::shared_ptr<runtime::Executable> loadEntry(const runtime::Client& c, const CacheEntry& entry,
                                               const std::string& text, const std::string& what,
                                               const ProgramOrigin& origin, HostSpan& span) {
  std::error_code ec;
  if (!fs::exists(entry.path, ec)) return nullptr;
  try {
    const std::string blob = readFile(entry.path);
    auto exe = c.deserialize(executableBytes(blob, entry));
    exe->setParameters(runtime::parseMainSignature(text));
    metrics().diskCacheHits += 1;
    span.detail("disk_cache", "hit");
    dumpProgram(text, what, origin, 0.0, /*fromDiskCache=*/true, fnv1a(entry.key));
    return exe;
  } catch (const std::exception& e) {
    warnUnusable(entry.path, e.what());
  }
  return nullptr;
}

// Compiles `text`; a compile still running after a while says what it compiles.
std::shared_ptr<runtime::Executable> compileNoticingSlow(const runtime::Client& c,
                                                         const std::string& text,
                                                         const std::string& what,
                                                         const runtime::CompileOptions& options) {
  std::mutex doneMu;
  std::condition_variable doneCv;
  bool done = false;
  std::thread watcher([&] {
    std::unique_lock<std::mutex> lock(doneMu);
    if (!doneCv.wait_for(lock, std::chrono::duration<double>(kSlowCompileSeconds),
                         [&] { return done; })) {
      std::fprintf(stderr, "torchtpu: compiling %s ...\n", what.c_str());
    }
  });
  auto finish = [&] {
    {
      std::lock_guard<std::mutex> lock(doneMu);
      done = true;
    }
    doneCv.notify_one();
    watcher.join();
  };
  std::shared_ptr<runtime::Executable> exe;
  try {
    exe = c.compile(text, options);
  } catch (...) {
    finish();
    throw;
  }
  finish();
  return exe;
}

// Writes the entry (warns if it cannot).
void storeEntry(const std::string& dir, const CacheEntry& entry, const runtime::Executable& exe) {
  try {
    const std::string bytes = exe.serialize();
    std::error_code ec;
    fs::create_directories(dir, ec);
    // A private file renamed into place: readers never see a partial entry.
    const fs::path tmp = entry.path.string() + ".tmp." + std::to_string(::getpid()) + "." +
                         std::to_string(reinterpret_cast<uintptr_t>(&bytes));
    {
      std::ofstream out(tmp, std::ios::binary);
      const uint64_t keyLen = entry.key.size();
      out.write(kMagic, sizeof(kMagic) - 1);
      out.write(reinterpret_cast<const char*>(&keyLen), 8);
      out << entry.key << bytes;
      if (!out) throw std::runtime_error("write failed");
    }
    fs::rename(tmp, entry.path, ec);
    if (ec) {
      fs::remove(tmp, ec);
    }
  } catch (const std::exception& e) {
    warn(std::string("could not store an entry: ") + e.what());
  }
}

}  // namespace

std::string compileCacheDir() {
  const char* env = std::getenv("TORCHTPU_CACHE_DIR");
  if (env != nullptr) {
    const std::string v = env;
    if (v.empty() || v == "0" || v == "off") return "";
    return v;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg) {
    return std::string(xdg) + "/torchtpu";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home) {
    return std::string(home) + "/.cache/torchtpu";
  }
  return "";
}

std::shared_ptr<runtime::Executable> compileCached(const std::string& text, const std::string& what,
                                                   const runtime::CompileOptions& options,
                                                   const ProgramOrigin& origin) {
  const auto& c = client();
  const std::string dir = compileCacheDir();
  HostSpan span(SpanKind::kCompile, "tpu::compile");
  if (span.active()) {
    span.detail("program", what);
    span.detail("kind", origin.kind);
    span.detail("text_bytes", static_cast<int64_t>(text.size()));
  }
  CacheEntry entry;
  if (!dir.empty()) {
    entry = cacheEntry(dir, text, options);
    if (auto exe = loadEntry(*c, entry, text, what, origin, span)) return exe;
  }

  span.detail("disk_cache", dir.empty() ? "off" : "miss");
  auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<runtime::Executable> exe = compileNoticingSlow(*c, text, what, options);
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  metrics().compiles += 1;
  metrics().compileNanos += nanos;
  if (nanos > kSlowCompileSeconds * 1e9) {
    std::fprintf(stderr, "torchtpu: compiling %s took %.1f s\n", what.c_str(), nanos / 1e9);
  }
  if (!programDumpDir().empty()) {
    dumpProgram(text, what, origin, nanos / 1e9, /*fromDiskCache=*/false,
                fnv1a(entry.key.empty() ? text : entry.key));
  }
  if (!dir.empty()) storeEntry(dir, entry, *exe);
  return exe;
}

}  // namespace torchtpu::exec
