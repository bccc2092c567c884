#!/usr/bin/python3
"""`search any WORD` latency with the online catalogue (`search_online "yes"`) against the local library alone
(`search_online "no"`), NoSignal against the fake NetEase server on loopback, reported as a ratio.

Usage: netease_search_bench.py [PATH/TO/nosignal] [--songs N] [--rounds N]
  defaults: .build/release/nosignal (fake-netease is taken from the same folder), --songs 500, --rounds 200

One fake-netease (Sources/FakeNetEase, its demo catalogue) and two NoSignal servers on the same generated local
library (N tagged FLACs, Benchmarks/library_bench.py's generator: TITLE "Title N", ARTIST "Artist NNN", …),
both logged in with the demo cookie (`nosignal login --cookie`) and `sync_interval "0"`; they differ only in
`search_online`. One connection per server; the requests alternate between the servers so that machine noise
hits both alike; the response is read in full (local songs, then the catalogue's).

  local         search_online "no": the database only.
  online cold   search_online "yes", a word not searched before (NoSignal keeps a search's catalogue answer
                for 60 s, which would hide the network): the database, plus one cloudsearch request to the fake
                (weapi encryption, HTTP on loopback, JSON decoding). The words are "Title K" for ROUNDS distinct
                K: each matches one local song (with N ≥ 1000, "Title 1xx" also matches "Title 1xxx"…) and no
                song of the demo catalogue, so the catalogue answers an empty page.
  online cached search_online "yes", 20 of those words again and again within the 60 s: no request to the fake
                (NoSignal keeps at most 200 answers and drops them all when full, so the cached round uses
                fewer words than the cold one, whose 200 words flush the memory).
  online hits   search_online "yes", cold, with words of the demo catalogue (its titles, albums, artists: one
                request each, 1 to 30 catalogue songs appended to the answer); fewer samples (one per word),
                compared with "local, catalogue words", the same words on the local-only server.

Each online row is paired with a local row of the same words, asked alternately; prints median and p95 per
row and the ratio of each online row's median to its local row's. The fake answers instantly:
a real NetEase adds tens to hundreds of milliseconds of network time to "online cold" and "online hits".
Typical run time: well under a minute.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from library_bench import Ack, connect_when_up, free_port, make_library, stop_process  # noqa: E402

# Titles, album names and artist names of the fake's demo catalogue (Sources/FakeNetEase/DemoCatalog.swift).
CATALOGUE_WORDS = [
    "晴天的约定", "海风", "夏日的回声", "萤火虫", "再见，七月", "雨の街角", "さくら色の手紙", "夜明けまで", "ふたりの傘",
    "星屑ラジオ", "Ljósið", "Þögn", "Við hafið", "Snjór í maí", "Heim", "Белые ночи", "Метро", "Полночь", "Огни",
    "Дорога домой", "별빛 노래", "바다", "첫눈", "너에게", "Canción del Río", "Mañana", "Corazón", "La Última Noche",
    "Niño", "城市森林", "地铁站", "霓虹", "凌晨三点", "归途", "ひかりの旅", "風の歌", "青い空", "約束", "おやすみ",
    "Norðurljós", "林夕雨", "星野ゆめ", "Sigur Ósk", "Ночной Город", "이하늘", "Café Ñandú",
]


def executables(binary, benchmark):
    """NoSignal's binary and fake-netease beside it, as absolute paths; None (and says so) when one is missing."""
    binary = os.path.abspath(binary)
    fake_binary = os.path.join(os.path.dirname(binary), "fake-netease")
    for path in (binary, fake_binary):
        if not os.access(path, os.X_OK):
            print(f"netease {benchmark} benchmark: skipped, no executable at {path}")
            return None
    return binary, fake_binary


