#!/usr/bin/env bash
# Builds the libFuzzer targets (tokenizer, filter parser) with AddressSanitizer into .build-fuzz/ and runs
# both at once for SECONDS each (default 600). Exits non-zero when a target crashes or fails to build; the
# crashing input is left in .build-fuzz/<target>-crash-*.
#
#   Fuzz/run.sh [SECONDS]
#
# Each target is compiled together with Sources/MPDProtocol as one module, so the fuzz files need no import.
# New inputs go to .build-fuzz/corpus/<target>/ (ignored by git); Fuzz/corpus/<target>/ holds the seeds.
set -euo pipefail

seconds="${1:-600}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.build-fuzz"
swiftc="${SWIFTC:-swiftc}"
targets=(tokenizer filter)

mkdir -p "$out"
cd "$root"

# lld avoids gold's warnings about ASan's local symbols; fall back to the default linker without it.
linker=()
if command -v ld.lld >/dev/null 2>&1 || [ -x "$(dirname "$(command -v "$swiftc")")/ld.lld" ]; then
    linker=(-use-ld=lld)
fi

for target in "${targets[@]}"; do
    case "$target" in
        tokenizer) source_file=Fuzz/TokenizerFuzz.swift ;;
        filter) source_file=Fuzz/FilterFuzz.swift ;;
    esac
    echo "== building $target"
    "$swiftc" -sanitize=fuzzer,address -parse-as-library -O -module-name MPDProtocol "${linker[@]}" \
        Sources/MPDProtocol/*.swift Sources/MPDProtocol/Filter/*.swift "$source_file" \
        -o "$out/$target-fuzz"
    mkdir -p "$out/corpus/$target"
done

# libFuzzer and ASan report crashes themselves; Swift's backtracer only adds noise (and trips ASan).
export SWIFT_BACKTRACE=enable=no

pids=()
for target in "${targets[@]}"; do
    echo "== fuzzing $target for ${seconds}s"
    "$out/$target-fuzz" \
        -max_total_time="$seconds" -max_len=8192 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$out/$target-" \
        "$out/corpus/$target" "Fuzz/corpus/$target" \
        >"$out/$target.log" 2>&1 &
    pids+=($!)
done

status=0
for index in "${!targets[@]}"; do
    target="${targets[$index]}"
    if wait "${pids[$index]}"; then
        result="ok"
    else
        result="FAILED (exit $?)"
        status=1
    fi
    echo "== $target: $result"
    # The last status line (`#N DONE cov: …`) and the final statistics.
    grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$out/$target.log" | tail -n 1 || true
    grep -E '^stat::' "$out/$target.log" || true
    if [ "$result" != "ok" ]; then
        grep -E 'ERROR|SUMMARY|Fatal error|fuzz property violated|Test unit written' "$out/$target.log" | head -n 20 || true
        echo "   full log: $out/$target.log"
    fi
done
exit "$status"
