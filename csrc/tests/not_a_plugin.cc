// A shared library with no GetPjrtApi, used to test that loading it as a
// plugin is refused with a clear message.
extern "C" __attribute__((visibility("default"))) int torchtpuNotAPlugin() { return 42; }
