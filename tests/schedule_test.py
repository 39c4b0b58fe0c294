"""models/pipeline/schedule.py: the rate's warm-up, hold, 1/sqrt decay, re-warm after --init and
linear cool-down, and the cool-down --cooldown-minutes plans from the steps a second so far.
Run from the repository root: /usr/bin/python3 -m tests.schedule_test (no torch needed)."""
import types
import unittest

from models.pipeline.schedule import cooldown_steps, learning_rate


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

    def test_cooldown_steps_from_the_rate_so_far(self):
        # 4.5 steps a second for 6 minutes, 2 minutes left: 540 steps
        self.assertEqual(cooldown_steps(1_620, 360.0, 120.0), 540)
        self.assertEqual(cooldown_steps(0, 30.0, 120.0), 1)  # never none: the rate still ends
        self.assertGreaterEqual(cooldown_steps(10, 0.0, 60.0), 1)  # no division by zero


if __name__ == "__main__":
    unittest.main()
