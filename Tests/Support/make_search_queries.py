#!/usr/bin/python3
"""make_search_queries.py [COUNT] [SEED] [WINDOW] > Tests/DifferentialTests/Scripts/search_random.mpdscript

Writes the randomized search comparison: COUNT (default 1000) queries of the `search` family (`search`,
`searchcount`, filter expressions with `contains`, `==`, `starts_with`, `AND`, `!`, fallback tags such as
AlbumArtist, windows and sorts) over the `international` test library, whose tag values all come from the word pool
of make_international_library.py. Needles are substrings of those words (1 to 7 characters, in changed case) or
strings found nowhere, so every query length meets both the search index (3 characters and more) and its short
sequences. The differential harness plays the script against real MPD and NoSignal: the answers must be equal byte
for byte.

MPD 0.23 folds case only; MPD 0.24 (and NoSignal) fold to a canonical form (NFKC case folding, punctuation to
ASCII). A query whose matching words differ between the two (by Python's approximations of both foldings), or that
uses what 0.23 lacks (`searchcount`, `starts_with`), is marked
to be compared only with an MPD 0.24 oracle (`%oracle-below 0.24` / `%ignore`), so the script passes against
Debian's 0.23 and is complete against 0.24 (MPD_BIN=…).

Deterministic for a given COUNT and SEED (default 15). With WINDOW, every `search` without a window of its own gets
`window 0:WINDOW`, so that the answers stay small on a large library (scripts/international-100k.sh search_random).
"""
import importlib.util
import os
import random
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("intl", os.path.join(HERE, "make_international_library.py"))
intl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(intl)
WORDS = intl.WORDS

IGNORABLE = {0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180E, 0x180F,
             0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2060, 0x2061, 0x2062,
             0x2063, 0x2064, 0xFEFF, 0x3164, 0xFFA0} | set(range(0xFE00, 0xFE10))
PUNCTUATION = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}


def fold23_full(text):
    """MPD 0.23's `==`: full case folding (ß is ss)."""
    return text.casefold()


def fold23_simple(text):
    """MPD 0.23's `contains` (seen against Debian's 0.23.12): ß stays ß; lower case is the closest Python has."""
    return text.lower()


def fold24(text):
    """MPD 0.24 (approximately): NFKC case folding without default ignorables, punctuation to ASCII."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    folded = "".join(c for c in folded if ord(c) not in IGNORABLE)
    return "".join(PUNCTUATION.get(c, c) for c in folded)


# Every tag value of the library: the words, and the track and disc numbers (which `any` sees too).
VALUES = WORDS + [str(n) for n in range(13)] + [f"{n}/9" for n in range(1, 10)]


def matching_words(op, needle, fold):
    n = fold(needle)
    if op == "contains":
        return {w for w in VALUES if n in fold(w)}
    if op == "starts_with":
        return {w for w in VALUES if fold(w).startswith(n)}
    return {w for w in VALUES if fold(w) == n}


SAFE = [w for w in WORDS if not any(c in w for c in "'\"\\")]
TAGS = ["any", "title", "artist", "album", "albumartist", "artistsort", "albumsort"]
ABSENT = ["zqx", "qqq", "xyzzy", "ñññ", "ЖЖЖ", "東京京", "🎵🎵", "vv", "q", "ß ß", "the end"]


def recase(rng, text):
    return rng.choice([text, text.upper(), text.lower(), text.swapcase(), text.title()])


def needle(rng):
    if rng.random() < 0.08:
        return rng.choice(ABSENT)
    word = rng.choice(SAFE)
    length = min(len(word), rng.choice([1, 2, 2, 3, 3, 3, 4, 4, 5, 6, 7]))
    start = rng.randint(0, len(word) - length)
    text = word[start:start + length].strip() or word.strip()
    return recase(rng, text)


def quote(argument):
    return '"' + argument.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 15)
    window = int(sys.argv[3]) if len(sys.argv) > 3 else None
    print("# The randomized search comparison, written by Tests/Support/make_search_queries.py (see there): "
          f"{count} queries")
    print("# of the search family over the international library; NoSignal's search index must give MPD's answers.")
    print("%library international")
    for _ in range(count):
        checks = []  # (op, needle) pairs the answer depends on
        kind = rng.random()
        tag = rng.choice(TAGS)
        n = needle(rng)
        suffix = ""
        if rng.random() < 0.15:
            suffix = rng.choice([" sort Title", " sort -Artist", " window 0:5", " sort Album window 2:9"])
        if kind < 0.35:
            line = f"search {tag} {quote(n)}" + suffix
            checks.append(("contains", n))
        elif kind < 0.5:
            second = needle(rng)
            line = f"search {tag} {quote(n)} {rng.choice(TAGS)} {quote(second)}" + suffix
            checks += [("contains", n), ("contains", second)]
        elif kind < 0.62:
            group = rng.choice(["", " group artist", " group album"])
            line = f"searchcount {tag} {quote(n)}{group}"
            checks += [("contains", n), ("0.24", n)]
        elif kind < 0.78:
            op = rng.choice(["contains", "contains", "==", "!=", "starts_with"])
            value = n if op in ("contains", "starts_with") else recase(rng, rng.choice(SAFE))
            expression = f"({tag} {op} '{value}')"
            if rng.random() < 0.2:
                expression = f"(!{expression})"
                suffix = suffix or " window 0:20"
            line = f"search {quote(expression)}" + suffix
            checks.append(("starts_with" if op == "starts_with" else "==" if op in ("==", "!=") else "contains",
                           value))
            if op == "starts_with":
                checks.append(("0.24", value))
        else:
            second = needle(rng)
            expression = f"(({tag} contains '{n}') AND ({rng.choice(TAGS)} contains '{second}'))"
            line = f"search {quote(expression)}" + suffix
            checks += [("contains", n), ("contains", second)]
        only24 = any(op == "0.24" or not (matching_words(op, value, fold24) == matching_words(op, value, fold23_full)
                                           == matching_words(op, value, fold23_simple))
                     for op, value in checks)
        if only24:
            print("%oracle-below 0.24")
            print("%ignore reason: MPD 0.23 folds case only; 0.24 folds to a canonical form (or has the operator): "
                  "compared against MPD 0.24.")
            print("%oracle-below any")
        if window and line.startswith("search ") and " window " not in line:
            line += f" window 0:{window}"
        print(line)


if __name__ == "__main__":
    main()
