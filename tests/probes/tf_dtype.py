"""What TensorFlow / Keras 3 do with dtype mistakes: integer tensors into conv and batch norm,
decoded images (uint8) into Conv2D, fp16 epsilon literals, mixed_float16 normalization and
optimizer variables. Run (CPU is enough): python tests/probes/tf_dtype.py
Prints one JSON line per case: the result, or the exception (type and first line of its message).
Not part of CI."""
import json
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras
import numpy as np
import tensorflow as tf
from probe_case import case

print(json.dumps({"tensorflow": tf.__version__, "keras": keras.__version__, "backend": keras.backend.backend(),
                  "gpus": len(tf.config.list_physical_devices("GPU"))}), flush=True)


def keras_msg(fn):
    """Keras 3 wraps a layer's error as "Exception encountered when calling X.call()." with the cause on a
    later (bold) line: re-raise with that cause appended so the first line says what failed."""
    def run():
        try:
            return fn()
        except (ValueError, TypeError) as exc:
            text = str(exc)
            m = re.search(r"\x1b\[1m(.*?)(?:\x1b\[0m|$)", text, re.S)
            if not m:
                raise
            cause = m.group(1).split(" (Variable:")[0].splitlines()[0]
            raise type(exc)(f"{text.splitlines()[0]} {cause}") from None
    return run


def kcase(name, fn):
    case(name, keras_msg(fn))


def desc(t):
    t = tf.convert_to_tensor(t)
    out = {"dtype": t.dtype.name, "shape": t.shape.as_list()}
    if t.dtype.is_floating:
        a = tf.cast(t, tf.float32).numpy()
        out["nan"] = bool(np.isnan(a).any())
        out["inf"] = bool(np.isinf(a).any())
    return out


# ---------------------------------------------------------------------------------------------
# tf.nn.conv2d with integer dtypes (NHWC, CPU).
xi = np.random.randint(0, 255, (1, 8, 8, 3))
for xd, wd in ((tf.int32, tf.int32), (tf.int32, tf.float32), (tf.uint8, tf.uint8), (tf.uint8, tf.float32),
               (tf.int64, tf.int64), (tf.int8, tf.int8), (tf.int16, tf.int16), (tf.float16, tf.float16),
               (tf.bfloat16, tf.bfloat16), (tf.float16, tf.float32), (tf.float64, tf.float64)):
    case(f"tf.nn.conv2d({xd.name} input, {wd.name} filter)",
         lambda xd=xd, wd=wd: desc(tf.nn.conv2d(tf.cast(xi, xd), tf.cast(tf.ones((3, 3, 3, 4)), wd), 1, "VALID")))
case("tf.nn.conv2d(int32, int32) values equal float32 conv",
     lambda: bool(np.array_equal(tf.nn.conv2d(tf.constant(xi, tf.int32), tf.ones((3, 3, 3, 4), tf.int32), 1, "VALID").numpy(),
                                 tf.nn.conv2d(tf.constant(xi, tf.float32), tf.ones((3, 3, 3, 4)), 1, "VALID").numpy().astype(np.int32))))
case("tf.nn.conv1d(int32, int32)", lambda: desc(tf.nn.conv1d(tf.constant(xi[:, 0], tf.int32), tf.ones((3, 3, 4), tf.int32), 1, "VALID")))
case("tf.nn.conv3d(int32, int32)",
     lambda: desc(tf.nn.conv3d(tf.ones((1, 4, 8, 8, 3), tf.int32), tf.ones((3, 3, 3, 3, 4), tf.int32), [1] * 5, "VALID")))
case("tf.nn.depthwise_conv2d(int32, int32)",
     lambda: desc(tf.nn.depthwise_conv2d(tf.constant(xi, tf.int32), tf.ones((3, 3, 3, 1), tf.int32), [1] * 4, "VALID")))
case("tf.nn.conv2d_transpose(int32, int32)",
     lambda: desc(tf.nn.conv2d_transpose(tf.constant(xi, tf.int32), tf.ones((3, 3, 4, 3), tf.int32), (1, 10, 10, 4), 1, "VALID")))
