#include "core/facts_locations.h"

namespace cudnnlint {

namespace {

// One overload per fact type that holds a Location, directly or nested. A new Location field
// must be added here: ModuleParts.ForEachLocationReachesEveryLocation (tests/unit/test_module_parts.cpp)
// counts them against the facts' JSON.
struct LocationVisitor {
  const std::function<void(Location&)>& visit;

  void operator()(Location& l) const { visit(l); }
  template <class T>
  void operator()(std::optional<T>& o) const {
    if (o) (*this)(*o);
  }
  template <class T>
  void operator()(std::vector<T>& items) const {
    for (T& item : items) (*this)(item);
  }
  void operator()(ProvenanceStep& s) const { (*this)(s.where); }
  void operator()(ConstantValue& c) const { (*this)(c.provenance); }
  void operator()(ValueRef& r) const {
    (*this)(r.default_value);
    (*this)(r.steps);
  }
  void operator()(Value& v) const {
    (*this)(v.constant);
    (*this)(v.ref);
    (*this)(v.where);
  }
  void operator()(IntegerValue& i) const {
    (*this)(i.where);
    (*this)(i.provenance);
  }
  void operator()(SettleableValue& s) const {
    (*this)(s.value);
    (*this)(s.ref);
    (*this)(s.location);
  }
  void operator()(NormalizationFact& f) const {
    (*this)(f.call);
    (*this)(f.eps);
    (*this)(f.uses);
  }
  void operator()(LoaderFact& f) const {
    (*this)(f.call);
    (*this)(f.batch);
    (*this)(f.division_location);
    (*this)(f.divisor);
    (*this)(f.drop_location);
    (*this)(f.dataset_size);
    (*this)(f.single_sample_norm);
    (*this)(f.feeds);
    (*this)(f.uses);
  }
  void operator()(ConvGeometryFact& f) const {
    (*this)(f.call);
    (*this)(f.in_channels);
    (*this)(f.out_channels);
    (*this)(f.groups);
    (*this)(f.kernel);
    (*this)(f.stride);
    (*this)(f.padding);
    (*this)(f.dilation);
    (*this)(f.input);
  }
  void operator()(DescriptorFact& f) const {
    (*this)(f.call);
    (*this)(f.values);
  }
  void operator()(TensorInputFact& f) const {
    (*this)(f.use);
    (*this)(f.dtype_location);
    (*this)(f.weight_dtype_location);
    (*this)(f.shape);
    (*this)(f.steps);
    (*this)(f.conversion_at);
  }
  void operator()(LowPrecisionConstantFact& f) const {
    (*this)(f.where);
    (*this)(f.value);
    (*this)(f.expression_location);
    (*this)(f.reduced_at);
    (*this)(f.operand_steps);
  }
  void operator()(ShapeStep& s) const { (*this)(s.where); }
  void operator()(ShapeChainFact& f) const {
    (*this)(f.call);
    (*this)(f.source);
    (*this)(f.source_provenance);
    (*this)(f.steps);
    (*this)(f.conv);
  }
  void operator()(ForwardingFact& f) const {
    (*this)(f.default_value);
    (*this)(f.defined);
    (*this)(f.reaches);
  }
  void operator()(ArgumentFact& f) const {
    (*this)(f.call);
    (*this)(f.default_value);
  }
  void operator()(SingleSampleCallFact& f) const {
    (*this)(f.call);
    (*this)(f.batch);
    (*this)(f.norm);
  }
  void operator()(ConfigDefaultFact& f) const {
    (*this)(f.where);
    (*this)(f.value);
  }
};

}  // namespace

void for_each_location(FileFacts& facts, const std::function<void(Location&)>& visit) {
  const LocationVisitor visitor{visit};
  visitor(facts.normalizations);
  visitor(facts.loaders);
  visitor(facts.conv_geometries);
  visitor(facts.descriptors);
  visitor(facts.tensor_inputs);
  visitor(facts.low_precision_constants);
  visitor(facts.shape_chains);
  visitor(facts.single_sample_calls);
  visitor(facts.forwardings);
  visitor(facts.arguments);
  visitor(facts.config_defaults);
}

}  // namespace cudnnlint
