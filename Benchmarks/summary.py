#!/usr/bin/python3
"""One table of every side-by-side row of a `make bench` run, with the machine's noise beside each ratio.

Usage: summary.py [--noise-run] RESULTS [NOISE ...]
  RESULTS  the rows of a run (JSON lines written by `bench_results.record`, NOSIGNAL_BENCH_RESULTS); with
           --noise-run, a run of `make bench-noise`: its ratios are MPD against MPD and get no marks
  NOISE    files of the same rows from runs with MPD in NoSignal's place (`make bench-noise`): their ratios are MPD
           against MPD, so their range is how far from 1.0 a row lands by chance on this machine.
Each row prints MPD's value, NoSignal's, the ratio NoSignal/MPD, the noise range, and a mark where the ratio is above
its goal (1.0; 0.1 for `search any` on the 100k library): "over" when it is also above every noise run's ratio,
"over, inside noise" when some MPD-against-MPD run came out as high.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_results  # noqa: E402

GOALS = {("library", "search"): 0.1}


def show(value, unit):
    if unit == "KiB":
        return f"{value / 1024:.1f} MiB"
    if unit == "µs":
        return f"{value / 1000:.2f} ms" if value >= 10000 else f"{value:.1f} µs"
    if unit == "s":
        return f"{value * 1000:.2f} ms" if value < 1 else f"{value:.2f} s"
    return f"{value:g} {unit}".strip()


def main():
    arguments = sys.argv[1:]
    noise_run = "--noise-run" in arguments
    arguments = [a for a in arguments if a != "--noise-run"]
    if not arguments:
        sys.exit(__doc__)
    rows = bench_results.load(arguments[0])
    noise = [bench_results.load(path) for path in arguments[1:]]
    if noise_run:
        print("\nmake bench-noise: every row with MPD in NoSignal's place, as ratios MPD/MPD (how far from 1.0 the "
              "same server lands)")
    else:
        print(f"\nmake bench: every row, NoSignal/MPD (below 1 = NoSignal faster or smaller); noise = MPD against MPD "
              f"in {len(noise)} run{'' if len(noise) == 1 else 's'}")
    second = "MPD again" if noise_run else "NoSignal"
    print(f"  {'benchmark':11s} {'row':30s} {'MPD':>11s} {second:>11s} {'ratio':>7s}  {'noise':>11s}")
    over = 0
    for key, (mpd, ours, unit) in rows.items():
        ratio = ours / mpd if mpd else float("inf")
        ratios = [n[key][1] / n[key][0] for n in noise if key in n and n[key][0]]
        band = f"{min(ratios):.2f}–{max(ratios):.2f}" if ratios else "-"
        goal = GOALS.get(key, 1.0)
        mark = ""
        if round(ratio, 2) > goal and not noise_run:
            over += 1
            mark = "  over, inside noise" if ratios and round(ratio, 2) <= round(max(ratios), 2) else "  over"
        print(f"  {key[0]:11s} {key[1]:30s} {show(mpd, unit):>11s} {show(ours, unit):>11s} {ratio:6.2f}×  "
              f"{band:>11s}{mark}")
    print(f"  {len(rows)} rows" + ("" if noise_run else f", {over} above their goal"))


if __name__ == "__main__":
    main()