case("tf.nn.max_pool2d(int32) (negative: pooling)", lambda: desc(tf.nn.max_pool2d(tf.constant(xi, tf.int32), 2, 2, "VALID")))
case("tf.nn.fused_batch_norm(int32 x)",
     lambda: desc(tf.compat.v1.nn.fused_batch_norm(tf.constant(xi, tf.int32), tf.ones(3), tf.zeros(3))[0]))
case("tf.nn.batch_normalization(int32 x, float stats)",
     lambda: desc(tf.nn.batch_normalization(tf.constant(xi, tf.int32), 0.0, 1.0, 0.0, 1.0, 1e-3)))

# ---------------------------------------------------------------------------------------------
# Keras 3 layers on integer input.
x_int = tf.cast(tf.random.uniform((2, 8, 8, 3), 0, 255), tf.int32)
for dt in (tf.int32, tf.uint8, tf.int64):
    xin = tf.cast(x_int, dt)
    kcase(f"keras.layers.Conv2D(4,3) on tf.cast(x, {dt.name})", lambda xin=xin: desc(keras.layers.Conv2D(4, 3)(xin)))
    kcase(f"keras.layers.Conv2D(4,3,use_bias=False) on {dt.name}",
         lambda xin=xin: desc(keras.layers.Conv2D(4, 3, use_bias=False)(xin)))
    case(f"keras.layers.BatchNormalization() training=True on {dt.name}",
         lambda xin=xin: desc(keras.layers.BatchNormalization()(xin, training=True)))
    case(f"keras.layers.BatchNormalization() training=False on {dt.name}",
         lambda xin=xin: desc(keras.layers.BatchNormalization()(xin, training=False)))
    case(f"keras.layers.Dense(4) on {dt.name}", lambda xin=xin: desc(keras.layers.Dense(4)(xin)))
    case(f"keras.layers.LayerNormalization() on {dt.name}", lambda xin=xin: desc(keras.layers.LayerNormalization()(xin)))
kcase("Conv2D(4,3) on int32: output equals Conv2D on float(x) with the same weights", lambda: (lambda l: bool(np.allclose(
    l(x_int).numpy(), l(tf.cast(x_int, tf.float32)).numpy())))(keras.layers.Conv2D(4, 3)))
kcase("Conv2D(4,3) on int32 numpy array (not a tensor)", lambda: desc(keras.layers.Conv2D(4, 3)(x_int.numpy())))
kcase("Conv2D(4,3) on uint8 numpy array", lambda: desc(keras.layers.Conv2D(4, 3)(x_int.numpy().astype(np.uint8))))
case("keras.layers.Conv2D(4,3).compute_dtype / variable_dtype",
     lambda: [keras.layers.Conv2D(4, 3).compute_dtype, keras.layers.Conv2D(4, 3).variable_dtype])
case("keras.layers.Conv2D(4,3, dtype='int32') on int32 (layer built in int32)",
     lambda: desc(keras.layers.Conv2D(4, 3, dtype="int32")(x_int)))
case("keras.layers.Embedding(256, 4) on int32 then Conv1D (negative)",
     lambda: desc(keras.layers.Conv1D(4, 3)(keras.layers.Embedding(256, 4)(tf.reshape(x_int, (2, -1))))))


def model_fit_int():
    m = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3), keras.layers.BatchNormalization(),
                          keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(1)])
    m.compile(optimizer="adam", loss="mse")
    h = m.fit(x_int.numpy().astype(np.uint8), np.zeros((2, 1), np.float32), epochs=1, verbose=0)
    return {"loss_finite": bool(np.isfinite(h.history["loss"][0])), "input_dtype": m.inputs[0].dtype}


case("keras Sequential(Input((8,8,3)), Conv2D, BN, ...).fit on uint8 numpy", model_fit_int)
case("keras.Input((8,8,3)).dtype (default)", lambda: keras.Input((8, 8, 3)).dtype)
case("keras.Input((8,8,3), dtype='uint8') into Conv2D: output dtype",
     lambda: (lambda i: keras.layers.Conv2D(4, 3)(i).dtype)(keras.Input((8, 8, 3), dtype="uint8")))



