#!/usr/bin/python3
"""generate.py SEED COUNT DIR — the randomized tag and playlist library of the tag fuzz (issue 34).

Writes DIR/music (the music_directory), DIR/playlists (stored playlists, copied per server) and DIR/manifest.jsonl
(one JSON line per file: path, format, tagger and exactly what the tagger was told). The same SEED and COUNT give a
byte-identical tree: every file's randomness comes from random.Random("SEED:index"), ffmpeg runs bit-exact without
metadata, tool-specific variable bytes are pinned (Ogg serials, MP4 mvhd times) and every mtime is fixed.

Audio: one short base file (0.2–1 s) per format and parameter set is encoded once and copied; the taggers then write
random tags: ID3v2.2/2.3/2.4 in every text encoding (raw writer and mutagen), eyeD3, id3v2, kid3-cli, metaflac,
vorbiscomment, opusenc, AtomicParsley, wvtag, ffmpeg -metadata, mutagen (APEv2 on MP3/MPC, ID3 chunks in WAV and
AIFF, Ogg FLAC, MP4 freeform atoms), id3tool (ID3v1). Playlists: m3u, m3u8 (EXTINF, CRLF, BOM, missing, absolute,
URL and ../ entries), pls, xspf, cue; folder covers.
"""
import hashlib
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor

from mutagen.apev2 import APEv2, APEValue, BINARY
from mutagen.aiff import AIFF
from mutagen.flac import FLAC, Picture
from mutagen.id3 import ID3, Frames, TXXX, UFID, COMM, APIC, PictureType
from mutagen.mp4 import MP4, MP4FreeForm, MP4Cover
from mutagen.oggflac import OggFLAC
from mutagen.oggopus import OggOpus
from mutagen.oggvorbis import OggVorbis
from mutagen.wave import WAVE

FFMPEG = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y"]
BITEXACT = ["-fflags", "+bitexact", "-flags:a", "+bitexact", "-map_metadata", "-1"]
BASE_TIME = 1577934245  # 2020-01-02 03:04:05 UTC
ENV = dict(os.environ, LC_ALL="C.UTF-8")

# ------------------------------------------------------------------------------------------------ values ---------

WORDS = ["Alpha", "Beta", "gamma", "Delta Blues", "The Band", "Sigur Rós", "Ágætis byrjun", "東京事変", "椎名林檎",
         "Ελληνικά", "Ђорђе", "Bjørk", "Mötley Crüe", "AC/DC", "Guns N' Roses", "Don't \"stop\"", "back\\slash",
         "a;b", "x=y", "Lp: 2", "100%", "#hash", "🎵 Emoji 🎶", "e\u0301 combining", "עברית", "العربية", "Ça va",
         "Straße", "Ærø", "ﬁ ligature", "Tab\there", "ALL CAPS", "lower case", "Mixed Case", "Various Artists",
         "Rock", "Pop", "Jazz", "Post-Rock", "Eurodance", "Hip-Hop", "Classical", "Live", "Remix", "Vol. 2"]
GENRES = ["Rock", "Pop", "Jazz", "Blues", "(13)", "(17)Rock", "13", "0", "(RX)", "(CR)", "(4)(17)", "255", "(255)",
          "Post-Rock", "Eurodance", "Genre with space", "rock", "J-Pop", "80", "(80)Folk", "((Parens))"]
DATES = ["1999", "1999-06-12", "2004-09", "0000", "20101", "1987-13-45", "2010-01-01T12:00", "  2001", "2002 ",
         "12.05.1999", "1999/2000", "", "abc", "2020-02-29", "-5"]
TRACKS = ["1", "01", "001", "3/12", "03/12", "0", "12/", "/12", " 7", "7 ", "A1", "1.5", "99999", "-1", "2/2",
          "10 of 12", ""]
MBIDS = ["a1e2c3d4-0001-4000-8000-%012d" % i for i in range(12)] + ["not-a-uuid", ""]
RG = ["-6.50 dB", "+1.23 dB", "0.987654", "-0.5", "garbage", "1.000000"]
LANGS = ["eng", "deu", "jpn", "XXX", "\0\0\0", "   "]


def value(rng, charset="any", long_ok=True):
    """A random tag value: words, whitespace games, control characters, long values."""
    kind = rng.random()
    if kind < 0.55:
        v = rng.choice(WORDS)
        if rng.random() < 0.3:
            v += " " + rng.choice(WORDS)
    elif kind < 0.62:
        v = ""
    elif kind < 0.68:
        v = rng.choice([" ", "  ", "\t", " \t ", "\u00a0", "\u3000"])
    elif kind < 0.76:
        v = rng.choice([" ", "  ", "\t"]) + rng.choice(WORDS) + rng.choice(["", " ", "  ", "\t"])
    elif kind < 0.82:
        v = rng.choice(WORDS) + rng.choice(["\x01", "\x1f", "\x7f", "\x1b", "\n", "\r\n", "\x0b", "\x08"]) + "x"
    elif kind < 0.86 and long_ok:
        v = ("%s " % rng.choice(WORDS)) * rng.randint(300, 1500)
    elif kind < 0.92:
        v = str(rng.randint(0, 10 ** rng.randint(1, 6)))
    else:
        v = "".join(chr(rng.choice([rng.randint(0x20, 0x7e), rng.randint(0xa0, 0x2ff), rng.randint(0x3040, 0x30ff),
                                    rng.randint(0x1f300, 0x1f5ff)])) for _ in range(rng.randint(1, 20)))
    return restrict(v, charset)


def restrict(v, charset):
    if charset == "latin1":
        return v.encode("latin-1", "replace").decode("latin-1")
    if charset == "ascii":
        return v.encode("ascii", "replace").decode("ascii")
    if charset == "argv":  # a command line: no NUL, no invalid surrogates
        return v.replace("\0", "")
    return v


def field(rng, key):
    """A value suited to a key (dates look like dates, most of the time)."""
    k = key.lower()
    if rng.random() < 0.15:
        return value(rng)
    if "date" in k or k in ("year", "tyer", "tdrc", "tdor", "tory", "\xa9day", "originalyear"):
        return rng.choice(DATES)
    if "track" in k or "disc" in k or k in ("trck", "tpos", "movementnumber", "mvin", "trkn", "disk"):
        return rng.choice(TRACKS)
    if "genre" in k or k == "tcon":
        return rng.choice(GENRES)
    if "musicbrainz" in k:
        return rng.choice(MBIDS)
    if "replaygain" in k:
        return rng.choice(RG)
    return value(rng)


def values(rng, key, most=4):
    n = 1 if rng.random() < 0.75 else rng.randint(2, most)
    return [field(rng, key) for _ in range(n)]


def case(rng, key):
    r = rng.random()
    return key if r < 0.6 else key.lower() if r < 0.8 else key.title() if r < 0.9 else key.swapcase()


# --------------------------------------------------------------------------------------------- vocabularies ----

