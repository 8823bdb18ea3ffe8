#include "lower/core/lowering.h"

#include <map>
#include <mutex>
#include <string_view>

namespace torchtpu::lower {
namespace {

using Kind = ir::ArgValue::Kind;

// An op's lowering and where it was registered ("lower/nn/pooling.cc:42").
struct Entry {
  LowerFn fn;
  std::string source;
  OpTraits traits;
};

std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> r;
  return r;
}

// "lower/nn/pooling.cc:42" from the compiler's path of the file (absolute or
// relative to the build), cut after its last "csrc/".
std::string sourceOf(const std::source_location& loc) {
  std::string_view file = loc.file_name();
  const size_t at = file.rfind("csrc/");
  if (at != std::string_view::npos && (at == 0 || file[at - 1] == '/')) file.remove_prefix(at + 5);
  return std::string(file) + ":" + std::to_string(loc.line());
}

// Custom kernels register at run time, while other threads look ops up.
std::mutex& registryMu() {
  static std::mutex mu;
  return mu;
}

}  // namespace

void registerLowering(const std::vector<std::string>& ops, LowerFn fn, std::source_location loc,
                      OpTraits traits) {
  const std::string source = sourceOf(loc);
  std::lock_guard<std::mutex> lock(registryMu());
  for (const std::string& op : ops) registry()[op] = Entry{fn, source, traits};
}

OpTraits loweringTraits(const std::string& op) {
  std::lock_guard<std::mutex> lock(registryMu());
  auto it = registry().find(op);
  return it == registry().end() ? OpTraits{} : it->second.traits;
}

const LowerFn* findLowering(const std::string& op) {
  std::lock_guard<std::mutex> lock(registryMu());
  auto it = registry().find(op);
  return it == registry().end() ? nullptr : &it->second.fn;
}

std::vector<std::string> registeredOps() {
  std::lock_guard<std::mutex> lock(registryMu());
  std::vector<std::string> out;
  for (const auto& [name, entry] : registry()) out.push_back(name);
  return out;
}

std::map<std::string, std::string> loweringSources() {
  std::lock_guard<std::mutex> lock(registryMu());
  std::map<std::string, std::string> out;
  for (const auto& [name, entry] : registry()) out.emplace(name, entry.source);
  return out;
}

LowerCtx::LowerCtx(Function& f, const ir::OpCall& c, std::vector<std::vector<Value>> values)
    : fn(f), call(c), values_(std::move(values)) {}

void LowerCtx::fail(const std::string& message) const {
  throw LoweringError(call.op + ": " + message);
}

int LowerCtx::index(std::string_view name) const {
  for (size_t k = 0; k < call.argNames.size(); ++k) {
    if (call.argNames[k] == name) return static_cast<int>(k);
  }
  return -1;
}

const ir::ArgValue* LowerCtx::find(std::string_view name) const {
  int k = index(name);
  return k < 0 ? nullptr : &call.args[k];
}

bool LowerCtx::has(std::string_view name) const { return find(name) != nullptr; }

bool LowerCtx::isNone(std::string_view name) const {
  const ir::ArgValue* a = find(name);
  return a == nullptr || a->kind == Kind::kNone ||
         (a->kind == Kind::kTensor && !a->tensor.present());
}

const ir::ArgValue& LowerCtx::get(std::string_view name,
                                  std::initializer_list<ir::ArgValue::Kind> kinds) const {
  const ir::ArgValue* a = find(name);
  if (a == nullptr) fail("no argument named '" + std::string(name) + "'");
  for (Kind k : kinds) {
    if (a->kind == k) return *a;
  }
  fail("argument '" + std::string(name) + "' has an unexpected kind");
}

Value LowerCtx::tensor(std::string_view name) const {
  // A Python number in a Tensor slot (a wrapped number) arrives as a scalar.
  get(name, {Kind::kTensor, Kind::kScalar});
  const auto& v = values_[index(name)];
  if (v.empty()) fail("tensor argument '" + std::string(name) + "' is absent");
  return v[0];
}

bool LowerCtx::isScalarArg(std::string_view name) const {
  const ir::ArgValue* a = find(name);
  return a != nullptr && a->kind == Kind::kScalar;
}

std::optional<Value> LowerCtx::optTensor(std::string_view name) const {
  if (isNone(name)) return std::nullopt;
  return tensor(name);
}

std::vector<Value> LowerCtx::tensors(std::string_view name) const {
  get(name, {Kind::kTensorList});
  return values_[index(name)];
}

std::vector<std::optional<Value>> LowerCtx::optTensors(std::string_view name) const {
  const ir::ArgValue& a = get(name, {Kind::kTensorList});
  const auto& v = values_[index(name)];
  std::vector<std::optional<Value>> out;
  size_t next = 0;
  for (const auto& t : a.tensors) {
    if (t.present()) {
      out.emplace_back(v[next++]);
    } else {
      out.emplace_back(std::nullopt);
    }
  }
  return out;
}

Value LowerCtx::scalar(std::string_view name) const {
  get(name, {Kind::kScalar});
  return values_[index(name)][0];
}

Value LowerCtx::rng(std::string_view name) const {
  get(name, {Kind::kRng});
  return values_[index(name)][0];
}

bool LowerCtx::b(std::string_view name) const { return get(name, {Kind::kBool}).b; }

int64_t LowerCtx::i(std::string_view name) const { return get(name, {Kind::kInt}).i; }

double LowerCtx::d(std::string_view name) const {
  const ir::ArgValue& a = get(name, {Kind::kDouble, Kind::kInt});
  return a.kind == Kind::kInt ? static_cast<double>(a.i) : a.d;
}

std::vector<int64_t> LowerCtx::ints(std::string_view name) const {
  const ir::ArgValue& a = get(name, {Kind::kInts, Kind::kInt});
  return a.kind == Kind::kInt ? std::vector<int64_t>{a.i} : a.ints;
}

std::optional<int64_t> LowerCtx::optInt(std::string_view name) const {
  if (isNone(name)) return std::nullopt;
  return i(name);
}

std::optional<double> LowerCtx::optDouble(std::string_view name) const {
  if (isNone(name)) return std::nullopt;
  return d(name);
}

std::optional<std::vector<int64_t>> LowerCtx::optInts(std::string_view name) const {
  if (isNone(name)) return std::nullopt;
  return ints(name);
}

std::string LowerCtx::str(std::string_view name) const { return get(name, {Kind::kString}).s; }

std::optional<ElementType> LowerCtx::dtype(std::string_view name) const {
  if (isNone(name)) return std::nullopt;
  return get(name, {Kind::kDType}).dtype;
}

const TensorType& LowerCtx::result(size_t i) const {
  if (i >= call.results.size()) fail("result " + std::to_string(i) + " does not exist");
  return call.results[i];
}

}  // namespace torchtpu::lower
