"""models/corpus/sources/pastimes.py on hand-made files: OpenClonk's C4Group files (packed here
as the engine packs them: gzip with its magic altered, a scrambled header, a group inside a
group) and an unpacked group folder, and AisleRiot's DocBook help pages and catalog. Checks the
reading of the groups, the pairing of string tables by key, of stories line by line or
paragraph by paragraph, of titles and of help pages by position, and what is dropped:
placeholders, pictures, differing numbers, English left in, umlauts spelled out, pages whose
structure differs, Scheme placeholders, and the catalog left to pastimes by gettext_catalogs.
Run from the repository root: python3 -m tests.pastimes_test (stdlib only)."""
import gzip
import os
import struct
import tempfile
import unittest

from models.corpus.sources import gettext_catalogs, pastimes
from tests.corpus_sources_test import write_mo

TUTORIAL_US = """\ufeff# Tutorial messages
MsgIntro=It seems your Roger is lost again!|Proceed to the right.
MsgShovel=Pick up the shovel by pressing [%s].
MsgDone=&Next tutorial
MsgPlans=Here are plans for {{Pump}}.
MsgGold=Bring 8 gold bars home.
MsgOld=Build a bridge.
MsgEnglish=Select the shovel and start digging now.
MsgWarn=<c ff0000>Watch out!</c> The lava is hot.
MsgOnlyUS=Not translated.
"""
TUTORIAL_DE = """MsgIntro=Es scheint, als wäre Rüdiger wieder verloren gegangen!|Lauf nach rechts.
MsgShovel=Nimm die Schaufel, indem du [%s] drückst.
MsgDone=&Nächste Lernrunde
MsgPlans=Hier sind Pläne für {{Pump}}.
MsgGold=Bringe 10 Goldbarren nach Hause.
MsgOld=Baue eine Bruecke.
MsgEnglish=Select the shovel and start digging now.
MsgWarn=<c ff0000>Pass auf!</c> Die Lava ist heiß.
MsgDone=Zweiter Eintrag
#MsgOnlyUS=Nicht übersetzt.
"""
DESC_US = """Cool Cavern

You were trapped in a cavern. You must climb out.
Goal: Reach the top.
"""
DESC_DE = """Eisige Höhle

Du bist in einer Höhle gefangen.
Du musst hinausklettern.
Ziel: Erreiche den Gipfel.
"""
INNER_US = "Name=Wipf\nDescription=Cute little creature. It loves to dig.\n"
INNER_DE = "Name=Wipf\nDescription=Süße kleine Kreatur. Sie liebt das Graben.\n"
SYSTEM_US = "MsgBridge=The bridge is ready.\n"
SYSTEM_DE = "MsgBridge=Die Brücke ist fertig.\n"
LANGUAGE_US = "IDS_BTN_BACK=Back\n"  # the engine's menus: left out
LANGUAGE_DE = "IDS_BTN_BACK=Zurück\n"

HELP_EN = """<?xml version="1.0" encoding="utf-8" ?>
<!DOCTYPE refentry PUBLIC "-//OASIS//DTD DocBook XML V4.3//EN"
  "http://www.oasis-open.org/docbook/xml/4.3/docbookx.dtd" [
]>
<sect1 id="Klondike"><title>Klondike</title>
  <legalnotice><para>Permission is granted to copy.</para></legalnotice>
  <sect2><title>Setup</title>
  <informaltable><tgroup cols="2"><tbody>
    <row><entry>Stock</entry><entry>Top left pile.  Cards are turned over
      one at a time.</entry></row>
    <row><entry>Waste</entry><entry><para>To be taken from Stock. Top card available for
      play.</para></entry></row>
  </tbody></tgroup></informaltable></sect2>
  <sect2><title>Strategy</title><para>Play the <emphasis>aces</emphasis> first.</para>
  <para>Empty piles can be filled.</para></sect2>
</sect1>
"""
HELP_DE = """<?xml version="1.0" encoding="utf-8" ?>
<!DOCTYPE refentry PUBLIC "-//OASIS//DTD DocBook XML V4.3//EN"
  "http://www.oasis-open.org/docbook/xml/4.3/docbookx.dtd" [
]>
<sect1 id="Klondike"><title>Klondike</title>
  <legalnotice><para>Kopieren ist erlaubt.</para></legalnotice>
  <sect2><title>Aufbau</title>
  <informaltable><tgroup cols="2"><tbody>
    <row><entry>Talon</entry><entry>Stapel oben links. Die Karten werden
      einzeln umgedreht.</entry></row>
    <row><entry>Restestapel</entry><entry><para>Vom Talon; die oberste Karte ist im
      Spiel.</para></entry></row>
  </tbody></tgroup></informaltable></sect2>
  <sect2><title>Strategie</title><para>Spielen Sie zuerst die <emphasis>Asse</emphasis>.</para>
  <para>Empty piles can be filled.</para></sect2>
</sect1>
"""
SHORT_EN = "<sect1><title>Spider</title><para>One.</para><para>Two.</para></sect1>"
SHORT_DE = "<sect1><title>Spinne</title><para>Eins. Zwei.</para></sect1>"
CATALOG = [("Place the jack of diamonds next to the ten of diamonds.",
            "Legen Sie den Karo-Buben neben die Karo-Zehn."),
           ("Move ~a onto the ten of hearts.", "Legen Sie ~a auf die Herz-Zehn."),
           ("_Statusbar", "_Statusleiste"), ("shortcut window\x04Help", "Hilfe"),
           ("Score: %d", "Punkte: %d")]


