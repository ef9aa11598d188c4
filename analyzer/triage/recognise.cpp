#include "triage/recognise.h"

#include "triage/frame_map.h"

#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace cudnnlint::triage {

namespace {

// Evidence weights. A regex that matches more than a bare status name is specific; a bare status
// name (the generic entries' regex) or the entry's error_code alone says only the family.
constexpr double kSpecificRegex = 10.0;
constexpr double kStatusOnlyRegex = 4.0;
constexpr double kAlias = 3.0;
constexpr double kErrorCode = 2.0;
constexpr double kOtherFailureWeight = 0.25;  // an entry matched only by another failure of the log
// A library frame of the failure names what an entry is about (batchnorm.py, F.batch_norm for an
// entry tagged batch-norm): it orders entries the log's text matched alike, never adds one.
constexpr double kLibraryFrame = 1.0;
constexpr std::size_t kMinFrameWord = 4;

// A name lower-cased without '-' and '_', and without a trailing dimension ("batch_norm" and
// "BatchNorm2d": "batchnorm"; "conv2d": "conv").
std::string normalized_word(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != '-' && c != '_') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (out.size() > 2 && out.back() == 'd' && std::isdigit(static_cast<unsigned char>(out[out.size() - 2]))) out.pop_back();
  while (!out.empty() && std::isdigit(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

// The words a library frame names: its file's stem, its function, and the function's parts.
std::vector<std::string> frame_words(const Frame& frame) {
  std::string_view file = frame.path;
  if (const auto slash = file.find_last_of("/\\"); slash != std::string_view::npos) file.remove_prefix(slash + 1);
  if (const auto dot = file.rfind('.'); dot != std::string_view::npos) file = file.substr(0, dot);
  std::vector<std::string> words{normalized_word(file), normalized_word(frame.function)};
  std::string_view function = frame.function;
  for (std::size_t at = 0; at <= function.size();) {
    const std::size_t end = std::min(function.find('_', at), function.size());
    words.push_back(normalized_word(function.substr(at, end - at)));
    at = end + 1;
  }
  std::erase_if(words, [](const std::string& w) { return w.size() < kMinFrameWord; });
  return words;
}

// The tag of `entry` a frame word names (one is a prefix of the other), or "".
std::string tag_named(const kb::Entry& entry, const std::vector<std::string>& words) {
  const auto it = entry.data->find("tags");
  if (it == entry.data->end() || !it->is_array()) return "";
  for (const auto& tag : *it) {
    if (!tag.is_string()) continue;
    const std::string normal = normalized_word(tag.get<std::string>());
    if (normal.size() < kMinFrameWord) continue;
    for (const std::string& word : words)
      if (normal.starts_with(word) || word.starts_with(normal)) return tag.get<std::string>();
  }
  return "";
}

// Raises each candidate that a library frame of the failure names, once, saying which frame.
void add_library_frame_evidence(const std::vector<Frame>& frames, std::vector<Candidate>& candidates) {
  for (Candidate& candidate : candidates)
    for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame) {  // innermost first
      if (!is_library_path(frame->path)) continue;
      const std::string tag = tag_named(*candidate.entry, frame_words(*frame));
      if (tag.empty()) continue;
      candidate.score += kLibraryFrame;
      std::string_view file = frame->path;
      if (const auto slash = file.find_last_of("/\\"); slash != std::string_view::npos) file.remove_prefix(slash + 1);
      // Appended piece by piece: `":" + std::to_string(...)` trips GCC 12's -Wrestrict false positive.
      std::string where(file);
      if (frame->line) where.append(":").append(std::to_string(frame->line));
      if (!frame->function.empty()) where.append(" in ").append(frame->function);
      candidate.boosts.push_back("a " + tag + " library frame (" + where + ")");
      break;
    }
}
constexpr std::size_t kMinAliasLength = 12;  // shorter aliases ("batch_size=0") are not log text

// RE2 matches in time linear in the line (no backtracking): a log is input, and std::regex took
// minutes on lines that repeat what a regex's `.*` backtracks over. Latin-1 makes it match bytes,
// as the log's lines are (a cut line may end inside a UTF-8 character); the KB's regexes are ASCII.
std::unique_ptr<RE2> compile_regex(std::string_view pattern) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  auto regex = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  return regex->ok() ? std::move(regex) : nullptr;
}

// The leftmost match of `regex` in `text`, or nullopt.
std::optional<std::string_view> search(const RE2& regex, std::string_view text) {
  re2::StringPiece match;
  if (!regex.Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED, &match, 1))
    return std::nullopt;
  return std::string_view(match.data(), match.size());
}