def functional_uint8_input():
    i = keras.Input((8, 8, 3), dtype="uint8")
    return desc(keras.Model(i, keras.layers.Conv2D(4, 3)(i))(tf.zeros((1, 8, 8, 3), tf.uint8)))


kcase("keras.Model(Input(dtype='uint8') -> Conv2D) called on uint8", functional_uint8_input)


def functional_uint8_predict():
    i = keras.Input((8, 8, 3), dtype="uint8")
    return desc(keras.Model(i, keras.layers.Conv2D(4, 3)(i)).predict(np.zeros((1, 8, 8, 3), np.uint8), verbose=0))


kcase("keras.Model(Input(dtype='uint8') -> Conv2D).predict on uint8 (compiled function)", functional_uint8_predict)


def functional_float_input(call):
    i = keras.Input((8, 8, 3))  # float32
    m = keras.Model(i, keras.layers.Conv2D(4, 3)(i))
    x = np.random.randint(0, 255, (2, 8, 8, 3)).astype(np.uint8)
    return desc(m(x) if call == "call" else m.predict(x, verbose=0))


kcase("keras.Model(Input((8,8,3)) float32 -> Conv2D) called on uint8 numpy", lambda: functional_float_input("call"))
kcase("keras.Model(Input((8,8,3)) float32 -> Conv2D).predict on uint8 numpy", lambda: functional_float_input("predict"))
kcase("keras.Model(Input((8,8,3)) float32 -> Conv2D) called on int32 tensor",
      lambda: (lambda i: desc(keras.Model(i, keras.layers.Conv2D(4, 3)(i))(x_int)))(keras.Input((8, 8, 3))))
kcase("keras.Sequential([Conv2D]) without Input, called on int32 tensor",
      lambda: desc(keras.Sequential([keras.layers.Conv2D(4, 3)])(x_int)))

# Decoded images.
png = tf.io.encode_png(tf.cast(tf.random.uniform((8, 8, 3), 0, 255), tf.uint8)).numpy()
case("tf.io.decode_png(png).dtype", lambda: desc(tf.io.decode_png(png)))
case("tf.io.decode_image(png).dtype", lambda: desc(tf.io.decode_image(png)))
case("tf.io.decode_png(png, dtype=tf.uint16).dtype", lambda: desc(tf.io.decode_png(png, dtype=tf.uint16)))
case("tf.image.convert_image_dtype(decode_png, tf.float32): range",
     lambda: float(tf.reduce_max(tf.image.convert_image_dtype(tf.io.decode_png(png), tf.float32))) <= 1.0)
kcase("keras.layers.Conv2D(4,3) on decode_png(png)[None]", lambda: desc(keras.layers.Conv2D(4, 3)(tf.io.decode_png(png)[None])))
case("tf.nn.conv2d(decode_png(png)[None], float32 filter)",
     lambda: desc(tf.nn.conv2d(tf.io.decode_png(png)[None], tf.ones((3, 3, 3, 4)), 1, "VALID")))
case("keras.utils.img_to_array(uint8 array).dtype (negative)",
     lambda: str(keras.utils.img_to_array(np.zeros((8, 8, 3), np.uint8)).dtype))
case("keras.layers.Rescaling(1/255)(decode_png).dtype (negative)",
     lambda: desc(keras.layers.Rescaling(1 / 255)(tf.io.decode_png(png)[None])))

# ---------------------------------------------------------------------------------------------
# fp16 epsilon rounding.
for eps in (1e-3, 1e-5, 1e-7, 3e-8, 2.98e-8, 1e-8, 1e-12):
    case(f"tf.constant({eps!r}, tf.float16) / tf.bfloat16", lambda eps=eps: {
        "fp16": float(tf.constant(eps, tf.float16)), "bf16": float(tf.constant(eps, tf.bfloat16)),
        "fp16 zeros+eps": float((tf.zeros((), tf.float16) + eps)),
        "fp16 1/(zeros+eps)": float(1 / (tf.zeros((), tf.float16) + eps))})
