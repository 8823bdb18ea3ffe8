// Python binding of compiled collectives (exec/collective.h): tensors on
// several tpu devices of this process in, one replicated program, new tensors
// out (torchtpu.distributed.comm and the in-process process group use it).
#include <ATen/core/Tensor.h>
#include <c10/core/DeviceGuard.h>
#include <torch/csrc/utils/pybind.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "aten/bridge.h"
#include "aten/dtype.h"
#include "aten/storage.h"
#include "exec/collective.h"
#include "python/bindings.h"

namespace py = pybind11;

namespace torchtpu::python {
namespace {

using Tensors = std::vector<at::Tensor>;

exec::CollectiveKind kindOf(const std::string& name) {
  if (name == "all_reduce") return exec::CollectiveKind::kAllReduce;
  if (name == "broadcast") return exec::CollectiveKind::kBroadcast;
  if (name == "all_gather") return exec::CollectiveKind::kAllGather;
  if (name == "reduce_scatter") return exec::CollectiveKind::kReduceScatter;
  if (name == "all_to_all") return exec::CollectiveKind::kAllToAll;
  throw py::value_error("unknown collective '" + name + "'");
}

exec::ReduceKind reduceOf(const std::string& name) {
  if (name == "sum") return exec::ReduceKind::kSum;
  if (name == "avg") return exec::ReduceKind::kAvg;
  if (name == "product") return exec::ReduceKind::kProduct;
  if (name == "min") return exec::ReduceKind::kMin;
  if (name == "max") return exec::ReduceKind::kMax;
  throw py::value_error("unknown reduce op '" + name + "'");
}

// A contiguous tpu tensor over a new storage holding `array`.
at::Tensor tensorOf(const exec::ArrayPtr& array) {
  c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, array->device()));
  const hlo::TensorType type = array->type();
  const c10::ScalarType dtype = aten::toScalarType(type.dtype);
  c10::Storage storage(c10::Storage::use_byte_size_t(), array->bytes(), aten::tpuAllocator(),
                       /*resizable=*/true);
  aten::deviceStorage(storage).setArray(array);
  at::Tensor t = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      caffe2::TypeMeta::fromScalarType(dtype));
  t.unsafeGetTensorImpl()->set_sizes_contiguous(type.dims);
  return t;
}

std::vector<Tensors> runCollective(const std::string& kind, const std::vector<Tensors>& perDevice,
                                   const std::string& reduce, int64_t dim, int64_t root) {
  exec::Collective c;
  c.kind = kindOf(kind);
  c.reduce = reduceOf(reduce);
  c.dim = dim;
  c.root = root;
  std::vector<std::vector<exec::ArrayPtr>> arrays(perDevice.size());
  for (size_t d = 0; d < perDevice.size(); ++d) {
    for (const at::Tensor& t : perDevice[d]) {
      if (!t.defined() || t.device().type() != c10::DeviceType::PrivateUse1) {
        throw py::type_error(kind + ": every tensor must be on a tpu device");
      }
      aten::requireElementType(t.scalar_type());
      arrays[d].push_back(aten::denseArray(t));
    }
  }
  std::vector<std::vector<exec::ArrayPtr>> results;
  {
    py::gil_scoped_release release;
    try {
      results = exec::runCollective(c, arrays);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(std::string("torchtpu.distributed: ") + e.what());
    } catch (const std::exception& e) {
      aten::rethrowRuntimeError(e, "compiled " + kind);
    }
  }
  std::vector<Tensors> out(results.size());
  for (size_t d = 0; d < results.size(); ++d) {
    for (const exec::ArrayPtr& a : results[d]) out[d].push_back(tensorOf(a));
  }
  return out;
}

// Makes `dst` hold `src`'s values by pointing dst's storage at src's device
// array, without a copy, when dst is exactly its whole storage (contiguous,
// offset 0, the same byte size) and src is a whole materialized array of the
// same dtype and element count. Returns false (nothing done) otherwise.
bool adopt(at::Tensor& dst, const at::Tensor& src) {
  if (dst.device().type() != c10::DeviceType::PrivateUse1 || src.device() != dst.device() ||
      src.scalar_type() != dst.scalar_type() || src.numel() != dst.numel() ||
      !dst.is_contiguous() || dst.storage_offset() != 0 ||
      dst.storage().nbytes() != static_cast<size_t>(dst.numel()) * dst.element_size() ||
      dst.is_conj() || dst.is_neg()) {
    return false;
  }
  exec::DeviceStorage& from = aten::deviceStorage(src);
  if (!from.materialized()) return false;
  exec::ArrayPtr array = from.array();
  if (!aten::viewOf(src).isWholeArray(array->type())) return false;
  aten::deviceStorage(dst).setArray(array);
  dst.unsafeGetTensorImpl()->bump_version();
  return true;
}

}  // namespace

void bindCollectives(py::module_& m) {
  m.def("_adopt", &adopt, py::arg("dst"), py::arg("src"));
  m.def("_collective", &runCollective, py::arg("kind"), py::arg("tensors"),
        py::arg("reduce") = "sum", py::arg("dim") = 0, py::arg("root") = 0);
}

}  // namespace torchtpu::python
