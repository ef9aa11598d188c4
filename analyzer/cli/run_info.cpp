// The subcommands that only print what the binary knows: explain, rules, doctor.
#include "cli/output.h"
#include "cli/subcommands.h"

#include "kb/kb.h"
#include "rules/rule.h"

#include <iostream>

namespace cudnnlint::cli {

int run_explain(const CommandLine& line) {
  const auto lang = lang_or_complain(line.explain_lang);
  if (!lang) return kExitError;
  const kb::Entry* entry = kb::find(line.explain_id);
  if (entry == nullptr) {
    // Accept a rule id too: explain the KB entry the rule links to.
    if (const RuleInfo* rule = find_rule(line.explain_id)) entry = kb::find(rule->kb_id);
  }
  if (entry == nullptr) {
    std::cerr << "cudnnlint: error: no knowledge-base entry or rule named '" << line.explain_id << "'. Known entries:\n";
    for (const auto& e : kb::entries()) std::cerr << "  " << e.id << '\n';
    return kExitError;
  }
  std::cout << kb::render_markdown(*entry, *lang);
  return kExitClean;
}

int run_rules() {
  for (const RuleInfo& rule : all_rules())
    std::cout << rule.id << "\t" << level_name(rule.default_level) << "\t" << rule.kb_id << "\t" << rule.summary
              << '\n';
  return kExitClean;
}

int run_doctor(const CommandLine& line) {
  const gpu::GpuCheckOptions options = gpu_check_options(line);
  const gpu::GpuEnvironment environment = gpu::probe_environment(options.cudnn_library, options.execution);
  std::cout << "cudnnlint " << CUDNNLINT_VERSION << "\n" << gpu::describe_environment(environment);
  std::cout << "  framework     " << "runs on the CPU with the interpreters below (--python chooses one)\n"
            << gpu::describe_interpreters(gpu::find_interpreters(line.python));
  return kExitClean;
}

}  // namespace cudnnlint::cli
