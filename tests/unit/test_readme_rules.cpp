// README's rule table (## Rules) against the registry (rules/rules.def) and the KB: every rule
// listed once, none that does not exist, each with the KB entry it links to, which exists.
#include "kb/kb.h"
#include "rules/rule.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace cudnnlint {
namespace {

struct ReadmeRow {
  std::string rule, level, kb_id;
};

std::string trimmed(const std::string& cell) {
  const auto first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
  return first == std::string::npos ? "" : cell.substr(first, last - first + 1);
}

// The text between the two backquotes of a cell (`bn-eps-zero`), or the cell when it has none.
std::string unquoted(const std::string& cell) {
  const auto begin = cell.find('`'), end = cell.rfind('`');
  if (begin != std::string::npos && end > begin) return cell.substr(begin + 1, end - begin - 1);
  return trimmed(cell);
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream row(line.substr(1));  // past the leading '|'
  for (std::string cell; std::getline(row, cell, '|');) out.push_back(cell);
  return out;
}

// The rows of the table under README's "## Rules" heading, by rule id (a repeated id fails).
std::map<std::string, ReadmeRow> readme_rule_rows() {
  std::ifstream readme(std::filesystem::path(CUDNNLINT_SOURCE_DIR) / "README.md");
  EXPECT_TRUE(readme) << "README.md not found under " << CUDNNLINT_SOURCE_DIR;
  std::map<std::string, ReadmeRow> rows;
  bool in_section = false, header_seen = false;
  for (std::string line; std::getline(readme, line);) {
    if (line.starts_with("## ")) in_section = line == "## Rules";
    if (!in_section || !line.starts_with("|")) continue;
    if (!header_seen || line.starts_with("|---")) {  // the header row, then its rule
      header_seen = true;
      continue;
    }
    const auto row = cells(line);
    if (row.size() < 4) continue;
    ReadmeRow parsed{unquoted(row[0]), trimmed(row[1]), unquoted(row[2])};
    EXPECT_TRUE(rows.emplace(parsed.rule, parsed).second) << "README lists " << parsed.rule << " twice";
  }
  return rows;
}

TEST(ReadmeRules, TheTableListsEveryRuleOnceAndNoOther) {
  const auto rows = readme_rule_rows();
  ASSERT_FALSE(rows.empty()) << "no rule table under README's ## Rules";
  for (const RuleInfo& rule : all_rules())
    EXPECT_TRUE(rows.count(std::string(rule.id))) << "README's rule table misses " << rule.id;
  for (const auto& [id, row] : rows)
    EXPECT_NE(find_rule(id), nullptr) << "README's rule table lists " << id << ", which rules/rules.def does not";
}

TEST(ReadmeRules, EachRowNamesItsRulesKbEntryAndDefaultLevel) {
  for (const auto& [id, row] : readme_rule_rows()) {
    EXPECT_NE(kb::find(row.kb_id), nullptr) << id << ": README names KB entry " << row.kb_id << ", which does not exist";
    const RuleInfo* rule = find_rule(id);
    if (rule == nullptr) continue;  // the test above says so
    EXPECT_EQ(row.kb_id, rule->kb_id) << id << ": README and rules/rules.def link different KB entries";
    // The level cell starts with the default ("warning (error where ...)").
    EXPECT_TRUE(row.level.starts_with(level_name(rule->default_level)))
        << id << ": README's level '" << row.level << "' does not start with the default, " << level_name(rule->default_level);
  }
}

}  // namespace
}  // namespace cudnnlint
