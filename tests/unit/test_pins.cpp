// PEP 508 requirements as pin files spell them: the package and the version range it allows.
#include "config/pins.h"

#include <gtest/gtest.h>

namespace cudnnlint {
namespace {

struct Parsed {
  std::string package;
  VersionRange range;
};

std::optional<Parsed> parse(std::string_view text) {
  Parsed p;
  if (!config::parse_requirement(text, p.package, p.range)) return std::nullopt;
  return p;
}

TEST(Pins, ExactPinsWithLocalVersionsExtrasAndMarkers) {
  const auto p = parse("torch==2.4.1+cu121 ; platform_system == 'Linux'");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->package, "torch");
  EXPECT_TRUE(p->range.exact());
  EXPECT_EQ(p->range.lower->str(), "2.4.1");
  const auto tf = parse("TensorFlow_CPU[and-cuda]==2.15.1");
  ASSERT_TRUE(tf);
  EXPECT_EQ(tf->package, "tensorflow-cpu");
  EXPECT_EQ(config::framework_of_package(tf->package), "tensorflow");
  EXPECT_EQ(config::framework_of_package("nvidia-cudnn-cu12"), "cudnn");
  EXPECT_EQ(config::framework_of_package("numpy"), "");
}

TEST(Pins, RangesKeepTheirBounds) {
  const auto range = parse("torch>=2.1,<2.5,!=2.3.0")->range;
  EXPECT_FALSE(range.exact());
  EXPECT_TRUE(range.contains(Version{2, 1, 0}));
  EXPECT_TRUE(range.contains(Version{2, 3, 0}));  // != does not move the bounds
  EXPECT_FALSE(range.contains(Version{2, 5, 0}));
  EXPECT_EQ(range.text, ">=2.1,<2.5,!=2.3.0");
  const auto compatible = parse("keras~=2.11.0")->range;  // >=2.11.0, ==2.11.*
  EXPECT_TRUE(compatible.contains(Version{2, 11, 5}));
  EXPECT_FALSE(compatible.contains(Version{2, 12, 0}));
  const auto wildcard = parse("tensorflow==2.15.*")->range;
  EXPECT_TRUE(wildcard.contains(Version{2, 15, 1}));
  EXPECT_FALSE(wildcard.contains(Version{2, 16, 0}));
}

TEST(Pins, WhatIsNoVersionedRequirement) {
  EXPECT_FALSE(parse("torch"));
  EXPECT_FALSE(parse("torch @ https://download.pytorch.org/whl/torch-2.1.0.whl"));
  EXPECT_FALSE(parse("-r base.txt"));
  EXPECT_FALSE(parse("torch>=banana"));
}

TEST(Pins, TomlThatIsNotUtf8IsADiagnosticNotUndefinedBehaviour) {
  // Found by tests/fuzz/fuzz_config.cpp: toml++ 3.3 reached __builtin_unreachable on these bytes.
  // On "\xc6\xa7to" (U+01A7 where a key or whitespace goes) too: TOML 1.0 allows non-ASCII only in
  // strings and comments, and toml++'s whitespace test for it is broken.
  for (const std::string& input : {std::string("\xef\xbb\xbb\0\0\0<\n", 8), std::string("\xc6\xa7to\n"),
                                  std::string("x = 1\n\xc2\xa7\n"),
                                  std::string("tof=3\"2.\xc5\xbe" "AAAAAAADAAAAAAAAAAAAAAaAAeF.")})
    for (const char* name : {"pyproject.toml", "poetry.lock", "uv.lock"}) {
      const auto pins = config::parse_pin_file(name, input);
      EXPECT_TRUE(pins.pins.empty());
      ASSERT_EQ(pins.diagnostics.size(), 1u) << name;
      EXPECT_NE(pins.diagnostics[0].message.find("not valid TOML"), std::string::npos);
    }
  // Non-ASCII in strings and comments is TOML: read as before.
  const auto pins = config::parse_pin_file(
      "pyproject.toml", "# caf\xc3\xa9\n[project]\nauthors = [\"Ren\xc3\xa9\"]\ndependencies = [\"torch==2.4.1\"]\n");
  EXPECT_TRUE(pins.diagnostics.empty());
  ASSERT_EQ(pins.pins.size(), 1u);
  EXPECT_EQ(pins.pins[0].line, 4u);
}

// Issue 33: environment.yml is refused before yaml-cpp reads it when it nests deeper than any
// config (the config reader's own check): 7 MiB of `[` took 1.2 GB in yaml-cpp's scanner.
TEST(Pins, EnvironmentYmlNestedTooDeepIsADiagnostic) {
  const std::string deep = "dependencies:\n  - x: " + std::string(300, '[') + std::string(300, ']') + "\n";
  const auto pins = config::parse_pin_file("environment.yml", deep);
  EXPECT_TRUE(pins.pins.empty());
  ASSERT_EQ(pins.diagnostics.size(), 1u);
  EXPECT_NE(pins.diagnostics[0].message.find("nested more than 256 levels"), std::string::npos)
      << pins.diagnostics[0].message;
  // Shallow nesting reads as before.
  const auto shallow = config::parse_pin_file("environment.yml", "dependencies:\n  - pytorch=2.1\n  - x: [[1]]\n");
  EXPECT_TRUE(shallow.diagnostics.empty());
  ASSERT_EQ(shallow.pins.size(), 1u);
  EXPECT_EQ(shallow.pins[0].framework, "torch");
}

}  // namespace
}  // namespace cudnnlint
