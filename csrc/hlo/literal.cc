#include "hlo/literal.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace torchtpu::hlo {

static_assert(std::endian::native == std::endian::little,
              "dense hex constants assume a little-endian host");

namespace {

// Round to a binary format with `precision` significand bits (including the
// implicit one), smallest normal exponent `minExp` and largest finite `maxFinite`.
double roundToFormat(double v, int precision, int minExp, double maxFinite) {
  if (!std::isfinite(v) || v == 0) return v;
  int e = 0;
  std::frexp(v, &e);  // |v| in [2^(e-1), 2^e)
  const int ulpExp = std::max(e - 1, minExp) - (precision - 1);
  const double r = std::ldexp(std::nearbyint(std::ldexp(v, -ulpExp)), ulpExp);
  if (std::fabs(r) > maxFinite) return std::copysign(INFINITY, v);
  return r;
}

// Shortest decimal that reads back as exactly `v`, in MLIR float syntax (which
// needs a '.'): "1.0e+00", "-2.5e-01".
// (Non-finite values, which only reach here for error messages, give "nan"/"inf".)
std::string shortestDecimal(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  if (s.find('.') == std::string::npos) s.insert(s.find('e'), ".0");
  return s;
}

// Bit pattern of a non-finite value as an MLIR hex literal.
std::string nonFiniteBits(double v, ElementType t) {
  const bool neg = std::signbit(v);
  uint64_t bits = 0;
  int hexDigits = 0;
  switch (t) {
    case ElementType::kF16:
      bits = std::isnan(v) ? 0x7E00 : 0x7C00;
      bits |= neg ? 0x8000 : 0;
      hexDigits = 4;
      break;
    case ElementType::kBF16:
      bits = std::isnan(v) ? 0x7FC0 : 0x7F80;
      bits |= neg ? 0x8000 : 0;
      hexDigits = 4;
      break;
    case ElementType::kF32:
      bits = std::isnan(v) ? 0x7FC00000u : 0x7F800000u;
      bits |= neg ? 0x80000000u : 0;
      hexDigits = 8;
      break;
    default:
      bits = std::isnan(v) ? 0x7FF8000000000000ull : 0x7FF0000000000000ull;
      bits |= neg ? 0x8000000000000000ull : 0;
      hexDigits = 16;
      break;
  }
  static const char* kHex = "0123456789ABCDEF";
  std::string s = "0x";
  for (int i = hexDigits - 1; i >= 0; --i) s += kHex[(bits >> (4 * i)) & 0xF];
  return s;
}

std::string hexBytes(const uint8_t* p, size_t n) {
  static const char* kHex = "0123456789ABCDEF";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    s += kHex[p[i] >> 4];
    s += kHex[p[i] & 0xF];
  }
  return s;
}

int bitWidth(ElementType t) { return static_cast<int>(runtime::elementByteSize(t)) * 8; }

std::string floatLiteral(double v, ElementType t) {
  const double r = roundToFloatType(v, t);
  if (!std::isfinite(r)) return nonFiniteBits(r, t);
  return shortestDecimal(r);
}

std::string notRepresentable(const std::string& what, ElementType t) {
  return "constant: " + what + " is not exactly representable in " +
         std::string(runtime::elementTypeName(t));
}

// Nested "[[true, false], [...]]" for i1 data (MLIR's hex form of i1 differs
// between StableHLO versions, so booleans are always spelled out).
void boolList(const uint8_t* data, const std::vector<int64_t>& dims, size_t dim, int64_t* pos,
              std::string* out) {
  if (dim == dims.size()) {
    *out += data[(*pos)++] ? "true" : "false";
    return;
  }
  *out += '[';
  for (int64_t i = 0; i < dims[dim]; ++i) {
    if (i) *out += ", ";
    boolList(data, dims, dim + 1, pos, out);
  }
  *out += ']';
}

}  // namespace

