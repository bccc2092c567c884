#!/usr/bin/python3
"""Time from `play` to the first sample for a NetEase song against a local file, NoSignal with the fake NetEase
server on loopback, reported as a ratio.

Usage: netease_playback_bench.py [PATH/TO/nosignal] [--rounds N] [--latency MS]
  defaults: .build/release/nosignal (fake-netease from the same folder), --rounds 11 (two new songs a round, 22
  in the catalogue), --latency 50

One fake-netease whose every answer (API calls and the CDN's audio) is held back LATENCY ms (the control API's
`delay` fault), and one NoSignal logged in with the demo cookie, `sync_interval "0"`, a `fifo` output read by a
thread that timestamps every read. The local file is a copy of the very MP3 the fake serves for the NetEase song
(song 5000011 at `exhigh`), so both starts decode the same bytes; only where they come from differs.

Each round: `stop`, `clear`, `add` a song, then `play 0` is timed until the first PCM byte leaves the fifo — for a
NetEase song not played before, `play` sent at once after `add` (the stream URL lookup, `song_url_v1` over eapi,
started by the `add`, then the CDN's response: up to two round trips of LATENCY ms, plus libavformat's probing
reads); for another new NetEase song `play` sent 0.2 s after its `add` (NoSignal looks up the song `play` would
start while stopped, so only the CDN's round trip is left); for the local file; and for the first NetEase song
again (its URL is kept while fresh). Prints the medians and the ratios.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netease_search_bench import Fake, NoSignal, executables  # noqa: E402

SONG_ID = 5000011
# Songs of the demo catalogue, each first played in one round (their URLs must be looked up).
FRESH_IDS = [5000012, 5000014, 5000015, 5000021, 5000022, 5000023, 5000024, 5000025, 5000031, 5000032, 5000033,
             5000034, 5000035, 5000041, 5000042, 5000043, 5000044, 5000051, 5000052, 5000053, 5000054, 5000055]


class FifoReader:
    """Reads the fifo output continuously; `first_after(t)` is the first read at or after `t`."""

    def __init__(self, path):
        self.path = path
        self.reads = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            while not self.stopped.is_set():
                try:
                    data = os.read(fd, 65536)
                except BlockingIOError:
                    data = b""
                if data:
                    self.reads.append(time.monotonic())
                else:
                    time.sleep(0.0002)
        finally:
            os.close(fd)

    def first_after(self, start, timeout=10):
        deadline = start + timeout
        while time.monotonic() < deadline:
            later = [t for t in self.reads[-50:] if t >= start]
            if later:
                return min(later) - start
            time.sleep(0.0005)
        return None

    def stop(self):
        self.stopped.set()
        self.thread.join()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", default=".build/release/nosignal")
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--latency", type=float, default=50, help="ms added to every answer of the fake")
    args = parser.parse_args()
    found = executables(args.binary, "playback")
    if found is None:
        return
    binary, fake_binary = found
    work = tempfile.mkdtemp(prefix="bench-netease-play-")
    fake = Fake(fake_binary, work)
    server = None
    reader = None
    try:
        music = os.path.join(work, "music")
        os.makedirs(music)
        # The fake's own MP3 for the song: ask for its URL as NoSignal would, once, through the plain /api form.
        import json
        import urllib.parse
        import urllib.request
        data = urllib.parse.urlencode({"ids": json.dumps([SONG_ID]), "level": "exhigh"}).encode()
        request = urllib.request.Request(fake.url + "/api/song/enhance/player/url/v1", data=data,
                                         headers={"Cookie": f"MUSIC_U={fake.music_u}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            url = json.loads(answer.read())["data"][0]["url"]
        with urllib.request.urlopen(url, timeout=10) as answer, open(os.path.join(music, "local.mp3"), "wb") as f:
            f.write(answer.read())

        fifo = os.path.join(work, "fifo")
        os.mkfifo(fifo)
        reader = FifoReader(fifo)
        server = NoSignal(binary, music, fake, online=False,
                          output=f'audio_output {{\n type "fifo"\n name "fifo"\n path "{fifo}"\n}}\n',
                          netease=' scrobble "no"\n')
        client = server.client
        # From here on every answer of the fake waits LATENCY ms.
        body = json.dumps({"path": "/", "fault": "delay", "value": args.latency / 1000, "count": 1_000_000}).encode()
        urllib.request.urlopen(urllib.request.Request(fake.url + "/__fake/fault", data=body), timeout=10).read()

        rows = ["local file", "NetEase, add + play", "NetEase, first play", "NetEase, played again"]
        samples = {name: [] for name in rows}

        def start(uri, pause=0.2):
            client.raw("stop")
            client.raw("clear")
            time.sleep(0.2)
            client.raw(f'add "{uri}"')
            time.sleep(pause)
            started = time.monotonic()
            client.raw("play 0")
            return reader.first_after(started)

        # Warm-up: the first NetEase play also checks the login (one more request).
        for uri in ("local.mp3", f"netease://song/{SONG_ID}", "local.mp3"):
            start(uri)
        for index in range(args.rounds):
            # Two songs not played before (their URLs must be looked up): one played at once after its `add`, one
            # a moment later; the local file; and the first song again (its URL is still fresh).
            fresh = f"netease://song/{FRESH_IDS[(2 * index) % len(FRESH_IDS)]}"
            other = f"netease://song/{FRESH_IDS[(2 * index + 1) % len(FRESH_IDS)]}"
            for name, uri, pause in (("NetEase, add + play", fresh, 0), ("NetEase, first play", other, 0.2),
                                     ("local file", "local.mp3", 0.2), ("NetEase, played again", fresh, 0.2)):
                first = start(uri, pause)
                if first is not None:
                    samples[name].append(first)
        client.raw("stop")
        local = statistics.median(samples["local file"])
        print(f"play → first sample, fake NetEase with {args.latency:.0f} ms per answer, {args.rounds} rounds")
        for name in rows:
            value = statistics.median(samples[name])
            ratio = "" if name == "local file" else f"   ratio {value / local:.1f}×"
            print(f"  {name:22} {value * 1000:8.1f} ms{ratio}")
        print(f"  (network floor: add + play 2 × {args.latency:.0f} ms — song_url_v1, then the CDN; a first play a "
              f"moment after the add and a play again 1 × {args.latency:.0f} ms)")
    finally:
        if reader is not None:
            reader.stop()
        if server is not None:
            server.stop()
        fake.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
