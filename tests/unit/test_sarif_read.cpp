// Reading a SARIF log back (gpu-check's input): positions that are no whole number that fits are
// unknown, not undefined behaviour (the fuzzer's `"startLine": 8.2e48`).
#include "emit/sarif_read.h"

#include <gtest/gtest.h>

#include <string>

namespace cudnnlint {
namespace {

std::string log_with_region(const std::string& region) {
  return R"({"version":"2.1.0","runs":[{"tool":{"driver":{"name":"cudnnlint"}},"results":[{"ruleId":"bn-eps-zero",)"
         R"("message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":)" +
         region + "}}]}]}]}";
}

TEST(SarifRead, PositionsAreWholeNumbersThatFitOrUnknown) {
  const auto plain = parse_sarif_findings(log_with_region(R"({"startLine":3,"startColumn":7})"), "a.sarif");
  ASSERT_EQ(plain.findings.size(), 1u);
  EXPECT_EQ(plain.findings[0].location.range.begin.line, 3u);
  EXPECT_EQ(plain.findings[0].location.range.begin.column, 7u);
  for (const char* bad : {R"({"startLine":8.2e48,"startColumn":-1})", R"({"startLine":4294967296,"startColumn":1.5})",
                          R"({"startLine":"3","startColumn":null})"}) {
    const auto read = parse_sarif_findings(log_with_region(bad), "a.sarif");
    ASSERT_EQ(read.findings.size(), 1u) << bad;
    EXPECT_EQ(read.findings[0].location.range.begin.line, 0u) << bad;
    EXPECT_EQ(read.findings[0].location.range.begin.column, 0u) << bad;
  }
}

}  // namespace
}  // namespace cudnnlint
