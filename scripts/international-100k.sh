#!/usr/bin/env bash
# A differential script (default international_order; also search_random, the randomized search comparison) on a
# library of about 91,000 songs (the generator of the
# `international` test library with 12 folders of 65 songs under each of its 128 names) against MPD_BIN (default
# Debian's mpd). Not part of `make test`: generating the library takes a minute and 1.2 GB.
#   scripts/international-100k.sh [SCRIPT]   # after `swift build --build-tests`
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
script="${1:-international_order}"
work="${TMPDIR:-/tmp}/nosignal-international-100k"
rm -rf "$work/scripts"
mkdir -p "$work/scripts"
sed -e 's/for sub in rng.sample(WORDS, 3):/for sub in rng.sample(WORDS, 12):/' \
    -e 's/for name in rng.sample(WORDS, 8):/for name in rng.sample(WORDS, 65):/' \
    "$root/Tests/Support/make_international_library.py" >"$work/make_library.py"
source="$root/Tests/DifferentialTests/Scripts/$script.mpdscript"
if [ "$script" = search_random ]; then
    # The same 1,000 queries, each search cut to its first 100 songs (the answers of short needles would be
    # whole-library listings).
    source="$work/search_random_window.mpdscript"
    /usr/bin/python3 "$root/Tests/Support/make_search_queries.py" 1000 15 100 >"$source"
fi
sed -e 's/^%library international$/%library standard\n%config max_playlist_length "200000"/' \
    "$source" >"$work/scripts/${script}_100k.mpdscript"
cp "$root/Tests/DifferentialTests/Scripts/"*.mpddecl "$work/scripts/"
MAKE_LIBRARY="$work/make_library.py" DIFF_SCRIPTS_DIR="$work/scripts" DIFF_START_TIMEOUT=600 DIFF_READ_TIMEOUT=60 \
    DIFF_SCRIPT_TIMEOUT=${DIFF_SCRIPT_TIMEOUT:-900} DIFF_OUT="$work/out" \
    swift test --package-path "$root" --skip-build --filter 'DifferentialTests.noSignalMatchesMPD'
cat "$work/out/${script}_100k."*report.txt | head -1
