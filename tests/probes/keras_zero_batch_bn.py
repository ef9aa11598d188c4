"""What a zero-size batch does to a Keras BatchNormalization layer's moving statistics, and what
predict does with zero samples (Keras 3 and TensorFlow 2.11's Keras 2).

A Dense(4) -> BatchNormalization -> Dense(1) model, compiled with SGD and MSE:
- train_on_batch on zeros((0, 8)): the loss it returns, the layer's moving mean and variance
  after it, whether the kernel stays finite, and whether a prediction on ones((2, 8)) is finite;
- the model called on zeros((0, 8)) with training=True: the moving variance after it;
- predict(zeros((0, 8))): its result or error.
Run (CPU is enough): python tests/probes/keras_zero_batch_bn.py  (one JSON line). Not part of CI."""
import json
import os

os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

try:
    import keras  # noqa: E402
    keras.Sequential  # Keras 3, or the Keras 2 package
except (ImportError, AttributeError):
    from tensorflow import keras  # noqa: E402


def model():
    m = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4), keras.layers.BatchNormalization(),
                          keras.layers.Dense(1)])
    m.compile(optimizer="sgd", loss="mse")
    return m


def floats(variable):
    return [float(v) for v in np.array(variable)]


def main():
    out = {"tensorflow": tf.__version__, "keras": keras.__version__}
    m = model()
    norm = m.layers[1]
    try:
        out["train_on_batch_empty_loss"] = repr(m.train_on_batch(np.zeros((0, 8), np.float32),
                                                                 np.zeros((0, 1), np.float32)))
    except Exception as e:  # noqa: BLE001 - the probe records whatever Keras raises
        out["train_on_batch_empty_error"] = f"{type(e).__name__}: {str(e)[:200]}"
    out["moving_mean_after"] = floats(norm.moving_mean)
    out["moving_variance_after"] = floats(norm.moving_variance)
    out["kernel_finite_after"] = bool(np.all(np.isfinite(np.array(m.layers[0].kernel))))
    out["predict_ones_finite_after"] = bool(np.all(np.isfinite(m.predict_on_batch(np.ones((2, 8), np.float32)))))
    called = model()
    called(np.zeros((0, 8), np.float32), training=True)
    out["call_training_empty_moving_variance_after"] = floats(called.layers[1].moving_variance)
    try:
        out["predict_zero_samples"] = repr(np.shape(model().predict(np.zeros((0, 8), np.float32), verbose=0)))
    except Exception as e:  # noqa: BLE001
        out["predict_zero_samples_error"] = f"{type(e).__name__}: {str(e)[:200]}"
    print(json.dumps(out))


if __name__ == "__main__":
    main()
