#include "rules/loader/loader_values.h"

#include <cmath>

namespace cudnnlint::loader {

const ApiEntry* api_of(const LoaderFact& fact, const ApiTable& table) { return table.find(fact.api); }

std::string framework_name(const LoaderFact& fact, const ApiTable& table) {
  if (const FrameworkInfo* fw = table.framework(fact.framework)) return fw->display;
  return fact.framework;
}

std::optional<long long> whole(const SettleableValue& value) {
  if (!value.value || value.value->value != std::floor(value.value->value) || std::fabs(value.value->value) > 9.0e15)
    return std::nullopt;
  return static_cast<long long>(value.value->value);
}

std::string describe(std::string_view parameter, const SettleableValue& value) {
  if (!value.value) return std::string(parameter);
  const std::string number = whole(value) ? std::to_string(*whole(value)) : std::to_string(value.value->value);
  const std::string& spelling = value.value->spelling;
  // Appended piece by piece: `"`" + std::string(...)` trips GCC 12's -Wrestrict false positive.
  std::string out = "`";
  out.append(parameter).append("=").append(clipped(spelling == "default" ? number : spelling, 40)).append("`");
  if (spelling != number && spelling != "default") out += " (= " + number + ")";
  if (spelling == "default") out += " (the default)";
  return out;
}

std::string origin(std::string_view parameter, const SettleableValue& value) {
  if (!value.value || value.via.empty()) return "";
  // Appended piece by piece: `"`" + std::string(...)` trips GCC 12's -Wrestrict false positive.
  std::string out = "`";
  out.append(parameter).append("` comes from ").append(value.via).append(". ");
  return out;
}

std::string refusal(const ApiEntry& api, long long n) {
  std::string error = api.loader.error;
  if (const auto at = error.find("{n}"); at != std::string::npos) error.replace(at, 3, std::to_string(n));
  return "raises " + error + " " + api.loader.when + " (measured on " + api.loader.measured + ")";
}

void add_related(Finding& finding, const SettleableValue& value) {
  if (!value.value) return;
  for (const auto& step : value.value->provenance) finding.related.push_back({step.where, step.what});
}

void add_uses(Finding& finding, const LoaderFact& fact) {
  for (const auto& use : fact.uses) finding.related.push_back({use.where, use.what});
}

}  // namespace cudnnlint::loader
