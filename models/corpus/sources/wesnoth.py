"""The Battle for Wesnoth (wesnoth-1.16-data and the campaign packages): the game's gettext
catalogs, mostly narrative dialogue and unit descriptions.

One campaign, Heir to the Throne (wesnoth-httt), is held out of training entirely: its short
dialogue lines are the "everyday" check (everyday()).
"""
import glob
import os

from .gettext_catalogs import message_pairs

CAMPAIGNS = ["did", "dm", "dw", "ei", "l", "low", "nr", "sof", "sota", "sotbe", "thot", "trow",
             "tsg", "ttb", "utbs"]
HELD_OUT = "httt"
PACKAGES = {"all": ["wesnoth-1.16-data"] + ["wesnoth-1.16-" + c for c in CAMPAIGNS + [HELD_OUT]]}
LOCALE = "usr/share/games/wesnoth/1.16/locale"


def domain_files(root, lang):
    return sorted(glob.glob(os.path.join(root, LOCALE, lang, "LC_MESSAGES", "wesnoth*.mo")))


def pairs(root, lang):
    held = "wesnoth-%s.mo" % HELD_OUT
    yield from message_pairs(p for p in domain_files(root, lang) if os.path.basename(p) != held)


def everyday(root, lang):
    yield from message_pairs(p for p in domain_files(root, lang)
                             if os.path.basename(p) == "wesnoth-%s.mo" % HELD_OUT)
