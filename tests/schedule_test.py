"""models/pipeline/schedule.py: the rate's warm-up, hold, 1/sqrt decay, re-warm after --init and
linear cool-down, and --cooldown-minutes' cool-down by the clock.
Run from the repository root: /usr/bin/python3 -m tests.schedule_test (no torch needed)."""
import types
import unittest

from models.pipeline.schedule import learning_rate, timed_cooldown


def args(**kw):
    base = dict(lr=1e-3, warmup=200, hold_lr=False, stop_step=0, cooldown=0)
    return types.SimpleNamespace(**dict(base, **kw))


class Schedule(unittest.TestCase):
    def test_warm_up_then_inverse_square_root(self):
        self.assertAlmostEqual(learning_rate(args(), 100, None), 5e-4)
        self.assertAlmostEqual(learning_rate(args(), 200, None), 1e-3)
        self.assertAlmostEqual(learning_rate(args(), 800, None), 5e-4)

    def test_held_rate_and_rewarm_after_init(self):
        held = args(hold_lr=True, lr=4e-4)
        self.assertAlmostEqual(learning_rate(held, 47_000, None), 4e-4)
        self.assertAlmostEqual(learning_rate(held, 47_025, 47_000), 1e-4)
        self.assertAlmostEqual(learning_rate(held, 47_100, 47_000), 4e-4)

    def test_cool_down_falls_linearly_to_its_last_step(self):
        cool = args(hold_lr=True, lr=4e-4, stop_step=1_000, cooldown=100)
        self.assertAlmostEqual(learning_rate(cool, 900, None), 4e-4)
        self.assertAlmostEqual(learning_rate(cool, 901, None), 4e-4)
        self.assertAlmostEqual(learning_rate(cool, 951, None), 2e-4)
        self.assertAlmostEqual(learning_rate(cool, 1_000, None), 4e-6)

    def test_timed_cooldown_falls_with_the_clock_to_the_stages_end(self):
        # a 120-second cool-down: whole rate before it, half with 60 s left, none at the end
        self.assertEqual(timed_cooldown(300.0, 120.0), 1.0)
        self.assertEqual(timed_cooldown(120.0, 120.0), 1.0)
        self.assertAlmostEqual(timed_cooldown(60.0, 120.0), 0.5)
        self.assertAlmostEqual(timed_cooldown(12.0, 120.0), 0.1)
        self.assertEqual(timed_cooldown(0.0, 120.0), 0.0)
        self.assertEqual(timed_cooldown(-3.0, 120.0), 0.0)  # a step past the end: never negative


if __name__ == "__main__":
    unittest.main()
