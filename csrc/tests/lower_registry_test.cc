// The lowering registry: every registered op has a lowering and a source,
// "lower/<family>/<file>.cc:<line>" relative to csrc/, that names the file
// holding its registration.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "lower/core/lowering.h"

namespace torchtpu::lower {
namespace {

TEST(LowerRegistry, EveryOpHasItsSource) {
  const std::map<std::string, std::string> sources = loweringSources();
  ASSERT_EQ(sources.size(), registeredOps().size());
  for (const auto& [op, source] : sources) {
    EXPECT_NE(findLowering(op), nullptr) << op;
    EXPECT_EQ(source.rfind("lower/", 0), 0u) << op << " at " << source;
    const size_t colon = source.rfind(':');
    ASSERT_NE(colon, std::string::npos) << source;
    EXPECT_EQ(source.substr(colon - 3, 3), ".cc") << source;
    EXPECT_GT(std::stoi(source.substr(colon + 1)), 0) << source;
  }
}

TEST(LowerRegistry, SourcesNameTheFamilyFile) {
  const std::map<std::string, std::string> sources = loweringSources();
  auto fileOf = [&](const std::string& op) {
    auto it = sources.find(op);
    if (it == sources.end()) return std::string("(not registered)");
    return it->second.substr(0, it->second.rfind(':'));
  };
  EXPECT_EQ(fileOf("aten::add.Tensor"), "lower/elementwise/binary.cc");
  EXPECT_EQ(fileOf("aten::upsample_nearest2d"), "lower/nn/upsample_nearest.cc");
  EXPECT_EQ(fileOf("aten::i0"), "lower/special/bessel.cc");
  EXPECT_EQ(fileOf("aten::_foreach_add_.List"), "lower/foreach/foreach.cc");
  EXPECT_EQ(fileOf("torchtpu::copy"), "lower/core/internal_ops.cc");
}

}  // namespace
}  // namespace torchtpu::lower
