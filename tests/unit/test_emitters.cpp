// Emitters: the line-hash fingerprint against codeql-action's own test vectors, and the
// structure of SARIF, JSON, text and GitHub output for a known finding.
#include "emit/emitters.h"
#include "emit/json_stream.h"
#include "emit/replay_json.h"
#include "emit/unified_diff.h"
#include "core/line_hash.h"
#include "core/printable.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
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
  ASSERT_EQ(run["tool"]["driver"]["rules"].size(), 22u);  // every rule of rules/rules.def
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

// The replay contract's enums keep the spellings SARIF and --format json have always written,
// and every spelling reads back as the enumerator it came from.
TEST(ReplayJson, OpsAndExpectationsKeepTheirSpellings) {
  const std::pair<ReplayOp, const char*> ops[] = {{ReplayOp::None, ""},
                                                  {ReplayOp::TensorDescriptor, "tensor-descriptor"},
                                                  {ReplayOp::FilterDescriptor, "filter-descriptor"},
                                                  {ReplayOp::ConvolutionDescriptor, "convolution-descriptor"},
                                                  {ReplayOp::Convolution, "convolution"},
                                                  {ReplayOp::Batchnorm, "batchnorm"}};
  for (const auto& [op, name] : ops) {
    EXPECT_EQ(replay_op_name(op), name);
    EXPECT_EQ(parse_replay_op(name), op) << name;
  }
  const std::pair<Expectation, const char*> expectations[] = {{Expectation::None, ""},
                                                              {Expectation::BadParam, "CUDNN_STATUS_BAD_PARAM"},
                                                              {Expectation::NonFiniteOutput, "non-finite output"}};
  for (const auto& [expect, name] : expectations) {
    EXPECT_EQ(expectation_name(expect), name);
    EXPECT_EQ(parse_expectation(name), expect) << name;
  }
  EXPECT_FALSE(parse_replay_op("Batchnorm"));
  EXPECT_FALSE(parse_expectation("CUDNN_STATUS_BAD_PARAM_NULL_POINTER"));

  ReplayConfig replay;
  replay.op = ReplayOp::Batchnorm;
  replay.expect = Expectation::NonFiniteOutput;
  replay.input = {2, 4, 2, 2};
  const nlohmann::json j = replay_to_json(replay);
  EXPECT_EQ(j["op"], "batchnorm");
  EXPECT_EQ(j["expect"], "non-finite output");
  const ReplayConfig back = replay_from_json(j);
  EXPECT_EQ(back.op, ReplayOp::Batchnorm);
  EXPECT_EQ(back.expect, Expectation::NonFiniteOutput);
  EXPECT_TRUE(back.unknown.empty()) << back.unknown;
  EXPECT_FALSE(replay_to_json(ReplayConfig{}).contains("op"));  // None is written as nothing
}

// A replay from another build's SARIF (or a hand edit) naming an operation or outcome this build
// does not know is not replayed, and says why.
TEST(ReplayJson, AnUnknownOpOrExpectationIsNotReplayable) {
  const ReplayConfig op = replay_from_json({{"op", "pooling"}, {"expect", "CUDNN_STATUS_BAD_PARAM"}, {"input", {1, 1}}});
  EXPECT_EQ(op.op, ReplayOp::None);
  EXPECT_NE(op.unknown.find("op \"pooling\" is not an operation gpu_check replays"), std::string::npos) << op.unknown;
  const ReplayConfig expect = replay_from_json({{"op", "convolution"}, {"expect", "a crash"}});
  EXPECT_NE(expect.unknown.find("expect \"a crash\""), std::string::npos) << expect.unknown;
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
  // ESC sequences, which the Actions log renders (\e[8m hides what follows), are shown as escapes.
  s.result.findings[0].message = "hidden \033[8mtext\a";
  std::ostringstream escaped;
  write_github(escaped, Report{s.result, s.target, ".", ""});
  EXPECT_EQ(escaped.str().find('\033'), std::string::npos) << escaped.str();
  EXPECT_NE(escaped.str().find("hidden \\x1b[8mtext\\x07"), std::string::npos) << escaped.str();
}

// Issue 33: text from the tree (file names, config keys in messages, source lines) holds no control
// character by the time it reaches a terminal or a CI log.
TEST(Printable, ControlCharactersBecomeEscapes) {
  EXPECT_EQ(printable("plain text, caf\xC3\xA9, \ttab"), "plain text, caf\xC3\xA9, \ttab");
  EXPECT_EQ(printable("a\nb\rc"), "a\\nb\\rc");
  EXPECT_EQ(printable("\033]0;PWNED\a\033[2J"), "\\x1b]0;PWNED\\x07\\x1b[2J");
  EXPECT_EQ(printable(std::string("nul\0del\x7f", 8)), "nul\\x00del\\x7f");
  EXPECT_EQ(printable("csi \xC2\x9B" "2J"), "csi \\u009b2J");  // U+009B, the C1 CSI
  EXPECT_EQ(printable("bad \xFF byte"), "bad \xEF\xBF\xBD byte");
  EXPECT_TRUE(is_printable("\xE2\x82\xAC 5 \t"));
  EXPECT_FALSE(is_printable("a\rb"));
  EXPECT_EQ(printable_columns("a\033b", 2), 5u);  // 'a' then "\x1b"
  EXPECT_EQ(printable_columns("ab", 4), 4u);
}

