// The Python front-end: one source file in, Facts out. Parses (only the regions that can
// matter), builds scopes and imports, and runs the resolver with the extractors the run needs.
// Knows Python syntax and the API table's shape, nothing about cuDNN verdicts.
#pragma once

#include "core/api_table.h"
#include "python/regions.h"
#include "python/syntax.h"
#include "core/facts.h"
#include "core/source_file.h"

#include <map>
#include <memory>
#include <set>
#include <span>
#include <string_view>
#include <string>
#include <vector>

namespace cudnnlint::python {

class Parser;
class ParsedSource;  // python/incremental_tree.h

enum class ParseMode {
  Regions,  // parse only the top-level statements that can produce facts (python/regions.h)
  Full,     // parse everything: the reference the shortcut is tested against
};

struct PythonOptions {
  ParseMode mode = ParseMode::Regions;
  std::string module;            // the file's module name ("pkg.sub.mod"); "" when unknown
  bool is_package = false;       // an __init__.py
  std::vector<std::string> families{std::string(kNormalizationFamily)};  // which extractors run
  bool argparse = false;         // collect add_argument defaults
  bool config_defaults = false;  // collect yacs-style config defaults
  // What the region planner keeps: top-level statements containing one of `triggers` (the
  // prefilter's substrings), naming one of `trigger_words` (whole identifiers: the project's own
  // callables), or assigning one of `attributes` on an object (`m.eps = ...`).
  std::vector<std::string> triggers;
  std::vector<std::string> trigger_words;
  std::vector<std::string> attributes;
  std::vector<WordPair> pairs;   // words relevant only together (the dtype family's sources and consumers)
  bool own_names_count = true;   // a definition's own name makes it relevant (see plan_parse)
  bool class_uses_count = true;  // a relevant class's uses are relevant (see plan_parse)
  // A tree of the file parsed ahead (the language server's, kept across edits): used instead of
  // a parse when its text is the file's, byte for byte. The whole file is analysed then, as in
  // ParseMode::Full.
  std::shared_ptr<const ParsedSource> parsed;
  // The tree's constants this file imports (the project step's second extraction); may be null.
  std::shared_ptr<const ImportedConstants> imported_constants;
  // The config files' values of the key paths this file reads (the project step's second extraction).
  std::shared_ptr<const ConfigConstants> config_constants;
};

struct PythonAnalysis {
  FileFacts facts;
  std::vector<FileDiagnostic> diagnostics;  // syntax errors (analysis still ran on what parsed)
  std::size_t parsed_bytes = 0;             // less than the file when only regions were parsed
};

// Whether `text` contains any of `tokens`; files that cannot name an API are not parsed.
bool may_contain_any(std::string_view text, const std::vector<std::string>& tokens);
// Whether an `import m...` or `from m... import` line that runs when the module is imported names
// one of `modules`: at module level, or in a module-level `try:` / `if` / `with` block, not in a
// def or class (a function that imports TensorFlow to convert weights is no TensorFlow pipeline).
bool imports_at_module_level(std::string_view text, const std::vector<std::string>& modules);

PythonAnalysis analyze_python(const SourceFile& file, const ApiTable& table, const Parser& parser,
                              const PythonOptions& options);

// ---- for python/module_parts.cpp: the steps of analyze_python --------------------------------
struct NodeLocator;  // python/const_eval.h
// The facts one parsed tree yields (a whole module, a region parse, one part of a module), with the
// names the parse left out bound at module level. `region`: what of a whole tree a region plan
// keeps (the language server's kept tree); the rest counts as left out.
void extract_facts(TSNode root, const NodeLocator& locator, const ApiTable& table, const PythonOptions& options,
                   std::span<const std::string_view> skipped_names, FileFacts& facts, RegionFilter region = {});
// What the extractors read from a module's whole text, not from its tree: two texts with the same
// features and the same statements give the same facts.
std::string whole_text_features(std::string_view source);
// The frameworks (API-table keys) a module's text imports, in order of first import.
std::vector<std::string> imported_frameworks(std::string_view source, const ApiTable& table);

// Whether `text` parses as Python without a syntax error (the check after a fix is applied).
bool parses_without_error(std::string_view text);

// What a module binds at its top level, for following `from .constants import EPS` and
// re-exports through __init__.py (the project step asks for the modules it needs).
struct ModuleExports {
  std::string module;
  std::map<std::string, Value> values;          // `NAME = <expr>` bound once
  std::map<std::string, std::string> imported;  // `from .x import NAME` -> "pkg.x.NAME"
  std::vector<std::string> definitions;         // module-level def and class names
  std::vector<std::string> star_modules;        // `from .x import *` -> "pkg.x", in order
  std::set<std::string> bound;                  // every name the module binds itself, however often
};

// `parsed`: the file's tree parsed ahead (PythonOptions::parsed), used when its text is the file's.
ModuleExports module_exports(const SourceFile& file, const ApiTable& table, const Parser& parser,
                             const std::string& module, bool is_package, const ParsedSource* parsed = nullptr);

}  // namespace cudnnlint::python
