// Dimension numbers of stablehlo.dot_general.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchtpu::hlo {

// Which lhs/rhs dimensions are batch dimensions (paired in order) and which are
// contracted (paired in order). The result is batch dims, then the remaining
// lhs dims, then the remaining rhs dims, each in operand order.
struct DotDims {
  std::vector<int64_t> lhsBatch;
  std::vector<int64_t> rhsBatch;
  std::vector<int64_t> lhsContracting;
  std::vector<int64_t> rhsContracting;

  // "#stablehlo.dot<lhs_batching_dimensions = [0], ..., rhs_contracting_dimensions = [1]>";
  // empty lists are left out, as the StableHLO printer does.
  std::string attr() const;
};

}  // namespace torchtpu::hlo
