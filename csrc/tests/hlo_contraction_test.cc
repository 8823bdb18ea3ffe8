// dot_general and convolution on the plugin against host reference loops
// written from the StableHLO spec (batching, contracting, strides, padding,
// dilations, feature and batch groups, layouts, result types).
#include <numeric>

#include "tests/hlo_testing.h"

namespace torchtpu::hlo::test {
namespace {

std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    idx[d] = flat % dims[d];
    flat /= dims[d];
  }
  return idx;
}
int64_t ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  int64_t flat = 0;
  for (size_t d = 0; d < dims.size(); ++d) flat = flat * dims[d] + idx[d];
  return flat;
}
int64_t count(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}
bool has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
// Small distinct values, exact in bf16 and in f32 sums.
std::vector<float> data(int64_t n, int seed) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7 + seed * 3) % 11 - 5) * 0.5f;
  return v;
}

// dot_general by enumeration of (batch, lhs free, rhs free, contracting) indices.
std::vector<float> refDot(const std::vector<float>& l, const std::vector<int64_t>& ld,
                          const std::vector<float>& r, const std::vector<int64_t>& rd,
                          const DotDims& d, std::vector<int64_t>* outDims) {
  std::vector<int64_t> lFree, rFree, od, cd;
  for (int64_t i = 0; i < static_cast<int64_t>(ld.size()); ++i) {
    if (!has(d.lhsBatch, i) && !has(d.lhsContracting, i)) lFree.push_back(i);
  }
  for (int64_t i = 0; i < static_cast<int64_t>(rd.size()); ++i) {
    if (!has(d.rhsBatch, i) && !has(d.rhsContracting, i)) rFree.push_back(i);
  }
  for (int64_t b : d.lhsBatch) od.push_back(ld[b]);
  for (int64_t i : lFree) od.push_back(ld[i]);
  for (int64_t i : rFree) od.push_back(rd[i]);
  for (int64_t c : d.lhsContracting) cd.push_back(ld[c]);
  *outDims = od;
  std::vector<float> out(count(od));
  for (int64_t o = 0; o < count(od); ++o) {
    const auto oi = unravel(o, od);
    double acc = 0;
    for (int64_t c = 0; c < count(cd); ++c) {
      const auto ci = unravel(c, cd);
      std::vector<int64_t> li(ld.size()), ri(rd.size());
      size_t k = 0;
      for (size_t b = 0; b < d.lhsBatch.size(); ++b, ++k) {
        li[d.lhsBatch[b]] = oi[k];
        ri[d.rhsBatch[b]] = oi[k];
      }
      for (int64_t i : lFree) li[i] = oi[k++];
      for (int64_t i : rFree) ri[i] = oi[k++];
      for (size_t j = 0; j < ci.size(); ++j) {
        li[d.lhsContracting[j]] = ci[j];
        ri[d.rhsContracting[j]] = ci[j];
      }
      acc += static_cast<double>(l[ravel(li, ld)]) * r[ravel(ri, rd)];
    }
    out[o] = static_cast<float>(acc);
  }
  return out;
}

struct DotCase {
  std::vector<int64_t> lhs, rhs;
  DotDims dims;
};

TEST(Contraction, DotGeneral) {
  const std::vector<DotCase> cases = {
      {{2, 3}, {3, 4}, {{}, {}, {1}, {0}}},              // matmul
      {{2, 2, 3}, {2, 3, 2}, {{0}, {0}, {2}, {1}}},      // batched matmul
      {{3, 2}, {3, 4}, {{}, {}, {0}, {0}}},              // lhs^T rhs
      {{2, 3, 4}, {4, 5, 3}, {{}, {}, {1, 2}, {2, 0}}},  // two contracting dims
      {{2}, {3}, {{}, {}, {}, {}}},                      // outer product
      {{4, 2, 3}, {3, 4, 5}, {{0}, {1}, {2}, {0}}},      // batch dims not leading
      {{0, 3}, {3, 2}, {{}, {}, {1}, {0}}},              // empty result
  };
  for (const DotCase& c : cases) {
    const auto l = data(count(c.lhs), 1), r = data(count(c.rhs), 2);
    auto out = run({f32(c.lhs, l), f32(c.rhs, r)},
                   [&](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
                     return {f.dotGeneral(p[0], p[1], c.dims),
                             f.dotGeneral(p[0], p[1], c.dims, std::nullopt, Precision::kHighest)};
                   });
    std::vector<int64_t> od;
    const auto want = refDot(l, c.lhs, r, c.rhs, c.dims, &od);
    EXPECT_EQ(out[0].dims, od) << c.dims.attr();
    expectNear(out[0].values<float>(), want, 1e-6f, c.dims.attr());
    expectNear(out[1].values<float>(), want, 1e-6f, c.dims.attr());
  }
}

