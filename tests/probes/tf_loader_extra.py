"""Further TensorFlow/Keras measurements behind the loader-family KB entries: Keras batch_size=0 as
"not given", integer division to 0, empty drop_remainder pipelines into fit/evaluate, zero-sample
inputs, padded_batch, repeat/take order, Keras batch norm on one sample. Run: python tf_loader_extra.py"""
import json, os, sys
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras, numpy as np, tensorflow as tf
from probe_case import case
print(json.dumps({"tensorflow": tf.__version__, "keras": keras.__version__, "gpus": len(tf.config.list_physical_devices("GPU"))}), flush=True)

def make():
    m = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3), keras.layers.BatchNormalization(),
                          keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(1)])
    m.compile(optimizer="sgd", loss="mse")
    return m

class Count(keras.callbacks.Callback):
    def __init__(self): super().__init__(); self.n = 0
    def on_train_batch_end(self, batch, logs=None): self.n += 1

x = np.random.rand(100, 8, 8, 3).astype("float32"); y = np.random.rand(100, 1).astype("float32")
for bs in (0, None, 16):
    def f(bs=bs):
        c = Count(); make().fit(x, y, batch_size=bs, epochs=1, verbose=0, callbacks=[c]); return c.n
    case(f"fit(100 samples, batch_size={bs}): train steps", f)
# integer division to zero
case("64 // 128", lambda: 64 // 128)
case("int(64 / 128)", lambda: int(64 / 128))
case("-1 // 8 and int(-1 / 8)", lambda: [-1 // 8, int(-1 / 8)])
case("tf.data batch(64 // 128)", lambda: str(tf.data.Dataset.range(10).batch(64 // 128).element_spec))
# drop_remainder with fewer elements into Keras fit
ds_empty = tf.data.Dataset.from_tensor_slices((x[:10], y[:10])).batch(16, drop_remainder=True)
case("cardinality of from_tensor_slices(10).batch(16, drop_remainder=True)", lambda: int(ds_empty.cardinality()))
def fit_empty():
    h = make().fit(ds_empty, epochs=1, verbose=0); return str(h.history)
case("model.fit(empty drop_remainder dataset)", fit_empty)
case("model.evaluate(empty drop_remainder dataset)", lambda: make().evaluate(ds_empty, verbose=0))
# zero-size batches into Keras models
m = make()
case("model(np.zeros((0,8,8,3))) direct call", lambda: list(m(np.zeros((0, 8, 8, 3), "float32")).shape))
case("model(tf.zeros([0,8,8,3]), training=True)", lambda: list(m(tf.zeros([0, 8, 8, 3]), training=True).shape))
case("model.fit on 0 samples", lambda: str(make().fit(np.zeros((0, 8, 8, 3), "float32"), np.zeros((0, 1), "float32"), verbose=0).history))
case("model.evaluate on 0 samples", lambda: make().evaluate(np.zeros((0, 8, 8, 3), "float32"), np.zeros((0, 1), "float32"), verbose=0))
case("model.predict_on_batch(np.zeros((0,8,8,3)))", lambda: list(m.predict_on_batch(np.zeros((0, 8, 8, 3), "float32")).shape))
case("tf.nn.conv2d_transpose on tf.zeros([0,4,4,4])", lambda: list(tf.nn.conv2d_transpose(tf.zeros([0,4,4,4]), tf.zeros([3,3,3,4]), [0,6,6,3], 1, "VALID").shape))
case("tf.compat.v1.nn.fused_batch_norm on tf.zeros([0,8,8,3])", lambda: list(tf.compat.v1.nn.fused_batch_norm(tf.zeros([0,8,8,3]), tf.ones([3]), tf.zeros([3]))[0].shape))

# ---- extra2
import tensorflow as tf
case("InputContext(num_replicas_in_sync=8).get_per_replica_batch_size(4)", lambda: tf.distribute.InputContext(num_replicas_in_sync=8).get_per_replica_batch_size(4))
case("InputContext(num_replicas_in_sync=8).get_per_replica_batch_size(64)", lambda: tf.distribute.InputContext(num_replicas_in_sync=8).get_per_replica_batch_size(64))
case("Dataset.range(10).padded_batch(16, drop_remainder=True): batches", lambda: len(list(tf.data.Dataset.range(10).padded_batch(16, drop_remainder=True))))
case("Dataset.range(10).batch(16, drop_remainder=False): batches", lambda: [len(b) for b in tf.data.Dataset.range(10).batch(16)])

# ---- extra3
print(json.dumps({"keras": keras.__version__, "backend": keras.backend.backend()}), flush=True)
case("BatchNormalization(epsilon=0)(training=True) on [1, 3]", lambda: np.asarray(keras.layers.BatchNormalization(epsilon=0.0)(np.ones((1, 3), "float32"), training=True)).tolist())
case("BatchNormalization(training=True) on [1, 3, 1, 1]... channels_last [1,1,1,3]", lambda: np.asarray(keras.layers.BatchNormalization()(np.random.rand(1, 1, 1, 3).astype("float32"), training=True)).tolist())

# ---- extra4
import tensorflow as tf
ds = tf.data.Dataset.range(10)
case("range(10).batch(16, drop_remainder=True).repeat().take(5): batches", lambda: len(list(ds.batch(16, drop_remainder=True).repeat().take(5))))
case("range(10).repeat().batch(16, drop_remainder=True).take(2): batch sizes", lambda: [int(len(b)) for b in ds.repeat().batch(16, drop_remainder=True).take(2)])
case("range(10).batch(16, drop_remainder=True).repeat() cardinality", lambda: int(ds.batch(16, drop_remainder=True).repeat().cardinality()))

# ---- extra5
import os, warnings
m = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3), keras.layers.BatchNormalization(),
                      keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(1)])
m.compile(optimizer="sgd", loss="mse")
x = np.random.rand(10, 8, 8, 3).astype("float32"); y = np.random.rand(10, 1).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16, drop_remainder=True)
for name, fn in [("fit(empty ds)", lambda: m.fit(ds, epochs=1, verbose=0).history),
                 ("evaluate(empty ds)", lambda: m.evaluate(ds, verbose=0)),
                 ("fit(0 samples arrays)", lambda: m.fit(np.zeros((0,8,8,3),"float32"), np.zeros((0,1),"float32"), verbose=0).history)]:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = fn()
    print(name, "->", r, "| warnings:", [str(i.message)[:60] for i in w])
