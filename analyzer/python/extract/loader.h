// Loader facts from resolved Python uses: torch DataLoader and BatchSampler, tf.data
// `Dataset.batch` / `padded_batch`, Keras `fit` / `evaluate` / `predict(batch_size=...)` and
// transformers' TrainingArguments. For each: the batch size (folded, or a reference the project
// step follows; an integer division `global // world_size` keeps both operands), a guard on it
// in the enclosing function, drop_last / drop_remainder, and the dataset's size where the code
// makes it plain (`range(10)`, `TensorDataset(torch.randn(10, 3))`, `Subset(ds, range(8))`,
// `tf.data.Dataset.range(10)`).
//
// Also the zero-size inputs of TensorFlow and Keras layers: a tensor built with a literal shape
// whose batch dimension is 0 (`tf.zeros([0, 28, 28, 3])`, `np.zeros((0, ...))`) passed to a
// convolution, a batch norm or `model.predict`, as TensorInputFacts with their shape.
#pragma once

#include "python/resolver.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudnnlint::python {

class LoaderExtractor : public Extractor {
 public:
  explicit LoaderExtractor(const ApiTable& table) : methods_(table.methods_of(kLoaderFamily)) {}
  // Method APIs (tf.data's `batch`, Keras's `fit`) and the zero-size tensors it reads (`tf.zeros([0,
  // ...])` into a TensorFlow layer) matter only in files importing TensorFlow or Keras.
  static ExtractorRelevance relevance(const ApiTable& table);
  bool handles(const ApiEntry& api) const override;
  void on_use(const ApiUse& use, Resolver& r) override;
  void on_other_call(TSNode call, Resolver& r) override;

 private:
  void emit(const ApiUse& use, TSNode receiver, Resolver& r);
  bool tensorflow_file(Resolver& r);
  // `through`: how the input reaches the consumer (a model class's first layer), for a note.
  void zero_size_input(const std::string& consumer, const std::string& framework, TSNode argument, Resolver& r,
                       std::optional<ProvenanceStep> through = std::nullopt);
  std::vector<std::pair<std::string, const ApiEntry*>> methods_;
  std::optional<bool> tensorflow_file_;  // TensorFlow or Keras imported when the module loads
  std::optional<bool> names_batch_norm_;  // the text names a batch norm (a single-sample call may reach one)
};

}  // namespace cudnnlint::python
