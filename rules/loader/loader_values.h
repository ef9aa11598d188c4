// What the loader rules share: how a batch size (or one operand of it) is described in a message,
// with where its value came from, and what the framework does with a batch size it refuses (the
// API table's `loader` data, measured by tests/probes).
#pragma once

#include "rules/replay_configs.h"
#include "rules/rule.h"

#include <optional>
#include <string>

namespace cudnnlint::loader {

// The table entry of a loader fact's API; nullptr for an API the table no longer names.
const ApiEntry* api_of(const LoaderFact& fact, const ApiTable& table);

// "PyTorch", "TensorFlow", "Keras", "transformers".
std::string framework_name(const LoaderFact& fact, const ApiTable& table);

// The value as a whole number, when it is one.
std::optional<long long> whole(const SettleableValue& value);

// "`batch_size=BATCH` (= 0)": the parameter, the value as written (clipped), and its folded value
// when the spelling differs; how the project step reached it is origin()'s.
std::string describe(std::string_view parameter, const SettleableValue& value);
// Where a value that is not written at the call comes from, as a sentence for the finding's detail
// ("`batch_size` comes from the default of --batch_size ... . "), or "".
std::string origin(std::string_view parameter, const SettleableValue& value);

// The framework's refusal of `n`, as the table records it: "PyTorch raises ValueError: batch_size
// should be ... when the DataLoader is constructed (measured on torch 2.11.0)".
std::string refusal(const ApiEntry& api, long long n);

// Adds the value's provenance (definition first) and the fact's uses to the finding.
void add_related(Finding& finding, const SettleableValue& value);
void add_uses(Finding& finding, const LoaderFact& fact);

}  // namespace cudnnlint::loader
