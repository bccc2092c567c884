#!/usr/bin/python3
"""Library benchmarks, NoSignal side by side with real MPD in one run, reported as ratios.

Usage: library_bench.py PATH/TO/nosignal [--small N] [--large N] [--queue N] [--rounds N] [--only-mpd]
  defaults: --small 5000 --large 100000 --queue 10000 --rounds 15

Measured, for each server in turn (MPD first, then NoSignal), on loopback with a null output:
  update      `update` of a SMALL-song library: the time from sending `update` until `status` no longer
              shows `updating_db:` (polled every 5 ms), then `stats` must count every song; the median of three
              fresh servers of each kind, MPD and NoSignal in turns.
  update-large the same for the LARGE-song library (informative: it is how the large database is built).
  settle      the time after update-large until the server has used no CPU for 0.5 s (MPD writes its database
              file, NoSignal brings its search index up to date); the queries below start after it.
  rescan      `rescan` of the SMALL library right after its update (every file read again), the same three times.
  search      `search any` on the LARGE database (case-insensitive substring over every tag of every song),
              the mean over SEARCH_TERMS (7 terms of 1 to 10 characters, from no match to a few hundred
              songs) of each term's median of ROUNDS requests, response fully read.
  search-tag  the same for `search title` (one tag) over the same terms.
  *-first     search, search-tag, find and list: the first request of each (NoSignal answers a repeated
              small `find`/`search`/`list` from results it keeps until the database changes; the first one
              is the query).
  count-group `count group artist` on the LARGE database.
  list-artist `list artist` on the LARGE database.
  listallinfo `listallinfo "large/d00"` (a 10,000-song folder, or the whole LARGE library when smaller).
  add         `add "large/d00"` to an empty queue (then `clear`, not timed), after `listallinfo` of it.
  *-first     also listallinfo and add: the first `listallinfo "large/d00"`, and one `add` of each of "large/d01"…"d03"
              (folders not read before; NoSignal keeps the songs of the folders it read last, up to a full queue).
  find        `find artist "Artist 042"` on the LARGE database (exact match, LARGE/500 results).
  list        `list album group albumartist` on the LARGE database (what ncmpcpp's media library does).
  playlistinfo `playlistinfo` of a QUEUE-song queue (the queue is built with one `add` of a folder).
  playlistfind `playlistfind artist "Artist 042"` on that queue (exact match: QUEUE/500 results).
  playlistsearch `playlistsearch any` on that queue: the mean over SEARCH_TERMS, as `search` (a scan in both
              servers: the queue has no index).
  rss         VmRSS of the server process (/proc/PID/status) with the LARGE database loaded, after the
              queries and with the QUEUE-song queue.

A NoSignal measurement whose command is missing (an ACK, or no songs after the update) is skipped with a
line saying why; the run never fails for that. Exit status is non-zero only if MPD itself misbehaves.

How the libraries are made (fast, deterministic, cached): one FLAC template (8 kHz mono, 20 ms, made by
ffmpeg) is written under every name with its own Vorbis comment block (ARTIST "Artist NNN" (500 values),
ALBUMARTIST, ALBUM "Album NNNN" (1000 values), TITLE "Title N", TRACKNUMBER, DATE, GENRE (20 values)) by
this script in Python: about 1 KB per file; 100,000 files take ~20 s the first time and are cached in
$TMPDIR/nosignal-benchlib-<N>-v1 (delete it to regenerate). Layout: dNN/aNNN/NNNNNN.flac, 100 songs per
folder, 10,000 per top-level folder (so `add "d00"` builds a 10,000-song queue).

Each server runs in a fresh temporary directory whose music_directory is empty at start-up (so no
start-up scan); the cached tree is then moved in with a rename (same filesystem) and `update` is sent,
which measures exactly the `update` command. The tree is moved back to the cache afterwards.
Typical run time: a few minutes, most of it MPD's and NoSignal's scan of the large library.
"""
import argparse
import os
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_results  # noqa: E402

ARGS = None


# ---------------------------------------------------------------------------------------------------
# Library generation

