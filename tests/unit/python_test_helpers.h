// Shared helpers for tests that run the Python front-end on inline source text.
#pragma once

#include "core/source_file.h"
#include "python/frontend.h"
#include "python/syntax.h"
#include "rules/api_table.h"

#include <string>

namespace cudnnlint::testing {

inline python::PythonAnalysis analyze_source(const std::string& text, const std::string& path = "model.py") {
  const SourceFile file(path, text);
  const python::Parser parser;
  return python::analyze_python(file, ApiTable::builtin(), parser);
}

inline FileFacts facts_of(const std::string& text) { return analyze_source(text).facts; }

}  // namespace cudnnlint::testing
