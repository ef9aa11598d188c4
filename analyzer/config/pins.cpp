#include "config/pins.h"

#include "config/config_file.h"
#include "core/source_file.h"

#include <nlohmann/json.hpp>
#include <toml++/toml.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace cudnnlint::config {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxPinFileBytes = 8u << 20;  // lock files of large projects stay well below

std::string normalize_package(std::string_view name) {
  std::string out;
  for (char c : name) {
    const bool separator = c == '-' || c == '_' || c == '.';
    if (separator) {
      if (!out.empty() && out.back() != '-') out += '-';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::string trim(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return "";
  const auto end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

// "2.1" -> 2.2 (the next minor), "2" -> 3: the exclusive end of `2.1.*` and `~=2.1.0`-style ranges.
Version bump(const Version& v, int parts) {
  if (parts <= 1) return Version{v.major + 1, 0, 0};
  if (parts == 2) return Version{v.major, v.minor + 1, 0};
  return Version{v.major, v.minor, v.patch + 1};
}

int parts_of(std::string_view version) {
  version = version.substr(0, version.find_first_not_of("0123456789."));
  return static_cast<int>(std::count(version.begin(), version.end(), '.')) + 1;
}

void tighten_lower(VersionRange& range, const Version& v, bool inclusive) {
  if (!range.lower || v > *range.lower || (v == *range.lower && !inclusive)) {
    range.lower = v;
    range.lower_inclusive = inclusive;
  }
}

void tighten_upper(VersionRange& range, const Version& v, bool inclusive) {
  if (!range.upper || v < *range.upper || (v == *range.upper && !inclusive)) {
    range.upper = v;
    range.upper_inclusive = inclusive;
  }
}

// One clause: PEP 440 (==, ===, ~=, >=, <=, >, <, !=, ==X.*), Poetry (^, ~, a bare version) and conda
// (=X.Y, a bare version meaning X.Y.*). False when it is not a version constraint.
bool apply_clause(std::string_view clause, VersionRange& range, bool bare_is_prefix) {
  std::string text = trim(clause);
  if (text.empty() || text == "*") return true;
  std::string op;
  for (const char* candidate : {"===", "==", "~=", ">=", "<=", "!=", ">", "<", "^", "~", "="})
    if (text.starts_with(candidate)) {
      op = candidate;
      break;
    }
  std::string version_text = trim(std::string_view(text).substr(op.size()));
  const bool wildcard = version_text.ends_with(".*");
  if (wildcard) version_text.resize(version_text.size() - 2);
  const auto version = parse_release(version_text);
  if (!version) return false;
  const int parts = parts_of(version_text);
  if (op == "!=") return true;  // an excluded release does not move the bounds
  if (op == ">=") tighten_lower(range, *version, true);
  else if (op == ">") tighten_lower(range, *version, false);
  else if (op == "<=") tighten_upper(range, *version, true);
  else if (op == "<") tighten_upper(range, *version, false);
  else if (op == "~=") {
    tighten_lower(range, *version, true);
    tighten_upper(range, bump(*version, std::max(1, parts - 1)), false);
  } else if (op == "^") {  // Poetry: up to the next change of the first non-zero part
    tighten_lower(range, *version, true);
    tighten_upper(range, version->major != 0 ? bump(*version, 1) : bump(*version, 2), false);
  } else if (op == "~") {  // Poetry: ~2.1 and ~2.1.3 allow patch changes, ~2 minor ones
    tighten_lower(range, *version, true);
    tighten_upper(range, bump(*version, parts == 1 ? 1 : 2), false);
  } else if (wildcard || (op == "=" && bare_is_prefix) || (op.empty() && bare_is_prefix)) {
    // `==2.1.*`, conda's `=2.1` and bare `2.1`: every release of that prefix.
    tighten_lower(range, *version, true);
    tighten_upper(range, bump(*version, parts), false);
  } else {  // ==, ===, Poetry's bare version, conda's ==
    tighten_lower(range, *version, true);
    tighten_upper(range, *version, true);
  }
  return true;
}

bool parse_constraints(std::string_view text, VersionRange& range, bool bare_is_prefix) {
  bool any = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string clause = trim(text.substr(start, comma - start));
    if (!clause.empty()) {
      if (!apply_clause(clause, range, bare_is_prefix)) return false;
      any = true;
    }
    start = comma + 1;
  }
  range.text = trim(text);
  return any && (range.lower || range.upper);
}

std::string display_path(const fs::path& path) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  const fs::path relative = path.lexically_relative(cwd);
  if (!ec && !relative.empty() && !relative.string().starts_with("..")) return relative.string();
  return path.string();
}

std::optional<std::string> read_text(const fs::path& path, std::vector<FileDiagnostic>& diagnostics) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec || size > kMaxPinFileBytes || !fs::is_regular_file(path, ec)) {
    if (!ec && size > kMaxPinFileBytes)
      diagnostics.push_back({FileDiagnostic::Severity::Warning, display_path(path), std::nullopt,
                             "dependency file larger than 8 MiB: its pins are not read"});
    return std::nullopt;
  }
  auto text = read_file_bytes(path.string());
  if (!text) {
    diagnostics.push_back({FileDiagnostic::Severity::Warning, display_path(path), std::nullopt,
                           "cannot read this dependency file: its pins are not used for the target"});
    return std::nullopt;
  }
  return text;
}

