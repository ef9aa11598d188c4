"""Does a small normalization epsilon vanish in Flax when the module computes in float16?

float16 rounds any eps <= 2.98e-8 to 0 (1e-8 -> 0.0, 1e-7 -> 1.19e-7, a subnormal); bfloat16 keeps every
eps tried. Whether that matters depends on the dtype in which Flax evaluates `var + epsilon`. Cases, each
eagerly and under jit (what training code runs), on the CPU and, when JAX sees one, on the GPU:

- flax.linen.BatchNorm(use_running_average=False / True, epsilon=E, dtype=D, param_dtype=P,
  force_float32_reductions=F) on x of shape [4, 2, 2, 3] in dtype D, channel 0 constant, channels 1-2
  random. E in {0, 1e-8, 1e-7, 1e-5, 1e-3}, D in {float32, float16, bfloat16}, P in {float32, float16},
  F in {True (the default), False}. Training: channel 0 = 1.0, so its batch variance is 0. Eval: the
  running mean and var set to 0 for every channel, with channel 0 = 1.0 ("x - mean = 1") and with
  channel 0 = 0.0 (a dead ReLU channel: "x - mean = 0"); and, with P = float32 and F = True only,
  channel 0 = 10.0 (the float16 output 10 / sqrt(eps) passes 65504 for eps 1e-8), and channel 0 = 0.0
  with a float32 running var of 1e-9 (a long-dead channel; 0 once cast to float16).
- flax.nnx.BatchNorm(3, epsilon=E, dtype=D) (param_dtype float32) on the same inputs, train and eval,
  E in {0, 1e-8, 1e-5}, D in {float32, float16}.
- flax.linen.LayerNorm and GroupNorm(num_groups=2), and nnx.LayerNorm / nnx.GroupNorm, with D in
  {float16, float32, bfloat16}, E in {0, 1e-8, 1e-6, 1e-5}, on an input whose first row (LayerNorm) or
  first group of the first sample (GroupNorm) is constant 1.0; linen also with F = False.

Each line records the api, device, dtype, param_dtype, epsilon, eps_as_dtype (the eps rounded to D),
mode, exec (eager/jit; the jit pass uses E in {0, 1e-8, 1e-5} and, for linen BatchNorm with
F = True, P = float32 only), input, force_float32_reductions (linen), out_dtype, all_finite, non_finite (the
count), nan/inf, a few output values of the constant channel (ch0) and of a random one (ch1), or error.

What Flax's source does (flax 0.12.10; line numbers of that version):
flax/linen/normalization.py
- _compute_stats (l. 60): l. 111-112 `if force_float32_reductions: dtype = jnp.promote_types(dtype,
  jnp.float32)`, then x.astype(dtype) (l. 113-116): with the default force_float32_reductions=True the
  batch mean/var are float32 whatever `dtype` is; with False they are in `dtype` (float16).
- BatchNorm.__call__: running stats `batch_stats/mean`, `var` are created float32 if
  force_float32_reductions else param_dtype (l. 363, 372); in eval they are used as stored (l. 377-387:
  float32, or cast to param_dtype when force_float32_reductions=False).
- _normalize (l. 154): l. 205 `y = x - mean`, l. 206 `mul = lax.rsqrt(var + epsilon)`. epsilon is a
  Python float (weakly typed), so `var + epsilon` runs in var's dtype: float32 by default, so eps is
  never rounded to float16 there; float16 only when force_float32_reductions=False and (train) dtype
  or (eval) param_dtype is float16. y is float32 (x float16 - mean float32) and is cast to the
  module's dtype only at the end (l. 225-226 `jnp.asarray(y, dtype)`), so the *output* can still
  overflow float16 (|x - mean| * rsqrt(eps) > 65504) in eval with a zero running variance.
flax/nnx/nn/normalization.py
- BatchNorm.__init__: running mean/var always float32 (l. 312-313).
- BatchNorm.__call__ l. 385-387: `x, mean, var, scale, bias = self.promote_dtype((x, self.mean[...],
  self.var[...], scale, bias), dtype=self.dtype)` casts the running stats to the module dtype. In
  training _compute_stats (l. 50) promotes to float32 unconditionally (l. 97), so `var + epsilon`
  (_normalize l. 171) is float32; in eval (use_running_average=True) var is the float16 copy, so
  `var + epsilon` runs in float16 and eps <= 2.98e-8 is 0 there (and a float32 running var below
  ~6e-8 is already 0 after the cast). Output cast at l. 182-183.
- LayerNorm/GroupNorm (l. 562, 910) cast x, scale, bias to dtype, and their stats come from
  _compute_stats (float32), like linen's with force_float32_reductions=True.
Older wheels (read from PyPI's): nnx.BatchNorm's cast of the running stats is in 0.12.1 to 0.12.12, not in
0.12.0 (`mean, var = self.mean.value, self.var.value`, float32); linen's param_dtype running stats under
force_float32_reductions=False are in 0.10.7 on, not in 0.10.0. Run under flax 0.8.5 / jax 0.4.30, this
script gives the same table except those eval cases (finite there; nnx.GroupNorm does not exist).

    python3 tests/probes/flax_bn_eps_half.py tests/probes/results/flax_bn_eps_half.<versions>.<machine>.jsonl
    (--gpu-only as a second argument skips the CPU pass)
First line: the environment (python, jax, jaxlib, flax, numpy, platforms, eps rounded to float16 and
bfloat16); then one JSON line per case; last, the seconds per device. Needs only jax, jaxlib, flax and
numpy (a Flax without `force_float32_reductions` records an error for the F = False cases). About 35 s
per device on a 2-core CPU. Not part of CI.
"""
import json
import math
import platform
import sys
import time

