"""The backend object and its implementations: every op computed in fp32 (or exactly, for int8)
and rounded once to the output dtype, as docs/OPS.md specifies."""

import math

import torch

import opcert
from opcert_torch_example.contract import FLOATS, dtype_problem, first, unknown_attribute

backend = opcert.Backend("torch_example", version="0.1.0", vendor="opcert examples",
                         description="The op catalogue in plain torch ops (examples/python-torch-backend)",
                         device="cpu")


def _query(known, check=None, **dtypes):
    """A query that declines unknown attributes, operands outside `dtypes` (name -> allowed), and
    what `check(inputs, outputs, attrs)` names."""

    def query(inputs, outputs, attrs):
        tensors = {**inputs, **outputs}
        return first(unknown_attribute(attrs, known),
                     *(dtype_problem(n, tensors[n], allowed) for n, allowed in dtypes.items() if n in tensors),
                     check(inputs, outputs, attrs) if check else None)

    return query


# --- gemm ---------------------------------------------------------------------------------------
def _tf32_check(inputs, outputs, attrs):
    if attrs.get("allow_tf32", 0) and inputs["a"].dtype != torch.float32:
        return f"allow_tf32 = 1 with {inputs['a'].dtype} operands (TF32 is a rounding of fp32 inputs)"
    return None


@backend.implementation("gemm", "matmul", query=_query({"b_layout", "allow_tf32"}, _tf32_check, a=FLOATS))
def gemm(inputs, outputs, attrs):
    """torch.matmul in fp32, the bias added before the one rounding"""
    a, b = inputs["a"].float(), inputs["b"].float()
    if attrs.get("b_layout", "nk") == "nk":
        b = b.t()
    c = a @ b
    if "bias" in inputs:
        c = c + inputs["bias"].float()
    return {"c": c.to(outputs["c"].dtype)}


# --- gemm_int8 ----------------------------------------------------------------------------------
def _int8_query(inputs, outputs, attrs):
    if outputs["c"].dtype == torch.int32 and "bias" in inputs:
        return "a bias with an int32 output (the contract declines it)"
    return unknown_attribute(attrs, set())


@backend.implementation("gemm_int8", "matmul", query=_int8_query)
def gemm_int8(inputs, outputs, attrs):
    """Exact int64 products, then fp32 scaling for a dequantized output"""
    acc = inputs["a"].long() @ inputs["b"].long().t()
    out = outputs["c"]
    if out.dtype == torch.int32:
        return {"c": acc.int()}
    c = inputs["a_scale"].float()[:, None] * inputs["b_scale"].float()[None, :] * acc.float()
    if "bias" in inputs:
        c = c + inputs["bias"].float()
    return {"c": c.to(out.dtype)}


# --- gemm_fp8 -----------------------------------------------------------------------------------
def _fp8_query(inputs, outputs, attrs):
    return unknown_attribute(attrs, {"scaling", "block_size"})


@backend.implementation("gemm_fp8", "dequantized", query=_fp8_query)
def gemm_fp8(inputs, outputs, attrs):
    """fp8 operands widened to fp32 (products of fp8 values are exact there), scaled per recipe"""
    a, b = inputs["a"].float(), inputs["b"].float()
    sa, sb = inputs["a_scale"].float(), inputs["b_scale"].float()
    scaling = attrs.get("scaling", "tensor")
    if scaling == "tensor":
        c = (a @ b.t()) * (sa.reshape(-1)[0] * sb.reshape(-1)[0])
    elif scaling == "channel":
        c = (a @ b.t()) * sa[:, None] * sb[None, :]
    else:
        block = int(attrs.get("block_size", 128))
        n = b.shape[0]
        c = torch.zeros(a.shape[0], n, dtype=torch.float32)
        for j in range(sa.shape[1]):
            cols = slice(j * block, (j + 1) * block)
            b_scale = sb[:, j].repeat_interleave(block)[:n]
            c += (a[:, cols] @ b[:, cols].t()) * sa[:, j:j + 1] * b_scale[None, :]
    if "bias" in inputs:
        c = c + inputs["bias"].float()
    return {"c": c.to(outputs["c"].dtype)}


# --- quantize -----------------------------------------------------------------------------------
_QMAX = {torch.int8: 127.0}
for _name, _qmax in (("float8_e4m3fn", 448.0), ("float8_e5m2", 57344.0)):
    if hasattr(torch, _name):
        _QMAX[getattr(torch, _name)] = _qmax