z = tf.zeros((4,), tf.float16)
case("x/(tf.norm(x)+1e-8), x=zeros fp16", lambda: (z / (tf.norm(z) + 1e-8)).numpy().tolist())
case("tf.math.l2_normalize(zeros fp16) default epsilon=1e-12", lambda: tf.math.l2_normalize(z).numpy().tolist())
case("keras.ops.normalize(zeros fp16)", lambda: keras.ops.convert_to_numpy(keras.ops.normalize(z[None])).tolist())
case("np.float16(1e-8), np.float16(3e-8)", lambda: [float(np.float16(1e-8)), float(np.float16(3e-8))])

# ---------------------------------------------------------------------------------------------
# mixed_float16: normalization layers and optimizer variables.
const = tf.fill((4, 4, 4, 3), 2.0)


def _bn_zero_var(eps):
    layer = keras.layers.BatchNormalization(epsilon=eps)
    layer.build((None, 4, 4, 3))
    layer.moving_variance.assign(tf.zeros(3))
    return layer


keras.mixed_precision.set_global_policy("mixed_float16")
try:
    case("mixed_float16: Dense(4) compute_dtype / variable_dtype / output dtype",
         lambda: (lambda l: [l.compute_dtype, l.variable_dtype, l(tf.ones((1, 4))).dtype.name])(keras.layers.Dense(4)))
    case("mixed_float16: Conv2D output dtype on float32 input", lambda: keras.layers.Conv2D(4, 3)(const).dtype.name)
    kcase("mixed_float16: Conv2D on int32 input", lambda: desc(keras.layers.Conv2D(4, 3)(x_int)))
    for eps in (1e-3, 1e-8, 0.0):
        case(f"mixed_float16: BatchNormalization(epsilon={eps}) training=True on constant input",
             lambda eps=eps: desc(keras.layers.BatchNormalization(epsilon=eps)(const, training=True)))
        case(f"mixed_float16: BatchNormalization(epsilon={eps}) training=False, moving_variance=0",
             lambda eps=eps: desc(_bn_zero_var(eps)(const, training=False)))
        case(f"mixed_float16: LayerNormalization(epsilon={eps}) on constant input",
             lambda eps=eps: desc(keras.layers.LayerNormalization(epsilon=eps)(const)))
        case(f"mixed_float16: LayerNormalization(epsilon={eps}) on zeros",
             lambda eps=eps: desc(keras.layers.LayerNormalization(epsilon=eps)(tf.zeros((2, 8)))))
    case("mixed_float16: BatchNormalization variable dtypes",
         lambda: (lambda l: (l.build((None, 4, 4, 3)), sorted({v.dtype for v in l.weights}))[1])(keras.layers.BatchNormalization()))

    def optimizer_slots(opt_name):
        m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(4)])
        opt = keras.optimizers.get(opt_name)
        m.compile(optimizer=opt, loss="mse")
        m.fit(np.zeros((8, 4), np.float32), np.zeros((8, 4), np.float32), epochs=1, verbose=0)
        inner = getattr(m.optimizer, "inner_optimizer", m.optimizer)
        return {"optimizer": type(m.optimizer).__name__, "inner": type(inner).__name__,
                "epsilon": getattr(inner, "epsilon", None),
                "variable_dtypes": sorted({v.dtype for v in m.optimizer.variables}),
                "weights_nan": any(bool(np.isnan(w).any()) for w in m.get_weights()),
                "weight_dtypes": sorted({w.dtype.name for w in m.get_weights()})}
    for name in ("adam", "rmsprop", "adagrad", "adamw", "nadam", "adamax"):
        case(f"mixed_float16: model.compile(optimizer='{name}') fit on zeros: optimizer variables", lambda n=name: optimizer_slots(n))
finally:
    keras.mixed_precision.set_global_policy("float32")


