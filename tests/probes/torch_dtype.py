"""What PyTorch does with dtype mistakes: integer tensors into float layers, half/float mismatches,
fp16 epsilon literals, batch/layer norm eps in half, optimizer eps on half parameters.

Run with any torch (the CPU wheel is enough; every case here runs on the CPU):
    python3 tests/probes/torch_dtype.py
Prints one JSON line per case: the result, or the exception (type and first line of its message).
Not part of CI.
"""
import json
import math
import os
import sys
import tempfile
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from probe_case import case

warnings.simplefilter("ignore")
torch.manual_seed(0)

try:
    import torchvision
    from PIL import Image
except ImportError:  # the torchvision cases are skipped
    torchvision = None

print(json.dumps({"torch": torch.__version__, "torchvision": getattr(torchvision, "__version__", None),
                  "numpy": np.__version__, "cuda": torch.cuda.is_available()}), flush=True)


def shape(t):
    return {"dtype": str(t.dtype), "shape": list(t.shape)}


def finite(t):
    """Summary of a floating tensor: dtype, any NaN, any Inf."""
    t = t.detach()
    return {"dtype": str(t.dtype), "nan": bool(torch.isnan(t).any()), "inf": bool(torch.isinf(t).any())}


# ---------------------------------------------------------------------------------------------
# a. Integer tensors into float layers (CPU).
x_i64 = torch.randint(0, 255, (1, 3, 8, 8))
case("torch.randint(0, 255, (1,3,8,8)).dtype", lambda: str(x_i64.dtype))
case("nn.Conv2d(3,4,3) on randint int64", lambda: shape(nn.Conv2d(3, 4, 3)(x_i64)))
case("nn.Conv2d(3,4,3,bias=False) on randint int64", lambda: shape(nn.Conv2d(3, 4, 3, bias=False)(x_i64)))
case("F.conv2d(int64 x, float w) no bias", lambda: shape(F.conv2d(x_i64, torch.randn(4, 3, 3, 3))))
case("F.conv2d(int64 x, float w, float b)", lambda: shape(F.conv2d(x_i64, torch.randn(4, 3, 3, 3), torch.randn(4))))
case("nn.Conv1d(3,4,3) on int64 [1,3,8]", lambda: shape(nn.Conv1d(3, 4, 3)(torch.randint(0, 255, (1, 3, 8)))))
case("nn.Conv1d(3,4,3,bias=False) on int64 [1,3,8]",
     lambda: shape(nn.Conv1d(3, 4, 3, bias=False)(torch.randint(0, 255, (1, 3, 8)))))
case("nn.Conv3d(3,4,3) on int64 [1,3,4,8,8]", lambda: shape(nn.Conv3d(3, 4, 3)(torch.randint(0, 255, (1, 3, 4, 8, 8)))))
case("nn.ConvTranspose2d(3,4,3) on int64", lambda: shape(nn.ConvTranspose2d(3, 4, 3)(x_i64)))
case("nn.Linear(8,4) on int64 [1,3,8,8]", lambda: shape(nn.Linear(8, 4)(x_i64)))
bn = nn.BatchNorm2d(3)
case("nn.BatchNorm2d(3) train on int64", lambda: shape(bn(x_i64)))
bn_eval = nn.BatchNorm2d(3).eval()
case("nn.BatchNorm2d(3) eval on int64", lambda: shape(bn_eval(x_i64)))
case("nn.BatchNorm2d(3, affine=False) train on int64", lambda: shape(nn.BatchNorm2d(3, affine=False)(x_i64)))
case("nn.LayerNorm(8) on int64", lambda: shape(nn.LayerNorm(8)(x_i64)))
case("nn.GroupNorm(1,3) on int64", lambda: shape(nn.GroupNorm(1, 3)(x_i64)))

x_u8_np = torch.from_numpy(np.zeros((1, 3, 8, 8), np.uint8))
case("torch.from_numpy(np.zeros(..., np.uint8)).dtype", lambda: str(x_u8_np.dtype))
case("nn.Conv2d(3,4,3) on from_numpy uint8", lambda: shape(nn.Conv2d(3, 4, 3)(x_u8_np)))
case("nn.Conv2d(3,4,3,bias=False) on from_numpy uint8", lambda: shape(nn.Conv2d(3, 4, 3, bias=False)(x_u8_np)))
case("nn.BatchNorm2d(3) train on uint8", lambda: shape(nn.BatchNorm2d(3)(x_u8_np)))
case("nn.BatchNorm2d(3) eval on uint8", lambda: shape(nn.BatchNorm2d(3).eval()(x_u8_np)))

