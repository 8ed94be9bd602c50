"""Handles: the unique name an account signs in with and is found by (``/v1/players/{handle}``).

Two handles are one when they are equal after Unicode NFKC and case folding ("Mina", "mina" and
a fullwidth "Mina" are one handle). A handle mixing scripts the way look-alike attacks do
("paypal" with a Cyrillic "a" in it) is refused, and so is one whose look-alike skeleton another
account already holds ("paypa1", or "paypal" all in Cyrillic letters, when "paypal" exists). The
display name is the player's ``name`` and may differ from the handle.
"""

from __future__ import annotations

import re
import unicodedata

from service.app.errors import BadRequest

MIN_LENGTH = 3
MAX_LENGTH = 24

# Letters of any script, ASCII digits and . _ - inside; other scripts' digits look like ours.
_SHAPE = re.compile(r"[^\W\d_]|[0-9]|[._-]")
_PUNCTUATION = "._-"

# UTS #39 §5.2 "Highly Restrictive": one script, or Latin with Han and the script written with
# Han in Japan, China or Korea. Scripts are read off the characters' Unicode names.
_ALLOWED_MIXES = (frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA"}),
                  frozenset({"LATIN", "CJK", "BOPOMOFO"}),
                  frozenset({"LATIN", "CJK", "HANGUL"}))
_SCRIPT_NAMES = {"CJK", "HANGUL", "HIRAGANA", "KATAKANA", "BOPOMOFO"}

# A look-alike's skeleton (after UTS #39's confusables, the few that matter between the scripts
# a handle may be written in): letters and digits that pass for Latin letters.
_SKELETON = str.maketrans(
    # Cyrillic
    "\u0430\u0432\u0435\u0451\u043a\u043c\u043d\u043e\u0440\u0441\u0442\u0443\u0445\u0455\u0456\u0457\u0458\u04bb\u0501\u051b\u051d\u04cf"
    # Greek, and Latin's script g
    "\u03b1\u03b2\u03b5\u03b7\u03b9\u03ba\u03bd\u03bf\u03c1\u03c4\u03c5\u03c7\u03c9\u03b6\u0261"
    # digits and punctuation
    "015|",
    "abeekmhopctyxsiijhdqwl" "abenikvoptuxwzg" "olsl", "_-.")


def fold(handle: str) -> str:
    """The form two handles are compared in: NFKC, then case folded (NFKC again, as case
    folding can leave a string that is not NFKC: UAX #31 §5, NFKC_Casefold)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", handle).casefold())


def skeleton(handle: str) -> str:
    """What the handle looks like: its folded form with look-alike letters mapped to Latin
    ("rn" reads as "m", "1" as "l", Cyrillic "o" as Latin "o")."""
    return fold(handle).translate(_SKELETON).replace("rn", "m")


def check(handle: str) -> str:
    """The handle as it is shown (NFKC) when it may be one; BadRequest with a stable code
    otherwise."""
    shown = unicodedata.normalize("NFKC", handle)
    if not MIN_LENGTH <= len(shown) <= MAX_LENGTH:
        raise BadRequest("handle_length",
                         "A handle is {min} to {max} characters long.",
                         params={"min": MIN_LENGTH, "max": MAX_LENGTH})
    if not all(_SHAPE.fullmatch(ch) for ch in shown) or shown[0] in _PUNCTUATION \
            or shown[-1] in _PUNCTUATION:
        raise BadRequest("handle_characters",
                         "A handle is letters and digits, with . _ or - between them.")
    scripts = {script(ch) for ch in shown if ch.isalpha()}
    if len(scripts) > 1 and not any(scripts <= mix for mix in _ALLOWED_MIXES):
        raise BadRequest("handle_mixed_scripts",
                         "A handle mixes scripts that look alike (e.g. Latin and Cyrillic); "
                         "write it in one script.", details={"scripts": sorted(scripts)})
    return shown


def script(ch: str) -> str:
    """The script of a letter, as its Unicode name starts ("LATIN", "CYRILLIC", "HANGUL"...)."""
    name = unicodedata.name(ch, "UNKNOWN")
    first = name.split(" ", 1)[0]
    return first if first in _SCRIPT_NAMES or " " in name else "UNKNOWN"
