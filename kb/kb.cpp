#include "kb/kb.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

namespace cudnnlint::kb {

using nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------------
// Reading fields leniently: the renderer must survive entries that bypassed the schema (tests,
// future fields), so a missing key, a null or a value of the wrong type reads as "" / empty.

const json& member(const json& j, std::string_view key) {
  static const json null_value;
  if (!j.is_object()) return null_value;
  auto it = j.find(key);
  return it == j.end() ? null_value : *it;
}

std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  return {};
}

std::string text(const json& j, std::string_view key) { return scalar_text(member(j, key)); }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

// Control characters become spaces, runs of spaces collapse, ends are trimmed.
std::string one_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool pending_space = false;
  for (char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7f || ch == ' ') {
      pending_space = true;
      continue;
    }
    if (pending_space && !out.empty()) out += ' ';
    pending_space = false;
    out += ch;
  }
  return out;
}

size_t longest_backtick_run(std::string_view s) {
  size_t best = 0, run = 0;
  for (char c : s) {
    run = (c == '`') ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

std::string inline_code(std::string_view raw) {
  const std::string s = one_line(raw);
  const std::string ticks(longest_backtick_run(s) + 1, '`');
  const bool pad = !s.empty() && (s.front() == '`' || s.back() == '`');
  return ticks + (pad ? " " : "") + s + (pad ? " " : "") + ticks;
}

// Text placed between ** **: one line, no leading/trailing blanks, no "**" inside.
std::string bold(std::string_view raw) {
  std::string s = one_line(raw);
  for (size_t pos = s.find("**"); pos != std::string::npos; pos = s.find("**", pos + 2)) s.replace(pos, 2, "\\*\\*");
  return "**" + s + "**";
}

std::string table_cell(std::string_view raw) {
  std::string s = one_line(raw);
  if (s.empty()) return "—";
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string link_target(std::string_view url) {
  std::string out;
  for (char c : one_line(url)) {
    if (c == ' ') out += "%20";
    else if (c == '(') out += "%28";
    else if (c == ')') out += "%29";
    else if (c == '<') out += "%3C";
    else if (c == '>') out += "%3E";
    else out += c;
  }
  return out;
}

std::string link(std::string_view title, std::string_view url) {
  std::string t = one_line(title);
  const std::string u = link_target(url);
  if (u.empty()) return t;
  if (t.empty()) return "<" + u + ">";
  std::string esc;
  for (char c : t) {
    if (c == '[' || c == ']') esc += '\\';
    esc += c;
  }
  return "[" + esc + "](" + u + ")";
}

// Indents every line after the first by `indent` (continuation lines of a list item).
std::string continue_lines(std::string_view s, std::string_view indent) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out;
}

std::string fenced(std::string_view body, std::string_view indent) {
  // Drop trailing blank lines but keep the body's own indentation.
  std::string b(body);
  while (!b.empty() && (b.back() == '\n' || b.back() == '\r' || b.back() == ' ' || b.back() == '\t')) b.pop_back();
  while (!b.empty() && (b.front() == '\n' || b.front() == '\r')) b.erase(b.begin());
  const std::string fence(std::max<size_t>(3, longest_backtick_run(b) + 1), '`');
  std::string out;
  out += indent;
  out += fence;
  out += '\n';
  size_t start = 0;
  while (start <= b.size()) {
    size_t nl = b.find('\n', start);
    if (nl == std::string::npos) nl = b.size();
    std::string_view line(b.data() + start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) out += indent;
    out += line;
    out += '\n';
    start = nl + 1;
  }
  out += indent;
  out += fence;
  out += '\n';
  return out;
}

// 0.95 -> "95%", 0.925 -> "92.5%"; "" when absent, not a number or not finite.
std::string percent(const json& v) {
  if (!v.is_number()) return {};
  const double r = v.get<double>();
  if (!std::isfinite(r)) return {};
  const double tenths = std::round(r * 1000.0) / 10.0;
  char buf[32];
  if (std::fabs(tenths - std::round(tenths)) < 1e-9)
    std::snprintf(buf, sizeof buf, "%.0f%%", tenths);
  else
    std::snprintf(buf, sizeof buf, "%.1f%%", tenths);
  return buf;
}

std::vector<std::string> string_list(const json& v) {
  std::vector<std::string> out;
  if (!v.is_array()) return out;
  for (const auto& item : v) {
    std::string s = trim(scalar_text(item));
    if (!s.empty()) out.push_back(std::move(s));
  }
  return out;
}

// The i-th item of a translation list (workarounds_zh, dead_ends_zh), or "".
std::string translated(const json& entry, std::string_view key, size_t i) {
  const json& list = member(entry, key);
  if (!list.is_array() || i >= list.size()) return {};
  return trim(scalar_text(list[i]));
}

// ---------------------------------------------------------------------------------------------
// Localised words.

struct Words {
  const char* id;
  const char* domain;
  const char* category;
  const char* error_code;
  const char* verification;
  const char* confidence;
  const char* fix_rate;
  const char* resolvable;
  const char* docs;
  const char* matches;
  const char* aliases;
  const char* tags;
  const char* first_seen;
  const char* last_confirmed;
  const char* last_updated;
  const char* evidence;
  const char* root_cause;
  const char* versions;
  const char* col_version;
  const char* col_status;
  const char* col_introduced;
  const char* col_deprecated;
  const char* col_removed;
  const char* col_change;
  const char* os_notes;
  const char* workarounds;
  const char* dead_ends;
  const char* related;
  const char* leads_to;
  const char* preceded_by;
  const char* confused_with;
  const char* sources;
  const char* when;
  const char* sources_inline;  // label, including the space that follows it where the language wants one
  const char* open_paren;
  const char* close_paren;
  const char* success_fmt;  // "(%s success)"
  const char* fail_fmt;     // "(%s fail)"
  const char* sep;          // between the dead end's action and why
  const char* list_sep;     // between aliases
};

constexpr Words kEn{
    "ID", "Domain", "Category", "Error Code", "Verification", "Confidence", "Fix Rate", "Resolvable",
    "Official docs", "Matches", "Aliases", "Tags", "First seen", "Last confirmed", "Last updated", "Evidence",
    "Root Cause", "Version Compatibility", "Version", "Status", "Introduced", "Deprecated", "Removed",
    "Behavior change", "OS-specific Notes", "Workarounds", "Dead Ends", "Related Entries", "Leads to",
    "Preceded by", "Frequently confused with", "Sources", "When:", "Sources: ", " (", ")", "(%s success)",
    "(%s fail)", " — ", "; "};

constexpr Words kZh{
    "ID", "领域", "类别", "错误码", "验证级别", "置信度", "修复成功率", "可解决", "官方文档", "匹配",
    "别名", "标签", "首次发现", "最近确认", "最近更新", "证据数", "根本原因", "版本兼容性", "版本", "状态",
    "引入", "弃用", "移除", "行为变化", "操作系统相关说明", "解决方法", "无效尝试", "相关条目", "可能导致",
    "前置问题", "容易混淆", "参考来源", "适用条件：", "来源：", "（", "）", "（成功率 %s）", "（失败率 %s）", "——",
    "；"};

const Words& words(Lang lang) { return lang == Lang::Zh ? kZh : kEn; }

std::string format1(const char* fmt, const std::string& arg) {
  std::string out;
  std::string_view f(fmt);
  const size_t pos = f.find("%s");
  if (pos == std::string_view::npos) return std::string(f);
  out.append(f.substr(0, pos));
  out += arg;
  out.append(f.substr(pos + 2));
  return out;
}

std::string status_label(const std::string& status, Lang lang) {
  struct Label {
    const char* key;
    const char* en;
    const char* zh;
  };
  static constexpr Label labels[] = {
      {"affected", "affected", "受影响"},       {"not_affected", "not affected", "不受影响"},
      {"active", "active", "存在（当前）"},     {"fixed", "fixed", "已修复"},
      {"deprecated", "deprecated", "已弃用"},   {"removed", "removed", "已移除"},
      {"unknown", "unknown", "未知"},
  };
  for (const auto& l : labels)
    if (status == l.key) return lang == Lang::Zh ? l.zh : l.en;
  return status;
}

std::string tier_note(const std::string& tier, Lang lang) {
  struct Note {
    const char* key;
    const char* en;
    const char* zh;
  };
  static constexpr Note notes[] = {
      {"ai_generated", "written by a model, not checked against sources", "由模型生成，未对照来源核实"},
      {"community_reported", "from issue threads or forum posts, not cross-checked", "来自 issue 或论坛帖子，未交叉核实"},
      {"source_verified", "every claim backed by a cited source; nothing was run", "每条结论都有引用来源；未实际运行"},
      {"framework_measured", "the framework behaviour it states was run on the framework's CPU wheels (tests/probes)",
       "所述框架行为已在框架的 CPU wheel 上实测（tests/probes）"},
      {"descriptor_tier_measured", "replayed against a real libcudnn at descriptor level (no kernel launch)",
       "已在真实 libcudnn 上按描述符层级复现（未启动内核）"},
      {"gpu_measured", "replayed on a GPU and the behaviour observed", "已在 GPU 上复现并观察到该行为"},
  };
  for (const auto& n : notes)
    if (tier == n.key) return lang == Lang::Zh ? n.zh : n.en;
  return {};
}

std::string resolvable_label(const json& v, Lang lang) {
  std::string s = scalar_text(v);
  const bool zh = lang == Lang::Zh;
  if (s == "true") return zh ? "是" : "yes";
  if (s == "false") return zh ? "否" : "no";
  if (s == "partial") return zh ? "部分" : "partly";
  if (s == "unknown") return zh ? "未知" : "unknown";
  return one_line(s);
}

// One per-item citation: a string (URL or free text) or a {title, url, ...} object.
std::string citation(const json& src) {
  if (src.is_string()) {
    const std::string s = trim(src.get<std::string>());
    if (s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0) return "<" + link_target(s) + ">";
    return one_line(s);
  }
  if (src.is_object()) return link(text(src, "title"), text(src, "url"));
  return {};
}

std::string citations_line(const json& list, const Words& w, std::string_view indent) {
  std::vector<std::string> parts;
  if (list.is_array())
    for (const auto& s : list) {
      std::string c = citation(s);
      if (!c.empty()) parts.push_back(std::move(c));
    }
  if (parts.empty()) return {};
  std::string out(indent);
  out += w.sources_inline;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ", ";
    out += parts[i];
  }
  out += '\n';
  return out;
}

void section(std::string& md, const char* heading, const std::string& body) {
  if (body.empty()) return;
  md += "\n## ";
  md += heading;
  md += "\n\n";
  md += body;
}

// ---------------------------------------------------------------------------------------------
// Sections.

std::string header_bullets(const Entry& e, const json& d, Lang lang, const Words& w) {
  std::string out;
  auto bullet = [&](const char* label, const std::string& value) {
    if (value.empty()) return;
    out += "- **";
    out += label;
    out += lang == Lang::Zh ? "：** " : ":** ";
    out += value;
    out += '\n';
  };
  const std::string id = trim(e.id.empty() ? text(d, "id") : e.id);
  bullet(w.id, id.empty() ? std::string() : inline_code(id));
  bullet(w.domain, one_line(text(d, "domain")));
  {
    std::string cat = one_line(text(d, "category"));
    const std::string sub = one_line(text(d, "subcategory"));
    if (!sub.empty()) cat = cat.empty() ? sub : cat + " / " + sub;
    bullet(w.category, cat);
  }
  {
    const std::string code = trim(e.error_code.empty() ? text(d, "error_code") : e.error_code);
    bullet(w.error_code, code.empty() ? std::string() : inline_code(code));
  }
  {
    const std::string tier = one_line(e.verification_tier.empty() ? text(d, "verification_tier") : e.verification_tier);
    const std::string note = tier_note(tier, lang);
    bullet(w.verification,
           tier.empty() ? std::string() : (note.empty() ? tier : tier + w.open_paren + note + w.close_paren));
  }
  // confidence and fix_success_rate are the authors' estimates, with no source a reader could check:
  // kept in the data (and SARIF's properties), not shown as if measured.
  bullet(w.resolvable, resolvable_label(member(d, "resolvable"), lang));
  {
    const std::string url = trim(e.official_doc_url.empty() ? text(d, "official_doc_url") : e.official_doc_url);
    const std::string sec = one_line(text(d, "official_doc_section"));
    std::string value;
    if (!url.empty()) value = "<" + link_target(url) + ">";
    if (!sec.empty()) value = value.empty() ? sec : value + w.open_paren + sec + w.close_paren;
    bullet(w.docs, value);
  }
  {
    const std::string re = text(d, "regex");
    bullet(w.matches, trim(re).empty() ? std::string() : inline_code(re));
  }
  {
    const auto aliases = string_list(member(d, "aliases"));
    std::string value;
    for (size_t i = 0; i < aliases.size(); ++i) {
      if (i) value += w.list_sep;
      value += one_line(aliases[i]);
    }
    bullet(w.aliases, value);
  }
  {
    const auto tags = string_list(member(d, "tags"));
    std::string value;
    for (size_t i = 0; i < tags.size(); ++i) {
      if (i) value += ", ";
      value += inline_code(tags[i]);
    }
    bullet(w.tags, value);
  }
  {
    std::vector<std::string> parts;
    auto add = [&](const char* label, const std::string& value) {
      if (!value.empty()) parts.push_back(std::string(label) + (lang == Lang::Zh ? "：" : ": ") + value);
    };
    add(w.first_seen, one_line(text(d, "first_seen")));
    add(w.last_confirmed, one_line(text(d, "last_confirmed")));
    add(w.last_updated, one_line(text(d, "last_updated")));
    add(w.evidence, one_line(text(d, "evidence_count")));
    std::string value;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) value += " · ";
      value += parts[i];
    }
    if (!value.empty()) out += "- " + value + "\n";
  }
  return out;
}

