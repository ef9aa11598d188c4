// Sizes through a model class's `forward`: `net = Net(); net(torch.randn(1, 3, 8, 8))`, where Net
// is a torch.nn.Module of the same module that builds its layers in `__init__`
// (`self.conv1 = nn.Conv2d(3, 6, 5)`, `self.features = nn.Sequential(...)`) and applies them in
// `forward` (`x = self.pool(F.relu(self.conv1(x)))`). forward's straight-line statements are read
// in order, with the spatial size of every local name the code makes plain; a branch, a loop or an
// expression the reader does not know ends what it knows (it never guesses). The first layer that
// rejects its input becomes a ShapeChainFact.
#pragma once

#include "python/resolver.h"

#include <optional>
#include <string>
#include <vector>

namespace cudnnlint::python {

// Where a tensor's size comes from: its sizes (0 for channels a transform leaves unknown), the
// expression as written, and where the first spatial size is fixed.
struct LoopBatch;  // python/extract/local_values.h

struct ShapeSource {
  std::vector<std::int64_t> dims;
  std::string text;
  std::vector<Location> where;                           // per axis: where its size is written
  std::vector<std::vector<ProvenanceStep>> provenance;   // per axis: named sizes' definitions
};

// A literal-shaped factory (`torch.randn(1, 3, 4, 4)`, through names bound once) or a transformed
// image (`preprocess(img).unsqueeze(0)`, python/extract/transform_sizes.h); nullopt otherwise.
std::optional<ShapeSource> torch_shape_source(TSNode input, Resolver& r);
// The batches a loop takes from a DataLoader over a dataset the API table knows (local_values.h
// LoopBatch): (batch, C, H, W), the batch the loader's batch size when it is known, else 1.
std::optional<ShapeSource> dataset_batch_source(const LoopBatch& batch, Resolver& r);
// Whether the class's one base is torch.nn.Module (a plain PyTorch module the forward reader reads).
bool is_torch_module_class(TSNode class_definition, Resolver& r);
// The same, or a Keras model or layer class (keras.Model, keras.layers.Layer) whose call() the reader reads.
bool is_model_class(TSNode class_definition, Resolver& r);

// The model class `class_definition` applied at `call` to a tensor of sizes `input`. Appends a
// ShapeChainFact to r.out() when a layer that forward applies rejects its input.
// `construction`: the call that builds the model (`Net(k=5)`), whose arguments and __init__
// defaults bind its parameters; null when not known.
void read_model_forward(TSNode class_definition, TSNode call, const ShapeSource& input, Resolver& r,
                        TSNode construction = {});

}  // namespace cudnnlint::python
