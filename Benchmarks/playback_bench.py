#!/usr/bin/python3
"""Playback benchmarks, NoSignal side by side with real MPD in one run, reported as ratios.

Usage: playback_bench.py PATH/TO/nosignal [--minutes M] [--rounds N]
  defaults: --minutes 3 --rounds 3

Measured for each server in turn (MPD first, then NoSignal), each in a fresh temporary directory whose music
directory holds two M-minute sine files made by ffmpeg (44.1 kHz stereo: 16-bit FLAC, 192 kbit/s MP3):
  cpu-flac / cpu-mp3  CPU seconds (user + system, /proc/PID/stat) the server spends playing one minute of the
                      file to a `null` output with `sync "no"` (as fast as it decodes), median of ROUNDS plays.
  rss                 VmRSS while playing the FLAC in real time (null output with sync), 2 s into the song.
  first-sample        time from sending `play` until the first PCM byte comes out of a `fifo` output
                      (a reader thread timestamps every read), median of ROUNDS × 4 starts.
MPD decodes MP3 with libmad and FLAC with libFLAC; NoSignal decodes both with FFmpeg.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_results  # noqa: E402
import library_bench  # noqa: E402

ARGS = None
TICKS = os.sysconf("SC_CLK_TCK")


def make_sources(minutes):
    """Cached: two long sine files."""
    cache = os.path.join(tempfile.gettempdir(), f"nosignal-benchplay-{minutes}-v1")
    if not os.path.isdir(cache):
        os.makedirs(cache + ".tmp", exist_ok=True)
        seconds = int(minutes * 60)
        for name, codec in (("long.flac", ["-c:a", "flac", "-sample_fmt", "s16"]),
                            ("long.mp3", ["-c:a", "libmp3lame", "-b:a", "192k"])):
            subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                            f"sine=frequency=440:duration={seconds}:sample_rate=44100", "-ac", "2"] + codec
                           + [os.path.join(cache + ".tmp", name)], check=True)
        os.rename(cache + ".tmp", cache)
    return cache


class Server(library_bench.Server):
    def __init__(self, kind, music, outputs):
        super().__init__(kind, music=music, outputs=outputs, binary=ARGS.binary)
        if not self.client.pairs("stats").get("songs"):
            self.client.raw("update")
            time.sleep(0.2)
            self.wait_for_update(60)

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def wait_stopped(self, timeout):
        deadline = time.time() + timeout
        while self.client.pairs("status").get("state") != "stop":
            if time.time() > deadline:
                raise TimeoutError("still playing")
            time.sleep(0.02)


def null_output(sync):
    return ['audio_output {', ' type "null"', ' name "null"', f' sync "{"yes" if sync else "no"}"', '}']


def measure(kind, music):
    results = {}
    server = Server(kind, music, null_output(sync=False))
    try:
        for name in ("flac", "mp3"):
            samples = []
            for _ in range(ARGS.rounds):
                server.client.raw("clear")
                server.client.raw(f'add "long.{name}"')
                before = server.cpu_seconds()
                server.client.raw("play 0")
                server.wait_stopped(600)
                samples.append((server.cpu_seconds() - before) / ARGS.minutes)
            results[f"cpu-{name}"] = statistics.median(samples)
    finally:
        server.stop()

    server = Server(kind, music, null_output(sync=True))
    try:
        server.client.raw('add "long.flac"')
        server.client.raw("play 0")
        time.sleep(2)
        results["rss"] = server.rss_kib()
        server.client.raw("stop")
    finally:
        server.stop()

    fifo = tempfile.mktemp(prefix="bench-fifo-")
    os.mkfifo(fifo)
    reads = []
    stop = threading.Event()

    def reader():
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            while not stop.is_set():
                try:
                    data = os.read(fd, 65536)
                except BlockingIOError:
                    data = b""
                if data:
                    reads.append(time.monotonic())
                else:
                    time.sleep(0.0005)
        finally:
            os.close(fd)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    server = Server(kind, music, ['audio_output {', ' type "fifo"', ' name "fifo"', f' path "{fifo}"', '}'])
    try:
        server.client.raw('add "long.flac"')
        samples = []
        for _ in range(ARGS.rounds * 4):
            server.client.raw("stop")
            time.sleep(0.3)
            start = time.monotonic()
            server.client.raw("play 0")
            deadline = start + 5
            while time.monotonic() < deadline and not any(t >= start for t in reads[-50:]):
                time.sleep(0.0005)
            first = min((t for t in reads[-50:] if t >= start), default=None)
            if first is not None:
                samples.append(first - start)
        results["first-sample"] = statistics.median(samples) if samples else None
    finally:
        server.stop()
        stop.set()
        thread.join()
        os.unlink(fifo)
    return results


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--minutes", type=float, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    ARGS = parser.parse_args()
    music = make_sources(ARGS.minutes)
    mpd = measure("mpd", music)
    nosignal = measure("nosignal", music)
    units = {"cpu-flac": ("CPU s per minute of FLAC", 1, "s"), "cpu-mp3": ("CPU s per minute of MP3", 1, "s"),
             "rss": ("resident memory while playing", 1 / 1024, "MiB"),
             "first-sample": ("play → first sample", 1000, "ms")}
    print(f"{'':34} {'MPD':>10} {'NoSignal':>10} {'ratio':>7}")
    for key, (label, scale, unit) in units.items():
        a, b = mpd.get(key), nosignal.get(key)
        if a is None or b is None:
            print(f"{label:34} {'-':>10} {'-':>10}   (not measured)")
            continue
        print(f"{label:34} {a * scale:9.3f}{unit:>1} {b * scale:9.3f}{unit:>1} {b / a if a else float('inf'):6.2f}×")
        bench_results.record("playback", key, a, b, "KiB" if key == "rss" else "s")


if __name__ == "__main__":
    main()
