#include "engine/python_pass.h"


#include "cache/hash.h"
#include "engine/session_cache.h"
#include "python/frontend.h"
#include "python/imports.h"
#include "python/regions.h"
#include "python/syntax.h"

#include <algorithm>
#include <cstring>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>

namespace cudnnlint {

void parallel_for(std::size_t count, unsigned jobs, const std::function<void(std::size_t, const python::Parser&)>& fn) {
  if (count == 0) return;
  unsigned threads = jobs != 0 ? jobs : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, count));
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    const python::Parser parser;  // tree-sitter parsers are not thread-safe: one per worker
    for (std::size_t k = next++; k < count; k = next++) fn(k, parser);
  };
  if (threads <= 1) {
    worker();
    return;
  }
  std::vector<std::jthread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
}

std::optional<SourceFile> read_quietly(const std::string& path, const LoadLimits& limits) {
  auto loaded = load_source_file(path, limits);
  if (std::holds_alternative<LoadError>(loaded)) return std::nullopt;
  return std::move(std::get<SourceFile>(loaded));
}

namespace {

// The words the first scan tracks, each with the roles it plays: bit 0 a framework word, bits
// 1 + 2q and 2 + 2q the first and second half of pair test q. One scan of a file then tells which
// halves it holds and in which chunks, with no second read of its text.
struct TrackedWords {
  WordSet set;
  std::vector<std::uint64_t> roles;  // by index in set.words()

  static constexpr std::uint64_t kFramework = 1;
  static std::uint64_t first_bit(std::size_t q) { return std::uint64_t{1} << (1 + 2 * q); }
  static std::uint64_t second_bit(std::size_t q) { return std::uint64_t{1} << (2 + 2 * q); }

  std::uint64_t roles_of(const std::vector<WordHit>& hits) const {
    std::uint64_t out = 0;
    for (const auto& hit : hits) out |= roles[hit.word];
    return out;
  }
};

// One pair, tested on a file from what the scan tracked: the halves' words exactly (comments and
// strings included, so never less than the planner sees), the small-float-literal marker by a
// text scan.
struct PairTest {
  std::size_t index = 0;  // in options.python.pairs
  std::size_t slot = 0;   // q in TrackedWords' bits
  std::vector<std::string> first_words, second_words;  // without the marker
  bool first_small = false, second_small = false, second_classes = false;
  bool classes_count = false;  // a class may hold the pair, as a whole or in one method
  const python::WordPair* pair = nullptr;
  // The first half counts anywhere in the file: each chunk holding the second half holds the pair.
  bool first_anywhere = false;

  PairTest(const python::WordPair& pair, std::size_t at, std::size_t q)
      : index(at), slot(q), second_classes(pair.second_classes), classes_count(pair.classes || pair.methods), pair(&pair),
        first_anywhere(pair.first_anywhere) {
    for (const auto& word : pair.first) {
      if (word == python::kSmallFloatLiteral) first_small = true;
      else first_words.push_back(word);
    }
    for (const auto& word : pair.second) {
      if (word == python::kSmallFloatLiteral) second_small = true;
      else second_words.push_back(word);
    }
  }

  // Whether a file holds both halves somewhere (`present`: the roles of its tracked words).
  bool may_hold(std::string_view content, std::uint64_t present) const {
    const bool first = (present & TrackedWords::first_bit(slot)) != 0;
    const bool second = (present & TrackedWords::second_bit(slot)) != 0;
    if (!first && !(first_small && has_small_float_literal(content))) return false;
    return second || (second_small && has_small_float_literal(content));
  }