unsigned line_of(std::string_view text, std::size_t offset) {
  return static_cast<unsigned>(std::count(text.begin(), text.begin() + std::min(offset, text.size()), '\n')) + 1;
}

class PinCollector {
 public:
  explicit PinCollector(ProjectPins& out) : out_(out) {}

  void add(std::string_view package, VersionRange range, const fs::path& file, unsigned line, int rank) {
    const std::string normalized = normalize_package(package);
    const std::string framework = framework_of_package(normalized);
    if (framework.empty()) return;
    out_.pins.push_back(Pin{framework, normalized, std::move(range), display_path(file), line, rank});
  }

  // The TOML document, or a diagnostic naming the file and the problem.
  std::optional<toml::table> parse_toml(const fs::path& file, const std::string& text) {
    // A pin is ASCII (package names, versions): toml++ reads the file's ASCII copy, which it can
    // read safely (core/source_file.h).
    if (text.find('\0') != std::string::npos) {
      out_.diagnostics.push_back({FileDiagnostic::Severity::Warning, display_path(file), std::nullopt,
                                  "not valid TOML (it holds NUL bytes), its pins are not read"});
      return std::nullopt;
    }
    try {
      return toml::parse(toml_ascii_copy(text), file.string());
    } catch (const toml::parse_error& e) {
      out_.diagnostics.push_back({FileDiagnostic::Severity::Warning, display_path(file), std::nullopt,
                                  std::string("not valid TOML, its pins are not read: ") + std::string(e.description())});
      return std::nullopt;
    }
  }

  // A PEP 508 line of a requirements file, pyproject array or setup.cfg list.
  void add_requirement(std::string_view text, const fs::path& file, unsigned line, int rank) {
    std::string package;
    VersionRange range;
    if (parse_requirement(text, package, range)) add(package, std::move(range), file, line, rank);
  }

  void requirements_file(const fs::path& file, const std::string* text, int rank) {
    if (!text) return;
    std::istringstream lines(*text);
    std::string line;
    unsigned number = 0;
    while (std::getline(lines, line)) {
      ++number;
      if (const auto hash = line.find(" #"); hash != std::string::npos) line.resize(hash);
      const std::string content = trim(line);
      if (content.empty() || content.front() == '#' || content.front() == '-') continue;  // options, -r, -e
      add_requirement(content, file, number, rank);
    }
  }

  void pyproject(const fs::path& file, const std::string* text, int rank) {
    if (!text) return;
    const auto parsed = parse_toml(file, *text);
    if (!parsed) return;
    const toml::table& doc = *parsed;
    auto pep508_array = [&](const toml::node* node) {
      if (const toml::array* array = node ? node->as_array() : nullptr)
        for (const auto& item : *array)
          if (const auto value = item.value<std::string>())
            add_requirement(*value, file, static_cast<unsigned>(item.source().begin.line), rank);
    };
    pep508_array(doc.at_path("project.dependencies").node());
    if (const toml::table* extras = doc.at_path("project.optional-dependencies").as_table())
      for (const auto& [name, list] : *extras) pep508_array(&list);
    // Poetry: name = "^2.1" or name = { version = "^2.1", ... }.
    auto poetry_table = [&](const toml::table* table) {
      if (table == nullptr) return;
      for (const auto& [name, spec] : *table) {
        const toml::node* version = &spec;
        if (const toml::table* detail = spec.as_table()) version = detail->get("version");
        if (version == nullptr) continue;
        if (const auto value = version->value<std::string>()) {
          VersionRange range;
          if (parse_constraints(*value, range, false))
            add(name.str(), std::move(range), file, static_cast<unsigned>(version->source().begin.line), rank);
        }
      }
    };
    poetry_table(doc.at_path("tool.poetry.dependencies").as_table());
    if (const toml::table* groups = doc.at_path("tool.poetry.group").as_table())
      for (const auto& [name, group] : *groups)
        if (const toml::table* g = group.as_table()) poetry_table(g->get_as<toml::table>("dependencies"));
  }

