#include "python/relevance.h"

#include "python/extract/loader.h"
#include "python/extract/shape_chain.h"
#include "python/extract/tensor_dtype.h"

#include <algorithm>

namespace cudnnlint::python {

namespace {

void add(Relevance& out, ExtractorRelevance&& declared) {
  for (auto& word : declared.words)
    if (std::find(out.words.begin(), out.words.end(), word) == out.words.end()) out.words.push_back(std::move(word));
  std::move(declared.pairs.begin(), declared.pairs.end(), std::back_inserter(out.pairs));
  std::move(declared.quoted.begin(), declared.quoted.end(), std::back_inserter(out.quoted));
  std::move(declared.framework_markers.begin(), declared.framework_markers.end(),
            std::back_inserter(out.framework_markers));
  std::move(declared.framework_words.begin(), declared.framework_words.end(), std::back_inserter(out.framework_words));
}

}  // namespace

Relevance relevance_of(const ApiTable& table, std::span<const std::string> families) {
  auto has = [&](std::string_view family) { return std::find(families.begin(), families.end(), family) != families.end(); };
  const std::vector<std::string> family_list(families.begin(), families.end());
  Relevance out;
  out.words = table.trigger_words(family_list);
  out.quoted_tokens = table.quoted_tokens(family_list);
  for (const auto& token : out.quoted_tokens) out.quoted.push_back(token.substr(1, token.size() - 2));
  out.attributes = table.instance_attributes();
  // Each family's extractors' declarations, in a fixed order (the pairs' order is the planner's).
  if (has(kLoaderFamily)) add(out, LoaderExtractor::relevance(table));
  if (has(kDtypeFamily)) add(out, TensorDtypeExtractor::relevance(table));
  if (has(kShapeFamily)) add(out, ShapeChainExtractor::relevance(table));
  out.follows_class_uses = has(kConvolutionFamily);
  return out;
}

std::vector<ExtractorRelevance> whole_text_readers(const ApiTable& table) {
  std::vector<ExtractorRelevance> readers;
  readers.push_back(LoaderExtractor::relevance(table));
  readers.push_back(ShapeChainExtractor::relevance(table));
  readers.push_back(TensorDtypeExtractor::relevance(table));
  return readers;
}

}  // namespace cudnnlint::python
