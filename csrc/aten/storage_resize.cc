#include "aten/storage_resize.h"

#include <c10/util/Exception.h>

#include "aten/storage.h"
#include "exec/executor.h"
#include "hlo/module.h"

namespace torchtpu::aten {
namespace {

// A program taking the old array and returning it flattened, cut or
// zero-padded to `newCount` elements.
std::string resizeProgram(const hlo::TensorType& old, int64_t newCount) {
  hlo::Module module("resize");
  hlo::Function& fn = module.addFunction("main", {old}, true);
  const int64_t oldCount = old.numElements();
  hlo::Value flat = fn.reshape(fn.param(0), {oldCount});
  hlo::Value out;
  if (newCount <= oldCount) {
    out = fn.slice(flat, {0}, {newCount}, {1});
  } else {
    hlo::Value zero = old.dtype == runtime::ElementType::kPred || runtime::isInteger(old.dtype)
                          ? fn.constantInt(0, old.dtype)
                          : fn.constant(0, old.dtype);
    out = fn.pad(flat, zero, {0}, {newCount - oldCount}, {0});
  }
  fn.ret({out});
  return module.toText();
}

}  // namespace

void resizeStorageBytes(const c10::Storage& storage, size_t nbytes) {
  exec::DeviceStorage& ds = deviceStorage(storage);
  if (nbytes == ds.nbytes()) return;
  exec::ArrayPtr array = ds.array();
  if (array == nullptr || nbytes == 0) {
    ds.resetForSize(nbytes);
  } else {
    const hlo::TensorType old = array->type();
    const size_t item = runtime::elementByteSize(old.dtype);
    TORCH_CHECK(nbytes % item == 0, "torchtpu: cannot resize a storage of ",
                runtime::elementTypeName(old.dtype), " elements to ", nbytes, " bytes");
    const int64_t count = static_cast<int64_t>(nbytes / item);
    auto out = exec::runProgram(resizeProgram(old, count), {array}, ds.device());
    ds.resetForSize(nbytes);
    ds.setArray(out[0]);
  }
  storage.unsafeGetStorageImpl()->set_nbytes(nbytes);
}

}  // namespace torchtpu::aten
