#include "lower/core/common.h"

#include <algorithm>

namespace torchtpu::lower {

Value castTo(Function& fn, Value x, ElementType t) { return x.dtype() == t ? x : fn.convert(x, t); }

std::vector<int64_t> broadcastShapes(const std::vector<std::vector<int64_t>>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto& s : shapes) {
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t& o = out[rank - s.size() + k];
      if (s[k] == o || s[k] == 1) continue;
      if (o != 1) {
        throw LoweringError("shapes " + hlo::dimsStr(s) + " and " + hlo::dimsStr(out) +
                            " cannot be broadcast together");
      }
      o = s[k];
    }
  }
  return out;
}

Value broadcastTo(Function& fn, Value x, const std::vector<int64_t>& dims) {
  if (x.dims() == dims) return x;
  const size_t rank = dims.size();
  if (x.dims().size() > rank) {
    throw LoweringError("cannot broadcast " + hlo::dimsStr(x.dims()) + " to " + hlo::dimsStr(dims));
  }
  // Drop size-1 dimensions that expand, keep the rest aligned to the right.
  std::vector<int64_t> keptDims;
  std::vector<int64_t> mapping;
  const size_t lead = rank - x.dims().size();
  for (size_t k = 0; k < x.dims().size(); ++k) {
    const int64_t s = x.dims()[k];
    if (s == dims[lead + k]) {
      keptDims.push_back(s);
      mapping.push_back(static_cast<int64_t>(lead + k));
    } else if (s != 1) {
      throw LoweringError("cannot broadcast " + hlo::dimsStr(x.dims()) + " to " +
                          hlo::dimsStr(dims));
    }
  }
  if (keptDims.size() != x.dims().size()) x = fn.reshape(x, keptDims);
  return fn.broadcastInDim(x, dims, mapping);
}

Value fit(Function& fn, Value x, ElementType t, const std::vector<int64_t>& dims) {
  return broadcastTo(fn, castTo(fn, x, t), dims);
}

TypeCategory category(ElementType t) {
  if (t == ElementType::kPred) return TypeCategory::kBool;
  if (runtime::isComplex(t)) return TypeCategory::kComplex;
  if (runtime::isFloating(t)) return TypeCategory::kFloating;
  return TypeCategory::kInteger;
}

namespace {

int floatRank(ElementType t) {
  switch (t) {
    case ElementType::kF16:
      return 1;
    case ElementType::kBF16:
      return 1;
    case ElementType::kF32:
      return 2;
    case ElementType::kF64:
      return 3;
    default:
      return 0;
  }
}

int intBits(ElementType t) { return static_cast<int>(runtime::elementByteSize(t)) * 8; }

}  // namespace

ElementType accType(ElementType t) {
  return (t == ElementType::kF16 || t == ElementType::kBF16) ? ElementType::kF32 : t;
}

ElementType promoteTypes(ElementType a, ElementType b) {
  if (a == b) return a;
  TypeCategory ca = category(a), cb = category(b);
  if (ca != cb) {
    if (ca < cb) std::swap(a, b), std::swap(ca, cb);
    // a has the higher category.
    if (ca == TypeCategory::kComplex && cb == TypeCategory::kFloating) {
      return (b == ElementType::kF64 || a == ElementType::kC128) ? ElementType::kC128 : a;
    }
    return a;
  }
  switch (ca) {
    case TypeCategory::kBool:
      return a;
    case TypeCategory::kComplex:
      return (a == ElementType::kC128 || b == ElementType::kC128) ? ElementType::kC128
                                                                  : ElementType::kC64;
    case TypeCategory::kFloating:
      if ((a == ElementType::kF16 && b == ElementType::kBF16) ||
          (a == ElementType::kBF16 && b == ElementType::kF16)) {
        return ElementType::kF32;
      }
      return floatRank(a) >= floatRank(b) ? a : b;
    case TypeCategory::kInteger: {
      const bool ua = runtime::isUnsigned(a), ub = runtime::isUnsigned(b);
      if (ua == ub) return intBits(a) >= intBits(b) ? a : b;
      // Mixed signedness: the signed type if it is wider, else the next wider signed type.
      const ElementType s = ua ? b : a, u = ua ? a : b;
      if (intBits(s) > intBits(u)) return s;
      switch (intBits(u)) {
        case 8:
          return ElementType::kS16;
        case 16:
          return ElementType::kS32;
        default:
          return ElementType::kS64;
      }
    }
  }
  return a;
}

namespace {

// torch's combine_categories(higher, lower) for result_type.
std::optional<ElementType> combine(std::optional<ElementType> higher,
                                   std::optional<ElementType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (runtime::isComplex(*higher)) return higher;
  if (runtime::isComplex(*lower)) {
    if (runtime::isFloating(*higher)) {
      return *higher == ElementType::kF64 ? ElementType::kC128 : ElementType::kC64;
    }
    return lower;
  }
  if (runtime::isFloating(*higher)) return higher;
  if (*higher == ElementType::kPred || runtime::isFloating(*lower)) {
    return promoteTypes(*higher, *lower);
  }
  return higher;
}

}  // namespace

ElementType resultType(const std::vector<Operand>& operands) {
  // Three priority classes: dimensioned tensors, 0-d tensors, Python scalars.
  std::optional<ElementType> cls[3];
  for (const Operand& o : operands) {
    const int c = o.isScalar ? 2 : (o.value.rank() == 0 ? 1 : 0);
    ElementType t = o.value.dtype();
    if (o.isScalar) {
      // Python floats and complex numbers take the default types.
      if (category(t) == TypeCategory::kFloating) t = ElementType::kF32;
      if (category(t) == TypeCategory::kComplex) t = ElementType::kC64;
    }
    cls[c] = cls[c] ? promoteTypes(*cls[c], t) : t;
  }
  return combine(cls[0], combine(cls[1], cls[2])).value_or(ElementType::kF32);
}

Value constantLike(Function& fn, double v, ElementType t, const std::vector<int64_t>& dims) {
  if (runtime::isInteger(t) || t == ElementType::kPred) {
    return fn.constantInt(static_cast<int64_t>(v), t, dims);
  }
  return fn.constant(v, t, dims);
}

int64_t normDim(int64_t dim, int64_t rank) {
  const int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r) {
    throw LoweringError("dimension " + std::to_string(dim) + " is out of range for rank " +
                        std::to_string(rank));
  }
  return dim < 0 ? dim + r : dim;
}

std::vector<int64_t> normDims(const std::vector<int64_t>& dims, int64_t rank, bool emptyMeansAll) {
  std::vector<int64_t> out;
  if (dims.empty() && emptyMeansAll) {
    for (int64_t k = 0; k < rank; ++k) out.push_back(k);
    return out;
  }
  for (int64_t d : dims) out.push_back(normDim(d, rank));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace torchtpu::lower
