#include "engine/python_pass.h"

#include "python/frontend.h"
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

// One half of a pair, split for a cheap test: long names through the file's identifier filter
// (false positives only; it records `half`, `long`, `byte`, `cast`), other short lowercase names
// by an exact scan, the small-float-literal marker by a text scan.
struct PairHalf {
  std::vector<std::string> long_words;
  WordSet short_words;
  bool small_literal = false;

  std::vector<std::string> short_list;

  explicit PairHalf(const std::vector<std::string>& words) {
    std::vector<std::string> shorts;
    for (const auto& word : words) {
      if (word == python::kSmallFloatLiteral) small_literal = true;
      else if (is_short_lowercase(word) && !is_recorded_short(word)) shorts.push_back(word);
      else long_words.push_back(word);  // the filter answers for these
    }
    short_words = WordSet(shorts);
    short_list = shorts;
  }

  bool filter_only() const { return !small_literal && short_words.empty(); }

  bool may_hold(std::string_view content, const IdentifierFilter& filter) const {
    if (!long_words.empty() && filter.may_contain_any(long_words)) return true;
    if (small_literal && has_small_float_literal(content)) return true;
    static const WordSet none;
    // A substring search first: most files never spell `half` at all.
    return !short_words.empty() && python::may_contain_any(content, short_list) &&
           scan_identifiers(content, short_words, none, false).names_a_word;
  }
};

struct PairTest {
  PairHalf first, second;
  WordSet first_words, second_words;  // exact, per chunk
  bool second_small = false, classes = false, second_classes = false;
  std::size_t index = 0;  // in options.python.pairs

  PairTest(const python::WordPair& pair, std::size_t at)
      : first(pair.first), second(pair.second), first_words(pair.first),
        second_words(pair.second), classes(pair.classes),
        second_classes(pair.second_classes), index(at) {
    for (const auto& word : pair.second) second_small |= word == python::kSmallFloatLiteral;
  }

  // Whether a file may hold both halves somewhere (cheap, from the whole text).
  bool may_hold(std::string_view content, const IdentifierFilter& filter) const {
    // The cheaper half first: one the filter answers alone, else one that needs no literal scan.
    const bool first_cheaper = first.filter_only() || (!second.filter_only() && second.small_literal);
    if (first_cheaper) return first.may_hold(content, filter) && second.may_hold(content, filter);
    return second.may_hold(content, filter) && first.may_hold(content, filter);
  }

  // Whether one definition (a class only when the pair allows it), or the module's own statements
  // together, may hold both halves: what the region planner asks, answered more loosely (any
  // identifier counts, comments' and annotations' included), so that it never says no where the
  // planner would say yes.
  bool may_hold_in_one_chunk(std::string_view content,
                             const std::optional<std::vector<python::TopLevelChunk>>& chunks) const {
    if (!chunks) return true;
    static const WordSet none;
    bool small_outside_definitions = false;
    if (second_small)
      for (const auto& chunk : *chunks)
        if (!chunk.is_definition &&
            has_small_float_literal(content.substr(chunk.begin, chunk.end - chunk.begin)))
          small_outside_definitions = true;
    // The first half first, in the chunks that count: in a model file the sources mostly sit in
    // classes, and then nothing else needs reading.
    std::vector<std::size_t> with_first;
    for (std::size_t c = 0; c < chunks->size(); ++c) {
      const auto& chunk = (*chunks)[c];
      if (chunk.is_class && !classes) continue;
      if (scan_identifiers(content.substr(chunk.begin, chunk.end - chunk.begin), first_words, none,
                                            false).names_a_word)
        with_first.push_back(c);
    }
    if (with_first.empty()) return false;
    // Classes naming the second half stand for it where their name is used (`model = Net()`).
    std::vector<std::string> standing_in;
    if (second_classes)
      for (const auto& chunk : *chunks)
        if (chunk.is_class && !chunk.name.empty() &&
            scan_identifiers(content.substr(chunk.begin, chunk.end - chunk.begin), second_words, none, false)
                .names_a_word)
          standing_in.emplace_back(chunk.name);
    const WordSet class_words(standing_in);
    auto has_second = [&](std::size_t c) {
      const std::string_view text = content.substr((*chunks)[c].begin, (*chunks)[c].end - (*chunks)[c].begin);
      return (second_small && (small_outside_definitions || has_small_float_literal(text))) ||
             (!second_words.empty() && scan_identifiers(text, second_words, none, false).names_a_word) ||
             (!class_words.empty() && scan_identifiers(text, class_words, none, false).names_a_word);
    };
    for (const std::size_t c : with_first)
      if ((*chunks)[c].is_definition && has_second(c)) return true;
    // The module's own statements, together: one of them with the first half, any with the second.
    if (std::any_of(with_first.begin(), with_first.end(), [&](std::size_t c) { return !(*chunks)[c].is_definition; }))
      for (std::size_t c = 0; c < chunks->size(); ++c)
        if (!(*chunks)[c].is_definition && has_second(c)) return true;
    return false;
  }
};

}  // namespace

