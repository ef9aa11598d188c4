// The argument of a family's fact that the project step settles: a value one file cannot know
// alone (an imported constant, `cfg.MODEL.BN_EPS`, `args.bn_eps`) followed across modules, into
// config files and argparse/yacs defaults. The project step works on any fact type with a
// specialization here; a family whose rules read such a value (a loader's batch_size) adds one
// and lists its fact type in ProjectStep::settle_all (engine/project.cpp).
//
// Besides the accessors, a settleable fact has `api`, `call` (Location), `origin` (string) and
// `uses` (vector<ProvenanceStep>) members, as NormalizationFact does.
#pragma once

#include "core/facts.h"

#include <optional>
#include <string>
#include <vector>

namespace cudnnlint {

template <class Fact>
struct Settleable;

template <>
struct Settleable<NormalizationFact> {
  static std::vector<NormalizationFact>& facts(FileFacts& f) { return f.normalizations; }
  static EpsSource& source(NormalizationFact& f) { return f.eps_source; }
  static std::optional<ConstantValue>& value(NormalizationFact& f) { return f.eps; }
  static std::optional<ValueRef>& ref(NormalizationFact& f) { return f.eps_ref; }
  static const std::optional<ValueRef>& ref(const NormalizationFact& f) { return f.eps_ref; }
  static std::string& via(NormalizationFact& f) { return f.eps_via; }
  static std::optional<Location>& location(NormalizationFact& f) { return f.eps_location; }
  static const std::optional<Location>& location(const NormalizationFact& f) { return f.eps_location; }
};

}  // namespace cudnnlint
