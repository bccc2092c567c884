#!/bin/bash
# make_library.sh DIR
#
# Generates NoSignal's deterministic test music library into DIR (created if missing; must be empty).
# Used by the differential harness (`%library` in an .mpdscript, Sources/MPDTesting/TestLibrary.swift),
# by the client tests and by hand:  Tests/Support/make_library.sh /tmp/lib && mpd with music_directory /tmp/lib
#
# Every file is made by the ffmpeg CLI (1–2 s sine clips, bit-exact muxing so no encoder version leaks
# into tags) plus a few bytes written by python3 (the FLAC Vorbis comment blocks, for multi-valued tags
# that ffmpeg cannot write; a corrupt "mp3"). All modification times are fixed with `touch -d`, so
# `Last-Modified:` of songs and directories is the same in every run and for every server.
# Changing anything here changes the library's hash (TestLibrary.swift caches by the script's content).
set -euo pipefail
DIR=${1:?usage: make_library.sh DIR}
mkdir -p "$DIR"
cd "$DIR"
if [ -n "$(ls -A .)" ]; then echo "make_library.sh: $DIR is not empty" >&2; exit 2; fi

FF=(ffmpeg -hide_banner -loglevel error -nostdin -y)
BITEXACT=(-fflags +bitexact -flags:a +bitexact)

# sine FREQ SECONDS — lavfi input arguments for a mono 44.1 kHz sine clip.
sine() { echo "-f lavfi -i sine=frequency=$1:duration=$2:sample_rate=44100"; }

# FLAC with an exact list of Vorbis comments (repeated keys allowed) and optionally an embedded picture.
# flac OUT FREQ SECONDS PICTURE|- KEY=VALUE...
flac() {
    local out=$1 freq=$2 secs=$3 pic=$4; shift 4
    if [ "$pic" = - ]; then
        "${FF[@]}" $(sine "$freq" "$secs") -map_metadata -1 -c:a flac -sample_fmt s16 "${BITEXACT[@]}" "$out"
    else
        "${FF[@]}" $(sine "$freq" "$secs") -i "$pic" -map 0:a -map 1:v -map_metadata -1 -c:a flac -sample_fmt s16 \
            -c:v copy -disposition:v attached_pic -metadata:s:v comment="Cover (front)" "${BITEXACT[@]}" "$out"
    fi
    python3 - "$out" "$@" <<'PY'
import struct, sys
path, comments = sys.argv[1], sys.argv[2:]
data = open(path, "rb").read()
assert data[:4] == b"fLaC"
pos, blocks = 4, []
while True:
    header = data[pos]; length = int.from_bytes(data[pos + 1:pos + 4], "big")
    blocks.append((header & 0x7F, data[pos + 4:pos + 4 + length])); pos += 4 + length
    if header & 0x80: break
audio = data[pos:]
vendor = b"reference libFLAC 1.4.2 20221022"
body = struct.pack("<I", len(vendor)) + vendor + struct.pack("<I", len(comments))
for c in comments:
    raw = c.encode("utf-8"); body += struct.pack("<I", len(raw)) + raw
blocks = [b for b in blocks if b[0] not in (1, 4)]           # drop padding and the old comments
blocks.insert(1, (4, body))
out = b"fLaC"
for i, (kind, content) in enumerate(blocks):
    out += bytes([kind | (0x80 if i == len(blocks) - 1 else 0)]) + len(content).to_bytes(3, "big") + content
open(path, "wb").write(out + audio)
PY
}

# ff OUT FREQ SECONDS CODEC-ARGS... -- -metadata K=V ...   (any other format, tags written by ffmpeg)
ff() {
    local out=$1 freq=$2 secs=$3; shift 3
    local codec=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do codec+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    "${FF[@]}" $(sine "$freq" "$secs") -map_metadata -1 "${codec[@]}" "${BITEXACT[@]}" "$@" "$out"
}
MP3=(-c:a libmp3lame -b:a 32k -id3v2_version 4 -write_id3v1 0)
OGG=(-c:a libvorbis -q:a 0)
OPUS=(-c:a libopus -b:a 24k)
M4A=(-c:a aac -b:a 32k)

MB_ARTIST=a1e2c3d4-0001-4000-8000-000000000001
MB_ALBUM=a1e2c3d4-0002-4000-8000-000000000002

