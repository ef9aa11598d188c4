// Normalization facts (batch norm and its epsilon) from resolved Python uses: calls, partials,
// base-class __init__, `m.eps = ...` on known instances, mmcv config dicts
// (`dict(type='BN', eps=...)`), and calls of project callables that pass eps on.
#pragma once

#include "python/resolver.h"

#include <unordered_map>
#include <vector>

namespace cudnnlint::python {

class NormalizationExtractor : public Extractor {
 public:
  bool handles(const ApiEntry& api) const override { return api.family == kNormalizationFamily; }
  void on_use(const ApiUse& use, Resolver& r) override;
  void on_instance_write(const ApiEntry& api, const std::string& qualified, const std::string& spelled,
                         TSNode assignment, TSNode value, Resolver& r) override;
  void on_other_call(TSNode call, Resolver& r) override;
  void on_dictionary(TSNode dictionary, Resolver& r) override;
  void finish(Resolver& r) override;

 private:
  NormalizationFact& emit(const ApiUse& use, Resolver& r);
  void set_eps(NormalizationFact& fact, const ApiUse& use, const ArgBinding& binding, Resolver& r);
  void mmcv_config(TSNode site, std::string_view type, TSNode eps_value,
                   const std::vector<std::pair<std::string, TSNode>>& others, Resolver& r);
  std::unordered_map<uint32_t, std::size_t> partial_facts_;  // partial call start byte -> fact index
  std::vector<std::pair<uint32_t, ProvenanceStep>> pending_uses_;
};

}  // namespace cudnnlint::python
