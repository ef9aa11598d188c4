#include "python/module_parts.h"

#include "core/facts_locations.h"
#include "python/comments.h"
#include "python/const_eval.h"
#include "python/incremental_tree.h"
#include "python/syntax.h"

#include <algorithm>

namespace cudnnlint::python {

namespace {

// Everything in the options that a part's facts depend on (the region planner's words do not
// matter here: a part is parsed whole).
std::string options_key(const PythonOptions& o) {
  std::string key = o.module;
  key += o.is_package ? "|package" : "|module";
  key += o.argparse ? "|argparse" : "|";
  key += o.config_defaults ? "|config" : "|";
  for (const auto& family : o.families) key += "|" + family;
  return key;
}

void append_text(std::string& key, std::string_view text) {
  key += std::to_string(text.size());
  key += ':';
  key += text;
}

// Moves the entry's facts from where its statements were to where they are now; false when a
// location in this file lies outside them (the facts are then not kept).
bool move_to(ModulePartsCache::Entry& entry, const std::vector<ModulePartsCache::Place>& now, const std::string& path) {
  if (entry.places == now) return true;
  if (entry.places.size() != now.size()) return false;
  bool inside = true;
  for_each_location(entry.facts, [&](Location& location) {
    if (location.path != path || !inside) return;
    const std::uint32_t at = location.range.begin.byte_offset;
    auto it = std::upper_bound(entry.places.begin(), entry.places.end(), at,
                               [](std::uint32_t offset, const ModulePartsCache::Place& p) { return offset < p.begin; });
    if (it == entry.places.begin()) {
      inside = false;
      return;
    }
    --it;
    if (at > it->end) {
      inside = false;
      return;
    }
    const auto& to = now[static_cast<std::size_t>(it - entry.places.begin())];
    for (Position* p : {&location.range.begin, &location.range.end}) {
      p->byte_offset = p->byte_offset - it->begin + to.begin;
      p->line = p->line - it->line + to.line;
    }
  });
  if (inside) entry.places = now;
  return inside;
}

template <class T>
void append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

void append_facts(FileFacts& to, const FileFacts& from) {
  append(to.normalizations, from.normalizations);
  append(to.loaders, from.loaders);
  append(to.conv_geometries, from.conv_geometries);
  append(to.descriptors, from.descriptors);
  append(to.tensor_inputs, from.tensor_inputs);
  append(to.low_precision_constants, from.low_precision_constants);
  append(to.shape_chains, from.shape_chains);
  append(to.single_sample_calls, from.single_sample_calls);
  append(to.forwardings, from.forwardings);
  append(to.arguments, from.arguments);
  append(to.config_defaults, from.config_defaults);
  to.tracked += from.tracked;
}

// The note for `part`, the part of `cut` that sends the module whole.
ModulePartsCache::WholeNote whole_note(std::string_view source, const ModuleParts& cut, const std::vector<std::size_t>& part) {
  ModulePartsCache::WholeNote note{std::string(source), {}};
  for (const std::size_t k : part) note.chunks.emplace_back(cut.chunks[k].begin, cut.chunks[k].end);
  return note;
}

// Whether `now` differs from `note.text` only inside one of its statements (by common prefix and
// suffix); if so the note is moved onto `now`.
bool edited_inside(ModulePartsCache::WholeNote& note, std::string_view now) {
  const std::string_view before = note.text;
  const std::size_t shorter = std::min(before.size(), now.size());
  std::size_t prefix = 0;
  while (prefix < shorter && before[prefix] == now[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < shorter - prefix && before[before.size() - 1 - suffix] == now[now.size() - 1 - suffix]) ++suffix;
  const std::size_t old_end = before.size() - suffix;
  const auto inside = std::find_if(note.chunks.begin(), note.chunks.end(), [&](const auto& chunk) {
    return chunk.first < prefix && old_end <= chunk.second;
  });
  if (inside == note.chunks.end()) return false;
  const auto delta = static_cast<std::int64_t>(now.size()) - static_cast<std::int64_t>(before.size());
  for (auto it = inside; it != note.chunks.end(); ++it) {
    if (it != inside) it->first = static_cast<std::uint32_t>(it->first + delta);
    it->second = static_cast<std::uint32_t>(it->second + delta);
  }
  note.text.assign(now);
  return true;
}

}  // namespace

std::optional<PythonAnalysis> analyze_by_parts(const SourceFile& file, const ApiTable& table, const Parser& parser,
                                               const PythonOptions& options, ModulePartsCache& cache) {
  const std::string_view source = std::string_view(file.text()).substr(file.content_offset());
  const auto base = static_cast<std::uint32_t>(file.content_offset());
  // A syntax error: the whole module is analysed, and the error said where it is. The whole tree is
  // looked at when an analysis already parsed it; otherwise the parts tell (each part an edit
  // touched is parsed, and one that does not parse alone sends the module to the whole analysis).
  if (options.parsed && options.parsed->text == source && options.parsed->parsed() &&
      options.parsed->tree() != nullptr && ts_node_has_error(ts_tree_root_node(options.parsed->tree())))
    return std::nullopt;
  // The project step's later rounds extend the API table with the project's own callables: kept
  // facts were extracted against the built-in one, so only that one's analyses are kept.
  if (&table != &ApiTable::builtin()) return std::nullopt;
  {
    const std::lock_guard lock(cache.mutex_);
    if (cache.whole_ && edited_inside(*cache.whole_, source)) {
      cache.last_ = {};
      return std::nullopt;
    }
    cache.whole_.reset();
  }
  const auto parts = split_into_parts(source);
  if (!parts) return std::nullopt;
  if (parts->parts.size() < 2) {
    const std::lock_guard lock(cache.mutex_);
    ++cache.cuts_;
    if (parts->parts.size() == 1) cache.whole_ = whole_note(source, *parts, parts->parts.front());
    return std::nullopt;
  }
  const NodeLocator locator{file, source, base};

  PythonAnalysis result;
  result.facts.path = file.path();
  result.facts.language = "python";
  result.facts.module = options.module;
  result.facts.frameworks = imported_frameworks(source, table);

  auto text_of = [&](std::size_t k) {
    return source.substr(parts->chunks[k].begin, parts->chunks[k].end - parts->chunks[k].begin);
  };
  // A chunk from its first line of code: a comment added above a statement moves it, but does not
  // change it (nothing a part yields lies in the comment lines above its statements).
  auto code_of = [&](std::size_t k) {
    const std::string_view text = text_of(k);
    return text.substr(code_start(text));
  };
  auto code_begin = [&](std::size_t k) {
    return static_cast<std::uint32_t>(parts->chunks[k].begin + code_start(text_of(k)));
  };
  // Extractors read the module's frameworks (a constant's framework when its expression names none).
  std::string shared_key = whole_text_features(source);
  shared_key += '|';
  for (const auto& framework : result.facts.frameworks) append_text(shared_key, framework);
  shared_key += '|';
  for (const std::size_t k : parts->shared) append_text(shared_key, code_of(k));

  const std::lock_guard lock(cache.mutex_);
  ++cache.cuts_;
  auto& context = cache.contexts_[options_key(options)];
  if (context.shared != shared_key) {
    context.shared = std::move(shared_key);
    context.entries.clear();
  }
  auto& previous = context.entries;
  // Each part by the code of its statements.
  std::vector<std::string> keys;
  keys.reserve(parts->parts.size());
  for (const auto& part : parts->parts) {
    std::string key;
    for (const std::size_t k : part) append_text(key, code_of(k));
    keys.push_back(std::move(key));
  }
  // A part to analyse again that holds most of the module (one whose definitions all name each
  // other): a fresh parse of it costs more than the whole module's incremental reparse, so the
  // module is analysed whole, from the tree kept across edits.
  for (std::size_t p = 0; p < parts->parts.size(); ++p) {
    std::size_t bytes = 0;
    for (const std::size_t k : parts->parts[p]) bytes += text_of(k).size();
    if (2 * bytes > source.size() && !previous.contains(keys[p])) {
      cache.whole_ = whole_note(source, *parts, parts->parts[p]);
      return std::nullopt;
    }
  }
  std::unordered_map<std::string, ModulePartsCache::Entry> kept;
  ModulePartsCache::Counts counts;
  for (std::size_t p = 0; p < parts->parts.size(); ++p) {
    const auto& part = parts->parts[p];
    std::vector<std::size_t> chunks = parts->shared;
    chunks.insert(chunks.end(), part.begin(), part.end());
    std::sort(chunks.begin(), chunks.end());
    std::string& key = keys[p];
    std::vector<ModulePartsCache::Place> places;
    places.reserve(chunks.size());
    for (const std::size_t k : chunks)
      places.push_back({code_begin(k) + base, parts->chunks[k].end + base, file.position_at(code_begin(k) + base).line});
    ++counts.parts;
    ModulePartsCache::Entry entry;
    if (const auto it = previous.find(key); it != previous.end() && move_to(it->second, places, file.path())) {
      entry = std::move(it->second);
      previous.erase(it);
      ++counts.reused;
    } else {
      const TreePtr tree = parser.parse(source, ranges_of(source, *parts, chunks));
      // A part that does not parse alone (the lexer cut where Python would not): the whole module.
      if (!tree || ts_node_has_error(ts_tree_root_node(tree.get()))) return std::nullopt;
      entry.facts.path = file.path();
      entry.facts.language = result.facts.language;
      entry.facts.module = result.facts.module;
      entry.facts.frameworks = result.facts.frameworks;
      extract_facts(ts_tree_root_node(tree.get()), locator, table, options, {}, entry.facts);
      entry.places = std::move(places);
      for (const std::size_t k : part) result.parsed_bytes += text_of(k).size();
    }
    append_facts(result.facts, entry.facts);
    kept.insert_or_assign(std::move(key), std::move(entry));
  }
  previous = std::move(kept);
  cache.last_ = counts;
  result.facts.suppressions = suppression_comments(
      source, [&](std::size_t offset) { return file.position_at(locator.base + offset).line; });
  return result;
}

}  // namespace cudnnlint::python
