"""The training-log reading behind the model cards (models/pipeline/make_card.py stages and
training_facts, make_multi_card.cooldowns_to) on a small hand-written log: stages, --init
restarts, wall time with two cool-downs run side by side counted once, and which cool-downs
left the shipped step; and the card's "What is still wrong" (still_wrong). Run from the
repository root: /usr/bin/python3 -m tests.card_log_test."""
import os
import tempfile
import unittest

from models.pipeline.make_card import stages, training_facts, wall_seconds
from models.pipeline.make_multi_card import (checksummed_sources, cooldowns_to, dev_curves,
                                             max_tokens, on_gpu, still_wrong,
                                             timed_cooldown_line, timed_cooldowns)

COMMON = "--directions en-de --lr 3e-4 --hold-lr"
LOG = """\
10:00:00 start step 100, 5 params, config {}
10:00:00 arguments: %(c)s --run r1 (allocator: x)
10:10:00 step 120 epoch 1 loss 2.5 lr 3.00e-04 tokens 4000
10:20:00 stage end at step 140
# two cool-downs from step 140, side by side
11:00:00 start step 140, 5 params, config {}
11:00:00 arguments: %(c)s --run a --stop-step 160 --cooldown 20 (allocator: x)
11:30:00 stage end at step 160
11:00:30 start step 140, 5 params, config {}
11:00:30 arguments: %(c)s --run b --stop-step 160 --cooldown 20 --mix games=2 (allocator: x)
11:40:00 stage end at step 160
23:50:00 start step 160, 5 params, config {}
23:50:00 arguments: %(c)s --run c --init x.heed (allocator: x)
00:10:00 step 180 epoch 2 loss 2.4 lr 3.00e-04 tokens 4000
""" % {"c": COMMON}
GPU = "--device cuda --max-tokens 32768 --hold-lr --minutes 7.5 --cooldown-minutes 1.9"
TIMED = """\
13:00:00 start step 180, 5 params, config {}
13:00:00 arguments: --directions en-de --run a --init x.heed %(g)s --lr 4e-4 (allocator: x)
13:06:39 step 380 epoch 3 loss 2.1 lr 1.20e-05 tokens 30000
13:06:40 stage end at step 380
13:00:05 start step 180, 5 params, config {}
13:00:05 arguments: --directions en-de --run b --init x.heed %(g)s --lr 8e-4 (allocator: x)
13:06:29 step 360 epoch 3 loss 2.1 lr 1.28e-04 tokens 30000
13:06:30 stage end at step 375
13:08:00 start step 380, 5 params, config {}
13:08:00 arguments: --directions en-de --run c --init a.heed %(g)s --lr 3e-4 (allocator: x)
13:11:00 stage end at step 450
""" % {"g": GPU}


