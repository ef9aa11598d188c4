// tf-integer-input: an integer tensor (`tf.cast(x, tf.int32)`, `tf.io.decode_png(...)`,
// `tf.constant([[1, 2]])`) called through a Keras convolution layer or tf.nn.conv2d, or into
// fused batch norm. What refuses it was measured on tensorflow-cpu 2.21.0 with Keras 3.15.1
// (tests/probes/tf_dtype.py): a Keras Conv layer called on any integer tensor raises ValueError
// ("Incompatible type conversion requested to type int32 for tf.Variable of type float32");
// tf.nn.conv2d refuses uint8, int8, int16 and int64 (its kernels take half, bfloat16, float,
// double and int32); fused batch norm refuses every integer type. Not findings, as measured: Keras
// BatchNormalization, Dense and LayerNormalization cast integer inputs, a Keras Model or Sequential
// casts its inputs to its Input's type, and tf.nn.conv2d runs int32 with an int32 filter on the CPU.
// KB entry tensorflow/integer-input-to-conv.
#include "rules/replay_configs.h"
#include "rules/rule.h"

namespace cudnnlint {

void check_TfIntegerInput(const RuleInput& input, std::vector<Finding>& out) {
  for (const TensorInputFact& fact : input.facts.tensor_inputs) {
    if (!is_integer(fact.dtype) || (fact.framework != "tensorflow" && fact.framework != "keras")) continue;
    const ApiEntry* api = input.table.find(fact.consumer);
    if (api == nullptr) continue;
    const std::string dtype(dtype_name(fact.dtype));
    std::string refusal;
    if (api->is_class && api->family == kConvolutionFamily) {
      refusal = "a Keras convolution layer called on an integer tensor raises ValueError (\"Incompatible type "
                "conversion requested to type " + dtype + " for `tf.Variable` of type float32\")";
    } else if (!api->is_class && api->family == kConvolutionFamily && fact.dtype != DType::Int32) {
      refusal = "tf.nn.conv2d has no " + dtype + " kernel and raises InvalidArgumentError (\"Value for attr 'T' of " +
                dtype + " is not in the list of allowed values: half, bfloat16, float, double, int32\")";
    } else if (fact.consumer.find("fused_batch_norm") != std::string::npos) {
      refusal = "fused batch norm raises InvalidArgumentError (\"Value for attr 'T' of " + dtype +
                " is not in the list of allowed values: half, bfloat16, float\")";
    } else {
      continue;  // measured to cast or to run: Keras BatchNormalization, int32 tf.nn.conv2d with an int32 filter
    }
    Finding finding = make_finding(RuleId::TfIntegerInput, fact.use);
    const std::string what = "`" + clipped(fact.variable.empty() ? fact.tensor_text : fact.variable, 36) + "`";
    finding.message = what + " is " + dtype + " and reaches `" + clipped(fact.consumer_text, 30) +
                      "`, which refuses integer input";
    finding.detail = "Its type is set by `" + fact.dtype_spelling + "`, and `" + fact.consumer_text + "` (" + fact.consumer +
                      ") " + refusal + " (measured on TensorFlow 2.21.0 with Keras 3.15.1); convert it first "
                      "(`tf.cast(x, tf.float32)`, or `tf.image.convert_image_dtype(x, tf.float32)` for 8-bit images)";
    finding.target_note = "TensorFlow 2.21.0 / Keras 3.15.1 (measured); other versions not measured";
    finding.related.push_back({fact.dtype_location, "the element type " + dtype + " is set here"});
    for (const auto& step : fact.steps) finding.related.push_back({step.where, step.what});
    finding.replay.unknown = "not a cuDNN configuration: TensorFlow refuses the type before any kernel runs";
    // The tier's program calls a Keras Conv2D: it stands for the Keras convolution classes only.
    if (api->is_class && api->family == kConvolutionFamily)
      finding.replay.framework = input_type_case(FrameworkName::TensorFlow, fact.dtype, DType::Float32, false);
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