VORBIS_KEYS = ["TITLE", "ARTIST", "ALBUM", "ALBUMARTIST", "ALBUM ARTIST", "ALBUM_ARTIST", "TRACKNUMBER", "TRACKTOTAL",
               "TOTALTRACKS", "DISCNUMBER", "DISCTOTAL", "DATE", "YEAR", "ORIGINALDATE", "ORIGINALYEAR", "GENRE",
               "COMPOSER", "COMPOSERSORT", "PERFORMER", "CONDUCTOR", "ENSEMBLE", "WORK", "MOVEMENTNAME", "MOVEMENT",
               "SHOWMOVEMENT", "LOCATION", "GROUPING", "COMMENT", "DESCRIPTION", "LABEL", "MOOD", "ARTISTSORT",
               "ALBUMSORT", "ALBUMARTISTSORT", "TITLESORT", "MUSICBRAINZ_ARTISTID", "MUSICBRAINZ_ALBUMID",
               "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_RELEASETRACKID",
               "MUSICBRAINZ_WORKID", "MUSICBRAINZ_RELEASEGROUPID", "CATALOGNUMBER", "ISRC", "LANGUAGE", "NAME",
               "REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK", "REPLAYGAIN_ALBUM_GAIN", "REPLAYGAIN_ALBUM_PEAK",
               "ENCODER", "RANDOMKEY", "X-CUSTOM", "TITLE2"]
# ID3 text frames (v2.3/2.4 names) and their v2.2 names.
ID3_TEXT = ["TIT2", "TPE1", "TALB", "TPE2", "TRCK", "TPOS", "TCON", "TCOM", "TPE3", "TPE4", "TIT1", "TIT3", "TEXT",
            "TSOP", "TSOA", "TSO2", "TSOC", "TSOT", "TMOO", "TPUB", "TLAN", "TSRC", "TBPM", "MVNM", "MVIN", "GRP1",
            "TOPE", "TOAL", "TENC", "TMED", "TKEY"]
ID3_V22 = {"TIT2": "TT2", "TPE1": "TP1", "TALB": "TAL", "TPE2": "TP2", "TRCK": "TRK", "TPOS": "TPA", "TCON": "TCO",
           "TCOM": "TCM", "TPE3": "TP3", "TPE4": "TP4", "TIT1": "TT1", "TIT3": "TT3", "TEXT": "TXT", "TPUB": "TPB",
           "TLAN": "TLA", "TSRC": "TRC", "TBPM": "TBP", "TOPE": "TOA", "TOAL": "TOT", "TENC": "TEN", "TMED": "TMT",
           "TKEY": "TKE", "TYER": "TYE", "TDAT": "TDA", "TIME": "TIM", "TORY": "TOR", "TXXX": "TXX", "COMM": "COM",
           "UFID": "UFI", "APIC": "PIC"}
TXXX_DESCS = ["MusicBrainz Artist Id", "MusicBrainz Album Id", "MusicBrainz Album Artist Id",
              "MusicBrainz Release Track Id", "MusicBrainz Work Id", "MusicBrainz Release Group Id",
              "ALBUMARTISTSORT", "ARTISTSORT", "CATALOGNUMBER", "LABEL", "MOOD", "ORIGINALDATE", "PERFORMER",
              "replaygain_track_gain", "REPLAYGAIN_ALBUM_GAIN", "musicbrainz artist id", "Random Desc", "",
              "COMMENT", "WORK", "MusicBrainz Track Id"]
UFID_OWNERS = ["http://musicbrainz.org", "http://www.cddb.com/id3/taginfo1.html", "", "other owner",
               "HTTP://MUSICBRAINZ.ORG"]
APE_KEYS = ["Title", "Artist", "Album", "Album Artist", "AlbumArtist", "Year", "Track", "Disc", "Genre", "Composer",
            "Comment", "Performer", "Conductor", "Label", "Mood", "Date", "Original Date", "Work", "Grouping",
            "Artistsort", "Albumartistsort", "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ARTISTID",
            "MUSICBRAINZ_ALBUMARTISTID", "REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_ALBUM_PEAK", "Catalog", "ISRC",
            "Random Key", "Name"]
MP4_ATOMS = ["\xa9nam", "\xa9ART", "\xa9alb", "aART", "\xa9day", "\xa9gen", "\xa9wrt", "\xa9cmt", "\xa9grp",
             "\xa9too", "sonm", "soar", "soal", "soaa", "soco", "\xa9wrk", "\xa9mvn", "desc", "\xa9lyr", "cprt"]
MP4_FREEFORM = ["MusicBrainz Track Id", "MusicBrainz Album Id", "MusicBrainz Artist Id", "MusicBrainz Album Artist Id",
                "MusicBrainz Release Track Id", "MusicBrainz Work Id", "LABEL", "MOOD", "CONDUCTOR", "PERFORMER",
                "ORIGINALDATE", "CATALOGNUMBER", "replaygain_track_gain", "ARTISTS", "Random"]
FFMPEG_KEYS = ["title", "artist", "album", "album_artist", "date", "track", "disc", "genre", "composer", "comment",
               "performer", "publisher", "copyright", "grouping", "language", "encoded_by", "lyrics",
               "MusicBrainz Album Id", "ARTISTSORT", "ALBUMARTISTSORT", "LABEL", "MOOD", "ORIGINALDATE", "random_key"]

# ------------------------------------------------------------------------------------------------- audio -------

# (name, extension, encoder arguments, wav input for a CLI encoder)
FORMATS = {
    "mp3": ("mp3", ["-c:a", "libmp3lame", "-b:a", "32k", "-id3v2_version", "0", "-write_id3v1", "0"]),
    "flac": ("flac", ["-c:a", "flac", "-sample_fmt", "s16"]),
    "ogg": ("ogg", ["-c:a", "libvorbis", "-q:a", "0"]),
    "opus": ("opus", ["-c:a", "libopus", "-b:a", "24k"]),
    "m4a": ("m4a", ["-c:a", "aac", "-b:a", "32k"]),
    "wv": ("wv", ["-c:a", "wavpack"]),
    "wav": ("wav", ["-c:a", "pcm_s16le"]),
    "aiff": ("aiff", ["-c:a", "pcm_s16be", "-write_id3v2", "0"]),
    "oga": ("oga", ["-c:a", "flac", "-sample_fmt", "s16", "-f", "ogg"]),
    "mpc": ("mpc", None),       # mpcenc from a wav
    "mka": ("mka", ["-c:a", "libvorbis", "-q:a", "0"]),
}
PARAMS = [(0.2, 44100, 1), (0.5, 44100, 2), (1.0, 48000, 2), (0.35, 22050, 1), (0.75, 32000, 2)]

