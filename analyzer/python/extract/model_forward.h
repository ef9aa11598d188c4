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

// The model class `class_definition` applied at `call` to a tensor of literal shape `shape` (the
// factory written as `source_text`). Appends a ShapeChainFact to r.out() when a layer that forward
// applies rejects its input.
void read_model_forward(TSNode class_definition, TSNode call, const std::vector<std::optional<IntegerValue>>& shape,
                        const std::string& source_text, Resolver& r);

}  // namespace cudnnlint::python