def flac_template():
    """STREAMINFO block bytes and the audio frames of a tiny FLAC made by ffmpeg."""
    path = os.path.join(tempfile.gettempdir(), f"nosignal-bench-template-{os.getpid()}.flac")
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi",
                    "-i", "sine=frequency=440:duration=0.02:sample_rate=8000", "-map_metadata", "-1",
                    "-c:a", "flac", "-sample_fmt", "s16", "-fflags", "+bitexact", "-flags:a", "+bitexact", path],
                   check=True)
    data = open(path, "rb").read()
    os.unlink(path)
    assert data[:4] == b"fLaC"
    pos, streaminfo = 4, None
    while True:
        header = data[pos]
        length = int.from_bytes(data[pos + 1:pos + 4], "big")
        if header & 0x7F == 0:
            streaminfo = data[pos + 4:pos + 4 + length]
        pos += 4 + length
        if header & 0x80:
            break
    return streaminfo, data[pos:]


def comment_block(tags):
    vendor = b"nosignal-bench"
    body = struct.pack("<I", len(vendor)) + vendor + struct.pack("<I", len(tags))
    for key, value in tags:
        raw = f"{key}={value}".encode()
        body += struct.pack("<I", len(raw)) + raw
    return body


def make_library(count):
    """The cached tree of `count` songs; returns its path."""
    base = os.path.join(tempfile.gettempdir(), f"nosignal-benchlib-{count}-v1")
    tree = os.path.join(base, "tree")
    if os.path.exists(os.path.join(base, "complete")):
        return tree
    shutil.rmtree(base, ignore_errors=True)
    started = time.time()
    streaminfo, audio = flac_template()
    head = b"fLaC" + bytes([0]) + len(streaminfo).to_bytes(3, "big") + streaminfo
    stamp = 1577934245  # 2020-01-02T03:04:05Z
    for i in range(count):
        top, album = divmod(i // 100, 100)
        folder = os.path.join(tree, f"d{top:02d}", f"a{album:03d}")
        if i % 100 == 0:
            os.makedirs(folder, exist_ok=True)
        artist = i % 500
        tags = [("ARTIST", f"Artist {artist:03d}"), ("ALBUMARTIST", f"Artist {artist:03d}"),
                ("ALBUM", f"Album {(i // 100) % 1000:04d}"), ("TITLE", f"Title {i}"),
                ("TRACKNUMBER", str(i % 100 + 1)), ("DATE", str(1960 + i % 60)), ("GENRE", f"Genre {i % 20}")]
        block = comment_block(tags)
        path = os.path.join(folder, f"{i:06d}.flac")
        with open(path, "wb") as f:
            f.write(head + bytes([0x84]) + len(block).to_bytes(3, "big") + block + audio)
        os.utime(path, (stamp, stamp))
    for root, dirs, _ in os.walk(tree):
        for d in dirs:
            os.utime(os.path.join(root, d), (stamp, stamp))
    open(os.path.join(base, "complete"), "w").close()
    print(f"  (generated the {count}-song library in {time.time() - started:.1f} s: {tree})", flush=True)
    return tree


# ---------------------------------------------------------------------------------------------------
# Servers and a minimal client

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(proc, wait=20):
    """SIGTERM, then SIGKILL when it does not exit in time."""
    proc.terminate()
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def connect_when_up(port, proc, log_name, what, timeout=30):
    """A `Client` once the server started as `proc` accepts connections on `port`; an error when it exits first or
    `timeout` seconds pass (see its log)."""
    deadline = time.time() + timeout
    while True:
        try:
            return Client(port)
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"{what} did not start; see {log_name}")
            time.sleep(0.05)