@backend.implementation("quantize", "dynamic", query=_query({"granularity"}, x=FLOATS, q=tuple(_QMAX)))
def quantize(inputs, outputs, attrs):
    """amax / qmax scales, then round-to-nearest-even codes"""
    x = inputs["x"].float()
    q_out = outputs["q"]
    qmax = _QMAX[q_out.dtype]
    if attrs.get("granularity", "token") == "token":
        scale = x.abs().amax(dim=-1) / qmax if x.shape[-1] else torch.zeros(x.shape[0])
        per = scale[:, None]
    else:
        scale = (x.abs().amax() / qmax).reshape(1) if x.numel() else torch.zeros(1)
        per = scale
    scaled = torch.where(per > 0, x / per, torch.zeros_like(x)).clamp(-qmax, qmax)
    q = torch.round(scaled).to(torch.int8) if q_out.dtype == torch.int8 else scaled.to(q_out.dtype)
    return {"q": q, "scale": scale.reshape(outputs["scale"].shape)}


# --- attention ----------------------------------------------------------------------------------
def _attend(q, k, v, scale, causal, window):
    """One sequence: q [Sq, Hq, D], k and v [Skv, Hkv, D] in fp32 -> o [Sq, Hq, D], lse [Hq, Sq]."""
    sq, heads, _ = q.shape
    skv = k.shape[0]
    group = heads // k.shape[1]  # query head h reads key/value head h // group (GQA)
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    s = torch.einsum("qhd,khd->hqk", q, k) * scale
    i = torch.arange(sq)[:, None]
    j = torch.arange(skv)[None, :]
    allowed = torch.ones(sq, skv, dtype=torch.bool)
    if causal:
        allowed &= j <= i + (skv - sq)
    if window >= 0:
        allowed &= j >= i + (skv - sq) - window
    s = s.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(s, dim=-1) if skv else torch.full((heads, sq), float("-inf"))
    empty = torch.isneginf(lse)[..., None]
    p = torch.where(empty, torch.zeros_like(s), torch.exp(s - lse[..., None]))
    o = torch.einsum("hqk,khd->qhd", p, v) if skv else torch.zeros_like(q)
    return o, lse


def _varlen_check(inputs, outputs, attrs):
    if ("cu_seqlens_q" in inputs) != ("cu_seqlens_k" in inputs):
        return "cu_seqlens_q and cu_seqlens_k come together (the varlen layout) or not at all"
    return None


@backend.implementation("attention", "math", query=_query({"scale", "causal", "window_left"}, _varlen_check, q=FLOATS))
def attention(inputs, outputs, attrs):
    """Scores, mask and softmax in fp32, one sequence at a time (BSHD and varlen)"""
    q, k, v = inputs["q"].float(), inputs["k"].float(), inputs["v"].float()
    scale = float(attrs.get("scale", 1.0 / math.sqrt(q.shape[-1])))
    causal, window = bool(attrs.get("causal", 0)), int(attrs.get("window_left", -1))
    if "cu_seqlens_q" in inputs:
        cq, ck = inputs["cu_seqlens_q"].tolist(), inputs["cu_seqlens_k"].tolist()
        pieces = [_attend(q[cq[b]:cq[b + 1]], k[ck[b]:ck[b + 1]], v[ck[b]:ck[b + 1]], scale, causal, window)
                  for b in range(len(cq) - 1)]
        o = torch.cat([p[0] for p in pieces]) if pieces else torch.zeros_like(q)
        lse = torch.cat([p[1] for p in pieces], dim=1) if pieces else torch.zeros(q.shape[1], 0)
    else:
        pieces = [_attend(q[b], k[b], v[b], scale, causal, window) for b in range(q.shape[0])]
        o = torch.stack([p[0] for p in pieces]) if pieces else torch.zeros_like(q)
        lse = torch.stack([p[1] for p in pieces]) if pieces else torch.zeros(0, q.shape[2], q.shape[1])
    results = {"o": o.to(outputs["o"].dtype)}
    if "lse" in outputs:
        results["lse"] = lse.reshape(outputs["lse"].shape)
    return results


