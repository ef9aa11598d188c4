// The Python front-end: one source file in, Facts out. Knows Python syntax and the API
// table's shape, nothing about cuDNN verdicts.
#pragma once

#include "core/facts.h"
#include "core/source_file.h"
#include "rules/api_table.h"

#include <vector>

namespace cudnnlint::python {

class Parser;

struct PythonAnalysis {
  FileFacts facts;
  std::vector<FileDiagnostic> diagnostics;  // syntax errors (analysis still ran on what parsed)
};

// Whether `text` can name any API of `table` at all; files that cannot are not parsed.
bool may_contain_trigger(std::string_view text, const ApiTable& table);

PythonAnalysis analyze_python(const SourceFile& file, const ApiTable& table, const Parser& parser);

}  // namespace cudnnlint::python
