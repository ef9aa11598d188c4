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

// `model(x)` with x a batch of one sample whose shape the code fixes (`torch.randn(1, 8)`,
// `preprocess(img).unsqueeze(0)`), the model a stack or a class of the module whose batch norm then
// sees one value per channel (nn.Linear then nn.BatchNorm1d on a 2-D batch, a global pooling to 1
// then nn.BatchNorm2d on a 4-D one), left in training mode where the call runs: a
// SingleSampleCallFact. Code that may change the batch dimension (a reshape, a concatenation) or
// switch modes anywhere in the file makes no fact.
void find_single_sample_call(TSNode call, Resolver& r);

}  // namespace cudnnlint::python
