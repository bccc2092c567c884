#!/usr/bin/python3
"""The scale curve: NoSignal side by side with real MPD on generated libraries of growing size, as ratios.

Usage: scale_bench.py PATH/TO/nosignal [--sizes 10000,100000,1000000] [--rounds N]

For each size (the libraries of library_bench.py: tiny FLACs with seven tags, cached in $TMPDIR), each server in
turn starts on an empty music directory, gets the tree moved in and runs `update`; then, after it has settled
(no CPU for 0.5 s: MPD writes its database file, NoSignal indexes for search):
  update   seconds from `update` until `updating_db` is gone
  rss      VmRSS with the database loaded
  search   `search any` over library_bench's SEARCH_TERMS, mean of each term's median of ROUNDS
  search1  the same terms' first requests (NoSignal answers repeated small results from a cache)
  find     `find artist "Artist 042"`, median of ROUNDS
  find1    its first request
  list     `list album group albumartist`, median of ROUNDS
  list1    its first request (NoSignal keeps `list` answers of up to 10,000 rows until the database changes)
The summary prints every row per size with the ratio NoSignal/MPD, so the growth of each cost is visible.
Generating the 1,000,000-song library takes a few minutes and about 4 GB the first time.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_results  # noqa: E402
import library_bench as lb  # noqa: E402

METRICS = ("update", "rss", "search", "search1", "find", "find1", "list", "list1")


def measure(kind, size, tree, rounds):
    results = {}
    server = lb.Server(kind)
    try:
        results["update"] = lb.timed_update(server, tree, "large", size, 3600)
        server.quiesce(600)
        results["rss"] = server.rss_kib()
        results["search"] = lb.mean_search_time(server.client, "search any", rounds)
        results["search1"] = lb.mean_first_time("search any")
        results["find"] = lb.median_time(server.client, 'find artist "Artist 042"', rounds,
                                         len(range(42, size, 500)))
        results["find1"] = lb.FIRST['find artist "Artist 042"']
        results["list"] = lb.median_time(server.client, "list album group albumartist", rounds)
        results["list1"] = lb.FIRST["list album group albumartist"]
    except (lb.Ack, TimeoutError) as error:
        print(f"  {kind} at {size}: skipped the rest: {error}")
    finally:
        lb.give_back(server, tree, "large")
        server.stop()
    for metric in METRICS:
        if metric in results:
            print(f"  {size:>8d} {kind:8s} {metric:7s} {lb.format_value(metric, results[metric])}", flush=True)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", default=".build/release/nosignal")
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    lb.ARGS = argparse.Namespace(binary=os.path.abspath(args.binary))
    sizes = [int(size) for size in args.sizes.split(",")]
    started = time.time()
    results = {}
    for size in sizes:
        tree = lb.make_library(size)
        for kind in ("mpd", "nosignal"):
            results[(size, kind)] = measure(kind, size, tree, args.rounds)
    print("\nscale summary (ratio NoSignal/MPD; below 1 = NoSignal faster or smaller)")
    for metric in METRICS:
        for size in sizes:
            mpd = results[(size, "mpd")].get(metric)
            ours = results[(size, "nosignal")].get(metric)
            line = f"  {metric:7s} {size:>8d}  MPD {lb.format_value(metric, mpd) if mpd is not None else '-':>12s}"
            line += f"   NoSignal {lb.format_value(metric, ours) if ours is not None else '-':>12s}"
            if mpd and ours is not None:
                line += f"   ratio {ours / mpd:6.2f}×"
                bench_results.record("scale", f"{metric} {size}", mpd, ours, lb.value_unit(metric))
            print(line)
    print(f"(total {time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