# A whole float16 policy (not mixed): variables and optimizer in float16.
keras.mixed_precision.set_global_policy("float16")
try:
    case("float16 policy: BatchNormalization(epsilon=1e-8) training=True on constant input",
         lambda: desc(keras.layers.BatchNormalization(epsilon=1e-8)(const, training=True)))
    case("float16 policy: LayerNormalization(epsilon=1e-8) on zeros",
         lambda: desc(keras.layers.LayerNormalization(epsilon=1e-8)(tf.zeros((2, 8)))))

    def fp16_adam(eps):
        m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(4, use_bias=False)])
        m.compile(optimizer=keras.optimizers.Adam(epsilon=eps), loss="mse")
        m.fit(np.zeros((8, 4), np.float16), np.zeros((8, 4), np.float16), epochs=1, verbose=0)  # zero gradients
        return {"weight_dtypes": sorted({w.dtype.name for w in m.get_weights()}),
                "optimizer_variable_dtypes": sorted({v.dtype for v in m.optimizer.variables}),
                "weights_nan": any(bool(np.isnan(w).any()) for w in m.get_weights())}
    for eps in (1e-7, 1e-8, 1e-4):
        case(f"float16 policy: Adam(epsilon={eps}) fit with zero gradients", lambda eps=eps: fp16_adam(eps))
finally:
    keras.mixed_precision.set_global_policy("float32")

# tf.compat.v1.nn.fused_batch_norm in float16 with tiny epsilon (CPU kernel). With variance 0 in inference the
# output is (x - 0) / sqrt(0 + eps): 2 / sqrt(1e-8) = 20000 means eps was used as given, 2 / sqrt(1.001e-5) = 632.1
# would mean it was clamped to 1.001e-5.
x16 = tf.cast(const, tf.float16)
for eps in (1e-3, 1e-8, 0.0):
    case(f"tf.compat.v1.nn.fused_batch_norm(float16 x, eps={eps}, is_training=True) constant input",
         lambda eps=eps: desc(tf.compat.v1.nn.fused_batch_norm(x16, tf.ones(3), tf.zeros(3), epsilon=eps)[0]))
    case(f"tf.compat.v1.nn.fused_batch_norm(float16 x, eps={eps}, is_training=False, variance=0): first value",
         lambda eps=eps: float(tf.compat.v1.nn.fused_batch_norm(x16, tf.ones(3), tf.zeros(3), tf.zeros(3), tf.zeros(3),
                                                                epsilon=eps, is_training=False)[0][0, 0, 0, 0]))
case("tf.compat.v1.nn.fused_batch_norm(float32 x, eps=1e-6, is_training=False, variance=0): first value",
     lambda: float(tf.compat.v1.nn.fused_batch_norm(const, tf.ones(3), tf.zeros(3), tf.zeros(3), tf.zeros(3),
                                                    epsilon=1e-6, is_training=False)[0][0, 0, 0, 0]))
case("tf.nn.batch_normalization(float16 x, variance=0, variance_epsilon=1e-8): first value",
     lambda: float(tf.nn.batch_normalization(x16, tf.zeros(3, tf.float16), tf.zeros(3, tf.float16), None, None, 1e-8)[0, 0, 0, 0]))
case("tf.nn.batch_normalization(float16 x, variance=0, variance_epsilon=1e-3): first value (negative)",
     lambda: float(tf.nn.batch_normalization(x16, tf.zeros(3, tf.float16), tf.zeros(3, tf.float16), None, None, 1e-3)[0, 0, 0, 0]))

# A custom layer under mixed_float16: Keras casts a layer's floating inputs to its compute type, so
# an epsilon added inside call() meets float16.
def custom_layer_under_mixed_float16():
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        seen = {}

        class L2Normalize(keras.layers.Layer):
            def call(self, inputs):
                seen["inputs"] = str(inputs.dtype)
                norm = tf.sqrt(tf.reduce_sum(tf.square(inputs), axis=-1, keepdims=True))
                return inputs / (norm + 1e-8)

        out = L2Normalize()(tf.zeros((2, 4)))
        return {"inputs_dtype": seen["inputs"], "output_dtype": str(out.dtype),
                "nan": bool(tf.reduce_any(tf.math.is_nan(tf.cast(out, tf.float32))))}
    finally:
        keras.mixed_precision.set_global_policy("float32")


case("mixed_float16: custom Layer.call(inputs) on float32 zeros: inputs / (norm + 1e-8)", custom_layer_under_mixed_float16)
