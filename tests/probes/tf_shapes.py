"""What TensorFlow and Keras do with spatial sizes through Conv2D and pooling: the output-size
formulas for 'valid' and 'same' (ceil division), channels_first, and the exact messages for an
input smaller than the kernel, in a Keras Sequential model, a functional model and tf.nn.conv2d.

Run with tensorflow (the CPU wheel is enough):
    TF_ENABLE_ONEDNN_OPTS=0 python3 tests/probes/tf_shapes.py
(tensorflow-cpu 2.21.0's oneDNN kernels died with SIGFPE on one eager case of the grid on the team's
machine; without them every case runs.)
One JSON line per case, then a summary of the formula grid (disagreements should be 0). Not part
of CI.
"""
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from keras import layers  # noqa: E402
from probe_case import case  # noqa: E402

print(json.dumps({"tensorflow": tf.__version__, "keras": keras.__version__}), flush=True)


def valid_out(size, kernel, stride, dilation):
    """cudnnlint's formula for 'valid': floor((size - d(k-1) - 1) / s) + 1."""
    return (size - dilation * (kernel - 1) - 1) // stride + 1


def same_out(size, stride):
    """'same': ceil(size / s), whatever the kernel."""
    return -(-size // stride)


checked = {"conv_valid": 0, "conv_valid_refused": 0, "conv_same": 0, "pool_valid": 0, "pool_valid_refused": 0,
           "pool_same": 0, "pool_valid_empty": 0, "disagreements": 0}
refused_pool_outputs = set()
messages = {}
for size in range(1, 8):
    for kernel in range(1, 6):
        for stride in range(1, 4):
            for dilation in (1, 2):
                if stride > 1 and dilation > 1:
                    continue  # Keras refuses strides > 1 with dilation_rate > 1
                for padding in ("valid", "same"):
                    expected = valid_out(size, kernel, stride, dilation) if padding == "valid" else same_out(size, stride)
                    try:
                        out = layers.Conv2D(1, kernel, strides=stride, padding=padding, dilation_rate=dilation)(
                            np.zeros((1, size, size, 1), np.float32))
                        got = int(out.shape[1])
                    except Exception as exc:  # noqa: BLE001
                        got = None
                        messages.setdefault("conv_" + padding, f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}")
                    checked["conv_" + padding] += 1
                    if got is None:
                        checked["conv_valid_refused" if padding == "valid" else "disagreements"] += 1
                    if (got is None) != (expected < 1) or (got is not None and got != expected):
                        checked["disagreements"] += 1
                        case(f"Conv2D size={size} k={kernel} s={stride} d={dilation} {padding}",
                             lambda: {"expected": expected, "got": got})
                    if dilation != 1:
                        continue
                    expected_pool = valid_out(size, kernel, stride, 1) if padding == "valid" else same_out(size, stride)
                    try:
                        out = layers.MaxPooling2D(kernel, strides=stride, padding=padding)(
                            np.zeros((1, size, size, 1), np.float32))
                        got_pool = int(out.shape[1])
                    except Exception as exc:  # noqa: BLE001
                        got_pool = None
                        messages.setdefault("pool_" + padding, f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}")
                    checked["pool_" + padding] += 1
                    # Keras pooling does not refuse an output of 0 (it returns an empty tensor):
                    # only a negative one. The formula must agree on every size it returns.
                    if got_pool is None and padding == "valid":
                        checked["pool_valid_refused"] += 1
                        refused_pool_outputs.add(expected_pool)
                    if got_pool == 0:
                        checked["pool_valid_empty"] += 1
                    if (got_pool is None and expected_pool >= 0) or (got_pool is not None and got_pool != expected_pool):
                        checked["disagreements"] += 1
                        case(f"MaxPooling2D size={size} k={kernel} s={stride} {padding}",
                             lambda: {"expected": expected_pool, "got": got_pool})
checked["pool_refused_when_formula_gives"] = sorted(refused_pool_outputs)
print(json.dumps({"summary": checked}), flush=True)
for kind, message in sorted(messages.items()):
    print(json.dumps({"message": kind, "first_line": message}), flush=True)


def sequential_small():
    model = keras.Sequential([keras.Input(shape=(4, 4, 3)), layers.Conv2D(8, 3), layers.MaxPooling2D(2),
                              layers.Conv2D(8, 3)])
    return model.output_shape


def sequential_input_shape():
    model = keras.Sequential([layers.Conv2D(8, 3, input_shape=(4, 4, 3)), layers.MaxPooling2D(2),
                              layers.Conv2D(8, 3)])
    return model.output_shape


def functional_small():
    inputs = keras.Input(shape=(4, 4, 3))
    x = layers.Conv2D(8, 3)(inputs)
    x = layers.MaxPooling2D(2)(x)
    x = layers.Conv2D(8, 3)(x)
    return list(keras.Model(inputs, x).output_shape)


def channels_first():
    model = keras.Sequential([keras.Input(shape=(3, 4, 4)), layers.Conv2D(8, 3, data_format="channels_first"),
                              layers.Conv2D(8, 3, data_format="channels_first")])
    return model.output_shape


def same_stays():
    model = keras.Sequential([keras.Input(shape=(2, 2, 3)), layers.Conv2D(8, 5, padding="same"),
                              layers.MaxPooling2D(2, padding="same"), layers.Conv2D(8, 3, padding="same")])
    return model.output_shape


def to_one_by_one():
    model = keras.Sequential([keras.Input(shape=(4, 4, 3)), layers.Conv2D(8, 3), layers.MaxPooling2D(2),
                              layers.Flatten()])
    return model.output_shape


case("Sequential Input(4,4,3) conv3 -> pool2 -> conv3", sequential_small)
case("Sequential input_shape=(4,4,3) conv3 -> pool2 -> conv3", sequential_input_shape)
case("functional Input(4,4,3) conv3 -> pool2 -> conv3", functional_small)
case("channels_first Input(3,4,4) conv3 -> conv3", channels_first)
case("same padding on 2x2 keeps going", same_stays)
case("4x4 -> conv3 -> pool2 = 1x1, then Flatten", to_one_by_one)
case("tf.nn.conv2d eager 1x1 input, 3x3 filter, VALID",
     lambda: list(tf.nn.conv2d(tf.zeros([1, 1, 1, 3]), tf.zeros([3, 3, 3, 8]), 1, "VALID").shape))
case("tf.nn.conv2d in tf.function 1x1 input, 3x3 filter, VALID",
     lambda: list(tf.function(lambda x, w: tf.nn.conv2d(x, w, 1, "VALID"))(tf.zeros([1, 1, 1, 3]),
                                                                          tf.zeros([3, 3, 3, 8])).shape))


def sequential_called_on_a_tensor():
    model = keras.Sequential([layers.Conv2D(8, 3), layers.MaxPooling2D(2), layers.Conv2D(8, 3)])
    return list(model(tf.zeros([1, 4, 4, 3])).shape)


def conv2d_with_four_strides():
    return list(tf.nn.conv2d(tf.zeros([1, 2, 2, 3]), tf.zeros([3, 3, 3, 8]), [1, 1, 1, 1], "VALID").shape)


case("Sequential without Input called on tf.zeros([1, 4, 4, 3]): conv3 -> pool2 -> conv3", sequential_called_on_a_tensor)
case("tf.nn.conv2d strides=[1, 1, 1, 1], 2x2 input, 3x3 filter, VALID", conv2d_with_four_strides)


# Pooling in a symbolic graph (keras.Input, functional or Sequential): unlike an eager call on a
# tensor, which returns an empty tensor for an output size of 0, building the graph refuses any
# output size below 1 (ValueError: Computed output size would be zero or negative), max and average
# alike. Compared here with the formula on a grid; the shape family reports these.
symbolic_pool = {"checked": 0, "refused": 0, "disagreements": 0}
for size in range(1, 6):
    for kernel in range(1, 5):
        for stride in range(1, 4):
            expected = valid_out(size, kernel, stride, 1)
            for pool_layer in (layers.MaxPooling2D, layers.AveragePooling2D):
                for sequential in (False, True):
                    try:
                        if sequential:
                            shape = keras.Sequential([keras.Input(shape=(size, size, 2)),
                                                      pool_layer(kernel, strides=stride)]).output_shape
                        else:
                            shape = pool_layer(kernel, strides=stride)(keras.Input(shape=(size, size, 2))).shape
                        got = int(shape[1])
                    except ValueError as exc:
                        got = None
                        messages.setdefault("symbolic_pool", " ".join(str(exc).split())[:300])
                    symbolic_pool["checked"] += 1
                    symbolic_pool["refused"] += got is None
                    if (got is None) != (expected < 1) or (got is not None and got != expected):
                        symbolic_pool["disagreements"] += 1
                        case(f"symbolic {pool_layer.__name__} size={size} k={kernel} s={stride} sequential={sequential}",
                             lambda: {"expected": expected, "got": got})
print(json.dumps({"symbolic_pool": symbolic_pool, "message": messages.get("symbolic_pool")}), flush=True)