xf = torch.rand(1, 3, 8, 8)
for spelling, conv in ((".int()", lambda t: t.int()), (".long()", lambda t: t.long()), (".byte()", lambda t: t.byte()),
                       (".to(torch.uint8)", lambda t: t.to(torch.uint8)), (".char()", lambda t: t.char()),
                       (".short()", lambda t: t.short()), (".bool()", lambda t: t.bool())):
    case(f"x{spelling}.dtype", lambda conv=conv: str(conv(xf).dtype))
    case(f"nn.Conv2d(3,4,3) on x{spelling}", lambda conv=conv: shape(nn.Conv2d(3, 4, 3)(conv(xf))))
    case(f"nn.Conv2d(3,4,3,bias=False) on x{spelling}", lambda conv=conv: shape(nn.Conv2d(3, 4, 3, bias=False)(conv(xf))))
    case(f"nn.BatchNorm2d(3) train on x{spelling}", lambda conv=conv: shape(nn.BatchNorm2d(3)(conv(xf))))
case("torch.tensor([[1,2],[3,4]]).dtype", lambda: str(torch.tensor([[1, 2], [3, 4]]).dtype))
case("torch.tensor([[1.,2],[3,4]]).dtype", lambda: str(torch.tensor([[1., 2], [3, 4]]).dtype))
case("torch.tensor(np.zeros((2,2), np.uint8)).dtype", lambda: str(torch.tensor(np.zeros((2, 2), np.uint8)).dtype))
case("torch.as_tensor(np.array(PIL-like uint8)).dtype", lambda: str(torch.as_tensor(np.zeros((8, 8, 3), np.uint8)).dtype))
case("torch.arange(4).dtype", lambda: str(torch.arange(4).dtype))
case("F.one_hot(randint labels, 8).dtype", lambda: str(torch.nn.functional.one_hot(torch.randint(0, 8, (2, 5, 5)), 8).dtype))
case("x.argmax(1).dtype", lambda: str(torch.rand(2, 8, 5, 5).argmax(1).dtype))
case("torch.argmin(x, dim=1).dtype", lambda: str(torch.argmin(torch.rand(2, 8, 5, 5), dim=1).dtype))
case("nn.Conv2d(8,4,3) on F.one_hot(...).permute(0,3,1,2)",
     lambda: shape(nn.Conv2d(8, 4, 3)(torch.nn.functional.one_hot(torch.randint(0, 8, (2, 5, 5)), 8).permute(0, 3, 1, 2))))
case("torch.zeros(2).long() into nn.Linear(2,2)", lambda: shape(nn.Linear(2, 2)(torch.zeros(1, 2).long())))

