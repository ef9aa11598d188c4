// The argument of a family's fact that the project step settles: a value one file cannot know
// alone (an imported constant, `cfg.MODEL.BN_EPS`, `args.bn_eps`) followed across modules, into
// config files and argparse/yacs defaults. The project step works on any fact type with a
// specialization here; a family whose rules read such a value (a loader's batch_size) adds one
// and lists its fact type in ProjectStep::settle_all (engine/project.cpp).
//
// Each value is a SettleableValue, reached by `slot(fact, i)`. Besides, a settleable fact has
// `api`, `call` (Location), `origin` (string) and `uses` (vector<ProvenanceStep>) members.
#pragma once

#include "core/facts.h"

#include <optional>
#include <string>
#include <vector>

namespace cudnnlint {

template <class Fact>
struct Settleable;

// A fact may hold several settleable values (a loader's batch size and its divisor): `slots` of
// them, each reached by the accessors with its index.
template <>
struct Settleable<NormalizationFact> {
  static constexpr int slots = 1;  // the epsilon
  // A yacs default that no config file in the tree overrides is the value.
  static constexpr bool settle_from_defaults_alone = true;
  static SettleableValue& slot(NormalizationFact& f, int) { return f.eps; }
  static const SettleableValue& slot(const NormalizationFact& f, int) { return f.eps; }
  static std::vector<NormalizationFact>& facts(FileFacts& f) { return f.normalizations; }
};

template <>
struct Settleable<LoaderFact> {
  static constexpr int slots = 2;  // the batch size (or dividend), the divisor
  // A yacs batch size of 0 is often a placeholder an experiment's YAML must set (`# must be set`):
  // only a config file's value is taken.
  static constexpr bool settle_from_defaults_alone = false;
  static SettleableValue& slot(LoaderFact& f, int i) { return i == 0 ? f.batch : f.divisor; }
  static const SettleableValue& slot(const LoaderFact& f, int i) { return i == 0 ? f.batch : f.divisor; }
  static std::vector<LoaderFact>& facts(FileFacts& f) { return f.loaders; }
};

}  // namespace cudnnlint