# format -> taggers (weights)
TAGGERS = {
    "mp3": {"mutagen-id3": 3, "raw-id3": 3, "eyed3": 2, "id3v2": 2, "ffmpeg": 2, "mutagen-ape": 1, "kid3": 2,
            "id3tool": 1, "none": 1},
    "flac": {"metaflac": 3, "mutagen-flac": 2, "raw-flac": 2, "ffmpeg": 1, "kid3": 1, "none": 1},
    "ogg": {"vorbiscomment": 3, "mutagen-ogg": 2, "ffmpeg": 1, "kid3": 1, "none": 1},
    "opus": {"opusenc": 3, "mutagen-opus": 2, "ffmpeg": 1, "kid3": 1, "none": 1},
    "m4a": {"atomicparsley": 3, "mutagen-mp4": 3, "ffmpeg": 2, "kid3": 1, "none": 1},
    "wv": {"wvtag": 3, "mutagen-ape": 2, "ffmpeg": 1, "kid3": 1, "none": 1},
    "wav": {"mutagen-id3": 3, "ffmpeg": 2, "kid3": 1, "none": 1},
    "aiff": {"mutagen-id3": 3, "ffmpeg": 2, "kid3": 1, "none": 1},
    "oga": {"mutagen-oggflac": 3, "ffmpeg": 1, "none": 1},
    "mpc": {"mutagen-ape": 3, "none": 1},
    "mka": {"mkvpropedit": 3, "ffmpeg": 1, "none": 1},
}
FORMAT_WEIGHTS = {"mp3": 6, "flac": 4, "ogg": 3, "opus": 3, "m4a": 4, "wv": 2, "wav": 2, "aiff": 2, "oga": 1,
                  "mpc": 1, "mka": 1}


def run(args, env_extra=None, **kw):
    env = dict(ENV, **(env_extra or {}))
    return subprocess.run(args, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)


def have(tool):
    return shutil.which(tool) is not None


def make_bases(work):
    """One base file per format and parameter set, and the cover pictures."""
    bases = {}
    for p, (secs, rate, ch) in enumerate(PARAMS):
        wav = os.path.join(work, "src%d.wav" % p)
        run(FFMPEG + ["-f", "lavfi", "-i", "sine=frequency=%d:sample_rate=%d:duration=%s" % (300 + 70 * p, rate, secs),
                      "-ac", str(ch)] + BITEXACT + ["-c:a", "pcm_s16le", wav])
        bases[("wavsrc", p)] = wav
        for fmt, (ext, codec) in FORMATS.items():
            out = os.path.join(work, "base%d.%s" % (p, ext))
            if fmt == "mpc":
                if not have("mpcenc"):
                    continue
                if rate not in (32000, 44100, 48000):
                    continue  # mpcenc's sample rates
                run(["mpcenc", "--silent", "--overwrite", "--quality", "2", wav, out])
            else:
                run(FFMPEG + ["-i", wav] + BITEXACT + codec + [out])
            bases[(fmt, p)] = out
    for name, spec in (("cover.jpg", "color=c=0x3060a0:s=64x64"), ("cover.png", "color=c=0xa03060:s=32x32"),
                       ("embed.jpg", "testsrc=size=48x48:rate=1"), ("embed.png", "color=c=0x60a030:s=40x30")):
        run(FFMPEG + ["-f", "lavfi", "-i", spec, "-frames:v", "1", "-fflags", "+bitexact", "-flags:v", "+bitexact",
                      os.path.join(work, name)])
    return bases


# ---------------------------------------------------------------------------------------------- taggers -------

def pick_keys(rng, vocab, lo=0, hi=12):
    return [rng.choice(vocab) for _ in range(rng.randint(lo, hi))]


def vorbis_pairs(rng, charset="any"):
    pairs = []
    for k in pick_keys(rng, VORBIS_KEYS, 0, 14):
        for v in values(rng, k):
            pairs.append((case(rng, k), restrict(v, charset)))
    rng.shuffle(pairs)
    return pairs


def pin_mp4_times(path):
    """AtomicParsley stamps moov.mvhd's times with the current time: set them to 0."""
    with open(path, "r+b") as fh:
        data = fh.read()
        pos = 0
        while pos + 8 <= len(data):
            size, kind = struct.unpack(">I4s", data[pos:pos + 8])
            if kind == b"moov":
                sub = pos + 8
                while sub + 8 <= pos + size:
                    ssize, skind = struct.unpack(">I4s", data[sub:sub + 8])
                    if skind == b"mvhd":
                        width = 8 if data[sub + 8] == 1 else 4
                        fh.seek(sub + 12)
                        fh.write(b"\0" * (2 * width))
                        return
                    sub += ssize
            if size < 8:
                break
            pos += size


def id3_text_bytes(text, enc):
    if enc == 0:
        return text.encode("latin-1", "replace")
    if enc == 1:
        return b"\xff\xfe" + text.encode("utf-16-le", "surrogatepass")
    if enc == 2:
        return text.encode("utf-16-be", "surrogatepass")
    return text.encode("utf-8", "surrogateescape")


def id3_term(enc):
    return b"\0\0" if enc in (1, 2) else b"\0"


def syncsafe(n):
    return bytes([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f])


def raw_id3(rng, work, fmt):
    """A hand-written ID3v2.2/2.3/2.4 tag: any encoding in any version, NUL- or '/'-separated values, TYER+TDAT+TIME,
    UFID, COMM, TXXX, APIC/PIC, invalid UTF-8 bytes. Returns (tag bytes, manifest)."""
    ver = rng.choice([2, 3, 4])
    frames, desc = [], []
    for fid in pick_keys(rng, ID3_TEXT + ["TYER", "TDAT", "TIME", "TORY", "TDRC", "TDOR", "TXXX", "COMM", "UFID",
                                          "APIC", "TXXX", "COMM"], 0, 14):
        enc = rng.choice([0, 1, 2, 3]) if rng.random() < 0.8 else rng.choice([0, 1]) 
        if fid == "TXXX":
            d = rng.choice(TXXX_DESCS)
            vals = values(rng, d)
            body = bytes([enc]) + id3_text_bytes(d, enc) + id3_term(enc) + id3_term(enc).join(
                id3_text_bytes(v, enc) for v in vals)
            desc.append([fid, enc, d, vals])
        elif fid == "COMM":
            d = rng.choice(["", "", "iTunNORM", "description", "Ümlaut", "ID3v1 Comment"])
            lang = rng.choice(LANGS)
            v = value(rng)
            body = bytes([enc]) + lang.encode("latin-1") + id3_text_bytes(d, enc) + id3_term(enc) + id3_text_bytes(v, enc)
            desc.append([fid, enc, lang, d, v])
        elif fid == "UFID":
            owner = rng.choice(UFID_OWNERS)
            ident = rng.choice(MBIDS)
            body = owner.encode("latin-1") + b"\0" + ident.encode()
            desc.append([fid, owner, ident])
        elif fid == "APIC":
            pic = rng.choice(["embed.jpg", "embed.png"])
            data = open(os.path.join(work, pic), "rb").read()
            mime = "image/jpeg" if pic.endswith("jpg") else "image/png"
            if ver == 2:
                body = bytes([0]) + (b"JPG" if mime == "image/jpeg" else b"PNG") + bytes([3]) + b"cover\0" + data
            else:
                body = bytes([0]) + mime.encode() + b"\0" + bytes([3]) + b"cover\0" + data
            desc.append([fid, pic])
        else:
            if ver != 4 and fid in ("TDRC", "TDOR", "TSOP", "TSOA", "TSOT", "TMOO") and rng.random() < 0.5:
                pass  # keep: v2.4 frames in older tags happen in the wild
            vals = values(rng, fid)
            sep = id3_term(enc) if ver == 4 or rng.random() < 0.5 else "/".encode("utf-16-be" if enc == 2 else
                                                                                  "utf-16-le" if enc == 1 else "ascii")
            if enc == 1:
                body = bytes([enc]) + sep.join(id3_text_bytes(v, enc) for v in vals)
            else:
                body = bytes([enc]) + sep.join(id3_text_bytes(v, enc) for v in vals)
            if enc == 3 and rng.random() < 0.1:
                body += b"\xff\xfe\xc3("  # invalid UTF-8
            desc.append([fid, enc, vals])
        if ver == 2:
            name = ID3_V22.get(fid)
            if name is None:
                continue
            frames.append(name.encode() + len(body).to_bytes(3, "big") + body)
        elif ver == 3:
            frames.append(fid.encode() + len(body).to_bytes(4, "big") + b"\0\0" + body)
        else:
            frames.append(fid.encode() + syncsafe(len(body)) + b"\0\0" + body)
    payload = b"".join(frames) + b"\0" * rng.choice([0, 0, 16, 1024])
    return b"ID3" + bytes([ver, 0, 0]) + syncsafe(len(payload)) + payload, {"version": "2.%d" % ver, "frames": desc}


