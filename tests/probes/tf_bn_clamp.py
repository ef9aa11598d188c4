"""Which TensorFlow / Keras batch-norm entry points silently raise an epsilon below 1.001e-5 to
1.001e-5 (the old `min_epsilon = 1.001e-5` of `tf.compat.v1.nn.fused_batch_norm`), on the CPU.

For eps in {0, 1e-6, 1e-5, 1.001e-5, 1e-3, -1e-5} it runs, in training and in inference:
`tf.compat.v1.nn.fused_batch_norm`, `tf.raw_ops.FusedBatchNormV3` (the C++ CPU kernel, no Python
in between), `tf.nn.fused_batch_norm` where that symbol exists, `tf.keras.layers.BatchNormalization`
(default `fused`, and `fused=False` / `fused=True` where accepted) and, where the `tf_keras`
package imports, `tf_keras.layers.BatchNormalization` the same way. The input is NHWC [2, 3, 3, 3]:
channel 0 constant (zero batch variance), channel 1 of variance ~4e-8 (so the output depends on eps
to 1e-8), channel 2 of variance ~1; inference uses mean [0.4, 0, 0.1], variance [0, 1e-8, 1]. Each
output is compared with numpy (float64) computed with eps and with max(eps, 1.001e-5):
`eps_used` says which one it matches ("eps" = not clamped, "1.001e-5" = clamped, "either" when
eps >= 1.001e-5 so both are the same; "neither" prints a sample); a match needs NaN/Inf at the
same places as numpy (NaN and Inf alike) and the finite values within rtol 1e-4 (eps 1e-5 and
1.001e-5 differ by ~5e-4 here). `eps_effective` is the eps read back from the output (training:
channel 1, inference: channel 0, where the variance is 0). NaN/Inf for eps <= 0 means not clamped.
Everything runs eagerly on the CPU; the version line records TF_ENABLE_ONEDNN_OPTS (oneDNN may
replace the Eigen kernel: run once with TF_ENABLE_ONEDNN_OPTS=0 too).

Run with tensorflow or tensorflow-cpu (any 2.12 .. 2.21; tf_keras optional):
    python3 tests/probes/tf_bn_clamp.py
First line: the versions; then one JSON line per case. Not part of CI.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from probe_case import case  # noqa: E402

try:
    from importlib import metadata
except ImportError:  # pragma: no cover
    metadata = None


def dist_version(name):
    try:
        return metadata.version(name)
    except Exception:  # noqa: BLE001
        return None


def keras_version():
    try:
        import keras  # noqa: WPS433
        return keras.__version__
    except Exception as exc:  # noqa: BLE001
        return f"import failed: {type(exc).__name__}"


def tf_keras_attr_version():
    try:
        return getattr(tf.keras, "__version__", None) or "no __version__"
    except Exception as exc:  # noqa: BLE001
        return f"tf.keras failed: {type(exc).__name__}: {str(exc)[:120]}"


def tf_keras_package():
    try:
        import tf_keras  # noqa: WPS433
        return tf_keras
    except Exception:  # noqa: BLE001
        return None


TF_KERAS_PKG = tf_keras_package()
print(json.dumps({
    "tensorflow": tf.__version__,
    "dists": {name: dist_version(name) for name in ("tensorflow", "tensorflow-cpu", "keras", "tf-keras", "numpy")},
    "tf.keras.__version__": tf_keras_attr_version(),
    "keras.__version__": keras_version(),
    "tf_keras.__version__": getattr(TF_KERAS_PKG, "__version__", None),
    "tf.nn.fused_batch_norm exists": hasattr(tf.nn, "fused_batch_norm"),
    "python": sys.version.split()[0],
    "TF_ENABLE_ONEDNN_OPTS": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "unset"),
}), flush=True)

MIN_EPS = 1.001e-5
EPSILONS = (0.0, 1e-6, 1e-5, 1.001e-5, 1e-3, -1e-5)

X = np.zeros((2, 3, 3, 3), np.float32)
X[..., 0] = 0.5
X[..., 1] = (1e-4 * np.array([1, -1, 2, -2, 3, -3, 1, -1, 2, -2, 3, -3, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5])
             ).reshape(2, 3, 3)
X[..., 2] = np.linspace(-1.7, 1.9, 18).reshape(2, 3, 3) ** 3 * 0.4 + 0.2
SCALE = np.array([1.5, 100.0, 0.5], np.float32)
OFFSET = np.array([0.25, -0.1, 0.3], np.float32)
MEAN = np.array([0.4, 0.0, 0.1], np.float32)
VAR = np.array([0.0, 1e-8, 1.0], np.float32)


def expected(eps, training):
    x = X.astype(np.float64)
    if training:
        mean = x.mean(axis=(0, 1, 2))
        var = x.var(axis=(0, 1, 2))  # biased: what the normalization uses
    else:
        mean, var = MEAN.astype(np.float64), VAR.astype(np.float64)
    with np.errstate(all="ignore"):
        return (x - mean) / np.sqrt(var + np.float64(np.float32(eps))) * SCALE + OFFSET


def fmt(v):
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return float(f"{v:.5g}")


def effective_eps(y, training):
    """eps read back from the output: training from channel 1 (batch variance ~4e-8), inference
    from channel 0 (given variance 0)."""
    x = X.astype(np.float64)
    y = np.asarray(y, np.float64)
    if training:
        c = 1
        mean = x[..., c].mean()
        var = x[..., c].var()
    else:
        c = 0
        mean, var = float(MEAN[c]), float(VAR[c])
    d = (x[..., c] - mean).ravel()
    i = int(np.argmax(np.abs(d)))
    with np.errstate(all="ignore"):
        r = (y[..., c].ravel()[i] - float(OFFSET[c])) / (float(SCALE[c]) * d[i])  # = 1 / sqrt(var + eps)
        return fmt(1.0 / (r * r) - var)


def close(got, want):
    """Same non-finite positions (NaN and Inf count alike: 0 * inf and inf - inf differ by kernel),
    and the finite values within rtol 1e-4."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    bad = ~np.isfinite(got)
    if not np.array_equal(bad, ~np.isfinite(want)):
        return False
    return bool(np.allclose(got[~bad], want[~bad], rtol=1e-4, atol=1e-6))


