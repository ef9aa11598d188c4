// The knowledge base: one entry per failure mode, compiled into the binary from kb/<domain>/<slug>.json
// (see analyzer/embed_files.cmake; the format is kb/schema.json, checked at build time by kb/validate.py).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/embedded.h"

namespace cudnnlint::kb {

enum class Lang { En, Zh };

struct Entry {
  // Copies of the most used fields; a JSON null or a missing field reads as "".
  std::string id, signature, root_cause, error_code, verification_tier, official_doc_url;
  std::shared_ptr<const nlohmann::json> data;  // the whole entry
};

// Every compiled-in entry (embedded files under kb/<domain>/<name>.json), parsed once on first use
// (thread-safe), sorted by id. Throws std::runtime_error naming the path if an entry does not parse,
// has no string "id", or repeats an id.
const std::vector<Entry>& entries();

// The entry with this id, or nullptr.
const Entry* find(std::string_view id);

// `cudnnlint explain ID`: Markdown in the shape of shared/seeds/001. Lang::Zh uses the *_zh fields and
// Chinese headings, falling back to the English text where a translation is missing or empty. Empty or
// null fields are left out (no "****", no empty tables, no "null").
std::string render_markdown(const Entry& e, Lang lang);

// One line (no control characters), at most 1000 bytes, cut on a UTF-8 boundary: the SARIF
// reportingDescriptor shortDescription. Never empty: falls back to the root cause, then to the id.
std::string short_description(const Entry& e);

// "en" / "zh" (case-insensitive; region and script suffixes such as "zh-CN", "zh_Hans", "en-US" accepted).
std::optional<Lang> parse_lang(std::string_view);

// --- Building blocks, exposed for tests and tools ---

// Builds an Entry from a parsed JSON object (the summary fields are copied out of it).
Entry make_entry(nlohmann::json j);

// Parses the KB entries among `files` (paths "kb/<domain>/<name>.json"; everything else, such as
// rules/api_table.json or kb/schema.json, is skipped), sorted by id. Throws std::runtime_error naming the
// path on a parse error, a missing/non-string "id", or a duplicate id.
std::vector<Entry> load_entries(std::span<const EmbeddedFile> files);

// Whether an embedded path names a KB entry: "kb/<domain>/<name>.json".
bool is_entry_path(std::string_view path);

}  // namespace cudnnlint::kb