# Pictures: cover.jpg for albumart, a PNG and a JPEG to embed.
"${FF[@]}" -f lavfi -i "color=c=0x3060a0:s=64x64:d=1" -frames:v 1 "${BITEXACT[@]}" -flags +bitexact /tmp/.nosignal-cover-$$.jpg
"${FF[@]}" -f lavfi -i "color=c=0xa03060:s=32x32:d=1" -frames:v 1 -flags +bitexact /tmp/.nosignal-embed-$$.png
"${FF[@]}" -f lavfi -i "color=c=0x60a030:s=48x48:d=1" -frames:v 1 -flags +bitexact /tmp/.nosignal-embed-$$.jpg
trap 'rm -f /tmp/.nosignal-cover-$$.jpg /tmp/.nosignal-embed-$$.png /tmp/.nosignal-embed-$$.jpg' EXIT

# --- Sigur Rós / Ágætis byrjun: flac + ogg + opus, cover.jpg, a playlist file, full tags ----------
A="Sigur Rós/Ágætis byrjun"
mkdir -p "$A"
cp /tmp/.nosignal-cover-$$.jpg "$A/cover.jpg"
flac "$A/01 Intro.flac" 440 2 - \
    "ARTIST=Sigur Rós" "ALBUMARTIST=Sigur Rós" "ALBUM=Ágætis byrjun" "TITLE=Intro" \
    "TRACKNUMBER=1" "DISCNUMBER=1" "DATE=1999-06-12" "GENRE=Post-Rock" "COMPOSER=Jón Þór Birgisson" \
    "COMMENT=first track" "MUSICBRAINZ_ARTISTID=$MB_ARTIST" "MUSICBRAINZ_ALBUMARTISTID=$MB_ARTIST" \
    "MUSICBRAINZ_ALBUMID=$MB_ALBUM" "MUSICBRAINZ_TRACKID=a1e2c3d4-0003-4000-8000-000000000003"
ff "$A/02 Svefn-g-englar.ogg" 494 1 "${OGG[@]}" -- \
    -metadata "ARTIST=Sigur Rós" -metadata "ALBUMARTIST=Sigur Rós" -metadata "ALBUM=Ágætis byrjun" \
    -metadata "TITLE=Svefn-g-englar" -metadata "TRACKNUMBER=2" -metadata "DISCNUMBER=1" \
    -metadata "DATE=1999-06-12" -metadata "GENRE=Post-Rock" -metadata "COMPOSER=Sigur Rós" \
    -metadata "MUSICBRAINZ_ALBUMID=$MB_ALBUM" -metadata "MUSICBRAINZ_TRACKID=a1e2c3d4-0004-4000-8000-000000000004"
ff "$A/03 Starálfur.opus" 523 1 "${OPUS[@]}" -- \
    -metadata "ARTIST=Sigur Rós" -metadata "ALBUMARTIST=Sigur Rós" -metadata "ALBUM=Ágætis byrjun" \
    -metadata "TITLE=Starálfur" -metadata "TRACKNUMBER=3" -metadata "DISCNUMBER=1" \
    -metadata "DATE=1999-06-12" -metadata "GENRE=Post-Rock"
printf '%s\n' "01 Intro.flac" "02 Svefn-g-englar.ogg" "03 Starálfur.opus" > "$A/album.m3u"

# --- Sigur Rós / ( ): parentheses in a path, mp3 -------------------------------------------------
mkdir -p "Sigur Rós/( )"
ff "Sigur Rós/( )/01 Vaka.mp3" 587 1 "${MP3[@]}" -- \
    -metadata "artist=Sigur Rós" -metadata "album=( )" -metadata "title=Vaka" -metadata "track=1/8" \
    -metadata "date=2002" -metadata "genre=Post-Rock" -metadata "MusicBrainz Artist Id=$MB_ARTIST"

# --- It's "quoted": quotes, an apostrophe and a backslash in names and tags; m4a -----------------
Q="It's \"quoted\""
mkdir -p "$Q"
ff "$Q/Don't \"stop\" \\ me.mp3" 659 1 "${MP3[@]}" -- \
    -metadata "artist=It's \"quoted\"" -metadata "album=Quotes & Co" -metadata "title=Don't \"stop\" \\ me" \
    -metadata "track=1" -metadata "date=2005-03" -metadata "genre=Rock" -metadata "comment=quoted comment"