def verdict(y, eps, training, extra=None):
    y = np.asarray(y)
    as_given = close(y, expected(eps, training))
    as_clamped = close(y, expected(max(eps, MIN_EPS), training))
    if np.float32(eps) >= np.float32(MIN_EPS):
        used = "either" if as_given else "neither"
    elif as_given and not as_clamped:
        used = "eps"
    elif as_clamped and not as_given:
        used = "1.001e-5"
    else:
        used = "ambiguous" if as_given else "neither"
    row = {"eps_used": used, "eps_effective": effective_eps(y, training),
           "nan": int(np.isnan(y).sum()), "inf": int(np.isinf(y).sum())}
    if used == "neither":
        row["y_ch0"] = fmt(y[..., 0].ravel()[0])
        row["y_ch1_max"] = fmt(np.nanmax(np.abs(y[..., 1])))
    if extra:
        row.update(extra)
    return row


def mode(training):
    return "train" if training else "infer"


# --- a) tf.compat.v1.nn.fused_batch_norm, c) tf.nn.fused_batch_norm ---------------------------------
def python_fused(fn, eps, training):
    def run():
        if training:
            y = fn(tf.constant(X), tf.constant(SCALE), tf.constant(OFFSET), epsilon=eps, is_training=True)[0]
        else:
            y = fn(tf.constant(X), tf.constant(SCALE), tf.constant(OFFSET), mean=tf.constant(MEAN),
                   variance=tf.constant(VAR), epsilon=eps, is_training=False)[0]
        return verdict(y.numpy(), eps, training)
    return run


