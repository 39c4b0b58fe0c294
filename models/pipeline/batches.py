"""How training examples are grouped into batches: by length, so padding stays small, each batch
at most --max-tokens a side at its padded width. No torch here, so tests run where the training
packages are not installed."""


def round_up(n, multiple):
    """n rounded up to a multiple of `multiple` (1: n itself)."""
    return -(-n // multiple) * multiple


def make_batches(pairs, max_tokens, rng, multiple=1):
    """Lists of indices into `pairs` ((source ids, target ids)), in the order `rng` shuffles
    them. A target is counted with its end token. multiple > 1 rounds every width up to a
    multiple of it (train.py --pad-to; pad() pads the same way): a GPU then meets a few dozen
    shapes instead of hundreds, each of which costs time the first time it is seen."""
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][1]), len(pairs[i][0]),
                                                    rng.random()))
    batches, cur, cur_max = [], [], 0
    for i in order:
        need = round_up(max(len(pairs[i][0]), len(pairs[i][1]) + 1), multiple)
        m = max(cur_max, need)
        if cur and m * (len(cur) + 1) > max_tokens:
            batches.append(cur)
            cur, m = [], need
        cur.append(i)
        cur_max = m
    if cur:
        batches.append(cur)
    rng.shuffle(batches)
    return batches
