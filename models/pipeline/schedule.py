"""The learning rate a training run follows, and the cool-down a run of fixed minutes plans.
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


def cooldown_steps(steps_done, seconds_done, seconds_left):
    """--cooldown-minutes: how many steps the seconds left hold at the rate of the steps done in
    the seconds given (train.py gives its last ~200 updates); at least one, so the rate still
    ends at zero."""
    return max(1, round(steps_done / max(seconds_done, 1e-9) * seconds_left))
