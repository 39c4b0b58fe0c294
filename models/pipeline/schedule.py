"""The learning rate a training run follows, and the cool-down over a run's last minutes.
No torch here, so tests run where the training packages are not installed."""
import math


def learning_rate(args, step, rewarm_from):
    """Linear warm-up, then 1/sqrt(step) (or held, --hold-lr); ramped up again over 100 steps
    after a restart from weights; cooled linearly to zero over the last --cooldown steps."""
    decay = 1.0 if args.hold_lr else math.sqrt(args.warmup / step)
    lr = args.lr * min(step / args.warmup, decay)
    if rewarm_from is not None:
        lr *= min(1.0, (step - rewarm_from) / 100)
    if args.stop_step and args.cooldown:
        lr *= min(1.0, (args.stop_step - step + 1) / args.cooldown)
    return lr


def timed_cooldown(seconds_left, cooldown_seconds):
    """--cooldown-minutes: the share of the rate kept when the stage has seconds_left of its
    --minutes: 1 until its last cooldown_seconds, then linearly down to 0 at its end.
    why by the clock, not by steps planned from the recent rate: on a lent GPU (2026-11-28) the
    plan counted 11.8 steps a second, the dev evaluations and saves slowed the cool-down to 10.1,
    and the stage's minutes ended it with 13% of the rate left."""
    return max(0.0, min(1.0, seconds_left / cooldown_seconds))
