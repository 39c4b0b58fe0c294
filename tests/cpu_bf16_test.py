"""models/pipeline/cpu_bf16.py: --bf16 is kept on CPUs with AVX-512 or the bfloat16 instructions,
dropped with its reason on the others, and never questioned off the CPU.
Run from the repository root: /usr/bin/python3 -m tests.cpu_bf16_test (no torch needed)."""
import unittest

from models.pipeline.cpu_bf16 import cpu_flags, keep_bf16, why_not_bf16

EPYC_AVX2 = ("processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse sse2 avx f16c fma "
             "avx2 bmi2 vaes\n\nprocessor\t: 1\nflags\t\t: fpu sse sse2 avx avx2\n")
XEON_BF16 = "processor\t: 0\nflags\t\t: fpu avx avx2 avx512f avx512bw avx512_bf16 amx_bf16\n"
SKYLAKE_X = "processor\t: 0\nflags\t\t: fpu avx avx2 avx512f avx512dq avx512bw avx512vl\n"
ARM_BF16 = "processor\t: 0\nFeatures\t: fp asimd bf16 i8mm\n"


class CpuBf16(unittest.TestCase):
    def test_flags_of_the_first_processor(self):
        self.assertIn("avx2", cpu_flags(EPYC_AVX2))
        self.assertIn("vaes", cpu_flags(EPYC_AVX2))
        self.assertEqual(cpu_flags("processor\t: 0\n"), set())

    def test_avx2_only_is_refused_with_its_reason(self):
        why = why_not_bf16("cpu", EPYC_AVX2)
        self.assertIsNotNone(why)
        self.assertIn("--bf16 ignored", why)
        self.assertIn("avx512bw", why)
        self.assertIn("training in float32", why)

    def test_avx512_machines_keep_it(self):
        self.assertIsNone(why_not_bf16("cpu", XEON_BF16))
        self.assertIsNone(why_not_bf16("cpu", SKYLAKE_X))

    def test_arm_without_avx512_is_refused(self):
        self.assertIsNotNone(why_not_bf16("cpu", ARM_BF16))

    def test_keep_bf16_says_why_only_when_it_drops_it(self):
        said = []
        self.assertFalse(keep_bf16(True, "cpu", said.append, EPYC_AVX2))
        self.assertEqual(len(said), 1)
        self.assertIn("--bf16 ignored", said[0])
        self.assertFalse(keep_bf16(False, "cpu", said.append, EPYC_AVX2))
        self.assertTrue(keep_bf16(True, "cpu", said.append, XEON_BF16))
        self.assertEqual(len(said), 1)

    def test_a_gpu_is_not_questioned(self):
        self.assertIsNone(why_not_bf16("cuda", EPYC_AVX2))


if __name__ == "__main__":
    unittest.main()