  // poetry.lock and uv.lock: [[package]] name = "torch" version = "2.4.1".
  void toml_lock(const fs::path& file, const std::string* text, int rank) {
    if (!text) return;
    const auto parsed = parse_toml(file, *text);
    if (!parsed) return;
    const toml::table& doc = *parsed;
    if (const toml::array* packages = doc.get_as<toml::array>("package"))
      for (const auto& entry : *packages) {
        const toml::table* package = entry.as_table();
        if (package == nullptr) continue;
        const auto name = package->get_as<std::string>("name");
        const auto version = package->get_as<std::string>("version");
        VersionRange range;
        if (name && version && parse_constraints("==" + version->get(), range, false))
          add(name->get(), std::move(range), file, static_cast<unsigned>(version->source().begin.line), rank);
      }
  }

  // Pipfile.lock: {"default": {"torch": {"version": "==2.4.1"}}, "develop": {...}}.
  void pipfile_lock(const fs::path& file, const std::string* text, int rank) {
    if (!text) return;
    const auto doc = nlohmann::json::parse(*text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      out_.diagnostics.push_back({FileDiagnostic::Severity::Warning, display_path(file), std::nullopt,
                                  "not valid JSON, its pins are not read"});
      return;
    }
    for (const char* section : {"default", "develop"}) {
      if (!doc.contains(section) || !doc[section].is_object()) continue;
      for (const auto& [name, info] : doc[section].items()) {
        if (!info.is_object() || !info.contains("version") || !info["version"].is_string()) continue;
        VersionRange range;
        if (!parse_constraints(info["version"].get<std::string>(), range, false)) continue;
        // JSON carries no positions: the line of the package's key.
        const auto at = text->find("\"" + name + "\"");
        add(name, std::move(range), file, at == std::string::npos ? 1 : line_of(*text, at), rank);
      }
    }
  }

  void setup_cfg(const fs::path& file, const std::string* text, int rank) {
    if (!text) return;
    std::istringstream lines(*text);
    std::string line, section;
    bool in_list = false;
    unsigned number = 0;
    while (std::getline(lines, line)) {
      ++number;
      const std::string content = trim(line);
      if (content.starts_with("[")) {
        section = content;
        in_list = false;
        continue;
      }
      const bool continuation = !line.empty() && (line.front() == ' ' || line.front() == '\t');
      if (!continuation) {
        in_list = false;
        const auto eq = content.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = trim(std::string_view(content).substr(0, eq));
        in_list = (section == "[options]" && key == "install_requires") || section == "[options.extras_require]";
        const std::string rest = trim(std::string_view(content).substr(eq + 1));
        if (in_list && !rest.empty()) add_requirement(rest, file, number, rank);
        continue;
      }
      if (in_list && !content.empty() && content.front() != '#') add_requirement(content, file, number, rank);
    }
  }

  // setup.py: string literals naming a known package with a constraint ("torch>=2.1"), never run.
  void setup_py(const fs::path& file, const std::string* text, int rank) {
    if (!text) return;
    for (std::size_t at = 0; at < text->size(); ++at) {
      const char quote = (*text)[at];
      if (quote != '"' && quote != '\'') continue;
      const auto close = text->find(quote, at + 1);
      if (close == std::string::npos) break;
      const std::string_view literal(text->data() + at + 1, close - at - 1);
      if (literal.size() < 64 && literal.find('\n') == std::string_view::npos &&
          literal.find_first_of("<>=~") != std::string_view::npos)
        add_requirement(literal, file, line_of(*text, at), rank);
      at = close;
    }
  }