import numpy as np
import jax
import jax.numpy as jnp
import flax
import flax.linen as nn
from flax import nnx

OUT = None
JIT_EPS = (0.0, 1e-8, 1e-5)  # under jit a smaller grid (each case compiles), to stay quick on a GPU
DTYPES = {"float32": jnp.float32, "float16": jnp.float16, "bfloat16": jnp.bfloat16}


def emit(row):
    OUT.write(json.dumps(row) + "\n")
    OUT.flush()


def num(v):
    v = float(v)
    return v if math.isfinite(v) else str(v)


def summary(y, ch0, ch1):
    a = np.asarray(jnp.asarray(y, jnp.float32))
    bad = ~np.isfinite(a)
    return {"out_dtype": str(y.dtype), "out_device": str(next(iter(y.devices()))),
            "all_finite": bool(not bad.any()), "non_finite": int(bad.sum()), "nan": bool(np.isnan(a).any()),
            "inf": bool(np.isinf(a).any()), "ch0": [num(v) for v in ch0(a)[:3]], "ch1": [num(v) for v in ch1(a)[:3]]}


def eps_as(eps, dname):
    return num(jnp.asarray(eps, DTYPES[dname]).astype(jnp.float32))


def run_case(row, fn):
    t = time.time()
    try:
        row.update(fn())
    except Exception as exc:  # a refusal is a result
        lines = str(exc).splitlines() or [""]
        row["error"] = f"{type(exc).__name__}: {lines[0][:220]}"
    row["seconds"] = round(time.time() - t, 3)
    emit(row)


rng = np.random.default_rng(0)
BASE = rng.standard_normal((4, 2, 2, 3)).astype(np.float32)


def bn_input(ch0_value):
    x = BASE.copy()
    x[..., 0] = ch0_value
    return x


BN_CH0 = lambda a: a[..., 0].ravel()  # noqa: E731
BN_CH1 = lambda a: a[..., 1].ravel()  # noqa: E731
# (description, channel-0 value, running var (eval), full grid?). The last two eval inputs run only with
# the defaults (param_dtype float32, force_float32_reductions True): ch0 = 10.0 (output overflow:
# 10 / sqrt(1e-8) = 1e5 > 65504), and a float32 running var of 1e-9 (a long-dead channel: 0.99^2000),
# which is 0 once cast to float16.
BN_INPUTS = {"train": [("[4,2,2,3] ch0 = 1.0, ch1-2 randn", 1.0, None, True)],
             "eval": [("[4,2,2,3] ch0 = 1.0, ch1-2 randn; running mean = var = 0", 1.0, 0.0, True),
                      ("[4,2,2,3] ch0 = 0.0, ch1-2 randn; running mean = var = 0", 0.0, 0.0, True),
                      ("[4,2,2,3] ch0 = 10.0, ch1-2 randn; running mean = var = 0", 10.0, 0.0, False),
                      ("[4,2,2,3] ch0 = 0.0, ch1-2 randn; running mean = 0, var = 1e-9", 0.0, 1e-9, False)]}