double roundToFloatType(double v, ElementType t) {
  switch (t) {
    case ElementType::kF16:
      return roundToFormat(v, 11, -14, 65504.0);
    case ElementType::kBF16:
      return roundToFormat(v, 8, -126, std::ldexp(255.0, 120));
    case ElementType::kF32:
      return static_cast<double>(static_cast<float>(v));
    case ElementType::kF64:
      return v;
    default:
      throw std::invalid_argument("roundToFloatType: " + std::string(runtime::elementTypeName(t)) +
                                  " is not a floating-point type");
  }
}

std::string elementLiteral(double v, ElementType t) {
  if (t == ElementType::kPred) return v != 0 ? "true" : "false";
  if (runtime::isFloating(t)) return floatLiteral(v, t);
  if (runtime::isComplex(t)) return complexLiteral(v, 0.0, t);
  // Integers: exact values only.
  const int bits = bitWidth(t);
  if (!std::isfinite(v) || std::trunc(v) != v) {
    throw std::invalid_argument(notRepresentable(shortestDecimal(v), t));
  }
  if (runtime::isSigned(t)) {
    const double lim = std::ldexp(1.0, bits - 1);
    if (v < -lim || v >= lim) throw std::invalid_argument(notRepresentable(shortestDecimal(v), t));
    return std::to_string(static_cast<int64_t>(v));
  }
  const double lim = std::ldexp(1.0, bits);
  if (v < 0 || v >= lim) throw std::invalid_argument(notRepresentable(shortestDecimal(v), t));
  return std::to_string(static_cast<uint64_t>(v));
}

std::string elementLiteral(int64_t v, ElementType t) {
  if (t == ElementType::kPred) return v != 0 ? "true" : "false";
  if (runtime::isFloating(t) || runtime::isComplex(t)) {
    return elementLiteral(static_cast<double>(v), t);
  }
  const int bits = bitWidth(t);
  if (runtime::isSigned(t)) {
    if (bits < 64) {
      const int64_t lim = int64_t{1} << (bits - 1);
      if (v < -lim || v >= lim) throw std::invalid_argument(notRepresentable(std::to_string(v), t));
    }
    return std::to_string(v);
  }
  if (v < 0 || (bits < 64 && v >= (int64_t{1} << bits))) {
    throw std::invalid_argument(notRepresentable(std::to_string(v), t));
  }
  return std::to_string(v);
}

std::string complexLiteral(double re, double im, ElementType t) {
  if (!runtime::isComplex(t)) {
    throw std::invalid_argument("constant: complex value for non-complex type " +
                                std::string(runtime::elementTypeName(t)));
  }
  const ElementType part = t == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
  const double r = roundToFloatType(re, part);
  const double i = roundToFloatType(im, part);
  if (std::isfinite(r) && std::isfinite(i)) {
    return "(" + shortestDecimal(r) + ", " + shortestDecimal(i) + ")";
  }
  // The tuple syntax has no NaN/inf spelling: write the element's bytes.
  uint8_t bytes[16];
  size_t n = 0;
  if (part == ElementType::kF32) {
    const float parts[2] = {static_cast<float>(r), static_cast<float>(i)};
    std::memcpy(bytes, parts, sizeof(parts));
    n = sizeof(parts);
  } else {
    const double parts[2] = {r, i};
    std::memcpy(bytes, parts, sizeof(parts));
    n = sizeof(parts);
  }
  return "\"0x" + hexBytes(bytes, n) + "\"";
}

std::string denseSplatAttr(const std::string& literal, const TensorType& type) {
  if (type.numElements() == 0) return "dense<> : " + type.str();
  return "dense<" + literal + "> : " + type.str();
}

std::string denseDataAttr(const TensorType& type, const void* data) {
  const int64_t n = type.numElements();
  if (n == 0) return "dense<> : " + type.str();
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (type.dtype == ElementType::kPred) {
    std::string s = "dense<";
    int64_t pos = 0;
    boolList(bytes, type.dims, 0, &pos, &s);
    return s + "> : " + type.str();
  }
  const size_t size = static_cast<size_t>(n) * runtime::elementByteSize(type.dtype);
  return "dense<\"0x" + hexBytes(bytes, size) + "\"> : " + type.str();
}

}  // namespace torchtpu::hlo