// bf16 x bf16 -> f32 (preferred element type) and integer dots.
TEST(Contraction, DotResultTypes) {
  const auto l = data(6, 3), r = data(6, 4);
  std::vector<uint16_t> lb, rb;
  for (float v : l) lb.push_back(toBf16(v));
  for (float v : r) rb.push_back(toBf16(v));
  std::vector<int32_t> li, ri;
  for (float v : l) li.push_back(static_cast<int32_t>(v * 2));
  for (float v : r) ri.push_back(static_cast<int32_t>(v * 2));
  const DotDims mm{{}, {}, {1}, {0}};
  auto out = run({arr<uint16_t>(ElementType::kBF16, {2, 3}, lb),
                  arr<uint16_t>(ElementType::kBF16, {3, 2}, rb), i32({2, 3}, li), i32({3, 2}, ri)},
                 [&](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
                   return {f.dotGeneral(p[0], p[1], mm, ElementType::kF32),
                           f.dotGeneral(p[0], p[1], mm), f.dotGeneral(p[2], p[3], mm)};
                 });
  std::vector<int64_t> od;
  const auto want = refDot(l, {2, 3}, r, {3, 2}, mm, &od);
  EXPECT_EQ(out[0].type, ElementType::kF32);
  expectNear(out[0].values<float>(), want, 1e-6f);
  EXPECT_EQ(out[1].type, ElementType::kBF16);
  std::vector<float> got;
  for (uint16_t h : out[1].values<uint16_t>()) got.push_back(fromBf16(h));
  expectNear(got, want, 1e-2f);
  std::vector<int32_t> wi;
  for (float v : refDot(std::vector<float>(li.begin(), li.end()), {2, 3},
                        std::vector<float>(ri.begin(), ri.end()), {3, 2}, mm, &od)) {
    wi.push_back(static_cast<int32_t>(v));
  }
  EXPECT_EQ(out[2].values<int32_t>(), wi);
}

struct ConvCase {
  std::string what;
  ConvDims dims;
  std::vector<int64_t> lhs, rhs;
  std::vector<int64_t> strides;
  std::vector<PadPair> padding;
  std::vector<int64_t> lhsDil, rhsDil;
  int64_t featureGroups = 1, batchGroups = 1;
};

// Convolution straight from the spec: for each output element, walk the
// kernel window over the (lhs-dilated, padded) input.
std::vector<float> refConv(const ConvCase& c, const std::vector<float>& in,
                           const std::vector<float>& k, std::vector<int64_t>* outDims) {
  const ConvDims& d = c.dims;
  const int64_t s = d.spatialRank();
  const int64_t n = c.lhs[d.inputBatch], cin = c.lhs[d.inputFeature];
  const int64_t kin = c.rhs[d.kernelInputFeature], kout = c.rhs[d.kernelOutputFeature];
  std::vector<int64_t> od(s + 2);
  od[d.outputBatch] = n / c.batchGroups;
  od[d.outputFeature] = kout;
  for (int64_t i = 0; i < s; ++i) {
    const int64_t size =
        (c.lhs[d.inputSpatial[i]] - 1) * c.lhsDil[i] + 1 + c.padding[i].first + c.padding[i].second;
    const int64_t win = (c.rhs[d.kernelSpatial[i]] - 1) * c.rhsDil[i] + 1;
    od[d.outputSpatial[i]] = size < win ? 0 : (size - win) / c.strides[i] + 1;
  }
  *outDims = od;
  std::vector<int64_t> kspatial;
  for (int64_t i = 0; i < s; ++i) kspatial.push_back(c.rhs[d.kernelSpatial[i]]);
  std::vector<float> out(count(od));
  const int64_t outPerFeatureGroup = kout / c.featureGroups;
  const int64_t outPerBatchGroup = kout / c.batchGroups;
  for (int64_t o = 0; o < count(od); ++o) {
    const auto oi = unravel(o, od);
    const int64_t of = oi[d.outputFeature];
    const int64_t fg = of / outPerFeatureGroup;
    const int64_t bg = of / outPerBatchGroup;
    const int64_t batch = bg * (n / c.batchGroups) + oi[d.outputBatch];
    double acc = 0;
    for (int64_t ki = 0; ki < kin; ++ki) {
      const int64_t inFeature = fg * (cin / c.featureGroups) + ki;
      for (int64_t w = 0; w < count(kspatial); ++w) {
        const auto wi = unravel(w, kspatial);
        std::vector<int64_t> ii(s + 2), kk(s + 2);
        ii[d.inputBatch] = batch;
        ii[d.inputFeature] = inFeature;
        kk[d.kernelInputFeature] = ki;
        kk[d.kernelOutputFeature] = of;
        bool inside = true;
        for (int64_t sp = 0; sp < s && inside; ++sp) {
          const int64_t pos =
              oi[d.outputSpatial[sp]] * c.strides[sp] + wi[sp] * c.rhsDil[sp] - c.padding[sp].first;
          if (pos < 0 || pos % c.lhsDil[sp] != 0) {
            inside = false;
            break;
          }
          const int64_t x = pos / c.lhsDil[sp];
          if (x >= c.lhs[d.inputSpatial[sp]]) inside = false;
          ii[d.inputSpatial[sp]] = x;
          kk[d.kernelSpatial[sp]] = wi[sp];
        }
        if (inside) acc += static_cast<double>(in[ravel(ii, c.lhs)]) * k[ravel(kk, c.rhs)];
      }
    }
    out[o] = static_cast<float>(acc);
  }
  return out;
}

