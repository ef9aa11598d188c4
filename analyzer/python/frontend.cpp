#include "python/frontend.h"

#include "python/comments.h"
#include "python/const_eval.h"
#include "python/extract/config_values.h"
#include "python/extract/conv_geometry.h"
#include "python/extract/loader.h"
#include "python/extract/normalization.h"
#include "python/extract/tensor_dtype.h"
#include "python/extract/shape_chain.h"
#include "python/relevance.h"
#include "python/imports.h"
#include "python/incremental_tree.h"
#include "python/module_parts.h"
#include "python/regions.h"
#include "python/resolver.h"
#include "python/scopes.h"
#include "python/syntax.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

namespace cudnnlint::python {

namespace {

// tree-sitter's ts_builtin_sym_error; the 0.20 runtime has no ts_node_is_error.
constexpr TSSymbol kErrorSymbol = static_cast<TSSymbol>(-1);

std::optional<TSNode> first_error(TSNode root) {
  std::optional<TSNode> found;
  walk_tree(
      root,
      [&](TSNode node, const TSTreeCursor*) {
        if (found) return false;
        if (ts_node_symbol(node) == kErrorSymbol || ts_node_is_missing(node)) {
          found = node;
          return false;
        }
        return ts_node_has_error(node);
      },
      [](TSNode) {});
  return found;
}

// The first statement of a block (or of the module) that starts its line at another column than
// the block's other statements: Python rejects the file (IndentationError: unindent does not match
// any outer indentation level, unexpected indent), where tree-sitter's recovery takes the line as a
// statement of an outer block, with no error node. Walks statements and clauses only, never
// expressions (a lambda holds no block).
std::optional<TSNode> misindented_statement(TSNode root, std::string_view source) {
  const Grammar& g = Grammar::get();
  std::optional<TSNode> found;
  const auto line_column = [&](TSNode node) -> std::optional<std::uint32_t> {
    const std::uint32_t start = ts_node_start_byte(node);
    std::uint32_t at = start;
    while (at > 0 && (source[at - 1] == ' ' || source[at - 1] == '\t' || source[at - 1] == '\f')) --at;
    if (at > 0 && source[at - 1] != '\n' && source[at - 1] != '\r') return std::nullopt;  // after `;` or a colon
    return start - at;
  };
  const auto check = [&](TSNode block, bool module) {
    std::optional<std::uint32_t> expected;
    if (module) expected = 0;
    for (const TSNode statement : named_children(block)) {
      if (is(statement, g.comment)) continue;
      const auto column = line_column(statement);
      if (!column) continue;
      if (!expected) expected = column;
      else if (*column != *expected) {
        found = statement;
        return;
      }
    }
  };
  walk_tree(
      root,
      [&](TSNode node, const TSTreeCursor*) {
        if (found) return false;
        if (is(node, g.module) || is(node, g.block)) {
          check(node, is(node, g.module));
          return !found;
        }
        const std::string_view type = ts_node_type(node);
        return type.ends_with("_statement") || type.ends_with("_clause") || type.ends_with("_definition");
      },
      [](TSNode) {});
  return found;
}

// The framework root modules of the table (torch, tensorflow, ...): names imported from them are
// never project values.
std::vector<std::string> framework_roots(const ApiTable& table) {
  std::vector<std::string> roots;
  for (const auto& name : {"torch", "torchvision", "tensorflow", "keras", "tf_keras", "flax", "jax", "haiku", "mxnet",
                           "paddle", "numpy", "functools", "math", "os", "sys", "argparse", "typing", "collections"})
    roots.emplace_back(name);
  for (const auto& key : {"torch", "tensorflow", "keras", "flax", "haiku", "mxnet", "paddle"})
    if (const FrameworkInfo* fw = table.framework(key))
      for (const auto& root : fw->roots)
        if (std::find(roots.begin(), roots.end(), root) == roots.end()) roots.push_back(root);
  return roots;
}

// The top-level module of every absolute `import x...` and `from x... import` line, in order of
// appearance.
std::vector<std::string> imported_top_modules(std::string_view source) {
  std::vector<std::string> out;
  for (const std::string& module : imported_module_candidates(source, ModuleContext{})) {
    std::string top = module.substr(0, module.find('.'));
    if (std::find(out.begin(), out.end(), top) == out.end()) out.push_back(std::move(top));
  }
  return out;
}

struct Parsed {
  TreePtr tree;
  std::optional<ParsePlan> plan;
  bool whole_tree = false;  // the language server's kept tree: the plan's statements are walked in it
};

// `plan`: the region plan, in Regions mode; one with nothing relevant was answered by the caller.
Parsed parse(std::string_view source, const Parser& parser, const PythonOptions& options,
             std::optional<ParsePlan> plan) {
  Parsed parsed;
  if (options.parsed && options.parsed->text == source && options.parsed->tree() != nullptr) {
    parsed.tree = TreePtr(ts_tree_copy(options.parsed->tree()));
    // The statements the plan keeps are the ones a region parse would hold; a tree with a syntax
    // error, or a plan cut where Python is not, is walked whole (a region parse would fall back too).
    const TSNode root = ts_tree_root_node(parsed.tree.get());
    if (plan && !plan->ranges.empty() && !ts_node_has_error(root) && cuts_between_statements(root, plan->ranges)) {
      parsed.plan = std::move(plan);
      parsed.whole_tree = true;
    }
    return parsed;
  }
  parsed.plan = std::move(plan);
  if (parsed.plan) {
    parsed.tree = parser.parse(source, parsed.plan->ranges);
    // A region parse that stumbles may have been cut at a wrong place (an f-string the small
    // lexer misread): the full parse is the authority then.
    if (!parsed.tree || ts_node_has_error(ts_tree_root_node(parsed.tree.get()))) parsed.plan.reset();
  }
  if (!parsed.plan) parsed.tree = parser.parse(source);
  return parsed;
}

}  // namespace

bool may_contain_any(std::string_view text, const std::vector<std::string>& tokens) {
  // glibc's memmem (two-way) rather than string_view::find, whose memchr-then-memcmp loop stalls on
  // needles starting with a common letter ("tensorflow" in 58 MB of Python).
  for (const auto& token : tokens)
    if (!token.empty() && ::memmem(text.data(), text.size(), token.data(), token.size()) != nullptr) return true;
  return false;
}

namespace {

std::size_t indent_of(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return n;
}

// Whether the line starting at `begin` is inside a def or class: some less indented line above it,
// walking out to column 0, opens one.
bool inside_definition(std::string_view text, std::size_t begin, std::size_t indent) {
  std::size_t end = begin;  // the start of the line below the one examined
  while (indent > 0 && end > 0) {
    const std::size_t line_start = text.rfind('\n', end - 2 < end ? end - 2 : 0);
    const std::size_t from = line_start == std::string_view::npos ? 0 : line_start + 1;
    const std::string_view line = text.substr(from, end - 1 - from);
    end = from;
    const std::size_t k = indent_of(line);
    if (k >= line.size() || line[k] == '#' || k >= indent) {
      if (from == 0) break;
      continue;
    }
    const std::string_view code = line.substr(k);
    if (code.rfind("def ", 0) == 0 || code.rfind("async def ", 0) == 0 || code.rfind("class ", 0) == 0) return true;
    indent = k;
    if (from == 0) break;
  }
  return false;
}

}  // namespace

bool imports_at_module_level(std::string_view text, const std::vector<std::string>& modules) {
  for (const auto& module : modules) {
    // Most files never spell the module: one search for its name, not one per import form.
    if (module.empty() || ::memmem(text.data(), text.size(), module.data(), module.size()) == nullptr) continue;
    for (const std::string_view keyword : {std::string_view("import "), std::string_view("from ")}) {
      const std::string needle = std::string(keyword) + module;
      for (std::size_t at = 0;;) {
        const void* hit = ::memmem(text.data() + at, text.size() - at, needle.data(), needle.size());
        if (hit == nullptr) break;
        const auto offset = static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
        at = offset + 1;
        const std::size_t end = offset + needle.size();
        if (end < text.size() && text[end] != ' ' && text[end] != '.' && text[end] != ',' && text[end] != '\n' &&
            text[end] != '\r')
          continue;  // `import tensorflow_hub`
        const std::size_t line_start = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;
        const std::string_view before = text.substr(line_start, offset - line_start);
        if (before.find_first_not_of(" \t") != std::string_view::npos) continue;  // not at a line's start
        if (!inside_definition(text, line_start, before.size())) return true;
      }
    }
  }
  return false;
}

namespace {

constexpr std::size_t kMaxBracketDepth = 1000;

// The deepest run of unclosed ( [ { in the text (strings and comments counted too: deep nesting
// there is as rare).
std::size_t max_bracket_depth(std::string_view text) {
  // A table and no branch per byte: the language server asks on every keystroke (200 kB files).
  static constexpr auto kStep = [] {
    std::array<int, 256> step{};
    for (const unsigned char c : std::string_view("([{")) step[c] = 1;
    for (const unsigned char c : std::string_view(")]}")) step[c] = -1;
    return step;
  }();
  long depth = 0, deepest = 0;
  for (const char c : text) {
    depth = std::max(0L, depth + kStep[static_cast<unsigned char>(c)]);  // a stray closer counts nothing
    deepest = std::max(deepest, depth);
  }
  return static_cast<std::size_t>(deepest);
}

}  // namespace

void extract_facts(TSNode root, const NodeLocator& locator, const ApiTable& table, const PythonOptions& options,
                   std::span<const std::string_view> skipped_names, FileFacts& facts, RegionFilter region) {
  ImportTable imports(ModuleContext{options.module, options.is_package});
  ScopeTree scopes;
  scopes.build(root, locator.source, imports, table.qualified_names(), region);
  scopes.add_module_bindings(skipped_names);
  auto wants = [&](std::string_view family) {
    return std::find(options.families.begin(), options.families.end(), family) != options.families.end();
  };
  NormalizationExtractor normalization;
  ConvGeometryExtractor conv_geometry;
  LoaderExtractor loader(table);
  TensorDtypeExtractor tensor_dtype;
  ShapeChainExtractor shape_chain;
  ArgparseExtractor argparse;
  ConfigDefaultsExtractor config_defaults;
  std::vector<Extractor*> extractors;
  if (wants(kNormalizationFamily)) extractors.push_back(&normalization);
  if (wants(kConvolutionFamily)) extractors.push_back(&conv_geometry);
  if (wants(kLoaderFamily)) extractors.push_back(&loader);
  if (wants(kDtypeFamily)) extractors.push_back(&tensor_dtype);
  if (wants(kShapeFamily)) extractors.push_back(&shape_chain);
  if (options.argparse) extractors.push_back(&argparse);
  if (options.config_defaults) extractors.push_back(&config_defaults);

  const std::vector<std::string> roots = framework_roots(table);
  Resolver resolver(locator, scopes, imports, table, options.module, roots, facts, options.imported_constants.get(),
                    options.config_constants.get());
  resolver.run(root, extractors, region);
}

std::string whole_text_features(std::string_view source) {
  // What the extractors declare they read from the module's whole text rather than from nodes
  // (ExtractorRelevance): a TensorFlow import at module level, spellings present or not, and the
  // lines of some spellings and line starts (a mixed_float16 policy, `import torch` lines).
  static const std::vector<ExtractorRelevance> readers = whole_text_readers(ApiTable::builtin());
  std::string features;
  for (const auto& reader : readers)
    if (reader.reads_framework_import)
      features += imports_at_module_level(source, {"tensorflow", "keras", "tf_keras"}) ? 'T' : '-';
  for (const auto& reader : readers)
    for (const auto& word : reader.whole_text_words) features += may_contain_any(source, {word}) ? '1' : '0';
  for (const auto& reader : readers)
    for (const auto& word : reader.whole_text_lines)
      for (std::size_t at = source.find(word); at != std::string_view::npos; at = source.find(word, at + 1)) {
        const std::size_t line = source.rfind('\n', at) == std::string_view::npos ? 0 : source.rfind('\n', at) + 1;
        features += '|';
        features += source.substr(line, std::min(source.find('\n', at), source.size()) - line);
      }
  for (const auto& reader : readers)
    for (const auto& start : reader.whole_text_line_starts)
      for (std::size_t at = 0; at < source.size();) {
        const std::size_t end = std::min(source.find('\n', at), source.size());
        if (source.substr(at, end - at).starts_with(start)) {
          features += '|';
          features += source.substr(at, end - at);
        }
        at = end + 1;
      }
  return features;
}

std::vector<std::string> imported_frameworks(std::string_view source, const ApiTable& table) {
  std::vector<std::string> frameworks;
  for (const auto& module : imported_top_modules(source))
    if (const FrameworkInfo* fw = table.framework_for_module(module))
      if (std::find(frameworks.begin(), frameworks.end(), fw->key) == frameworks.end()) frameworks.push_back(fw->key);
  return frameworks;
}

PythonAnalysis analyze_python(const SourceFile& file, const ApiTable& table, const Parser& parser,
                              const PythonOptions& options) {
  PythonAnalysis result;
  result.facts.path = file.path();
  result.facts.language = "python";
  result.facts.module = options.module;
  const std::string_view source = std::string_view(file.text()).substr(file.content_offset());
  const NodeLocator locator{file, source, file.content_offset()};

  // CPython refuses more than 200 nested brackets ("too many nested parentheses"); tree-sitter
  // 0.20 corrupts its heap past 65,531 unclosed ones (munmap_chunk() in ts_tree_delete). Such a
  // file cannot run: it is named and skipped, the run goes on.
  if (const std::size_t depth = max_bracket_depth(source); depth > kMaxBracketDepth) {
    result.diagnostics.push_back({FileDiagnostic::Severity::Error, file.path(), std::nullopt,
                                  std::to_string(depth) + " nested brackets (Python allows 200, cudnnlint parses up to " +
                                      std::to_string(kMaxBracketDepth) + "): not parsed, no findings from it"});
    return result;
  }
  // The plan comes first, for the language server's document too (whose whole tree is kept): a
  // text with no relevant region gives what a command-line run gives, with no walk of a tree
  // (timm's 5,300-line vision_transformer.py, walked whole on every keystroke, took 15 ms).
  // With a kept tree only whether anything is relevant matters (the tree is walked whole then),
  // and that is answered at the first relevant statement.
  const bool tree_kept = options.parsed && options.parsed->text == source;
  std::optional<ParsePlan> plan;
  bool irrelevant = false;
  if (options.mode == ParseMode::Regions && tree_kept) {
    irrelevant = nothing_relevant(source, options.triggers, options.trigger_words, options.attributes, options.pairs,
                                  options.own_names_count);
  } else if (options.mode == ParseMode::Regions) {
    plan = plan_parse(source, options.triggers, options.trigger_words, options.attributes, options.pairs,
                      options.own_names_count, options.class_uses_count);
    irrelevant = plan && plan->nothing_relevant;
  }
  if (irrelevant) {
    result.parsed_bytes = 0;
    result.facts.frameworks = imported_frameworks(source, table);
    result.facts.suppressions = suppression_comments(
        source, [&](std::size_t offset) { return file.position_at(locator.base + offset).line; });
    return result;
  }
  // The language server's document: the parts an edit did not touch keep their facts.
  if (tree_kept && options.parsed->parts)
    if (auto by_parts = analyze_by_parts(file, table, parser, options, *options.parsed->parts)) return std::move(*by_parts);
  // The kept tree walked whole: only the statements a command-line run parses are entered (in
  // transformers' testing_utils.py a ninth of the module; the walk was most of a keystroke).
  if (options.mode == ParseMode::Regions && tree_kept)
    plan = plan_parse(source, options.triggers, options.trigger_words, options.attributes, options.pairs,
                      options.own_names_count, options.class_uses_count);
  Parsed parsed = parse(source, parser, options, std::move(plan));
  result.parsed_bytes = parsed.plan ? parsed.plan->parsed_bytes : source.size();
  if (!parsed.tree) {
    result.diagnostics.push_back({FileDiagnostic::Severity::Error, file.path(), std::nullopt,
                                  "the Python parser gave up on this file (too deeply nested?); skipped"});
    return result;
  }
  const TSNode root = ts_tree_root_node(parsed.tree.get());
  if (ts_node_has_error(root)) {
    FileDiagnostic diag{FileDiagnostic::Severity::Warning, file.path(), std::nullopt, ""};
    if (const auto error = first_error(root)) {
      diag.position = locator.locate(*error).range.begin;
      diag.message = std::string("syntax error") + (ts_node_is_missing(*error) ? " (something is missing)" : "") +
                     "; the parts that parse were analysed";
    } else {
      diag.message = "syntax error; the parts that parse were analysed";
    }
    result.diagnostics.push_back(std::move(diag));
  } else if (!parsed.plan) {
    // A whole tree only: a region parse holds the planned statements, whose columns say nothing
    // of the file's.
    if (const auto misindented = misindented_statement(root, source)) {
      result.diagnostics.push_back({FileDiagnostic::Severity::Warning, file.path(), locator.locate(*misindented).range.begin,
                                    "syntax error (an indentation Python rejects); the parts that parse were analysed"});
    }
  }

  // The frameworks a file imports, read from its text: region parsing may leave out imports that
  // no parsed code uses, and the list must not depend on it.
  result.facts.frameworks = imported_frameworks(source, table);
  std::span<const std::string_view> skipped;
  RegionFilter region;
  if (parsed.plan) skipped = parsed.plan->skipped_names;
  if (parsed.plan && parsed.whole_tree) region.ranges = parsed.plan->ranges;
  extract_facts(root, locator, table, options, skipped, result.facts, region);
  result.facts.suppressions = suppression_comments(
      source, [&](std::size_t offset) { return file.position_at(locator.base + offset).line; });
  return result;
}

ModuleExports module_exports(const SourceFile& file, const ApiTable& table, const Parser& parser,
                             const std::string& module, bool is_package, const ParsedSource* parsed) {
  ModuleExports exports;
  exports.module = module;
  const std::string_view source = std::string_view(file.text()).substr(file.content_offset());
  const NodeLocator locator{file, source, file.content_offset()};
  TreePtr tree;
  std::optional<ModuleStatementsPlan> plan;
  if (parsed != nullptr && parsed->text == source && parsed->tree() != nullptr) {
    tree = TreePtr(ts_tree_copy(parsed->tree()));
  } else {
    // Only the module's own statements bind what it exports: its functions and classes (most of a
    // modeling file) are left out of the parse, their names still bound.
    plan = plan_module_statements(source);
    if (plan) tree = parser.parse(source, plan->ranges);
    if (plan && (!tree || ts_node_has_error(ts_tree_root_node(tree.get())))) plan.reset();
    if (!plan) tree = parser.parse(source);
  }
  if (!tree) return exports;
  const TSNode root = ts_tree_root_node(tree.get());
  ImportTable imports(ModuleContext{module, is_package});
  ScopeTree scopes;
  scopes.build(root, source, imports, table.qualified_names());
  if (plan) scopes.add_module_bindings(plan->definition_names);
  const std::vector<std::string> roots = framework_roots(table);
  const ValueEvaluator evaluator(locator, scopes, imports, module, roots);
  for (const auto& [name, binding] : scopes.module().bindings) {
    exports.bound.emplace(name);
    if (binding.simple()) {
      exports.values.emplace(std::string(name), evaluator.evaluate(binding.value, &scopes.module()));
      // The definition is the assignment, not the expression.
      Value& value = exports.values[std::string(name)];
      TSNode statement = binding.assignment();
      if (!ts_node_is_null(statement)) value.where = locator.locate(statement);
    } else if (binding.only_definition()) {
      exports.definitions.emplace_back(name);
    } else if (binding.count == 1) {
      if (const auto imported = imports.lookup(name, &scopes.module())) exports.imported.emplace(std::string(name), std::string(*imported));
    }
  }
  if (plan)  // the definitions left out of the parse, each bound once
    for (const std::string_view name : plan->definition_names)
      if (const auto it = scopes.module().bindings.find(name); it != scopes.module().bindings.end() && it->second.count == 1)
        exports.definitions.emplace_back(name);
  exports.star_modules = imports.star_modules();
  return exports;
}

bool parses_without_error(std::string_view text) {
  thread_local const Parser parser;
  const TreePtr tree = parser.parse(text);
  return tree && !ts_node_has_error(ts_tree_root_node(tree.get()));
}

}  // namespace cudnnlint::python