# --- norms --------------------------------------------------------------------------------------
def _residual(inputs, results, dtype):
    """r = round(x + residual), written to residual_out; r = x without a residual."""
    if "residual" not in inputs:
        return inputs["x"].float()
    r = (inputs["x"].float() + inputs["residual"].float()).to(dtype)
    results["residual_out"] = r
    return r.float()


def _no_bias(inputs, outputs, attrs):
    return "rms_norm has no bias (docs/OPS.md): declined rather than computed without it" if "bias" in inputs else None


@backend.implementation("rms_norm", "fp32", query=_query({"eps"}, _no_bias, x=FLOATS))
def rms_norm(inputs, outputs, attrs):
    """r / sqrt(mean(r^2) + eps) * weight in fp32"""
    dtype, results = outputs["y"].dtype, {}
    r = _residual(inputs, results, dtype)
    y = r * torch.rsqrt(r.square().mean(dim=-1, keepdim=True) + float(attrs.get("eps", 1e-6)))
    if "weight" in inputs:
        y = y * inputs["weight"].float()
    results["y"] = y.to(dtype)
    return results


@backend.implementation("layer_norm", "fp32", query=_query({"eps"}, x=FLOATS))
def layer_norm(inputs, outputs, attrs):
    """torch.nn.functional.layer_norm on the fp32 residual sum"""
    dtype, results = outputs["y"].dtype, {}
    r = _residual(inputs, results, dtype)
    weight = inputs["weight"].float() if "weight" in inputs else None
    bias = inputs["bias"].float() if "bias" in inputs else None
    y = torch.nn.functional.layer_norm(r, r.shape[-1:], weight, bias, float(attrs.get("eps", 1e-5)))
    results["y"] = y.to(dtype)
    return results


# --- rope ---------------------------------------------------------------------------------------
def _rotate(x, cos, sin, positions, style, rotary):
    """x [..., H, D] fp32; cos and sin gathered at `positions` (x's token dims)."""
    c, s = cos[positions].unsqueeze(-2), sin[positions].unsqueeze(-2)
    out = x.clone()
    half = rotary // 2
    if style == "interleaved":
        x1, x2 = x[..., 0:rotary:2], x[..., 1:rotary:2]
        out[..., 0:rotary:2], out[..., 1:rotary:2] = x1 * c - x2 * s, x2 * c + x1 * s
    else:
        x1, x2 = x[..., :half], x[..., half:rotary]
        out[..., :half], out[..., half:rotary] = x1 * c - x2 * s, x2 * c + x1 * s
    return out


def _positions_check(inputs, outputs, attrs):
    """Without positions, a token's position is its index: the sequence must fit the table."""
    q, table = inputs["q"], inputs["cos"].shape[0]
    if "positions" not in inputs and q.shape[-3] > table:
        return f"{q.shape[-3]} tokens without positions need {q.shape[-3]} table rows; cos has {table}"
    return None


@backend.implementation("rope", "gather", query=_query({"style", "rotary_dim"}, _positions_check, q=FLOATS))
def rope(inputs, outputs, attrs):
    """cos and sin gathered per token, the pairs rotated in fp32"""
    q = inputs["q"]
    token_dims = q.shape[:-2]
    if "positions" in inputs:
        positions = inputs["positions"].long()
        if positions.numel() and (positions.min() < 0 or positions.max() >= inputs["cos"].shape[0]):
            raise ValueError(f"a position lies outside [0, {inputs['cos'].shape[0]})")
    else:
        positions = torch.arange(token_dims[-1]).expand(token_dims)
    rotary = int(attrs.get("rotary_dim", q.shape[-1]))
    style = attrs.get("style", "split_half")
    cos, sin = inputs["cos"].float(), inputs["sin"].float()
    results = {"q_out": _rotate(q.float(), cos, sin, positions, style, rotary).to(q.dtype)}
    if "k" in inputs:
        results["k_out"] = _rotate(inputs["k"].float(), cos, sin, positions, style, rotary).to(q.dtype)
    return results


# --- softmax ------------------------------------------------------------------------------------
@backend.implementation("softmax", "fp32", query=_query(set(), x=FLOATS))
def softmax(inputs, outputs, attrs):
    """torch.softmax over the last dimension in fp32"""
    return {"y": torch.softmax(inputs["x"].float(), dim=-1).to(outputs["y"].dtype)}
