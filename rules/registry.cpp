#include "rules/rule.h"
#include "rules/rule_memo.h"

#include <array>

namespace cudnnlint {

namespace {

constexpr RuleInfo kRules[] = {
#define CUDNNLINT_RULE(name, id, family, kb, level, summary) \
  RuleInfo{RuleId::name, id, #family, kb, Level::level, summary},
#include "rules/rules.def"
#undef CUDNNLINT_RULE
};

using Check = void (*)(const RuleInput&, std::vector<Finding>&);
constexpr Check kChecks[] = {
#define CUDNNLINT_RULE(name, id, family, kb, level, summary) &check_##name,
#include "rules/rules.def"
#undef CUDNNLINT_RULE
};

static_assert(std::size(kRules) == std::size(kChecks));

}  // namespace

std::span<const RuleInfo> all_rules() { return kRules; }

const RuleInfo& rule_info(RuleId rule) { return kRules[static_cast<std::size_t>(rule)]; }

const RuleInfo* find_rule(std::string_view id) {
  for (const auto& rule : kRules)
    if (rule.id == id) return &rule;
  return nullptr;
}

Finding make_finding(RuleId rule, const Location& where) {
  const RuleInfo& info = rule_info(rule);
  Finding finding;
  finding.rule_id = std::string(info.id);
  finding.kb_id = std::string(info.kb_id);
  finding.level = info.default_level;
  finding.location = where;
  return finding;
}

void run_rules(const RuleInput& input, std::vector<Finding>& out) {
  const RuleInput with_memo{input.facts, input.target, input.table, std::make_shared<RuleMemo>()};
  for (const Check check : kChecks) check(with_memo, out);
}

}  // namespace cudnnlint