std::string versions_table(const json& d, Lang lang, const Words& w) {
  const json& versions = member(d, "versions");
  if (!versions.is_array()) return {};
  struct Row {
    std::string version, status, introduced, deprecated, removed, change;
  };
  std::vector<Row> rows;
  bool any_removed = false, any_change = false;
  for (const auto& v : versions) {
    Row r{one_line(text(v, "version")),     one_line(text(v, "status")),
          one_line(text(v, "introduced")),  one_line(text(v, "deprecated")),
          one_line(text(v, "removed")),     one_line(text(v, "behavior_change"))};
    if (r.version.empty() && r.status.empty() && r.introduced.empty() && r.deprecated.empty() && r.removed.empty() &&
        r.change.empty())
      continue;
    if (!r.status.empty()) r.status = status_label(r.status, lang);
    any_removed = any_removed || !r.removed.empty();
    any_change = any_change || !r.change.empty();
    rows.push_back(std::move(r));
  }
  if (rows.empty()) return {};
  std::string out = "| ";
  out += w.col_version;
  out += " | ";
  out += w.col_status;
  out += " | ";
  out += w.col_introduced;
  out += " | ";
  out += w.col_deprecated;
  out += " |";
  std::string rule = "|---------|--------|------------|------------|";
  if (any_removed) {
    out += " ";
    out += w.col_removed;
    out += " |";
    rule += "---------|";
  }
  if (any_change) {
    out += " ";
    out += w.col_change;
    out += " |";
    rule += "-----------------|";
  }
  out += "\n" + rule + "\n";
  for (const auto& r : rows) {
    out += "| " + table_cell(r.version) + " | " + table_cell(r.status) + " | " + table_cell(r.introduced) + " | " +
           table_cell(r.deprecated) + " |";
    if (any_removed) out += " " + table_cell(r.removed) + " |";
    if (any_change) out += " " + table_cell(r.change) + " |";
    out += '\n';
  }
  return out;
}

