#include "config/config_file.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>
#include <re2/re2.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>

namespace cudnnlint::config {

namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : ".") + part;
  return out;
}

std::optional<double> to_number(std::string text, int base = 10) {
  text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  double value;
  if (base == 10) {
    value = std::strtod(text.c_str(), &end);
  } else {
    bool negative = text[0] == '-';
    std::size_t skip = (text[0] == '-' || text[0] == '+') ? 1 : 0;
    skip += base == 8 ? (text.size() > skip + 1 && (text[skip + 1] == 'o' || text[skip + 1] == 'O') ? 2 : 1) : 2;
    if (skip > text.size()) return std::nullopt;
    const long long v = std::strtoll(text.c_str() + skip, &end, base);
    value = negative ? -static_cast<double>(v) : static_cast<double>(v);
  }
  if (end == nullptr || *end != '\0' || (errno == ERANGE && std::isinf(value))) return std::nullopt;
  return value;
}

// "# @package model" on a line of its own, before the first key (Hydra).
std::string package_directive(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (!line.empty() && line.front() != '#' && line.front() != '\r') break;
    const auto directive = line.find("@package");
    if (!line.empty() && directive != std::string_view::npos) {
      std::string_view name = line.substr(directive + 8);
      while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.remove_prefix(1);
      while (!name.empty() && (name.back() == ' ' || name.back() == '\r' || name.back() == '\t')) name.remove_suffix(1);
      return std::string(name);
    }
    at = end + 1;
  }
  return "";
}

}  // namespace

std::string ConfigScalar::dotted() const { return join(path); }

namespace {

// Scalars come from the tree: RE2 matches them without recursion (std::regex recursed once per
// character and overflowed the stack on a 3 MB scalar of digits).
bool full_match(std::string_view text, const RE2& pattern) {
  return RE2::FullMatch(re2::StringPiece(text.data(), text.size()), pattern);
}

}  // namespace

std::optional<double> yaml11_number(std::string_view text) {
  // The implicit resolvers of PyYAML's SafeLoader (yaml/resolver.py), YAML 1.1.
  static const RE2 integer(R"([-+]?(0|[1-9][0-9_]*))");
  static const RE2 octal(R"([-+]?0[0-7_]+)");
  static const RE2 hex(R"([-+]?0x[0-9a-fA-F_]+)");
  static const RE2 binary(R"([-+]?0b[0-1_]+)");
  static const RE2 floating(R"([-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?|\.[0-9][0-9_]*([eE][-+][0-9]+)?)");
  static const RE2 infinity(R"([-+]?\.(inf|Inf|INF))");
  static const RE2 not_a_number(R"(\.(nan|NaN|NAN))");
  const std::string s(text);
  if (full_match(s, integer) || full_match(s, floating)) return to_number(s);
  if (full_match(s, infinity)) return s.front() == '-' ? -HUGE_VAL : HUGE_VAL;
  if (full_match(s, not_a_number)) return std::numeric_limits<double>::quiet_NaN();
  if (full_match(s, hex)) return to_number(s, 16);
  if (full_match(s, binary)) return to_number(s, 2);
  if (full_match(s, octal)) return to_number(s, 8);
  return std::nullopt;
}

std::optional<double> python_literal_number(std::string_view text) {
  // What ast.literal_eval accepts for a number: an optional sign, then an int or float literal.
  static const RE2 decimal(
      R"([-+]?(([0-9](_?[0-9])*)?\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?|[0-9](_?[0-9])*\.?([eE][-+]?[0-9](_?[0-9])*)?))");
  if (full_match(text, decimal)) return to_number(std::string(text));
  return yaml11_number(text);  // hex, octal, binary spelled as YAML 1.1 reads them
}

std::optional<double> json_number(std::string_view text) {
  // Python's json module also reads the JavaScript names NaN, Infinity and -Infinity.
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity") return HUGE_VAL;
  if (text == "-Infinity") return -HUGE_VAL;
  return python_literal_number(text);
}

bool is_config_file(std::string_view path) {
  return path.ends_with(".yaml") || path.ends_with(".yml") || path.ends_with(".json");
}

// Builds a ConfigDocument from yaml-cpp's parse events.
class ConfigBuilder : public YAML::EventHandler {
 public:
  ConfigBuilder(ConfigDocument& doc, const SourceFile& file, std::size_t base) : doc_(doc), file_(file), base_(base) {}

