#!/usr/bin/python3
"""Real MPD in NoSignal's place: the machine's noise for the side-by-side benchmarks.

Usage: any benchmark with this file as the NoSignal binary, e.g.
    Benchmarks/status_latency.py Benchmarks/mpd_as_nosignal.py
(`make bench-noise` runs the MPD-comparable benchmarks so). Takes NoSignal's command line (`--config FILE`), writes
FILE's MPD-compatible part next to it (without NoSignal's own settings: `data_directory`, `cache_directory`,
`http_port`, the `netease` block; with a `db_file` and `zeroconf_enabled "no"` when FILE has none) and replaces
itself with `mpd --no-daemon --stderr` on it, so the benchmark's process id, memory and CPU readings are MPD's. A
ratio it reports is MPD against MPD: how far from 1.0 the same server lands on this machine in that row.
"""
import os
import sys

NOSIGNAL_ONLY = {"data_directory", "cache_directory", "http_port"}
NOSIGNAL_BLOCKS = {"netease"}


def mpd_config(lines, directory):
    kept, skipping, names = [], False, set()
    for line in lines:
        words = line.split()
        if skipping:
            skipping = words[:1] != ["}"]
            continue
        if words and words[0] in NOSIGNAL_BLOCKS and words[-1] == "{":
            skipping = True
            continue
        if words and words[0] in NOSIGNAL_ONLY:
            continue
        if words:
            names.add(words[0])
        kept.append(line.rstrip("\n"))
    if "db_file" not in names:
        kept.append(f'db_file "{directory}/mpd-database"')
    if "zeroconf_enabled" not in names:
        kept.append('zeroconf_enabled "no"')
    return "\n".join(kept) + "\n"


def main():
    args = sys.argv[1:]
    if "--config" not in args or args.index("--config") + 1 >= len(args):
        sys.exit("mpd_as_nosignal.py: needs --config FILE (NoSignal's command line)")
    config = os.path.abspath(args[args.index("--config") + 1])
    with open(config) as f:
        text = mpd_config(f.readlines(), os.path.dirname(config))
    target = config + ".mpd"
    with open(target, "w") as f:
        f.write(text)
    os.execvp("mpd", ["mpd", "--no-daemon", "--stderr", target])


if __name__ == "__main__":
    main()