void run_python_pass(const std::vector<std::string>& files, const ModuleIndex& modules,
                     const std::vector<std::size_t>& which, const PythonPassOptions& options,
                     std::vector<PythonFileResult>& results, const std::vector<PythonFileResult>* filters) {
  const WordSet words(options.words), quoted(options.quoted), required(options.required), none;
  const WordSet framework_words(options.framework_words);
  std::vector<PairTest> pairs;
  for (std::size_t p = 0; p < options.python.pairs.size(); ++p)
    if (!options.python.pairs[p].first_anywhere) pairs.emplace_back(options.python.pairs[p], p);  // else: `quoted`
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
  };
  parallel_for(which.size(), options.jobs, [&](std::size_t k, const python::Parser&) {
    const std::size_t i = which[k];
    PythonFileResult result;
    if (!options.required.empty() && filters != nullptr && !(*filters)[i].identifiers.may_contain_any(options.required)) {
      results[i] = std::move(result);  // cannot name a required word: not even read
      return;
    }
    try {
      auto loaded = load_source_file(files[i], options.limits);
      if (auto* error = std::get_if<LoadError>(&loaded)) {
        result.diagnostics.push_back({FileDiagnostic::Severity::Error, files[i], std::nullopt, std::move(error->message)});
        results[i] = std::move(result);
        return;
      }
      SourceFile& file = std::get<SourceFile>(loaded);
      result.bytes_read = file.text().size();
      const std::string_view content = std::string_view(file.text()).substr(file.content_offset());
      // `required` selects the files of a later pass (in every mode: it is part of the analysis);
      // the trigger prefilter is the shortcut --full-parse turns off.
      bool chosen;
      bool framework_file = false;
      std::vector<python::WordPair> file_pairs;
      if (!options.required.empty()) {
        chosen = scan_identifiers(content, required, none, false).names_a_word &&
                 (!options.select || options.select(content));
      } else {
        // Framework words count in files importing a marked framework: the identifier filter says
        // cheaply which files may, the import lines decide.
        const bool filter_needed =
            options.build_filters || !options.framework_words.empty() || !options.python.pairs.empty();
        IdentifierScan scan = scan_identifiers(content, words, quoted, filter_needed);
        framework_file = !options.framework_words.empty() && scan.filter.may_contain_any(options.framework_markers) &&
                         python::imports_at_module_level(content, options.framework_markers);
        if (framework_file && !scan.names_a_word)
          scan.names_a_word = scan_identifiers(content, framework_words, none, false).names_a_word;
        chosen = options.skip_prefilter || scan.names_a_word;
        // The pairs the file may hold, from its filter; a file no word chose is read for them only
        // when one of its chunks may hold both halves. Its planner is given just those pairs.
        std::optional<std::optional<std::vector<python::TopLevelChunk>>> chunks;  // split once, when needed
        bool pair_chosen = false;
        for (std::size_t p = 0; p < pairs.size(); ++p) {
          if (!pairs[p].may_hold(content, scan.filter)) continue;
          if (!chosen && !pair_chosen) {
            if (!chunks) chunks = python::split_top_level(content);
            if (!pairs[p].may_hold_in_one_chunk(content, *chunks)) continue;
            pair_chosen = true;
          }
          file_pairs.push_back(options.python.pairs[pairs[p].index]);
        }
        for (const auto& pair : options.python.pairs)
          if (pair.first_anywhere) file_pairs.push_back(pair);  // left to the planner
        chosen = chosen || pair_chosen;
        if (options.build_filters) result.identifiers = std::move(scan.filter);
      }
      if (chosen) selected[k] = Selected{i, std::move(file), framework_file, std::move(file_pairs)};
    } catch (const std::exception& e) {
      fail(i, result, e);
    }
    results[i] = std::move(result);
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
      if (s.framework_file && options.required.empty())
        per_file.trigger_words.insert(per_file.trigger_words.end(), options.framework_words.begin(),
                                      options.framework_words.end());
      python::PythonAnalysis analysis = python::analyze_python(*s.file, *options.table, parser, per_file);
      result.bytes_parsed = analysis.parsed_bytes;
      for (auto& diag : analysis.diagnostics) result.diagnostics.push_back(std::move(diag));
      result.facts = std::move(analysis.facts);
    } catch (const std::exception& e) {
      fail(i, result, e);
    }
    s.file.reset();  // the text is not needed any more
  });
}

}  // namespace cudnnlint