if torchvision is not None:
    from torchvision import transforms as T
    img = Image.fromarray(np.random.randint(0, 255, (8, 8, 3), dtype=np.uint8))
    case("np.array(PIL RGB image).dtype", lambda: str(np.array(img).dtype))
    case("torch.from_numpy(np.array(PIL image)).dtype", lambda: str(torch.from_numpy(np.array(img)).dtype))
    pil_t = T.PILToTensor()(img)
    case("transforms.PILToTensor()(img).dtype", lambda: str(pil_t.dtype))
    case("nn.Conv2d(3,4,3) on PILToTensor()(img)[None]", lambda: shape(nn.Conv2d(3, 4, 3)(pil_t[None])))
    case("transforms.ToTensor()(img).dtype (negative)", lambda: str(T.ToTensor()(img).dtype))
    case("transforms.ConvertImageDtype(torch.float)(PILToTensor) into Conv2d (negative)",
         lambda: shape(nn.Conv2d(3, 4, 3)(T.ConvertImageDtype(torch.float)(pil_t)[None])))
    case("PILToTensor().float() into Conv2d (negative)", lambda: shape(nn.Conv2d(3, 4, 3)(pil_t.float()[None])))
    try:
        from torchvision.transforms import v2 as T2
        case("transforms.v2.PILToTensor()(img).dtype", lambda: str(T2.PILToTensor()(img).dtype))
        case("transforms.v2.ToImage()(img).dtype", lambda: str(T2.ToImage()(img).dtype))
        case("v2.ToDtype(torch.float32, scale=True)(v2.ToImage()(img)).dtype (negative)",
             lambda: str(T2.ToDtype(torch.float32, scale=True)(T2.ToImage()(img)).dtype))
    except ImportError:
        pass
    tmp = tempfile.mkdtemp()
    png = os.path.join(tmp, "probe.png")
    img.save(png)
    from torchvision import io as tvio
    case("torchvision.io.read_image(png).dtype", lambda: shape(tvio.read_image(png)))
    case("torchvision.io.decode_image(png path).dtype", lambda: shape(tvio.decode_image(png)))
    case("torchvision.io.decode_image(read_file(png)).dtype", lambda: shape(tvio.decode_image(tvio.read_file(png))))
    case("torchvision.io.decode_png(read_file(png)).dtype", lambda: shape(tvio.decode_png(tvio.read_file(png))))
    case("nn.Conv2d(3,4,3) on read_image(png)[None]", lambda: shape(nn.Conv2d(3, 4, 3)(tvio.read_image(png)[None])))
    r18 = torchvision.models.resnet18(weights=None).eval()
    case("torchvision resnet18(weights=None) on uint8 batch [2,3,32,32]",
         lambda: shape(r18(torch.zeros(2, 3, 32, 32, dtype=torch.uint8))))
    case("torchvision resnet18(weights=None) on int64 batch", lambda: shape(r18(torch.zeros(2, 3, 32, 32, dtype=torch.long))))
    case("torchvision resnet18(weights=None) on read_image().float()/255 (negative)",
         lambda: shape(r18((tvio.read_image(png).float() / 255)[None])))

# Negatives: integer tensors that are meant to be integers.
case("nn.CrossEntropyLoss(float logits, int64 labels) (negative)",
     lambda: float(nn.CrossEntropyLoss()(torch.randn(4, 10), torch.randint(0, 10, (4,)))) >= 0)
case("nn.CrossEntropyLoss(float logits, int32 labels)",
     lambda: float(nn.CrossEntropyLoss()(torch.randn(4, 10), torch.randint(0, 10, (4,), dtype=torch.int32))) >= 0)
case("nn.CrossEntropyLoss(float logits, float labels of class ids)",
     lambda: float(nn.CrossEntropyLoss()(torch.randn(4, 10), torch.randint(0, 10, (4,)).float())))
emb = nn.Embedding(100, 8)
tokens = torch.randint(0, 100, (2, 16))
case("nn.Embedding(100,8)(randint tokens) then Conv1d(8,4,3) (negative)",
     lambda: shape(nn.Conv1d(8, 4, 3)(emb(tokens).transpose(1, 2))))
case("nn.Embedding on int32 tokens (negative)", lambda: shape(emb(tokens.int())))
case("nn.Embedding on float tokens", lambda: shape(emb(tokens.float())))
case("F.one_hot(int64 labels).float() into Linear (negative)",
     lambda: shape(nn.Linear(10, 4)(F.one_hot(torch.randint(0, 10, (4,)), 10).float())))
case("F.one_hot(int64 labels) (no float) into Linear", lambda: shape(nn.Linear(10, 4)(F.one_hot(torch.randint(0, 10, (4,)), 10))))

