# NoSignal — the two commands that work on a fresh machine: `make run` and `make test`.
SWIFT ?= swift
ARGS ?=
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
# A failing test run ends with its failures again, so the last lines of a CI log name them.
FAILURES = || { grep -E '✘|error:|FAIL' $(1) | tail -40; exit 1; }

.PHONY: run build release test unit-tests client-tests tag-fuzz tag-fuzz-record bench bench-noise fuzz soak demo deps test-deps clean install uninstall

deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

build: deps
	$(SWIFT) build

# The release binary links the Swift runtime and Foundation statically: a quarter less CPU per request (calls into the
# runtime, `swift_retain` first, go direct instead of through the PLT) and ~5 MB less resident memory. It skips the
# run-time exclusivity checks in every module, NIO's included (a fifth of the instructions of a `ping` round trip,
# callgrind); the debug build the tests run keeps them. Each function is compiled into a section of its own, and the
# linker puts those a `status` or `ping` round trip runs first and together, then the rest of what a session runs
# (`Benchmarks/hot-sections.txt`, written by `Benchmarks/hot_sections.py`): spread over the binary a round trip's
# code was on 221 pages, which a client on the same CPU evicts between requests (MPD's: 45).
STATIC = --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xlinker --section-ordering-file=$(CURDIR)/Benchmarks/hot-sections.txt
release: deps
	$(SWIFT) build -c release $(STATIC)

## Build a release binary and serve in the foreground with the embedded defaults (port 6600 on 127.0.0.1).
## Pass a configuration with `make run ARGS="--config conf/nosignal.conf"`.
run: release
	.build/release/nosignal $(ARGS)

## Everything: unit tests, the differential tests against real MPD, and the real clients (mpc, python-mpd2).
test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip DifferentialTests 2>&1 | tee .build/unit-tests.log $(call FAILURES,.build/unit-tests.log)
	# The differential tests time servers against each other: run them alone, not beside the heavy suites.
	$(SWIFT) test --skip-build --filter DifferentialTests 2>&1 | tee .build/differential-tests.log \
		$(call FAILURES,.build/differential-tests.log)
	/usr/bin/python3 Tests/Clients/run_clients.py .build/debug/nosignal
	/usr/bin/python3 -W ignore::DeprecationWarning Tests/Clients/full_runs.py .build/debug/nosignal
	/usr/bin/python3 Tests/Clients/ncmpcpp_test.py .build/debug/nosignal
	/usr/bin/python3 Tests/Clients/web_test.py .build/debug/nosignal
	/usr/bin/python3 Tests/Clients/systemd_test.py .build/debug/nosignal
	/usr/bin/python3 Tests/Clients/zeroconf_test.py .build/debug/nosignal
	/usr/bin/python3 Tests/Clients/snapcast_test.py .build/debug/nosignal
	Tests/TagFuzz/run.sh .build/debug/nosignal
	/usr/bin/python3 Tests/Soak/soak.py .build/debug/nosignal --quick

## Side-by-side benchmarks against real MPD, reported as ratios, ending with one table of every row (`summary.py`) with
## the noise of any `make bench-noise` runs beside it. The rows are kept in .build/bench/run-*.jsonl.
STAMP := $(shell date +%Y%m%d-%H%M%S)
BENCH = .build/release/nosignal
bench: test-deps release
	@mkdir -p .build/bench
	export NOSIGNAL_BENCH_RESULTS=$(CURDIR)/.build/bench/run-$(STAMP).jsonl; \
	/usr/bin/python3 Benchmarks/status_latency.py $(BENCH) && \
	/usr/bin/python3 Benchmarks/library_bench.py $(BENCH) && \
	/usr/bin/python3 Benchmarks/scale_bench.py $(BENCH) && \
	/usr/bin/python3 Benchmarks/playback_bench.py $(BENCH) && \
	/usr/bin/python3 Benchmarks/netease_search_bench.py $(BENCH) && \
	/usr/bin/python3 Benchmarks/netease_playback_bench.py $(BENCH) && \
	/usr/bin/python3 Benchmarks/reliability_bench.py $(BENCH)
	/usr/bin/python3 Benchmarks/summary.py .build/bench/run-$(STAMP).jsonl $(wildcard .build/bench/noise-*.jsonl)

## The tag fuzz's long run (Tests/TagFuzz/README.md): COUNT random files and playlists from SEED, tagged by a dozen
## taggers, scanned by NoSignal and by a live MPD 0.24.13 (MPD_BIN, default the one scripts/build-mpd-0.24.sh built
## in /work/mpd-0.24.13/build), every answer compared; the report goes to .build/tagfuzz/SEED-COUNT.report.
## `make tag-fuzz-record` records MPD 0.24.13's answers for `make test`'s short run and the tag zoo.
SEED ?= 1
COUNT ?= 20000
MPD_BIN ?= /work/mpd-0.24.13/build/mpd
NOSIGNAL ?= .build/debug/nosignal
tag-fuzz: test-deps
	$(if $(filter .build/debug/nosignal,$(NOSIGNAL)),$(SWIFT) build --product nosignal)
	rm -rf .build/tagfuzz/$(SEED)-$(COUNT) && mkdir -p .build/tagfuzz
	/usr/bin/python3 Tests/TagFuzz/generate.py $(SEED) $(COUNT) .build/tagfuzz/$(SEED)-$(COUNT)
	/usr/bin/python3 Tests/TagFuzz/compare.py .build/tagfuzz/$(SEED)-$(COUNT) --nosignal $(NOSIGNAL) \
		--mpd $(MPD_BIN) --finds 300 --report .build/tagfuzz/$(SEED)-$(COUNT).report \
		--json .build/tagfuzz/$(SEED)-$(COUNT).json

