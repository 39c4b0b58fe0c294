"""Whether --bf16 pays on this CPU: PyTorch's fast bfloat16 matrix products (oneDNN's) need
AVX-512 (avx512bw, or the bfloat16 instructions avx512_bf16 / amx_bf16 themselves); without
them bfloat16 autocast is far slower than float32.

why: measured here on an AMD EPYC with AVX2 only (`bench_train_step`'s shape, 4,096 tokens,
2 threads): float32 5.0 s a step, bfloat16 over 90 s a step (the warm-up and two steps did not end
in 290 s); on the AVX-512 machines of earlier sessions bfloat16 was the faster (4.3x with
--dropout 0). So train.py and ssru_student.py train in float32 and say why when --bf16 is asked for
on a CPU without them.
What it is not: a benchmark; it reads the CPU's flags only (Linux /proc/cpuinfo).
"""
import re

FAST = ("avx512_bf16", "amx_bf16", "avx512bw")


def cpu_flags(cpuinfo):
    """The flags of the first processor listed in a /proc/cpuinfo text (empty when none)."""
    m = re.search(r"^(?:flags|Features)\s*:\s*(.*)$", cpuinfo, re.M)
    return set(m.group(1).split()) if m else set()


def why_not_bf16(device, cpuinfo=None):
    """None when bfloat16 autocast can run fast on DEVICE, else the reason it cannot."""
    if device != "cpu":
        return None
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo") as f:
                cpuinfo = f.read()
        except OSError:
            return None  # why: no way to tell (not Linux); do as asked
    if cpu_flags(cpuinfo) & set(FAST):
        return None
    return ("--bf16 ignored: this CPU has none of %s, and bfloat16 products without them ran "
            ">18x slower than float32 (AVX2, models/pipeline/cpu_bf16.py); training in float32"
            % ", ".join(FAST))


def keep_bf16(asked, device, say, cpuinfo=None):
    """Whether to train with bfloat16: ASKED, unless why_not_bf16 has a reason, which goes to
    SAY (the run's log)."""
    why = asked and why_not_bf16(device, cpuinfo)
    if why:
        say(why)
    return asked and not why
