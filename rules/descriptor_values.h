// Reading a descriptor fact's values by name ("n", "pad_h", "stride_w", ...).
#pragma once

#include "core/facts.h"

#include <optional>
#include <string_view>

namespace cudnnlint {

// The folded value and where it is written; nullptr when the name is absent or not constant.
inline const IntegerValue* integer_named(const DescriptorFact& fact, std::string_view name) {
  for (std::size_t i = 0; i < fact.names.size(); ++i)
    if (fact.names[i] == name && fact.values[i]) return &*fact.values[i];
  return nullptr;
}

inline std::optional<std::int64_t> value_named(const DescriptorFact& fact, std::string_view name) {
  const IntegerValue* value = integer_named(fact, name);
  return value != nullptr ? std::optional<std::int64_t>(value->value) : std::nullopt;
}

}  // namespace cudnnlint