std::string os_notes(const json& d) {
  const json& os = member(d, "os_specific");
  if (!os.is_object()) return {};
  std::string out;
  for (auto it = os.begin(); it != os.end(); ++it) {
    std::string note = trim(scalar_text(it.value()));
    if (note.empty() && it.value().is_object()) note = one_line(it.value().dump());
    if (note.empty()) continue;
    out += "- " + bold(it.key() + ":") + " " + continue_lines(note, "  ") + "\n";
  }
  return out;
}


// Whether a workaround or dead end cites something a reader can look up: a non-empty string, or an
// entry with a title or a URL.
bool cites_a_source(const json& item) {
  const json& sources = member(item, "sources");
  if (!sources.is_array()) return false;
  return std::any_of(sources.begin(), sources.end(), [](const json& source) {
    if (source.is_string()) return !trim(source.get<std::string>()).empty();
    return source.is_object() && (!trim(text(source, "title")).empty() || !trim(text(source, "url")).empty());
  });
}

std::string workarounds(const json& d, Lang lang, const Words& w) {
  const json& list = member(d, "workarounds");
  if (!list.is_array()) return {};
  std::string out;
  int number = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& item = list[i];
    const std::string action_en = trim(text(item, "action"));
    std::string action = lang == Lang::Zh ? translated(d, "workarounds_zh", i) : std::string();
    if (action.empty()) action = action_en;
    const std::string how = trim(text(item, "how"));
    const std::string condition = trim(text(item, "condition"));
    if (action.empty() && how.empty()) continue;
    // A rate is shown only where the workaround cites the sources it comes from.
    const std::string rate = cites_a_source(item) ? percent(member(item, "success_rate")) : std::string();
    const std::string num = std::to_string(++number) + ". ";
    const std::string indent(num.size(), ' ');
    std::string line;
    if (!action.empty()) line = bold(action);
    if (!rate.empty()) line += (line.empty() || lang == Lang::Zh ? "" : " ") + format1(w.success_fmt, rate);
    out += num + line;
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
    if (!condition.empty()) out += indent + "*" + w.when + "* " + continue_lines(condition, indent) + "\n";
    if (!how.empty() && how != action_en && how != action) out += fenced(text(item, "how"), indent);
    out += citations_line(member(item, "sources"), w, indent);
  }
  return out;
}

