#!/usr/bin/python3
"""tag_more.py DIR: tags the files the `taggers_more` differential script made in DIR with mutagen, in the ways
other tools leave real libraries: ID3 comments with and without descriptions, numeric and mixed genres, ID3v2.3
dates split over TYER/TDAT, original dates, ID3v1 only, APEv2 on MP3, MP4 freeform atoms, Opus comments, ID3
chunks in WAV and AIFF, a huge tag value and an embedded cover."""
import sys

from mutagen.apev2 import APEv2
from mutagen.aiff import AIFF
from mutagen.id3 import (APIC, COMM, ID3, TALB, TCON, TDAT, TDOR, TIT2, TORY, TPE1, TRCK, TXXX, TYER, TLAN, TMED,
                         TIT3, TPE4, TMOO, TCOM, TPE2)
from mutagen.mp4 import MP4, MP4FreeForm
from mutagen.oggopus import OggOpus
from mutagen.wave import WAVE

d = sys.argv[1]

# ID3v2.4: comments (no description, a description, two languages), a numeric genre and mixed genres, more frames.
t = ID3()
t.add(TIT2(encoding=3, text=["Comments"]))
t.add(TPE1(encoding=3, text=["Comm Artist"]))
t.add(COMM(encoding=3, lang="eng", desc="", text=["plain comment"]))
t.add(COMM(encoding=3, lang="eng", desc="iTunNORM", text=["0000 1111"]))
t.add(COMM(encoding=3, lang="deu", desc="", text=["deutsch"]))
t.add(TCON(encoding=3, text=["(13)", "Eurodance", "(17)Rock"]))
t.add(TLAN(encoding=3, text=["eng"]))
t.add(TMED(encoding=3, text=["CD"]))
t.add(TIT3(encoding=3, text=["Subtitle"]))
t.add(TPE4(encoding=3, text=["Remixer"]))
t.add(TMOO(encoding=3, text=["Happy"]))
t.add(TDOR(encoding=3, text=["1970-01-02"]))
t.save(f"{d}/comments.mp3", v2_version=4)

# ID3v2.3 written as older tools do: UTF-16 and Latin-1 frames, the date in TYER + TDAT, TORY, genre "(4)".
t = ID3()
t.add(TIT2(encoding=1, text=["Ünïcode Title"]))
t.add(TPE1(encoding=0, text=["Latin Artïst"]))
t.add(TALB(encoding=1, text=["Old Album"]))
t.add(TYER(encoding=0, text=["1987"]))
t.add(TDAT(encoding=0, text=["0503"]))
t.add(TORY(encoding=0, text=["1980"]))
t.add(TCON(encoding=0, text=["(4)"]))
t.add(TRCK(encoding=0, text=["03/12"]))
t.add(TCOM(encoding=1, text=["Comp One/Comp Two"]))
t.save(f"{d}/v23.mp3", v2_version=3)

# Genres as numbers: ID3v2.4 "13" alone, ID3v2.3 with the refinements (RX) and (CR) and a number with text.
t = ID3()
t.add(TIT2(encoding=3, text=["Genre Number"]))
t.add(TCON(encoding=3, text=["13"]))
t.save(f"{d}/genre24.mp3", v2_version=4)
t = ID3()
t.add(TIT2(encoding=0, text=["Genre Refinements"]))
t.add(TCON(encoding=0, text=["(RX)(17)Rock"]))
t.save(f"{d}/genre23.mp3", v2_version=3)

# A huge value and an embedded cover.
t = ID3()
t.add(TIT2(encoding=3, text=["Big"]))
t.add(TXXX(encoding=3, desc="MusicBrainz Album Id", text=["x" * 60000]))
t.add(TPE2(encoding=3, text=["Cover AA"]))
t.add(APIC(encoding=3, mime="image/png", type=3, desc="front", data=b"\x89PNG\r\n\x1a\n" + b"\0" * 200000))
t.save(f"{d}/big.mp3", v2_version=4)

# A cover and nothing else in the ID3v2 tag, with an ID3v1 tag (written by id3v2 in the script): MPD reads neither.
t = ID3()
t.add(APIC(encoding=3, mime="image/png", type=3, desc="", data=b"\x89PNG\r\n\x1a\n" + b"\0" * 100))
t.save(f"{d}/picture-v1.mp3", v2_version=3)

# APEv2 on an MP3 that has no ID3v2.
ape = APEv2()
ape["Title"] = "Ape On Mp3"
ape["Artist"] = "Ape Artist"
ape["Album Artist"] = "Ape AA"
ape["Year"] = "2003"
ape["Track"] = "7"
ape.save(f"{d}/ape.mp3")

# MP4 with freeform atoms (MusicBrainz, ALBUMARTISTSORT) besides the standard ones.
m = MP4(f"{d}/free.m4a")
m["\xa9nam"] = ["Free Title"]
m["\xa9ART"] = ["Free Artist"]
m["soaa"] = ["Sort Album"]
m["----:com.apple.iTunes:MusicBrainz Track Id"] = [MP4FreeForm(b"mb-track-m4a")]
m["----:com.apple.iTunes:MusicBrainz Album Id"] = [MP4FreeForm(b"mb-album-m4a")]
m["----:com.apple.iTunes:LABEL"] = [MP4FreeForm(b"Free Label")]
m["----:com.apple.iTunes:MOOD"] = [MP4FreeForm(b"Calm")]
m.save()

# Opus comments, with repeated and lower-case keys.
o = OggOpus(f"{d}/comments.opus")
o["title"] = ["Opus Title"]
o["artist"] = ["Opus A", "Opus B"]
o["albumartist"] = ["Opus AA"]
o["date"] = ["2019-02"]
o["originaldate"] = ["1999"]
o["musicbrainz_trackid"] = ["mb-opus"]
o["label"] = ["Opus Label"]
o.save()

# ID3 chunks in WAV and AIFF.
for name, kind in (("id3.wav", WAVE), ("id3.aiff", AIFF)):
    f = kind(f"{d}/{name}")
    f.add_tags()
    f.tags.add(TIT2(encoding=3, text=[name + " title"]))
    f.tags.add(TPE1(encoding=3, text=["Chunk Artist"]))
    f.tags.add(TALB(encoding=3, text=["Chunk Album"]))
    f.save()
