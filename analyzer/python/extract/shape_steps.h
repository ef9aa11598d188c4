// The layer steps of a size chain (python/extract/shape_chain.cpp, model_forward.cpp): what one
// layer does to a spatial size, by the formula its framework uses (measured on a grid:
// tests/probes/torch_shapes.py, tf_shapes.py), and the small readers they share.
#pragma once

#include "python/extract/layer_stacks.h"
#include "python/resolver.h"
#include "core/sizes_text.h"  // uniform_text, padding_dilation_text

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::python {

// "keras.layers.Conv2D" whichever way the code reaches Keras (tf.keras, tf_keras, keras.src).
std::string keras_name(const std::string& name);
std::string leaf_of(const std::string& name);
// Layers that keep the spatial size (activations, batch norm, dropout) of `framework`.
bool keeps_size(const std::string& name, const std::string& framework);

// A Keras layer that merges its inputs into one (`concatenate`, `add`, their classes `Concatenate`,
// `Add`, ...), reached as `name`.
bool keras_merge(const std::string& name);
// The leaf names of the Keras layers keeps_size knows, and of the merges.
const std::vector<std::string>& keras_size_keeping_layers();
const std::vector<std::string>& keras_merge_layers();

struct Pool {
  int axes = 0;
  bool max = true;
};
// The pooling layer class `name` is in `framework` ("torch" or "keras"), if it is one.
std::optional<Pool> pooling(const std::string& name, const std::string& framework);

// The argument at `index` (or keyword `name`); null when not written.
TSNode argument(const CallArgs& args, std::size_t index, std::string_view name);
// An int on every axis, or a tuple/list of one per axis; empty when the code does not fix it.
std::vector<std::int64_t> per_axis(TSNode node, int axes, Resolver& r);
std::int64_t floor_div(std::int64_t a, std::int64_t b);
std::int64_t ceil_div(std::int64_t a, std::int64_t b);

// "torch" or "keras" when `name` is that framework's Sequential, else "".
std::string framework_of_sequential(const std::string& name);

// Runs a spatial size through layers, appending a ShapeStep per layer to `fact`, up to the first
// layer that rejects its input (then fact.rejected_by, padded_input, kernel_extent and conv are set).
class ChainBuilder {
 public:
  ChainBuilder(ShapeChainFact& fact, Resolver& r) : fact_(fact), r_(r) {}
  // The chain is a Keras graph built on `keras.Input` or `input_shape=` (symbolic): building it
  // refuses a pooling output below 1, which an eager call on a tensor returns as an empty tensor
  // for 0 (tests/probes/tf_shapes.py, tensorflow-cpu 2.21.0 / Keras 3.15.1).
  void symbolic_keras_graph() { symbolic_keras_ = true; }

  // Runs `spatial` (with `channels`, 0 when unknown) through `layer`, a layer's construction. False
  // ends the chain: an unknown layer, a size not fixed, or a rejection (then fact_.rejected_by is set).
  bool step(TSNode layer, std::vector<std::int64_t>& spatial, std::int64_t& channels, std::int64_t batch);
  // The same for a layer a stack's builder gave (python/extract/layer_stacks.h): read in its scope,
  // with the numbers the run fixed for its names, which its step's text then names.
  bool step(const BoundLayer& layer, std::vector<std::int64_t>& spatial, std::int64_t& channels, std::int64_t batch);
  // A pooling function applied at `site` (`F.max_pool2d(x, 2)`), `args` without the input.
  bool pool_call(const Pool& pool, const CallArgs& args, TSNode site, std::vector<std::int64_t>& spatial,
                 std::int64_t channels);

 private:
  bool convolution(const ApiEntry& api, TSNode layer, const CallArgs& args, ShapeStep out,
                   std::vector<std::int64_t>& spatial, std::int64_t& channels, std::int64_t batch);
  bool pooling_step(const Pool& pool, const CallArgs& args, ShapeStep out, std::vector<std::int64_t>& spatial,
                    std::int64_t channels);
  // A Keras merge: each branch run from `spatial`; one step for the whole merge.
  bool merge(const BoundLayer& layer, std::vector<std::int64_t>& spatial, std::int64_t& channels, std::int64_t batch);

  ShapeChainFact& fact_;
  Resolver& r_;
  bool symbolic_keras_ = false;
};

}  // namespace cudnnlint::python
