"""Text helpers shared by the corpus sources: markup stripping and whitespace."""
import html
import re
import unicodedata

TAG = re.compile(r"<[^>]+>")


def each_once(*sources):
    """The pairs of each iterable in turn, each pair at its first appearance only (a game
    repeats a line, a tooltip or an expanded text in many places)."""
    seen = set()
    for source in sources:
        for pair in source:
            if pair not in seen:
                seen.add(pair)
                yield pair


def strip_markup(s):
    """Removes XML/HTML tags and resolves entities; the text between tags is kept."""
    return html.unescape(TAG.sub("", s))


def clean(s):
    s = unicodedata.normalize("NFC", s)
    return re.sub(r"\s+", " ", s).strip()