  // environment.yml: conda specs (`pytorch=2.1`, `cudnn=8.9.2`, `channel::name ==1.2`) and pip's list.
  void environment(const fs::path& file, const std::string* text, int rank) {
    if (!text) return;
    if (nested_too_deep(*text)) {  // before yaml-cpp's scanner and recursion take memory and stack
      out_.diagnostics.push_back({FileDiagnostic::Severity::Warning, display_path(file), std::nullopt,
                                  "nested more than " + std::to_string(kMaxConfigNesting) +
                                      " levels deep, its pins are not read"});
      return;
    }
    YAML::Node doc;
    try {
      doc = YAML::Load(*text);
    } catch (const YAML::Exception& e) {
      out_.diagnostics.push_back({FileDiagnostic::Severity::Warning, display_path(file), std::nullopt,
                                  "not valid YAML, its pins are not read: " + e.msg});
      return;
    }
    if (!doc.IsMap() || !doc["dependencies"] || !doc["dependencies"].IsSequence()) return;
    for (const auto& item : doc["dependencies"]) {
      const unsigned line = static_cast<unsigned>(item.Mark().line + 1);
      if (item.IsScalar()) {
        std::string spec = item.as<std::string>();
        if (const auto channel = spec.find("::"); channel != std::string::npos) spec = spec.substr(channel + 2);
        const auto cut = spec.find_first_of("=<>!~ ");
        if (cut == std::string::npos) continue;
        const std::string name = spec.substr(0, cut);
        std::string constraint = trim(std::string_view(spec).substr(cut));
        if (const auto build = constraint.find('=', constraint.find_first_not_of("=<>!~ "));
            build != std::string::npos && constraint.find_first_of("<>!~") == std::string::npos)
          constraint.resize(build);  // `=2.1.0=py3.10_cuda11.8_0`: the build string is not a version
        VersionRange range;
        if (parse_constraints(constraint, range, true)) add(name, std::move(range), file, line, rank);
      } else if (item.IsMap() && item["pip"] && item["pip"].IsSequence()) {
        for (const auto& pip : item["pip"])
          if (pip.IsScalar()) add_requirement(pip.as<std::string>(), file, static_cast<unsigned>(pip.Mark().line + 1), rank);
      }
    }
  }

  std::optional<std::string> read(const fs::path& file) { return read_text(file, out_.diagnostics); }

  // One pin file, its format from its name.
  void pin_file(const fs::path& file, const std::optional<std::string>& text, int rank) {
    if (!text) return;
    const std::string name = file.filename().string();
    if (name == "poetry.lock" || name == "uv.lock") toml_lock(file, &*text, rank);
    else if (name == "Pipfile.lock") pipfile_lock(file, &*text, rank);
    else if (name == "pyproject.toml") pyproject(file, &*text, rank);
    else if (name == "setup.cfg") setup_cfg(file, &*text, rank);
    else if (name == "setup.py") setup_py(file, &*text, rank);
    else if (name.starts_with("environment.")) environment(file, &*text, rank);
    else if (name.ends_with(".txt")) requirements_file(file, &*text, rank);
  }

  // keras/src/version.py of a Keras 3 source tree: `__version__ = "3.16.0"`.
  void keras_version(const fs::path& file, const std::string* text) {
    if (!text) return;
    const auto at = text->find("__version__");
    if (at == std::string::npos) return;
    const auto quote = text->find_first_of("\"'", at);
    if (quote == std::string::npos || text->size() < quote + 2) return;
    if ((*text)[quote + 1] == '3' && out_.keras3_source.empty())
      out_.keras3_source = display_path(file) + ":" + std::to_string(line_of(*text, at));
  }

 private:
  ProjectPins& out_;
};

