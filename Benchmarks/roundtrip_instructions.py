#!/usr/bin/python3
"""Instructions a protocol round trip costs the server, NoSignal beside real MPD, counted by callgrind.

Usage: roundtrip_instructions.py PATH/TO/nosignal [COMMAND ...] [--rounds N] [--idle N] [--lines] [--cache]
  defaults: status ping, 2000 rounds, no idle clients
  --lines: also the code a round trip runs every time, in 64-byte cache lines (instructions executed in at least
           99 % of the rounds): what a round trip brings into the instruction cache when the kernel's code has
           evicted it between requests. Instructions alone do not tell: in 2026-12 a `status` ran fewer than MPD's
           (9,900 against 10,700) spread over twice the lines (471 against 230), and took 1-2 µs longer.
  --cache: also callgrind's simulated first-level instruction-cache misses a round trip.

Wall-time rows of a round trip (`status_latency.py`) move by ±5-10 % between runs of the same server; instruction
counts do not, so they show whether a change made the server's own work smaller. Each server runs under valgrind's
callgrind with counting off, gets `--idle` connections waiting in `idle` and a warm-up of every command, then counting
is switched on for ROUNDS round trips of each command on one connection, one after another, and off again. Printed:
instructions per round trip (user space: the server's code and its libraries; the kernel's work is not counted), for
each server and as a ratio. NoSignal runs from a copy without DWARF debug info (valgrind 3.19 cannot read DWARF 5).
"""
import argparse
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hot_sections import free_port, roundtrips, wait_until_listening  # noqa: E402
from status_latency import write_config  # noqa: E402


def totals(path):
    """The profile's total of each event, by name."""
    events = []
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            if line.startswith("totals:"):
                return dict(zip(events, (int(x) for x in line.split()[1:])))
    return {}


def code_lines(path, rounds):
    """The 64-byte lines holding instructions executed at least 0.99 × `rounds` times (a `--dump-instr=yes`
    profile: `address line cost…` positions, addresses absolute or relative to the previous one; the position after
    a `calls=` line is the call's, with the callee's inclusive cost, and is skipped)."""
    executed = {}
    last = 0
    after_call = False
    with open(path) as f:
        for line in f:
            if line.startswith("calls="):
                after_call = True
                continue
            first = line[:1]
            if not (first == "+" or first == "-" or first == "*" or line.startswith("0x")):
                continue
            fields = line.split()
            if len(fields) < 3:
                continue
            position = fields[0]
            if position.startswith("0x"):
                last = int(position, 16)
            elif position[0] == "+":
                last += int(position[1:])
            elif position[0] == "-":
                last -= int(position[1:])
            if after_call:
                after_call = False
                continue
            executed[last] = executed.get(last, 0) + int(fields[2])
    return len({address // 64 for address, times in executed.items() if times >= rounds * 0.99})


def count(kind, binary, commands, rounds, idle, lines=False, cache=False):
    d = tempfile.mkdtemp(prefix=f"roundtrip-{kind}-")
    port = free_port()
    conf = write_config(kind, d, port)
    command = ["mpd", "--no-daemon", conf] if kind == "mpd" else [binary, "--config", conf]
    out = f"{d}/callgrind.out"
    options = (["--dump-instr=yes"] if lines else []) + (["--cache-sim=yes"] if cache else [])
    server = subprocess.Popen(["valgrind", "--tool=callgrind", "--instr-atstart=no"] + options
                              + [f"--callgrind-out-file={out}.%p"] + command,
                              env=dict(os.environ, HOME=d), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    control = dict(check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    idlers = []
    results = {}
    try:
        wait_until_listening(port)
        for _ in range(idle):
            c = socket.create_connection(("127.0.0.1", port), timeout=30)
            c.recv(64)
            c.sendall(b"idle\n")
            idlers.append(c)
        for name in commands:
            roundtrips(port, name, 200)
        time.sleep(5)  # past start-up work (NoSignal drops its start-up code after a few seconds)
        for name in commands:
            for old in glob.glob(f"{out}.*"):
                os.unlink(old)
            subprocess.run(["callgrind_control", "-i", "on", str(server.pid)], **control)
            roundtrips(port, name, rounds)
            subprocess.run(["callgrind_control", "-i", "off", str(server.pid)], **control)
            subprocess.run(["callgrind_control", "-d", str(server.pid)], **control)
            time.sleep(0.5)
            profiles = glob.glob(f"{out}.*.*")
            found = [totals(p) for p in profiles]
            results[name] = {"instructions": sum(t.get("Ir", 0) for t in found) / rounds}
            if cache:
                results[name]["I1 misses"] = sum(t.get("I1mr", 0) for t in found) / rounds
            if lines:
                results[name]["code lines"] = sum(code_lines(p, rounds) for p in profiles)
    finally:
        for c in idlers:
            c.close()
        server.terminate()
        server.wait(120)
        shutil.rmtree(d, ignore_errors=True)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("commands", nargs="*", default=["status", "ping"])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--idle", type=int, default=0)
    parser.add_argument("--lines", action="store_true")
    parser.add_argument("--cache", action="store_true")
    args = parser.parse_args()
    stripped = os.path.join(tempfile.mkdtemp(prefix="roundtrip-"), "nosignal")
    subprocess.run(["strip", "--strip-debug", "-o", stripped, os.path.abspath(args.binary)], check=True)
    mpd = count("mpd", None, args.commands, args.rounds, args.idle, args.lines, args.cache)
    ours = count("nosignal", stripped, args.commands, args.rounds, args.idle, args.lines, args.cache)
    shutil.rmtree(os.path.dirname(stripped), ignore_errors=True)
    print(f"per round trip (callgrind, {args.rounds} rounds, {args.idle} idle clients)")
    for name in args.commands:
        for measure, value in mpd[name].items():
            ratio = ours[name][measure] / value if value else float("inf")
            print(f"  {name:12s} {measure:12s} MPD {value:9.1f}   NoSignal {ours[name][measure]:9.1f}   "
                  f"ratio {ratio:5.2f}×")


if __name__ == "__main__":
    main()
