"""Text helpers shared by the corpus sources: markup stripping and whitespace."""
import html
import re
import unicodedata

TAG = re.compile(r"<[^>]+>")


def strip_markup(s):
    """Removes XML/HTML tags and resolves entities; the text between tags is kept."""
    return html.unescape(TAG.sub("", s))


def clean(s):
    s = unicodedata.normalize("NFC", s)
    return re.sub(r"\s+", " ", s).strip()
