// The rule registry: every rule's typed id, its stable string id, family, KB entry and default
// level (rows in rules/rules.def), and the entry point that turns one file's Facts into
// Findings for a target. Rules never see syntax: one rule serves Python, C++ and config files.
#pragma once

#include "core/api_table.h"
#include "core/facts.h"
#include "core/finding.h"
#include "core/target.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace cudnnlint {

enum class RuleId : std::uint16_t {
#define CUDNNLINT_RULE(name, id, family, kb, level, summary) name,
#include "rules/rules.def"
#undef CUDNNLINT_RULE
};

struct RuleInfo {
  RuleId rule;
  std::string_view id;           // stable, kebab-case: used in output, suppressions and SARIF
  std::string_view family;       // "batchnorm", "cudnn", "conv", "dtype": the folder under rules/
  std::string_view kb_id;
  Level default_level;
  std::string_view summary;      // one line for the README and SARIF
};

std::span<const RuleInfo> all_rules();
const RuleInfo& rule_info(RuleId rule);
const RuleInfo* find_rule(std::string_view id);

struct RuleMemo;  // rules/rule_memo.h

// What a rule reads: one file's facts (values already settled by the project step), the
// target and the API table the facts were extracted with.
struct RuleInput {
  const FileFacts& facts;
  const Target& target;
  const ApiTable& table;
  // What several rules derive alike from one fact, derived once per run_rules call (which sets it).
  std::shared_ptr<RuleMemo> memo = nullptr;
};

// A finding of `rule` at `where`, at the rule's default level; the caller adds the message.
Finding make_finding(RuleId rule, const Location& where);

// Runs every rule on one file's facts.
void run_rules(const RuleInput& input, std::vector<Finding>& out);

// One function per rule, defined in rules/<family>/<rule-id>.cpp.
#define CUDNNLINT_RULE(name, id, family, kb, level, summary) \
  void check_##name(const RuleInput& input, std::vector<Finding>& out);
#include "rules/rules.def"
#undef CUDNNLINT_RULE

}  // namespace cudnnlint
