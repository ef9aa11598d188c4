#include "python/extract/normalization.h"

#include "python/extract/local_values.h"

namespace cudnnlint::python {

void NormalizationExtractor::set_eps(NormalizationFact& fact, const ApiUse& use, const ArgBinding& binding,
                                     Resolver& r) {
  bind_value(ValueSlot{fact.eps.source, fact.eps.value, fact.eps.ref, fact.eps.via, fact.eps.location}, use, "eps", binding,
             fact.uses, r);
  if (use.api.from_project)
    for (const auto& step : use.api.forwards) fact.uses.push_back(step);
}

NormalizationFact& NormalizationExtractor::emit(const ApiUse& use, Resolver& r) {
  const ApiEntry& api = use.api;
  NormalizationFact fact;
  fact.api = api.from_project ? api.underlying : use.qualified;
  fact.spelled_as = api.from_project ? api.underlying_spelled : use.spelled;
  fact.eps_param = api.eps().name;
  fact.call = r.locate(use.site);
  fact.origin = use.origin;
  set_eps(fact, use, bind_arg(api.eps(), use.args, use.shift), r);
  if (!api.from_project) {
    for (const auto& [name, value] : use.args.keywords) {
      if (name == api.eps().name) continue;
      fact.literal_args.emplace(std::string(name), r.literal(value));
    }
    // The table's other roles (F.batch_norm's `training`) also when passed by position.
    for (const auto& [role, arg] : api.args) {
      if (role == "eps" || fact.literal_args.contains(arg.name)) continue;
      if (const ArgBinding bound = bind_arg(arg, use.args, use.shift); bound.source == ArgBinding::Source::Explicit)
        fact.literal_args.emplace(arg.name, r.literal(bound.value));
    }
  }
  r.out().normalizations.push_back(std::move(fact));
  return r.out().normalizations.back();
}

void NormalizationExtractor::on_use(const ApiUse& use, Resolver& r) {
  if (use.origin == "functools.partial") {
    emit(use, r);
    partial_facts_[ts_node_start_byte(use.site)] = r.out().normalizations.size() - 1;
    return;
  }
  if (!ts_node_is_null(use.partial)) {
    // `BN(64, eps=1e-6)` through `BN = partial(nn.BatchNorm2d, eps=1e-3)`: a fact of its own when
    // the call sets eps; otherwise context for the partial's fact.
    const ArgBinding own = bind_arg(use.api.eps(), *use.own_args, use.own_shift);
    if (own.source == ArgBinding::Source::Explicit && !ts_node_is_null(own.value)) {
      NormalizationFact& fact = emit(use, r);
      fact.eps.location = r.locate(own.value);
      if (fact.eps.value)
        fact.eps.value->provenance.push_back(ProvenanceStep{
            r.locate(use.partial), use.spelled + " is functools.partial(" +
                                       std::string(r.text(ts_node_named_child(field(use.partial, Grammar::get().f_arguments), 0))) +
                                       ", ...) defined here"});
      return;
    }
    pending_uses_.emplace_back(ts_node_start_byte(use.partial),
                               ProvenanceStep{r.locate(use.site), use.spelled + "(...) constructs the layer here"});
    return;
  }
  emit(use, r);
}

void NormalizationExtractor::on_instance_write(const ApiEntry& api, const std::string& qualified,
                                               const std::string& spelled, TSNode assignment, TSNode value,
                                               Resolver& r) {
  const Grammar& g = Grammar::get();
  const TSNode left = field(assignment, g.f_left);
  const auto attribute = r.text(field(left, g.f_attribute));
  if (api.eps_attribute.empty() || attribute != api.eps_attribute) return;
  CallArgs args;
  args.keywords.emplace_back(api.eps().name, value);
  const ApiUse use{api, qualified, spelled, assignment, args, 0, "attribute assignment"};
  NormalizationFact& fact = emit(use, r);
  fact.eps_param = std::string(r.text(field(left, g.f_object))) + "." + std::string(attribute);
}

// mmcv / mmengine configs: `norm_cfg=dict(type='BN', eps=1e-3)` builds the registry's layer with
// the remaining keys as keyword arguments (mmcv.cnn.build_norm_layer).
void NormalizationExtractor::mmcv_config(TSNode site, std::string_view type, TSNode eps_value,
                                         const std::vector<std::pair<std::string, TSNode>>& others, Resolver& r) {
  const ApiEntry* api = r.table().config_type("mmcv", type);
  if (api == nullptr) return;
  // The registry's own name for the layer ("BN2d" builds torch.nn.BatchNorm2d), not the entry's first.
  const std::string& qualified = r.table().config_types().at("mmcv").at(std::string(type));
  CallArgs args;
  if (!ts_node_is_null(eps_value)) args.keywords.emplace_back(api->eps().name, eps_value);
  for (const auto& [name, value] : others) args.keywords.emplace_back(name, value);
  const std::string spelled = "dict(type='" + std::string(type) + "')";
  const ApiUse use{*api, qualified, spelled, site, args, 0, "mmcv config dict"};
  emit(use, r);
}

void NormalizationExtractor::on_other_call(TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (!r.is_builtin(field(call, g.f_function), "dict")) return;
  const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
  if (!args.positional.empty() || args.has_double_star) return;
  std::optional<std::string> type;
  TSNode eps{};
  std::vector<std::pair<std::string, TSNode>> others;
  for (const auto& [name, value] : args.keywords) {
    if (name == "type") type = string_literal(value, r.source());
    else if (name == "eps") eps = value;
    else others.emplace_back(std::string(name), value);
  }
  if (type) mmcv_config(call, *type, eps, others, r);
}

void NormalizationExtractor::on_dictionary(TSNode dictionary, Resolver& r) {
  const Grammar& g = Grammar::get();
  std::optional<std::string> type;
  TSNode eps{};
  std::vector<std::pair<std::string, TSNode>> others;
  for (const TSNode pair : named_children(dictionary)) {
    if (is(pair, g.comment)) continue;
    if (!is(pair, g.pair)) return;  // a ** splat: the keys are not all visible
    const auto key = string_literal(field(pair, g.f_key), r.source());
    if (!key) return;
    const TSNode value = field(pair, g.f_value);
    if (*key == "type") type = string_literal(value, r.source());
    else if (*key == "eps") eps = value;
    else others.emplace_back(*key, value);
  }
  if (type) mmcv_config(dictionary, *type, eps, others, r);
}

void NormalizationExtractor::finish(Resolver& r) {
  for (auto& [partial_start, step] : pending_uses_) {
    const auto it = partial_facts_.find(partial_start);
    if (it != partial_facts_.end()) r.out().normalizations[it->second].uses.push_back(std::move(step));
  }
}

}  // namespace cudnnlint::python
