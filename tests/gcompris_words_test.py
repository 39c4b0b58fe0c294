"""models/corpus/sources/qt_resources.py and gcompris_words.py on hand-made files: a Qt resource
file written here by the format's rules (nested folders, one zlib-compressed file), and a
three-line Ding dictionary. Checks which captions become nouns (and why the others do not) and
one sentence per language. Run from the repository root: python3 -m tests.gcompris_words_test
(stdlib only)."""
import json
import os
import struct
import tempfile
import unittest
import zlib

from models.corpus.sources import ding, gcompris_words
from models.corpus.sources.qt_resources import read_rcc


def write_rcc(path, files, compressed=()):
    """A version 3 .rcc holding files ({"/a/b.json": bytes}); the paths in `compressed` zlib'd."""
    tree = {"": {}}
    for p in files:
        node = tree[""]
        *folders, leaf = p.strip("/").split("/")
        for f in folders:
            node = node.setdefault(f, {})
        node[leaf] = p
    names, data, nodes = b"", b"", []

    def name_at(text):
        nonlocal names
        at = len(names)
        names += struct.pack(">HI", len(text), 0) + text.encode("utf-16-be")
        return at

    queue = [("", tree[""], 0)]
    nodes.append(None)
    while queue:  # breadth first: a folder's children sit next to each other
        text, children, index = queue.pop(0)
        first = len(nodes)
        nodes += [None] * len(children)
        nodes[index] = struct.pack(">IHII", name_at(text) if index else 0, 2, len(children),
                                   first) + b"\0" * 8
        for i, (child, value) in enumerate(sorted(children.items())):
            if isinstance(value, dict):
                queue.append((child, value, first + i))
                continue
            blob = files[value]
            flags = 0
            if value in compressed:
                blob, flags = struct.pack(">I", len(blob)) + zlib.compress(blob), 1
            nodes[first + i] = struct.pack(">IHHHI", name_at(child), flags, 0, 0,
                                           len(data)) + b"\0" * 8
            data += struct.pack(">I", len(blob)) + blob
    body = b"".join(nodes)
    header = 24
    with open(path, "wb") as f:
        f.write(b"qres" + struct.pack(">IIIII", 3, header, header + len(body),
                                      header + len(body) + len(data), 0) + body + data + names)


CAPTIONS = {
    "en": {"dog.ogg": "dog", "cat.ogg": "cat", "glove.ogg": "glove", "squat.ogg": "to squat",
           "lady.ogg": "cleaning lady", "bat.ogg": "bat", "dirt.ogg": "dirt",
           "boy.ogg": "boy", "egg.ogg": "egg", "bank.ogg": "bank", "bench.ogg": "bench",
           "squirrel.ogg": "squirrel"},
    "de": {"dog.ogg": "der Hund", "cat.ogg": "die Katze", "glove.ogg": "die Handschuhe",
           "squat.ogg": "die Hocke", "lady.ogg": "die Putzfrau", "bat.ogg": "die Fledermaus",
           "dirt.ogg": "der Schmutz", "boy.ogg": "der Junge", "egg.ogg": "das Ei",
           "bank.ogg": "die Bank", "bench.ogg": "die Bank", "squirrel.ogg": "das Eichhörnchen"},
    "fr": {"dog.ogg": "un chien", "cat.ogg": "une chatte", "glove.ogg": "un gant",
           "squat.ogg": "s'accroupir", "lady.ogg": "une femme de ménage",
           "bat.ogg": "une chauve-souris", "dirt.ogg": "la saleté", "boy.ogg": "un garçon",
           "egg.ogg": "un œuf", "bank.ogg": "une banque", "bench.ogg": "un banc",
           "squirrel.ogg": "un écureuil"},
}
DING = """# a few lines in the format of trans-de-en
Hund {m} | Hunde {pl} :: dog | dogs
Katze {f} | Katzen {pl} :: cat | cats
Handschuh {m} | Handschuhe {pl} :: glove | gloves
Junge {m} | Jungen {pl} :: boy | boys
Ei {n} [biol.] [cook.] | Eier {pl} | faules Ei :: egg | eggs | rotten egg
Bank {f} [fin.] | Banken {pl} :: bank | banks
Bank {f}; Sitzbank {f} | Bänke {pl}; Sitzbänke {pl} :: bench | benches
Eigentliches Eichhörnchen {n} :: red squirrel
"""


