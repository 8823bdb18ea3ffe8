#include "hlo/function_text.h"

#include <map>
#include <stdexcept>
#include <string_view>

#include "runtime/program_signature.h"

namespace torchtpu::hlo {
namespace {

bool isSymbolChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '.';
}

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("StableHLO text: " + what);
}

// The index just past the bracket matching the one at `open` (quotes skipped).
size_t matching(std::string_view s, size_t open) {
  const char o = s[open];
  const char c = o == '(' ? ')' : o == '{' ? '}' : o == '[' ? ']' : '>';
  int depth = 0;
  bool quoted = false;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '"' && (i == 0 || s[i - 1] != '\\')) quoted = !quoted;
    if (quoted) continue;
    if (s[i] == o) ++depth;
    if (s[i] == c && --depth == 0) return i + 1;
  }
  bad(std::string("unbalanced '") + o + "'");
}

// Every "tensor<...>" at the top level of `s` (not inside attribute braces).
std::vector<TensorType> tensorTypes(std::string_view s, const std::string& where) {
  std::vector<TensorType> out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '{') {
      i = matching(s, i);
      continue;
    }
    if (s[i] == '!' || s.substr(i, 7) == "memref<" || s.substr(i, 6) == "tuple<") {
      bad(where + " has a type that is not a tensor: " + std::string(s.substr(i, 24)));
    }
    if (s.substr(i, 7) == "tensor<") {
      const size_t end = matching(s, i + 6);
      const std::string_view t = s.substr(i, end - i);
      auto parsed = runtime::parseTensorType(t);
      if (!parsed) {
        bad(where + " has type " + std::string(t) +
            ", which is not a statically shaped tensor of a supported element type");
      }
      out.emplace_back(parsed->type, parsed->dims);
      i = end;
      continue;
    }
    ++i;
  }
  return out;
}

size_t skipSpace(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
  return i;
}

// The '{' that opens a function's body, given the index just past its
// argument list: skips "-> results" and "attributes {...}".
size_t bodyBrace(std::string_view s, size_t i, const std::string& name) {
  i = skipSpace(s, i);
  if (s.substr(i, 2) == "->") {
    i = skipSpace(s, i + 2);
    if (i < s.size() && s[i] == '(') {
      i = matching(s, i);
    } else {
      while (i < s.size() && s[i] != ' ' && s[i] != '\n' && s[i] != '{') {
        i = s[i] == '<' ? matching(s, i) : i + 1;
      }
    }
    i = skipSpace(s, i);
  }
  if (s.substr(i, 10) == "attributes") i = skipSpace(s, matching(s, skipSpace(s, i + 10)));
  if (i >= s.size() || s[i] != '{') bad("@" + name + " has no body");
  return i;
}

struct Definition {
  size_t start = 0;  // "func.func"
  size_t nameAt = 0;
  std::string name;
};

}  // namespace

FunctionText importFunctionText(const std::string& input, const std::string& name) {
  std::string_view s = input;
  // The functions: everything from the first func.func to the end of the last
  // one (a module wrapper and its attributes are dropped).
  std::vector<Definition> defs;
  for (size_t pos = s.find("func.func"); pos != std::string_view::npos;
       pos = s.find("func.func", pos + 9)) {
    size_t at = s.find('@', pos);
    if (at == std::string_view::npos) bad("func.func without a name");
    size_t end = at + 1;
    while (end < s.size() && isSymbolChar(s[end])) ++end;
    defs.push_back({pos, at, std::string(s.substr(at + 1, end - at - 1))});
  }
  const Definition* main = nullptr;
  for (const auto& d : defs) {
    if (d.name == "main") main = &d;
  }
  if (main == nullptr)
    bad("no `func.func @main` found (the kernel's entry function must be @main)");

  // @main's signature: "(args) -> results {" or "(args) {" (no results).
  const size_t open = s.find('(', main->nameAt);
  if (open == std::string_view::npos) bad("@main has no argument list");
  const size_t close = matching(s, open);
  FunctionText out;
  out.params = tensorTypes(s.substr(open + 1, close - open - 2), "a parameter of @main");
  size_t body = skipSpace(s, close);
  if (s.substr(body, 2) == "->") {
    body = skipSpace(s, body + 2);
    size_t end = body;
    if (body < s.size() && s[body] == '(') {
      end = matching(s, body);
    } else if (s.substr(body, 7) == "tensor<") {
      end = matching(s, body + 6);
    } else {
      bad("a result of @main is not a tensor: " + std::string(s.substr(body, 24)));
    }
    out.results = tensorTypes(s.substr(body, end - body), "a result of @main");
  }
  if (out.results.empty()) bad("@main returns nothing");

  // The last function ends at the brace that matches its body's.
  const Definition& last = defs.back();
  const size_t lastOpen = s.find('(', last.nameAt);
  if (lastOpen == std::string_view::npos) bad("@" + last.name + " has no argument list");
  const size_t end = matching(s, bodyBrace(s, matching(s, lastOpen), last.name));
  std::string text(s.substr(defs.front().start, end - defs.front().start));

  // Rename every function (definitions and references) under `name`.
  std::map<std::string, std::string> renames;
  for (const auto& d : defs) renames[d.name] = d.name == "main" ? name : name + "." + d.name;
  std::string renamed;
  renamed.reserve(text.size() + 64);
  for (size_t i = 0; i < text.size();) {
    // Locations (" loc(...)") may refer to aliases defined outside the functions.
    if (text.compare(i, 5, " loc(") == 0) {
      i = matching(text, i + 4);
      continue;
    }
    if (text[i] == '@') {
      size_t e = i + 1;
      while (e < text.size() && isSymbolChar(text[e])) ++e;
      auto it = renames.find(text.substr(i + 1, e - i - 1));
      if (it != renames.end()) {
        renamed += "@" + it->second;
        i = e;
        continue;
      }
    }
    renamed += text[i++];
  }
  // Every imported function is private to the module it joins.
  for (const std::string_view vis : {"func.func public @", "func.func @"}) {
    for (size_t p = renamed.find(vis); p != std::string::npos; p = renamed.find(vis, p + 1)) {
      renamed.replace(p, vis.size(), "func.func private @");
    }
  }
  out.text = "  " + renamed + "\n";
  return out;
}

}  // namespace torchtpu::hlo