  void OnDocumentStart(const YAML::Mark&) override { stack_.clear(); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { value(mark, nullptr, ""); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { value(mark, nullptr, ""); }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t, const std::string& text) override {
    value(mark, &tag, text);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(mark, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(mark, true);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    bool is_map = false;
    bool is_key = false;           // a complex key: its content is not a value of the document
    std::vector<std::string> path;
    bool expecting_key = true;
    std::string key;
    YAML::Mark key_mark;
    std::size_t index = 0;
    std::optional<std::size_t> target;  // index into targets_ when the mapping has _target_
    std::vector<std::size_t> children;  // scalars directly under this mapping
    std::vector<std::size_t> args;      // scalars of its `_args_` sequence
    std::string target_text;
    YAML::Mark target_mark;
    bool is_args = false;            // this sequence is `_args_` of the enclosing mapping
    std::set<std::string> seen_keys; // a mapping's keys so far
  };

  // Drops `dotted` and everything below it from the document's index.
  void forget(const std::string& dotted) {
    auto& index = doc_.by_path_;
    index.erase(dotted);
    const std::string prefix = dotted + ".";
    for (auto it = index.lower_bound(prefix); it != index.end() && it->first.compare(0, prefix.size(), prefix) == 0;)
      it = index.erase(it);
  }

  Location locate(const YAML::Mark& mark, std::size_t length) const {
    const std::size_t begin = std::min<std::size_t>(base_ + static_cast<std::size_t>(std::max(mark.pos, 0)), file_.text().size());
    std::size_t end = std::min(begin + length, file_.text().size());
    const std::size_t newline = file_.text().find('\n', begin);
    if (newline != std::string::npos && newline < end) end = newline;
    return Location{file_.path(), file_.range(begin, end)};
  }

  // Where the next value of the top container goes; false when it is a mapping key.
  bool child_path(std::vector<std::string>& path, std::string& key_out, YAML::Mark& key_mark) {
    if (stack_.empty()) return true;
    Frame& top = stack_.back();
    path = top.path;
    if (top.is_map) {
      if (top.expecting_key) return false;
      path.push_back(top.key);
      // A key given twice: the later value replaces the earlier one, nested keys and all.
      if (!top.seen_keys.insert(top.key).second) forget(join(path));
      key_out = top.key;
      key_mark = top.key_mark;
      top.expecting_key = true;
    } else {
      path.push_back(std::to_string(top.index++));
    }
    return true;
  }

  void value(const YAML::Mark& mark, const std::string* tag, const std::string& text) {
    if (!stack_.empty() && stack_.back().is_map && stack_.back().expecting_key) {
      stack_.back().key = tag ? text : "<alias>";
      stack_.back().key_mark = mark;
      stack_.back().expecting_key = false;
      return;
    }
    std::vector<std::string> path;
    std::string key;
    YAML::Mark key_mark;
    child_path(path, key, key_mark);
    if (tag == nullptr) return;  // null or alias: no scalar
    if (!stack_.empty() && stack_.back().is_key) return;
    ConfigScalar scalar;
    scalar.path = std::move(path);
    scalar.text = text;
    scalar.quoted = *tag == "!";
    const bool json = doc_.format_ == ConfigDocument::Format::Json;
    if (!scalar.quoted) {
      scalar.python_number = python_literal_number(text);
      scalar.yaml_number = json ? json_number(text) : yaml11_number(text);
    }
    scalar.where = locate(mark, text.size() + (scalar.quoted ? 2 : 0));
    scalar.key_where = key.empty() ? scalar.where : locate(key_mark, key.size());
    const std::size_t index = doc_.scalars_.size();
    doc_.by_path_.insert_or_assign(scalar.dotted(), index);  // a duplicate key: the last one wins, as in PyYAML
    doc_.scalars_.push_back(std::move(scalar));
    if (stack_.empty()) return;
    Frame& top = stack_.back();
    if (top.is_map) {
      if (key == "_target_") {
        top.target_text = text;
        top.target_mark = mark;
      } else {
        top.children.push_back(index);
      }
    } else if (top.is_args && stack_.size() >= 2) {
      stack_[stack_.size() - 2].args.push_back(index);
    }
  }

  void open(const YAML::Mark& mark, bool is_map) {
    Frame frame;
    frame.is_map = is_map;
    if (!stack_.empty() && stack_.back().is_map && stack_.back().expecting_key) {
      frame.is_key = true;  // `? [a, b] : value`
      stack_.back().expecting_key = false;
      stack_.back().key = "<complex>";
      stack_.back().key_mark = mark;
    } else {
      std::string key;
      YAML::Mark key_mark;
      child_path(frame.path, key, key_mark);
      frame.is_key = !stack_.empty() && stack_.back().is_key;
      frame.is_args = !is_map && key == "_args_";
    }
    stack_.push_back(std::move(frame));
  }

  void close() {
    if (stack_.empty()) return;
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    if (frame.is_map && !frame.target_text.empty() && !frame.is_key) {
      TargetNode node;
      node.target = frame.target_text;
      node.path = frame.path;
      node.where = locate(frame.target_mark, frame.target_text.size());
      node.keywords = std::move(frame.children);
      node.positional = std::move(frame.args);
      doc_.targets_.push_back(std::move(node));
    }
  }

  ConfigDocument& doc_;
  const SourceFile& file_;
  std::size_t base_;
  std::vector<Frame> stack_;
};

bool nested_too_deep(std::string_view text) {
  int depth = 0;
  for (const char c : text) {
    if (c == '[' || c == '{') {
      if (++depth > kMaxConfigNesting) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

std::variant<ConfigDocument, FileDiagnostic> ConfigDocument::parse(const SourceFile& file) {
  ConfigDocument doc;
  doc.path_ = file.path();
  doc.format_ = file.path().ends_with(".json") ? Format::Json : Format::Yaml;
  const std::string_view content = std::string_view(file.text()).substr(file.content_offset());
  if (nested_too_deep(content))
    return FileDiagnostic{FileDiagnostic::Severity::Warning, file.path(), std::nullopt,
                          "config file nested more than " + std::to_string(kMaxConfigNesting) + " levels deep; not read"};
  doc.package_ = doc.format_ == Format::Yaml ? package_directive(content) : "";
  try {
    std::istringstream stream{std::string(content)};
    YAML::Parser parser(stream);
    ConfigBuilder builder(doc, file, file.content_offset());
    // Only the first document: yaml.safe_load and OmegaConf.load refuse a stream of several, and
    // what they would read cannot be told from the later ones.
    parser.HandleNextDocument(builder);
  } catch (const YAML::Exception& e) {
    FileDiagnostic diag{FileDiagnostic::Severity::Warning, file.path(), std::nullopt, ""};
    if (!e.mark.is_null()) diag.position = file.position_at(file.content_offset() + static_cast<std::size_t>(std::max(e.mark.pos, 0)));
    diag.message = std::string(doc.format_ == Format::Json ? "malformed JSON" : "malformed YAML") + ": " + e.msg +
                   "; the file's values were not read";
    return diag;
  }
  return doc;
}

const ConfigScalar* ConfigDocument::find(std::string_view dotted) const {
  const auto it = by_path_.find(dotted);
  return it == by_path_.end() ? nullptr : &scalars_[it->second];
}

const ConfigScalar* ConfigDocument::resolve(const ConfigScalar& scalar, std::vector<ProvenanceStep>& steps,
                                            std::span<const std::string> mounts) const {
  const ConfigScalar* current = &scalar;
  // The value an interpolation ends at, with where it is set.
  auto arrived = [&]() {
    if (current != &scalar)
      steps.push_back(ProvenanceStep{current->where, current->dotted() + ": " + current->text + " is set here"});
    return current;
  };
  for (int hop = 0; hop < 16; ++hop) {
    const std::string& text = current->text;
    if (current->quoted && !(text.size() > 3 && text.rfind("${", 0) == 0)) return arrived();
    if (!(text.size() > 3 && text.rfind("${", 0) == 0 && text.back() == '}')) return arrived();
    std::string key = text.substr(2, text.size() - 3);
    if (key.find(':') != std::string::npos || key.find('$') != std::string::npos) return nullptr;  // a resolver
    std::vector<std::string> base;
    if (!key.empty() && key.front() == '.') {
      base = current->path;
      if (base.empty()) return nullptr;  // the document's root scalar has no siblings
      base.pop_back();  // `${.x}` is a sibling
      std::size_t dots = 0;
      while (dots < key.size() && key[dots] == '.') ++dots;
      for (std::size_t up = 1; up < dots; ++up) {
        if (base.empty()) return nullptr;
        base.pop_back();
      }
      key = key.substr(dots);
    }
    const bool absolute = base.empty();
    std::string dotted = join(base);
    if (!key.empty()) dotted += (dotted.empty() ? "" : ".") + key;
    if (dotted.empty()) return nullptr;
    const ConfigScalar* next = find(dotted);
    // An absolute key names the composed config: in a file Hydra mounts at `model`,
    // `${model.base_eps}` is this file's `base_eps`.
    for (std::size_t m = 0; next == nullptr && absolute && m < mounts.size(); ++m) {
      const std::string& mount = mounts[m];
      if (!mount.empty() && dotted.size() > mount.size() && dotted.compare(0, mount.size(), mount) == 0 &&
          dotted[mount.size()] == '.')
        next = find(std::string_view(dotted).substr(mount.size() + 1));
    }
    if (next == nullptr) return nullptr;
    steps.push_back(ProvenanceStep{current->where, current->dotted() + ": " + text + " refers to " + dotted});
    current = next;
  }
  return nullptr;
}

}  // namespace cudnnlint::config