// Whether `text` holds `word`. Boyer-Moore-Horspool skips ahead by up to the word's length: a log
// line that repeats the word's first letters (`BatchNorm BatchNorm ...`) costs no more than another.
bool contains(std::string_view text, std::string_view word) {
  return std::search(text.begin(), text.end(), std::boyer_moore_horspool_searcher(word.begin(), word.end())) !=
         text.end();
}

struct CompiledEntry {
  const kb::Entry* entry = nullptr;
  std::unique_ptr<RE2> regex;  // null when the entry has none, or it does not compile
  std::vector<std::string> aliases;  // lower-cased
  std::vector<std::string> leads_to, preceded_by;
  double confidence = 0.0;
};

std::vector<std::string> strings_at(const nlohmann::json& data, const char* a, const char* b = nullptr) {
  std::vector<std::string> out;
  const nlohmann::json* node = data.contains(a) ? &data.at(a) : nullptr;
  if (node != nullptr && b != nullptr) node = node->is_object() && node->contains(b) ? &node->at(b) : nullptr;
  if (node == nullptr || !node->is_array()) return out;
  for (const auto& item : *node)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<CompiledEntry> compile(std::span<const kb::Entry> entries) {
  std::vector<CompiledEntry> out;
  for (const kb::Entry& entry : entries) {
    CompiledEntry c;
    c.entry = &entry;
    const nlohmann::json& data = *entry.data;
    // The unit tests keep every KB regex valid for RE2; an entry whose regex does not compile is
    // still matched by its aliases and status.
    if (const auto it = data.find("regex"); it != data.end() && it->is_string() && !it->get<std::string>().empty())
      c.regex = compile_regex(it->get<std::string>());
    for (const std::string& alias : strings_at(data, "aliases"))
      if (alias.size() >= kMinAliasLength) c.aliases.push_back(lower(alias));
    c.leads_to = strings_at(data, "transition_graph", "leads_to");
    c.preceded_by = strings_at(data, "transition_graph", "preceded_by");
    if (const auto it = data.find("confidence"); it != data.end() && it->is_number()) c.confidence = it->get<double>();
    out.push_back(std::move(c));
  }
  return out;
}

bool is_bare_status_name(std::string_view s) {
  if (!s.starts_with("CUDNN_STATUS_")) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'A' && c <= 'Z') || c == '_'; });
}

// cuDNN 9 numbers the families by thousands; cuDNN 7 and 8 used small numbers.
std::string status_family_of_number(long number) {
  switch (number / 1000) {
    case 2: return "CUDNN_STATUS_BAD_PARAM";
    case 3: return "CUDNN_STATUS_NOT_SUPPORTED";
    case 4: return "CUDNN_STATUS_INTERNAL_ERROR";
    case 5: return "CUDNN_STATUS_EXECUTION_FAILED";
    default: break;
  }
  switch (number) {
    case 2: return "CUDNN_STATUS_ALLOC_FAILED";
    case 3: return "CUDNN_STATUS_BAD_PARAM";
    case 4: return "CUDNN_STATUS_INTERNAL_ERROR";
    case 8: return "CUDNN_STATUS_EXECUTION_FAILED";
    case 9: return "CUDNN_STATUS_NOT_SUPPORTED";
    default: return "";
  }
}

struct FailureMatch {
  double score = 0.0;
  std::vector<Evidence> evidence;
};

}  // namespace

std::string cudnn_status_named(std::string_view text) {
  static constexpr std::array<std::string_view, 5> kFamilies = {
      "CUDNN_STATUS_BAD_PARAM", "CUDNN_STATUS_NOT_SUPPORTED", "CUDNN_STATUS_INTERNAL_ERROR",
      "CUDNN_STATUS_EXECUTION_FAILED", "CUDNN_STATUS_ALLOC_FAILED"};
  for (std::string_view family : kFamilies)
    if (text.find(family) != std::string_view::npos) return std::string(family);
  // "cudnn status: 2000", "CUDNN_STATUS 3", "cuDNN error code 5003"
  static const std::unique_ptr<RE2> kNumbered =
      compile_regex(R"((?:cudnn|cuDNN|CUDNN)[ _](?:status|STATUS|error|ERROR)(?: code)?[:= (]*(\d{1,4})\b)");
  long number = 0;
  if (RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *kNumbered, &number))
    return status_family_of_number(number);
  return "";
}

