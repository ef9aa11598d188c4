// cudnn-desc-bad-data-type: a cuDNN filter descriptor set with CUDNN_DATA_INT32, INT64 or BOOLEAN,
// or a tensor descriptor with INT64 or BOOLEAN. Measured with the real libcudnn 9.19.0 on the CPU
// (tests/probes/cudnn_integer_descriptors.cpp): the setter itself returns CUDNN_STATUS_BAD_PARAM
// (a tensor's last error reads "!cudnn::graph::is_tensor_supported_datatype(dataType)"), and the
// convolution output-size query on such a pair fails too. Not findings, as measured: INT32 tensors,
// INT8 and UINT8 tensors and filters, and an INT32 compute type on a convolution descriptor (the
// INT8 convolution configuration). KB entry cuda/cudnn-conv-integer-data-type.
#include "rules/replay_configs.h"
#include "rules/rule.h"

namespace cudnnlint {

void check_CudnnDescBadDataType(const RuleInput& input, std::vector<Finding>& out) {
  for (const DescriptorFact& fact : input.facts.descriptors) {
    if (fact.kind == DescriptorFact::Kind::Convolution || fact.data_type.empty()) continue;
    const DType dtype = dtype_from_spelling(fact.data_type);
    const bool filter = fact.kind == DescriptorFact::Kind::Filter;
    const bool refused = dtype == DType::Int64 || dtype == DType::Bool || (filter && dtype == DType::Int32);
    if (!refused) continue;
    Finding finding = make_finding(RuleId::CudnnDescBadDataType, fact.call);
    finding.message = fact.api + "(" + clipped(fact.descriptor, 20) + ", ...) sets a " + (filter ? "filter" : "tensor") +
                      " of " + fact.data_type + ": CUDNN_STATUS_BAD_PARAM";
    finding.detail = std::string("cuDNN returns CUDNN_STATUS_BAD_PARAM from this call (measured with cuDNN 9.19.0), so "
                                 "the descriptor stays unset and every convolution that uses it fails too; ") +
                     (filter ? "filters take FLOAT, HALF, BFLOAT16, DOUBLE, INT8 or UINT8 (an integer convolution "
                                "is INT8 data with an INT32 compute type)"
                              : "tensors take FLOAT, HALF, BFLOAT16, DOUBLE, INT8, UINT8 or INT32");
    finding.target_note = "cuDNN 9.19.0 (measured); other versions not measured";
    finding.replay = descriptor_replay(fact);
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
