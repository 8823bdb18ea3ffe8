// Helpers shared by the program builder tests (csrc/tests/hlo_*_test.cc):
// build a one-function module, run it on the test plugin, and reference
// conversions for the 16-bit float types computed independently of the builder.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "hlo/module.h"
#include "tests/test_support.h"

namespace torchtpu::hlo::test {

using testing::HostArray;
using Body = std::function<std::vector<Value>(Function& f, const std::vector<Value>& params)>;

// The text of a module whose public @main takes `params` and returns `body`'s values.
inline std::string mainText(const std::vector<TensorType>& params, const Body& body) {
  Module m("test");
  Function& f = m.addFunction("main", params, /*isPublic=*/true);
  std::vector<Value> args;
  for (int i = 0; i < f.numParams(); ++i) args.push_back(f.param(i));
  f.ret(body(f, args));
  return m.toText();
}

// Builds @main as above and runs it on `args` (whose types give the params).
inline std::vector<HostArray> run(const std::vector<HostArray>& args, const Body& body) {
  std::vector<TensorType> params;
  for (const HostArray& a : args) params.push_back(TensorType(a.type, a.dims));
  const std::string text = mainText(params, body);
  try {
    return testing::runProgram(text, args);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "running the program failed: " << e.what() << "\nprogram:\n" << text;
    throw;
  }
}

// A program without inputs.
inline std::vector<HostArray> run(const std::function<std::vector<Value>(Function&)>& body) {
  return run({}, [&](Function& f, const std::vector<Value>&) { return body(f); });
}

template <class T>
HostArray arr(ElementType t, std::vector<int64_t> dims, const std::vector<T>& values) {
  return HostArray::of<T>(t, std::move(dims), values);
}

inline HostArray f32(std::vector<int64_t> dims, const std::vector<float>& v) {
  return arr<float>(ElementType::kF32, std::move(dims), v);
}
inline HostArray i32(std::vector<int64_t> dims, const std::vector<int32_t>& v) {
  return arr<int32_t>(ElementType::kS32, std::move(dims), v);
}

// ---- 16-bit floats on the host (reference implementations) -----------------

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// bfloat16 is the top half of a float; round to nearest even, keep NaN quiet.
inline uint16_t toBf16(float f) {
  const uint32_t u = floatBits(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  const uint32_t rounding = 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>((u + rounding) >> 16);
}
inline float fromBf16(uint16_t h) { return bitsFloat(static_cast<uint32_t>(h) << 16); }

// IEEE half from float, round to nearest even (through exact scaling in double).
inline uint16_t toF16(float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  if (std::isnan(f)) return sign | 0x7E00;
  if (a >= 65520.0) return sign | 0x7C00;  // rounds to infinity
  if (a < std::ldexp(1.0, -14)) {          // subnormal: units of 2^-24
    return sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(a, 24)));
  }
  int e = 0;
  std::frexp(a, &e);                                       // a in [2^(e-1), 2^e)
  const double m = std::nearbyint(std::ldexp(a, 11 - e));  // 11 significant bits
  uint32_t exp = static_cast<uint32_t>(e - 1 + 15);
  uint32_t mant = static_cast<uint32_t>(m) - 1024;
  if (mant == 1024) {  // rounded up to the next power of two
    mant = 0;
    ++exp;
  }
  return sign | static_cast<uint16_t>((exp << 10) | mant);
}
inline float fromF16(uint16_t h) {
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  const int exp = (h >> 10) & 0x1F;
  const int mant = h & 0x3FF;
  if (exp == 0) return sign * std::ldexp(static_cast<float>(mant), -24);
  if (exp == 31) return mant ? NAN : sign * INFINITY;
  return sign * std::ldexp(static_cast<float>(mant + 1024), exp - 25);
}