tag-fuzz-record: test-deps
	$(SWIFT) build --product nosignal
	RECORD=1 MPD_BIN=$(MPD_BIN) Tests/TagFuzz/run.sh .build/debug/nosignal

## The machine's noise: the same side-by-side rows with real MPD in NoSignal's place (`Benchmarks/mpd_as_nosignal.py`),
## kept in .build/bench/noise-*.jsonl for `make bench`'s table. Run it twice for a range.
bench-noise: test-deps
	@mkdir -p .build/bench
	export NOSIGNAL_BENCH_RESULTS=$(CURDIR)/.build/bench/noise-$(STAMP).jsonl; \
	/usr/bin/python3 Benchmarks/status_latency.py Benchmarks/mpd_as_nosignal.py && \
	/usr/bin/python3 Benchmarks/library_bench.py Benchmarks/mpd_as_nosignal.py && \
	/usr/bin/python3 Benchmarks/scale_bench.py Benchmarks/mpd_as_nosignal.py && \
	/usr/bin/python3 Benchmarks/playback_bench.py Benchmarks/mpd_as_nosignal.py && \
	/usr/bin/python3 Benchmarks/reliability_bench.py Benchmarks/mpd_as_nosignal.py --only crowd,list
	/usr/bin/python3 Benchmarks/summary.py --noise-run .build/bench/noise-$(STAMP).jsonl

## NoSignal with a fake NetEase account (offline): the fake server and the server on 127.0.0.1:6600.
demo: test-deps
	$(SWIFT) build
	scripts/demo.sh

## The soak test against a release build: 300 clients, a fuzzer, NetEase faults and kill -9 restarts for SOAK_SECONDS
## (default 1500; `make test` runs a minute of it). A failure ends with its FAIL lines and the seed to rerun it with.
soak: test-deps release
	/usr/bin/python3 Tests/Soak/soak.py .build/release/nosignal --seconds $(or $(SOAK_SECONDS),1500)

## libFuzzer runs of the tokenizer and the filter parser; FUZZ_SECONDS per target (default 600).
fuzz:
	Fuzz/run.sh $(or $(FUZZ_SECONDS),600)

## Install the binary, its man page (generated from the command line's help), the systemd units and the example
## configuration under $(DESTDIR)$(PREFIX); `make uninstall` removes them. CONFIG=debug installs the debug build.
PREFIX ?= /usr/local
CONFIG ?= release
BINDIR = $(PREFIX)/bin
INSTALLED = $(DESTDIR)$(BINDIR)/nosignal $(DESTDIR)$(PREFIX)/share/man/man1/nosignal.1 \
	$(DESTDIR)$(PREFIX)/share/doc/nosignal/nosignal.conf.example \
	$(DESTDIR)$(PREFIX)/lib/systemd/system/nosignal.service $(DESTDIR)$(PREFIX)/lib/systemd/system/nosignal.socket \
	$(DESTDIR)$(PREFIX)/lib/systemd/user/nosignal.service $(DESTDIR)$(BINDIR)/nosignal-snapcast-control
install: deps
	$(SWIFT) build -c $(CONFIG) $(if $(filter release,$(CONFIG)),$(STATIC)) --product nosignal
	$(SWIFT) build -c $(CONFIG) $(if $(filter release,$(CONFIG)),$(STATIC)) --product generate-manual
	mkdir -p .build/man
	.build/$(CONFIG)/generate-manual .build/$(CONFIG)/nosignal --output-directory .build/man --section 1
	sed 's|@BINDIR@|$(BINDIR)|' conf/nosignal.service > .build/man/nosignal.service
	sed 's|@BINDIR@|$(BINDIR)|' conf/nosignal-user.service > .build/man/nosignal-user.service
	install -D -m 755 .build/$(CONFIG)/nosignal $(DESTDIR)$(BINDIR)/nosignal
	install -D -m 644 .build/man/nosignal.1 $(DESTDIR)$(PREFIX)/share/man/man1/nosignal.1
	install -D -m 644 conf/nosignal.conf $(DESTDIR)$(PREFIX)/share/doc/nosignal/nosignal.conf.example
	install -D -m 644 .build/man/nosignal.service $(DESTDIR)$(PREFIX)/lib/systemd/system/nosignal.service
	install -D -m 644 conf/nosignal.socket $(DESTDIR)$(PREFIX)/lib/systemd/system/nosignal.socket
	install -D -m 644 .build/man/nosignal-user.service $(DESTDIR)$(PREFIX)/lib/systemd/user/nosignal.service
	printf '#!/bin/sh\n# Snapcast control script: name it in snapserver.conf (controlscript=).\nexec "%s" snapcast-control "$$@"\n' \
		'$(BINDIR)/nosignal' > .build/man/nosignal-snapcast-control
	install -D -m 755 .build/man/nosignal-snapcast-control $(DESTDIR)$(BINDIR)/nosignal-snapcast-control

uninstall:
	rm -f $(INSTALLED)
	-rmdir $(DESTDIR)$(PREFIX)/share/doc/nosignal 2>/dev/null

clean:
	rm -rf .build .build-fuzz
