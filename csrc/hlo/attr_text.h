// Spelling of the attribute values shared by many ops (integer arrays,
// padding, booleans) in StableHLO's MLIR syntax.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace torchtpu::hlo {

// A (low, high) pair of padding for one dimension.
using PadPair = std::pair<int64_t, int64_t>;

// DenseI64ArrayAttr: "array<i64: 1, 2>", "array<i64>" when empty.
std::string i64ArrayAttr(const std::vector<int64_t>& v);

// Bracketed list used inside #stablehlo.dot/gather/scatter: "[1, 2]".
std::string bracketList(const std::vector<int64_t>& v);

// Padding as a dense 2-D i64 attribute: "dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>".
std::string paddingAttr(const std::vector<PadPair>& padding);

// "true" / "false".
inline const char* boolAttr(bool b) { return b ? "true" : "false"; }

}  // namespace torchtpu::hlo
