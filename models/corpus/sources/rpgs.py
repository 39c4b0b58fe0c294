"""Role-playing games' catalogs: the spoken lines of FreedroidRPG's characters (freedroidrpg
-dialogs, with its items and places) and Cataclysm: Dark Days Ahead's items, food, clothing,
places and characters' talk, each message's English original paired with its human translation.

Both ship gettext .mo files under usr/share/locale, read as gettext_catalogs reads its programs'
(fuzzy, plural and untranslated messages, those with placeholders or a context dropped), which
leaves these domains to this module (gettext_catalogs.claimed()). FreedroidRPG's engine catalog
(freedroidrpg.mo: menus and cheat commands) is not read.
"""
import os

from .gettext_catalogs import message_pairs

PACKAGES = {"all": ["cataclysm-dda-data", "freedroidrpg-data"]}
DOMAINS = ["cataclysm-dda", "freedroidrpg-dialogs", "freedroidrpg-data"]
UNREAD = ["freedroidrpg"]  # the engine's menus and cheat commands: read by no module


def pairs(root, lang):
    folder = os.path.join(root, "usr/share/locale", lang, "LC_MESSAGES")
    yield from message_pairs(os.path.join(folder, d + ".mo") for d in DOMAINS
                             if os.path.exists(os.path.join(folder, d + ".mo")))
