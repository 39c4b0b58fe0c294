"""models/pipeline/batches.py: every example in exactly one batch, no batch over --max-tokens a
side at its padded width, the same batches from the same seed, and with --pad-to 8 widths that
are multiples of 8 and far fewer shapes (batch size, width) than unpadded.
Run from the repository root: /usr/bin/python3 -m tests.batches_test (no torch needed)."""
import random
import unittest

from models.pipeline.batches import make_batches, round_up


def examples(n=5000, seed=0):
    """Pairs of like lengths, most short, as translations are."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        length = min(60, 1 + int(rng.expovariate(1 / 12)))
        out.append(([1] * max(1, length + rng.randint(-3, 3)),
                    [1] * max(1, length + rng.randint(-3, 2))))
    return out


def shape(pairs, batch, multiple):
    width = max(max(len(pairs[i][0]), len(pairs[i][1]) + 1) for i in batch)
    return len(batch), round_up(width, multiple)


class Batches(unittest.TestCase):
    def test_round_up(self):
        self.assertEqual([round_up(n, 8) for n in (1, 8, 9, 64)], [8, 8, 16, 64])
        self.assertEqual(round_up(13, 1), 13)

    def test_each_example_once_and_within_the_budget(self):
        pairs = examples()
        for multiple in (1, 8):
            batches = make_batches(pairs, 4096, random.Random(1), multiple)
            self.assertEqual(sorted(i for b in batches for i in b), list(range(len(pairs))))
            for b in batches:
                size, width = shape(pairs, b, multiple)
                self.assertLessEqual(size * width, 4096)
                self.assertEqual(width % multiple, 0)

    def test_same_seed_same_batches(self):
        pairs = examples()
        self.assertEqual(make_batches(pairs, 4096, random.Random(7)),
                         make_batches(pairs, 4096, random.Random(7)))
        self.assertNotEqual(make_batches(pairs, 4096, random.Random(7)),
                            make_batches(pairs, 4096, random.Random(8)))

    def test_padding_to_eight_leaves_few_shapes(self):
        pairs = examples(100000)
        plain = {shape(pairs, b, 1) for b in make_batches(pairs, 32768, random.Random(1))}
        eight = {shape(pairs, b, 8) for b in make_batches(pairs, 32768, random.Random(1), 8)}
        self.assertLess(len(eight) * 2, len(plain))
        self.assertLessEqual(len({w for _, w in eight}), 8)


if __name__ == "__main__":
    unittest.main()
