#!/usr/bin/env bash
# Tests/TagFuzz/run.sh NOSIGNAL_BIN — the tag fuzz's short run in `make test` (about a minute):
#   1. the seeded library (SEED, COUNT below; generated once into .build/tagfuzz/, reused while its digest holds)
#   2. the tag zoo (/work/shared/corpus/tag-zoo or TAG_ZOO), when its script and taggers are there
# each compared with MPD 0.24.13's answers recorded in Tests/TagFuzz/recorded/ (CI has only Debian's MPD 0.23).
# With RECORD=1 and MPD_BIN pointing at MPD 0.24.13, it records those answers afresh instead.
set -uo pipefail
NOSIGNAL=${1:?usage: run.sh NOSIGNAL_BIN}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SEED=${SEED:-3401}
COUNT=${COUNT:-240}
OUT=$ROOT/.build/tagfuzz
PY=/usr/bin/python3
mkdir -p "$OUT"
status=0

lib=$OUT/short-$SEED-$COUNT
if [ ! -f "$lib/manifest.jsonl" ] || \
   [ "$($PY "$HERE/generate.py" --digest "$lib")" != "$($PY -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["digest"])' "$lib/manifest.jsonl")" ]; then
    rm -rf "$lib"
    $PY "$HERE/generate.py" "$SEED" "$COUNT" "$lib" || exit 2
fi
compare() {  # compare NAME RECORDING ARGS...
    local name=$1 rec=$2; shift 2
    if [ "${RECORD:-}" = 1 ]; then
        $PY "$HERE/compare.py" "$@" --nosignal "$NOSIGNAL" --mpd "${MPD_BIN:?RECORD=1 needs MPD_BIN}" --record "$rec" \
            --report "$OUT/$name.report" || status=1
    else
        $PY "$HERE/compare.py" "$@" --nosignal "$NOSIGNAL" --recorded "$rec" --report "$OUT/$name.report" \
            > "$OUT/$name.out" 2>&1
        local rc=$?
        # the summary, the categories and the verdict; the examples are in the report
        sed -n '/^=== tag fuzz/,/^=== examples/p' "$OUT/$name.out" | grep -v '^=== examples'
        tail -1 "$OUT/$name.out"
        [ $rc -ne 0 ] && { echo "tag fuzz $name: examples in $OUT/$name.report"; status=1; }
    fi
}
compare short "$HERE/recorded/seed-$SEED-$COUNT.jsonl.gz" "$lib"

# The zoo's generator lives in the shared corpus beside the checkout (CI lays shared/ next to its clone).
ZOO=${TAG_ZOO:-$ROOT/../shared/corpus/tag-zoo}
[ -f "$ZOO/make_zoo.sh" ] || ZOO=/work/shared/corpus/tag-zoo
if [ -x "$ZOO/make_zoo.sh" ] || [ -f "$ZOO/make_zoo.sh" ]; then
    zoo=$OUT/zoo
    if [ ! -d "$zoo/music" ] || ! cmp -s "$zoo/MANIFEST.sha256" "$ZOO/MANIFEST.sha256"; then
        rm -rf "$zoo"
        sh "$ZOO/make_zoo.sh" "$zoo" >/dev/null || { echo "tag fuzz: the tag zoo could not be built"; status=1; }
    fi
    [ -d "$zoo/music" ] && compare zoo "$HERE/recorded/zoo.jsonl.gz" --music "$zoo/music" --finds 150
else
    echo "tag fuzz: no tag zoo at $ZOO (TAG_ZOO=), skipped"
fi
exit $status
