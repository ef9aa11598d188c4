"""What a Keras optimizer's epsilon does on float16 weights (`set_floatx("float16")`): a two-layer
Dense model fitted one step on zero inputs, so that both kernels get exactly zero gradients, for
each optimizer with its default epsilon, 1e-8 and 1e-4; Adam(epsilon=1e-8) on float32 weights as
the control, built before set_floatx, and with the mixed_float16 policy set after set_floatx. Each case runs in a fresh interpreter (floatx and the dtype policy are process-wide).
Also the position and default of `epsilon` in each optimizer's signature (inspect.signature).
Run (CPU is enough): python tests/probes/keras_optimizer_eps.py
Prints one JSON line per case. Not part of CI. Works with Keras 3 and with TensorFlow 2.11's
Keras 2 (tf.keras; AdamW is not in its tf.keras.optimizers)."""
import json
import os
import subprocess
import sys

OPTIMIZERS = ["Adam", "AdamW", "RMSprop", "Adadelta", "Nadam", "Adamax", "Adagrad"]

CHILD = r"""
import inspect, json, os, sys
os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
try:
    import keras
    set_floatx = keras.config.set_floatx
except (ImportError, AttributeError):
    from tensorflow import keras
    set_floatx = keras.backend.set_floatx
name, eps, floatx, variant = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
cls = getattr(keras.optimizers, name)
make = lambda: cls(learning_rate=1e-3, **({} if eps == "default" else {"epsilon": float(eps)}))
if variant == "built before set_floatx":
    opt = make()
set_floatx(floatx)
if variant == "mixed_float16 policy":
    keras.mixed_precision.set_global_policy("mixed_float16")
tf.random.set_seed(0)
if variant != "built before set_floatx":
    opt = make()
model = keras.Sequential([keras.layers.Dense(3, input_shape=(4,)), keras.layers.Dense(1)])
model.compile(optimizer=opt, loss="mse")
x = np.zeros((8, 4), dtype=floatx)  # zero inputs: both kernels' gradients are exactly 0
y = np.ones((8, 1), dtype=floatx)
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
weights = [v.numpy() for v in model.weights]
params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
sig = inspect.signature(cls.__init__).parameters
print(json.dumps({"weights_dtype": str(weights[0].dtype), "optimizer": type(model.optimizer).__name__,
                  "non_finite_weights": [i for i, w in enumerate(weights) if not np.isfinite(w).all()],
                  "epsilon_index": params.index("epsilon"), "epsilon_default": sig["epsilon"].default}))
"""


def run(name, eps, floatx, variant=""):
    row = {"case": f"{name}(epsilon={eps}) on {floatx} weights, zero-gradient fit" + (f", {variant}" if variant else "")}
    out = subprocess.run([sys.executable, "-c", CHILD, name, eps, floatx, variant], capture_output=True, text=True,
                         timeout=300)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode == 0 and lines:
        row["result"] = json.loads(lines[-1])
    else:
        last = (out.stderr.strip().splitlines() or [""])[-1]
        row["error"] = last[:220]
    print(json.dumps(row), flush=True)


def main():
    import tensorflow as tf
    try:
        import keras
        version = keras.__version__
    except ImportError:
        version = tf.keras.__version__
    print(json.dumps({"tensorflow": tf.__version__, "keras": version}), flush=True)
    for name in OPTIMIZERS:
        for eps in ("default", "1e-8", "1e-4"):
            run(name, eps, "float16")
    run("Adam", "1e-8", "float32")
    run("Adam", "1e-8", "float16", "built before set_floatx")
    run("Adam", "1e-8", "float16", "mixed_float16 policy")


if __name__ == "__main__":
    main()
