"""Label-smoothed cross-entropy over tied output embeddings, a slice of positions at a time.

What it is: the training loss of train.py on the CPU. The plain loss builds the logits of every
target position of the batch at once (32,768 positions x 16,000 pieces: 2.1 GB in float32) and
keeps them, their log-softmax and their gradient alive together: most of the 16-22 GB a CPU run
held. Here the logits exist for CHUNK positions at a time, in the forward pass and again in the
backward pass (recomputed: one more product with the embeddings, ~8% of a step's arithmetic),
and only real target positions are scored (padding never reaches the vocabulary product).
The loss and both gradients are those of F.cross_entropy(h @ W.T, y, ignore_index=pad,
label_smoothing=eps) (tests/chunked_loss_test.py checks them against it); with dtype bfloat16,
those of that loss under autocast: the products in bfloat16, the softmax in float32.
What it is not: for a logits bias, or a GPU (whose memory holds the whole batch's logits).
"""
import torch

CHUNK = 2048  # positions whose logits exist at once (2048 x 16,000 x 4 bytes = 131 MB)


def _accumulator(weight):
    """The type the softmax and the sums are taken in: float32, or float64 for float64."""
    return torch.promote_types(weight.dtype, torch.float32)


class _TiedCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, h, weight, target, eps, chunk, dtype):
        v, wt, acc = weight.shape[0], weight.to(dtype).t(), _accumulator(weight)
        total = h.new_zeros((), dtype=acc)
        for a in range(0, h.shape[0], chunk):
            z = (h[a:a + chunk].to(dtype) @ wt).to(acc)
            lse = torch.logsumexp(z, dim=1)
            nll = lse - z.gather(1, target[a:a + chunk, None])[:, 0]
            smooth = lse - z.sum(dim=1) / v  # why: -mean_j log p_j, PyTorch's smoothing term
            total += ((1 - eps) * nll + eps * smooth).sum()
        ctx.save_for_backward(h, weight, target)
        ctx.eps, ctx.chunk, ctx.dtype = eps, chunk, dtype
        return total / max(h.shape[0], 1)

    @staticmethod
    def backward(ctx, grad):
        h, weight, target = ctx.saved_tensors
        eps, chunk, dtype, v = ctx.eps, ctx.chunk, ctx.dtype, weight.shape[0]
        acc, w = _accumulator(weight), weight.to(dtype)
        scale = grad.to(acc) / max(h.shape[0], 1)
        grad_h = torch.empty_like(h)
        grad_w = torch.zeros(weight.shape, dtype=acc, device=weight.device)
        for a in range(0, h.shape[0], chunk):
            hc = h[a:a + chunk].to(dtype)
            # d loss / d z = softmax(z) - ((1 - eps) onehot(y) + eps / V), per position
            g = torch.softmax((hc @ w.t()).to(acc), dim=1)
            g -= eps / v
            g.scatter_add_(1, target[a:a + chunk, None],
                           g.new_full((hc.shape[0], 1), -(1 - eps)))
            g *= scale
            g = g.to(dtype)
            grad_h[a:a + chunk] = g @ w
            grad_w += (g.t() @ hc).to(acc)
        return grad_h, grad_w.to(weight.dtype), None, None, None, None


def tied_cross_entropy(hidden, weight, target, pad_id, eps, chunk=CHUNK, dtype=None):
    """The mean label-smoothed cross-entropy of the logits hidden @ weight.T at every position
    whose target is not pad_id. hidden: (..., d), weight: (V, d), target: (...); dtype: that of
    the products (default: the weight's; torch.bfloat16 as under autocast)."""
    keep = target.reshape(-1) != pad_id
    h = hidden.reshape(-1, hidden.shape[-1])[keep]
    return _TiedCrossEntropy.apply(h, weight, target.reshape(-1)[keep], eps, chunk,
                                   dtype or weight.dtype)
