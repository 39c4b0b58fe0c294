"""models/corpus/sources/adventures.py on hand-made files: Lure of the Temptress' resource files
(a Disk1.vga per language and lure.dat, their texts bit-coded here as the game codes them) and a
Pingus .po file. Checks the decoding (codes of several lengths, word fragments, the game's
German and French letters, a table of more than 32 texts), the pairing of texts whose places
moved in the translation, and what is dropped: placeholders, unknown codes, the debugger's
room names, texts the game never shows, fuzzy messages and differing numbers. Run from the
repository root: python3 -m tests.adventures_test (stdlib only)."""
import os
import struct
import tempfile
import unittest

from models.corpus.sources import adventures, gettext_catalogs

FRAGMENT = 0xA0  # the code that stands for the first word fragment
SKIPPED = 5  # the text stored after two bytes the game skips
NAMES = [b"Ratpouch"]


def code_table(texts):
    """A prefix code for every byte the texts use: the end and a space get 2 bits, the other
    bytes 8 ("1" and a 7-bit number), so the decoder has to try several lengths."""
    symbols = sorted({c for t in texts for c in t} - {0x20})
    codes = {0: "00", 0x20: "01"}
    codes.update((c, "1" + format(k, "07b")) for k, c in enumerate(symbols))
    return codes


def decoder_block(codes):
    """lure.dat's decoder: each code, its bits as "0"/"1" text and a NUL, then 0xff."""
    return b"".join(bytes([c]) + s.encode() + b"\0" for c, s in codes.items()) + b"\xff"


def text_bits(text, codes, skip=False):
    """One text as the game stores it: a 0 bit (after a 1 bit and two bytes the game skips, if
    `skip`), the articles bit, its codes, the end code, padded to whole 2-bit steps (to 16-bit
    steps when its size needs the byte's top bit)."""
    bits = ("1" + "0" * 16 if skip else "") + "00" + "".join(codes[c] for c in text) + codes[0]
    bits += "0" * (len(bits) % 2)
    if len(bits) // 2 >= 0x80:
        bits += "0" * (-len(bits) % 16)
    return bits