// Any element type to/from the host, through long double (exact for every
// 64-bit integer and every float type here). i1 is one byte, 0 or 1.
inline HostArray encode(ElementType t, std::vector<int64_t> dims,
                        const std::vector<long double>& v) {
  HostArray a;
  a.type = t;
  a.dims = std::move(dims);
  const size_t w = runtime::elementByteSize(t);
  a.bytes.resize(v.size() * w);
  for (size_t i = 0; i < v.size(); ++i) {
    uint8_t* p = a.bytes.data() + i * w;
    auto put = [&](auto x) { std::memcpy(p, &x, sizeof(x)); };
    switch (t) {
      case ElementType::kPred:
        put(static_cast<uint8_t>(v[i] != 0));
        break;
      case ElementType::kS8:
        put(static_cast<int8_t>(v[i]));
        break;
      case ElementType::kS16:
        put(static_cast<int16_t>(v[i]));
        break;
      case ElementType::kS32:
        put(static_cast<int32_t>(v[i]));
        break;
      case ElementType::kS64:
        put(static_cast<int64_t>(v[i]));
        break;
      case ElementType::kU8:
        put(static_cast<uint8_t>(v[i]));
        break;
      case ElementType::kU16:
        put(static_cast<uint16_t>(v[i]));
        break;
      case ElementType::kU32:
        put(static_cast<uint32_t>(v[i]));
        break;
      case ElementType::kU64:
        put(static_cast<uint64_t>(v[i]));
        break;
      case ElementType::kF16:
        put(toF16(static_cast<float>(v[i])));
        break;
      case ElementType::kBF16:
        put(toBf16(static_cast<float>(v[i])));
        break;
      case ElementType::kF32:
        put(static_cast<float>(v[i]));
        break;
      case ElementType::kF64:
        put(static_cast<double>(v[i]));
        break;
      default:
        ADD_FAILURE() << "encode: complex types are handled separately";
    }
  }
  return a;
}

inline std::vector<long double> decode(const HostArray& a) {
  const size_t w = runtime::elementByteSize(a.type);
  std::vector<long double> v(a.bytes.size() / w);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint8_t* p = a.bytes.data() + i * w;
    auto get = [&](auto x) -> long double {
      std::memcpy(&x, p, sizeof(x));
      return static_cast<long double>(x);
    };
    switch (a.type) {
      case ElementType::kPred:
        v[i] = get(uint8_t{});
        break;
      case ElementType::kS8:
        v[i] = get(int8_t{});
        break;
      case ElementType::kS16:
        v[i] = get(int16_t{});
        break;
      case ElementType::kS32:
        v[i] = get(int32_t{});
        break;
      case ElementType::kS64:
        v[i] = get(int64_t{});
        break;
      case ElementType::kU8:
        v[i] = get(uint8_t{});
        break;
      case ElementType::kU16:
        v[i] = get(uint16_t{});
        break;
      case ElementType::kU32:
        v[i] = get(uint32_t{});
        break;
      case ElementType::kU64:
        v[i] = get(uint64_t{});
        break;
      case ElementType::kF16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        v[i] = fromF16(h);
        break;
      }
      case ElementType::kBF16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        v[i] = fromBf16(h);
        break;
      }
      case ElementType::kF32:
        v[i] = get(float{});
        break;
      case ElementType::kF64:
        v[i] = get(double{});
        break;
      default:
        ADD_FAILURE() << "decode: complex types are handled separately";
    }
  }
  return v;
}

// Exact comparison of decoded values; NaN equals NaN.
inline void expectSame(const HostArray& got, ElementType t, const std::vector<int64_t>& dims,
                       const std::vector<long double>& want, const std::string& what = "") {
  EXPECT_EQ(got.type, t) << what;
  EXPECT_EQ(got.dims, dims) << what;
  const std::vector<long double> g = decode(got);
  // Round the expectation to the element type first.
  const std::vector<long double> w = decode(encode(t, dims, want));
  ASSERT_EQ(g.size(), w.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << what << " [" << i << "]";
    } else {
      EXPECT_EQ(g[i], w[i]) << what << " [" << i << "]";
    }
  }
}

// Relative + absolute tolerance check over two float vectors.
inline void expectNear(const std::vector<float>& got, const std::vector<float>& want,
                       float tol = 1e-5f, const std::string& what = "") {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " [" << i << "]";
      continue;
    }
    if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << " [" << i << "]";
      continue;
    }
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " [" << i << "]";
  }
}

}  // namespace torchtpu::hlo::test
