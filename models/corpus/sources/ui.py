"""Desktop UI catalogs: LibreOffice's own user interface, and the Firefox ESR and Thunderbird
language packs.

- LibreOffice (libreoffice-l10n-de / -fr): gettext .mo files under
  usr/lib/libreoffice/program/resource/<lang>/LC_MESSAGES/, whose msgids are the English strings
  with a context ("ctx|id"); the context is dropped, ~ and _ mnemonics removed.
- Firefox ESR, Thunderbird: the language pack (langpack-<lang>@….xpi, a zip) holds
  localization/<lang>/….ftl (Fluent) and chrome/<lang>/locale/….properties; the English
  originals are the same files with en-US in the path inside the program's omni.ja archives
  (firefox-esr, thunderbird: the main packages, unpacked, nothing installed). Paired by file and
  message id (a Fluent attribute is its own message: id.label); messages with placeables ({ … }),
  selectors or multi-line values are dropped.
"""
import glob
import os
import re
import zipfile

from .gettext_catalogs import PLACEHOLDER, catalog

PACKAGES = {"all": ["firefox-esr", "thunderbird"],
            "de": ["libreoffice-l10n-de", "firefox-esr-l10n-de", "thunderbird-l10n-de"],
            "fr": ["libreoffice-l10n-fr", "firefox-esr-l10n-fr", "thunderbird-l10n-fr"]}
LIBREOFFICE = "usr/lib/libreoffice/program/resource"
MOZILLA = [["usr/lib/firefox-esr"], ["usr/lib/thunderbird", "usr/share/thunderbird"]]
LO_MNEMONIC = re.compile(r"~|(?<=\w)_(?=\w)|^_")
FTL_MESSAGE = re.compile(r"^([a-zA-Z][\w-]*)\s*=\s*(.*)$")
FTL_ATTRIBUTE = re.compile(r"^\s+\.([\w-]+)\s*=\s*(.*)$")


def libreoffice_pairs(root, lang):
    for path in sorted(glob.glob(os.path.join(root, LIBREOFFICE, lang, "LC_MESSAGES", "*.mo"))):
        for key, value in sorted(catalog(path).items(), key=lambda kv: str(kv[0])):
            if not isinstance(key, str) or not value or not key:
                continue
            key = key.split("\x04", 1)[-1]
            if PLACEHOLDER.search(key) or PLACEHOLDER.search(value) or "$" in key:
                continue
            yield LO_MNEMONIC.sub("", key), LO_MNEMONIC.sub("", value)


def ftl_messages(text):
    """{id or id.attribute: value} of the single-line, placeable-free messages of a Fluent
    file."""
    out, msg, multi = {}, None, set()
    for line in text.split("\n"):
        m, a = FTL_MESSAGE.match(line), FTL_ATTRIBUTE.match(line)
        if m:
            msg = m.group(1)
            if m.group(2).strip():
                out[msg] = m.group(2).strip()
        elif a and msg:
            out["%s.%s" % (msg, a.group(1))] = a.group(2).strip()
        elif line.startswith((" ", "\t")) and line.strip() and msg:
            multi.add(msg)  # a continuation line or a selector: the value is not one line
        elif not line.startswith((" ", "\t")):
            msg = None
    return {k: v for k, v in out.items()
            if k.split(".")[0] not in multi and v and "{" not in v and "}" not in v}


def properties(text):
    out = {}
    for line in text.split("\n"):
        line = line.strip()
        if line and not line.startswith(("#", "!")) and "=" in line:
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip().replace("\\n", " ")
    return out


def read_archive(path, prefix_of):
    """{normalised file name: messages} of the .ftl and .properties files in a zip."""
    out = {}
    try:
        z = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile):
        return out
    for name in z.namelist():
        key = prefix_of(name)
        if key is None:
            continue
        text = z.read(name).decode("utf-8", "replace")
        out[key] = ftl_messages(text) if name.endswith(".ftl") else properties(text)
    return out


def mozilla_pairs(root, lang):
    def normal(locale):
        def of(name):
            if not name.endswith((".ftl", ".properties")):
                return None
            parts = name.split("/")
            if locale not in parts:
                return None
            return "/".join("@" if p == locale else p for p in parts)
        return of
    for app in MOZILLA:
        english, translated = {}, {}
        for folder in app:
            for omni in sorted(glob.glob(os.path.join(root, folder, "**", "omni.ja"),
                                         recursive=True)):
                if os.path.isfile(omni):
                    english.update(read_archive(omni, normal("en-US")))
            for xpi in sorted(glob.glob(os.path.join(root, folder, "**", "langpack-%s@*.xpi"
                                                     % lang), recursive=True)):
                if os.path.isfile(xpi):
                    translated.update(read_archive(xpi, normal(lang)))
        for name in sorted(english):
            if name in translated:
                en, tr = english[name], translated[name]
                for key in sorted(en):
                    if key in tr and not PLACEHOLDER.search(en[key] + tr[key]):
                        yield en[key], tr[key]


class LibreOffice:
    """LibreOffice's user interface strings, as a source of their own."""
    PACKAGES = {"de": ["libreoffice-l10n-de"], "fr": ["libreoffice-l10n-fr"]}
    pairs = staticmethod(libreoffice_pairs)


class Mozilla:
    """The Firefox ESR and Thunderbird language packs, as a source of their own."""
    PACKAGES = {"all": ["firefox-esr", "thunderbird"],
                "de": ["firefox-esr-l10n-de", "thunderbird-l10n-de"],
                "fr": ["firefox-esr-l10n-fr", "thunderbird-l10n-fr"]}
    pairs = staticmethod(mozilla_pairs)
