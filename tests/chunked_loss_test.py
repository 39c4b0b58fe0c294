"""models/pipeline/chunked_loss.py against PyTorch's own loss: the label-smoothed cross-entropy
of the tied logits and its gradients for the hidden states and the embeddings equal
F.cross_entropy's (ignore_index = pad, label_smoothing), over chunk sizes that divide the
positions, leave a remainder or exceed them, with and without padding; and train.py's
train_step takes the same optimiser step with it as with the plain loss, on a small model.
Run from the repository root: /usr/bin/python3 -m tests.chunked_loss_test (skipped without torch).
"""
import unittest

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None


def batch(seed, rows, length, d, vocab, padded_row, pad_from):
    """Random hidden states, embeddings and targets; one row padded from pad_from on."""
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(rows, length, d, generator=g)
    w = torch.randn(vocab, d, generator=g) * 0.3
    y = torch.randint(1, vocab, (rows, length), generator=g)
    y[padded_row, pad_from:] = 0
    return h, w, y


@unittest.skipIf(torch is None, "needs torch (scripts/setup.sh --training)")
class ChunkedLoss(unittest.TestCase):
    def reference(self, h, w, y, pad, eps):
        h = h.detach().clone().requires_grad_()
        w = w.detach().clone().requires_grad_()
        loss = F.cross_entropy((h @ w.t()).reshape(-1, w.shape[0]), y.reshape(-1),
                               ignore_index=pad, label_smoothing=eps)
        loss.backward()
        return loss.detach(), h.grad, w.grad

    def chunked(self, h, w, y, pad, eps, chunk):
        from models.pipeline.chunked_loss import tied_cross_entropy
        h = h.detach().clone().requires_grad_()
        w = w.detach().clone().requires_grad_()
        loss = tied_cross_entropy(h, w, y, pad, eps, chunk)
        (loss * 3).backward()  # why: the incoming gradient must scale both gradients
        return loss.detach(), h.grad / 3, w.grad / 3

    def test_equals_pytorch_cross_entropy(self):
        g = torch.Generator().manual_seed(7)
        batch, length, d, vocab, pad = 5, 9, 16, 40, 0
        h = torch.randn(batch, length, d, generator=g, dtype=torch.float64)
        w = torch.randn(vocab, d, generator=g, dtype=torch.float64) * 0.5
        y = torch.randint(1, vocab, (batch, length), generator=g)
        y[1, 6:] = pad
        y[3, 2:] = pad
        for eps in (0.0, 0.1):
            want = self.reference(h, w, y, pad, eps)
            for chunk in (1, 7, 20, 1000):
                got = self.chunked(h, w, y, pad, eps, chunk)
                for name, a, b in zip(("loss", "grad h", "grad w"), got, want):
                    self.assertTrue(torch.allclose(a, b, rtol=1e-9, atol=1e-12),
                                    "%s differs (eps %s, chunk %d)" % (name, eps, chunk))
        self.assertTrue(torch.all(self.chunked(h, w, y, pad, 0.1, 7)[1][3, 2:] == 0),
                        "a padded position gets no gradient")

    def test_float32_as_trained(self):
        h, w, y = batch(8, 3, 50, 32, 300, 0, 40)
        want = self.reference(h, w, y, 0, 0.1)
        got = self.chunked(h, w, y, 0, 0.1, 64)
        for a, b in zip(got, want):
            self.assertTrue(torch.allclose(a, b, rtol=1e-4, atol=1e-6))

    def test_bfloat16_as_under_autocast(self):
        from models.pipeline.chunked_loss import tied_cross_entropy
        h, w, y = batch(10, 4, 30, 32, 200, 2, 20)
        ha, wa = h.clone().requires_grad_(), w.clone().requires_grad_()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = ha @ wa.t()
        self.assertEqual(logits.dtype, torch.bfloat16)
        want = F.cross_entropy(logits.float().reshape(-1, 200), y.reshape(-1), ignore_index=0,
                               label_smoothing=0.1)
        want.backward()
        hb, wb = h.clone().requires_grad_(), w.clone().requires_grad_()
        got = tied_cross_entropy(hb, wb, y, 0, 0.1, 16, torch.bfloat16)
        got.backward()
        self.assertLess(abs(got.item() - want.item()), 1e-3 * want.item())
        for a, b in ((hb.grad, ha.grad), (wb.grad, wa.grad)):
            self.assertEqual(a.dtype, torch.float32)
            self.assertLess((a - b).abs().max().item(), 2e-2 * b.abs().max().item())
        # why: the products really were bfloat16 (float32 ones would match the float32 loss)
        exact = F.cross_entropy((h @ w.t()).reshape(-1, 200), y.reshape(-1), ignore_index=0,
                                label_smoothing=0.1)
        self.assertNotEqual(got.item(), exact.item())

    def test_train_step_the_same_either_way(self):
        import copy
        from models.pipeline.heed_torch import Seq2Seq
        from models.pipeline.train import train_step
        torch.manual_seed(0)
        model = Seq2Seq({"d_model": 16, "heads": 2, "ffn_dim": 32, "encoder_layers": 1,
                         "decoder_layers": 1, "vocab_size": 50}, dropout=0.0)
        g = torch.Generator().manual_seed(9)
        src = torch.randint(4, 50, (4, 7), generator=g)
        tgt = torch.randint(4, 50, (4, 6), generator=g)
        src[2, 5:] = 0
        tgt[1, 4:] = 0
        steps = {}
        for chunked in (False, True):
            m = copy.deepcopy(model)
            opt = torch.optim.SGD(m.parameters(), lr=1e-2)  # why: Adam magnifies float noise
            losses = [train_step(m, opt, src, tgt[:, :-1], tgt[:, 1:], 1e-2, False, chunked)
                      .item() for _ in range(3)]
            steps[chunked] = losses, [p.detach() for p in m.parameters()]
        self.assertTrue(all(abs(a - b) < 1e-5 for a, b in zip(steps[False][0], steps[True][0])),
                        steps)
        for a, b in zip(steps[False][1], steps[True][1]):
            self.assertTrue(torch.allclose(a, b, atol=1e-5))
        self.assertNotEqual(steps[True][0][0], steps[True][0][2])  # why: it did learn


if __name__ == "__main__":
    unittest.main()