void rank(std::vector<Candidate>& candidates) {
  // How many of the other candidates each one leads to: a cause ranks above its consequence.
  std::map<const kb::Entry*, int> causes;
  for (const Candidate& a : candidates) {
    const auto leads = strings_at(*a.entry->data, "transition_graph", "leads_to");
    int n = 0;
    for (const Candidate& b : candidates)
      if (std::find(leads.begin(), leads.end(), b.entry->id) != leads.end()) ++n;
    causes[a.entry] = n;
  }
  auto confidence = [](const Candidate& c) {
    const auto it = c.entry->data->find("confidence");
    return it != c.entry->data->end() && it->is_number() ? it->get<double>() : 0.0;
  };
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    if (causes[a.entry] != causes[b.entry]) return causes[a.entry] > causes[b.entry];
    if (confidence(a) != confidence(b)) return confidence(a) > confidence(b);
    return a.entry->id < b.entry->id;
  });
}

Recognition recognise(const LogScan& scan, std::span<const kb::Entry> entries) {
  Recognition out;
  // The compiled-in KB (kb::entries(), alive for the whole process) is compiled once; any other
  // list of entries (tests) on each call.
  static std::once_flag compiled_once;
  static std::vector<CompiledEntry> compiled_kb;
  std::vector<CompiledEntry> compiled_here;
  const std::vector<CompiledEntry>* compiled_ptr = &compiled_here;
  if (entries.data() == kb::entries().data() && entries.size() == kb::entries().size()) {
    std::call_once(compiled_once, [&] { compiled_kb = compile(kb::entries()); });
    compiled_ptr = &compiled_kb;
  } else {
    compiled_here = compile(entries);
  }
  const std::vector<CompiledEntry>& compiled = *compiled_ptr;
  // matches[failure][entry]
  std::vector<std::vector<FailureMatch>> matches(scan.failures.size(), std::vector<FailureMatch>(compiled.size()));
  for (std::size_t f = 0; f < scan.failures.size(); ++f) {
    const Failure& failure = scan.failures[f];
    std::vector<std::string_view> lines{failure.text};
    for (const std::string& line : failure.context) lines.push_back(line);
    // A message continued on the next lines (TensorFlow puts the status on one line and the cuDNN
    // call on the next) is also matched as one line.
    std::string joined = failure.text;
    for (const std::string& line : failure.context) joined.append(" ").append(line);
    if (!failure.context.empty()) lines.push_back(joined);
    std::vector<std::string> lowered;
    for (std::string_view line : lines) lowered.push_back(lower(line));
    std::string status;
    for (std::string_view line : lines)
      if (status.empty()) status = cudnn_status_named(line);
    for (std::size_t e = 0; e < compiled.size(); ++e) {
      const CompiledEntry& c = compiled[e];
      FailureMatch& match = matches[f][e];
      for (std::size_t l = 0; l < lines.size(); ++l) {
        const LogRegion where = l == 0 || l > failure.context.size() ? failure.where : LogRegion{failure.where.line + l, 0, 0};
        if (!c.regex || match.score >= kSpecificRegex) continue;
        if (const auto matched = search(*c.regex, lines[l])) {
          const double points = is_bare_status_name(*matched) ? kStatusOnlyRegex : kSpecificRegex;
          if (points > match.score) {
            match.score = points;
            match.evidence.insert(match.evidence.begin(), Evidence{Evidence::Kind::Regex, f, where, std::string(*matched)});
          }
        }
      }
      bool alias_found = false;
      for (std::size_t l = 0; l < lines.size() && !alias_found; ++l)
        for (const std::string& alias : c.aliases)
          if (contains(lowered[l], alias)) {
            const LogRegion where = l == 0 || l > failure.context.size() ? failure.where : LogRegion{failure.where.line + l, 0, 0};
            match.evidence.push_back(Evidence{Evidence::Kind::Alias, f, where, alias});
            match.score += kAlias;
            alias_found = true;
            break;
          }
      if (match.score == 0.0 && !status.empty() && c.entry->error_code == status) {
        match.score = kErrorCode;
        match.evidence.push_back(Evidence{Evidence::Kind::ErrorCode, f, failure.where, status});
      }
    }
  }

  // The best entry of each failure, by the same order as the final ranking.
  auto best_of = [&](std::size_t f) -> std::optional<std::size_t> {
    std::vector<Candidate> ranked;
    for (std::size_t e = 0; e < compiled.size(); ++e)
      if (matches[f][e].score > 0) ranked.push_back(Candidate{compiled[e].entry, matches[f][e].score, {}, {}});
    if (ranked.empty()) return std::nullopt;
    rank(ranked);
    for (std::size_t e = 0; e < compiled.size(); ++e)
      if (compiled[e].entry == ranked.front().entry) return e;
    return std::nullopt;
  };

  // The first failure that is not the aftermath of an earlier one.
  std::optional<std::size_t> first_matched;
  auto is_aftermath = [&](std::size_t f, std::size_t best) { return f > 0 && !compiled[best].preceded_by.empty(); };
  for (std::size_t f = 0; f < scan.failures.size() && !out.primary; ++f) {
    const auto best = best_of(f);
    if (!best) continue;
    if (!first_matched) first_matched = f;
    if (!is_aftermath(f, *best)) out.primary = f;
  }
  if (!out.primary && first_matched) {
    // Only aftermaths were recognised: report the first, located by the first failure of the log.
    out.primary = first_matched;
    if (*first_matched > 0)
      out.notes.push_back("log line " + std::to_string(scan.failures[*first_matched].where.line) +
                          " is the aftermath of an earlier failure, at log line " +
                          std::to_string(scan.failures.front().where.line) + " (\"" + scan.failures.front().text.substr(0, 120) +
                          "\"), which matches no KB entry: look there first");
  }
  if (out.primary)
    for (std::size_t f = 0; f < scan.failures.size(); ++f) {
      if (f == *out.primary) continue;
      const auto best = best_of(f);
      if (best && f > *out.primary && is_aftermath(f, *best))
        out.notes.push_back("log line " + std::to_string(scan.failures[f].where.line) + " (" + compiled[*best].entry->id +
                            ") is the aftermath of the failure at log line " +
                            std::to_string(scan.failures[*out.primary].where.line) + ": it points back to it");
    }
  if (!out.primary) return out;

  // Frames: the primary failure's, else the first failure's of its chain that has some.
  std::size_t frames_from = *out.primary;
  const bool aftermath_only = first_matched == out.primary && !compiled[*best_of(*out.primary)].preceded_by.empty();
  if (aftermath_only) {
    for (std::size_t f = 0; f < *out.primary; ++f)
      if (!scan.failures[f].frames.empty()) {
        frames_from = f;
        break;
      }
  }
  if (scan.failures[frames_from].frames.empty())
    for (std::size_t f = frames_from + 1; f < scan.failures.size(); ++f) {
      if (scan.failures[f].link == Failure::Link::None) break;
      if (!scan.failures[f].frames.empty()) {
        frames_from = f;
        break;
      }
    }
  if (scan.failures[frames_from].frames.empty())
    for (std::size_t f = *out.primary + 1; f < scan.failures.size(); ++f)
      if (!scan.failures[f].frames.empty()) {
        // A kernel's device-side assert prints no Python frames; the exception that reports it
        // later does: its frames are where the failure surfaced, not where it happened.
        frames_from = f;
        out.notes.push_back("the failure at log line " + std::to_string(scan.failures[*out.primary].where.line) +
                            " has no Python frames; the frames are those of log line " +
                            std::to_string(scan.failures[f].where.line) +
                            ", where it surfaced (CUDA reports kernel faults at a later call)");
        break;
      }
  out.frames_from = frames_from;

  for (std::size_t e = 0; e < compiled.size(); ++e) {
    Candidate candidate{compiled[e].entry, 0.0, {}, {}};
    const FailureMatch& on_primary = matches[*out.primary][e];
    candidate.score = on_primary.score;
    candidate.evidence = on_primary.evidence;
    double elsewhere = 0.0;
    for (std::size_t f = 0; f < scan.failures.size(); ++f) {
      if (f == *out.primary || matches[f][e].score == 0.0) continue;
      elsewhere = std::max(elsewhere, matches[f][e].score);
      if (candidate.evidence.size() < 8)
        candidate.evidence.insert(candidate.evidence.end(), matches[f][e].evidence.begin(), matches[f][e].evidence.end());
    }
    if (candidate.score == 0.0) candidate.score = elsewhere * kOtherFailureWeight;
    if (candidate.score > 0.0) out.candidates.push_back(std::move(candidate));
  }
  add_library_frame_evidence(scan.failures[frames_from].frames, out.candidates);
  rank(out.candidates);
  return out;
}

}  // namespace cudnnlint::triage
