// Where configuration values are set in Python, for the project step to follow `args.x` and
// `cfg.A.B` reads: argparse's `add_argument(..., default=...)` and yacs-style defaults
// (`_C.MODEL.BN_EPS = 1e-5` on a CfgNode, or on a config-like object in a function).
// These run only when some fact reads such a value (the engine asks for them).
#pragma once

#include "python/resolver.h"

namespace cudnnlint::python {

class ArgparseExtractor : public Extractor {
 public:
  bool handles(const ApiEntry&) const override { return false; }
  void on_use(const ApiUse&, Resolver&) override {}
  void on_other_call(TSNode call, Resolver& r) override;
};

class ConfigDefaultsExtractor : public Extractor {
 public:
  bool handles(const ApiEntry&) const override { return false; }
  void on_use(const ApiUse&, Resolver&) override {}
  void on_assignment(TSNode assignment, Resolver& r) override;
};

}  // namespace cudnnlint::python