class Fake:
    """fake-netease on a free port; the demo account's cookie and the public key NoSignal needs."""

    def __init__(self, binary, directory):
        self.port = free_port()
        self.proc = subprocess.Popen([binary, "--port", str(self.port), "--key", os.path.join(directory, "fake.pem")],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.public = self.music_u = self.csrf = None
        banner = []
        while self.csrf is None:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("fake-netease did not start: " + "".join(banner))
            banner.append(line)
            if line.startswith("public key "):
                self.public = line[len("public key "):].strip()
            elif line.startswith("demo MUSIC_U "):
                self.music_u = line.split()[2]
            elif line.startswith("demo __csrf "):
                self.csrf = line.split()[2]
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.port}"

    def search_requests(self):
        import urllib.request
        with urllib.request.urlopen(self.url + "/__fake/log", timeout=10) as answer:
            return sum(1 for entry in json.loads(answer.read()) if entry.get("apiPath") == "/api/cloudsearch/pc")

    def stop(self):
        stop_process(self.proc, wait=10)


class NoSignal:
    """NoSignal logged in to the fake with the demo cookie, its database scanned; `output` is its audio_output
    block, `netease` more lines of its netease block."""

    def __init__(self, binary, music, fake, online, output='audio_output {\n type "null"\n name "null"\n}\n',
                 netease=""):
        self.dir = tempfile.mkdtemp(prefix=f"bench-netease-{'online' if online else 'local'}-")
        self.port = free_port()
        conf = os.path.join(self.dir, "nosignal.conf")
        netease = (f'netease {{\n api_url "{fake.url}"\n eapi_url "{fake.url}"\n weapi_public_key "{fake.public}"\n'
                   f' sync_interval "0"\n search_online "{"yes" if online else "no"}"\n{netease}}}\n')
        with open(conf, "w") as f:
            f.write(f'music_directory "{music}"\ndata_directory "{self.dir}/data"\ncache_directory "{self.dir}/cache"\n'
                    f'playlist_directory "{self.dir}/playlists"\nbind_to_address "127.0.0.1"\nport "{self.port}"\n'
                    + output + netease)
        os.makedirs(os.path.join(self.dir, "playlists"))
        env = dict(os.environ, HOME=self.dir)
        login = subprocess.run([binary, "login", "--config", conf, "--cookie",
                                f"MUSIC_U={fake.music_u}; __csrf={fake.csrf}"],
                               env=env, capture_output=True, text=True, timeout=60)
        if login.returncode != 0:
            raise RuntimeError(f"nosignal login failed: {login.stdout}{login.stderr}")
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        self.proc = subprocess.Popen([binary, "--config", conf], env=env, stdout=self.log, stderr=self.log,
                                     stdin=subprocess.DEVNULL)
        self.client = connect_when_up(self.port, self.proc, self.log.name, "NoSignal")
        # An empty database at start: NoSignal scans the music directory; wait for it.
        self.client.raw("update")
        deadline = time.time() + 300
        while "updating_db" in self.client.pairs("status"):
            if time.time() > deadline:
                raise TimeoutError("update still running")
            time.sleep(0.02)

    def search(self, word):
        """Seconds for `search any "word"`, and the number of songs (local, catalogue) it answered."""
        quoted = word.replace("\\", "\\\\").replace('"', '\\"')
        started = time.perf_counter()
        lines = self.client.raw(f'search any "{quoted}"')
        elapsed = time.perf_counter() - started
        files = [line for line in lines if line.startswith(b"file: ")]
        online = sum(1 for line in files if line.startswith(b"file: netease://"))
        return elapsed, len(files) - online, online

    def stop(self):
        try:
            self.client.close()
        except Exception:
            pass
        stop_process(self.proc)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def summary(samples):
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(len(ordered) * 0.95)) - 1)]
    return statistics.median(ordered), p95


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", default=".build/release/nosignal")
    parser.add_argument("--songs", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    found = executables(args.binary, "search")
    if found is None:
        return
    binary, fake_binary = found
    if args.rounds > args.songs:
        sys.exit(f"--rounds {args.rounds} needs at least as many songs (one distinct word per round)")
    started = time.time()
    music = make_library(args.songs)
    work = tempfile.mkdtemp(prefix="bench-netease-")
    fake = Fake(fake_binary, work)
    servers = {}
    try:
        servers["local"] = NoSignal(binary, music, fake, online=False)
        servers["online"] = NoSignal(binary, music, fake, online=True)
        # Warm-up: the first online search also checks the login (one account request).
        for server in servers.values():
            for word in ("warm-up", "Title 0"):
                server.search(word)
        # Distinct words: "Title K" for K from the top of the library down, one local match each (below 1000).
        words = [f"Title {k}" for k in range(args.songs - 1, args.songs - 1 - args.rounds, -1)]
        rows = ["local", "online cold", "local, 20 words", "online cached", "local, catalogue words", "online hits"]
        baseline = {"online cold": "local", "online cached": "local, 20 words", "online hits": "local, catalogue words"}
        samples = {row: [] for row in rows}
        songs = {row: [] for row in rows}
        before = fake.search_requests()

        def run(row, server, word):
            elapsed, local, online = servers[server].search(word)
            samples[row].append(elapsed)
            songs[row].append((local, online))

        for word in words:  # alternating: the same word locally and online (cold)
            run("local", "local", word)
            run("online cold", "online", word)
        cold_requests = fake.search_requests() - before
        # Cached: NoSignal keeps at most 200 answers and forgets them all when that is reached, so the cold round
        # above has flushed its own; 20 words, searched once, then each asked again within the 60 s.
        repeated = words[:20]
        for word in repeated:
            servers["online"].search(word)
        before = fake.search_requests()
        for index in range(len(words)):
            run("local, 20 words", "local", repeated[index % len(repeated)])
            run("online cached", "online", repeated[index % len(repeated)])
        cached_requests = fake.search_requests() - before
        expired = time.time() - started >= 60
        for word in CATALOGUE_WORDS:
            run("local, catalogue words", "local", word)
            run("online hits", "online", word)
    finally:
        for server in servers.values():
            server.stop()
        fake.stop()
        shutil.rmtree(work, ignore_errors=True)

    print(f"search any WORD: NoSignal ({os.path.relpath(binary)}) with {args.songs} local songs, the fake NetEase on "
          f"loopback; one connection per server, requests alternating between them")
    print(f"  {'':23s} {'requests':>8s} {'median':>11s} {'p95':>11s} {'songs: local + online':>22s} {'ratio':>7s}")
    for row in rows:
        median, p95 = summary(samples[row])
        local_songs = statistics.mean(s[0] for s in songs[row])
        online_songs = statistics.mean(s[1] for s in songs[row])
        ratio = f"{median / summary(samples[baseline[row]])[0]:6.2f}x" if row in baseline else ""
        print(f"  {row:23s} {len(samples[row]):8d} {median * 1000:8.2f} ms {p95 * 1000:8.2f} ms "
              f"{local_songs:14.1f} + {online_songs:5.1f} {ratio:>7s}")
    cold, local = summary(samples["online cold"]), summary(samples["local"])
    print(f"  ratio online/local: cold median {cold[0] / local[0]:.2f}x, p95 {cold[1] / local[1]:.2f}x; "
          f"cached median {summary(samples['online cached'])[0] / summary(samples['local, 20 words'])[0]:.2f}x; "
          f"with catalogue hits "
          f"{summary(samples['online hits'])[0] / summary(samples['local, catalogue words'])[0]:.2f}x")
    print(f"  cloudsearch requests to the fake: {cold_requests} in the cold round of {len(words)}, "
          f"{cached_requests} in the cached round of {len(words)}"
          + (" (over 60 s in: some answers had expired)" if expired else ""))
    print(f"(total {time.time() - started:.0f} s)")
    if cold_requests != len(words):
        sys.exit("the cold round did not ask the fake once per word")


if __name__ == "__main__":
    try:
        main()
    except Ack as error:
        sys.exit(f"NoSignal answered {error}")