# ---------------------------------------------------------------------------------------------
# b. Half / bfloat16 / float mismatches (CPU).
x32 = torch.randn(1, 3, 8, 8)
conv = nn.Conv2d(3, 4, 3)
conv_nb = nn.Conv2d(3, 4, 3, bias=False)
case("x.half() into float32 Conv2d (bias)", lambda: shape(conv(x32.half())))
case("x.half() into float32 Conv2d (bias=False)", lambda: shape(conv_nb(x32.half())))
case("x.bfloat16() into float32 Conv2d (bias)", lambda: shape(conv(x32.bfloat16())))
case("x.bfloat16() into float32 Conv2d (bias=False)", lambda: shape(conv_nb(x32.bfloat16())))
case("x.double() into float32 Conv2d (bias)", lambda: shape(conv(x32.double())))
case("x.double() into float32 Conv2d (bias=False)", lambda: shape(conv_nb(x32.double())))
case("x.half() into float32 Conv1d (bias)", lambda: shape(nn.Conv1d(3, 4, 3)(torch.randn(1, 3, 8).half())))
case("x.half() into float32 Linear", lambda: shape(nn.Linear(8, 4)(x32.half())))
conv_h = nn.Conv2d(3, 4, 3).half()
conv_h_nb = nn.Conv2d(3, 4, 3, bias=False).half()
case("float32 x into Conv2d.half() (bias)", lambda: shape(conv_h(x32)))
case("float32 x into Conv2d.half() (bias=False)", lambda: shape(conv_h_nb(x32)))
case("half x into Conv2d.half() on CPU", lambda: finite(conv_h(x32.half())))
case("bf16 x into Conv2d.bfloat16() on CPU", lambda: finite(nn.Conv2d(3, 4, 3).bfloat16()(x32.bfloat16())))
case("half x into Linear.half() on CPU", lambda: finite(nn.Linear(8, 4).half()(x32.half())))
model_f = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU()).eval()
for dt in (torch.bfloat16, torch.float16):
    def under_autocast(dt=dt, xin=None):
        with torch.autocast("cpu", dtype=dt):
            y = model_f(x32 if xin is None else xin)
        return finite(y)
    case(f"float32 x into float32 Conv-BN model inside torch.autocast('cpu', dtype={dt})", under_autocast)
    case(f"half x into float32 Conv-BN model inside torch.autocast('cpu', dtype={dt})",
         lambda dt=dt: under_autocast(dt, x32.half()))
    case(f"bf16 x into float32 Conv-BN model inside torch.autocast('cpu', dtype={dt})",
         lambda dt=dt: under_autocast(dt, x32.bfloat16()))

    def conv_autocast(dt=dt, xin=None, m=None):
        with torch.autocast("cpu", dtype=dt):
            return finite(m(xin))
    case(f"half x into float32 Conv2d (bias) inside torch.autocast('cpu', dtype={dt})",
         lambda dt=dt: conv_autocast(dt, x32.half(), conv))
    case(f"half x into float32 Conv2d (bias=False) inside torch.autocast('cpu', dtype={dt})",
         lambda dt=dt: conv_autocast(dt, x32.half(), conv_nb))
    case(f"float32 x into Conv2d.half() inside torch.autocast('cpu', dtype={dt})",
         lambda dt=dt: conv_autocast(dt, x32, conv_h))
case("torch.amp.autocast_mode.is_autocast_available('cpu')",
     lambda: torch.amp.autocast_mode.is_autocast_available("cpu"))
for train in (True, False):
    m = nn.BatchNorm2d(3)
    m.train(train)
    mode = "train" if train else "eval"
    case(f"float32 nn.BatchNorm2d {mode} on half input (CPU)", lambda m=m: finite(m(x32.half())))
    case(f"float32 nn.BatchNorm2d {mode} on bf16 input (CPU)", lambda m=m: finite(m(x32.bfloat16())))
    case(f"nn.BatchNorm2d.half() {mode} on half input (CPU)", lambda train=train: finite(nn.BatchNorm2d(3).half().train(train)(x32.half())))
    case(f"nn.BatchNorm2d.half() {mode} on float32 input (CPU)", lambda train=train: finite(nn.BatchNorm2d(3).half().train(train)(x32)))
case("F.batch_norm(half x, float running stats, float w/b, training=True)",
     lambda: finite(F.batch_norm(x32.half(), torch.zeros(3), torch.ones(3), torch.ones(3), torch.zeros(3), training=True)))
case("float32 nn.LayerNorm(8) on half input (CPU)", lambda: finite(nn.LayerNorm(8)(x32.half())))
case("float32 nn.GroupNorm(1,3) on half input (CPU)", lambda: finite(nn.GroupNorm(1, 3)(x32.half())))

# ---------------------------------------------------------------------------------------------
# c. fp16 / bf16 rounding of epsilon literals.
for eps in (1e-3, 1e-4, 1e-5, 1.001e-5, 1e-6, 1e-7, 3e-8, 2.98e-8, 2.9e-8, 1e-8, 1e-12):
    def rounding(eps=eps):
        out = {}
        for name, dt in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
            z = torch.zeros(1, dtype=dt)
            out[name] = {
                "tensor(eps).item()": torch.tensor(eps, dtype=dt).item(),
                "zeros+eps": (z + eps).item(),
                "1/(zeros+eps)": (torch.ones(1, dtype=dt) / (z + eps)).item(),
                "1+eps==1": bool((torch.ones(1, dtype=dt) + eps == 1).item()),
            }
        return out
    case(f"eps={eps!r} in fp16/bf16", rounding)
