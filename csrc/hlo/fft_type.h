// The kinds of stablehlo.fft.
#pragma once

#include <cstdint>

namespace torchtpu::hlo {

// FFT/IFFT: complex in and out. RFFT: real in, complex out with the last dim
// n/2+1. IRFFT: complex in, real out with the trailing dims fft_length.
enum class FftType : uint8_t { kFft, kIfft, kRfft, kIrfft };

// "FFT", "IFFT", "RFFT", "IRFFT".
inline const char* fftTypeName(FftType t) {
  switch (t) {
    case FftType::kFft:
      return "FFT";
    case FftType::kIfft:
      return "IFFT";
    case FftType::kRfft:
      return "RFFT";
    case FftType::kIrfft:
      return "IRFFT";
  }
  return "FFT";
}

}  // namespace torchtpu::hlo
