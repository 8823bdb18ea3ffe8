// A shared library that looks like a PJRT plugin from a future major version,
// used to test that such a plugin is refused with a clear message.
#include <cstddef>

namespace {

struct FakeApi {
  size_t struct_size;
  void* extension_start;
  struct {
    size_t struct_size;
    void* extension_start;
    int major_version;
    int minor_version;
  } version;
};

FakeApi fakeApi{sizeof(FakeApi), nullptr, {24, nullptr, 99, 0}};

}  // namespace

extern "C" __attribute__((visibility("default"))) const void* GetPjrtApi() { return &fakeApi; }
