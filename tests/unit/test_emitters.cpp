// Emitters: the line-hash fingerprint against codeql-action's own test vectors, and the
// structure of SARIF, JSON, text and GitHub output for a known finding.
#include "emit/emitters.h"
#include "emit/json_stream.h"
#include "core/line_hash.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <stdexcept>
#include <tuple>

namespace cudnnlint {
namespace {

// The streamed array writes the bytes dump(2) writes for the whole tree, at any depth and size.
TEST(JsonStream, SameBytesAsTheWholeDocument) {
  const auto element = [](std::size_t i) {
    return nlohmann::json{{"n", i}, {"text", "line\nbreak \"quoted\" \xff"}, {"nested", {{"a", {1, 2}}, {"b", {}}}}};
  };
  for (std::size_t count : {0u, 1u, 3u}) {
    nlohmann::json items = nlohmann::json::array();
    for (std::size_t i = 0; i < count; ++i) items.push_back(element(i));
    const nlohmann::json whole = {{"a", 1}, {"findings", items}, {"z", {{"findings", "not this one"}}}};
    const nlohmann::json deep = {{"runs", {{{"results", items}, {"tool", "x"}}}}, {"version", "2.1.0"}};
    nlohmann::json marked_whole = whole;
    marked_whole["findings"] = kStreamedArrayMarker;
    nlohmann::json marked_deep = deep;
    marked_deep["runs"][0]["results"] = kStreamedArrayMarker;
    for (const auto& [expected, marked, key, depth] :
         {std::tuple{whole, marked_whole, "findings", 1}, std::tuple{deep, marked_deep, "results", 3}}) {
      std::ostringstream streamed;
      write_with_streamed_array(streamed, marked, key, depth, count, element);
      EXPECT_EQ(streamed.str(), expected.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n")
          << key << " with " << count << " elements";
    }
  }
  std::ostringstream out;
  EXPECT_THROW(write_with_streamed_array(out, nlohmann::json{{"findings", 1}}, "findings", 1, 0, element),
               std::logic_error);
}

// Vectors from codeql-action src/fingerprints.test.ts, as in shared/tools/primary_location_line_hash.py.
TEST(LineHash, CodeqlActionVectors) {
  EXPECT_EQ(primary_location_line_hashes(""), (std::vector<std::string>{"c129715d7a2bc9a3:1"}));
  EXPECT_EQ(primary_location_line_hashes(" a\nb\n  \t\tc\n d"),
            (std::vector<std::string>{"271789c17abda88f:1", "54703d4cd895b18:1", "180aee12dab6264:1",
                                      "a23a3dc5e078b07b:1"}));
  const std::vector<std::string> tail = {"e9496ae3ebfced30:1", "fb7c023a8b9ccb3f:1", "ce8ba1a563dcdaca:1",
                                         "e20e36e16fcb0cc8:1", "b3edc88f2938467e:1", "c8e28b0b4002a3a0:1",
                                         "c129715d7a2bc9a3:1"};
  for (const char* text : {" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n",
                           " hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r",
                           " hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n",
                           " hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n"})
    EXPECT_EQ(primary_location_line_hashes(text), tail) << text;
  std::string lorem;
  for (int i = 0; i < 10; ++i) lorem += "Lorem ipsum dolor sit amet.\n";
  std::vector<std::string> expected;
  for (int i = 1; i <= 6; ++i) expected.push_back("a7f2ff13bc495cf2:" + std::to_string(i));
  for (const char* h : {"a7f2ff1481e87703:1", "a9cf91f7bbf1862b:1", "55ec222b86bcae53:1", "cc97dc7b1d7d8f7b:1",
                        "c129715d7a2bc9a3:1"})
    expected.push_back(h);
  EXPECT_EQ(primary_location_line_hashes(lorem), expected);
}

struct Sample {
  AnalysisResult result;
  Target target;
  Sample() {
    Finding f;
    f.rule_id = "bn-eps-negative";
    f.kb_id = "cuda/cudnn-bn-epsilon-negative";
    f.level = Level::Error;
    f.location = Location{"src/a b.py", {{4, 10, 11, 60}, {4, 15, 16, 65}}};
    f.message = "negative, with \"quotes\", commas: and\nnewline %";
    f.related.push_back({Location{"src/a b.py", {{1, 1, 1, 0}, {1, 8, 8, 7}}}, "EPS is defined here"});
    f.target_note = "every cuDNN version";
    f.line_hash = "abc:1";
    f.source_line = "   bn = x(eps=EPS)";
    result.findings.push_back(f);
    result.files_discovered = 1;
    result.diagnostics.push_back({FileDiagnostic::Severity::Error, "src/bad.py", std::nullopt, "binary file"});
    target.cudnn = Version{7, 4, 0};
  }
};

TEST(Sarif, StructureGitHubNeeds) {
  Sample s;
  std::ostringstream out;
  write_sarif(out, Report{s.result, s.target, std::filesystem::current_path(), ""});
  const auto log = nlohmann::json::parse(out.str());
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_TRUE(log.contains("$schema"));
  const auto& run = log["runs"][0];
  EXPECT_EQ(run["columnKind"], "utf16CodeUnits");
  EXPECT_EQ(run["tool"]["driver"]["name"], "cudnnlint");
  ASSERT_EQ(run["tool"]["driver"]["rules"].size(), 19u);  // every rule of rules/rules.def
  const auto& rule = run["tool"]["driver"]["rules"][0];
  EXPECT_EQ(rule["id"], "bn-eps-negative");
  EXPECT_FALSE(rule["help"]["markdown"].get<std::string>().empty());
  EXPECT_FALSE(rule["fullDescription"]["text"].get<std::string>().empty());
  const auto& result = run["results"][0];
  EXPECT_EQ(result["ruleIndex"], 0);
  EXPECT_EQ(result["level"], "error");
  const auto& loc = result["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "src/a%20b.py");
  EXPECT_EQ(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
  EXPECT_EQ(loc["region"]["startLine"], 4);
  EXPECT_EQ(loc["region"]["startColumn"], 11);  // UTF-16 units, not code points
  EXPECT_EQ(loc["region"]["endColumn"], 16);
  EXPECT_EQ(result["partialFingerprints"]["primaryLocationLineHash"], "abc:1");
  EXPECT_EQ(result["relatedLocations"][0]["message"]["text"], "EPS is defined here");
  EXPECT_EQ(run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"], "binary file");
  EXPECT_TRUE(run["originalUriBaseIds"]["%SRCROOT%"]["uri"].get<std::string>().ends_with("/"));
}

TEST(Json, FindingFields) {
  Sample s;
  std::ostringstream out;
  write_json(out, Report{s.result, s.target, ".", ""});
  const auto doc = nlohmann::json::parse(out.str());
  const auto& f = doc["findings"][0];
  EXPECT_EQ(f["rule"], "bn-eps-negative");
  EXPECT_EQ(f["path"], "src/a b.py");
  EXPECT_EQ(f["line"], 4);
  EXPECT_EQ(f["column"], 10);
  EXPECT_EQ(doc["target"]["cudnn"], "7.4");
  EXPECT_EQ(doc["diagnostics"][0]["message"], "binary file");
}

TEST(Text, CompilerStyleLineExcerptAndNotes) {
  Sample s;
  std::ostringstream out;
  write_text(out, Report{s.result, s.target, ".", ""}, /*color=*/false);
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("src/a b.py:4:10: error: negative", 0), 0u) << text;
  EXPECT_NE(text.find("[bn-eps-negative] (cuda/cudnn-bn-epsilon-negative)\n"), std::string::npos);
  EXPECT_NE(text.find(" 4 |    bn = x(eps=EPS)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("   |          ^^^^^\n"), std::string::npos) << text;
  EXPECT_NE(text.find("note: EPS is defined here (src/a b.py:1:1)"), std::string::npos);
  EXPECT_NE(text.find("1 finding (1 error, 0 warnings, 0 notes) in 1 file."), std::string::npos);
  EXPECT_EQ(text.find("\033["), std::string::npos);  // no colour unless asked
  std::ostringstream coloured;
  write_text(coloured, Report{s.result, s.target, ".", ""}, /*color=*/true);
  EXPECT_NE(coloured.str().find("\033["), std::string::npos);
}

TEST(GitHub, WorkflowCommandEscaping) {
  Sample s;
  std::ostringstream out;
  write_github(out, Report{s.result, s.target, ".", ""});
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("::error file=src/a b.py,line=4,col=10,endLine=4,endColumn=15,title=cudnnlint bn-eps-negative::", 0),
            0u)
      << text;
  EXPECT_NE(text.find("commas: and%0Anewline %25"), std::string::npos) << text;
}

}  // namespace
}  // namespace cudnnlint
