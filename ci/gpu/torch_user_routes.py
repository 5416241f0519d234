"""Routes a torch 2.11 user takes where torch has no single call for opcert's operands, as the torch
peer (backends/torch) runs them, for the Python scripts that time torch alone (torch_crosscheck.py,
probes/torch_varlen_routes.py). docs/PEER.md says why each is the user's route."""
import torch
import torch.nn.functional as F


def padded_decode(q, k, v, cu_seqlens_k, window_left=-1, scale=None):
    """A varlen decode batch (q [B, Hq, D], one row per sequence; k, v [Tk, Hkv, D] packed by
    cu_seqlens_k) as one SDPA: k and v copied (index_copy_) into zero [B, Skv_max, Hkv, D] buffers made
    here once, a boolean key mask (the last window_left + 1 keys with a window), enable_gqa.
    Returns the call, which gives o [B, Hq, D]."""
    cu = cu_seqlens_k.long()
    starts, ends = cu[:-1], cu[1:]
    bsz, hq, d = q.shape
    skv_max, hkv = int((ends - starts).max()), k.size(1)
    kp, vp = k.new_zeros(bsz, skv_max, hkv, d), v.new_zeros(bsz, skv_max, hkv, d)
    t = torch.arange(k.size(0), device=k.device)

    def call():
        seq = torch.searchsorted(ends, t, right=True)
        rows = seq * skv_max + t - starts[seq]
        kp.view(-1, hkv, d).index_copy_(0, rows, k)
        vp.view(-1, hkv, d).index_copy_(0, rows, v)
        j, n = torch.arange(skv_max, device=k.device)[None, :], (ends - starts)[:, None]
        mask = (j < n) & (j >= n - 1 - window_left) if window_left >= 0 else j < n
        return F.scaled_dot_product_attention(q.view(bsz, 1, hq, d).transpose(1, 2), kp.transpose(1, 2),
                                              vp.transpose(1, 2), attn_mask=mask.view(bsz, 1, 1, skv_max),
                                              scale=scale, enable_gqa=hq != hkv)[:, :, 0]
    return call