def mutagen_id3_tag(rng, work):
    tag = ID3()
    desc = []
    ver = rng.choice([3, 4])
    for fid in pick_keys(rng, ID3_TEXT + ["TYER", "TDAT", "TIME", "TORY", "TDRC", "TDOR", "TXXX", "COMM", "UFID",
                                          "APIC"], 0, 14):
        enc = rng.choice([0, 1, 2, 3]) if ver == 4 else rng.choice([0, 1])
        cs = "latin1" if enc == 0 else "any"
        if fid == "TXXX":
            d = rng.choice(TXXX_DESCS)
            vals = [restrict(v, cs) for v in values(rng, d)]
            tag.add(TXXX(encoding=enc, desc=restrict(d, cs), text=vals))
            desc.append([fid, enc, d, vals])
        elif fid == "COMM":
            d, lang, v = rng.choice(["", "", "iTunNORM", "description"]), rng.choice(["eng", "deu", "XXX"]), value(rng, cs)
            tag.add(COMM(encoding=enc, lang=lang, desc=d, text=[v]))
            desc.append([fid, enc, lang, d, v])
        elif fid == "UFID":
            owner, ident = rng.choice(UFID_OWNERS), rng.choice(MBIDS)
            tag.add(UFID(owner=owner, data=ident.encode()))
            desc.append([fid, owner, ident])
        elif fid == "APIC":
            pic = rng.choice(["embed.jpg", "embed.png"])
            tag.add(APIC(encoding=enc, mime="image/jpeg" if pic.endswith("jpg") else "image/png",
                         type=PictureType.COVER_FRONT, desc=restrict(rng.choice(["", "front", "Cover"]), cs),
                         data=open(os.path.join(work, pic), "rb").read()))
            desc.append([fid, pic])
        else:
            vals = [restrict(v, cs) for v in values(rng, fid)]
            tag.add(Frames[fid](encoding=enc, text=vals))
            desc.append([fid, enc, vals])
    return tag, ver, {"version": "2.%d" % ver, "frames": desc}


def ape_items(rng, charset="any"):
    items = {}
    for k in pick_keys(rng, APE_KEYS, 0, 12):
        items[case(rng, k) if rng.random() < 0.3 else k] = [restrict(v, charset) for v in values(rng, k)]
    return items


