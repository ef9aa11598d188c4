// The rule registry: every rule's stable id, its KB entry and default level, and the entry
// point that turns one file's Facts into Findings for a target. Rules never see syntax.
#pragma once

#include "core/facts.h"
#include "core/finding.h"
#include "core/target.h"

#include <span>
#include <string_view>
#include <vector>

namespace cudnnlint {

struct RuleInfo {
  std::string_view id;           // stable, kebab-case: used in output, suppressions and SARIF
  std::string_view kb_id;
  Level default_level;
  std::string_view summary;      // one line for the README and SARIF
};

std::span<const RuleInfo> all_rules();
const RuleInfo* find_rule(std::string_view id);

// A finding of `rule` at `where`, at the rule's default level; the caller adds the message.
Finding make_finding(const RuleInfo& rule, const Location& where);

// Runs every rule on one file's facts.
void run_rules(const FileFacts& facts, const Target& target, std::vector<Finding>& out);

// Individual rules (one per file under rules/).
void check_bn_epsilon(const FileFacts& facts, const Target& target, std::vector<Finding>& out);
void check_cudnn_descriptors(const FileFacts& facts, const Target& target, std::vector<Finding>& out);
void check_torch_tensor_dtype(const FileFacts& facts, const Target& target, std::vector<Finding>& out);
void check_torch_conv_dtype_mismatch(const FileFacts& facts, const Target& target, std::vector<Finding>& out);

}  // namespace cudnnlint
