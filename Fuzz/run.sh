#!/usr/bin/env bash
# Builds the libFuzzer targets with AddressSanitizer into .build-fuzz/ and runs them at once for SECONDS each
# (default 600). Exits non-zero when a target crashes, hangs or fails to build; the crashing input is left in
# .build-fuzz/<target>-crash-* (or -timeout-*).
#
#   Fuzz/run.sh [SECONDS]
#   FUZZ_TARGETS="server" FUZZ_RUNS=10000000 Fuzz/run.sh    # one target, a number of inputs instead of a time
#
# Targets:
#   tokenizer, filter  the protocol's parsers, compiled together with Sources/MPDProtocol as one module.
#   server             the whole server (`nosignal-fuzz`, Sources/ServerFuzzing): the real wiring with the test
#                      library, null outputs and the state file, one in-memory client connection per input. Built
#                      by SwiftPM with `--sanitize=fuzzer --sanitize=address`, UndefinedBehaviorSanitizer on the C
#                      code (Swift traps on overflow, bounds and nil by itself); seeded with every request of the
#                      differential scripts and the inputs in Fuzz/regressions/.
# New inputs go to .build-fuzz/corpus/<target>/ (ignored by git); Fuzz/corpus/<target>/ holds the parsers' seeds.
set -euo pipefail

seconds="${1:-600}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.build-fuzz"
swiftc="${SWIFTC:-swiftc}"
read -r -a targets <<<"${FUZZ_TARGETS:-tokenizer filter server}"

mkdir -p "$out"
cd "$root"

# lld avoids gold's warnings about ASan's local symbols; fall back to the default linker without it.
linker=()
if command -v ld.lld >/dev/null 2>&1 || [ -x "$(dirname "$(command -v "$swiftc")")/ld.lld" ]; then
    linker=(-use-ld=lld)
fi

for target in "${targets[@]}"; do
    echo "== building $target"
    mkdir -p "$out/corpus/$target"
    case "$target" in
        tokenizer|filter)
            source_file=Fuzz/TokenizerFuzz.swift
            [ "$target" = filter ] && source_file=Fuzz/FilterFuzz.swift
            # MPDProtocol's case folding calls ICU through the CICUText C target: build it and give it a module map.
            mkdir -p "$out/cicu"
            clang -c -O1 -fsanitize=address -I Sources/CICUText/include Sources/CICUText/icu.c -o "$out/cicu/icu.o"
            printf 'module CICUText {\n    header "%s"\n    export *\n}\n' "$root/Sources/CICUText/include/CICUText.h" \
                >"$out/cicu/module.modulemap"
            "$swiftc" -sanitize=fuzzer,address -parse-as-library -O -module-name MPDProtocol "${linker[@]}" \
                -I "$out/cicu" "$out/cicu/icu.o" -licui18n -licuuc \
                Sources/MPDProtocol/*.swift Sources/MPDProtocol/Filter/*.swift "$source_file" \
                -o "$out/$target-fuzz"
            ;;
        server)
            # The coverage libFuzzer steers by is named outright: swiftc 6.3 leaves it out of a module compiled
            # whole with several threads (a release build on two cores) when only -sanitize=fuzzer asks for it.
            # Even named, LLVM on several threads drops it from some modules now and then (164,000 counters instead
            # of 410,000 in one of three builds): one thread per module.
            swift build -c release --sanitize=fuzzer --sanitize=address -Xcc -fsanitize=undefined \
                -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
                -Xswiftc -num-threads -Xswiftc 1 \
                -Xswiftc -DFUZZING --product nosignal-fuzz --scratch-path "$out/server" 2>&1 | tail -n 3
            cp "$out/server/release/nosignal-fuzz" "$out/server-fuzz"
            # Without coverage of the Swift code the fuzzer only mutates at random: refuse such a build.
            size=$(objdump -h "$out/server-fuzz" | awk '$2 == "__sancov_cntrs" { print $3 }')
            counters=$((16#${size:-0}))
            if [ "$counters" -lt 300000 ]; then
                echo "the server fuzzer has only $counters coverage counters: its Swift code is not instrumented" >&2
                exit 1
            fi
            mkdir -p "$out/seeds/server"
            ;;
        *) echo "unknown target $target" >&2; exit 2 ;;
    esac
done

# libFuzzer and ASan report crashes themselves; Swift's backtracer only adds noise (and trips ASan).
export SWIFT_BACKTRACE=enable=no
# The server keeps global state for its whole life: leaks at exit are not findings.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
# The server fuzzer writes the seed corpus from the differential scripts when it starts.
export NOSIGNAL_FUZZ_SCRIPTS="$root/Tests/DifferentialTests/Scripts" NOSIGNAL_FUZZ_SEEDS="$out/seeds/server"

limit=(-max_total_time="$seconds")
[ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
pids=()
for target in "${targets[@]}"; do
    echo "== fuzzing $target (${FUZZ_RUNS:+$FUZZ_RUNS inputs}${FUZZ_RUNS:-${seconds}s})"
    case "$target" in
        server) extra=(-max_len=4096 -timeout=30 -rss_limit_mb=4096 -detect_leaks=0 "$out/seeds/server" Fuzz/regressions) ;;
        *) extra=(-max_len=8192 -timeout=10 "Fuzz/corpus/$target") ;;
    esac
    "$out/$target-fuzz" "${limit[@]}" -print_final_stats=1 -artifact_prefix="$out/$target-" \
        "$out/corpus/$target" "${extra[@]}" >"$out/$target.log" 2>&1 &
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