def tag_file(rng, tagger, fmt, path, work, wavsrc):
    """Applies `tagger` to the file at `path` (a copy of the base); returns the manifest's description."""
    if tagger == "none":
        return {}
    if tagger == "raw-id3":
        data, desc = raw_id3(rng, work, fmt)
        with open(path, "rb") as f:
            audio = f.read()
        with open(path, "wb") as f:
            f.write(data + audio)
        return desc
    if tagger == "mutagen-id3":
        tag, ver, desc = mutagen_id3_tag(rng, work)
        if fmt == "mp3":
            tag.save(path, v2_version=ver, padding=lambda info: 0)
        else:
            f = WAVE(path) if fmt == "wav" else AIFF(path)
            f.add_tags()
            for fr in tag.values():
                f.tags.add(fr)
            f.save(v2_version=ver, padding=lambda info: 0)
        return desc
    if tagger == "eyed3":
        ver = rng.choice(["2.3", "2.4"])
        encoding = rng.choice(["latin1", "utf8", "utf16", "utf16-be"] if ver == "2.4" else ["latin1", "utf16"])
        args = ["eyeD3", "--quiet", "--no-color", "--no-config", "--v2", "--to-v%s" % ver, "--encoding", encoding]
        opts = {"--artist": "artist", "--album": "album", "--title": "title", "--album-artist": "artist",
                "--composer": "composer", "--genre": "genre", "--track": "tracknum", "--disc-num": "tracknum",
                "--release-date": "date", "--orig-release-date": "date", "--recording-date": "date",
                "--publisher": "label"}
        for o in pick_keys(rng, list(opts) + ["--user-text-frame", "--comment", "--unique-file-id", "--add-image",
                                               "--text-frame"], 0, 10):
            if o == "--user-text-frame":
                args.append("%s=%s:%s" % (o, rng.choice(TXXX_DESCS[:18]).replace(":", ""), val_cli(rng, "txxx")))
            elif o == "--comment":
                args.append("%s=%s" % (o, val_cli(rng, "comment").replace(":", "\\:")))
            elif o == "--unique-file-id":
                args.append("%s=%s:%s" % (o, rng.choice(UFID_OWNERS[:2]).replace(":", "\\:"), rng.choice(MBIDS[:12])))
            elif o == "--add-image":
                args.append("%s=%s:FRONT_COVER" % (o, os.path.join(work, rng.choice(["embed.jpg", "embed.png"]))))
            elif o == "--text-frame":
                args.append("%s=%s:%s" % (o, rng.choice(["TMOO", "TPE3", "TIT1", "TSOP", "TSOA", "TPE4"]),
                                          val_cli(rng, "text").replace(":", "")))
            elif o == "--track":
                args.append("%s=%d" % (o, rng.randint(0, 30)))
                if rng.random() < 0.5:
                    args.append("--track-total=%d" % rng.randint(0, 30))
            elif o == "--disc-num":
                args.append("%s=%d" % (o, rng.randint(0, 5)))
            elif o in ("--release-date", "--orig-release-date", "--recording-date"):
                args.append("%s=%s" % (o, rng.choice(["1999", "1999-06-12", "2004-09", "2010-01-01T12:00"])))
            elif o == "--genre":
                args.append("%s=%s" % (o, rng.choice(GENRES[:12])))
            else:
                args.append("%s=%s" % (o, val_cli(rng, opts[o])))
        if encoding == "latin1":
            args = [restrict(a, "latin1") for a in args]
        run(args + [path])
        return {"args": args[2:]}
    if tagger == "id3v2":
        args = ["id3v2"] + ([rng.choice(["-1", "-2"])] if rng.random() < 0.5 else [])
        for o in pick_keys(rng, ["-a", "-A", "-t", "-c", "-g", "-y", "-T", "--TXXX", "--TPE2", "--TCOM", "--TPOS",
                                 "--TCON", "--TSOP", "--TPUB"], 0, 9):
            if o == "-g":
                args += [o, str(rng.randint(0, 200))]
            elif o == "-y":
                args += [o, str(rng.randint(1900, 2030))]
            elif o == "-T":
                args += [o, rng.choice(TRACKS[:10]).strip() or "1"]
            elif o == "--TXXX":
                args += [o, "%s:%s" % (rng.choice(TXXX_DESCS[:18]), val_cli(rng, "latin1"))]
            else:
                args += [o, val_cli(rng, "latin1")]
        run([a.encode("latin-1", "replace") for a in args] + [path.encode()])
        return {"args": args[1:]}
    if tagger == "id3tool":
        if not have("id3tool"):
            return tag_file(rng, "id3v2", fmt, path, work, wavsrc)
        args = ["id3tool"]
        for o in rng.sample(["-t", "-a", "-r", "-y", "-c", "-G"], rng.randint(1, 6)):
            if o == "-y":
                args += [o, str(rng.randint(1900, 2030))]
            elif o == "-c":
                args += [o, str(rng.randint(1, 30))]
            elif o == "-G":
                args += [o, rng.choice(["Rock", "Pop", "Jazz", "Blues"])]
            else:
                args += [o, val_cli(rng, "latin1")[:30]]
        run([a.encode("latin-1", "replace") for a in args] + [path.encode()])
        return {"args": args[1:]}
    if tagger == "kid3":
        if not have("kid3-cli"):
            return tag_file(rng, "ffmpeg", fmt, path, work, wavsrc)
        # kid3 keeps its configuration in $HOME: one fresh HOME per run, every setting given each time.
        ver = rng.choice(["ID3v2_3_0", "ID3v2_4_0"])
        encoding = rng.choice(["TE_ISO8859_1", "TE_UTF16", "TE_UTF8"])
        cmds = ["-c", "config Tag.id3v2Version %s" % ver, "-c", "config Tag.textEncoding %s" % encoding,
                "-c", "config Tag.genreNotNumeric true", "-c", "tag 2"]
        names = ["title", "artist", "album", "album artist", "comment", "date", "track number", "genre",
                 "disc number", "composer", "conductor", "grouping", "mood", "original date", "sort artist",
                 "sort album", "sort album artist", "MusicBrainz Track Id", "MusicBrainz Artist Id", "Catalog Number",
                 "publisher", "performer", "work", "Custom Thing"]
        told = []
        for n in pick_keys(rng, names, 0, 10):
            v = "|".join(val_cli(rng, n).replace("'", "").replace("\\", "").replace("|", "")
                         for _ in range(1 if rng.random() < 0.8 else 2))
            cmds += ["-c", "set '%s' '%s'" % (n, v)]
            told.append([n, v])
        cmds += ["-c", "save"]
        home = tempfile.mkdtemp(prefix="kid3-home-", dir=work)
        try:
            run(["kid3-cli"] + cmds + [path], env_extra={"HOME": home, "XDG_CONFIG_HOME": home + "/.config"})
        finally:
            shutil.rmtree(home, ignore_errors=True)
        return {"id3": ver, "encoding": encoding, "set": told}
    if tagger == "ffmpeg":
        md = []
        for k in pick_keys(rng, FFMPEG_KEYS, 0, 10):
            md.append([case(rng, k) if rng.random() < 0.2 else k, val_cli(rng, k)])
        extra = []
        if fmt == "mp3":
            extra = ["-id3v2_version", rng.choice(["3", "4"]), "-write_id3v1", rng.choice(["0", "1"])]
        elif fmt == "aiff":
            extra = ["-write_id3v2", "1", "-id3v2_version", rng.choice(["3", "4"])]
        tmp = path + ".tmp." + os.path.splitext(path)[1][1:]
        args = FFMPEG + ["-i", path, "-map", "0", "-c", "copy"] + BITEXACT + extra
        for k, v in md:
            args += ["-metadata", "%s=%s" % (k, v)]
        if fmt == "oga":
            args += ["-f", "ogg"]
        run(args + [tmp])
        os.replace(tmp, path)
        return {"metadata": md, "extra": extra}
    if tagger == "metaflac":
        pairs = vorbis_pairs(rng, "argv")
        if rng.random() < 0.1:
            pairs.append((case(rng, "CUESHEET"), cuesheet(rng)))
        args = ["metaflac", "--remove-all-tags"] + ["--set-tag=%s=%s" % (k, v) for k, v in pairs
                                                    if "=" not in k]
        if rng.random() < 0.2:
            args.append("--import-picture-from=%s" % os.path.join(work, rng.choice(["embed.jpg", "embed.png"])))
        run(args + [path])
        return {"args": args[1:]}
    if tagger == "vorbiscomment":
        pairs = vorbis_pairs(rng, "argv")
        args = ["vorbiscomment", "-w"]
        for k, v in pairs:
            if "\n" in v or "\r" in v:
                continue
            args += ["-t", "%s=%s" % (k, v)]
        run(args + [path])
        return {"args": args[2:]}
    if tagger == "opusenc":
        args = ["opusenc", "--quiet", "--serial", "4242", "--bitrate", "24"]
        for o in pick_keys(rng, ["--title", "--artist", "--album", "--genre", "--date", "--tracknumber", "--comment",
                                 "--comment", "--picture"], 0, 9):
            if o == "--comment":
                k = case(rng, rng.choice(VORBIS_KEYS))
                args += [o, "%s=%s" % (k, val_cli(rng, k))]
            elif o == "--picture":
                args += [o, "3|%s||front|%s" % ("image/jpeg", os.path.join(work, "embed.jpg"))]
            else:
                args += [o, val_cli(rng, o[2:])]
        run(args + [wavsrc, path])
        return {"args": args[6:]}
    if tagger == "atomicparsley":
        args = []
        simple = {"--artist": "artist", "--title": "title", "--album": "album", "--genre": "genre",
                  "--composer": "composer", "--comment": "comment", "--albumArtist": "artist", "--grouping": "g",
                  "--year": "date", "--description": "d", "--copyright": "c"}
        for o in pick_keys(rng, list(simple) + ["--tracknum", "--disk", "--sortOrder", "--rDNSatom", "--artwork"], 0, 10):
            if o == "--tracknum":
                args += [o, rng.choice(["3", "3/12", "0", "12/3"])]
            elif o == "--disk":
                args += [o, rng.choice(["1", "1/2", "2/2"])]
            elif o == "--sortOrder":
                args += [o, rng.choice(["name", "artist", "albumartist", "album", "composer"]), val_cli(rng, "s")]
            elif o == "--rDNSatom":
                args += [o, val_cli(rng, "x") or "x", "name=" + rng.choice(MP4_FREEFORM), "domain=com.apple.iTunes"]
            elif o == "--artwork":
                args += [o, os.path.join(work, "embed.jpg")]
            else:
                args += [o, val_cli(rng, simple[o]) or " "]
        if args:
            run(["AtomicParsley", path] + args + ["--overWrite"])
            pin_mp4_times(path)
        return {"args": args}
    if tagger == "mutagen-mp4":
        m = MP4(path)
        desc = []
        for a in pick_keys(rng, MP4_ATOMS + ["trkn", "disk", "----", "----", "covr", "tmpo", "cpil"], 0, 12):
            if a == "trkn" or a == "disk":
                v = [(rng.randint(0, 20), rng.randint(0, 20))]
                m[a] = v
            elif a == "----":
                name = rng.choice(MP4_FREEFORM)
                v = values(rng, name)
                m["----:com.apple.iTunes:" + name] = [MP4FreeForm(x.encode("utf-8", "surrogateescape")) for x in v]
                a = "----:com.apple.iTunes:" + name
            elif a == "covr":
                pic = rng.choice(["embed.jpg", "embed.png"])
                m[a] = [MP4Cover(open(os.path.join(work, pic), "rb").read(),
                                 MP4Cover.FORMAT_JPEG if pic.endswith("jpg") else MP4Cover.FORMAT_PNG)]
                v = pic
            elif a == "tmpo":
                v = [rng.randint(0, 300)]
                m[a] = v
            elif a == "cpil":
                v = rng.random() < 0.5
                m[a] = v
            else:
                v = values(rng, a)
                m[a] = v
            desc.append([a, v])
        m.save()
        return {"atoms": desc}
    if tagger in ("mutagen-flac", "mutagen-ogg", "mutagen-opus", "mutagen-oggflac"):
        kind = {"mutagen-flac": FLAC, "mutagen-ogg": OggVorbis, "mutagen-opus": OggOpus, "mutagen-oggflac": OggFLAC}
        f = kind[tagger](path)
        if f.tags is None:
            f.add_tags()
        f.tags.clear()
        pairs = vorbis_pairs(rng)
        pairs = [(k, v) for k, v in pairs if "=" not in k and "~" not in k]
        if tagger == "mutagen-flac" and rng.random() < 0.1:
            pairs.append((case(rng, "CUESHEET"), cuesheet(rng)))
        for k, v in pairs:
            f.tags.append((k, v))
        desc = {"comments": pairs}
        if tagger != "mutagen-oggflac" and rng.random() < 0.2:
            pic = Picture()
            pic.type, pic.mime, pic.desc = 3, "image/png", "front"
            pic.data = open(os.path.join(work, "embed.png"), "rb").read()
            if tagger == "mutagen-flac":
                f.add_picture(pic)
            else:
                import base64
                f.tags.append(("METADATA_BLOCK_PICTURE", base64.b64encode(pic.write()).decode()))
            desc["picture"] = "embed.png"
        f.save(**({"padding": lambda info: 0} if tagger != "mutagen-flac" else {"padding": lambda info: 0}))
        return desc
    if tagger == "mkvpropedit":
        from xml.sax.saxutils import escape
        told, simple = [], []
        for k in pick_keys(rng, ["TITLE", "ARTIST", "ALBUM", "ALBUM_ARTIST", "DATE_RELEASED", "DATE_RECORDED",
                                 "GENRE", "COMPOSER", "PART_NUMBER", "COMMENT", "LABEL", "MOOD", "ARTISTSORT",
                                 "MUSICBRAINZ_TRACKID", "REPLAYGAIN_TRACK_GAIN", "random"], 0, 8):
            v = "".join(c for c in val_cli(rng, k) if c >= " " or c in "\t\n")
            simple.append("<Simple><Name>%s</Name><String>%s</String></Simple>" % (escape(k), escape(v)))
            told.append([k, v])
        target = rng.choice([50, 30])
        xml = path + ".tags.xml"
        with open(xml, "w", encoding="utf-8") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<Tags><Tag><Targets><TargetTypeValue>%d</TargetTypeValue>'
                    '</Targets>%s</Tag></Tags>\n' % (target, "".join(simple)))
        args = ["mkvpropedit", "-q", path, "--tags", "global:" + xml]
        if rng.random() < 0.3:
            title = val_cli(rng, "title").replace("\n", " ")
            args += ["--edit", "info", "--set", "title=" + title]
            told.append(["segment title", title])
        try:
            run(args)
        finally:
            os.remove(xml)
        return {"target": target, "tags": told}
    if tagger == "raw-flac":
        return raw_flac(rng, path)
    if tagger == "wvtag":
        args = ["wvtag", "-q", "-y"]
        for k in pick_keys(rng, APE_KEYS, 0, 10):
            args += ["-w", "%s=%s" % (k, val_cli(rng, k))]
        if len(args) > 3:
            run(args + [path])
        return {"args": args[3:]}
    if tagger == "mutagen-ape":
        items = ape_items(rng)
        tag = APEv2()
        for k, v in items.items():
            tag[k] = "\0".join(v)
        if rng.random() < 0.15:
            tag["Cover Art (Front)"] = APEValue(b"cover.jpg\0" + open(os.path.join(work, "embed.jpg"), "rb").read(),
                                                BINARY)
        desc = {"items": items}
        if fmt == "mp3" and rng.random() < 0.3:
            t2, ver, d2 = mutagen_id3_tag(rng, work)
            t2.save(path, v2_version=ver, padding=lambda info: 0)
            desc["id3"] = d2
        tag.save(path)
        return desc
    raise ValueError(tagger)


