// The IR of one op call: what an ATen op was called with, described without
// PyTorch types. Strict eager runs one OpCall as one program; the lowering of
// an OpCall is the same in every mode.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hlo/types.h"

namespace torchtpu::ir {

using runtime::ElementType;

// A tensor argument: a view (sizes, strides, offset in elements) over one of
// the call's storage arrays.
struct TensorRef {
  int array = -1;  // index into OpCall::arrays; -1 for an absent optional tensor
  ElementType dtype = ElementType::kF32;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;

  bool present() const { return array >= 0; }
  int64_t numel() const;
  // True when the view is the array itself in row-major order.
  bool isWholeArray(const hlo::TensorType& array) const;
};

// One schema argument.
struct ArgValue {
  enum class Kind {
    kNone,        // an absent optional
    kTensor,      // TensorRef
    kTensorList,  // TensorRefs (absent entries for Tensor?[])
    kScalar,      // a runtime 0-d value: `scalar` indexes OpCall::scalars
    kBool,
    kInt,
    kDouble,
    kInts,
    kDoubles,
    kString,
    kDType,
    kRng,    // a generator: `scalar` indexes a u64[2] {seed, offset} array
    kOther,  // layout, device, memory format, ...: ignored by lowerings
  };
  Kind kind = Kind::kNone;
  TensorRef tensor;
  std::vector<TensorRef> tensors;
  int scalar = -1;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  std::string s;
  ElementType dtype = ElementType::kF32;

  // A stable text of the static part (for cache keys).
  void appendKey(std::string& key) const;
};

struct OpCall {
  std::string op;                     // "aten::add.Tensor"
  std::vector<std::string> argNames;  // schema names, parallel to args
  std::vector<ArgValue> args;
  std::vector<hlo::TensorType> arrays;  // storage arrays: the program's first parameters
  // Per array: true for an uninitialized storage, which the program creates
  // as zeros instead of taking it as a parameter (no host upload).
  std::vector<bool> zeroArrays;
  std::vector<hlo::TensorType> scalars;  // runtime scalars: the following parameters
  // Result types PyTorch expects (from its meta functions), one per tensor
  // return of the schema.
  std::vector<hlo::TensorType> results;
  // For result i: where it goes. arg == -1: a new array. Else the mutable
  // argument whose view receives it (in-place and out= ops); `element` picks
  // the tensor of a mutable tensor list (-1 for a single tensor).
  static constexpr int kDiscard = -2;  // WriteTarget::arg of a result nobody wants
  struct WriteTarget {
    int arg = -1;
    int element = -1;
  };
  std::vector<WriteTarget> writeBack;
  // For result i with no write target: the order its elements are stored in,
  // from the strides PyTorch gives it (a permuted input's layout carries over
  // to elementwise results): stored dim k is result dim resultOrder[i][k].
  // Empty (or missing): row-major.
  std::vector<std::vector<int64_t>> resultOrder;

  // The type result i is stored as (its dims in resultOrder[i]).
  hlo::TensorType storedType(size_t i) const;

  // Everything that determines the compiled program except `results` (which
  // follow from it): op, static arguments, array and scalar types, views.
  std::string key() const;
  // Appends key() to `key`.
  void appendKey(std::string& key) const;

  // True only when `described` (a call just described: no writeBack yet) has
  // this call's key, found by comparing the parts the key holds instead of
  // building it. Never true for different keys; false for some equal ones
  // (kinds the key does not tell apart), which callers treat as unknown.
  bool sameDescription(const OpCall& described) const;
};

// A call with its key, as a signature keeps it: every call of that key is this
// call (results, write targets and storage orders filled in), apart from its
// arrays' contents and its runtime scalars' values. Recorded ops share it
// instead of each holding a copy.
struct KeyedCall {
  KeyedCall(OpCall c, std::string k)
      : call(std::move(c)), key(std::move(k)), keyHash(std::hash<std::string>{}(key)) {}
  OpCall call;
  std::string key;
  size_t keyHash;  // std::hash of key: a trace's structure is hashed from its ops' keys
};
using KeyedCallPtr = std::shared_ptr<const KeyedCall>;

}  // namespace torchtpu::ir
