// Plugin discovery and loading, on the real plugin and on broken files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/discovery.h"
#include "runtime/error.h"
#include "runtime/plugin.h"
#include "tests/test_support.h"

namespace torchtpu::runtime {
namespace {

using testing::siteDirs;

TEST(Plugin, LoadsTheCpuPluginAndReportsItsVersion) {
  auto plugin = Plugin::load(resolvePluginPath("cpu", siteDirs()));
  EXPECT_EQ(plugin->version().major, supportedApiMajorVersion());
  EXPECT_GT(plugin->version().minor, 0);
  EXPECT_TRUE(plugin->attributes().count("stablehlo_current_version"));
  EXPECT_NE(plugin->describe().find("PJRT API 0."), std::string::npos);
  // Loading again gives the same object: a plugin is initialized once.
  EXPECT_EQ(Plugin::load(plugin->path()).get(), plugin.get());
}

TEST(Plugin, MissingFileIsNotFound) {
  try {
    Plugin::load("/nonexistent/libpjrt_nothing.so");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/libpjrt_nothing.so"), std::string::npos);
  }
}

TEST(Plugin, TextFileIsNotAPlugin) {
  auto path = std::filesystem::temp_directory_path() / "torchtpu_not_a_library.so";
  std::ofstream(path) << "this is not a shared library\n";
  try {
    Plugin::load(path.string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("cannot load"), std::string::npos);
  }
  std::filesystem::remove(path);
}

TEST(Plugin, LibraryWithoutGetPjrtApiIsRefused) {
  try {
    Plugin::load(testing::builtLibrary("TORCHTPU_NOT_A_PLUGIN"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("does not export GetPjrtApi"), std::string::npos);
  }
}

TEST(Plugin, IncompatibleMajorVersionIsRefused) {
  try {
    Plugin::load(testing::builtLibrary("TORCHTPU_FAKE_PLUGIN"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFailedPrecondition);
    EXPECT_NE(std::string(e.what()).find("version 99.0"), std::string::npos) << e.what();
  }
}

TEST(Discovery, ShortNamesAndPaths) {
  const std::string cpu = resolvePluginPath("cpu", siteDirs());
  EXPECT_TRUE(std::filesystem::exists(cpu));
  EXPECT_EQ(resolvePluginPath(cpu, siteDirs()), cpu);
  try {
    resolvePluginPath("/no/such/plugin.so", siteDirs());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
  // No search directory holds a plugin: the message says what to install.
  try {
    resolvePluginPath("cpu", {"/nonexistent"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pip install"), std::string::npos);
  }
}

TEST(Discovery, EnvironmentOverridesTheAutomaticChoice) {
  const char* old = std::getenv(kPluginEnvVar);
  const std::string saved = old ? old : "";
  const std::string cpu = resolvePluginPath("cpu", siteDirs());
  setenv(kPluginEnvVar, cpu.c_str(), 1);
  EXPECT_EQ(resolvePluginPath("", siteDirs()), cpu);
  setenv(kPluginEnvVar, "/elsewhere/plugin.so", 1);
  EXPECT_THROW(resolvePluginPath("auto", siteDirs()), Error);
  // An explicit spec wins over the environment.
  EXPECT_EQ(resolvePluginPath("cpu", siteDirs()), cpu);
  if (old) {
    setenv(kPluginEnvVar, saved.c_str(), 1);
  } else {
    unsetenv(kPluginEnvVar);
  }
  // This machine has no TPU or GPU.
  EXPECT_EQ(autoPluginName(siteDirs()), "cpu");
}

}  // namespace
}  // namespace torchtpu::runtime
