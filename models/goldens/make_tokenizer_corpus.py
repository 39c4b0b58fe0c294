"""Builds tests/data/tokenizer_corpus.txt, the text the tokenizer oracle test runs on.

What it is: a deterministic mix of held-out test sentences (en-fr.test.en, en-fr.test.fr,
en-de.test.de), hand-written hard cases (whitespace, compatibility and full-width forms,
combining accents, emoji, CJK, unknown characters, invalid UTF-8, long words, digits,
punctuation runs), perturbed copies of real sentences and seeded random Unicode. One case
per line, written as raw bytes (some lines are deliberately not valid UTF-8).
What it is not: a golden file. Expected ids come from the sentencepiece library at test time.

Usage: /usr/bin/python3 -m models.goldens.make_tokenizer_corpus [--data models/data]
                                                        [--out tests/data/tokenizer_corpus.txt]
"""
import argparse
import os
import random
import sys

from models import MODELS, ROOT

SEED = 20240601
PER_FILE = 1000  # sentences drawn from each test file
MAX_BYTES = 400 * 1024
SOURCES = ["ddtp/en-fr.test.en", "ddtp/en-fr.test.fr", "ddtp/en-de.test.de"]

HAND_WRITTEN = [
    # whitespace
    "", " ", "   ", "\t", " \t \t ", "  leading spaces", "trailing spaces   ",
    "multiple   spaces    between     words", "\tTab\tseparated\tfields\t",
    " \t mixed \t whitespace \t everywhere \t ", "a b", " a ", "x  \t  y",
    "non\u00a0breaking\u00a0space", "en\u2002space em\u2003space thin\u2009space",
    "ideographic\u3000space", "\u3000\u3000leading ideographic spaces",
    "narrow\u202fno-break", "zero\u200bwidth\u200bspace", "soft\u00adhyphen",
    "\ufeffbyte order mark", "line\u2028separator and paragraph\u2029separator",
    "next\u0085line", "vertical\u000btab and form\u000cfeed",
    # literal U+2581 and special-token look-alikes
    "a\u2581b", "\u2581\u2581leading lower blocks", "trailing lower block\u2581", "\u2581",
    "<s> </s> <unk> <pad>", "<s>Hello</s>", "\u2581<unk>\u2581",
    # full-width and compatibility forms
    "ｆｕｌｌ ｗｉｄｔｈ ＴＥＸＴ １２３", "ＡＢＣ？！", "ｶﾀｶﾅ ﾊﾝｶｸ", "ﬁne ﬂow ﬀ ﬃ ﬄ ﬅ ﬆ",
    "① ② ③ ⑩ ⑳ ⓐ ⓩ", "½ ¼ ¾ ⅓ ⅞", "™ ℃ ℉ № ℡ ㎏ ㎞ ㍻", "Ⅰ Ⅱ Ⅳ ⅷ ⅻ", "x² y³ H₂O CO₂",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝐛𝐨𝐥𝐝 𝑖𝑡𝑎𝑙𝑖𝑐", "Ǆ ǅ ǆ Ǉ", "ſ ẞ ß", "µ Ω K Å", "…‥", "⁇ ‼ ⁈",
    # combining accents
    "e\u0301te\u0301", "n\u0303an\u0303a", "a\u0308o\u0308u\u0308", "a\u0301\u0302\u0303\u0304",
    "Cafe\u0301 re\u0301sume\u0301", "\u0301 leading combining mark", "o\u0338 i\u0307",
    "été vs e\u0301te\u0301", "Ä vs A\u0308",
    # emoji
    "😀 😃 😄", "👍🏽 thumbs", "👨‍👩‍👧 family", "🇫🇷 🇩🇪 🇬🇧", "❤️ ❤", "I ❤️ Debian 🐧!",
    "😀😀😀 ok", "#️⃣ 1️⃣",
    # CJK and other scripts
    "日本語のテキスト", "中文句子。", "한국어 문장입니다", "Unicode 日本 test 中文 mixed",
    "Привет, мир!", "Γειά σου Κόσμε", "مرحبا بالعالم", "שלום עולם", "สวัสดีชาวโลก",
    "नमस्ते दुनिया", "Ελληνικά και Русский και English",
    # characters outside the vocabulary
    "☃☃ snow ☃x", "\u2603", "x\u2603y\u2603z", "\ue000\ue001 private use", "\U0001F9FF",
    "\u0001\u0002 control chars \u007f", "\ufffd replacement", "𐍈 gothic", "ᚠᚢᚦ runes",
    "⟨angle⟩ ⌘ ⌥ ⇧", "♠♣♥♦", "✓ ✗ ✔", "∑∫∂√∞≈≠≤≥",
    # digits
    "3.14159 2.71828", "1,000,000 and 1.000.000", "2024-06-01T12:34:56Z", "+33 1 23 45 67 89",
    "0x7FFF 0b1010 0o777", "v1.2.3-rc4", "100% 50‰", "٠١٢٣٤٥٦٧٨٩", "１２３４５",
    # punctuation runs
    "!!!???...", "---===+++", "«»„“”‘’‹›", "((([[[{{{}}}]]])))", "...…", "@#$%^&*_~`|\\",
    "\"quoted\" 'single'", "C++ && || -> => ::", "a/b\\c", "e-mail: user@example.org",
    "https://www.debian.org/doc/?a=1&b=2#frag", "~/.config/app/settings.ini",
    # casing
    "ALL CAPS SENTENCE", "mIxEd CaSe", "İstanbul ǅemal",
    # what people type (the multilingual model's byte fallback must leave no unknown piece)
    "Where is the train station?", "I would like a cup of coffee, please.",
    "Click the button to save your changes.", "Änderungen speichern? Ja / Nein",
    "Ça coûte 5 € — d'accord ?", "Œuvre, cœur, naïve, Ÿ", "Привет, как дела?",
    "Καλημέρα κόσμε!", "emoji 😀👍🏽🇩🇪 ❤️ 🎉", "? ! % = @ # & ( ) [ ] { } < > ^ ~ | \\",
]