TEST(Contraction, Convolution) {
  const ConvDims nchw = ConvDims::channelsFirst(2);
  std::vector<ConvCase> cases = {
      {"plain", nchw, {2, 3, 5, 4}, {4, 3, 3, 2}, {1, 1}, {{0, 0}, {0, 0}}, {1, 1}, {1, 1}},
      {"stride+pad", nchw, {2, 3, 5, 4}, {4, 3, 3, 2}, {2, 1}, {{1, 1}, {0, 1}}, {1, 1}, {1, 1}},
      {"dilations", nchw, {1, 2, 4, 5}, {3, 2, 2, 3}, {1, 2}, {{1, 0}, {2, 1}}, {2, 1}, {1, 2}},
      {"feature groups",
       nchw,
       {2, 6, 4, 4},
       {6, 2, 2, 2},
       {1, 1},
       {{0, 0}, {1, 1}},
       {1, 1},
       {1, 1},
       3,
       1},
      {"batch groups",
       nchw,
       {4, 2, 3, 3},
       {4, 2, 2, 2},
       {1, 1},
       {{0, 0}, {0, 0}},
       {1, 1},
       {1, 1},
       1,
       2},
      {"1-d channels last",
       ConvDims::channelsLast(1),
       {2, 7, 3},
       {3, 3, 2},
       {2},
       {{2, 1}},
       {1},
       {1}},
      {"3-d",
       ConvDims::channelsFirst(3),
       {1, 2, 3, 4, 3},
       {2, 2, 2, 2, 2},
       {1, 2, 1},
       {{0, 0}, {1, 0}, {0, 1}},
       {1, 1, 1},
       {1, 1, 1}},
  };
  // A scrambled layout: input [H, f, b, W], kernel [i, H, o, W], output [W, b, H, f].
  ConvDims odd;
  odd.inputBatch = 2;
  odd.inputFeature = 1;
  odd.inputSpatial = {0, 3};
  odd.kernelInputFeature = 0;
  odd.kernelOutputFeature = 2;
  odd.kernelSpatial = {1, 3};
  odd.outputBatch = 1;
  odd.outputFeature = 3;
  odd.outputSpatial = {2, 0};
  cases.push_back(
      {"odd layout", odd, {4, 3, 2, 5}, {3, 2, 4, 2}, {1, 2}, {{0, 1}, {1, 0}}, {1, 1}, {1, 1}});
  for (const ConvCase& c : cases) {
    const auto in = data(count(c.lhs), 5), k = data(count(c.rhs), 6);
    auto out = run({f32(c.lhs, in), f32(c.rhs, k)},
                   [&](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
                     return {f.convolution(p[0], p[1], c.dims, c.strides, c.padding, c.lhsDil,
                                           c.rhsDil, c.featureGroups, c.batchGroups)};
                   });
    std::vector<int64_t> od;
    const auto want = refConv(c, in, k, &od);
    EXPECT_EQ(out[0].dims, od) << c.what;
    expectNear(out[0].values<float>(), want, 1e-6f, c.what);
  }
}

// Defaults (empty strides/padding/dilations), a bf16 input with an f32 result
// and HIGHEST precision.
TEST(Contraction, ConvolutionDefaultsAndTypes) {
  ConvCase c{"defaults", ConvDims::channelsFirst(1), {1, 2, 6}, {2, 2, 3}, {1}, {{0, 0}}, {1}, {1}};
  const auto in = data(12, 7), k = data(12, 8);
  std::vector<uint16_t> inb, kb;
  for (float v : in) inb.push_back(toBf16(v));
  for (float v : k) kb.push_back(toBf16(v));
  auto out = run({f32(c.lhs, in), f32(c.rhs, k), arr<uint16_t>(ElementType::kBF16, c.lhs, inb),
                  arr<uint16_t>(ElementType::kBF16, c.rhs, kb)},
                 [&](Function& f, const std::vector<Value>& p) -> std::vector<Value> {
                   return {f.convolution(p[0], p[1], c.dims),
                           f.convolution(p[2], p[3], c.dims, {}, {}, {}, {}, 1, 1,
                                         ElementType::kF32, Precision::kHighest)};
                 });
  std::vector<int64_t> od;
  const auto want = refConv(c, in, k, &od);
  EXPECT_EQ(out[0].dims, od);
  expectNear(out[0].values<float>(), want, 1e-6f);
  EXPECT_EQ(out[1].type, ElementType::kF32);
  expectNear(out[1].values<float>(), want, 1e-6f);
}

}  // namespace
}  // namespace torchtpu::hlo::test