  // Whether one definition (a class only when the pair allows it), or the module's own statements
  // together, may hold both halves: what the region planner asks, answered more loosely (any
  // identifier counts, comments' and annotations' included), so that it never says no where the
  // planner would say yes. `chunk_roles`: the roles of the tracked words in each chunk.
  bool may_hold_in_one_chunk(std::string_view content, const std::vector<python::TopLevelChunk>& chunks,
                             const std::vector<std::uint64_t>& chunk_roles) const {
    const std::uint64_t first_bit = TrackedWords::first_bit(slot), second_bit = TrackedWords::second_bit(slot);
    auto text_of = [&](std::size_t c) { return content.substr(chunks[c].begin, chunks[c].end - chunks[c].begin); };
    // A half's word imported under another name (`from torch.nn import Sequential as Seq`) may be
    // used anywhere under that name, which the scan does not track: that half counts in every chunk.
    std::uint64_t aliased = 0;
    for (std::size_t c = 0; c < chunks.size(); ++c)
      if (!chunks[c].is_definition && (chunk_roles[c] & (first_bit | second_bit)) != 0 &&
          text_of(c).find("import") != std::string_view::npos && text_of(c).find(" as ") != std::string_view::npos)
        aliased |= chunk_roles[c] & (first_bit | second_bit);
    auto has_first = [&](std::size_t c) {
      return first_anywhere || ((chunk_roles[c] | aliased) & first_bit) != 0 ||
             (first_small && has_small_float_literal(text_of(c)));
    };
    bool small_outside_definitions = false;
    if (second_small)
      for (std::size_t c = 0; c < chunks.size(); ++c)
        if (!chunks[c].is_definition && has_small_float_literal(text_of(c))) small_outside_definitions = true;
    // The first half first. A class counts where the pair allows one as a whole or in one of its
    // methods (the planner then reads that method).
    // A module-level function holds a half where a statement or another function calls it: a
    // script's statements or its `main()` glue helpers (`images = load_images()`, then
    // `model_fn(images)`), as the planner reads them (called_function_bits).
    static const WordSet none;
    auto helpers_with = [&](auto&& holds) {
      std::vector<std::string> names;
      for (std::size_t c = 0; c < chunks.size(); ++c)
        if (chunks[c].is_definition && !chunks[c].is_class && !chunks[c].name.empty() && holds(c))
          names.emplace_back(chunks[c].name);
      return WordSet(names);
    };
    auto names_one = [&](std::size_t c, const WordSet& helpers) {
      return !chunks[c].is_class && !helpers.empty() && scan_identifiers(text_of(c), helpers, none, false).names_a_word;
    };
    const WordSet first_helpers = helpers_with(has_first);
    auto first_through = [&](std::size_t c) { return has_first(c) || names_one(c, first_helpers); };
    std::vector<std::size_t> with_first;
    for (std::size_t c = 0; c < chunks.size(); ++c)
      if ((!chunks[c].is_class || classes_count) && first_through(c)) with_first.push_back(c);
    if (with_first.empty()) return false;
    // Definitions naming the second half stand for it where their name is used (`model = Net()`):
    // classes and module-level functions (`make_layers`), and those naming one of them, three
    // calls deep, as the planner reads them.
    std::vector<std::string> standing_in;
    if (second_classes) {
      std::vector<bool> stands(chunks.size(), false);
      for (std::size_t c = 0; c < chunks.size(); ++c)
        if (chunks[c].is_definition && !chunks[c].name.empty() && (chunk_roles[c] & second_bit) != 0) {
          stands[c] = true;
          standing_in.emplace_back(chunks[c].name);
        }
      for (int round = 0; round < 3 && !standing_in.empty(); ++round) {
        const WordSet names(standing_in);
        static const WordSet no_quoted;
        bool grew = false;
        for (std::size_t c = 0; c < chunks.size(); ++c)
          if (!stands[c] && chunks[c].is_definition && !chunks[c].name.empty() &&
              scan_identifiers(text_of(c), names, no_quoted, false).names_a_word) {
            stands[c] = grew = true;
            standing_in.emplace_back(chunks[c].name);
          }
        if (!grew) break;
      }
    }
    const WordSet class_words(standing_in);
    auto has_second = [&](std::size_t c) {
      return (second_small && (small_outside_definitions || has_small_float_literal(text_of(c)))) ||
             ((chunk_roles[c] | aliased) & second_bit) != 0 ||
             (!class_words.empty() && scan_identifiers(text_of(c), class_words, none, false).names_a_word);
    };
    // A class holds a pair it may not hold as a whole only in one method, read as the planner reads it.
    auto in_a_method = [&](std::size_t c) {
      return python::a_method_may_hold(content, chunks[c], *pair, first_anywhere || (aliased & first_bit) != 0,
                                       (aliased & second_bit) != 0 || (second_small && small_outside_definitions),
                                       standing_in);
    };
    const WordSet second_helpers = helpers_with(has_second);
    auto second_through = [&](std::size_t c) { return has_second(c) || names_one(c, second_helpers); };
    for (const std::size_t c : with_first)
      if (chunks[c].is_definition && second_through(c) && (!chunks[c].is_class || pair->classes || in_a_method(c)))
        return true;
    // The module's own statements, together: one of them with the first half, any with the second.
    bool script_first = false, script_second = false;
    for (std::size_t c = 0; c < chunks.size() && !(script_first && script_second); ++c) {
      if (chunks[c].is_definition) continue;
      script_first = script_first || first_through(c);
      script_second = script_second || second_through(c);
    }
    return script_first && script_second;
  }
};

// The roles of the tracked words in each chunk (chunks are in text order and do not overlap).
std::vector<std::uint64_t> roles_by_chunk(const std::vector<python::TopLevelChunk>& chunks,
                                          const std::vector<WordHit>& hits, const TrackedWords& tracked) {
  std::vector<std::uint64_t> out(chunks.size(), 0);
  std::size_t c = 0;
  for (const auto& hit : hits) {
    while (c < chunks.size() && chunks[c].end <= hit.offset) ++c;
    if (c == chunks.size()) break;
    if (hit.offset >= chunks[c].begin) out[c] |= tracked.roles[hit.word];
  }
  return out;
}

// Everything in a file's options that its facts depend on: its slot in the session cache (the key
// adds the bytes).
cache::Hash128 session_slot(std::string_view path, const python::PythonOptions& o) {
  cache::KeyBuilder key;
  key.add("session pass").add(path).add(o.module);
  key.add(static_cast<std::uint64_t>(o.mode == python::ParseMode::Full)).add(static_cast<std::uint64_t>(o.is_package));
  key.add(static_cast<std::uint64_t>(o.argparse)).add(static_cast<std::uint64_t>(o.config_defaults));
  key.add(static_cast<std::uint64_t>(o.own_names_count)).add(static_cast<std::uint64_t>(o.class_uses_count));
  auto add_list = [&](std::string_view name, const std::vector<std::string>& words) {
    key.add(name).add(static_cast<std::uint64_t>(words.size()));
    for (const auto& word : words) key.add(word);
  };
  add_list("families", o.families);
  add_list("triggers", o.triggers);
  add_list("trigger_words", o.trigger_words);
  add_list("attributes", o.attributes);
  key.add("pairs").add(static_cast<std::uint64_t>(o.pairs.size()));
  for (const auto& pair : o.pairs) {
    add_list("first", pair.first);
    add_list("second", pair.second);
    add_list("helper words", pair.helper_words);
    key.add(static_cast<std::uint64_t>(pair.first_anywhere) | static_cast<std::uint64_t>(pair.classes) << 1 |
            static_cast<std::uint64_t>(pair.second_classes) << 2 |
            static_cast<std::uint64_t>(pair.second_only_through_classes) << 3 |
            static_cast<std::uint64_t>(pair.methods) << 4 |
            static_cast<std::uint64_t>(pair.second_called_in_methods) << 5 |
            static_cast<std::uint64_t>(pair.init_counts) << 6);
  }
  // The values handed to a second extraction, and where each is set (its notes say so).
  auto add_constants = [&](std::string_view label, const std::map<std::string, ConstantValue, std::less<>>* constants) {
    if (constants == nullptr) return;
    key.add(label).add(static_cast<std::uint64_t>(constants->size()));
    for (const auto& [name, constant] : *constants) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &constant.value, sizeof bits);
      key.add(name).add(bits);
      for (const ProvenanceStep& step : constant.provenance) key.add(step.where.path).add(step.what);
    }
  };
  add_constants("imported constants", o.imported_constants.get());
  add_constants("config constants", o.config_constants.get());
  return key.key();
}

}  // namespace

