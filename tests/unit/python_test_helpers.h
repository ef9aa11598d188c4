// Shared helpers for tests that run the Python front-end on inline source text.
#pragma once

#include "core/source_file.h"
#include "python/frontend.h"
#include "python/relevance.h"
#include "python/syntax.h"
#include "core/api_table.h"

#include <string>

namespace cudnnlint::testing {

// The options a first pass uses: regions planned from the normalization triggers.
inline python::PythonOptions first_pass_options(python::ParseMode mode = python::ParseMode::Regions) {
  python::PythonOptions options;
  options.mode = mode;
  options.module = "model";
  options.triggers = ApiTable::builtin().quoted_tokens(options.families);
  options.trigger_words = ApiTable::builtin().trigger_words(options.families);
  options.attributes = ApiTable::builtin().instance_attributes();
  options.class_uses_count = python::relevance_of(ApiTable::builtin(), options.families).follows_class_uses;
  return options;
}

inline python::PythonAnalysis analyze_source(const std::string& text, const std::string& path = "model.py",
                                             python::ParseMode mode = python::ParseMode::Regions) {
  const SourceFile file(path, text);
  const python::Parser parser;
  return python::analyze_python(file, ApiTable::builtin(), parser, first_pass_options(mode));
}

inline FileFacts facts_of(const std::string& text) { return analyze_source(text).facts; }

}  // namespace cudnnlint::testing