std::string dead_ends(const json& d, Lang lang, const Words& w) {
  const json& list = member(d, "dead_ends");
  if (!list.is_array()) return {};
  std::string out;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& item = list[i];
    const std::string zh = lang == Lang::Zh ? translated(d, "dead_ends_zh", i) : std::string();
    const std::string action = trim(text(item, "action"));
    const std::string why = trim(text(item, "why_fails"));
    const std::string condition = trim(text(item, "condition"));
    const std::string rate = cites_a_source(item) ? percent(member(item, "fail_rate")) : std::string();
    std::string line;
    if (!zh.empty()) {
      line = continue_lines(zh, "  ");
    } else {
      if (!action.empty()) line = bold(action);
      if (!why.empty()) line += (line.empty() ? "" : std::string(w.sep)) + continue_lines(why, "  ");
    }
    if (line.empty()) continue;  // nothing to say about this dead end
    if (!rate.empty()) line += (lang == Lang::Zh ? "" : " ") + format1(w.fail_fmt, rate);
    out += "- " + line + "\n";
    if (!condition.empty()) out += std::string("  *") + w.when + "* " + continue_lines(condition, "  ") + "\n";
    out += citations_line(member(item, "sources"), w, "  ");
  }
  return out;
}

std::string related(const json& d, const Words& w) {
  const json& graph = member(d, "transition_graph");
  std::string out;
  const std::pair<const char*, const char*> edges[] = {
      {"leads_to", w.leads_to}, {"preceded_by", w.preceded_by}, {"frequently_confused_with", w.confused_with}};
  for (const auto& [key, label] : edges) {
    const auto ids = string_list(member(graph, key));
    if (ids.empty()) continue;
    out += std::string("- **") + label + ":** ";
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i) out += ", ";
      out += inline_code(ids[i]);
    }
    out += '\n';
  }
  return out;
}

