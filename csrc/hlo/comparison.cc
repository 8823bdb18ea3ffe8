#include "hlo/comparison.h"

namespace torchtpu::hlo {

std::string_view directionName(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kEq:
      return "EQ";
    case ComparisonDirection::kNe:
      return "NE";
    case ComparisonDirection::kGe:
      return "GE";
    case ComparisonDirection::kGt:
      return "GT";
    case ComparisonDirection::kLe:
      return "LE";
    case ComparisonDirection::kLt:
      return "LT";
  }
  return "?";
}

std::string_view comparisonTypeName(ComparisonType t) {
  switch (t) {
    case ComparisonType::kFloat:
      return "FLOAT";
    case ComparisonType::kTotalOrder:
      return "TOTALORDER";
    case ComparisonType::kSigned:
      return "SIGNED";
    case ComparisonType::kUnsigned:
      return "UNSIGNED";
  }
  return "?";
}

ComparisonType defaultComparisonType(ElementType t) {
  if (runtime::isFloating(t) || runtime::isComplex(t)) return ComparisonType::kFloat;
  if (runtime::isSigned(t)) return ComparisonType::kSigned;
  return ComparisonType::kUnsigned;
}

bool comparisonTypeFits(ComparisonType type, ElementType t) {
  switch (type) {
    case ComparisonType::kFloat:
      return runtime::isFloating(t) || runtime::isComplex(t);
    case ComparisonType::kTotalOrder:
      return runtime::isFloating(t);
    case ComparisonType::kSigned:
      return runtime::isSigned(t);
    case ComparisonType::kUnsigned:
      return runtime::isUnsigned(t) || t == ElementType::kPred;
  }
  return false;
}

}  // namespace torchtpu::hlo
