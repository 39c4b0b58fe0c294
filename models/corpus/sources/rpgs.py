"""Role-playing games' catalogs: the spoken lines of FreedroidRPG's characters (freedroidrpg
-dialogs, with its items and places), Cataclysm: Dark Days Ahead's items, food, clothing,
places and characters' talk, Dink Smallwood's story (freedink-data: a farm boy's village,
family and quest, ~2,200 lines: "It's not a bad town to live in.", "Tell the duck to go home")
Adonthell's Waste's Edge (adonthell-data: a theft at a desert inn told in dialogue, ~1,100
lines, French only), Flare's Empyrean campaign (flare-game: its quests, characters' talk,
items and places, ~1,100 messages a language) and Naev's space missions (naev-data: pilots' and
bar patrons' talk, mission briefings, ships and planets, ~7,700 messages, German only), each
message's English original paired with its human translation.

All ship gettext .mo files, read as gettext_catalogs reads its programs' (fuzzy, plural and
untranslated messages, those with placeholders or a context dropped): the first two under
usr/share/locale, which leaves these domains to this module (gettext_catalogs.claimed()), the
next three in the games' own folders (GAME_FOLDERS); Flare's are .po files in each mod's folder
(FLARE_PO, read as games.po_messages reads SuperTuxKart's). FreedroidRPG's engine catalog
(freedroidrpg.mo: menus and cheat commands) and Flare's (engine.<lang>.po: menus) are not read.
"""
import glob
import os

from . import games
from .gettext_catalogs import message_pairs

PACKAGES = {"all": ["cataclysm-dda-data", "freedroidrpg-data", "freedink-data", "flare-game"],
            "de": ["naev-data"], "fr": ["adonthell-data"]}
DOMAINS = ["cataclysm-dda", "freedroidrpg-dialogs", "freedroidrpg-data"]
UNREAD = ["freedroidrpg"]  # the engine's menus and cheat commands: read by no module
GAME_FOLDERS = ["usr/share/games/dink/dink/l10n/%s/LC_MESSAGES/dink.mo",
                "usr/share/games/adonthell/games/wastesedge/locale/%s/LC_MESSAGES/wastesedge.mo",
                "usr/share/naev/dat/gettext/%s/LC_MESSAGES/naev.mo"]
FLARE_PO = "usr/share/games/flare/mods/*/languages/data.%s.po"


def pairs(root, lang):
    folder = os.path.join(root, "usr/share/locale", lang, "LC_MESSAGES")
    found = ([os.path.join(folder, d + ".mo") for d in DOMAINS] +
             [os.path.join(root, path % lang) for path in GAME_FOLDERS])
    yield from message_pairs(p for p in found if os.path.exists(p))
    for po in sorted(glob.glob(os.path.join(root, FLARE_PO % lang))):
        yield from games.clean_messages(games.po_messages(po))