case("2**-25 in fp16 (exact tie, rounds to even = 0)", lambda: torch.tensor(2.0 ** -25, dtype=torch.float16).item())
case("nextafter(2**-25, 1) in fp16", lambda: torch.tensor(math.nextafter(2.0 ** -25, 1), dtype=torch.float16).item())
zh = torch.zeros(4, dtype=torch.float16)
case("x/(x.norm()+1e-8), x=zeros fp16", lambda: (zh / (zh.norm() + 1e-8)).tolist())
case("x/(x.norm()+1e-4), x=zeros fp16 (negative)", lambda: (zh / (zh.norm() + 1e-4)).tolist())
case("x/(x.norm()+1e-8), x=zeros bf16", lambda: (zh.bfloat16() / (zh.bfloat16().norm() + 1e-8)).tolist())
case("x/(x.norm()+1e-8), x=zeros fp16, computed in float32 (.float())",
     lambda: (zh.float() / (zh.float().norm() + 1e-8)).tolist())
case("x/(x.float().norm()+1e-8), x=zeros fp16 (only the norm in float32)",
     lambda: {"dtype": str((zh / (zh.float().norm() + 1e-8)).dtype), "values": (zh / (zh.float().norm() + 1e-8)).tolist()})
case("x/(x.float().norm()+1e-8) with x=zeros fp16 [4] and a 1-element float32 norm",
     lambda: (zh / (zh.float().norm().reshape(1) + 1e-8)).tolist())
case("(x.float()/(x.float().norm()+1e-8)).half(), x=zeros fp16", lambda: (zh.float() / (zh.float().norm() + 1e-8)).half().tolist())
case("x.norm() dtype for fp16 x", lambda: str(zh.norm().dtype))
case("1/(x.pow(2).mean()+1e-8).sqrt(), x=zeros fp16", lambda: (1 / (zh.pow(2).mean() + 1e-8).sqrt()).item())
case("torch.rsqrt(var+1e-12), var=zeros fp16", lambda: torch.rsqrt(zh + 1e-12).tolist())
case("F.normalize(zeros fp16 [2,4]) default eps=1e-12", lambda: F.normalize(torch.zeros(2, 4, dtype=torch.float16)).tolist())
case("F.normalize(zeros bf16 [2,4]) default eps=1e-12", lambda: F.normalize(torch.zeros(2, 4, dtype=torch.bfloat16)).tolist())
case("F.normalize(zeros fp32 [2,4]) (negative)", lambda: F.normalize(torch.zeros(2, 4)).tolist())
case("F.cosine_similarity(zeros fp16, zeros fp16) default eps=1e-8",
     lambda: F.cosine_similarity(torch.zeros(2, 4, dtype=torch.float16), torch.zeros(2, 4, dtype=torch.float16)).tolist())
def autocast_eps(dt, op):
    with torch.autocast("cpu", dtype=dt):
        a = torch.zeros(4, 4)
        z = a @ a  # matmul: cast to the autocast dtype
        if op == "dtypes":
            return {"matmul": str(z.dtype), "z + 1e-8": str((z + 1e-8).dtype), "z.norm()": str(z.norm().dtype),
                    "z.sum()": str(z.sum().dtype), "z.pow(2).mean()": str(z.pow(2).mean().dtype),
                    "F.normalize(z)": str(F.normalize(z).dtype), "F.layer_norm(z)": str(F.layer_norm(z, (4,)).dtype)}
        if op == "normalize-by-hand":
            return finite(z / (z.norm() + 1e-8))
        if op == "rsqrt":
            return finite(torch.rsqrt(z.pow(2).mean(-1) + 1e-8))
        if op == "F.normalize":
            return finite(F.normalize(z))


for dt in (torch.float16, torch.bfloat16):
    case(f"torch.autocast('cpu', {dt}): dtypes of matmul output and reductions", lambda dt=dt: autocast_eps(dt, "dtypes"))
    case(f"torch.autocast('cpu', {dt}): z=zeros@zeros; z/(z.norm()+1e-8)",
         lambda dt=dt: autocast_eps(dt, "normalize-by-hand"))
    case(f"torch.autocast('cpu', {dt}): rsqrt(z.pow(2).mean(-1)+1e-8)", lambda dt=dt: autocast_eps(dt, "rsqrt"))
    case(f"torch.autocast('cpu', {dt}): F.normalize(z) on z=zeros@zeros", lambda dt=dt: autocast_eps(dt, "F.normalize"))