# --- b) tf.raw_ops.FusedBatchNormV3 -----------------------------------------------------------------
def raw_v3(eps, training):
    def run():
        empty = tf.constant([], tf.float32)
        out = tf.raw_ops.FusedBatchNormV3(
            x=tf.constant(X), scale=tf.constant(SCALE), offset=tf.constant(OFFSET),
            mean=empty if training else tf.constant(MEAN), variance=empty if training else tf.constant(VAR),
            epsilon=eps, exponential_avg_factor=1.0, data_format="NHWC", is_training=training)
        return verdict(out[0].numpy(), eps, training)
    return run


# --- d) tf.keras, e) tf_keras ------------------------------------------------------------------------
def keras_bn(layers_mod, eps, training, **kwargs):
    def run():
        layer = layers_mod.BatchNormalization(epsilon=eps, **kwargs)
        layer.build(X.shape)
        layer.set_weights([SCALE, OFFSET, MEAN, VAR])  # gamma, beta, moving_mean, moving_variance
        y = layer(tf.constant(X), training=training)
        fused = getattr(layer, "fused", "no attribute")
        return verdict(np.asarray(y), eps, training,
                       {"layer.fused": fused if isinstance(fused, (bool, str, type(None))) else str(fused),
                        "layer.epsilon": fmt(layer.epsilon)})
    return run


def constructor_message(layers_mod, **kwargs):
    """The exact (full) message when the constructor refuses a keyword, else what it accepted."""
    def run():
        try:
            layer = layers_mod.BatchNormalization(**kwargs)
        except Exception as exc:  # noqa: BLE001
            return {"refused": True, "type": type(exc).__name__, "message": str(exc)}
        return {"refused": False, "layer.fused": getattr(layer, "fused", "no attribute")}
    return run


def accepted(layers_mod, **kwargs):
    try:
        layers_mod.BatchNormalization(**kwargs)
        return True
    except Exception:  # noqa: BLE001
        return False


def weight_names(layers_mod):
    def run():
        layer = layers_mod.BatchNormalization()
        layer.build(X.shape)
        return [w.name for w in layer.weights]
    return run


compat_fbn = tf.compat.v1.nn.fused_batch_norm
for training in (True, False):
    for eps in EPSILONS:
        case(f"tf.compat.v1.nn.fused_batch_norm {mode(training)} eps={eps:g}", python_fused(compat_fbn, eps, training))
for training in (True, False):
    for eps in EPSILONS:
        case(f"tf.raw_ops.FusedBatchNormV3 {mode(training)} eps={eps:g}", raw_v3(eps, training))
if hasattr(tf.nn, "fused_batch_norm"):
    for training in (True, False):
        for eps in EPSILONS:
            case(f"tf.nn.fused_batch_norm {mode(training)} eps={eps:g}",
                 python_fused(tf.nn.fused_batch_norm, eps, training))
else:
    case("tf.nn.fused_batch_norm", lambda: "symbol does not exist")

KERAS_MODULES = [("tf.keras", None)]
if TF_KERAS_PKG is not None:
    KERAS_MODULES.append(("tf_keras", TF_KERAS_PKG))
for label, module in KERAS_MODULES:
    try:
        layers_mod = (module or tf.keras).layers
    except Exception as exc:  # noqa: BLE001
        case(f"{label}.layers", lambda: (_ for _ in ()).throw(exc))
        continue
    case(f"{label}.layers.BatchNormalization weights", weight_names(layers_mod))
    for fused in (None, False, True):
        kwargs = {} if fused is None else {"fused": fused}
        case(f"{label}.layers.BatchNormalization({', '.join(f'{k}={v}' for k, v in kwargs.items()) or 'default'}) "
             "constructor", constructor_message(layers_mod, **kwargs))
        if not accepted(layers_mod, **kwargs):
            continue
        for training in (True, False):
            for eps in EPSILONS:
                shown = "" if fused is None else f" fused={fused}"
                case(f"{label}.layers.BatchNormalization{shown} {mode(training)} eps={eps:g}",
                     keras_bn(layers_mod, eps, training, **kwargs))
