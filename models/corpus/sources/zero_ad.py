"""0 A.D.'s texts (0ad-data, Empires Ascendant 0.0.26): its civilizations' histories, its units',
buildings' and technologies' names and tooltips, its maps' descriptions, its tutorials, the
loading screen's tips and historians' quotes ("“It is sweet and honorable to die for one's
country.” — Horace") and its menus, each English original paired with the human translation
the game ships, line by line and then sentence by sentence where both sides have as many.

Where the text is: the package holds two zip archives, no loose files; the public mod's
usr/share/games/0ad/mods/public/public.zip (3.2 GB, read in place with zipfile: its catalogs
are stored uncompressed) keeps gettext catalogs l10n/<lang>.public-<domain>.po, sixteen domains
a language, ~6,000 messages, nearly all translated in German and French (Transifex exports: no
fuzzy mark, untranslated messages have an empty msgstr), read with games.po_entries. dpkg -x
unpacks the package whole, as build_corpus does for every source: 3.1 GB and ~75 s, once.
All sixteen domains are read; pairs each gives that are not copies (German / French, before
build_corpus's filters and duplicates):
- sentence-like: maps (descriptions of maps and scenarios, victory messages; 806 / 809),
  gui-gamesetup (the loading screen's quotes and their sources, the setup's tooltips; 589 /
  573), simulation-technologies and -auras (what each does and its history: "Indian kings were
  able to field large numbers of war elephants."; 396 / 391, 252 / 254), tutorials (171 / 166),
  gui-lobby (the lobby and its terms of use; 209 / 217), gui-manual (the in-game manual, its
  hotkey list; 123 / 126), simulation-other (the AI's diplomacy lines, game settings; 106 /
  110), gui-userreport (the user report's privacy notice; 71 / 73), civilizations (histories
  and bonuses; 61 / 70);
- short interface text and names: gui-other (options, hotkeys, tips, summary, credits' roles;
  1,366 / 1,354), gui-ingame (229 / 227), gui-campaigns (38 / 39), templates-units,
  -buildings and -other (names and tooltips of units, buildings, trees and animals: "Champion
  Cavalry Archer" / "Berittener Gardebogenschütze"; 376 / 403, 271 / 276, 218 / 217, and about
  as many names that the translations leave as they are). Real translations, kept: the game's
  words for its world (Catafalque, Pikeman, Rice Paddy, Goat).
Dropped: the civilizations' AI leaders' names (AINames, 207 a language, 113 / 120 of them
changed: "Themistocles" / "Themistokles", but also the translators' own romanizations,
"Kunobelinos" / "Cunobelinus", "Artaxshacha II" / "Artaxerxes II. Mnemon"): a list of names a
translation should copy, not re-spell. The mod selector's catalog (mods/mod/mod.zip,
l10n/<lang>.mod-selector.po, ~100 messages: file sizes, time formats, placeholders) is not read.

Each side is shown as the game shows it: its markup ([font="sans-bold-14"], [color="red"]) is
removed, "\\[" is a bracket, the game's own "\\n" a line break; lines are the blocks (bullets
dropped) and the manual's "hotkey.camera.follow – " prefixes are cut off both sides (a line
naming a hotkey elsewhere is dropped). Pairs with 0 A.D.'s placeholders ("%(player)s", and
"%%"), whose numbers differ or that are mostly the English left in (strategy.copied) are
dropped; gettext's %-rule is not used, as it would also take "+10% health".

Licence: the game's data (Files: *, its texts and their translations) is CC-BY-SA-3.0,
Wildfire Games; Debian's packaging GPL-2+ (usr/share/doc/0ad-data/copyright); the game's code,
in the 0ad package, is GPL-2+ and not read.
"""
import io
import os
import re
import zipfile

from . import games, strategy
from .common import each_once

PACKAGES = {"all": ["0ad-data"]}
PUBLIC = "usr/share/games/0ad/mods/public/public.zip"
CATALOG = "l10n/%s.public-%s.po"
DOMAINS = ["civilizations", "gui-campaigns", "gui-gamesetup", "gui-ingame", "gui-lobby",
           "gui-manual", "gui-other", "gui-userreport", "maps", "simulation-auras",
           "simulation-other", "simulation-technologies", "templates-buildings",
           "templates-other", "templates-units", "tutorials"]
NAMES = re.compile(r"\.jsonAINames\[\d+\]$")  # a civilization's AI leaders' names
PLACEHOLDER = re.compile(r"%\(\w+\)|%%")  # why: 0 A.D.'s only placeholders; "10% of" is text
MARKUP = re.compile(r"(?<!\\)\[/?(?:font|color|icon|imgleft|imgright|tooltip)\b[^\]]*\]")
HOTKEY = re.compile(r"^hotkey\.[\w.]+ – ")


def game_text(s):
    """The text as the game shows it: markup tags removed, "\\[" a bracket, "\\n" a line break
    (which po_translated leaves as a backslash before a line break), '\\"' a quote (a template
    escapes one)."""
    s = MARKUP.sub("", s.replace("\\\n", "\n"))
    return s.replace("\\[", "[").replace('\\"', '"')


def blocks(text):
    """A message's lines as the game shows them, bullets and tags removed."""
    return strategy.lines(game_text(text))


def unprefixed(en, tr):
    """The manual's hotkey lines name the hotkey, then say what it does: both sides without the
    name when they open with the same one."""
    m, n = HOTKEY.match(en), HOTKEY.match(tr)
    if m and n and m.group() == n.group():
        return en[m.end():], tr[n.end():]
    return en, tr


def usable(en, tr):
    """Whether a segment pair is a clean translation: no placeholder or hotkey name, the same
    numbers, not the English left in."""
    return not (PLACEHOLDER.search(en) or PLACEHOLDER.search(tr) or "hotkey." in en + tr
                or not strategy.same_numbers(en, tr) or strategy.copied(en, tr))


def is_name(entry):
    """Whether every place a message is used is a civilization's list of AI leaders' names."""
    refs = entry.get("refs", [])
    return bool(refs) and all(NAMES.search(r) for r in refs)


def catalog_pairs(lines):
    """(English, translation) segments of one .po text, line by line, then by sentence."""
    entries = [e for e in games.po_entries(lines) if not is_name(e)]
    for key, value in games.po_translated(entries):
        for s, t in strategy.segment_pairs(blocks(key), blocks(value)):
            s, t = unprefixed(s, t)
            if usable(s, t):
                yield s, t


def domain_pairs(archive, lang, domain):
    """The segments of one domain's catalog in the open public.zip (none if it lacks it)."""
    try:
        f = archive.open(CATALOG % (lang, domain))
    except KeyError:
        return
    with io.TextIOWrapper(f, encoding="utf-8", errors="replace") as text:
        lines = text.readlines()
    yield from catalog_pairs(lines)


def pairs(root, lang):
    """Every domain's pairs in DOMAINS' order, each pair once."""
    path = os.path.join(root, PUBLIC)
    if not os.path.exists(path):
        return
    with zipfile.ZipFile(path) as archive:
        # why: the same tooltip serves many units and buildings
        yield from each_once(*(domain_pairs(archive, lang, d) for d in DOMAINS))