def string_table(texts, codes):
    """A string table: offsets of the size bytes and of the bits, each 32 texts' total size,
    a size byte per text, then the bits (first bit the top of a byte)."""
    streams = [text_bits(t, codes, k == SKIPPED) for k, t in enumerate(texts)]
    steps = [len(b) // 2 for b in streams]
    sizes = bytes(s if s < 0x80 else 0x80 | s >> 3 for s in steps)
    blocks = [sum(steps[k:k + 32]) for k in range(0, len(texts), 32)]
    head = 4 + 2 * len(blocks)
    bits = "".join(streams)
    bits += "0" * (-len(bits) % 8) + "0" * 64
    data = bytes(int(bits[k:k + 8], 2) for k in range(0, len(bits), 8))
    sums = struct.pack("<%dH" % len(blocks), *blocks)
    return struct.pack("<HH", head, head + len(sizes)) + sums + sizes + data


def resource_file(found):
    """A "heywow" file: its number, 0xBF entries of 8 bytes (id, spare, size extension, size,
    offset in 32-byte units), the resources after them on 32-byte boundaries."""
    header, body = bytearray(b"heywow" + struct.pack(">H", 1)), bytearray()
    start = 8 + 8 * adventures.LURE_ENTRIES
    for rid, data in sorted(found.items()):
        header += struct.pack("<HBBHH", rid, 0xFF, 0, len(data), (start + len(body)) // 32)
        body += data + b"\0" * (-len(data) % 32)
    header += struct.pack("<HBBHH", 0xFFFF, 0, 0, 0, 0)
    header += b"\0" * (start - len(header))
    return bytes(header + body)


def names_block(names):
    """The word fragments: a 16-bit offset for each, then the NUL-ended strings."""
    offsets, data = [], b""
    for name in names:
        offsets.append(2 * len(names) + len(data))
        data += name + b"\0"
    return struct.pack("<%dH" % len(names), *offsets) + data


def lure_dat(codes_by_language):
    """lure.dat: "lure", two version bytes, the language records, then each language's block
    (a resource file holding its decoder)."""
    blocks = [(lang, resource_file({adventures.LURE_DECODER: decoder_block(codes)}))
              for lang, codes in codes_by_language.items()]
    out, offset = bytearray(b"lure\x01\x1e"), 512
    for lang, block in blocks:
        out += bytes([lang]) + struct.pack("<I", offset)
        offset += len(block)
    out += b"\xff" + b"\0" * (512 - len(out) - 1)
    return bytes(out + b"".join(block for _, block in blocks))


# 35 texts in the first table (a second block of 32), then a dialogue in the second
EN_FIRST = [b"Line %d of the first table." % k for k in range(34)] + [b"Hello, %c!" % FRAGMENT]
DE_FIRST = [b"Zeile %d der ersten Tabelle." % k for k in range(34)] + [b"Hallo, %c!" % FRAGMENT]
EN_TALK = [b"What do you want?", b"I don't like it here, sir. Let's escape before anyone comes.",
           b"Axe", b"The weapon has a heavy blade which is stained with the blood of its victims.",
           b"Hey, %2, wait!", b"NULL", b"It is a key. It is small.", b"The c\x99ptain is asleep.",
           b"Greetings!", b"ROOM61", b"The door is firmly locked and will not budge an inch.",
           b"Can you help me?", b"Flask", b"The flask contains a thick, syrupy liquid.",
           b"You twist and turn the lockpick, but your efforts are in vain.", b"Go away!",
           b"Where is the crazy barbarian?", b"I have no idea, my friend. Ask the blacksmith."]
# why: the translation moved "Flask" and what follows one place on, behind a text of its own
DE_TALK = [b"Was willst du?",
           b"Hier gef\x8dllt's mir nicht, Sir. La\x92t uns verschwinden, bevor jemand kommt.",
           b"Axt", b"Die Waffe hat eine schwere Klinge, die vom Blut ihrer Opfer befleckt ist.",
           b"He, %2, warte!", b"NULL", b"Das ist ein kleiner Schl\x8cssel.",
           b"Der Hauptmann schl\x8dft.", b"Sei gegr\x8c\x92t!", b"RAUM61",
           b"Die T\x8cr ist fest verschlossen und r\x8chrt sich keinen Zentimeter.",
           b"Kannst du mir helfen?", b"Ein Fremder", b"Flasche",
           b"Die Flasche enth\x8dlt eine dicke, sirupartige Fl\x8cssigkeit.",
           b"Du drehst und wendest den Dietrich, aber deine M\x8chen sind vergeblich.", b"Geh weg!",
           b"Wo ist der verr\x8cckte Barbar?", b"Keine Ahnung, mein Freund. Frag den Schmied."]
PINGUS_DE = r'''msgid ""
msgstr "Content-Type: text/plain; charset=UTF-8\n"

msgid "Finally you reached the factory. Watch out! Good luck!"
msgstr "Endlich erreichst Du die Fabrik. Pass auf! Viel Erfolg!"

msgid ""
"Now after you have learned the basics\n"
"it is time to move on.\n"
"\n"
"Save them all."
msgstr ""
"Nachdem Du nun die Grundlagen gelernt hast,\n"
"ist es Zeit, weiterzugehen.\n"
"\n"
"Rette sie alle."

#, fuzzy
msgid "Dig down to the exit."
msgstr "Grabe nach oben."

msgid "You saved %d Pingus."
msgstr "Du hast %d Pingus gerettet."

msgid "Save 20 Pingus."
msgstr "Rette 30 Pingus."

msgid "Untranslated"
msgstr ""
'''


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


class Adventures(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        lure = os.path.join(self.root, adventures.LURE)
        codes = {}
        # why: the packages spell the file Disk1.vga and DISK1.VGA
        for lang, first, talk, name in (("en", EN_FIRST, EN_TALK, "Disk1.vga"),
                                        ("de", DE_FIRST, DE_TALK, "DISK1.VGA")):
            codes[adventures.LURE_LANGUAGE[lang]] = code = code_table(first + talk + [b"\xa0"])
            write(os.path.join(lure, lang, name), resource_file({
                adventures.LURE_NAMES: names_block(NAMES), 0x10: string_table(first, code),
                0x11: string_table(talk, code)}))
        write(os.path.join(lure, "lure.dat"), lure_dat(codes))
        write(os.path.join(self.root, adventures.PINGUS_PO % "de"), PINGUS_DE.encode())

    def tearDown(self):
        self.dir.cleanup()

    def test_decoding_as_the_game_reads_it(self):
        first, talk, third = adventures.lure_tables(self.root, "en")
        self.assertEqual(len(first), 35)
        self.assertEqual(first[SKIPPED], "Line 5 of the first table.")
        self.assertEqual(first[33], "Line 33 of the first table.")  # the second block of 32
        self.assertEqual(first[34], "Hello, Ratpouch!")  # a word fragment filled in
        self.assertEqual(talk[1], EN_TALK[1].decode())
        self.assertIsNone(talk[7])  # a code that is no letter
        self.assertEqual(third, [])  # no third table
        de = adventures.lure_tables(self.root, "de")[1]
        self.assertEqual(de[1], "Hier gefällt's mir nicht, Sir. Laßt uns verschwinden, bevor "
                                "jemand kommt.")
        self.assertEqual(de[8], "Sei gegrüßt!")

    def test_game_letters(self):
        self.assertEqual(adventures.font_text(b"\x7ea alors, d\x7fj\x81!", "fr"),
                         "Ça alors, déjà!")
        self.assertEqual(adventures.font_text(b"\x8epfel \x90l \x91ber", "de"), "Äpfel Öl Über")
        self.assertIsNone(adventures.font_text(b"gr\x8cn", "en"))
        self.assertIsNone(adventures.font_text(b"line\nbreak", "de"))

    def test_moved_texts_paired_by_their_places(self):
        en_texts = [adventures.font_text(t, "en") for t in EN_TALK]
        de_texts = [adventures.font_text(t, "de") for t in DE_TALK]
        got = adventures.align(en_texts, de_texts)
        self.assertIn((7, 7), got)  # a text that does not decode keeps its place
        self.assertIn((13, 14), got)  # the flask's description, one place on
        self.assertIn((16, 17), got)
        # beside the move: "Flask" and "Can you help me?" have a neighbour left unpaired
        self.assertNotIn((12, 13), got)
        self.assertNotIn((11, 11), got)
        self.assertNotIn((0, 0), got)  # the first and last have no neighbour
        self.assertNotIn((17, 18), got)
        self.assertTrue(all(j - i == (i > 12) for i, j in got))

    def test_lure_pairs(self):
        got = list(adventures.lure_pairs(self.root, "de"))
        self.assertIn(("I don't like it here, sir.", "Hier gefällt's mir nicht, Sir."), got)
        self.assertIn(("Let's escape before anyone comes.",
                       "Laßt uns verschwinden, bevor jemand kommt."), got)
        self.assertIn(("The weapon has a heavy blade which is stained with the blood of its "
                       "victims.", "Die Waffe hat eine schwere Klinge, die vom Blut ihrer Opfer "
                                   "befleckt ist."), got)
        self.assertIn(("The flask contains a thick, syrupy liquid.",
                       "Die Flasche enthält eine dicke, sirupartige Flüssigkeit."), got)
        self.assertIn(("Line 7 of the first table.", "Zeile 7 der ersten Tabelle."), got)
        # two sentences against one: the texts whole
        self.assertIn(("It is a key. It is small.", "Das ist ein kleiner Schlüssel."), got)
        texts = {s for s, _ in got} | {t for _, t in got}
        # the first and last of a table, a placeholder, a text never shown, the debugger's,
        # beside the move, a code that is no letter
        for dropped in ("What do you want?", "Hello, Ratpouch!", "Keine Ahnung, mein Freund.",
                        "Hey, %2, wait!", "NULL", "ROOM61", "Flask", "Can you help me?",
                        "Der Hauptmann schläft."):
            self.assertNotIn(dropped, texts)
        self.assertEqual(len(got), 33 + 11)

    def test_pingus_paragraphs_then_sentences(self):
        got = list(adventures.pingus_pairs(self.root, "de"))
        self.assertEqual(got, [
            ("Finally you reached the factory.", "Endlich erreichst Du die Fabrik."),
            ("Watch out!", "Pass auf!"), ("Good luck!", "Viel Erfolg!"),
            ("Now after you have learned the basics it is time to move on.",
             "Nachdem Du nun die Grundlagen gelernt hast, ist es Zeit, weiterzugehen."),
            ("Save them all.", "Rette sie alle.")])

    def test_pairs_each_pair_once_and_lure_mo_left_alone(self):
        got = list(adventures.pairs(self.root, "de"))
        self.assertEqual(len(got), len(set(got)))
        self.assertIn(("Watch out!", "Pass auf!"), got)
        self.assertIn(("Greetings!", "Sei gegrüßt!"), got)
        self.assertIn("lure", gettext_catalogs.claimed())

    def test_without_the_packages_nothing(self):
        self.assertEqual(list(adventures.pairs(self.root, "fr")), [])
        self.assertEqual(list(adventures.pairs(os.path.join(self.root, "none"), "de")), [])


if __name__ == "__main__":
    unittest.main()