def cuesheet(rng):
    """An embedded cue sheet (FLAC's CUESHEET comment): MPD shows the file's tracks as songs of a folder."""
    lines = ['PERFORMER "%s"' % rng.choice(WORDS), 'TITLE "%s"' % rng.choice(WORDS), 'FILE "x.flac" WAVE']
    for t in range(1, rng.randint(1, 3) + 1):
        lines += ["  TRACK %02d AUDIO" % t, '    TITLE "%s"' % rng.choice(WORDS),
                  "    INDEX 01 00:00:%02d" % ((t - 1) * 10)]
    return "\n".join(lines) + "\n"


def val_cli(rng, key):
    v = field(rng, key)
    v = v.replace("\0", "")
    if v.startswith("-"):
        v = " " + v
    return v


def raw_flac(rng, path):
    """FLAC Vorbis comments written byte by byte: repeated keys, mixed case, invalid UTF-8, keys without '='."""
    data = open(path, "rb").read()
    pos, blocks = 4, []
    while True:
        header = data[pos]
        length = int.from_bytes(data[pos + 1:pos + 4], "big")
        blocks.append((header & 0x7F, data[pos + 4:pos + 4 + length]))
        pos += 4 + length
        if header & 0x80:
            break
    audio = data[pos:]
    comments = []
    for k, v in vorbis_pairs(rng):
        raw = ("%s=%s" % (k, v)).encode("utf-8", "surrogateescape")
        r = rng.random()
        if r < 0.05:
            raw += b"\xc3\x28\xff"
        elif r < 0.08:
            raw = k.encode()  # no '='
        elif r < 0.1:
            raw = b"=" + v.encode()
        comments.append(raw)
    vendor = rng.choice([b"reference libFLAC 1.4.2 20221022", b"", b"tagfuzz"])
    body = struct.pack("<I", len(vendor)) + vendor + struct.pack("<I", len(comments))
    for c in comments:
        body += struct.pack("<I", len(c)) + c
    blocks = [b for b in blocks if b[0] not in (1, 4)]
    blocks.insert(1, (4, body))
    out = b"fLaC"
    for i, (kind, content) in enumerate(blocks):
        out += bytes([kind | (0x80 if i == len(blocks) - 1 else 0)]) + len(content).to_bytes(3, "big") + content
    open(path, "wb").write(out + audio)
    return {"comments": [c.decode("utf-8", "backslashreplace") for c in comments], "vendor": vendor.decode()}