case("torch.finfo(float16)", lambda: {k: getattr(torch.finfo(torch.float16), k) for k in
                                       ("tiny", "smallest_normal", "max", "eps", "resolution")})
case("torch.finfo(bfloat16)", lambda: {k: getattr(torch.finfo(torch.bfloat16), k) for k in
                                        ("tiny", "smallest_normal", "max", "eps", "resolution")})
case("smallest fp16 subnormal 2**-24 round-trip", lambda: torch.tensor(2.0 ** -24, dtype=torch.float16).item())

# ---------------------------------------------------------------------------------------------
# d. Batch norm / layer norm eps in half (CPU).
const = torch.full((4, 4, 3, 3), 2.0)


def _bn_eval_zero_var(eps, dt):
    m = nn.BatchNorm2d(4, eps=eps).to(dt).eval()
    m.running_var.zero_()
    return m(const.to(dt))


for eps in (1e-5, 1e-8, 0.0):
    case(f"nn.BatchNorm2d(4, eps={eps}).half() train on constant half input",
         lambda eps=eps: finite(nn.BatchNorm2d(4, eps=eps).half()(const.half())))
    case(f"nn.BatchNorm2d(4, eps={eps}).half() eval, running_var=0, half input",
         lambda eps=eps: finite(_bn_eval_zero_var(eps, torch.float16)))
    case(f"nn.BatchNorm2d(4, eps={eps}) float32 train on constant half input",
         lambda eps=eps: finite(nn.BatchNorm2d(4, eps=eps)(const.half())))
    case(f"nn.BatchNorm2d(4, eps={eps}).bfloat16() train on constant bf16 input",
         lambda eps=eps: finite(nn.BatchNorm2d(4, eps=eps).bfloat16()(const.bfloat16())))
    case(f"nn.BatchNorm2d(4, eps={eps}) float32 train on constant float32 input",
         lambda eps=eps: finite(nn.BatchNorm2d(4, eps=eps)(const)))
    case(f"nn.LayerNorm(8, eps={eps}).half() on zeros half",
         lambda eps=eps: finite(nn.LayerNorm(8, eps=eps).half()(torch.zeros(2, 8, dtype=torch.float16))))
    case(f"nn.GroupNorm(2, 4, eps={eps}).half() on constant half",
         lambda eps=eps: finite(nn.GroupNorm(2, 4, eps=eps).half()(const.half())))
    case(f"nn.InstanceNorm2d(4, eps={eps}) on constant half",
         lambda eps=eps: finite(nn.InstanceNorm2d(4, eps=eps)(const.half())))


for eps in (1e-12, 1e-8, 1e-5, 0.0):
    case(f"nn.LayerNorm(8, eps={eps}).half() on zeros half", lambda eps=eps: finite(
        nn.LayerNorm(8, eps=eps).half()(torch.zeros(2, 8, dtype=torch.float16))))
    case(f"nn.LayerNorm(8, eps={eps}).half() on constant 3.0 half: values", lambda eps=eps: (
        nn.LayerNorm(8, eps=eps).half()(torch.full((1, 8), 3.0, dtype=torch.float16)))[0, :2].tolist())
    case(f"F.layer_norm(zeros half, eps={eps}) no affine", lambda eps=eps: finite(
        F.layer_norm(torch.zeros(2, 8, dtype=torch.float16), (8,), eps=eps)))
case("nn.LayerNorm(8, eps=1e-12).half() on zeros: output values",
     lambda: nn.LayerNorm(8, eps=1e-12).half()(torch.zeros(1, 8, dtype=torch.float16))[0, :3].tolist())
case("nn.RMSNorm(8, eps=1e-12).half() on zeros half" if hasattr(nn, "RMSNorm") else "nn.RMSNorm missing",
     lambda: finite(nn.RMSNorm(8, eps=1e-12).half()(torch.zeros(2, 8, dtype=torch.float16))))
case("nn.RMSNorm(8, eps=None).half() on zeros half (eps defaults to finfo(half).eps)",
     lambda: finite(nn.RMSNorm(8).half()(torch.zeros(2, 8, dtype=torch.float16))))