class CardLog(unittest.TestCase):
    def setUp(self):
        fd, self.path = tempfile.mkstemp(suffix=".log")
        with os.fdopen(fd, "w") as f:
            f.write(LOG)

    def tearDown(self):
        os.unlink(self.path)

    def test_stages_are_read_with_their_arguments_and_ends(self):
        found = stages(LOG.splitlines())
        self.assertEqual([s["first"] for s in found], [100, 140, 140, 160])
        self.assertEqual([s["end"] for s in found], [140, 160, 160, None])
        self.assertEqual(found[2]["args"][-2:], ["--mix", "games=2"])
        self.assertEqual([s["seconds"] for s in found], [1200, 1800, 2370, 1200])

    def test_side_by_side_stages_count_once_and_midnight_wraps(self):
        # 20 min, the longer cool-down (39.5 min), 20 min across midnight
        self.assertEqual(wall_seconds(stages(LOG.splitlines())), 1200 + 2370 + 1200)
        facts = training_facts(self.path)
        self.assertAlmostEqual(facts["hours"], (1200 + 2370 + 1200) / 3600)
        self.assertEqual((facts["steps"], facts["stages"], facts["first_step"]), (180, 4, 100))
        self.assertEqual(facts["inits"], [160])

    def test_stages_apart_in_time_each_count(self):
        later = LOG.replace("11:00:30", "12:00:30").replace("11:40:00", "12:40:00")
        self.assertEqual(wall_seconds(stages(later.splitlines())), 1200 + 1800 + 2370 + 1200)

    def test_cooldowns_that_left_the_shipped_step(self):
        found = stages(LOG.splitlines())
        self.assertEqual(cooldowns_to(found, 160), [(141, None), (141, "games=2")])
        self.assertEqual(cooldowns_to(found, 140), [])

    def test_gpu_stages_and_their_timed_cooldowns(self):
        found = stages((LOG + TIMED).splitlines())
        gpu = [s for s in found if on_gpu(s)]
        self.assertEqual([s["first"] for s in gpu], [180, 180, 380])
        # the two side by side count once (400 s), then 180 s
        self.assertEqual(wall_seconds(gpu), 400 + 180)
        self.assertEqual((max_tokens(gpu), max_tokens([s for s in found if not on_gpu(s)])),
                         (32768, 4096))
        runs = timed_cooldowns(found, [380, 375, 450])
        self.assertEqual(runs, [(180, 380, "4e-4", 1.2e-5), (180, 375, "8e-4", 1.28e-4),
                                (380, 450, "3e-4", None)])
        self.assertEqual(timed_cooldowns(found, [450]), [(380, 450, "3e-4", None)])
        line = timed_cooldown_line(runs, True)
        # a's last rate is 3% of its held 4e-4 (under a tenth: nothing said); b's is 16% of 8e-4
        self.assertIn("from step 180 to 380 at 4e-4;", line)
        self.assertIn("from step 180 to 375 at 8e-4 (its rate still 16% of that at its last "
                      "logged step)", line)
        self.assertIn("on a lent GPU", line)
        self.assertIn("mean of the 3 ends", line)

    def test_a_line_before_the_next_start_adds_no_time_to_the_ended_stage(self):
        # train.py writes "--bf16 ignored" before "start step": 20 minutes after the GPU's last
        # stage ended, that line must not make the GPU stage 20 minutes longer
        cpu = ("13:31:00 --bf16 ignored: this CPU has no bfloat16; training in float32\n"
               "13:31:01 start step 450, 5 params, config {}\n"
               "13:31:01 arguments: --directions en-de --run d --init c.heed (allocator: x)\n"
               "13:41:01 stage end at step 470\n")
        found = stages((LOG + TIMED + cpu).splitlines())
        self.assertEqual(wall_seconds([s for s in found if on_gpu(s)]), 400 + 180)
        self.assertEqual(found[-1]["seconds"], 600)

    def test_a_missing_log_gives_no_facts(self):
        self.assertEqual(training_facts(self.path + ".missing"), {})

    def test_sources_the_checksums_name_and_curves_of_runs_side_by_side(self):
        with open(self.path, "w") as f:
            f.write("ab12  all/en-de.train.en\ncd34  rpgs/en-fr.dev.fr\nef56  rpgs/en-de.test.de\n")
        self.assertEqual(checksummed_sources(self.path), {"all", "rpgs"})
        self.assertEqual(checksummed_sources(self.path + ".missing"), set())
        with open(self.path, "w") as f:
            f.write("10:00:00 eval step 2000 en-de dev chrF 50.5 BLEU 1\n"
                    "10:00:01 eval step 1000 en-de dev chrF 48.0 BLEU 1\n"
                    "10:00:02 eval step 2000 en-de dev chrF 49.5 BLEU 1\n")
        self.assertEqual(dev_curves(self.path), {"en-de": [(1000, [48.0]), (2000, [50.5, 49.5])]})

    def test_what_is_still_wrong(self):
        def report(pair, source, chrf, copied=None):
            result = dict(chrf=chrf, **({"copied": copied} if copied else {}))
            return {"pair": pair, "source": source, "results": [result]}
        reports = [report("en-de", "everyday", 42.2), report("en-fr", "everyday", 45.7),
                   report("en-de", "ddtp", 30.0),
                   report("en-de", "copy_check", 60.0, {"all": 0.95, "greek": 1.0, "file": 0.84})]
        rows = [("en-de", "A squirrel.", "Ein Eichhörnchen.", True),
                ("fr-en", "J'ai perdu mon portefeuille.", "I lost my gate.", False)]
        lines = still_wrong(reports, rows)
        self.assertEqual(len(lines), 3)
        self.assertIn("en-de 42.2 (under), en-fr 45.7.", lines[0])  # ddtp is not the check
        self.assertIn("(1 of 2): fr-en “J'ai perdu mon portefeuille.” → “I lost my gate.”.",
                      lines[1])
        self.assertIn("en-de file 84.0% (", lines[2])
        self.assertNotIn("greek", lines[2])
        good = [report("en-de", "everyday", 45.0),
                report("en-de", "copy_check", 60.0, {"all": 1.0, "greek": 1.0})]
        self.assertEqual(still_wrong(good, rows[:1]), [
            "- Everyday check: every direction at or above 45 greedy chrF.",
            "- Every sentence the issue was filed with comes out right with greedy search."])


if __name__ == "__main__":
    unittest.main()
