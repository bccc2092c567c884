#!/usr/bin/python3
"""make_international_library.py DIR

Generates the `international` test library into DIR (created, must be empty): a few thousand tiny FLACs in
folders named in many scripts (CJK, kana, hangul, Cyrillic, Greek, Arabic, Hebrew, Thai, Devanagari, accented
and case-varied Latin, emoji, digits, punctuation, combining marks), tagged with albums, discs and tracks from
the same pool. It exists for one question: do NoSignal and MPD order names the same way (`lsinfo`, `listall`,
`add` of a folder, `find … sort`, `list`)? MPD orders directories and songs with ICU's root collation.

Deterministic: a fixed random seed, one template file made by ffmpeg, tags written by mutagen, fixed times.
Changing this script changes the library's hash (TestLibrary.swift caches by the generator's content).
"""
import os
import random
import shutil
import subprocess
import sys

from mutagen.flac import FLAC

WORDS = [
    # Latin with accents, ligatures, case and the classic collation traps
    "Ana Sørensen", "Ana Straße", "Ana Strasse", "Ångström", "Zoë", "zoe", "Zoe", "Éclair", "eclair", "Œuvre",
    "Ørsted", "Ærø", "Ça va", "Łódź", "Ñandú", "naïve", "naive", "résumé", "resume", "RESUME", "İstanbul",
    "ıstanbul", "Straße", "Strasse", "ß", "ss", "Ǆ", "ǅ", "ǆ", "Þorn", "ð", "Ŋ", "a\u0301 combining", "á precomposed",
    # Cyrillic, Greek
    "Ёлка", "Елка", "ёж", "Жук", "Щука", "Юла", "Яблоко", "апельсин", "Ангел", "ангел", "Ωμέγα", "άλφα", "Αλφα",
    "βήτα",
    # CJK, kana (full and half width), hangul
    "東京事変", "東京", "北京", "上海", "中国", "日本", "一", "二", "十", "百", "千", "ひらがな", "カタカナ", "ｶﾀｶﾅ",
    "あ", "ア", "ぁ", "ァ", "がっこう", "ガッコウ", "한국어", "서울", "가", "각", "나", "하늘", "ㄱ", "ㅎ",
    # right to left and Indic scripts
    "مرحبا", "عربي", "שלום", "עברית", "สวัสดี", "ไทย", "नमस्ते", "हिन्दी",
    # emoji and symbols
    "🎵", "🎶 Music", "😀", "👍🏽", "❤️", "♥", "★", "☆ star", "€uro", "$dollar", "©",
    # digits, fullwidth and other numerals, punctuation, blanks
    "1", "01", "10", "2", "002", "１２", "٣", "Ⅻ", "(live)", "[demo]", "- dash", "_under", "#hash", "~tilde",
    "'quoted'", "\"double\"", "a b", "a  b", "A", "a", "b", "B",
]


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else sys.exit("usage: make_international_library.py DIR")
    os.makedirs(target, exist_ok=True)
    if os.listdir(target):
        sys.exit(f"make_international_library.py: {target} is not empty")
    rng = random.Random(20261126)
    template = os.path.join(target, ".template.flac")
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                    "anullsrc=r=44100:cl=mono", "-t", "0.05", "-map_metadata", "-1", "-c:a", "flac",
                    "-sample_fmt", "s16", "-fflags", "+bitexact", "-flags:a", "+bitexact", template], check=True)
    paths = []
    for top in WORDS:
        top_dir = os.path.join(target, top)
        os.makedirs(top_dir)
        paths.append(top_dir)
        for sub in rng.sample(WORDS, 3):
            sub_dir = os.path.join(top_dir, sub)
            os.makedirs(sub_dir, exist_ok=True)
            paths.append(sub_dir)
            for name in rng.sample(WORDS, 8):
                song = os.path.join(sub_dir, f"{name}.flac")
                shutil.copyfile(template, song)
                audio = FLAC(song)
                audio["title"] = rng.choice(WORDS)
                audio["artist"] = rng.choice(WORDS)
                if rng.random() < 0.8:
                    audio["album"] = rng.choice(WORDS)
                if rng.random() < 0.5:
                    audio["discnumber"] = str(rng.randint(1, 2))
                if rng.random() < 0.7:
                    audio["tracknumber"] = rng.choice([str(rng.randint(1, 12)), f"{rng.randint(1, 9)}/9", "0"])
                audio.save()
                paths.append(song)
    os.remove(template)
    stamp = 1577934245  # 2020-01-02T03:04:05Z
    for path in sorted(paths, key=len, reverse=True) + [target]:
        os.utime(path, (stamp, stamp))


if __name__ == "__main__":
    main()