class Ack(Exception):
    pass


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=600)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        greeting = b""
        while not greeting.endswith(b"\n"):
            data = self.sock.recv(4096)
            if not data:
                break
            greeting += data
        if not greeting.startswith(b"OK MPD "):
            raise RuntimeError(f"bad greeting {greeting!r}")

    def raw(self, command, keep=True):
        """Sends one command, returns the raw response lines (without OK); raises Ack. The answer is read in
        large chunks, as libmpdclient reads, so a long answer measures the server rather than this client's
        line splitting; `keep=False` skips the split (timed rounds)."""
        self.sock.sendall(command.encode() + b"\n")
        chunks = []
        tail = b""
        total = 0
        while True:
            data = self.sock.recv(1 << 20)
            if not data:
                raise RuntimeError("connection closed")
            chunks.append(data)
            total += len(data)
            tail = (tail + data)[-4096:]
            if not tail.endswith(b"\n"):
                continue
            # The answer ends with a whole last line that is `OK` or an `ACK`.
            start = tail.rfind(b"\n", 0, len(tail) - 1) + 1
            last = tail[start:]
            whole = start > 0 or total == len(last)
            if whole and last == b"OK\n":
                break
            if whole and last.startswith(b"ACK "):
                raise Ack(last.decode(errors="replace").strip())
        if not keep:
            return None
        body = b"".join(chunks)[:-3]
        return [line + b"\n" for line in body.split(b"\n")[:-1]]

    def pairs(self, command):
        return dict(line.decode().rstrip("\n").split(": ", 1) for line in self.raw(command))

    def close(self):
        try:
            self.sock.sendall(b"close\n")
        except OSError:
            pass
        self.sock.close()


NULL_OUTPUT = ['audio_output {', ' type "null"', ' name "null"', ' mixer_type "software"', '}']