// The pin files of one directory, by rank: lock files first, then constraints, requirements,
// package metadata and conda environments.
void read_directory(const fs::path& dir, PinCollector& collector) {
  std::error_code ec;
  std::vector<fs::path> requirements, constraints;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.ends_with(".txt")) continue;
    if (name.starts_with("requirements")) requirements.push_back(it->path());
    else if (name.starts_with("constraints")) constraints.push_back(it->path());
  }
  for (fs::directory_iterator it(dir / "requirements", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".txt") requirements.push_back(it->path());
  std::sort(requirements.begin(), requirements.end());
  std::sort(constraints.begin(), constraints.end());
  auto exists = [&](const char* name) { return fs::is_regular_file(dir / name, ec); };
  auto read = [&](const fs::path& file) { return collector.read(file); };
  for (const char* name : {"poetry.lock", "uv.lock", "Pipfile.lock"})
    if (exists(name)) collector.pin_file(dir / name, read(dir / name), 0);
  for (const auto& file : constraints) collector.pin_file(file, read(file), 1);
  for (const auto& file : requirements) collector.pin_file(file, read(file), 2);
  for (const char* name : {"pyproject.toml", "setup.cfg", "setup.py"})
    if (exists(name)) collector.pin_file(dir / name, read(dir / name), 3);
  for (const char* name : {"environment.yml", "environment.yaml"})
    if (exists(name)) collector.pin_file(dir / name, read(dir / name), 4);
  if (fs::is_regular_file(dir / "keras" / "src" / "version.py", ec)) {
    const fs::path version = dir / "keras" / "src" / "version.py";
    const auto text = read(version);
    collector.keras_version(version, text ? &*text : nullptr);
  }
}

}  // namespace

bool parse_requirement(std::string_view text, std::string& package, VersionRange& range) {
  std::string requirement = trim(text.substr(0, text.find(';')));  // environment markers
  if (requirement.find('@') != std::string::npos || requirement.find("://") != std::string::npos) return false;
  std::size_t name_end = 0;
  while (name_end < requirement.size() &&
         (std::isalnum(static_cast<unsigned char>(requirement[name_end])) || requirement[name_end] == '-' ||
          requirement[name_end] == '_' || requirement[name_end] == '.'))
    ++name_end;
  if (name_end == 0) return false;
  package = normalize_package(std::string_view(requirement).substr(0, name_end));
  std::string_view rest = std::string_view(requirement).substr(name_end);
  if (!rest.empty() && rest.front() == '[') {  // extras: tensorflow[and-cuda]
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return false;
    rest.remove_prefix(close + 1);
  }
  std::string constraints = trim(rest);
  if (constraints.starts_with("(") && constraints.ends_with(")")) constraints = constraints.substr(1, constraints.size() - 2);
  if (constraints.empty() || constraints.find_first_of("<>=~!") != 0) return false;
  return parse_constraints(constraints, range, false);
}

std::string framework_of_package(std::string_view package) {
  const std::string name = normalize_package(package);
  if (name == "torch" || name == "pytorch") return "torch";
  if (name == "tensorflow" || name == "tensorflow-cpu" || name == "tensorflow-gpu" || name == "tensorflow-macos" ||
      name == "tensorflow-intel")
    return "tensorflow";
  if (name == "keras" || name == "tf-keras") return "keras";
  if (name == "cudnn" || name.starts_with("nvidia-cudnn-cu")) return "cudnn";
  if (name == "mxnet" || name.starts_with("mxnet-cu")) return "mxnet";
  if (name == "paddlepaddle" || name == "paddlepaddle-gpu") return "paddle";
  return "";
}

ProjectPins parse_pin_file(const std::string& name, const std::string& text) {
  ProjectPins out;
  PinCollector collector(out);
  if (name.ends_with("version.py")) collector.keras_version(name, &text);
  else collector.pin_file(name, text, 0);
  return out;
}

ProjectPins read_project_pins(const std::vector<std::string>& paths) {
  ProjectPins out;
  PinCollector collector(out);
  std::vector<fs::path> seen;
  for (const auto& path : paths) {
    std::error_code ec;
    fs::path start = fs::absolute(path, ec).lexically_normal();
    if (!fs::is_directory(start, ec)) start = start.parent_path();
    // Up to the repository's root; outside a repository, up to the first directory holding pins
    // (never the file system's root).
    bool in_repository = false;
    for (fs::path dir = start; !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
      if (fs::exists(dir / ".git", ec)) {
        in_repository = true;
        break;
      }
    for (fs::path dir = start; !dir.empty() && dir != dir.root_path(); dir = dir.parent_path()) {
      if (std::find(seen.begin(), seen.end(), dir) != seen.end()) break;
      seen.push_back(dir);
      const std::size_t before = out.pins.size();
      read_directory(dir, collector);  // nearer directories first, each by rank
      if (fs::exists(dir / ".git", ec) || (!in_repository && out.pins.size() > before)) break;
    }
  }
  return out;
}

}  // namespace cudnnlint::config
