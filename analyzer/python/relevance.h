// What makes Python code relevant to each family's extractors, declared in one place: the words
// (API leaf names from the API table), the quoted registry names, the words that count only in
// TensorFlow or Keras files, the instance attributes a rule reads (`m.eps = ...`), and the word
// pairs whose halves matter only together (a dtype source and a layer; a float16 operand and a
// small epsilon), each with the scopes that may hold it (a function, a method, __init__, a class).
// The first pass's prefilter, the region planner, the fuzzers and the parity tests all read these,
// so that what the default mode parses and what the extractors read cannot drift apart by hand.
#pragma once

#include "core/api_table.h"
#include "python/regions.h"
#include "python/resolver.h"

#include <span>
#include <string>
#include <vector>

namespace cudnnlint::python {

struct Relevance {
  std::vector<std::string> words;              // identifiers naming an API of the families
  std::vector<std::string> quoted;             // registry names found in strings, without quotes ('BN')
  std::vector<std::string> quoted_tokens;      // the same with their quotes: what the planner searches
  std::vector<std::string> framework_markers;  // "tensorflow", "keras": ...
  std::vector<std::string> framework_words;    // ... the frameworks whose files these words count in
  std::vector<std::string> attributes;         // instance attributes a rule reads (`m.eps = ...`)
  std::vector<WordPair> pairs;
  // Whether the code naming a relevant class is relevant too (`block = ConvBlock(3)`): the
  // convolution family reads a class's geometry at its constructions. The other families reach
  // those through their pairs' classes and the project step's callables; following every use of
  // every relevant class parsed two-fifths more of transformers + timm for no fact of theirs.
  bool follows_class_uses = false;
};

Relevance relevance_of(const ApiTable& table, std::span<const std::string> families);

// Every extractor's declaration, in the order whole_text_features (python/frontend.h) reads them.
std::vector<ExtractorRelevance> whole_text_readers(const ApiTable& table);

}  // namespace cudnnlint::python