# --------------------------------------------------------------------------------------------- layout ---------

FOLDER_WORDS = ["Artist", "Album", "Sigur Rós", "日本語", "It's \"quoted\"", "Various", "a b", "x&y", "#1", "Ñandú",
                "deep", "Vol. 2", "[brackets]", "(paren)", "+plus+", "semi;colon", "ünïcödé", "100%"]


def folder_for(seed, index, count):
    """Folders of ~40 files, sometimes nested."""
    group = index // 40
    rng = random.Random("%s:folder:%d" % (seed, group))
    top = "%02d %s" % (group % 100, rng.choice(FOLDER_WORDS))
    if rng.random() < 0.4:
        return top + "/" + rng.choice(FOLDER_WORDS) + " %d" % (group // 100)
    if group >= 100:
        top += " %d" % (group // 100)
    return top


def plan(seed, index, count):
    rng = random.Random("%s:%d" % (seed, index))
    fmts = [f for f in FORMAT_WEIGHTS if f != "mpc" or have("mpcenc")]
    fmt = rng.choices(fmts, [FORMAT_WEIGHTS[f] for f in fmts])[0]
    taggers = TAGGERS[fmt]
    tagger = rng.choices(list(taggers), list(taggers.values()))[0]
    params = rng.randrange(len(PARAMS))
    name = "%05d %s" % (index, rng.choice(WORDS + ["song", "track", "x"]).replace("/", "_").replace("\t", " ")
                        .replace("\\", "_").replace("\n", " ").strip())
    rel = "%s/%s.%s" % (folder_for(seed, index, count), name, FORMATS[fmt][0])
    return rng, fmt, tagger, params, rel


def make_one(args):
    seed, index, count, music, work, bases = args
    rng, fmt, tagger, params, rel = plan(seed, index, count)
    if (fmt, params) not in bases:
        params = 1
    final = os.path.join(music, rel)
    os.makedirs(os.path.dirname(final), exist_ok=True)
    # tagged under a plain name (kid3 fails on some paths), then moved into place
    path = os.path.join(work, "t%06d.%s" % (index, FORMATS[fmt][0]))
    if tagger != "opusenc":
        shutil.copyfile(bases[(fmt, params)], path)
    entry = {"path": rel, "format": fmt, "tagger": tagger, "params": PARAMS[params]}
    try:
        entry["told"] = tag_file(rng, tagger, fmt, path, work, bases[("wavsrc", params)])
    except subprocess.CalledProcessError as e:
        entry["tagger_failed"] = (e.stderr or b"").decode("utf-8", "replace")[-300:]
        if not os.path.exists(path) or tagger == "opusenc":
            shutil.copyfile(bases[(fmt, params)], path)
    os.replace(path, final)
    path = final
    mt = BASE_TIME + rng.randrange(0, 86400 * 365)
    os.utime(path, (mt, mt))
    entry["mtime"] = mt
    return entry


# ------------------------------------------------------------------------------------------- playlists --------

def make_playlists(seed, music, songs, stored):
    rng = random.Random("%s:playlists" % seed)
    folders = sorted({os.path.dirname(s) for s in songs})
    made = []
    n = max(6, len(songs) // 25)
    for i in range(n):
        folder = rng.choice(folders + [""])
        kind = rng.choice(["m3u", "m3u8", "m3u8", "pls", "xspf", "cue", "m3u"])
        lines, entries = [], []
        for _ in range(rng.randint(0, 12)):
            r = rng.random()
            song = rng.choice(songs)
            if r < 0.45:
                e = os.path.relpath(song, folder or ".")          # relative to the playlist
            elif r < 0.55:
                e = song                                          # relative to the music root
            elif r < 0.65:
                e = os.path.join(music, song)                     # absolute, inside the music directory
            elif r < 0.72:
                e = "missing/%d.mp3" % rng.randint(0, 99)
            elif r < 0.8:
                e = rng.choice(["http://example.com/stream.mp3", "https://example.org/a%20b.ogg",
                                "ftp://x/y.flac", "nosuchscheme://z"])
            elif r < 0.86:
                e = "../" + song
            elif r < 0.9:
                e = "/nonexistent/abs.mp3"
            elif r < 0.92:
                e = "./" + os.path.relpath(song, folder or ".")
            elif r < 0.94:
                e = "file://" + os.path.join(music, song)
            elif r < 0.95:
                e = os.path.relpath(song, folder or ".").replace("/", "\\")
            else:
                e = " " + os.path.relpath(song, folder or ".") + " "
            entries.append(e)
        name = "%s/pl%03d %s.%s" % (folder, i, rng.choice(["list", "Mix", "ünï", "a b"]), kind) if folder else \
            "pl%03d %s.%s" % (i, rng.choice(["list", "Mix", "ünï"]), kind)
        eol = "\r\n" if rng.random() < 0.25 else "\n"
        bom = "\ufeff" if rng.random() < 0.2 else ""
        if kind in ("m3u", "m3u8"):
            if rng.random() < 0.6:
                lines.append("#EXTM3U")
            for e in entries:
                if rng.random() < 0.5:
                    lines.append("#EXTINF:%s,%s - %s" % (rng.choice(["123", "-1", "0", "2.5", "abc", ""]),
                                                       rng.choice(WORDS), rng.choice(WORDS)))
                if rng.random() < 0.1:
                    lines.append("# a comment")
                if rng.random() < 0.05:
                    lines.append("")
                lines.append(e)
            text = bom + eol.join(lines) + (eol if rng.random() < 0.8 else "")
        elif kind == "pls":
            lines = ["[playlist]"]
            for j, e in enumerate(entries, 1):
                lines.append("File%d=%s" % (j, e))
                if rng.random() < 0.6:
                    lines.append("Title%d=%s" % (j, rng.choice(WORDS)))
                if rng.random() < 0.5:
                    lines.append("Length%d=%s" % (j, rng.choice(["-1", "0", "180", "2"])))
            lines += ["NumberOfEntries=%d" % len(entries), "Version=2"]
            text = bom + eol.join(lines) + eol
        elif kind == "xspf":
            from xml.sax.saxutils import escape
            tracks = "".join("<track><location>%s</location>%s</track>" % (
                escape(e if "://" in e else "file://" + e if e.startswith("/") else e),
                "<title>%s</title>" % escape(rng.choice(WORDS)) if rng.random() < 0.5 else "") for e in entries)
            text = ('<?xml version="1.0" encoding="UTF-8"?>\n<playlist version="1" xmlns="http://xspf.org/ns/0/">'
                    '<trackList>%s</trackList></playlist>\n' % tracks)
        else:  # cue: tracks of one existing file, sometimes a missing one
            target = rng.choice(entries[:1] or [os.path.relpath(rng.choice(songs), folder or ".")])
            lines = ['PERFORMER "%s"' % rng.choice(WORDS), 'TITLE "%s"' % rng.choice(WORDS),
                     'REM DATE %s' % rng.choice(DATES[:4]), 'REM GENRE %s' % rng.choice(GENRES[:4]),
                     'FILE "%s" %s' % (target, rng.choice(["WAVE", "MP3"]))]
            for t in range(1, rng.randint(1, 4) + 1):
                lines += ["  TRACK %02d AUDIO" % t, '    TITLE "%s"' % rng.choice(WORDS)]
                if rng.random() < 0.5:
                    lines.append('    PERFORMER "%s"' % rng.choice(WORDS))
                lines.append("    INDEX 01 00:%02d:%02d" % (0, (t - 1) * 10))
            text = bom + eol.join(lines) + eol
        path = os.path.join(music, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        mt = BASE_TIME + rng.randrange(0, 86400 * 365)
        os.utime(path, (mt, mt))
        made.append({"path": name, "format": "playlist-" + kind, "tagger": "generate.py", "entries": entries,
                     "mtime": mt})
    # stored playlists (playlist_directory): relative to the music root, absolute, URLs, missing
    for i in range(4):
        lines = []
        for _ in range(rng.randint(0, 8)):
            r = rng.random()
            song = rng.choice(songs)
            lines.append(song if r < 0.6 else os.path.join(music, song) if r < 0.75 else
                         "http://example.com/s%d.mp3" % i if r < 0.85 else "missing/%d.flac" % i)
        path = os.path.join(stored, "stored%d.m3u" % i)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + ("\n" if lines else ""))
        mt = BASE_TIME + i
        os.utime(path, (mt, mt))
        made.append({"path": "stored:stored%d" % i, "format": "stored-m3u", "tagger": "generate.py",
                     "entries": lines, "mtime": mt})
    # odd files: symlinks (inside, dangling, to a folder), dot files, zero-byte, random bytes, truncated songs
    for i in range(max(3, len(songs) // 100)):
        folder = rng.choice(folders)
        song = rng.choice(songs)
        kind = rng.choice(["link", "dangling", "dirlink", "dot", "empty", "garbage", "truncated"])
        ext = rng.choice(["mp3", "flac", "ogg", "m4a", "wv", "opus"])
        name = "%s/x%03d %s.%s" % (folder, i, kind, ext)
        path = os.path.join(music, name)
        if kind == "link":
            name = "%s/x%03d link.%s" % (folder, i, song.rsplit(".", 1)[1])
            path = os.path.join(music, name)
            os.symlink(os.path.relpath(os.path.join(music, song), os.path.dirname(path)), path)
        elif kind == "dangling":
            os.symlink("nonexistent-target." + ext, path)
        elif kind == "dirlink":
            name = "%s/x%03d dirlink" % (folder, i)
            path = os.path.join(music, name)
            os.symlink(os.path.relpath(os.path.join(music, rng.choice(folders)), os.path.dirname(path)), path)
        elif kind == "dot":
            name = "%s/.x%03d hidden.%s" % (folder, i, song.rsplit(".", 1)[1])
            path = os.path.join(music, name)
            shutil.copyfile(os.path.join(music, song), path)
        elif kind == "empty":
            open(path, "wb").close()
        elif kind == "garbage":
            with open(path, "wb") as f:
                f.write(bytes(rng.randrange(256) for _ in range(rng.randint(1, 5000))))
        else:
            name = "%s/x%03d truncated.%s" % (folder, i, song.rsplit(".", 1)[1])
            path = os.path.join(music, name)
            data = open(os.path.join(music, song), "rb").read()
            with open(path, "wb") as f:
                f.write(data[:rng.randint(0, len(data))])
        mt = BASE_TIME + rng.randrange(0, 86400)
        os.utime(path, (mt, mt), follow_symlinks=False)
        made.append({"path": name, "format": "odd-" + kind, "tagger": "generate.py", "target": song, "mtime": mt})
    # folder covers
    for folder in folders:
        r = rng.random()
        if r < 0.3:
            made.append({"path": folder + "/cover.jpg", "format": "cover", "tagger": "ffmpeg"})
        elif r < 0.45:
            made.append({"path": folder + "/cover.png", "format": "cover", "tagger": "ffmpeg"})
    return made


def tree_digest(root):
    """sha256 over every path, mtime and content under root (the absolute music directory in playlists replaced by a
    token, so trees generated in different places compare equal)."""
    music = os.path.join(root, "music").encode()
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if dirpath == root:
            dirnames[:] = [d for d in dirnames if d in ("music", "playlists")]
            filenames = []
        links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        for name in sorted(filenames + links) + [""]:
            path = os.path.join(dirpath, name) if name else dirpath
            rel = os.path.relpath(path, root)
            if rel in ("manifest.jsonl", "."):
                continue
            h.update(rel.encode("utf-8", "surrogateescape") + b"\0%d\0" % int(os.lstat(path).st_mtime))
            if os.path.islink(path):
                h.update(b"-> " + os.readlink(path).encode("utf-8", "surrogateescape"))
            elif name:
                with open(path, "rb") as f:
                    h.update(f.read().replace(music, b"<music_directory>"))
    return h.hexdigest()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--digest":
        print(tree_digest(os.path.abspath(sys.argv[2])))
        return
    if len(sys.argv) != 4:
        sys.exit("usage: generate.py SEED COUNT DIR")
    seed, count, root = sys.argv[1], int(sys.argv[2]), os.path.abspath(sys.argv[3])
    print("tag fuzz: seed %s, %d files into %s" % (seed, count, root), flush=True)
    music, stored = os.path.join(root, "music"), os.path.join(root, "playlists")
    if os.path.exists(music) and os.listdir(music):
        sys.exit("generate.py: %s is not empty" % music)
    os.makedirs(music, exist_ok=True)
    os.makedirs(stored, exist_ok=True)
    work = tempfile.mkdtemp(prefix="tagfuzz-base-")
    try:
        bases = make_bases(work)
        jobs = [(seed, i, count, music, work, bases) for i in range(count)]
        with ProcessPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            entries = list(pool.map(make_one, jobs, chunksize=16))
        made = make_playlists(seed, music, [e["path"] for e in entries], stored)
        for m in made:
            if m["format"] == "cover":
                shutil.copyfile(os.path.join(work, os.path.basename(m["path"])), os.path.join(music, m["path"]))
                mt = BASE_TIME + 7
                os.utime(os.path.join(music, m["path"]), (mt, mt))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for dirpath, dirnames, _ in sorted(os.walk(music), key=lambda t: -t[0].count("/")):
        mt = BASE_TIME + int(hashlib.sha1(os.path.relpath(dirpath, music).encode()).hexdigest()[:6], 16) % 86400
        os.utime(dirpath, (mt, mt))
    os.utime(stored, (BASE_TIME, BASE_TIME))
    digest = tree_digest(root)
    with open(os.path.join(root, "manifest.jsonl"), "w", encoding="utf-8") as f:
        f.write(json.dumps({"seed": seed, "count": count, "generator": "Tests/TagFuzz/generate.py",
                            "digest": digest}) + "\n")
        for e in entries + made:
            line = json.dumps(e, ensure_ascii=False, sort_keys=True)
            f.write(line.replace(work, "<work>").replace(music, "<music_directory>") + "\n")
    failed = sum(1 for e in entries if "tagger_failed" in e)
    print("tag fuzz: wrote %d songs, %d playlists/covers (%d tagger failures, kept untagged); seed %s; tree %s"
          % (len(entries), len(made), failed, seed, digest), flush=True)


if __name__ == "__main__":
    main()