std::string sources(const json& d) {
  const json& list = member(d, "sources");
  if (!list.is_array()) return {};
  std::string out;
  int number = 0;
  for (const auto& s : list) {
    std::string head;
    std::string claim, evidence;
    if (s.is_object()) {
      head = link(text(s, "title"), text(s, "url"));
      claim = one_line(text(s, "claim"));
      evidence = one_line(text(s, "evidence"));
    } else {
      head = citation(s);
    }
    if (head.empty() && claim.empty()) continue;
    std::string line = std::to_string(++number) + ". " + head;
    if (!claim.empty()) line += (head.empty() ? "" : " — ") + claim;
    if (!evidence.empty()) line += " *(" + evidence + ")*";
    out += line + "\n";
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Entry make_entry(json j) {
  Entry e;
  e.id = trim(text(j, "id"));
  e.signature = text(j, "signature");
  e.root_cause = text(j, "root_cause");
  e.error_code = text(j, "error_code");
  e.verification_tier = text(j, "verification_tier");
  e.official_doc_url = text(j, "official_doc_url");
  e.data = std::make_shared<const json>(std::move(j));
  return e;
}

bool is_entry_path(std::string_view path) {
  constexpr std::string_view prefix = "kb/", suffix = ".json";
  if (path.size() <= prefix.size() + suffix.size() || !path.starts_with(prefix) || !path.ends_with(suffix))
    return false;
  const std::string_view rest = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  const size_t slash = rest.find('/');
  return slash != std::string_view::npos && slash > 0 && slash + 1 < rest.size() &&
         rest.find('/', slash + 1) == std::string_view::npos;
}

std::vector<Entry> load_entries(std::span<const EmbeddedFile> files) {
  std::vector<std::pair<Entry, std::string_view>> loaded;
  for (const auto& f : files) {
    if (!is_entry_path(f.path)) continue;
    json j;
    try {
      j = json::parse(f.contents);
    } catch (const json::exception& ex) {
      throw std::runtime_error("KB entry " + std::string(f.path) + " does not parse: " + ex.what());
    }
    if (!j.is_object()) throw std::runtime_error("KB entry " + std::string(f.path) + " is not a JSON object");
    const json& id = member(j, "id");
    if (!id.is_string() || trim(id.get<std::string>()).empty())
      throw std::runtime_error("KB entry " + std::string(f.path) + " has no string \"id\"");
    loaded.emplace_back(make_entry(std::move(j)), f.path);
  }
  std::sort(loaded.begin(), loaded.end(), [](const auto& a, const auto& b) { return a.first.id < b.first.id; });
  for (size_t i = 1; i < loaded.size(); ++i)
    if (loaded[i].first.id == loaded[i - 1].first.id)
      throw std::runtime_error("KB id " + loaded[i].first.id + " is defined twice: " + std::string(loaded[i - 1].second) +
                               " and " + std::string(loaded[i].second));
  std::vector<Entry> out;
  out.reserve(loaded.size());
  for (auto& item : loaded) out.push_back(std::move(item.first));
  return out;
}

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all = load_entries(embedded_files());
  return all;
}

const Entry* find(std::string_view id) {
  const auto& all = entries();
  auto it = std::lower_bound(all.begin(), all.end(), id, [](const Entry& e, std::string_view key) { return e.id < key; });
  return it != all.end() && it->id == id ? &*it : nullptr;
}

std::string render_markdown(const Entry& e, Lang lang) {
  static const json empty_object = json::object();
  const json& d = e.data ? *e.data : empty_object;
  const Words& w = words(lang);

  std::string title;
  if (lang == Lang::Zh) title = one_line(text(d, "signature_zh"));
  if (title.empty()) title = one_line(e.signature.empty() ? text(d, "signature") : e.signature);
  if (title.empty()) title = one_line(e.id.empty() ? text(d, "id") : e.id);
  if (title.empty()) title = lang == Lang::Zh ? "（无标题的知识库条目）" : "(untitled KB entry)";

  std::string md = "# " + title + "\n";
  const std::string bullets = header_bullets(e, d, lang, w);
  if (!bullets.empty()) md += "\n" + bullets;

  std::string cause;
  if (lang == Lang::Zh) cause = trim(text(d, "root_cause_zh"));
  if (cause.empty()) cause = trim(e.root_cause.empty() ? text(d, "root_cause") : e.root_cause);
  section(md, w.root_cause, cause.empty() ? std::string() : cause + "\n");

  section(md, w.versions, versions_table(d, lang, w));
  section(md, w.os_notes, os_notes(d));
  section(md, w.workarounds, workarounds(d, lang, w));
  section(md, w.dead_ends, dead_ends(d, lang, w));
  section(md, w.related, related(d, w));
  section(md, w.sources, sources(d));
  return md;
}

std::string short_description(const Entry& e) {
  constexpr size_t kMax = 1000;
  const json empty_object = json::object();
  const json& d = e.data ? *e.data : empty_object;
  std::string s = one_line(e.signature.empty() ? text(d, "signature") : e.signature);
  if (s.empty()) s = one_line(e.root_cause.empty() ? text(d, "root_cause") : e.root_cause);
  if (s.empty()) s = one_line(e.id);
  if (s.empty()) s = "cudnnlint knowledge-base entry";
  if (s.size() <= kMax) return s;
  const std::string ellipsis = "…";  // 3 bytes in UTF-8
  size_t cut = kMax - ellipsis.size();
  // Never split a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s + ellipsis;
}

std::optional<Lang> parse_lang(std::string_view s) {
  // Primary language subtag, then an optional "-REGION" / "_Script" suffix that is not empty.
  const size_t sep = s.find_first_of("-_");
  if (sep != std::string_view::npos && sep + 1 == s.size()) return std::nullopt;
  std::string primary;
  for (char c : s.substr(0, sep)) primary += static_cast<char>((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
  if (primary == "en") return Lang::En;
  if (primary == "zh") return Lang::Zh;
  return std::nullopt;
}

}  // namespace cudnnlint::kb
