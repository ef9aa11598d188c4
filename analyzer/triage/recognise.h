// Which knowledge-base entries a log's failures match, ranked, and which failure is the first
// one: the entry whose `transition_graph.preceded_by` names an earlier failure's entry (a CUDA
// error at teardown after EXECUTION_FAILED) is its aftermath, and points back to it.
#pragma once

#include "kb/kb.h"
#include "triage/log_scan.h"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::triage {

// Why an entry matched: its regex, one of its aliases, or its cuDNN status (by name or by
// number, in either numbering: 9.x renumbered BAD_PARAM from 3 to 2000).
struct Evidence {
  enum class Kind { Regex, Alias, ErrorCode };
  Kind kind = Kind::Regex;
  std::size_t failure = 0;  // index into LogScan::failures
  LogRegion where;          // the line it matched on
  std::string matched;      // the text that matched
};

struct Candidate {
  const kb::Entry* entry = nullptr;
  double score = 0.0;
  std::vector<Evidence> evidence;  // the primary failure's first, then the others'
  std::vector<std::string> boosts;  // what besides the log raised it (triage adds nearby findings)
};

struct Recognition {
  std::vector<Candidate> candidates;     // best first
  std::optional<std::size_t> primary;    // the failure the report is about (index into failures)
  std::optional<std::size_t> frames_from;  // the failure whose frames locate it (the first one of a chain)
  std::vector<std::string> notes;        // how the chain was followed, in words
};

// The cuDNN status family a text names: "CUDNN_STATUS_BAD_PARAM" for "CUDNN_STATUS_BAD_PARAM",
// "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH", "cudnn status: 2008" or "CUDNN_STATUS 3"; "" for none.
std::string cudnn_status_named(std::string_view text);

Recognition recognise(const LogScan& scan, std::span<const kb::Entry> entries);

// Re-sorts after scores changed (a finding near the failing frames raised one): score, then an
// entry that leads_to another ranks above it, then the KB's confidence, then the id.
void rank(std::vector<Candidate>& candidates);

}  // namespace cudnnlint::triage