def scramble(data):
    """A group header as the engine writes it: every three bytes' first and third swapped,
    then each byte XOR 237."""
    out = bytearray(data)
    for k in range(0, len(out) - 2, 3):
        out[k], out[k + 2] = out[k + 2], out[k]
    return bytes(b ^ 237 for b in out)


def group(files):
    """An unpacked C4Group: the scrambled header, 316-byte entries (name, packed, child group,
    size, a spare field, offset from the end of the entries), then each file or group."""
    header = b"RedWolf Design GrpFolder".ljust(28, b"\0") + struct.pack("<3i", 1, 2, len(files))
    entries, data = b"", b""
    for name, content in files.items():
        body = group(content) if isinstance(content, dict) else content
        entries += name.encode().ljust(260, b"\0")
        entries += struct.pack("<5i", 0, isinstance(content, dict), len(body), 0, len(data))
        entries += bytes(36)  # the rest of the 316 bytes: fields the reader skips
        data += body
    return scramble(header.ljust(204, b"\0")) + entries + data


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


class Pastimes(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        clonk = os.path.join(self.root, pastimes.CLONK)
        tutorials = {
            "StringTblUS.txt": TUTORIAL_US.encode(), "StringTblDE.txt": TUTORIAL_DE.encode(),
            "Title.txt": "DE:Lernrunden\nUS:Tutorials\n".encode(),
            "DescUS.txt": DESC_US.encode(), "DescDE.txt": DESC_DE.encode(),
            "Script.c": b"MsgGold=not a table",
            "Wipf.ocd": {"StringTblUS.txt": INNER_US.encode(),
                         "StringTblDE.txt": INNER_DE.encode()}}
        packed = gzip.compress(group(tutorials))
        write(os.path.join(clonk, "Tutorials.ocf"), pastimes.GROUP_MAGIC + packed[2:])
        write(os.path.join(clonk, "System.ocg", "StringTblUS.txt"), SYSTEM_US)
        write(os.path.join(clonk, "System.ocg", "StringTblDE.txt"), SYSTEM_DE)
        write(os.path.join(clonk, "System.ocg", "LanguageUS.txt"), LANGUAGE_US)
        write(os.path.join(clonk, "System.ocg", "LanguageDE.txt"), LANGUAGE_DE)
        write(os.path.join(clonk, "System.ocg", "Music.ogg"), b"OggS\0\0")
        for lang, text in (("C", HELP_EN), ("de", HELP_DE)):
            write(os.path.join(self.root, pastimes.HELP % lang, "klondike.xml"), text)
        for lang, text in (("C", SHORT_EN), ("de", SHORT_DE)):
            write(os.path.join(self.root, pastimes.HELP % lang, "spider.xml"), text)
        write_mo(os.path.join(self.root, pastimes.AISLERIOT_MO % "de"), CATALOG)

    def tearDown(self):
        self.dir.cleanup()

    def test_groups_read_as_the_engine_packs_them(self):
        found = pastimes.tree(os.path.join(self.root, pastimes.CLONK))
        self.assertEqual(sorted(found), ["System.ocg", "Tutorials.ocf"])
        self.assertEqual(sorted(found["Tutorials.ocf"]), [
            "DescDE.txt", "DescUS.txt", "StringTblDE.txt", "StringTblUS.txt", "Title.txt",
            "Wipf.ocd"])  # the script left out
        wipf = found["Tutorials.ocf"]["Wipf.ocd"]
        self.assertEqual(wipf["StringTblDE.txt"], INNER_DE.encode())
        self.assertEqual(sorted(found["System.ocg"]), ["StringTblDE.txt", "StringTblUS.txt"])
        names = [name for name, _ in pastimes.folders(found)]
        self.assertEqual(names, ["/System.ocg", "/Tutorials.ocf", "/Tutorials.ocf/Wipf.ocd"])

    def test_table_and_title(self):
        de = pastimes.table(pastimes.decode(TUTORIAL_DE.encode()))
        self.assertEqual(de["MsgDone"], "&Nächste Lernrunde")  # the first of two entries
        self.assertNotIn("#MsgOnlyUS", de)
        self.assertIn("MsgIntro", pastimes.table(pastimes.decode(TUTORIAL_US.encode())))
        self.assertEqual(pastimes.decode("Café\n".encode("cp1252")), "Café\n")
        self.assertEqual(pastimes.decode("\ufeffCafé".encode()), "Café")
        self.assertEqual(pastimes.titles("DE:Dunkle Mine\nUS:Dark Mine"),
                         {"DE": "Dunkle Mine", "US": "Dark Mine"})

    def test_clonk_pairs(self):
        # MsgShovel and MsgPlans: a placeholder and a picture; MsgGold: 8 against 10 (stale);
        # MsgOld: "Bruecke", spelled "Brücke" in another text; MsgEnglish: English left in;
        # the story's second paragraph is broken into two lines in German only
        got = list(pastimes.clonk_pairs(self.root, "de"))
        self.assertEqual(sorted(got), sorted([
            ("The bridge is ready.", "Die Brücke ist fertig."),
            ("It seems your Roger is lost again!",
             "Es scheint, als wäre Rüdiger wieder verloren gegangen!"),
            ("Proceed to the right.", "Lauf nach rechts."),
            ("Next tutorial", "Nächste Lernrunde"),
            ("Watch out!", "Pass auf!"), ("The lava is hot.", "Die Lava ist heiß."),
            ("Cool Cavern", "Eisige Höhle"),
            ("You were trapped in a cavern.", "Du bist in einer Höhle gefangen."),
            ("You must climb out.", "Du musst hinausklettern."),
            ("Goal: Reach the top.", "Ziel: Erreiche den Gipfel."),
            ("Tutorials", "Lernrunden"), ("Wipf", "Wipf"),
            ("Cute little creature.", "Süße kleine Kreatur."),
            ("It loves to dig.", "Sie liebt das Graben.")]))
        self.assertEqual(list(pastimes.clonk_pairs(self.root, "fr")), [])

    def test_umlauts_spelled_out(self):
        spelled = pastimes.spelled_out(["Die Brücke ist fertig.", "Führt nach oben."])
        self.assertEqual(spelled, {"bruecke", "fuehrt"})
        self.assertFalse(pastimes.usable("Build a bridge.", "Baue eine Bruecke.", spelled))
        self.assertTrue(pastimes.usable("A new fire.", "Ein neues Feuer.", spelled))

    def test_help_pairs(self):
        # spider.xml: three blocks against two, dropped; the licence notice left out; a cell
        # whose sentences differ in number kept whole; the English left in a block dropped
        self.assertEqual(pastimes.help_blocks(os.path.join(
            self.root, pastimes.HELP % "C", "klondike.xml"))[:2], ["Klondike", "Setup"])
        got = list(pastimes.help_pairs(self.root, "de"))
        self.assertEqual(got, [
            ("Klondike", "Klondike"), ("Setup", "Aufbau"), ("Stock", "Talon"),
            ("Top left pile.", "Stapel oben links."),
            ("Cards are turned over one at a time.", "Die Karten werden einzeln umgedreht."),
            ("Waste", "Restestapel"),
            ("To be taken from Stock. Top card available for play.",
             "Vom Talon; die oberste Karte ist im Spiel."),
            ("Strategy", "Strategie"), ("Play the aces first.", "Spielen Sie zuerst die Asse.")])

    def test_catalog_pairs_and_claim(self):
        got = list(pastimes.catalog_pairs(self.root, "de"))
        self.assertEqual(sorted(got), [
            ("Place the jack of diamonds next to the ten of diamonds.",
             "Legen Sie den Karo-Buben neben die Karo-Zehn."), ("Statusbar", "Statusleiste")])
        path = os.path.join(self.root, pastimes.AISLERIOT_MO % "de")
        self.assertEqual(gettext_catalogs.catalogs(self.root, "de"), [path])
        found = gettext_catalogs.catalogs(self.root, "de", exclude=gettext_catalogs.claimed())
        self.assertEqual(found, [])  # read here, not by gettext_catalogs

    def test_pairs_all_once(self):
        got = list(pastimes.pairs(self.root, "de"))
        self.assertEqual(len(got), len(set(got)))
        self.assertEqual(len(got), 14 + 9 + 2)
        self.assertEqual(list(pastimes.pairs(os.path.join(self.root, "none"), "de")), [])


if __name__ == "__main__":
    unittest.main()