// Every ESC of a text report opens one of cudnnlint's own SGR colour sequences.
bool only_sgr_escapes(const std::string& text) {
  const std::string without_sgr = std::regex_replace(text, std::regex("\033\\[[0-9;]*m"), "");
  return without_sgr.find('\033') == std::string::npos;
}

bool has_line_starting_with(const std::string& text, std::string_view prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto cr = line.find('\r');  // the runner also breaks lines at a lone CR
    if (line.starts_with(prefix) || (cr != std::string::npos && line.substr(cr + 1).starts_with(prefix))) return true;
  }
  return false;
}

struct HostileSample : Sample {
  HostileSample() {
    Finding& f = result.findings.front();
    f.location.path = "a\n::warning file=name.py::FROM-A-FILE-NAME\nb.py";
    f.message = "eps from cfg[\"model\n::error file=pwn.py,line=1::INJECTED\n\"]";
    f.source_line = "\033]0;PWNED\a bn = x(eps=EPS)\033[2J";
    f.location.range = {{4, 23, 23, 0}, {4, 26, 26, 0}};  // EPS
    f.related.front().message = "set here\r::error::CR";
    result.diagnostics.front().path = "bad\n::error::DIAG.py";
  }
};

TEST(Text, ControlCharactersFromTheTreeAreEscaped) {
  HostileSample s;
  for (const bool color : {false, true}) {
    std::ostringstream out, diagnostics;
    write_text(out, Report{s.result, s.target, ".", ""}, color);
    write_diagnostics(diagnostics, s.result, color);
    const std::string text = out.str() + diagnostics.str();
    EXPECT_FALSE(has_line_starting_with(text, "::")) << text;
    EXPECT_TRUE(only_sgr_escapes(text)) << text;
    EXPECT_EQ(text.find('\r'), std::string::npos) << text;
    EXPECT_EQ(text.find('\a'), std::string::npos) << text;
    if (color) continue;
    EXPECT_NE(text.find("a\\n::warning file=name.py::FROM-A-FILE-NAME\\nb.py:4:23: error: eps from cfg[\"model\\n::error"),
              std::string::npos) << text;
    EXPECT_NE(text.find("note: set here\\r::error::CR"), std::string::npos) << text;
    EXPECT_NE(text.find("bad\\n::error::DIAG.py: error: binary file [input]"), std::string::npos) << text;
    // The caret stays under `EPS`: 22 code points before it, two of them shown as 4-column escapes.
    EXPECT_NE(text.find(" 4 | \\x1b]0;PWNED\\x07 bn = x(eps=EPS)\\x1b[2J\n"), std::string::npos) << text;
    EXPECT_NE(text.find("   | " + std::string(22 + 2 * 3, ' ') + "^^^\n"), std::string::npos) << text;
  }
}

TEST(UnifiedDiff, ControlCharactersAreEscapedAndNamesQuotedAsGitDoes) {
  // Ordinary names and CRLF lines are as they were (git apply reads them).
  EXPECT_EQ(unified_diff("m.py", "x = 1\r\n", "x = 2\r\n"), "--- a/m.py\n+++ b/m.py\n@@ -1,1 +1,1 @@\n-x = 1\r\n+x = 2\r\n");
  const std::string named = unified_diff("a\n::warning::X\tb\"\\.py", "x = 1\n", "x = 2\n");
  EXPECT_EQ(named.substr(0, named.find("@@")),
            "--- \"a/a\\n::warning::X\\tb\\\"\\\\.py\"\n+++ \"b/a\\n::warning::X\\tb\\\"\\\\.py\"\n");
  const std::string octal = unified_diff("caf\xC3\xA9\033.py", "a\n", "b\n");
  EXPECT_EQ(octal.substr(0, octal.find('\n')), "--- \"a/caf\\303\\251\\033.py\"");
  const std::string body = unified_diff("m.py", "eps = 0.0  # \033[2J\rx\n", "eps = 1e-5  # \033[2J\rx\n");
  EXPECT_NE(body.find("-eps = 0.0  # \\x1b[2J\\rx\n+eps = 1e-5  # \\x1b[2J\\rx\n"), std::string::npos) << body;
  EXPECT_EQ(body.find('\033'), std::string::npos);
}

}  // namespace
}  // namespace cudnnlint
