#include "ir/op_call.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace torchtpu::ir {
namespace {

// Keys are built for every op call (and every recorded op): no temporaries.
void appendInt(std::string& key, int64_t x) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), x);
  key.append(buf, r.ptr);
}

void appendInts(std::string& key, const std::vector<int64_t>& v) {
  key += '[';
  for (int64_t x : v) {
    appendInt(key, x);
    key += ',';
  }
  key += ']';
}

// "f32[2,3,]": injective like TensorType::str(), without building a string.
void appendType(std::string& key, const hlo::TensorType& t) {
  key += runtime::elementTypeName(t.dtype);
  appendInts(key, t.dims);
}

// Exact text of a double (hex float), so distinct values never share a key.
void appendDouble(std::string& key, double d) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%a", d);
  key += buf;
}

void appendRef(std::string& key, const TensorRef& t) {
  if (!t.present()) {
    key += "T-";
    return;
  }
  key += 'T';
  appendInt(key, t.array);
  key += ':';
  key += runtime::elementTypeName(t.dtype);
  appendInts(key, t.sizes);
  appendInts(key, t.strides);
  key += '+';
  appendInt(key, t.offset);
}

}  // namespace

int64_t TensorRef::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

bool TensorRef::isWholeArray(const hlo::TensorType& array) const {
  if (offset != 0 || dtype != array.dtype || numel() != array.numElements()) return false;
  int64_t expected = 1;
  for (size_t k = sizes.size(); k-- > 0;) {
    if (sizes[k] != 1 && strides[k] != expected) return false;
    expected *= sizes[k];
  }
  return true;
}

hlo::TensorType OpCall::storedType(size_t i) const {
  if (i >= resultOrder.size() || resultOrder[i].empty()) return results[i];
  hlo::TensorType t = results[i];
  for (size_t k = 0; k < resultOrder[i].size(); ++k) t.dims[k] = results[i].dims[resultOrder[i][k]];
  return t;
}

void ArgValue::appendKey(std::string& key) const {
  switch (kind) {
    case Kind::kNone:
      key += 'N';
      break;
    case Kind::kTensor:
      appendRef(key, tensor);
      break;
    case Kind::kTensorList:
      key += 'L';
      for (const auto& t : tensors) appendRef(key, t);
      break;
    case Kind::kScalar:
    case Kind::kRng:
      key += 'S';
      appendInt(key, scalar);
      break;
    case Kind::kBool:
      key += b ? "b1" : "b0";
      break;
    case Kind::kInt:
      key += 'i';
      appendInt(key, i);
      break;
    case Kind::kDouble: {
      key += 'd';
      appendDouble(key, d);
      break;
    }
    case Kind::kInts:
      appendInts(key, ints);
      break;
    case Kind::kDoubles:
      key += 'D';
      for (double x : doubles) {
        appendDouble(key, x);
        key += ',';
      }
      break;
    case Kind::kString:
      key += 's';
      key += s;
      break;
    case Kind::kDType:
      key += 't';
      key += runtime::elementTypeName(dtype);
      break;
    case Kind::kOther:
      key += 'o';
      break;
  }
  key += ';';
}

std::string OpCall::key() const {
  std::string key;
  key.reserve(256);
  appendKey(key);
  return key;
}

void OpCall::appendKey(std::string& key) const {
  key += op;
  key += '|';
  for (const auto& a : args) a.appendKey(key);
  key += '|';
  for (size_t k = 0; k < arrays.size(); ++k) {
    appendType(key, arrays[k]);
    if (k < zeroArrays.size() && zeroArrays[k]) key += '0';
  }
  key += '|';
  for (const auto& t : scalars) appendType(key, t);
  key += '|';
  for (const WriteTarget& w : writeBack) {
    appendInt(key, w.arg);
    key += ':';
    appendInt(key, w.element);
    key += ',';
  }
}

namespace {

// Doubles compare by their bits, as the key writes them (-0.0 is not 0.0).
bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

bool sameRef(const TensorRef& a, const TensorRef& b) {
  return a.array == b.array && a.dtype == b.dtype && a.offset == b.offset && a.sizes == b.sizes &&
         a.strides == b.strides;
}

bool sameArg(const ArgValue& a, const ArgValue& b) {
  using Kind = ArgValue::Kind;
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::kNone:
    case Kind::kOther:
      return true;
    case Kind::kTensor:
      return sameRef(a.tensor, b.tensor);
    case Kind::kTensorList:
      return std::equal(a.tensors.begin(), a.tensors.end(), b.tensors.begin(), b.tensors.end(),
                        sameRef);
    case Kind::kScalar:
    case Kind::kRng:
      return a.scalar == b.scalar;
    case Kind::kBool:
      return a.b == b.b;
    case Kind::kInt:
      return a.i == b.i;
    case Kind::kDouble:
      return sameBits(a.d, b.d);
    case Kind::kInts:
      return a.ints == b.ints;
    case Kind::kDoubles:
      return std::equal(a.doubles.begin(), a.doubles.end(), b.doubles.begin(), b.doubles.end(),
                        sameBits);
    case Kind::kString:
      return a.s == b.s;
    case Kind::kDType:
      return a.dtype == b.dtype;
  }
  return false;
}

}  // namespace

bool OpCall::sameDescription(const OpCall& described) const {
  // The key of a stored call was made before its writeBack was filled in.
  if (!described.writeBack.empty()) return false;
  return op == described.op && arrays == described.arrays && zeroArrays == described.zeroArrays &&
         scalars == described.scalars &&
         std::equal(args.begin(), args.end(), described.args.begin(), described.args.end(),
                    sameArg);
}

}  // namespace torchtpu::ir