case("F.batch_norm(half x, float running stats, training=True, eps=1e-8) constant input",
     lambda: finite(F.batch_norm(const.half(), torch.zeros(4), torch.ones(4), torch.ones(4), torch.zeros(4),
                                 training=True, eps=1e-8)))
case("F.batch_norm(half x, float running_var=0, training=False, eps=1e-8)",
     lambda: finite(F.batch_norm(const.half(), torch.zeros(4), torch.zeros(4), training=False, eps=1e-8)))
case("F.batch_norm(half x, half running_var=0, training=False, eps=1e-8)",
     lambda: finite(F.batch_norm(const.half(), torch.zeros(4).half(), torch.zeros(4).half(), training=False, eps=1e-8)))
case("F.batch_norm(half x, half running_var=0, training=False, eps=1e-8): first value",
     lambda: F.batch_norm(const.half(), torch.zeros(4).half(), torch.zeros(4).half(), training=False, eps=1e-8).flatten()[0].item())
case("F.batch_norm(half x, half running_var=0, training=False, eps=0): first value",
     lambda: F.batch_norm(const.half(), torch.zeros(4).half(), torch.zeros(4).half(), training=False, eps=0.0).flatten()[0].item())
case("F.batch_norm(half x=0, half running mean/var=0, eps=0): first value (0*inf)",
     lambda: F.batch_norm(torch.zeros(1, 4, 2, 2).half(), torch.zeros(4).half(), torch.zeros(4).half(),
                          training=False, eps=0.0).flatten()[0].item())
case("F.batch_norm(half x=0, half running mean/var=0, eps=1e-8): first value",
     lambda: F.batch_norm(torch.zeros(1, 4, 2, 2).half(), torch.zeros(4).half(), torch.zeros(4).half(),
                          training=False, eps=1e-8).flatten()[0].item())
case("hand-written BN in half: (x-mean)/torch.sqrt(var+1e-8), constant input",
     lambda: finite((const.half() - const.half().mean()) / torch.sqrt(const.half().var() + 1e-8)))
case("hand-written LN in half: (x-mu)/torch.sqrt(var+1e-12), zeros",
     lambda: finite((zh - zh.mean()) / torch.sqrt(zh.var(unbiased=False) + 1e-12)))

# ---------------------------------------------------------------------------------------------
# e. Optimizer eps on half parameters (CPU).
OPTS = [
    ("Adam", torch.optim.Adam, {}),
    ("AdamW", torch.optim.AdamW, {}),
    ("RMSprop", torch.optim.RMSprop, {}),
    ("Adagrad", torch.optim.Adagrad, {}),
    ("Adamax", torch.optim.Adamax, {}),
    ("NAdam", torch.optim.NAdam, {}),
    ("RAdam", torch.optim.RAdam, {}),
    ("Adadelta", torch.optim.Adadelta, {}),
    ("Adam(amsgrad=True)", torch.optim.Adam, {"amsgrad": True}),
    ("SGD(momentum=0.9) (no eps)", torch.optim.SGD, {"momentum": 0.9}),
]


def opt_step(cls, kwargs, dtype=torch.float16, grad_value=0.0, steps=1, extra=None):
    torch.manual_seed(0)
    model = nn.Linear(4, 4).to(dtype)
    kw = dict(kwargs)
    kw.update(extra or {})
    opt = cls(model.parameters(), lr=1e-3, **kw)
    for _ in range(steps):
        opt.zero_grad()
        model.weight.grad = torch.full_like(model.weight, grad_value)
        g = torch.ones_like(model.bias)  # an ordinary gradient for the bias
        model.bias.grad = g
        opt.step()
    w, b = model.weight.detach(), model.bias.detach()
    res = {"weight_nan": bool(torch.isnan(w).any()), "weight_inf": bool(torch.isinf(w).any()),
           "bias_nan": bool(torch.isnan(b).any()), "param_dtype": str(w.dtype)}
    st = opt.state[model.weight]
    res["state_dtypes"] = sorted({f"{k}:{v.dtype}" for k, v in st.items() if torch.is_tensor(v) and v.dim() > 0})
    return res


def defaults_eps(cls, kwargs):
    d = cls([torch.zeros(1, requires_grad=True)], lr=1e-3, **kwargs).defaults
    return d.get("eps")


