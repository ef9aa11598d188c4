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

// A fact may hold several settleable values (a loader's batch size and its divisor): `slots` of
// them, each reached by the accessors with its index.
template <>
struct Settleable<NormalizationFact> {
  static constexpr int slots = 1;
  // A yacs default that no config file in the tree overrides is the value.
  static constexpr bool settle_from_defaults_alone = true;
  static std::vector<NormalizationFact>& facts(FileFacts& f) { return f.normalizations; }
  static EpsSource& source(NormalizationFact& f, int) { return f.eps_source; }
  static std::optional<ConstantValue>& value(NormalizationFact& f, int) { return f.eps; }
  static std::optional<ValueRef>& ref(NormalizationFact& f, int) { return f.eps_ref; }
  static std::string& via(NormalizationFact& f, int) { return f.eps_via; }
  static std::optional<Location>& location(NormalizationFact& f, int) { return f.eps_location; }
  static const std::optional<ValueRef>& ref(const NormalizationFact& f, int) { return f.eps_ref; }
  static const std::optional<Location>& location(const NormalizationFact& f, int) { return f.eps_location; }
};

template <>
struct Settleable<LoaderFact> {
  static constexpr int slots = 2;  // the batch size (or dividend), the divisor
  // A yacs batch size of 0 is often a placeholder an experiment's YAML must set (`# must be set`):
  // only a config file's value is taken.
  static constexpr bool settle_from_defaults_alone = false;
  static SettleableValue& slot(LoaderFact& f, int i) { return i == 0 ? f.batch : f.divisor; }
  static const SettleableValue& slot(const LoaderFact& f, int i) { return i == 0 ? f.batch : f.divisor; }
  static const std::optional<ValueRef>& ref(const LoaderFact& f, int i) { return slot(f, i).ref; }
  static const std::optional<Location>& location(const LoaderFact& f, int i) { return slot(f, i).location; }
  static std::vector<LoaderFact>& facts(FileFacts& f) { return f.loaders; }
  static EpsSource& source(LoaderFact& f, int i) { return slot(f, i).source; }
  static std::optional<ConstantValue>& value(LoaderFact& f, int i) { return slot(f, i).value; }
  static std::optional<ValueRef>& ref(LoaderFact& f, int i) { return slot(f, i).ref; }
  static std::string& via(LoaderFact& f, int i) { return slot(f, i).via; }
  static std::optional<Location>& location(LoaderFact& f, int i) { return slot(f, i).location; }
};

}  // namespace cudnnlint
