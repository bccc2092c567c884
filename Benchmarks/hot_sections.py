#!/usr/bin/python3
"""Writes the link order of the functions a protocol round trip runs (`Benchmarks/hot-sections.txt`).

Usage: hot_sections.py PATH/TO/nosignal [OUTPUT]

A round trip's code is spread over the whole binary: measured with callgrind, a `status` round trip ran ~7,000
distinct instructions on 221 pages of 4 KiB (MPD: ~2,300 on 45), and with a client on the same CPU evicting them
between requests, the misses cost more than the instructions. The release build compiles each function into a
section of its own and the linker puts the sections named in this file first, together (`Makefile`, `STATIC`).

After them come every other function the server runs to start and to serve an ordinary session (`SESSION`): code
is read from the file 64 KiB around each page first touched (the kernel's fault-around), so code used once but
spread over the binary kept most of it resident (~18 MB of 22); packed together it is a few.

This runs the server under callgrind (`--demangle=no`, so the names are the sections' names), sends each command of
`COMMANDS` `ROUNDS` times on one connection after a warm-up, and lists every function of the binary that ran at
least once per `EVERY` round trips, hottest first. Run it again after a change that moves the hot path (a name that
no longer exists is ignored by the linker; a new hot function is only left out of the order).
"""
import glob
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/release/nosignal")
OUTPUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "hot-sections.txt")
# What clients poll: the round trip the benchmark measures. (Ordering the functions of more commands as well, hottest
# first, spread these over more lines and measured slower.)
COMMANDS = ["status", "ping"]
MUSIC = [("flac", "flac"), ("mp3", "libmp3lame"), ("ogg", "libvorbis"), ("opus", "libopus"), ("m4a", "aac")]
ROUNDS = 500
EVERY = 4
# After `update` the session waits for the scan of `MUSIC` (files made by ffmpeg) to end.
SESSION = ["status", "stats", "outputs", "decoders", "tagtypes", "commands", "update", "lsinfo", "listall",
           "listallinfo", "list artist", "list album group albumartist", "count group artist", "find artist x",
           "search any x", "add \"\"", "playlistinfo", "plchanges 0", "currentsong", "listplaylists", "idle\nnoidle",
           "setvol 50", "random 1", "random 0", "clear", "urlhandlers", "config", "replay_gain_status"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_listening(port, seconds=120):
    """Returns once a server (slow to start under valgrind) accepts connections on `port`."""
    for _ in range(int(seconds * 5)):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)


def roundtrips(port, command, count):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.recv(64)
        line = command.encode() + b"\n"
        for _ in range(count):
            s.sendall(line)
            answer = b""
            while not answer.endswith(b"OK\n") and not (answer.startswith(b"ACK [") and answer.endswith(b"\n")):
                answer += s.recv(65536)
        while command == "update" and b"updating_db" in answer:
            time.sleep(0.5)
            s.sendall(b"status\n")
            answer = b""
            while not answer.endswith(b"OK\n"):
                answer += s.recv(65536)


def profile(commands, rounds, at_start):
    """The functions of the binary that ran in the profiled part, with their instruction counts, hottest first."""
    d = tempfile.mkdtemp(prefix="hot-sections-")
    os.makedirs(f"{d}/music/Album")
    os.makedirs(f"{d}/playlists")
    for index, (extension, codec) in enumerate(MUSIC):
        subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.2",
                        "-c:a", codec, "-metadata", f"title=Song {index}", "-metadata", "artist=Artist",
                        "-metadata", "album=Album", "-metadata", f"track={index + 1}",
                        f"{d}/music/Album/{index + 1:02d}.{extension}"], check=True)
    port = free_port()
    with open(f"{d}/ns.conf", "w") as f:
        f.write(f'music_directory "{d}/music"\nplaylist_directory "{d}/playlists"\nbind_to_address "127.0.0.1"\n'
                f'port "{port}"\naudio_output {{\n type "null"\n name "null"\n mixer_type "software"\n}}\n')
    out = f"{d}/callgrind.out"
    server = subprocess.Popen(["valgrind", "--tool=callgrind", f"--instr-atstart={'yes' if at_start else 'no'}",
                               "--demangle=no", f"--callgrind-out-file={out}.%p", BINARY, "--config",
                               f"{d}/ns.conf"],
                              env=dict(os.environ, HOME=d), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    control = dict(check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_listening(port)
        if not at_start:
            for command in commands:
                roundtrips(port, command, 50)
            subprocess.run(["callgrind_control", "-i", "on", str(server.pid)], **control)
        for command in commands:
            roundtrips(port, command, rounds)
        subprocess.run(["callgrind_control", "-i", "off", str(server.pid)], **control)
        subprocess.run(["callgrind_control", "-d", str(server.pid)], **control)
        time.sleep(1)
    finally:
        server.terminate()
        server.wait(120)
    annotated = "".join(subprocess.run(["callgrind_annotate", "--threshold=100", path], capture_output=True,
                                       text=True, check=True).stdout for path in glob.glob(f"{out}.*.1"))
    binary = os.path.basename(BINARY)
    counts = {}
    for line in annotated.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+\S*?:(\S+)\s+\[(\S+)\]", line)
        if m and os.path.basename(m.group(3)) == binary:
            counts[m.group(2)] = counts.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
    return sorted(counts.items(), key=lambda item: -item[1])


def main():
    global BINARY
    # Valgrind 3.19 cannot read the DWARF 5 debug info: a copy without it, its symbols kept.
    stripped = os.path.join(tempfile.mkdtemp(prefix="hot-sections-"), os.path.basename(BINARY))
    subprocess.run(["strip", "--strip-debug", "-o", stripped, BINARY], check=True)
    BINARY = stripped
    hot = [name for name, count in profile(COMMANDS, ROUNDS, at_start=False) if count >= ROUNDS // EVERY]
    used = [name for name, _ in profile(SESSION, 3, at_start=True) if name not in set(hot)]
    with open(OUTPUT, "w") as f:
        f.write("".join(f".text.{name}\n" for name in hot + used))
    print(f"{len(hot)} functions of the round trip and {len(used)} more of a session written to {OUTPUT}")


if __name__ == "__main__":
    main()
