"""gettext catalogs (.mo) of desktop programs and games: each msgid is English, its msgstr the
human translation.

Read with Python's gettext module (no msgunfmt needed). Plural entries, messages with format
placeholders (%s, %1, {name}, $var) and untranslated entries are dropped; keyboard mnemonics
(_File, &File) are removed.
"""
import gettext
import glob
import os
import re

PACKAGES = {"all": ["tuxpaint", "gnome-maps", "gnome-weather", "gnome-clocks", "gedit",
                    "nautilus", "evince", "gnome-calculator", "gnome-control-center",
                    "gnome-software", "libgtk-3-common", "vlc-l10n", "inkscape", "gimp-data",
                    "gnucash-common", "audacity-data", "pidgin-data", "hexchat-common",
                    "transmission-common", "rhythmbox-data", "totem-common", "evolution-common",
                    "thunar", "mousepad", "xfce4-panel", "gnome-shell-common", "freeciv-data"]}
PLACEHOLDER = re.compile(r"%[-+ #0-9.]*[a-zA-Z%]|%\d|\{[^}]*\}|\$\w|\\[nt]")
MNEMONIC = re.compile(r"(?<=\w)_(?=\w)|^_|&(?=\w)")


def catalog(path):
    with open(path, "rb") as f:
        try:
            return gettext.GNUTranslations(f)._catalog
        except (OSError, UnicodeDecodeError, ValueError):
            return {}


def message_pairs(paths):
    for path in paths:
        for key, value in catalog(path).items():
            if not isinstance(key, str) or not key or not value or "\x04" in key:
                continue  # plural forms, the header, messages with a context
            if PLACEHOLDER.search(key) or PLACEHOLDER.search(value):
                continue
            yield MNEMONIC.sub("", key), MNEMONIC.sub("", value)


def catalogs(root, lang, exclude=()):
    found = glob.glob(os.path.join(root, "usr/share/locale", lang, "LC_MESSAGES", "*.mo"))
    return sorted(p for p in found if os.path.basename(p)[:-3] not in exclude
                  and not os.path.basename(p).startswith("wesnoth"))


def claimed():
    """Domains other modules own (games.py, rpgs.py, adventures.py, pastimes.py: read there, or
    left unread on purpose): left to them, whatever package put them in the root."""
    from . import adventures, games, pastimes, rpgs  # why: here: all import this module
    return (set(games.DOMAINS) | set(rpgs.DOMAINS) | set(rpgs.UNREAD) | set(adventures.UNREAD)
            | set(pastimes.DOMAINS))


def pairs(root, lang):
    yield from message_pairs(catalogs(root, lang, exclude=claimed()))
