#include "exec/program_dump.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace torchtpu::exec {
namespace {

namespace fs = std::filesystem;

std::string jsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string jsonList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t k = 0; k < items.size(); ++k) out += (k ? ", " : "") + jsonString(items[k]);
  return out + "]";
}

// The end of the bracketed text that starts at `at` (one of "(<{"), or npos.
size_t closing(std::string_view s, size_t at) {
  int depth = 0;
  for (size_t k = at; k < s.size(); ++k) {
    const char c = s[k];
    if (c == '(' || c == '<' || c == '{' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == '}' || c == ']') {
      if (--depth == 0) return k;
    }
  }
  return std::string_view::npos;
}

// The tensor types in `s`, in order ("tensor<4xf32>").
std::vector<std::string> tensorTypes(std::string_view s) {
  std::vector<std::string> out;
  for (size_t at = s.find("tensor<"); at != std::string_view::npos;
       at = s.find("tensor<", at + 1)) {
    const size_t end = closing(s, at + 6);
    if (end == std::string_view::npos) break;
    out.emplace_back(s.substr(at, end - at + 1));
    at = end;
  }
  return out;
}

struct Signature {
  std::vector<std::string> inputs, outputs;
  std::vector<std::pair<int, int>> donated;  // (input, output)
};

Signature mainSignature(std::string_view text) {
  Signature sig;
  const size_t at = text.find("@main(");
  if (at == std::string_view::npos) return sig;
  const size_t open = at + 5;
  const size_t close = closing(text, open);
  if (close == std::string_view::npos) return sig;
  const std::string_view args = text.substr(open + 1, close - open - 1);
  // One argument per "%arg": its type, and its aliasing attribute if any.
  for (size_t a = args.find("%arg"); a != std::string_view::npos;) {
    const size_t next = args.find("%arg", a + 4);
    const std::string_view one = args.substr(a, next == std::string_view::npos ? next : next - a);
    std::vector<std::string> types = tensorTypes(one);
    if (!types.empty()) sig.inputs.push_back(types[0]);
    if (const size_t alias = one.find("tf.aliasing_output = "); alias != std::string_view::npos) {
      sig.donated.emplace_back(static_cast<int>(sig.inputs.size()) - 1,
                               std::atoi(std::string(one.substr(alias + 21, 8)).c_str()));
    }
    a = next;
  }
  // Results: after "->", up to the body's "{".
  std::string_view rest = text.substr(close + 1);
  const size_t arrow = rest.find("->");
  if (arrow != std::string_view::npos) {
    rest = rest.substr(arrow + 2);
    size_t body = 0;
    int depth = 0;
    for (; body < rest.size(); ++body) {
      const char c = rest[body];
      if (c == '(' || c == '<') ++depth;
      if (c == ')' || c == '>') --depth;
      if (c == '{' && depth == 0) break;
    }
    sig.outputs = tensorTypes(rest.substr(0, body));
  }
  return sig;
}

}  // namespace

const std::string& programDumpDir() {
  static const std::string dir = [] {
    const char* v = std::getenv("TORCHTPU_DUMP_DIR");
    return std::string(v != nullptr ? v : "");
  }();
  return dir;
}

void dumpProgram(const std::string& text, const std::string& what, const ProgramOrigin& origin,
                 double compileSeconds, bool fromDiskCache, uint64_t cacheKey) {
  const std::string& dir = programDumpDir();
  if (dir.empty()) return;
  static std::atomic<uint64_t> seq{0};
  static std::atomic<bool> warned{false};
  try {
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    char name[96];
    std::snprintf(name, sizeof name, "%016lld-%d-%06llu-%s", static_cast<long long>(micros),
                  static_cast<int>(::getpid()), static_cast<unsigned long long>(seq++),
                  origin.kind.c_str());
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path base = fs::path(dir) / name;
    {
      std::ofstream out(base.string() + ".mlir");
      out << text;
      if (!out) throw std::runtime_error("cannot write " + base.string() + ".mlir");
    }
    const Signature sig = mainSignature(text);
    std::string donated = "[";
    for (size_t k = 0; k < sig.donated.size(); ++k) {
      donated += (k ? ", " : "") + std::string("{\"input\": ") +
                 std::to_string(sig.donated[k].first) +
                 ", \"output\": " + std::to_string(sig.donated[k].second) + "}";
    }
    donated += "]";
    char key[24];
    std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(cacheKey));
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.6f", compileSeconds);
    std::ofstream out(base.string() + ".json");
    out << "{\n  \"kind\": " << jsonString(origin.kind) << ",\n  \"what\": " << jsonString(what)
        << ",\n  \"program\": " << jsonString(base.filename().string() + ".mlir")
        << ",\n  \"ops\": " << jsonList(origin.ops) << ",\n  \"inputs\": " << jsonList(sig.inputs)
        << ",\n  \"outputs\": " << jsonList(sig.outputs) << ",\n  \"donated\": " << donated
        << ",\n  \"compile_seconds\": " << seconds
        << ",\n  \"from_disk_cache\": " << (fromDiskCache ? "true" : "false")
        << ",\n  \"cache_key\": " << jsonString(key) << "\n}\n";
    if (!out) throw std::runtime_error("cannot write " + base.string() + ".json");
  } catch (const std::exception& e) {
    if (!warned.exchange(true)) {
      std::fprintf(stderr,
                   "torchtpu: warning: TORCHTPU_DUMP_DIR: %s (further failures are silent)\n",
                   e.what());
    }
  }
}

}  // namespace torchtpu::exec
