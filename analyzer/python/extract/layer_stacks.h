// Layer stacks the code builds, read by running the code that builds them on abstract values
// (issue 35, constructs 2 and 5): the layers of
//  - `nn.Sequential(a, b)`, `keras.Sequential([a, b])` and `nn.ModuleList([...])` as written;
//  - `nn.Sequential(*layers)` after `layers = []` and `layers.append(...)`, `layers += [...]`,
//    `layers.extend([...])`, and `keras.Sequential()` after `model.add(...)`, in straight-line code,
//    in loops over a literal sequence or a `range`, and under conditions those values decide (VGG's
//    `for v in cfg: if v == "M": ...`);
//  - a call of a project function that returns one (`make_layers(cfg)`, `vgg_block(2, 64)`), its
//    parameters bound to the call's arguments and its defaults.
// Each layer comes with the numbers that the run fixed for its names (the loop variable on that
// iteration, a bound parameter), which the resolver's folder reads while the layer is read
// (Resolver::BindingsVisit). Nested stacks are flattened, in order.
// Whatever the reader does not follow makes the stack unknown (a loop over a value it does not
// know that touches the list, a branch it cannot decide that does, the list handed to a call): an
// unknown never makes a layer. Work is bounded: statements run, loop iterations, items, call depth.
#pragma once

#include "python/resolver.h"

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace cudnnlint::python {

struct BoundLayer {
  TSNode construction{};
  const Scope* scope = nullptr;  // the scope its names are read in
  std::shared_ptr<const ConstantBindings> bindings;  // null when the run fixed none
  // The module's class the construction builds when its callee is a name the run bound to one
  // (`block(self.in_planes, planes, stride)` with `block` bound to `BasicBlock`); null otherwise.
  TSNode class_definition{};
  // A Keras merge (`layers.concatenate([left, right])`, `layers.Add()([x, shortcut])`, the
  // construction): the layers each input runs through from the merge's common input. Empty for
  // any other layer.
  std::vector<std::vector<BoundLayer>> branches{};
};

// What a run of a model class's __init__ starts with: the numbers its construction gives the
// parameters, and the construction itself (`ResNet(BasicBlock, [2, 2, 2, 2])`), whose other
// arguments (a class, a literal list) are read where the call is written.
struct InitSeed {
  const ConstantBindings* numbers = nullptr;  // their scope is __init__'s
  TSNode construction{};                      // null when unknown
};

// The layers `construction` stands for where it is written (a Sequential, a ModuleList, a call of
// a project function returning one, or a single layer: itself), in order; nullopt when unknown.
// When `construction` is bound to a name (`model = keras.Sequential()`), the statements after it
// that add to it are run too: up to the one holding `until` (`model(x)`), or, with `through_block`,
// to the end of the block.
// `seed`: the values a model class's __init__ starts with, when the construction is read in it.
std::optional<std::vector<BoundLayer>> stack_layers(TSNode construction, Resolver& r, TSNode until = {},
                                                    bool through_block = false, const InitSeed* seed = nullptr);

// The layers of element `element` of what `construction` gives when unpacked into `elements`
// targets (`self.features, channels = make_backbone()`); nullopt when unknown or not that long.
std::optional<std::vector<BoundLayer>> unpacked_stack_layers(TSNode construction, std::size_t element,
                                                             std::size_t elements, Resolver& r,
                                                             const InitSeed* seed = nullptr);

// "c = 64, k = 3": the bindings a layer's text reads, for a step's text; "" when none.
std::string bindings_text(const BoundLayer& layer, std::string_view text);

}  // namespace cudnnlint::python
