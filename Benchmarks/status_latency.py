#!/usr/bin/python3
"""`status` round-trip latency, NoSignal side by side with real MPD in one run, reported as ratios.

Usage: status_latency.py PATH/TO/nosignal [ROUNDS] [IDLERS]
Both servers run on loopback with the same kind of configuration (empty music directory, null output,
software mixer, max_connections 2000). One connection per server sends `status` ROUNDS times (default 40000),
alternating between the servers in blocks so that machine noise hits both alike; then the same again while IDLERS
(default 500) further connections to each server sit in `idle`.

Each server is measured by a client process of its own (`status_client.c`, compiled here), holding one connection,
as a user's client talks to one server, and every block of requests is followed by a pause (PAUSE seconds, default
0.05), so that both servers see the same pattern of client activity. Without the pauses the pattern differed: the
block of one server was the other one's pause, and the scheduler placed the server that costs less CPU per request
on the client's CPU (~30 µs a round trip) and the other on the other CPU (~140 µs), so a small difference in work
showed as 3-5×. A stand-in C server answering after a busy loop of 0 or 5 µs won or lost that placement against MPD
by that difference alone; one server driven without pauses settles on the other CPU, with pauses on the client's,
MPD and NoSignal alike.

A round trip on loopback is mostly the kernel waking the server and then the client. Where the scheduler puts the
server's thread decides most of it: on the client's CPU a round trip takes ~25 µs here, on the other CPU ~120 µs. So
the run ends with the placement fixed, the same for both servers: every thread of both servers pinned to the client's
CPU, then to another CPU (on a machine with more than one). These rows compare the servers' own work per request.
"""
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_results  # noqa: E402

BINARY = ".build/release/nosignal"
ROUNDS = 40000
IDLERS = 500
PAUSE = float(os.environ.get("PAUSE", "0.05"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_config(kind, d, port):
    """A configuration for `kind` in the fresh directory `d` (empty music directory, null output, software mixer,
    max_connections 2000) listening on `port`; returns its path."""
    os.makedirs(f"{d}/music")
    os.makedirs(f"{d}/playlists")
    conf = f"{d}/{kind}.conf"
    with open(conf, "w") as f:
        f.write(f'music_directory "{d}/music"\nplaylist_directory "{d}/playlists"\n'
                f'bind_to_address "127.0.0.1"\nport "{port}"\nmax_connections "2000"\n'
                'audio_output {\n type "null"\n name "null"\n mixer_type "software"\n}\n')
        if kind == "mpd":
            f.write(f'db_file "{d}/db"\nzeroconf_enabled "no"\n')
    return conf


def start(kind):
    d = tempfile.mkdtemp(prefix=f"bench-{kind}-")
    port = free_port()
    conf = write_config(kind, d, port)
    cmd = ["mpd", "--no-daemon", conf] if kind == "mpd" else [BINARY, "--config", conf]
    proc = subprocess.Popen(cmd, env=dict(os.environ, HOME=d), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                if s.recv(64).startswith(b"OK MPD"):
                    return proc, Client(port), port
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{kind} did not start")


class Client:
    """A client process of its own (`status_client.c`), with one connection to a server."""
    executable = None

    def __init__(self, port):
        if Client.executable is None:
            Client.executable = bench_results.compiled("status_client.c")
        self.proc = subprocess.Popen([Client.executable, str(port)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def roundtrips(self, count):
        self.proc.stdin.write(f"{count}\n")
        self.proc.stdin.flush()
        return [int(x) for x in self.proc.stdout.readline().split()]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(10)


def idle_clients(port, count):
    """`count` connections that each sent `idle` (and got no answer yet)."""
    clients = []
    for _ in range(count):
        c = socket.create_connection(("127.0.0.1", port), timeout=5)
        c.recv(64)
        c.sendall(b"idle\n")
        clients.append(c)
    return clients


def measure(servers, label):
    samples = {kind: [] for kind in servers}
    for kind, (_, client, _) in servers.items():  # warm up
        client.roundtrips(500)
    block = 1000
    # Each round the other server goes first, so neither always runs right after the pause.
    order = list(servers.items())
    for round_ in range(ROUNDS // block):
        for kind, (_, client, _) in (order if round_ % 2 == 0 else order[::-1]):
            samples[kind].extend(client.roundtrips(block))
            time.sleep(PAUSE)
    stats = {}
    for kind, xs in samples.items():
        xs.sort()
        stats[kind] = (statistics.median(xs) / 1000, xs[int(len(xs) * 0.99)] / 1000)
        print(f"  {kind:9s} median {stats[kind][0]:8.1f} µs   p99 {stats[kind][1]:8.1f} µs")
    print(f"  ratio NoSignal/MPD: median {stats['nosignal'][0] / stats['mpd'][0]:.2f}×, "
          f"p99 {stats['nosignal'][1] / stats['mpd'][1]:.2f}×  (below 1 = NoSignal faster)")
    for index, name in enumerate(("median", "p99")):
        bench_results.record("status", f"{label} {name}", stats["mpd"][index], stats["nosignal"][index], "µs")


def pin(pid, cpus):
    """Every thread of process `pid` on `cpus`."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except OSError:
            pass  # a thread that has ended


def measure_pinned(servers):
    allowed = sorted(os.sched_getaffinity(0))
    client = allowed[0]
    placements = [("on the client's CPU", client)]
    if len(allowed) > 1:
        placements.append(("on another CPU", allowed[1]))
    for _, c, _ in servers.values():
        pin(c.proc.pid, {client})
    try:
        for label, cpu in placements:
            for proc, _, _ in servers.values():
                pin(proc.pid, {cpu})
            time.sleep(0.2)
            print(f"placement fixed: clients on CPU {client}, both servers {label} ({cpu}), idle clients still there")
            measure(servers, "idle, pinned " + ("same CPU" if cpu == client else "other CPU"))
    finally:
        for proc, c, _ in servers.values():
            pin(proc.pid, set(allowed))
            pin(c.proc.pid, set(allowed))


def main():
    global BINARY, ROUNDS, IDLERS
    BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else BINARY)
    ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else ROUNDS
    IDLERS = int(sys.argv[3]) if len(sys.argv) > 3 else IDLERS
    servers = {kind: start(kind) for kind in ("mpd", "nosignal")}
    idlers = []
    try:
        print(f"status round trip, {ROUNDS} requests each, one connection from a client process per server, loopback")
        measure(servers, "round trip")
        for _, _, port in servers.values():
            idlers += idle_clients(port, IDLERS)
        time.sleep(1)
        print(f"the same with {IDLERS} more connections to each server waiting in `idle`")
        measure(servers, f"{IDLERS} idle")
        measure_pinned(servers)
    finally:
        for c in idlers:
            c.close()
        for proc, client, _ in servers.values():
            client.close()
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
