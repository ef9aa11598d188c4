// For a PyTorch loader whose last batch may hold one sample: the model its batches reach in the same
// function (`for x, y in loader: model(x)`) when that model's batch norm then sees one value per
// channel (nn.Linear or nn.Flatten then nn.BatchNorm1d, global pooling to 1 then nn.BatchNorm2d,
// in an nn.Sequential built there or in a class of the file) and the function leaves it in
// training mode.
#pragma once

#include "python/resolver.h"

#include <string_view>

namespace cudnnlint::python {

// Fills `fact.single_sample_norm`, `fact.feeds` and their texts when such a model is found.
void find_single_sample_consumer(LoaderFact& fact, std::string_view loader, const Scope* scope, Resolver& r);
// The same for a loader an instance holds (`self.train_dl = DataLoader(...)` in `method`): the loops
// over `self.train_dl` in every method of the class, feeding the instance's models (`self.model(x)`).
void find_single_sample_consumer_in_class(LoaderFact& fact, std::string_view loader, const Scope& method,
                                          Resolver& r);

}  // namespace cudnnlint::python
