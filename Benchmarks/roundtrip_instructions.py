#!/usr/bin/python3
"""Instructions a protocol round trip costs the server, NoSignal beside real MPD, counted by callgrind.

Usage: roundtrip_instructions.py PATH/TO/nosignal [COMMAND ...] [--rounds N] [--idle N]
  defaults: status ping, 2000 rounds, no idle clients

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


def total_instructions(path):
    with open(path) as f:
        for line in f:
            if line.startswith("totals:"):
                return int(line.split()[1])
    return 0


def count(kind, binary, commands, rounds, idle):
    d = tempfile.mkdtemp(prefix=f"roundtrip-{kind}-")
    port = free_port()
    conf = write_config(kind, d, port)
    command = ["mpd", "--no-daemon", conf] if kind == "mpd" else [binary, "--config", conf]
    out = f"{d}/callgrind.out"
    server = subprocess.Popen(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                               f"--callgrind-out-file={out}.%p"] + command,
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
            results[name] = sum(total_instructions(p) for p in glob.glob(f"{out}.*.*")) / rounds
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
    args = parser.parse_args()
    stripped = os.path.join(tempfile.mkdtemp(prefix="roundtrip-"), "nosignal")
    subprocess.run(["strip", "--strip-debug", "-o", stripped, os.path.abspath(args.binary)], check=True)
    mpd = count("mpd", None, args.commands, args.rounds, args.idle)
    ours = count("nosignal", stripped, args.commands, args.rounds, args.idle)
    shutil.rmtree(os.path.dirname(stripped), ignore_errors=True)
    print(f"instructions per round trip (callgrind, {args.rounds} rounds, {args.idle} idle clients)")
    for name in args.commands:
        print(f"  {name:20s} MPD {mpd[name]:9.0f}   NoSignal {ours[name]:9.0f}   ratio {ours[name] / mpd[name]:5.2f}×")


if __name__ == "__main__":
    main()
