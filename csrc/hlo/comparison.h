// Comparison direction and comparison type of stablehlo.compare.
#pragma once

#include <string_view>

#include "runtime/element_type.h"

namespace torchtpu::hlo {

using runtime::ElementType;

enum class ComparisonDirection { kEq, kNe, kGe, kGt, kLe, kLt };

// How the operands are ordered: IEEE float order (NaN unordered), IEEE total
// order (-NaN < -Inf < ... < -0 < +0 < ... < Inf < NaN), two's complement or
// unsigned integers.
enum class ComparisonType { kFloat, kTotalOrder, kSigned, kUnsigned };

// "EQ", "NE", "GE", "GT", "LE", "LT".
std::string_view directionName(ComparisonDirection d);
// "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED".
std::string_view comparisonTypeName(ComparisonType t);

// The natural comparison type for an element type: FLOAT for floating point and
// complex, SIGNED for signed integers, UNSIGNED for unsigned integers and i1.
ComparisonType defaultComparisonType(ElementType t);

// Whether `type` is a legal comparison type for elements of type `t`.
bool comparisonTypeFits(ComparisonType type, ElementType t);

}  // namespace torchtpu::hlo
