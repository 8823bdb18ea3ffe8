// Lets other Python threads run while this one waits for the device.
#pragma once

namespace torchtpu::aten {

// Releases the GIL for its lifetime when the calling thread holds it (a
// Python thread reading a tensor); does nothing on threads without it
// (autograd's workers). Only for code that neither touches Python objects nor
// holds a lock that a Python thread could wait for with the GIL held.
class WithoutGil {
 public:
  WithoutGil();
  ~WithoutGil();
  WithoutGil(const WithoutGil&) = delete;
  WithoutGil& operator=(const WithoutGil&) = delete;

 private:
  void* saved_ = nullptr;  // PyThreadState*
};

}  // namespace torchtpu::aten