class Server:
    """A fresh MPD or NoSignal in its own temporary directory. `music`: an existing music directory to use
    instead of an empty one; `outputs`: config lines of the audio outputs; `binary`: NoSignal's executable;
    `output_buffer_kib`: max_output_buffer_size; `extra`: further configuration lines."""

    def __init__(self, kind, music=None, outputs=NULL_OUTPUT, binary=None, output_buffer_kib=65536, extra=()):
        self.kind = kind
        self.dir = tempfile.mkdtemp(prefix=f"bench-{kind}-")
        self.music = music or os.path.join(self.dir, "music")
        for sub in ("music", "playlists", "data", "cache", "home"):
            os.makedirs(os.path.join(self.dir, sub))
        self.port = free_port()
        conf = os.path.join(self.dir, "server.conf")
        lines = [f'music_directory "{self.music}"', f'playlist_directory "{self.dir}/playlists"',
                 f'db_file "{self.dir}/database"', f'state_file "{self.dir}/state"',
                 'bind_to_address "127.0.0.1"', f'port "{self.port}"',
                 f'max_output_buffer_size "{output_buffer_kib}"'] + list(extra) + outputs
        if kind == "mpd":
            lines.append('zeroconf_enabled "no"')
            cmd = ["mpd", "--no-daemon", "--stderr", conf]
        else:
            lines += [f'data_directory "{self.dir}/data"', f'cache_directory "{self.dir}/cache"',
                      'netease {', ' enabled "no"', '}']
            cmd = [binary or ARGS.binary, "--config", conf]
        with open(conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        env = dict(os.environ, HOME=os.path.join(self.dir, "home"))
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        self.client = connect_when_up(self.port, self.proc, self.log.name, kind)
        self.wait_for_update(30)

    def wait_for_update(self, timeout):
        deadline = time.time() + timeout
        while "updating_db" in self.client.pairs("status"):
            if time.time() > deadline:
                raise TimeoutError("update still running")
            time.sleep(0.005)

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def quiesce(self, timeout=120):
        """Waits until the server has used no CPU for half a second: the work an update leaves behind (MPD saves
        its database file, NoSignal brings its search index up to date) is not counted in the queries after it.
        Returns the seconds waited."""
        started = time.perf_counter()
        last, idle_since = self.cpu_seconds(), time.perf_counter()
        while time.perf_counter() - started < timeout:
            time.sleep(0.05)
            now = self.cpu_seconds()
            if now != last:
                last, idle_since = now, time.perf_counter()
            elif time.perf_counter() - idle_since >= 0.5:
                break
        waited = time.perf_counter() - started - 0.5
        # After a million songs the wait may pass the servers' 60 s `connection_timeout`.
        self.reconnect()
        return waited

    def reconnect(self):
        """A new connection in place of one that may have been silent too long."""
        self.client.close()
        self.client = connect_when_up(self.port, self.proc, self.log.name, self.kind)

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return None

    def stop(self):
        try:
            self.client.close()
        except Exception:
            pass
        stop_process(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------------
# Measurements

def read_every_file(tree):
    """Reads every file of `tree` once, so that the files are in the page cache before a server's update: the server
    that updated first read them from disk and the second from memory (MPD, run first, took 17-21 s for 100k songs
    where it takes 3.6 s with the files cached, and NoSignal looked 4x faster than it was)."""
    for directory, _, files in os.walk(tree):
        for name in files:
            with open(os.path.join(directory, name), "rb") as f:
                while f.read(1 << 20):
                    pass


def timed_update(server, tree, name, expected, timeout):
    """Moves `tree` into the server's music directory as `name`, runs `update`, returns seconds. The files are read
    once before (`read_every_file`), so both servers update from the page cache."""
    read_every_file(tree)
    # Reading a million files takes minutes: both servers close a connection silent for 60 s (`connection_timeout`).
    server.reconnect()
    target = os.path.join(server.music, name)
    os.rename(tree, target)
    try:
        started = time.perf_counter()
        server.client.raw("update")
        server.wait_for_update(timeout)
        elapsed = time.perf_counter() - started
    finally:
        pass
    songs = int(server.client.pairs("stats").get("songs", "0"))
    if songs != expected:
        raise Ack(f"stats counts {songs} songs after the update, expected {expected}")
    return elapsed


def give_back(server, tree, name):
    target = os.path.join(server.music, name)
    if os.path.exists(target):
        os.rename(target, tree)


# The time of each command's first request (the warm-up): NoSignal keeps small find/search results until the
# database changes, so the medians of repeated requests measure that cache; the first request measures the query.
FIRST = {}
# Fresh servers of each kind that update (and rescan) the small library.
SMALL_ROUNDS = 3


def median_time(client, command, rounds, expect_songs=None):
    started = time.perf_counter()
    lines = client.raw(command)  # warm-up (and the Ack check)
    FIRST[command] = time.perf_counter() - started
    if expect_songs is not None:
        songs = sum(1 for line in lines if line.startswith(b"file: "))
        if songs != expect_songs:
            raise Ack(f"{command} returned {songs} songs, expected {expect_songs}")
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        client.raw(command, keep=False)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


# `search any` terms: 1, 2 and 3+ characters, no match, a few matches and a few hundred.
SEARCH_TERMS = ["x", "qz", "zzz", "e 77", "artist 042", "title 1234", "album 0999"]


def mean_search_time(client, command, rounds):
    return statistics.mean(median_time(client, f'{command} "{term}"', rounds) for term in SEARCH_TERMS)


def mean_first_time(command):
    return statistics.mean(FIRST[f'{command} "{term}"'] for term in SEARCH_TERMS)


def timed_add(client, command, rounds):
    samples = []
    for _ in range(rounds):
        client.raw("clear")
        started = time.perf_counter()
        client.raw(command)
        samples.append(time.perf_counter() - started)
    client.raw("clear")
    return statistics.median(samples)


def timed_rescan(server, expected):
    started = time.perf_counter()
    server.client.raw("rescan")
    server.wait_for_update(300)
    elapsed = time.perf_counter() - started
    songs = int(server.client.pairs("stats").get("songs", "0"))
    if songs != expected:
        raise Ack(f"stats counts {songs} songs after the rescan, expected {expected}")
    return elapsed


METRICS = ("update", "rescan", "update-large", "settle", "search", "search-first", "search-tag", "search-tag-first",
           "find", "find-first", "list", "list-first", "list-artist", "list-artist-first", "count-group", "listallinfo", "listallinfo-first", "add", "add-first", "playlistinfo", "playlistfind", "playlistsearch", "rss-db",
           "rss")


def measure_small(kinds, small_tree):
    """`update` and `rescan` of the small library: the median of SMALL_ROUNDS fresh servers of each kind, taken in
    turns (one update is over in ~0.1 s, and one sample of each server moved by ±20 % from run to run, more than the
    difference between them). Returns {kind: {metric: value or 'skipped: reason'}}."""
    samples = {kind: {"update": [], "rescan": []} for kind in kinds}
    failed = {kind: {} for kind in kinds}
    for round_ in range(SMALL_ROUNDS):
        for kind in (kinds if round_ % 2 == 0 else kinds[::-1]):
            if failed[kind]:
                continue
            try:
                server = Server(kind)
            except Exception as error:  # a server that cannot start: MPD's is an error, NoSignal's a skipped row
                if kind == "mpd":
                    raise
                failed[kind] = {"update": f"skipped: {type(error).__name__}: {error}"}
                continue
            try:
                for metric, body in (("update", lambda: timed_update(server, small_tree, "small", ARGS.small, 300)),
                                     ("rescan", lambda: timed_rescan(server, ARGS.small))):
                    try:
                        samples[kind][metric].append(body())
                    except (Ack, TimeoutError) as error:
                        failed[kind] = {"update": f"skipped: {error}", "rescan": f"skipped: {error}"}
                        break
            finally:
                give_back(server, small_tree, "small")
                server.stop()
    results = {}
    for kind in kinds:
        results[kind] = failed[kind] or {metric: statistics.median(xs) for metric, xs in samples[kind].items()}
        for metric, value in results[kind].items():
            of = ", ".join(format_value(metric, x).strip() for x in samples[kind][metric])
            print(f"  {kind:8s} {metric:16s} {format_value(metric, value)}" + (f"  (of {of})" if of else ""),
                  flush=True)
    return results


def measure(kind, large_tree):
    """Returns {metric: value or 'skipped: reason'}."""
    results = {}

    def attempt(metric, body):
        try:
            results[metric] = body()
        except Ack as error:
            results[metric] = f"skipped: {error}"
        except TimeoutError as error:
            results[metric] = f"skipped: {error}"
        print(f"  {kind:8s} {metric:16s} {format_value(metric, results[metric])}", flush=True)
        return not isinstance(results[metric], str)

    # the large database: update, queries, queue, memory
    server = Server(kind)
    try:
        if attempt("update-large", lambda: timed_update(server, large_tree, "large", ARGS.large, 900)):
            attempt("settle", server.quiesce)
            attempt("rss-db", server.rss_kib)
            if attempt("search", lambda: mean_search_time(server.client, "search any", ARGS.rounds)):
                attempt("search-first", lambda: mean_first_time("search any"))
            if attempt("search-tag", lambda: mean_search_time(server.client, "search title", ARGS.rounds)):
                attempt("search-tag-first", lambda: mean_first_time("search title"))
            if attempt("find", lambda: median_time(server.client, 'find artist "Artist 042"', ARGS.rounds,
                                                   len(range(42, ARGS.large, 500)))):
                attempt("find-first", lambda: FIRST['find artist "Artist 042"'])
            if attempt("list", lambda: median_time(server.client, "list album group albumartist", ARGS.rounds)):
                attempt("list-first", lambda: FIRST["list album group albumartist"])
            if attempt("list-artist", lambda: median_time(server.client, "list artist", ARGS.rounds)):
                attempt("list-artist-first", lambda: FIRST["list artist"])
            attempt("count-group", lambda: median_time(server.client, "count group artist", ARGS.rounds))
            folder = '"large/d00"' if ARGS.large >= 10000 else '"large"'
            if attempt("listallinfo", lambda: median_time(server.client, f"listallinfo {folder}", ARGS.rounds,
                                                          min(ARGS.large, 10000))):
                attempt("listallinfo-first", lambda: FIRST[f"listallinfo {folder}"])
            if ARGS.large >= 40000:
                # Folders nothing has read yet (NoSignal keeps the songs of the folders it read last): the median of
                # one `add` of each of three.
                attempt("add-first", lambda: statistics.median(
                    timed_add(server.client, f'add "large/d0{n}"', 1) for n in (1, 2, 3)))
            attempt("add", lambda: timed_add(server.client, f"add {folder}", ARGS.rounds))

            def queue():
                server.client.raw("clear")
                server.client.raw('add "large/d00"' if ARGS.queue == 10000 else 'add "large"')
                length = int(server.client.pairs("status").get("playlistlength", "0"))
                if length != min(ARGS.queue, ARGS.large):
                    raise Ack(f"the queue has {length} songs")
                return median_time(server.client, "playlistinfo", ARGS.rounds, length)
            if attempt("playlistinfo", queue):
                queued = min(ARGS.queue, ARGS.large)
                attempt("playlistfind", lambda: median_time(server.client, 'playlistfind artist "Artist 042"',
                                                            ARGS.rounds, len(range(42, queued, 500))))
                attempt("playlistsearch", lambda: mean_search_time(server.client, "playlistsearch any", ARGS.rounds))
            attempt("rss", server.rss_kib)
        else:
            for metric in METRICS[METRICS.index("update-large") + 1:]:
                results[metric] = "skipped: no large database"
    finally:
        give_back(server, large_tree, "large")
        server.stop()
    return results


def value_unit(metric):
    """The unit of a metric's value: KiB of memory, or seconds."""
    return "KiB" if metric.startswith("rss") else "s"


def format_value(metric, value):
    if isinstance(value, str):
        return value
    if metric.startswith("rss"):
        return f"{value / 1024:8.1f} MiB"
    if metric.startswith("update") or metric in ("rescan", "settle"):
        return f"{value:8.2f} s"
    return f"{value * 1000:8.2f} ms"


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", default=".build/release/nosignal")
    parser.add_argument("--small", type=int, default=5000)
    parser.add_argument("--large", type=int, default=100000)
    parser.add_argument("--queue", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--only-mpd", action="store_true")
    ARGS = parser.parse_args()
    ARGS.binary = os.path.abspath(ARGS.binary)
    if ARGS.large < 10000 and ARGS.queue == 10000:
        ARGS.queue = ARGS.large

    started = time.time()
    small_tree = make_library(ARGS.small)
    large_tree = make_library(ARGS.large)
    kinds = ["mpd"] + ([] if ARGS.only_mpd else ["nosignal"])
    if "nosignal" in kinds and not os.access(ARGS.binary, os.X_OK):
        print(f"  NoSignal: skipped, no executable at {ARGS.binary}")
        kinds = ["mpd"]
    print(f"library benchmarks: update of {ARGS.small} songs; queries on {ARGS.large} songs "
          f"(median of {ARGS.rounds}); playlistinfo of {min(ARGS.queue, ARGS.large)} songs")
    results = measure_small(kinds, small_tree)
    for kind in kinds:
        try:
            results[kind].update(measure(kind, large_tree))
        except Exception as error:  # a server that cannot start
            if kind == "mpd":
                raise
            print(f"  nosignal skipped: {type(error).__name__}: {error}")
    print("\nsummary (ratio NoSignal/MPD; below 1 = NoSignal faster or smaller)")
    for metric in METRICS:
        mpd = results["mpd"].get(metric)
        line = f"  {metric:16s} MPD {format_value(metric, mpd) if mpd is not None else '-':>12s}"
        other = results.get("nosignal", {}).get(metric)
        if other is not None:
            line += f"   NoSignal {format_value(metric, other):>12s}"
            if not isinstance(mpd, str) and not isinstance(other, str) and mpd:
                line += f"   ratio {other / mpd:6.2f}×"
                if metric != "settle":  # informative: the work an update leaves behind, not a cost to compare
                    bench_results.record("library", metric, mpd, other, value_unit(metric))
        elif "nosignal" in kinds:
            line += "   NoSignal skipped"
        print(line)
    print(f"(total {time.time() - started:.0f} s)")
    if any(isinstance(v, str) for v in results["mpd"].values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
