"""What TensorFlow and Keras do with the data-loader settings and zero-size batches of issue 9's rule family.

Run with the tensorflow (or tensorflow-cpu) wheel:  python3 tests/probes/tf_loader_and_zero_batch.py
One JSON line per case: the result, or the exception (type and message), and where it is raised
(building the pipeline, iterating it, or running the model). Not part of CI.
"""
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from probe_case import case  # noqa: E402


print(json.dumps({"tensorflow": tf.__version__, "keras": keras.__version__,
                  "gpus": len(tf.config.list_physical_devices("GPU"))}), flush=True)
ds = tf.data.Dataset.range(10)

# Batch size <= 0.
for n in (0, -1):
    case(f"Dataset.batch({n}) built", lambda n=n: str(ds.batch(n).element_spec))
    case(f"Dataset.batch({n}) iterated", lambda n=n: [len(b) for b in ds.batch(n)][:2])
    case(f"Dataset.padded_batch({n}) iterated", lambda n=n: [len(b) for b in ds.padded_batch(n)][:2])
# drop_remainder with fewer elements than one batch.
case("Dataset.range(10).batch(16, drop_remainder=True): batches", lambda: len(list(ds.batch(16, drop_remainder=True))))
case("... cardinality", lambda: int(ds.batch(16, drop_remainder=True).cardinality()))
case("Dataset.range(9).batch(4): last batch", lambda: [len(b) for b in tf.data.Dataset.range(9).batch(4)])

model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3), keras.layers.BatchNormalization(),
                          keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
x = np.random.rand(10, 8, 8, 3).astype("float32")
y = np.random.rand(10, 1).astype("float32")
for bs in (0, -1):
    case(f"model.fit(batch_size={bs})", lambda bs=bs: str(model.fit(x, y, batch_size=bs, epochs=1, verbose=0).history))
    case(f"model.evaluate(batch_size={bs})", lambda bs=bs: model.evaluate(x, y, batch_size=bs, verbose=0))
    case(f"model.predict(batch_size={bs})", lambda bs=bs: list(model.predict(x, batch_size=bs, verbose=0).shape))
case("model.fit(batch_size=None) (defaults to 32)", lambda: str(model.fit(x, y, batch_size=None, epochs=1, verbose=0).history))
# A final batch of one sample into BatchNormalization in training: Keras does not refuse it.
case("fit on 9 samples, batch_size=4 (last batch 1)", lambda: str(model.fit(x[:9], y[:9], batch_size=4, epochs=1, verbose=0).history))
bn = keras.layers.BatchNormalization()
case("BatchNormalization(training=True) on [1, 3]", lambda: np.asarray(bn(np.ones((1, 3), "float32"), training=True)).tolist())

# Zero-size tensors into convolution and batch norm (CPU here; GPU results differ by version).
case("Conv2D on tf.zeros([0, 8, 8, 3])", lambda: list(keras.layers.Conv2D(4, 3)(tf.zeros([0, 8, 8, 3])).shape))
case("tf.nn.conv2d on tf.zeros([0, 8, 8, 3])", lambda: list(tf.nn.conv2d(tf.zeros([0, 8, 8, 3]), tf.zeros([3, 3, 3, 4]), 1, "VALID").shape))
case("BatchNormalization(training=True) on tf.zeros([0, 8, 8, 3])",
     lambda: np.asarray(keras.layers.BatchNormalization()(tf.zeros([0, 8, 8, 3]), training=True)).shape)
case("model.predict(np.zeros((0, 8, 8, 3)))", lambda: list(model.predict(np.zeros((0, 8, 8, 3), "float32"), verbose=0).shape))
case("Conv2D 3x3 on tf.zeros([2, 2, 2, 3])", lambda: list(keras.layers.Conv2D(4, 3)(tf.zeros([2, 2, 2, 3])).shape))