def ff32_kw(cls, ff32):
    """force_float32_reductions only where this Flax has it (older linen does not: None = not passed)."""
    if ff32 is None:
        return {}
    if "force_float32_reductions" not in getattr(cls, "__dataclass_fields__", {}):
        if ff32:  # before the flag, the statistics were always float32: the same as True
            return {}
        raise TypeError(f"{cls.__name__} of flax {flax.__version__} has no force_float32_reductions")
    return {"force_float32_reductions": ff32}


def var_get(v):
    try:
        return v[...]
    except TypeError:  # older nnx Variables have no [...] indexing
        return v.value


def var_set(v, value):
    try:
        v[...] = value
    except TypeError:
        v.value = value


def linen_bn(dev, eps, dname, pname, mode, xval, rvar, ff32, use_jit):
    def fn():
        with jax.default_device(dev):
            m = nn.BatchNorm(use_running_average=(mode == "eval"), epsilon=eps, dtype=DTYPES[dname],
                             param_dtype=DTYPES[pname], **ff32_kw(nn.BatchNorm, ff32))
            x = jax.device_put(jnp.asarray(bn_input(xval), DTYPES[dname]), dev)
            v = m.init(jax.random.PRNGKey(0), x)
            stats_dtype = str(v["batch_stats"]["var"].dtype)
            if mode == "eval":
                bs = v["batch_stats"]
                v = {"params": v["params"], "batch_stats": {"mean": jnp.zeros_like(bs["mean"]),
                                                            "var": jnp.full_like(bs["var"], rvar)}}
                apply = lambda v, x: m.apply(v, x)  # noqa: E731
            else:
                apply = lambda v, x: m.apply(v, x, mutable=["batch_stats"])[0]  # noqa: E731
            y = (jax.jit(apply) if use_jit else apply)(v, x)
            y.block_until_ready()
        return {"batch_stats_dtype": stats_dtype, **summary(y, BN_CH0, BN_CH1)}
    return fn


def nnx_bn(dev, eps, dname, mode, xval, rvar, use_jit):
    def fn():
        with jax.default_device(dev):
            m = nnx.BatchNorm(3, epsilon=eps, dtype=DTYPES[dname], param_dtype=jnp.float32, rngs=nnx.Rngs(0))
            x = jax.device_put(jnp.asarray(bn_input(xval), DTYPES[dname]), dev)
            if mode == "eval":
                var_set(m.mean, jnp.zeros_like(var_get(m.mean)))
                var_set(m.var, jnp.full_like(var_get(m.var), rvar))
            stats_dtype = str(var_get(m.var).dtype)
            call = lambda m, x: m(x, use_running_average=(mode == "eval"))  # noqa: E731
            y = (nnx.jit(call) if use_jit else call)(m, x)
            y.block_until_ready()
        return {"batch_stats_dtype": stats_dtype, **summary(y, BN_CH0, BN_CH1)}
    return fn


LN_X = BASE.reshape(4, 12)[:, :8].copy()
LN_X[0] = 1.0  # constant row
GN_X = BASE.copy().reshape(4, 2, 2, 3)
GN_X = np.concatenate([GN_X, GN_X[..., :1]], axis=-1)  # [4,2,2,4]: 2 groups of 2 channels
GN_X[0, ..., 0:2] = 1.0  # first group of the first sample constant


def ln_gn(dev, kind, flavour, eps, dname, ff32, use_jit):
    def fn():
        d = DTYPES[dname]
        with jax.default_device(dev):
            xn = LN_X if kind == "LayerNorm" else GN_X
            x = jax.device_put(jnp.asarray(xn, d), dev)
            if flavour == "linen":
                m = (nn.LayerNorm(epsilon=eps, dtype=d, **ff32_kw(nn.LayerNorm, ff32)) if kind == "LayerNorm"
                     else nn.GroupNorm(num_groups=2, epsilon=eps, dtype=d, **ff32_kw(nn.GroupNorm, ff32)))
                v = m.init(jax.random.PRNGKey(0), x)
                apply = lambda v, x: m.apply(v, x)  # noqa: E731
                y = (jax.jit(apply) if use_jit else apply)(v, x)
            else:
                m = (nnx.LayerNorm(8, epsilon=eps, dtype=d, rngs=nnx.Rngs(0)) if kind == "LayerNorm"
                     else nnx.GroupNorm(4, num_groups=2, epsilon=eps, dtype=d, rngs=nnx.Rngs(0)))
                call = lambda m, x: m(x)  # noqa: E731
                y = (nnx.jit(call) if use_jit else call)(m, x)
            y.block_until_ready()
        if kind == "LayerNorm":
            return summary(y, lambda a: a[0].ravel(), lambda a: a[1].ravel())
        return summary(y, lambda a: a[0, ..., 0:2].ravel(), lambda a: a[1, ..., 0:2].ravel())
    return fn