for name, cls, kw in OPTS:
    case(f"{name}: default eps", lambda cls=cls, kw=kw: defaults_eps(cls, kw))
    for variant, extra in (("default (foreach=None)", {}), ("foreach=False", {"foreach": False}),
                           ("foreach=True", {"foreach": True}), ("fused=True", {"fused": True})):
        case(f"{name} {variant} on Linear.half(): weight grad exactly 0, 1 step",
             lambda cls=cls, kw=kw, extra=extra: opt_step(cls, kw, extra=extra))
        if variant != "default (foreach=None)":
            case(f"{name} {variant} on Linear.half(): weight grad 1e-4, 1 step",
                 lambda cls=cls, kw=kw, extra=extra: opt_step(cls, kw, grad_value=1e-4, extra=extra))
    case(f"{name} foreach=False on Linear.half(): weight grad 0, 10 steps",
         lambda cls=cls, kw=kw: opt_step(cls, kw, grad_value=0.0, steps=10, extra={"foreach": False}))
    case(f"{name} foreach=False on Linear.half(): weight grad 1e-4, 5 steps",
         lambda cls=cls, kw=kw: opt_step(cls, kw, grad_value=1e-4, steps=5, extra={"foreach": False}))
    case(f"{name} foreach=False on Linear.half(): weight grad 0, 5 steps",
         lambda cls=cls, kw=kw: opt_step(cls, kw, grad_value=0.0, steps=5, extra={"foreach": False}))
    if name != "SGD(momentum=0.9) (no eps)":
        case(f"{name} eps=1e-4 foreach=False on Linear.half(): weight grad 0 (negative)",
             lambda cls=cls, kw=kw: opt_step(cls, kw, extra={"foreach": False, "eps": 1e-4}))
        case(f"{name} eps=1e-4 foreach=False on Linear.half(): weight grad 1e-4, 5 steps",
             lambda cls=cls, kw=kw: opt_step(cls, kw, grad_value=1e-4, steps=5, extra={"foreach": False, "eps": 1e-4}))
        case(f"{name} foreach=False on Linear.bfloat16(): weight grad 0",
             lambda cls=cls, kw=kw: opt_step(cls, kw, dtype=torch.bfloat16, extra={"foreach": False}))
        case(f"{name} foreach=False on float32 Linear: weight grad 0 (negative)",
             lambda cls=cls, kw=kw: opt_step(cls, kw, dtype=torch.float32, extra={"foreach": False}))


def amp_training(cls, kwargs):
    """float32 parameters, forward under CPU autocast (fp16 or bf16), GradScaler on CPU: params stay float32."""
    out = {}
    for dt in (torch.bfloat16, torch.float16):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))
        opt = cls(model.parameters(), lr=1e-3, **kwargs)
        scaler = torch.amp.GradScaler("cpu")
        for _ in range(3):
            opt.zero_grad()
            with torch.autocast("cpu", dtype=dt):
                loss = model(torch.zeros(8, 4)).sum() * 0  # zero gradients everywhere
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        ps = list(model.parameters())
        out[str(dt)] = {"param_dtype": str(ps[0].dtype), "nan": any(bool(torch.isnan(p).any()) for p in ps)}
    return out


for name, cls, kw in OPTS[:4]:
    case(f"{name}: float32 model, CPU autocast + GradScaler('cpu'), zero grads, 3 steps (negative)",
         lambda cls=cls, kw=kw: amp_training(cls, kw))
case("fp16 Adam step by hand: 0/(sqrt(0)+fp16(1e-8))",
     lambda: (torch.zeros(1, dtype=torch.float16) / (torch.zeros(1, dtype=torch.float16).sqrt() + 1e-8)).item())


def scaler_on_half_model():
    model = nn.Linear(4, 4).half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    loss = model(torch.ones(2, 4, dtype=torch.float16)).float().sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    return "stepped"


case("GradScaler('cpu').step with Adam on Linear.half() (fp16 grads)", scaler_on_half_model)


def default_foreach():
    from torch.optim.optimizer import _default_to_fused_or_foreach
    fused, foreach = _default_to_fused_or_foreach([torch.zeros(1).half()], False, False)
    return {"fused": fused, "foreach": foreach}


case("default fused/foreach for CPU fp16 params (_default_to_fused_or_foreach)", default_foreach)