ff "$Q/Second.m4a" 698 1 "${M4A[@]}" -- \
    -metadata "artist=It's \"quoted\"" -metadata "album_artist=It's \"quoted\"" -metadata "album=Quotes & Co" \
    -metadata "title=Second" -metadata "track=2/2" -metadata "disc=1/1" -metadata "date=2005" \
    -metadata "genre=Rock" -metadata "composer=Q. Composer" -metadata "comment=m4a comment"

# --- 日本語 / 東京事変 / 教育: CJK names and tags, an embedded JPEG in an mp3 -------------------
J="日本語/東京事変/教育"
mkdir -p "$J"
"${FF[@]}" $(sine 740 1) -i /tmp/.nosignal-embed-$$.jpg -map 0:a -map 1:v -map_metadata -1 "${MP3[@]}" \
    -c:v copy -metadata:s:v title="Album cover" -metadata:s:v comment="Cover (front)" "${BITEXACT[@]}" \
    -metadata "artist=東京事変" -metadata "album=教育" -metadata "title=群青日和" -metadata "track=1/2" \
    -metadata "date=2004-09-08" -metadata "genre=J-Pop" -metadata "composer=椎名林檎" "$J/01 群青日和.mp3"
ff "$J/02 林檎の唄.ogg" 784 1 "${OGG[@]}" -- \
    -metadata "ARTIST=椎名林檎" -metadata "ALBUMARTIST=東京事変" -metadata "ALBUM=教育" \
    -metadata "TITLE=林檎の唄" -metadata "TRACKNUMBER=2" -metadata "DATE=2004-09-08" -metadata "GENRE=J-Pop"

# --- Various / Compilation: AlbumArtist, two discs, multi-valued ARTIST and GENRE, embedded PNG ----
V="Various/Compilation"
mkdir -p "$V"
flac "$V/01 Duet.flac" 831 1 /tmp/.nosignal-embed-$$.png \
    "ARTIST=Alpha" "ARTIST=Beta" "ALBUMARTIST=Various Artists" "ALBUM=Compilation" "TITLE=Duet" \
    "TRACKNUMBER=1" "DISCNUMBER=1" "DATE=2010" "GENRE=Electronic" "GENRE=Ambient" "COMMENT=two artists"
ff "$V/02 Beta Solo.ogg" 880 1 "${OGG[@]}" -- \
    -metadata "ARTIST=Beta" -metadata "ALBUMARTIST=Various Artists" -metadata "ALBUM=Compilation" \
    -metadata "TITLE=Beta Solo" -metadata "TRACKNUMBER=1" -metadata "DISCNUMBER=2" -metadata "DATE=2010" \
    -metadata "GENRE=Electronic"
ff "$V/03 gamma.mp3" 932 2 "${MP3[@]}" -- \
    -metadata "artist=gamma" -metadata "album_artist=Various Artists" -metadata "album=Compilation" \
    -metadata "title=gamma" -metadata "track=2" -metadata "disc=2/2" -metadata "date=2010" -metadata "genre=electronic"

# --- Untagged: no tags at all (wav, mp3) -------------------------------------------------------------
mkdir -p Untagged
ff "Untagged/silence.wav" 988 1 -c:a pcm_s16le --
ff "Untagged/untagged.mp3" 1046 1 "${MP3[@]}" --

# --- Broken: random bytes named .mp3, a text file; an empty directory --------------------------------
mkdir -p Broken Empty
python3 -c 'import sys; sys.stdout.buffer.write(bytes((i * 7919 + 13) % 251 for i in range(8192)))' > Broken/corrupt.mp3
printf 'not music\n' > Broken/notes.txt

# --- the root: one song outside any directory, and a dot file (MPD 0.23 scans it like any other) ------
ff "root.ogg" 1109 1 "${OGG[@]}" -- -metadata "ARTIST=Solo" -metadata "TITLE=Root Song" -metadata "DATE=2020"
cp root.ogg .hidden.ogg

# --- fixed modification times (files first, then directories, deepest first) -------------------------
find . -mindepth 1 -exec touch -h -d "2020-01-02 03:04:05 UTC" {} +
find "Sigur Rós/Ágætis byrjun" -type f -exec touch -h -d "2021-06-07 08:09:10 UTC" {} +
touch -h -d "2022-02-03 04:05:06 UTC" "$V/03 gamma.mp3"
find . -mindepth 1 -depth -type d -exec touch -h -d "2020-01-02 03:04:05 UTC" {} +
touch -h -d "2020-01-02 03:04:05 UTC" .