void run_python_pass(const std::vector<std::string>& files, const ModuleIndex& modules,
                     const std::vector<std::size_t>& which, const PythonPassOptions& options,
                     std::vector<PythonFileResult>& results, const std::vector<PythonFileResult>* filters) {
  const WordSet words(options.words), quoted(options.quoted), required(options.required), none;
  // Framework words and the pairs' halves are tracked by the first scan of each file.
  TrackedWords tracked;
  std::vector<PairTest> pairs;
  {
    std::vector<std::string> tracked_words;
    auto track = [&](const std::string& word, std::uint64_t role) {
      if (word == python::kSmallFloatLiteral) return;
      const auto it = std::find(tracked_words.begin(), tracked_words.end(), word);
      if (it != tracked_words.end()) {
        tracked.roles[static_cast<std::size_t>(it - tracked_words.begin())] |= role;
        return;
      }
      tracked_words.push_back(word);
      tracked.roles.push_back(role);
    };
    for (const auto& word : options.framework_words) track(word, TrackedWords::kFramework);
    for (std::size_t p = 0; p < options.python.pairs.size(); ++p) {
      const auto& pair = options.python.pairs[p];
      if (pairs.size() == 31) throw std::logic_error("more than 31 word pairs: TrackedWords has 64 bits");
      const std::size_t q = pairs.size();
      pairs.emplace_back(pair, p, q);
      for (const auto& word : pair.first) track(word, TrackedWords::first_bit(q));
      for (const auto& word : pair.second) track(word, TrackedWords::second_bit(q));
    }
    tracked.set = WordSet(tracked_words);
  }
  // Two phases: every file is read and scanned, then the selected ones are analysed, largest
  // first, so that a big file parsed last does not leave the other workers idle.
  struct Selected {
    std::size_t index;
    std::optional<SourceFile> file;
    bool framework_file = false;
    std::vector<python::WordPair> pairs;  // the pairs this file may hold: what its planner needs
  };
  std::vector<Selected> selected(which.size());
  auto fail = [&](std::size_t i, PythonFileResult& result, const std::exception& e) {
    // A bug of ours on one file must not cost the user the rest of the run.
    result.diagnostics.push_back({FileDiagnostic::Severity::Error, files[i], std::nullopt,
                                  std::string("internal error while analysing this file: ") + e.what()});
    result.cacheable = false;
  };
  parallel_for(which.size(), options.jobs, [&](std::size_t k, const python::Parser&) {
    const std::size_t i = which[k];
    PythonFileResult result;
    if (!options.required.empty() && filters != nullptr && !(*filters)[i].identifiers.may_contain_any(options.required)) {
      results[i] = std::move(result);  // cannot name a required word: not even read
      return;
    }
    auto take_cached = [&](PythonFileResult&& cached) {
      results[i] = std::move(cached);
      if (options.progress != nullptr) options.progress->file_done();
    };
    try {
      if (options.cache != nullptr)
        if (auto cached = options.cache->before_read(i)) return take_cached(std::move(*cached));
      auto loaded = load_source_file(files[i], options.limits);
      if (auto* error = std::get_if<LoadError>(&loaded)) {
        result.diagnostics.push_back({FileDiagnostic::Severity::Error, files[i], std::nullopt, std::move(error->message)});
        result.cacheable = false;
        results[i] = std::move(result);
        return;
      }
      SourceFile& file = std::get<SourceFile>(loaded);
      if (options.cache != nullptr)
        if (auto cached = options.cache->after_read(i, file.text())) return take_cached(std::move(*cached));
      result.bytes_read = file.text().size();
      const std::string_view content = std::string_view(file.text()).substr(file.content_offset());
      // `required` selects the files of a later pass (in every mode: it is part of the analysis);
      // the trigger prefilter is the shortcut --full-parse turns off.
      bool chosen;
      bool framework_file = false;
      std::vector<python::WordPair> file_pairs;
      if (!options.required.empty()) {
        // The selector first: a text search, cheaper than the scan.
        chosen = (!options.select || options.select(content)) &&
                 scan_identifiers(content, required, none, false).names_a_word;
      } else {
        // Framework words count in files importing a marked framework: the identifier filter says
        // cheaply which files may, the import lines decide.
        const bool filter_needed =
            options.build_filters || !options.framework_words.empty() || !options.python.pairs.empty();
        IdentifierScan scan = scan_identifiers(content, words, quoted, filter_needed, &tracked.set);
        const std::uint64_t present = tracked.roles_of(scan.hits);
        framework_file = !options.framework_words.empty() && scan.filter.may_contain_any(options.framework_markers) &&
                         python::imports_at_module_level(content, options.framework_markers);
        if (framework_file && !scan.names_a_word) scan.names_a_word = (present & TrackedWords::kFramework) != 0;
        chosen = options.skip_prefilter || scan.names_a_word;
        // The pairs the file holds; a file no word chose is read for them only when one of its
        // chunks may hold both halves. Its planner is given just those pairs.
        std::optional<std::optional<std::vector<python::TopLevelChunk>>> chunks;  // split once, when needed
        std::vector<std::uint64_t> chunk_roles;
        bool pair_chosen = false;
        for (const auto& pair : pairs) {
          if (!pair.may_hold(content, present)) continue;
          if (!chosen && !pair_chosen) {
            if (!chunks) {
              chunks = python::split_top_level(content);
              if (*chunks) chunk_roles = roles_by_chunk(**chunks, scan.hits, tracked);
            }
            if (*chunks && !pair.may_hold_in_one_chunk(content, **chunks, chunk_roles)) continue;
            pair_chosen = true;
          }
          if (!pair.first_anywhere) file_pairs.push_back(options.python.pairs[pair.index]);
        }
        for (const auto& pair : options.python.pairs)
          if (pair.first_anywhere) file_pairs.push_back(pair);  // left to the planner
        chosen = chosen || pair_chosen;
        if (options.build_filters) {
          result.identifiers = std::move(scan.filter);
          result.numeric = python::numeric_bindings(content);
        }
      }
      if (chosen) selected[k] = Selected{i, std::move(file), framework_file, std::move(file_pairs)};
    } catch (const std::exception& e) {
      fail(i, result, e);
    }
    results[i] = std::move(result);
    if (!selected[k].file) {  // not parsed: done
      if (options.cache != nullptr && results[i].cacheable) options.cache->store(i, results[i]);
      if (options.progress != nullptr) options.progress->file_done();
    }
  });
  std::vector<Selected*> work;
  for (auto& s : selected)
    if (s.file) work.push_back(&s);
  std::stable_sort(work.begin(), work.end(),
                   [](const Selected* a, const Selected* b) { return a->file->text().size() > b->file->text().size(); });
  parallel_for(work.size(), options.jobs, [&](std::size_t k, const python::Parser& parser) {
    Selected& s = *work[k];
    const std::size_t i = s.index;
    PythonFileResult& result = results[i];
    try {
      python::PythonOptions per_file = options.python;
      per_file.module = modules.of(i).name;
      if (options.required.empty() && !options.skip_prefilter) per_file.pairs = std::move(s.pairs);
      per_file.is_package = modules.of(i).is_package;
      if (options.parsed != nullptr)
        if (const auto it = options.parsed->find(files[i]); it != options.parsed->end()) per_file.parsed = it->second;
      if (s.framework_file && options.required.empty())
        per_file.trigger_words.insert(per_file.trigger_words.end(), options.framework_words.begin(),
                                      options.framework_words.end());
      // A later pass in a session: the same bytes with the same options give the same facts.
      std::optional<cache::Hash128> key, slot;
      // An open document (a tree parsed ahead) changes with each keystroke: not kept.
      if (options.session != nullptr && options.cache == nullptr && !per_file.parsed) {
        slot = session_slot(files[i], per_file);
        key = cache::KeyBuilder().add(*slot).add(cache::hash_bytes(s.file->text())).key();
        if (auto kept = options.session->find(*key)) {
          result.bytes_parsed = kept->bytes_parsed;
          for (auto& diag : kept->diagnostics) result.diagnostics.push_back(std::move(diag));
          result.facts = std::move(kept->facts);
          key.reset();
        }
      }
      if (!result.facts) {
        python::PythonAnalysis analysis = python::analyze_python(*s.file, *options.table, parser, per_file);
        result.bytes_parsed = analysis.parsed_bytes;
        for (auto& diag : analysis.diagnostics) result.diagnostics.push_back(std::move(diag));
        result.facts = std::move(analysis.facts);
      }
      if (key) {
        PythonFileResult kept;
        kept.facts = result.facts;
        kept.diagnostics = result.diagnostics;
        kept.bytes_parsed = result.bytes_parsed;
        options.session->put(*key, *slot, kept);
      }
      if (options.cache != nullptr) options.cache->store(i, result);
    } catch (const std::exception& e) {
      fail(i, result, e);
    }
    s.file.reset();  // the text is not needed any more
    if (options.progress != nullptr) options.progress->file_done();
  });
}

}  // namespace cudnnlint
