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
  std::size_t parsed_bytes = 0;             // less than the file when only regions were parsed
};

enum class ParseMode {
  Regions,  // parse only the top-level statements that can produce facts (python/regions.h)
  Full,     // parse everything: the reference the shortcut is tested against
};

// Whether `text` can name any API of `table` at all; files that cannot are not parsed.
bool may_contain_trigger(std::string_view text, const ApiTable& table);

PythonAnalysis analyze_python(const SourceFile& file, const ApiTable& table, const Parser& parser,
                              ParseMode mode = ParseMode::Regions);

}  // namespace cudnnlint::python