def main():
    global OUT
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--gpu-only"]):
        sys.exit("usage: flax_bn_eps_half.py OUT.jsonl [--gpu-only]")
    OUT = open(sys.argv[1], "w")
    import jaxlib
    devices = [jax.devices("cpu")[0]]
    try:
        devices += [jax.devices("gpu")[0]]
    except RuntimeError:
        pass
    if "--gpu-only" in sys.argv:
        devices = devices[1:]
    emit({"python": platform.python_version(), "jax": jax.__version__, "jaxlib": jaxlib.__version__,
          "flax": flax.__version__, "numpy": np.__version__, "default_backend": jax.default_backend(),
          "platforms": sorted({d.platform for d in jax.devices()} | {"cpu"}),
          "devices": [str(d) for d in devices], "machine": platform.machine(),
          "eps_in_float16": {str(e): eps_as(e, "float16") for e in (1e-8, 3e-8, 1e-7, 1e-6, 1e-5)},
          "eps_in_bfloat16": {str(e): eps_as(e, "bfloat16") for e in (1e-8, 1e-7, 1e-5)}})
    t0 = time.time()
    seconds = {}
    for dev in devices:
        t_dev = time.time()
        where = {"device": str(dev), "platform": dev.platform}
        for use_jit in (False, True):
            ex = {"exec": "jit" if use_jit else "eager"}
            for mode in ("train", "eval"):
                for desc, xval, rvar, full in BN_INPUTS[mode]:
                    for ff32 in (True, False) if full else (True,):
                        for dname in DTYPES:
                            for pname in ("float32", "float16") if full and not (use_jit and ff32) else ("float32",):
                                for eps in (0.0, 1e-8, 1e-7, 1e-5, 1e-3) if not use_jit else JIT_EPS:
                                    run_case({"api": "flax.linen.BatchNorm", **where, **ex, "mode": mode,
                                              "dtype": dname, "param_dtype": pname, "epsilon": eps,
                                              "eps_as_dtype": eps_as(eps, dname), "force_float32_reductions": ff32,
                                              "input": desc},
                                             linen_bn(dev, eps, dname, pname, mode, xval, rvar, ff32, use_jit))
                    for dname in ("float32", "float16"):
                        for eps in (0.0, 1e-8, 1e-5):
                            run_case({"api": "flax.nnx.BatchNorm", **where, **ex, "mode": mode, "dtype": dname,
                                      "param_dtype": "float32", "epsilon": eps, "eps_as_dtype": eps_as(eps, dname),
                                      "input": desc}, nnx_bn(dev, eps, dname, mode, xval, rvar, use_jit))
            for kind, desc in (("LayerNorm", "[4,8] row 0 = 1.0, rows 1-3 randn"),
                               ("GroupNorm", "[4,2,2,4] num_groups=2, sample 0 group 0 = 1.0, rest randn")):
                for flavour in ("linen", "nnx"):
                    for ff32 in ((True, False) if flavour == "linen" else (None,)):
                        for dname in ("float16", "float32", "bfloat16"):
                            for eps in (0.0, 1e-8, 1e-6, 1e-5) if not use_jit else JIT_EPS:
                                row = {"api": f"flax.{flavour}.{kind}", **where, **ex, "mode": "train",
                                       "dtype": dname, "param_dtype": "float32", "epsilon": eps,
                                       "eps_as_dtype": eps_as(eps, dname), "input": desc}
                                if ff32 is not None:
                                    row["force_float32_reductions"] = ff32
                                run_case(row, ln_gn(dev, kind, flavour, eps, dname, ff32, use_jit))
        seconds[str(dev)] = round(time.time() - t_dev, 1)
    emit({"done": True, "seconds": round(time.time() - t0, 1), "seconds_per_device": seconds})
    OUT.close()


if __name__ == "__main__":
    main()
