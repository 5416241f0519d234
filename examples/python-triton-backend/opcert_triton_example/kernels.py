"""The Triton kernels: one program per row, fp32 math, one rounding on the store.

A row that fits in one block (up to MAX_BLOCK elements) is read once and kept in registers; a
longer one (a 128k vocabulary's softmax) is walked in blocks, twice."""

import triton
import triton.language as tl

MAX_BLOCK = 8192


@triton.jit
def rms_norm_kernel(x_ptr, residual_ptr, weight_ptr, y_ptr, residual_out_ptr, h, eps,
                    HAS_RESIDUAL: tl.constexpr, HAS_WEIGHT: tl.constexpr, BLOCK: tl.constexpr,
                    ONE_BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * h
    if ONE_BLOCK:
        cols = tl.arange(0, BLOCK)
        mask = cols < h
        r = tl.load(x_ptr + row + cols, mask=mask, other=0.0)
        if HAS_RESIDUAL:
            r = r + tl.load(residual_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
            r = r.to(y_ptr.dtype.element_ty)  # the residual sum is rounded once, then normalised
            tl.store(residual_out_ptr + row + cols, r, mask=mask)
        r = r.to(tl.float32)
        inv = 1.0 / tl.sqrt(tl.sum(r * r, axis=0) / h + eps)
        y = r * inv
        if HAS_WEIGHT:
            y = y * tl.load(weight_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)
    else:
        if HAS_RESIDUAL:
            source = residual_out_ptr
        else:
            source = x_ptr
        squares = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, h, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < h
            r = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
            if HAS_RESIDUAL:
                r = r + tl.load(residual_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
                rounded = r.to(y_ptr.dtype.element_ty)
                tl.store(residual_out_ptr + row + cols, rounded, mask=mask)
                r = rounded.to(tl.float32)
            squares += r * r
        inv = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / h + eps)
        for start in range(0, h, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < h
            y = tl.load(source + row + cols, mask=mask, other=0.0).to(tl.float32) * inv
            if HAS_WEIGHT:
                y = y * tl.load(weight_ptr + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(y_ptr + row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, ONE_BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n
    if ONE_BLOCK:
        cols = tl.arange(0, BLOCK)
        mask = cols < n
        x = tl.load(x_ptr + row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        e = tl.where(mask, e, 0.0)
        tl.store(y_ptr + row + cols, (e / tl.sum(e, axis=0)).to(y_ptr.dtype.element_ty), mask=mask)
    else:
        # Online softmax: a running maximum and the sum rescaled to it, per lane, then combined.
        running_max = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
        running_sum = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, n, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + row + cols, mask=cols < n, other=float("-inf")).to(tl.float32)
            new_max = tl.maximum(running_max, x)
            # A lane that has seen only -inf keeps a zero sum (exp(-inf - -inf) would be NaN).
            rescale = tl.where(new_max == float("-inf"), 0.0, tl.exp(running_max - new_max))
            added = tl.where(new_max == float("-inf"), 0.0, tl.exp(x - new_max))
            running_sum = running_sum * rescale + added
            running_max = new_max
        row_max = tl.max(running_max, axis=0)
        lane_scale = tl.where(running_max == float("-inf"), 0.0, tl.exp(running_max - row_max))
        total = tl.sum(running_sum * lane_scale, axis=0)
        for start in range(0, n, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < n
            x = tl.load(x_ptr + row + cols, mask=mask, other=float("-inf")).to(tl.float32)
            tl.store(y_ptr + row + cols, (tl.exp(x - row_max) / total).to(y_ptr.dtype.element_ty), mask=mask)