class GComprisWords(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        rcc = os.path.join(self.root, gcompris_words.RCC)
        os.makedirs(os.path.dirname(rcc))
        self.files = {gcompris_words.CONTENT % l: json.dumps(c).encode("utf-8")
                      for l, c in CAPTIONS.items()}
        self.files["/gcompris/src/activities/lang/Lang.qml"] = b"Item {}"
        write_rcc(rcc, self.files, compressed={gcompris_words.CONTENT % "de"})
        dict_path = os.path.join(self.root, ding.PATH)
        os.makedirs(os.path.dirname(dict_path))
        with open(dict_path, "w") as f:
            f.write(DING)

    def tearDown(self):
        self.dir.cleanup()

    def test_resource_file_read_back(self):
        self.assertEqual(read_rcc(os.path.join(self.root, gcompris_words.RCC)), self.files)
        bad = os.path.join(self.root, "bad.rcc")
        with open(bad, "wb") as f:
            f.write(b"PK\3\4" + b"\0" * 30)
        with self.assertRaisesRegex(ValueError, "not a Qt resource file"):
            read_rcc(bad)

    def test_german_nouns_need_ding_with_the_same_gender(self):
        # glove: the caption is a plural; squat: a verb; cleaning lady, bat, dirt: not in Ding;
        # boy: a weak masculine (den Jungen); egg: Ding's subject notes do not matter; bank and
        # bench: the plural of the entry with that English word; squirrel: a neuter Ding has no
        # plural for, so none (English plurals come from Ding's everyday nouns alone)
        got = gcompris_words.nouns(self.root, "de")
        self.assertEqual([(n.en, n.en_plural, n.word, n.plural, n.gender) for n in got],
                         [("bank", None, "Bank", "Banken", "f"),
                          ("bench", "benches", "Bank", "Bänke", "f"),
                          ("cat", "cats", "Katze", "Katzen", "f"),
                          ("dog", "dogs", "Hund", "Hunde", "m"),
                          ("egg", None, "Ei", "Eier", "n"),
                          ("squirrel", None, "Eichhörnchen", None, "n")])

    def test_french_nouns_need_un_or_une_and_a_sure_plural(self):
        # bat: hyphenated; dirt: "la" (not countable); squat: a verb
        got = gcompris_words.nouns(self.root, "fr")
        self.assertEqual([(n.en, n.word, n.plural, n.gender) for n in got],
                         [("bank", "banque", "banques", "f"), ("bench", "banc", "bancs", "m"),
                          ("boy", "garçon", "garçons", "m"), ("cat", "chatte", "chattes", "f"),
                          ("cleaning lady", "femme de ménage", "femmes de ménage", "f"),
                          ("dog", "chien", "chiens", "m"), ("egg", "œuf", "œufs", "m"),
                          ("glove", "gant", "gants", "m"),
                          ("squirrel", "écureuil", "écureuils", "m")])

    def test_sentences_agree(self):
        de = list(gcompris_words.pairs(self.root, "de"))
        fr = list(gcompris_words.pairs(self.root, "fr"))
        # four singular sentences a noun (6 German, 9 French), a plural one for some of those
        # with both plurals
        self.assertTrue(24 <= len(de) <= 27 and 36 <= len(fr) <= 41, (len(de), len(fr)))
        self.assertEqual(len(set(de)), len(de))
        for en, t in de + fr:
            self.assertTrue(en[0].isupper() and t[0].isupper(), (en, t))
        for en, t in de:  # the noun and its article agree: never "den Katze", "die Hund"
            self.assertNotRegex(t, r"\b(den|das|ein|einen|kein|keinen) (\w+ )?Katze\b")
            self.assertNotRegex(t, r"\b(die|das|eine|keine) (\w+ )?Hund\b")
        self.assertIn(("I see the dog.", "Ich sehe den Hund."), de)
        self.assertFalse([t for e, t in de if "bench" in e and "Banken" in t])
        self.assertFalse([e for e, t in de if "squirrels" in e])
        self.assertTrue(all("femme" in t and "ménage" in t for e, t in fr if "cleaning lady" in e))

    def test_without_the_package_nothing(self):
        self.assertEqual(gcompris_words.nouns(os.path.join(self.root, "none"), "fr"), [])


if __name__ == "__main__":
    unittest.main()
