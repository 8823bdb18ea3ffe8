// Linear algebra and FFT ops on the plugin against host arithmetic: cholesky,
// triangular_solve, custom_call of XLA's Qr expander, fft; and their shape errors.
#include <cmath>
#include <complex>

#include "tests/hlo_testing.h"

namespace torchtpu::hlo::test {
namespace {

using Args = std::vector<Value>;

// A symmetric positive definite 3x3 matrix and its lower Cholesky factor.
const std::vector<float> kSpd = {4, 2, 2, 2, 5, 3, 2, 3, 6};
const std::vector<float> kL = {2, 0, 0, 1, 2, 0, 1, 1, 2};

TEST(Linalg, CholeskyLowerAndUpper) {
  auto out = run({f32({3, 3}, kSpd)}, [](Function& f, const Args& p) -> Args {
    return {f.cholesky(p[0], true), f.cholesky(p[0], false)};
  });
  ASSERT_EQ(out.size(), 2u);
  const auto lower = out[0].values<float>();
  const auto upper = out[1].values<float>();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j <= i; ++j) {
      EXPECT_NEAR(lower[i * 3 + j], kL[i * 3 + j], 1e-5) << i << "," << j;
      EXPECT_NEAR(upper[j * 3 + i], kL[i * 3 + j], 1e-5) << i << "," << j;  // U = L^T
    }
  }
}

TEST(Linalg, TriangularSolveSidesAndTranspose) {
  // L x = b, x L = b, L^T x = b, checked by multiplying back on the host.
  const std::vector<float> b = {2, 4, 6, 1, 3, 5, 7, 9, 11};  // [3, 3]
  auto out = run({f32({3, 3}, kL), f32({3, 3}, b)}, [](Function& f, const Args& p) -> Args {
    return {f.triangularSolve(p[0], p[1], true, true, false),
            f.triangularSolve(p[0], p[1], false, true, false),
            f.triangularSolve(p[0], p[1], true, true, false, Function::Transpose::kTranspose)};
  });
  ASSERT_EQ(out.size(), 3u);
  auto at = [](const std::vector<float>& m, int i, int j) { return m[i * 3 + j]; };
  const auto x0 = out[0].values<float>(), x1 = out[1].values<float>(), x2 = out[2].values<float>();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      float left = 0, right = 0, trans = 0;
      for (int k = 0; k < 3; ++k) {
        left += at(kL, i, k) * at(x0, k, j);
        right += at(x1, i, k) * at(kL, k, j);
        trans += at(kL, k, i) * at(x2, k, j);
      }
      EXPECT_NEAR(left, at(b, i, j), 1e-4);
      EXPECT_NEAR(right, at(b, i, j), 1e-4);
      EXPECT_NEAR(trans, at(b, i, j), 1e-4);
    }
  }
}

TEST(Linalg, QrCustomCallReconstructs) {
  // XLA's "Qr" expander returns LAPACK geqrf's (a, taus); R is the upper triangle.
  const std::vector<float> a = {1, 2, 3, 4, 5, 6, 7, 8, 10};
  auto out = run({f32({3, 3}, a)}, [](Function& f, const Args& p) -> Args {
    return f.customCall(
        "Qr", {p[0]}, {TensorType(ElementType::kF32, {3, 3}), TensorType(ElementType::kF32, {3})});
  });
  ASSERT_EQ(out.size(), 2u);
  const auto h = out[0].values<float>();
  const auto tau = out[1].values<float>();
  // Q = H0 H1 H2 with H_k = I - tau_k v_k v_k^T (v_k: 1 at k, h below).
  double q[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int k = 2; k >= 0; --k) {
    double v[3] = {0, 0, 0};
    v[k] = 1;
    for (int i = k + 1; i < 3; ++i) v[i] = h[i * 3 + k];
    double next[3][3];
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        double hv = 0;
        for (int m = 0; m < 3; ++m) hv += ((i == m ? 1.0 : 0.0) - tau[k] * v[i] * v[m]) * q[m][j];
        next[i][j] = hv;
      }
    }
    std::copy(&next[0][0], &next[0][0] + 9, &q[0][0]);
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      double qr = 0;
      for (int m = 0; m <= j; ++m) qr += q[i][m] * h[m * 3 + j];
      EXPECT_NEAR(qr, a[i * 3 + j], 1e-4) << i << "," << j;
    }
  }
}

TEST(Fft, RealForwardAndInverse) {
  const std::vector<float> x = {1, 2, 0, -1, 3, 0.5f};  // [6]
  auto out = run({f32({6}, x)}, [](Function& f, const Args& p) -> Args {
    Value spec = f.fft(p[0], FftType::kRfft, {6});
    return {f.unary(UnaryOp::kReal, spec), f.unary(UnaryOp::kImag, spec),
            f.fft(spec, FftType::kIrfft, {6})};
  });
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{4}));
  const auto re = out[0].values<float>(), im = out[1].values<float>();
  for (int k = 0; k < 4; ++k) {
    std::complex<double> want = 0;
    for (int n = 0; n < 6; ++n) want += std::polar(1.0, -2 * M_PI * k * n / 6) * double(x[n]);
    EXPECT_NEAR(re[k], want.real(), 1e-4) << k;
    EXPECT_NEAR(im[k], want.imag(), 1e-4) << k;
  }
  const auto back = out[2].values<float>();
  for (int n = 0; n < 6; ++n) EXPECT_NEAR(back[n], x[n], 1e-5);
}

TEST(LinalgFftErrors, ShapesAndTypesAreChecked) {
  auto build = [](const std::vector<TensorType>& params, const Body& body) {
    return mainText(params, body);
  };
  const TensorType sq(ElementType::kF32, {3, 3}), rect(ElementType::kF32, {3, 2});
  EXPECT_THROW(
      build({rect}, [](Function& f, const Args& p) -> Args { return {f.cholesky(p[0], true)}; }),
      std::invalid_argument);
  EXPECT_THROW(build({sq, TensorType(ElementType::kF32, {2, 3})},
                     [](Function& f, const Args& p) -> Args {
                       return {f.triangularSolve(p[0], p[1], true, true, false)};
                     }),
               std::invalid_argument);
  EXPECT_THROW(build({sq},
                     [](Function& f, const Args& p) -> Args {
                       return {f.fft(p[0], FftType::kFft, {3})};  // FFT needs complex input
                     }),
               std::invalid_argument);
  EXPECT_THROW(build({sq},
                     [](Function& f, const Args& p) -> Args {
                       return f.customCall("bad\"name", {p[0]}, {p[0].t()});
                     }),
               std::invalid_argument);
}

}  // namespace
}  // namespace torchtpu::hlo::test
