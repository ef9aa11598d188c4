// What several rules of one family derive alike from one fact, kept for one run_rules call: the
// five batch-norm epsilon rules each read a fact's EpsContext, which was a tenth of a keystroke in
// the language server on a file of many batch norms when each rule built its own.
#pragma once

#include "rules/batchnorm/eps_context.h"

#include <optional>
#include <unordered_map>

namespace cudnnlint {

struct RuleMemo {
  // By fact (node-based: a reference to a value stays valid as the map grows).
  std::unordered_map<const NormalizationFact*, std::optional<batchnorm::EpsContext>> eps_contexts;
};

}  // namespace cudnnlint
