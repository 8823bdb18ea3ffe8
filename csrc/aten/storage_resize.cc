#include "aten/storage_resize.h"

#include <c10/util/Exception.h>

#include "aten/bridge.h"
#include "aten/storage.h"
#include "exec/executor.h"
#include "hlo/module.h"
#include "lower/core/views.h"

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

using runtime::ElementType;

std::string reinterpretProgram(const hlo::TensorType& old, ElementType to) {
  hlo::Module module("reinterpret");
  hlo::Function& fn = module.addFunction("main", {old}, true);
  hlo::Value x = fn.param(0);
  const bool plain = !runtime::isComplex(old.dtype) && !runtime::isComplex(to) &&
                     old.dtype != ElementType::kPred && to != ElementType::kPred;
  if (plain && runtime::elementByteSize(old.dtype) == runtime::elementByteSize(to)) {
    fn.ret({fn.bitcastConvert(x, to)});  // keeps the array's shape
  } else {
    fn.ret({lower::reinterpret(fn, x, to)});
  }
  return module.toText();
}

}  // namespace

exec::ArrayPtr reinterpretArray(const exec::ArrayPtr& array, ElementType dtype) {
  const hlo::TensorType old = array->type();
  if (old.dtype == dtype) return array;
  const size_t bytes = static_cast<size_t>(old.numElements()) * runtime::elementByteSize(old.dtype);
  const size_t width = runtime::elementByteSize(dtype);
  TORCH_CHECK(bytes % width == 0, "torchtpu: cannot view a storage of ", bytes, " bytes (",
              runtime::elementTypeName(old.dtype), ") as ", runtime::elementTypeName(dtype),
              " elements of ", width, " bytes");
  try {
    return exec::runProgram(reinterpretProgram(old, dtype), {array}, array->device(),
                            array->sharedOrigin())[0];
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    rethrowRuntimeError(
        e, std::string("viewing a storage as ") + std::string(runtime::elementTypeName(dtype)));
  }
}

exec::ArrayPtr storageArrayAs(exec::DeviceStorage& storage, ElementType dtype) {
  exec::ArrayPtr array = storage.array();
  if (array == nullptr || array->type().dtype == dtype) return array;
  exec::ArrayPtr out = reinterpretArray(array, dtype);
  storage.setArray(out);
  return out;
}

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
    std::vector<exec::ArrayPtr> out;
    try {
      out =
          exec::runProgram(resizeProgram(old, count), {array}, ds.device(), array->sharedOrigin());
    } catch (const c10::Error&) {
      throw;
    } catch (const std::exception& e) {
      rethrowRuntimeError(e, "resizing a storage to " + std::to_string(nbytes) + " bytes");
    }
    ds.resetForSize(nbytes);
    ds.setArray(out[0]);
  }
  storage.unsafeGetStorageImpl()->set_nbytes(nbytes);
}

}  // namespace torchtpu::aten