RANGES = [
    (0x0020, 0x007E), (0x00A0, 0x024F), (0x0300, 0x036F), (0x0370, 0x03FF), (0x0400, 0x04FF),
    (0x0590, 0x06FF), (0x0900, 0x097F), (0x0E00, 0x0E7F), (0x1100, 0x11FF), (0x1E00, 0x1EFF),
    (0x2000, 0x206F), (0x2070, 0x209F), (0x20A0, 0x20CF), (0x2100, 0x218F), (0x2190, 0x22FF),
    (0x2460, 0x24FF), (0x2E80, 0x2FDF), (0x3000, 0x30FF), (0x3190, 0x33FF), (0x4E00, 0x4E80),
    (0xAC00, 0xAC80), (0xF900, 0xFAFF), (0xFB00, 0xFB4F), (0xFE30, 0xFE6F), (0xFF00, 0xFFEF),
    (0x1D400, 0x1D7FF), (0x1F300, 0x1F6FF), (0x1F900, 0x1F9FF),
]


def invalid_utf8_lines():
    return [b"\xff", b"abc\xc3", b"\xe2\x82 truncated euro", b"\xed\xa0\x80 surrogate",
            b"\xc0\xaf overlong slash", b"\xf4\x90\x80\x80 beyond U+10FFFF",
            b"ok \x80\x80\x80 stray continuation bytes", b"mixed \xe2\x96 lower block",
            b"\xfe\xfe\xff\xff", b"caf\xe9 latin-1"]


def long_lines(rng):
    letters = "abcdefghijklmnopqrstuvwxyzäöüéèàç"
    return [
        "Donaudampfschifffahrtsgesellschaftskapitän" * 12,
        "".join(rng.choice(letters) for _ in range(3000)),
        "1234567890" * 60,
        "☃" * 300,
        "a" * 1500,
        " ".join(["Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz"] * 10),
        "-" * 500 + "!" * 200,
        "日本語" * 200,
    ]


def perturb(line, rng):
    out = []
    for ch in line:
        r = rng.random()
        if ch == " " and r < 0.3:
            out.append(rng.choice(["  ", "\t", " \t ", "\u3000", "\u00a0", ""]))
        elif "!" <= ch <= "~" and r < 0.08:
            out.append(chr(ord(ch) + 0xFEE0))  # full-width form
        elif ch.isalpha() and r < 0.12:
            out.append(ch + rng.choice(["\u0301", "\u0308", "\u0303"]))
        elif r < 0.02:
            out.append(rng.choice(["☃", "😀", "①", "ﬁ", "½", "\u200b", "…"]))
        else:
            out.append(ch)
    text = "".join(out)
    if rng.random() < 0.5:
        text = rng.choice(["  ", "\t", "\u3000"]) + text + rng.choice(["  ", "\t", ""])
    return text


def random_unicode(rng):
    chars = []
    for _ in range(rng.randint(5, 40)):
        lo, hi = rng.choice(RANGES)
        cp = rng.randint(lo, hi)
        if 0xD800 <= cp <= 0xDFFF or cp in (0x0A, 0x0D):
            cp = 0x20
        chars.append(chr(cp))
    return "".join(chars)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(MODELS, "data"))
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "tokenizer_corpus.txt"))
    args = ap.parse_args()

    rng = random.Random(SEED)
    lines = []
    drawn = []
    for name in SOURCES:
        path = os.path.join(args.data, name)
        if not os.path.exists(path):
            sys.exit(f"missing {path}: run models/corpus/build_corpus.py first")
        with open(path, encoding="utf-8", newline="\n") as f:
            src = [l.rstrip("\n") for l in f]
        picked = sorted(rng.sample(range(len(src)), min(PER_FILE, len(src))))
        drawn.extend(src[i] for i in picked)
    lines.extend(s.encode("utf-8") for s in drawn)
    lines.extend(s.encode("utf-8") for s in HAND_WRITTEN)
    lines.extend(invalid_utf8_lines())
    lines.extend(s.encode("utf-8") for s in long_lines(rng))
    lines.extend(perturb(s, rng).encode("utf-8") for s in rng.sample(drawn, 150))
    lines.extend(random_unicode(rng).encode("utf-8") for _ in range(200))

    for l in lines:
        assert b"\n" not in l and b"\r" not in l, l
    blob = b"\n".join(lines) + b"\n"
    assert len(lines) >= 3000, len(lines)
    assert len(blob) <= MAX_BYTES, f"{len(blob)} bytes > {MAX_BYTES}"
    with open(args.out, "wb") as f:
        f.write(blob)
    print(f"wrote {os.path.normpath(args.out)}: {len(lines)} lines, {len(blob)} bytes")


if __name__ == "__main__":
    main()
