// Collective ops of Function: all_reduce, all_gather, reduce_scatter,
// all_to_all, collective_permute and replica_id.
#include <set>
#include <stdexcept>
#include <string>

#include "hlo/function.h"

namespace torchtpu::hlo {
namespace {

// The group size, after checking that the groups partition replicas 0..n-1
// into equal, non-empty groups.
int64_t checkGroups(const std::string& op, const ReplicaGroups& groups) {
  if (groups.empty() || groups[0].empty()) {
    throw std::invalid_argument(op + ": replica_groups must not be empty");
  }
  const size_t size = groups[0].size();
  std::set<int64_t> seen;
  for (const auto& g : groups) {
    if (g.size() != size) {
      throw std::invalid_argument(op + ": replica groups must all have the same size");
    }
    for (int64_t r : g) {
      if (r < 0 || !seen.insert(r).second) {
        throw std::invalid_argument(op + ": replica id " + std::to_string(r) +
                                    " is negative or appears twice");
      }
    }
  }
  if (*seen.rbegin() != static_cast<int64_t>(seen.size()) - 1) {
    throw std::invalid_argument(op + ": replica groups must cover replicas 0.." +
                                std::to_string(seen.size() - 1) + " exactly");
  }
  return static_cast<int64_t>(size);
}

// "dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>".
std::string groupsAttr(const ReplicaGroups& groups) {
  std::string s = "replica_groups = dense<[";
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i) s += ", ";
    s += "[";
    for (size_t j = 0; j < groups[i].size(); ++j) {
      if (j) s += ", ";
      s += std::to_string(groups[i][j]);
    }
    s += "]";
  }
  s += "]> : tensor<" + std::to_string(groups.size()) + "x" + std::to_string(groups[0].size()) +
       "xi64>";
  return s;
}

int64_t checkDim(const std::string& op, const Value& x, int64_t dim) {
  const int64_t rank = x.rank();
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) {
    throw std::invalid_argument(op + ": dimension out of range for a rank-" + std::to_string(rank) +
                                " operand");
  }
  return dim;
}

}  // namespace

std::string Function::combinerRegion(const std::string& op, ElementType t, BinaryOp combiner) {
  const TensorType scalar(t);
  return region(
      op, {scalar, scalar},
      [combiner](Function& r, const std::vector<Value>& a) -> std::vector<Value> {
        return {r.binary(combiner, a[0], a[1])};
      },
      true, std::vector<TensorType>{scalar}, nullptr);
}

Value Function::allReduce(Value x, const ReplicaGroups& groups, BinaryOp combiner) {
  const std::string name = "stablehlo.all_reduce";
  checkGroups(name, groups);
  const std::string body = combinerRegion(name, x.dtype(), combiner);
  return emit(name, {x}, groupsAttr(groups), {x.type}, {body})[0];
}

Value Function::allGather(Value x, int64_t dim, const ReplicaGroups& groups) {
  const std::string name = "stablehlo.all_gather";
  const int64_t size = checkGroups(name, groups);
  dim = checkDim(name, x, dim);
  std::vector<int64_t> dims = x.dims();
  dims[dim] *= size;
  const std::string attrs =
      "all_gather_dim = " + std::to_string(dim) + " : i64, " + groupsAttr(groups);
  return emit(name, {x}, attrs, {TensorType(x.dtype(), dims)})[0];
}

Value Function::reduceScatter(Value x, int64_t dim, const ReplicaGroups& groups,
                              BinaryOp combiner) {
  const std::string name = "stablehlo.reduce_scatter";
  const int64_t size = checkGroups(name, groups);
  dim = checkDim(name, x, dim);
  std::vector<int64_t> dims = x.dims();
  if (dims[dim] % size != 0) {
    throw std::invalid_argument(name + ": dimension " + std::to_string(dim) + " of size " +
                                std::to_string(dims[dim]) + " does not divide by the group size " +
                                std::to_string(size));
  }
  dims[dim] /= size;
  const std::string body = combinerRegion(name, x.dtype(), combiner);
  const std::string attrs =
      "scatter_dimension = " + std::to_string(dim) + " : i64, " + groupsAttr(groups);
  return emit(name, {x}, attrs, {TensorType(x.dtype(), dims)}, {body})[0];
}

Value Function::allToAll(Value x, int64_t splitDim, int64_t concatDim,
                         const ReplicaGroups& groups) {
  const std::string name = "stablehlo.all_to_all";
  const int64_t size = checkGroups(name, groups);
  splitDim = checkDim(name, x, splitDim);
  concatDim = checkDim(name, x, concatDim);
  std::vector<int64_t> dims = x.dims();
  if (dims[splitDim] % size != 0) {
    throw std::invalid_argument(name + ": split dimension of size " +
                                std::to_string(dims[splitDim]) +
                                " does not divide by the group size " + std::to_string(size));
  }
  dims[splitDim] /= size;
  dims[concatDim] *= size;
  const std::string attrs = "split_dimension = " + std::to_string(splitDim) +
                            " : i64, concat_dimension = " + std::to_string(concatDim) +
                            " : i64, split_count = " + std::to_string(size) + " : i64, " +
                            groupsAttr(groups);
  return emit(name, {x}, attrs, {TensorType(x.dtype(), dims)})[0];
}

Value Function::collectivePermute(Value x, const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  const std::string name = "stablehlo.collective_permute";
  if (pairs.empty()) throw std::invalid_argument(name + ": no source-target pairs");
  std::set<int64_t> sources;
  std::set<int64_t> targets;
  std::string list;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto& [source, target] = pairs[i];
    if (source < 0 || target < 0 || !sources.insert(source).second ||
        !targets.insert(target).second) {
      throw std::invalid_argument(name + ": each replica may send once and receive once");
    }
    if (i) list += ", ";
    list += "[" + std::to_string(source) + ", " + std::to_string(target) + "]";
  }
  const std::string attrs = "source_target_pairs = dense<[" + list + "]> : tensor<" +
                            std::to_string(pairs.size()) + "x2xi64>";
  return emit(name, {x}, attrs, {x.type})[0];
}

Value Function::replicaId() {
  return emit("stablehlo.replica_id", {}, "", {TensorType(ElementType::kU32)})[0];
}

}  // namespace torchtpu::hlo
