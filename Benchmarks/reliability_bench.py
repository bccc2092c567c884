#!/usr/bin/python3
"""Reliability under load, NoSignal side by side with real MPD in one run, reported as ratios NoSignal/MPD.

Usage: reliability_bench.py PATH/TO/nosignal [--only SECTION[,SECTION]] [--seed N] [--only-mpd] [sizes: --help]

Every section runs MPD first, then NoSignal, each in a fresh temporary directory started as library_bench.py
starts them (null output, software mixer, a free port on 127.0.0.1, HOME in that directory, NoSignal with
`netease { enabled "no" }`), with max_connections 2000 and max_output_buffer_size 8192 KiB (MPD's default). A
library is one of library_bench.make_library's cached generated FLAC trees, moved in as `lib/` and scanned with
`update`.

crowd  CROWD_CLIENTS connections (500) x CROWD_COMMANDS commands (1,000), all connected before the clock starts;
       each sends one command and reads its whole answer before the next. The mix, in an order fixed by the seed:
       status 30 %, currentsong 15 %, ping 15 %, find artist "Artist NNN" 15 % (an artist with CROWD_LIBRARY/500
       songs), outputs 10 %, lsinfo of a 100-song folder 10 %, playlistinfo of the whole queue 5 %, on a
       CROWD_LIBRARY-song library (2,000) with a CROWD_QUEUE-song queue (200). Meanwhile IDLERS clients (50) sit in
       `idle` and one client toggles `repeat` every TOGGLE_MS ms (100), so that every idler keeps waking up and
       going back to idle. The load comes from Benchmarks/reliability_load.c, compiled here with cc: an epoll loop
       per thread (THREADS, 2) that times every round trip; it prints its own CPU time, far below the wall time,
       so it is not the bottleneck. Reported: wall time; errors (ACKs, connections the server dropped, connect
       failures; all must be 0); round-trip p50/p99 of all commands and of `find`; the server's CPU time per
       command (utime+stime from /proc/PID/stat before and after, over the commands); its RSS before, peak (VmRSS
       every 50 ms) and 2 s after; the idlers' wake-up latency (from a toggle to an idler's answer).
list   A client sends `command_list_begin`, LIST_LINES `ping` lines (40,000) and `command_list_end` in one write:
       the time to its `OK`. Meanwhile PROBERS clients (4: a server spreads its connections over its event loops),
       connected before, each send `status` every 10 ms: the maximum and the p99 of their round trips that overlap
       the list. Then the same for PIPELINE `ping`s (20,000) in one write, timed to the last `OK`. LIST_ROUNDS
       rounds (3; one when a round takes over 5 s): the median time, the worst status.
fuzz   FUZZ_REQUESTS hostile requests (20,000), the same sequence for both servers: random.Random(f"{seed}:{i}")
       makes request i (make_request(i)), so that any one can be regenerated from the seed (--seed, printed).
       Random bytes, NUL bytes, invalid UTF-8, lines of 8 KiB to 2 MiB, unbalanced quotes, 257 to 4,000
       arguments, nested, unterminated and oversized command lists, absurd numbers (seek 0 inf, seekcur 3e14,
       rangeid 1 1e30:, prio 99999999999 0, setvol 1e9, ... and templates filled with them), deep filters
       (nested parentheses and negations up to 4,000 levels, AND chains of up to 300 terms), and valid commands
       with random arguments (never `kill`), on a CROWD_LIBRARY-song library with a queue that plays (`repeat`,
       `play`, topped up every 100 requests). Each request is followed by `command_list_end` and an unknown
       command whose ACK ends its answers; a request after which the connection's state is unknown (`idle`, a
       half line) is followed by the end of input instead. A connection the server closes is replaced (allowed);
       connections are also replaced every 1 to 200 requests. Every 100 requests, and after a request left
       unanswered for FUZZ_TIMEOUT s (3), a fresh connection must get `status` answered within 1 s. Reported:
       crashes (the process exited: the FAIL line names the last three requests and the crash site from the
       Swift runtime's report, the server is restarted on the same database, without its state file if it
       crashes again while starting, and the run goes on), hangs (a status check over 1 s; past
       FUZZ_STATUS_TIMEOUT s (10) the server is killed and restarted); both must be 0. Also: connections the
       server closed, requests left unanswered, the slowest status check; the crashes grouped by site. A server
       is fuzzed for FUZZ_BUDGET s (240) and FUZZ_MAX_CRASHES crashes (30) at most. MPD 0.23.12 itself dies
       (SIGSEGV) on `addtagid`/`cleartagid` of an id that no song of its queue ever had: those requests go to
       NoSignal only.
slow   On the LARGE-song library (100,000): RSS at start; STALLERS connections (300) that send `stat` without its
       newline and stall, and NONREADERS (50) that send `listallinfo` and never read (4 KiB receive buffers), for
       HOLD s (10), with a fresh `status` in the middle (its round trip); the peak RSS; all closed; RSS 5 s later;
       how long the server's CPU stays busy after the close (until it uses under 5 % over a second). Then LISTERS
       clients (20) send `listallinfo` (an answer larger than the 8 MiB output buffer): half read
       16 KiB every 50 ms, half nothing, for WINDOW s (20); then all read freely until each answer ended (or
       nothing came for 15 s): the peak RSS (VmRSS every 50 ms) and the bytes each client received before the
       server cut it (or its whole answer).

A crash or a hang of NoSignal (and anything MPD does wrong) is printed as a `FAIL:` line when it happens and again
at the end; other results NoSignal must meet (no errors in the crowd, say) as `PROBLEM:` lines. The run goes on
where it can. Exit status 1 if there was a FAIL line (MPD misbehaved, NoSignal crashed or hung), else 0. No timed
assertions: figures and ratios only. A default run takes 12 to 15 minutes (with today's NoSignal, most of it in
the fuzz budget and the crowd).
"""
import argparse
import os
import random
import re
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_results  # noqa: E402
import library_bench  # noqa: E402
from library_bench import Ack, make_library  # noqa: E402

ARGS = None
TICKS = os.sysconf("SC_CLK_TCK")
HERE = os.path.dirname(os.path.abspath(__file__))
FAILS = []      # NoSignal crashes and hangs, and anything MPD did wrong: the exit status
PROBLEMS = []   # other results NoSignal must meet
MPD_BAD = []
SUMMARY = []    # (section, metric, mpd, nosignal, unit)


def fail(kind, message):
    line = f"FAIL: {'MPD' if kind == 'mpd' else 'NoSignal'}: {message}"
    print(line, flush=True)
    FAILS.append(line)
    if kind == "mpd":
        MPD_BAD.append(line)


def problem(kind, message):
    if kind == "mpd":
        fail(kind, message)
        return
    line = f"PROBLEM: NoSignal: {message}"
    print(line, flush=True)
    PROBLEMS.append(line)


def name(kind):
    return "MPD" if kind == "mpd" else "NoSignal"


# ---------------------------------------------------------------------------------------------------
# Servers

class Server(library_bench.Server):
    """library_bench's server with MPD's default output buffer, room for the crowd, the generated library `tree`
    (of `songs` songs) moved in as `lib/` and scanned with `update`, and a restart on the same directory."""

    def __init__(self, kind, tree=None, songs=0, scan_timeout=900):
        self.tree = None
        super().__init__(kind, binary=ARGS.binary, output_buffer_kib=8192, extra=['max_connections "2000"'])
        self.songs = songs
        self.log_mark = 0
        if tree:
            try:
                self.scan_seconds = library_bench.timed_update(self, tree, "lib", songs, scan_timeout)
                self.tree = tree
            except BaseException:
                library_bench.give_back(self, tree, "lib")
                self.stop()
                raise

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def rss_kib(self):
        try:
            return super().rss_kib()
        except OSError:
            return None

    def cpu_seconds(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def command(self):
        conf = os.path.join(self.dir, "server.conf")
        return ["mpd", "--no-daemon", "--stderr", conf] if self.kind == "mpd" else [ARGS.binary, "--config", conf]

    def log_tail(self, lines=15):
        self.log.flush()
        try:
            with open(self.log.name, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def keep_log(self, label):
        """Copies the server's log where it survives the run; returns its path."""
        folder = os.path.join(tempfile.gettempdir(), "reliability-bench-logs")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{self.kind}-{label}-{int(time.time())}-{self.pid}.log")
        self.log.flush()
        shutil.copyfile(self.log.name, path)
        return path

    def new_log(self):
        """The log since the last (re)start."""
        self.log.flush()
        with open(self.log.name, "rb") as f:
            f.seek(self.log_mark)
            return f.read().decode(errors="replace")

    def crash_summary(self):
        """What the Swift runtime's crash report says (its headline and the top frames of the crashed thread), or
        the last lines of the log."""
        text = self.new_log()
        lines = text.splitlines()
        code = self.proc.poll()
        if self.kind == "mpd" or "***" not in text:
            died = (f"killed by {signal.Signals(-code).name}" if code is not None and code < 0 and
                    -code in signal.Signals._value2member_map_ else f"exit status {code}")
            return died + ("; the log ends:\n" + "\n".join(lines[-4:]) if lines else "")
        keep = [line.strip(" *") for line in lines
                if (line.startswith("***") and "Backtracing" not in line) or "Fatal error" in line]
        for index, line in enumerate(lines):
            if line.endswith(" crashed:"):
                keep.append(line.strip())
                frames = [x for x in lines[index + 1:index + 14]
                          if x.strip() and "[thunk]" not in x and "Swift runtime failure" not in x][:3]
                for frame in frames:
                    frame = re.sub(r"0x[0-9a-f]+ ", "", frame.strip())
                    keep.append("  " + re.sub(r" in nosignal at /\S*/(Sources/)", r" at \1", frame))
        return "\n".join(keep) if keep else "".join(text.splitlines(True)[-12:])

    def crashing(self):
        """Whether the Swift runtime is writing a crash report (it takes seconds, the process still alive)."""
        return "*** Signal" in self.new_log() or "*** Program crashed" in self.new_log()

    def release_port(self):
        """Kills what still listens on the server's port after it died: the Swift crash reporter, a child of the
        crashed process, inherits its listening socket and can outlive it (the new server could not bind)."""
        deadline = time.time() + 10
        while True:
            holders = listeners(self.port) - {os.getpid()}
            if not holders:
                return
            for pid in holders:
                try:
                    with open(f"/proc/{pid}/comm") as f:
                        command = f.read().strip()
                    os.kill(pid, signal.SIGKILL)
                    print(f"  ({name(self.kind)}'s port {self.port} was still held by pid {pid} ({command}) after "
                          f"the server exited: killed it)", flush=True)
                except OSError:
                    pass
            if time.time() > deadline:
                raise RuntimeError(f"port {self.port} still held by {holders}")
            time.sleep(0.1)

    def restart(self):
        """Starts the server again in the same directory (its database, state file, playlists)."""
        if self.alive():
            library_bench.stop_process(self.proc, wait=5)
        try:
            self.client.sock.close()
        except OSError:
            pass
        self.release_port()
        self.log.write(f"\n===== restarted by reliability_bench at {time.ctime()} =====\n")
        self.log.flush()
        self.log_mark = os.path.getsize(self.log.name)
        env = dict(os.environ, HOME=os.path.join(self.dir, "home"))
        self.proc = subprocess.Popen(self.command(), env=env, stdout=self.log, stderr=self.log,
                                     stdin=subprocess.DEVNULL)
        self.client = library_bench.connect_when_up(self.port, self.proc, self.log.name, self.kind)
        self.wait_for_update(300)
        if self.songs and int(self.client.pairs("stats").get("songs", "0")) != self.songs:
            self.client.raw("update")
            time.sleep(0.1)
            self.wait_for_update(300)

    def stop(self):
        if self.tree:
            try:
                library_bench.give_back(self, self.tree, "lib")
            except OSError as error:
                print(f"  (could not move the library back to {self.tree}: {error})")
            self.tree = None
        if os.path.exists(os.path.join(self.music, "lib")):
            # Never delete a cached tree that could not be given back.
            print(f"  (left {self.music}/lib in place: it could not be moved back to the cache)")
            try:
                self.client.close()
            except Exception:
                pass
            library_bench.stop_process(self.proc)
            return
        super().stop()


def listeners(port):
    """The processes holding a socket that listens on 127.0.0.1:port (from /proc/net/tcp and /proc/PID/fd)."""
    inodes = set()
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].split(":")[1], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    pids = set()
    if not inodes:
        return pids
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                    pids.add(int(pid))
                    break
        except OSError:
            pass
    return pids


def library(count):
    """make_library's cached tree, regenerated if a killed run left its cache without the tree."""
    tree = make_library(count)
    if not os.path.isdir(tree):
        os.unlink(os.path.join(os.path.dirname(tree), "complete"))
        tree = make_library(count)
    return tree


def start_server(kind, section, tree=None, songs=0, scan_timeout=900):
    """A Server, or None (with a line saying why) when NoSignal cannot start; MPD not starting stops the run."""
    try:
        server = Server(kind, tree, songs, scan_timeout)
    except Exception as error:
        if kind == "mpd":
            raise
        fail(kind, f"{section}: could not start or scan: {type(error).__name__}: {error}")
        return None
    if tree:
        print(f"  {name(kind):8s} scanned {songs} songs in {server.scan_seconds:.1f} s", flush=True)
    return server


def check_crashed(server, section):
    """A FAIL line (with the end of the log) if the server exited; returns whether it did."""
    if server.alive():
        return False
    path = server.keep_log(section)
    fail(server.kind, f"{section}: the server process exited (status {server.proc.returncode}); log: {path}\n"
                      + indent(server.crash_summary()))
    return True


def guarded(kind, section, body):
    """body()'s result; an exception (a server that cannot start again, a connection refused...) becomes a FAIL
    line and an empty result, so that the run goes on."""
    try:
        return body()
    except Exception as error:  # noqa: BLE001
        fail(kind, f"{section}: stopped by {type(error).__name__}: {error}")
        return {}


def indent(text, prefix="      | "):
    return "".join(prefix + line + "\n" for line in text.rstrip("\n").split("\n")) if text.strip() else ""


def status_time(port, timeout, why=None):
    """Seconds for a fresh connection to get its greeting and a `status` answered; None past `timeout`. A
    connection refused, reset or closed at once is tried again until `timeout`; `why` (a list) gets the reasons."""
    started = time.perf_counter()
    while True:
        left = timeout - (time.perf_counter() - started)
        if left <= 0:
            return None
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=left) as s:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                buf = b""
                while not buf.endswith(b"\n"):
                    s.settimeout(max(0.01, timeout - (time.perf_counter() - started)))
                    chunk = s.recv(4096)
                    if not chunk:
                        raise ConnectionError("closed before its greeting")
                    buf += chunk
                s.sendall(b"status\n")
                buf = b""
                while not (buf.endswith(b"\nOK\n") or buf.startswith(b"ACK")):
                    s.settimeout(max(0.01, timeout - (time.perf_counter() - started)))
                    chunk = s.recv(65536)
                    if not chunk:
                        raise ConnectionError(f"closed after `status` ({len(buf)} bytes of answer)")
                    buf += chunk
                if buf.startswith(b"ACK"):
                    raise ConnectionError(f"`status` answered {buf.strip()!r}")
            return time.perf_counter() - started
        except socket.timeout:
            if why is not None:
                why.append(f"no answer within {timeout:g} s")
            return None
        except OSError as error:
            if why is not None:
                why.append(f"{type(error).__name__}: {error} after {time.perf_counter() - started:.2f} s")
            time.sleep(0.05)


class RssSampler:
    """VmRSS of a server every `interval` seconds in a thread: the peak."""

    def __init__(self, server, interval=0.05):
        self.server, self.interval = server, interval
        self.peak = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.done.is_set():
            rss = self.server.rss_kib()
            if rss:
                self.peak = max(self.peak, rss)
            self.done.wait(self.interval)

    def stop(self):
        self.done.set()
        self.thread.join()
        return self.peak


def record(section, metric, values, unit):
    SUMMARY.append((section, metric, values.get("mpd"), values.get("nosignal"), unit))
    if section in ("crowd", "list") and unit:  # costs (counts such as errors are checked, not compared)
        stored = {"MiB": "KiB", "ms": "s"}.get(unit, unit)  # the unit of the values (`fmt` scales them for print)
        bench_results.record("reliability", f"{section} {metric}", values.get("mpd"), values.get("nosignal"), stored)


def fmt(value, unit):
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if unit == "MiB":
        return f"{value / 1024:.1f} MiB"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "ms":
        return f"{value * 1000:.2f} ms"
    if unit == "µs":
        return f"{value / 1000:.1f} ms" if value >= 10000 else f"{value:.1f} µs"
    return f"{value:g}{(' ' + unit) if unit else ''}"


def print_table(section, rows):
    """rows: (metric, mpd, nosignal, unit)."""
    print(f"\n  {section}: MPD / NoSignal / ratio NoSignal/MPD")
    for metric, mpd, nos, unit in rows:
        line = f"    {metric:34s} {fmt(mpd, unit):>14s} {fmt(nos, unit):>14s}"
        if isinstance(mpd, (int, float)) and isinstance(nos, (int, float)) and mpd:
            line += f"   {nos / mpd:7.2f}×"
        print(line)
    print(flush=True)


# ---------------------------------------------------------------------------------------------------
# 1. Crowd

def load_generator():
    """Compiles reliability_load.c; returns the executable."""
    return bench_results.compiled("reliability_load.c", "-pthread")


def crowd_script(songs):
    """The command mix, TAG<TAB>COMMAND lines, in an order fixed by the seed."""
    rng = random.Random(f"{ARGS.seed}:crowd")
    folders = max(1, songs // 100)
    artists = min(500, songs)
    mix = [("status", 30), ("currentsong", 15), ("ping", 15), ("outputs", 10), ("playlistinfo", 5),
           ("lsinfo", 10), ("find", 15)]
    lines = []
    for _ in range(1000):
        tag = rng.choices([t for t, _ in mix], [w for _, w in mix])[0]
        if tag == "lsinfo":
            folder = rng.randrange(folders)
            command = f'lsinfo "lib/d{folder // 100:02d}/a{folder % 100:03d}"'
        elif tag == "find":
            command = f'find artist "Artist {rng.randrange(artists):03d}"'
        else:
            command = tag
        lines.append(f"{tag}\t{command}\n")
    return "".join(lines)


def crowd(kind, tree, generator, script_path):
    server = start_server(kind, "crowd", tree, ARGS.crowd_library)
    if server is None:
        return {}
    reported = False
    try:
        folders = max(1, ARGS.crowd_queue // 100)
        for a in range(folders):
            server.client.raw(f'add "lib/d{a // 100:02d}/a{a % 100:03d}"')
        queue = int(server.client.pairs("status").get("playlistlength", "0"))
        if queue != min(folders * 100, ARGS.crowd_library):
            problem(kind, f"crowd: the queue has {queue} songs after adding {folders} folders")
        server.client.raw('find artist "Artist 000"')  # so that the first requests do not pay for cold caches
        time.sleep(1)
        rss_before = server.rss_kib()
        cpu_before = server.cpu_seconds()
        sampler = RssSampler(server)
        expected = ARGS.crowd_clients * ARGS.crowd_commands
        try:
            run = subprocess.run([generator, str(server.port), script_path, str(ARGS.crowd_clients),
                                  str(ARGS.crowd_commands), str(ARGS.idlers), str(ARGS.toggle_ms), str(ARGS.threads),
                                  str(ARGS.stall)], capture_output=True, text=True, timeout=ARGS.stall * 40 + 600)
        finally:
            peak = sampler.stop()
        if check_crashed(server, "crowd"):
            reported = True
            return {}
        cpu_after = server.cpu_seconds()
        if run.returncode != 0:
            raise RuntimeError(f"load generator failed: {run.stderr.strip()}")
        out, lat = {}, {}
        for line in run.stdout.splitlines():
            if line.startswith("lat "):
                fields = dict(f.split("=", 1) for f in line.split()[1:])
                lat[fields["tag"]] = fields
            elif "=" in line:
                key, value = line.split("=", 1)
                out[key] = value
        time.sleep(2)
        rss_after = server.rss_kib()
        commands = int(out["commands"])
        errors = int(out["acks"]) + int(out["closed"]) + int(out["connect_failures"])
        result = {
            "wall": float(out["wall_s"]), "commands": commands, "errors": errors,
            "p50": float(lat["all"].get("p50_us", "nan")), "p99": float(lat["all"].get("p99_us", "nan")),
            "find p50": float(lat.get("find", {}).get("p50_us", "nan")),
            "find p99": float(lat.get("find", {}).get("p99_us", "nan")),
            "cpu/command": (cpu_after - cpu_before) / max(commands, 1) * 1e6,
            "rss before": rss_before, "rss peak": peak, "rss after": rss_after,
            "idle wake p50": float(lat["idle-wakeup"].get("p50_us", "nan")),
            "idle wake p99": float(lat["idle-wakeup"].get("p99_us", "nan")),
            "idle events min": int(out["idle_min_events"]),
        }
        print(f"  {name(kind):8s} {commands} commands in {result['wall']:.2f} s "
              f"({commands / max(result['wall'], 1e-9):,.0f}/s; connecting took {float(out['connect_s']):.2f} s); "
              f"errors {errors} (ACKs {out['acks']}, dropped {out['closed']}, "
              f"connect failures {out['connect_failures']}); load generator CPU {float(out['gen_cpu_s']):.2f} s",
              flush=True)
        for tag, fields in lat.items():
            if fields.get("n", "0") != "0":
                print(f"             {tag:13s} n {fields['n']:>7s}  p50 {float(fields['p50_us']):9.1f} µs  "
                      f"p99 {float(fields['p99_us']):9.1f} µs  max {float(fields['max_us']):10.1f} µs")
        print(f"             idlers: {ARGS.idlers} woken by {out['toggles']} toggles, events per idler "
              f"{out['idle_min_events']}-{out['idle_max_events']}, idle errors {out['idle_errors']}; "
              f"server CPU {cpu_after - cpu_before:.2f} s; RSS {fmt(rss_before, 'MiB')} → peak "
              f"{fmt(peak, 'MiB')} → {fmt(rss_after, 'MiB')}", flush=True)
        if out.get("first_error"):
            print(f"             first error: {out['first_error']}")
        if out["stalled"] != "0":
            fail(kind, f"crowd: no command completed for {ARGS.stall} s (hang); {commands} of {expected} done")
        elif commands != expected or errors:
            problem(kind, f"crowd: {commands} of {expected} commands completed, {errors} errors "
                          f"(first: {out.get('first_error')})")
        if int(out["idle_errors"]) or int(out["toggle_acks"]) or (int(out["toggles"]) > 5
                                                                  and int(out["idle_min_events"]) == 0):
            problem(kind, f"crowd: idlers: {out['idle_errors']} errors, {out['toggle_acks']} ACKs to `repeat`, "
                          f"fewest events per idler {out['idle_min_events']}")
        if status_time(server.port, 5) is None:
            fail(kind, "crowd: no `status` answer within 5 s after the crowd")
        return result
    finally:
        if not reported:
            check_crashed(server, "crowd")
        server.stop()


def section_crowd(kinds):
    print(f"\n== crowd: {ARGS.crowd_clients} connections × {ARGS.crowd_commands} commands, {ARGS.idlers} idlers, "
          f"`repeat` toggled every {ARGS.toggle_ms} ms; {ARGS.crowd_library}-song library, "
          f"{ARGS.crowd_queue}-song queue", flush=True)
    tree = library(ARGS.crowd_library)
    generator = load_generator()
    script_path = os.path.join(os.path.dirname(generator), "script")
    with open(script_path, "w") as f:
        f.write(crowd_script(ARGS.crowd_library))
    results = {}
    try:
        for kind in kinds:
            results[kind] = guarded(kind, "crowd", lambda: crowd(kind, tree, generator, script_path))
    finally:
        shutil.rmtree(os.path.dirname(generator), ignore_errors=True)
    rows = []
    for metric, unit in (("wall", "s"), ("errors", ""), ("p50", "µs"), ("p99", "µs"), ("find p50", "µs"),
                         ("find p99", "µs"), ("cpu/command", "µs"), ("rss before", "MiB"), ("rss peak", "MiB"),
                         ("rss after", "MiB"), ("idle wake p50", "µs"), ("idle wake p99", "µs")):
        values = {k: results.get(k, {}).get(metric) for k in kinds}
        rows.append((metric, values.get("mpd"), values.get("nosignal"), unit))
        record("crowd", metric, values, unit)
    print_table("crowd", rows)


# ---------------------------------------------------------------------------------------------------
# 2. Long command list and pipelining

def read_answer(sock, expected, timeout):
    """Reads until as many bytes as `expected` came, an ACK, the end of the connection or `timeout` seconds of
    silence; returns what came."""
    sock.settimeout(timeout)
    got = bytearray()
    try:
        while len(got) < len(expected):
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            got += chunk
            if got.startswith(b"ACK"):
                break
    except OSError:
        pass
    return bytes(got)


class StatusProber:
    """A client process (`status_client.c` in its period mode) that sends `status` every `period` seconds: (start,
    seconds) of each round trip, on the clock of `time.perf_counter`. A process, not a thread of this one: a thread
    waited for the interpreter's lock while the main thread read a long answer, and the rows measured that."""
    executable = None

    def __init__(self, port, period=0.01):
        if StatusProber.executable is None:
            StatusProber.executable = bench_results.compiled("status_client.c")
        self.proc = subprocess.Popen([StatusProber.executable, str(port), str(int(period * 1e6))],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.samples = []
        self.error = None

    def stop(self):
        try:
            out, err = self.proc.communicate(timeout=ARGS.hang + 5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        if self.proc.returncode != 0:
            self.error = err.strip() or f"exit status {self.proc.returncode}"
        self.samples = [(int(a) / 1e9, int(b) / 1e9) for a, b in (line.split() for line in out.splitlines())]

    def during(self, start, end):
        return [d for s, d in self.samples if s < end and s + d > start]


def timed_burst(server, payload, expected, label):
    """Sends payload in one write on a fresh connection while StatusProbers run; returns (seconds, status round
    trips overlapping it), None when the answer did not come (a FAIL line says what happened), or "crashed"."""
    probers = []
    for _ in range(ARGS.probers):  # connections are spread over a server's event loops: one per loop, or more
        probers.append(StatusProber(server.port))
        time.sleep(0.01 / ARGS.probers)
    try:
        time.sleep(0.1)
        with socket.create_connection(("127.0.0.1", server.port), timeout=ARGS.hang) as s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.recv(64)
            started = time.perf_counter()
            s.sendall(payload)
            got = read_answer(s, expected, ARGS.hang)
            ended = time.perf_counter()
        time.sleep(0.05)
    finally:
        for prober in probers:
            prober.stop()
    for prober in probers:
        if prober.error:
            fail(server.kind, f"list: a status client failed during {label}: {prober.error}")
    if got != expected:
        if check_crashed(server, "list"):
            return "crashed"
        what = (f"no complete answer within {ARGS.hang} s (hang)" if len(got) < len(expected) and not
                got.startswith(b"ACK") else f"a wrong answer ({len(got)} bytes, starting {got[:80]!r})")
        fail(server.kind, f"list: {label}: {what}")
        return None
    return ended - started, [d for prober in probers for d in prober.during(started, ended)]


def list_measure(kind):
    server = start_server(kind, "list")
    if server is None:
        return {}
    result = {}
    reported = False
    try:
        command_list = (b"command_list_begin\n" + b"ping\n" * ARGS.list_lines + b"command_list_end\n", b"OK\n")
        pipeline = (b"ping\n" * ARGS.pipeline, b"OK\n" * ARGS.pipeline)
        for label, (payload, expected) in (("list", command_list), ("pipeline", pipeline)):
            times, during = [], []
            for _ in range(ARGS.list_rounds):
                outcome = timed_burst(server, payload, expected, label)
                if outcome == "crashed":
                    reported = True
                if outcome in (None, "crashed"):
                    break
                times.append(outcome[0])
                during += outcome[1]
                if outcome[0] > 5:  # rounds are for noise on short times
                    break
            if not times:
                if reported:
                    break
                continue
            during.sort()
            result[f"{label} time"] = statistics.median(times)
            result[f"{label} status max"] = during[-1] if during else None
            result[f"{label} status p99"] = during[min(len(during) - 1, int(len(during) * 0.99))] if during else None
            print(f"  {name(kind):8s} {label:8s} {statistics.median(times) * 1000:9.1f} ms (rounds: "
                  f"{', '.join(f'{t * 1000:.0f}' for t in times)} ms); status during it: {len(during)} round trips, "
                  f"max {fmt(result[f'{label} status max'], 'ms')}, p99 {fmt(result[f'{label} status p99'], 'ms')}",
                  flush=True)
        return result
    finally:
        if not reported:
            check_crashed(server, "list")
        server.stop()


def section_list(kinds):
    print(f"\n== list: command list of {ARGS.list_lines} pings, and {ARGS.pipeline} pipelined pings, each in one "
          f"write, while {ARGS.probers} other clients send `status` every 10 ms (up to {ARGS.list_rounds} rounds)",
          flush=True)
    results = {kind: guarded(kind, "list", lambda: list_measure(kind)) for kind in kinds}
    rows = []
    for metric in ("list time", "list status max", "list status p99", "pipeline time", "pipeline status max",
                   "pipeline status p99"):
        values = {k: results[k].get(metric) for k in kinds}
        rows.append((metric, values.get("mpd"), values.get("nosignal"), "ms"))
        record("list", metric, values, "ms")
    print_table("list", rows)


# ---------------------------------------------------------------------------------------------------
# 3. Fuzzed requests

ABSURD = ["inf", "-inf", "+inf", "nan", "-nan", "NaN", "infinity", "1e30", "-1e30", "3e14", "-3e14", "1e308",
          "1e309", "-1e309", "1e-400", "4294967296", "4294967295", "-4294967296", "2147483647", "2147483648",
          "-2147483648", "-2147483649", "99999999999", "-99999999999", "99999999999999999999999999999",
          "-99999999999999999999999999999", "18446744073709551615", "18446744073709551616",
          "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
          "0x7fffffff", "0x", "-0", "+0", "-1", "0", "1", "255", "256", "65536", "1.5", "-0.0001", "9.3e15",
          "1e-5", "00000000000000000000000001", "1_000", "½", "١٢", "", " ", "1 2", "--1", "+-1", "1e", "e5",
          "0.", ".5", "5.", "1e+", "0b101", "07", "1,5"]
RANGE_FORMS = ["{a}:{b}", "{a}:", ":{b}", "{a}", ":", "{a}:{b}:{a}", "{a}::{b}", "{a}-{b}"]
NUMERIC_TEMPLATES = [
    "seek {n} {n}", "seekid {n} {n}", "seekcur {n}", "seekcur +{n}", "seekcur -{n}", "setvol {n}", "volume {n}",
    "crossfade {n}", "mixrampdb {n}", "mixrampdelay {n}", "prio {n} {r}", "prioid {n} {n}", "rangeid {n} {r}",
    "playlistinfo {r}", "playlistinfo {n}", "move {r} {n}", "moveid {n} {n}", "delete {r}", "deleteid {n}",
    "swap {n} {n}", "swapid {n} {n}", "play {n}", "playid {n}", "plchanges {n}", "plchanges {n} {r}",
    "plchangesposid {n}", "playlistid {n}", "addid \"lib/d00/a000/000001.flac\" {n}",
    "add \"lib/d00/a000/000002.flac\" {n}", "consume {n}", "single {n}", "random {n}", "repeat {n}",
    "pause {n}", "find artist \"Artist 001\" window {r}", "search any \"1\" window {r}",
    "find artist \"Artist 001\" sort -title window {r}", "list album window {r}", "load fuzzlist {r} {n}",
    "playlistmove fuzzlist {n} {n}", "playlistdelete fuzzlist {r}", "playlistadd fuzzlist \"lib/d00\" {n}",
    "enableoutput {n}", "disableoutput {n}", "toggleoutput {n}", "outputset {n} x y",
    "readpicture \"lib/d00/a000/000000.flac\" {n}", "albumart \"lib/d00/a000/000000.flac\" {n}",
    "binarylimit {n}", "addtagid {n} artist x", "cleartagid {n} artist", "replay_gain_mode {n}",
    "find \"(modified-since '{n}')\"", "find \"(added-since '{n}')\"", "find \"(audioformat == '{n}:{n}:{n}')\"",
    "find \"(prio >= {n})\"", "searchaddpl fuzzlist \"(artist == 'x')\" position {n}", "playlistinfo {n}:{n}",
    "count \"(artist == 'Artist 001')\" group {n}", "listplaylist fuzzlist {r}", "sticker find song \"\" x = {n}",
]
FIXED_ABSURD = ["seek 0 inf", "seek 0 1e30", "seekcur 3e14", "seekcur -inf", "seek 0 nan", "rangeid 1 1e30:",
                "prio 99999999999 0", "setvol 1e9", "crossfade 4294967296", "mixrampdelay inf",
                "playlistinfo 0:2147483647", "move 0:4294967295 1", "seekcur +inf", "seekcur nan", "seek 0 -1e30",
                "seekid 1 inf", "seekcur -3e14", "volume -99999999999", "delete -2147483649:", "play 4294967295",
                "mixrampdb -inf", "mixrampdb nan", "crossfade -1", "setvol -9223372036854775809",
                "rangeid 1 -1e30:1e30", "rangeid 1 nan:inf", "playlistinfo 2147483647:", "plchanges 4294967296",
                "prioid 255 4294967296", "binarylimit 0", "binarylimit 18446744073709551616",
                "search any \"x\" window 0:4294967296", "albumart \"lib/d00/a000/000000.flac\" 4294967296"]
COMMANDS = ["add", "addid", "addtagid", "albumart", "binarylimit", "channels", "clear", "clearerror", "cleartagid",
            "close", "commands", "config", "consume", "count", "crossfade", "currentsong", "decoders", "delete",
            "deleteid", "delpartition", "disableoutput", "enableoutput", "find", "findadd", "getfingerprint",
            "getvol", "idle", "list", "listall", "listallinfo", "listfiles", "listmounts", "listpartitions",
            "listplaylist", "listplaylistinfo", "listplaylists", "load", "lsinfo", "mixrampdb", "mixrampdelay",
            "move", "moveid", "moveoutput", "newpartition", "next", "noidle", "notcommands", "outputs",
            "outputset", "partition", "password", "pause", "ping", "play", "playid", "playlist", "playlistadd",
            "playlistclear", "playlistdelete", "playlistfind", "playlistid", "playlistinfo", "playlistmove",
            "playlistsearch", "plchanges", "plchangesposid", "previous", "prio", "prioid", "random", "rangeid",
            "readcomments", "readmessages", "readpicture", "rename", "repeat", "replay_gain_mode",
            "replay_gain_status", "rm", "save", "search", "searchadd", "searchaddpl", "seek", "seekcur", "seekid",
            "sendmessage", "setvol", "shuffle", "single", "stats", "status", "sticker", "stop", "subscribe", "swap",
            "swapid", "tagtypes", "toggleoutput", "unsubscribe", "update", "urlhandlers", "volume"]
WORDS = ["lib", "lib/d00", "lib/d00/a000", "lib/d00/a000/000000.flac", "lib/d00/a001/000123.flac", "Artist 001",
         "Album 0001", "artist", "album", "albumartist", "title", "any", "file", "base", "modified-since",
         "added-since", "prio", "position", "window", "sort", "group", "-title", "(artist == 'Artist 001')",
         "(artist != '')", "(!(album == 'x'))", "(file =~ '^lib')", "(any contains '1')", "(base 'lib')",
         "x", "on", "off", "oneshot", "yes", "no", "auto", "track", "album", "all", "clear", "enable", "disable",
         "nosuch", "fuzzlist", "fuzzlist2", "default", "partition2", "..", ".", "../..", "lib/../..", "~", "NetEase",
         "song", "get", "set", "delete", "list", "find", "é", "日本語", "\u200b", "\\", "\"", "'", "*", "%s%n",
         "{}", "\t", "+", "-", "=", "=="]


# MPD 0.23.12 dies (SIGSEGV) on `addtagid ID …` / `cleartagid ID …` when no song of the queue ever had that id
# (a fresh MPD, `cleartagid 0 artist`): such requests go to NoSignal only.
MPD_CRASHERS = re.compile(rb"(^|\n)[ \t]*(addtagid|cleartagid)([ \t]|$)", re.MULTILINE)


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def random_number(rng):
    return rng.choice(ABSURD) if rng.random() < 0.8 else str(rng.randint(-5, 5000))


def random_range(rng):
    return rng.choice(RANGE_FORMS).format(a=random_number(rng), b=random_number(rng))


def random_argument(rng):
    roll = rng.random()
    if roll < 0.35:
        text = rng.choice(WORDS)
    elif roll < 0.6:
        text = random_number(rng)
    elif roll < 0.7:
        text = random_range(rng)
    else:
        text = "".join(chr(rng.choice([rng.randint(32, 126), rng.randint(0xA0, 0x2FFF)]))
                       for _ in range(rng.randint(0, 20)))
    return quote(text) if rng.random() < 0.6 else (text.replace(" ", "_") or '""')


def deep_filter(rng):
    depth = rng.choice([10, 100, 300, 500, 1000, 2000, 3000, 4000])
    term = "(artist == 'Artist 001')"
    shape = rng.randrange(6)
    if shape == 0:
        expression = "(" * depth + term[1:-1] + ")" * depth
    elif shape == 1:
        expression = "(!" * depth + term + ")" * depth
    elif shape == 2:
        expression = "(" * depth + term[1:-1] + ")" * rng.randrange(depth)  # unbalanced
    elif shape == 3:
        expression = ")" * depth + "(" * depth
    elif shape == 4:
        count = rng.choice([2, 10, 100, 250, 300])
        expression = "(" + " AND ".join(f"(artist == 'Artist {k % 500:03d}')" for k in range(count)) + ")"
    else:
        count = rng.choice([10, 100, 250])
        inner = " AND ".join("(" * 5 + f"album != 'Album {k:04d}'" + ")" * 5 for k in range(count))
        expression = "(" + inner + ")"
    command = rng.choice(["find", "search", "count", "findadd", "searchadd", "list album", "playlistfind",
                          "playlistsearch", "searchaddpl fuzzlist2"])
    return f"{command} {quote(expression)}"


def make_request(i):
    """Request i of the run: (category, bytes, mode). mode "sentinel": its answers end where the ACK of a marker
    command sent after it appears; "eof": the end of input follows it (used where the connection's state is
    unknown afterwards, such as an unterminated command list inside another)."""
    rng = random.Random(f"{ARGS.seed}:{i}")
    category = rng.choices(["random bytes", "NUL bytes", "invalid UTF-8", "long line", "unbalanced quotes",
                            "1000 arguments", "command lists", "absurd numbers", "deep filter", "random arguments"],
                           [8, 5, 6, 2, 6, 4, 7, 22, 10, 30])[0]
    mode = "sentinel"
    if category == "random bytes":
        size = int(2 ** rng.uniform(0, 12))
        if rng.random() < 0.5:
            data = bytes(rng.randrange(256) for _ in range(size))
        else:
            data = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz \"'\\\n\t\r()=!:0123456789-")
                         for _ in range(size))
        if rng.random() < 0.3:
            mode = "eof"
    elif category == "NUL bytes":
        data = rng.choice([b"status\x00junk\n", b"\x00\n", b"\x00" * rng.randint(1, 4000) + b"\n", b"\x00ping\n",
                           b'find artist "Artist\x00001"\n', b'add "lib\x00/d00"\n', b"ping\x00\x00\x00\n",
                           b'lsinfo "\x00"\n', b"command_list_begin\x00\nping\n", b"setvol 5\x000\n",
                           b'sendmessage "\x00" "\x00"\n', b'save "fuzz\x00list"\n', b"pla\x00y\n",
                           b'find "(artist == \'\x00\')"\n'])
    elif category == "invalid UTF-8":
        bad = rng.choice([b"\xff", b"\xfe\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82",
                          b"\x80", b"\xf8\x88\x80\x80\x80", b"\xc3", b"\xef\xbf\xbe", b"\xe0\x80\xaf"])
        data = rng.choice([b'find artist "%s"\n', b'search any "%s"\n', b'add "lib/%s"\n', b'lsinfo "%s"\n',
                           b'save "%s"\n', b'load "%s"\n', b'playlistadd "%s" "lib"\n', b'subscribe "%s"\n',
                           b'sendmessage "%s" "%s"\n', b'tagtypes enable %s\n', b'list %s\n', b'password "%s"\n',
                           b'newpartition "%s"\n', b'find "(artist == \'%s\')"\n', b'%s\n', b'status %s\n',
                           b'sticker get song "%s" x\n', b'rename "%s" "%s"\n']).replace(b"%s", bad)
    elif category == "long line":
        size = int(2 ** rng.uniform(13, 21))  # 8 KiB to 2 MiB
        shape = rng.randrange(4)
        if shape == 0:
            data = b'find artist "' + b"A" * size + b'"\n'
        elif shape == 1:
            data = b"ping" + b" " * size + b"\n"
        elif shape == 2:
            data = b"x" * size + b"\n"
        else:
            data = b"status " + b"a" * size  # no newline: a half line of any length
            mode = "eof"
        if rng.random() < 0.3:
            size = rng.choice([8189, 8190, 8191, 8192, 8193])
            data = b"ping" + b" " * (size - 5) + b"\n"  # the line limit itself (8 KiB with its newline)
    elif category == "unbalanced quotes":
        data = rng.choice([b'find artist "abc\n', b'add "foo\\"\n', b'"\n', b'find "(artist == \\"x)"\n',
                           b'status "\\\n', b'lsinfo "a"b"\n', b"find artist 'x'\n", b'""""""\n', b'find "\n',
                           b'find artist "\\\n', b'find "(artist == \'x)"\n', b'find "(artist == "x")"\n',
                           b'save "a\n', b'"status"\n', b'ping "\n', b'search any "a\\"b\\"\n', b"\\\n",
                           b'command_list_begin\nfind artist "x\ncommand_list_end\n'])
    elif category == "1000 arguments":
        count = rng.choice([257, 1000, 1000, 4000])
        command = rng.choice(["status", "add", "find", "search", "playlistadd fuzzlist", "tagtypes enable",
                              "delete", "sticker set song", "sendmessage", "count", "list artist", "ping",
                              "find artist x", "playlistinfo", "subscribe"])
        argument = rng.choice(["x", '"artist"', "artist x", "1", '""', "lib"])
        data = (command + (" " + argument) * (count // (2 if " " in argument else 1)) + "\n").encode()
    elif category == "command lists":
        shape = rng.randrange(9)
        if shape == 0:  # nested
            k = rng.randint(2, 50)
            data = b"command_list_begin\n" * k + b"status\n" + b"command_list_end\n" * k
        elif shape == 1:  # unterminated (the marker's command_list_end ends it)
            data = b"command_list_begin\nstatus\nping\n"
        elif shape == 2:  # unterminated inside a nested one, then the end of input
            data = b"command_list_ok_begin\ncommand_list_begin\nping\n"
            mode = "eof"
        elif shape == 3:
            data = b"command_list_ok_begin\n" + b"ping\n" * rng.choice([100, 5000, 20000]) + b"command_list_end\n"
        elif shape == 4:
            data = b"command_list_end\n"
        elif shape == 5:
            inner = rng.choice([b"idle\n", b"noidle\n", b"close\n", b"command_list_ok_begin\n", b"bogus\n",
                                b"password x\n", b"idle player\n"])
            data = b"command_list_begin\nping\n" + inner + b"status\ncommand_list_end\n"
        elif shape == 6:  # over max_command_list_size (2 MiB by default)
            data = b"command_list_begin\n" + (b"status " + b"x" * 1000 + b"\n") * 2200 + b"command_list_end\n"
        elif shape == 7:
            data = b"command_list_begin\n" + b"seek 0 inf\nsetvol 1e9\nplaylistinfo 0:2147483647\n" \
                + b"command_list_end\n"
        else:
            data = b"command_list_begin\n" + b"".join(
                (" ".join([rng.choice(COMMANDS)] + [random_argument(rng) for _ in range(rng.randint(0, 3))]) + "\n")
                .encode() for _ in range(rng.randint(1, 30))) + b"command_list_end\n"
            data = data.replace(b"\nclose", b"\nping").replace(b"\nidle", b"\nping")
    elif category == "absurd numbers":
        if rng.random() < 0.3:
            data = (rng.choice(FIXED_ABSURD) + "\n").encode()
        else:
            template = rng.choice(NUMERIC_TEMPLATES)
            while "{n}" in template or "{r}" in template:
                template = template.replace("{n}", random_number(rng), 1).replace("{r}", random_range(rng), 1)
            data = (template + "\n").encode()
    elif category == "deep filter":
        data = (deep_filter(rng) + "\n").encode()
    else:
        command = rng.choice(COMMANDS)
        data = (" ".join([command] + [random_argument(rng) for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4, 6]))])
                + "\n").encode()
        if command == "idle":
            mode = "eof"
    return category, data, mode


def preview(data, limit=160):
    text = repr(data[:limit])
    return text + (f"... ({len(data)} bytes)" if len(data) > limit else "")


def accepting(port):
    """Whether the server still accepts connections (a quick sign of life after it closed one)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return True
    except OSError:
        return False


class FuzzConnection:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        greeting = b""
        while not greeting.endswith(b"\n"):
            chunk = self.sock.recv(64)
            if not chunk:
                raise ConnectionError("closed before its greeting")
            greeting += chunk

    def exchange(self, i, data, mode, timeout):
        """'answered' (the marker's ACK came, or the server closed the connection after the end of input),
        'closed' (the server closed or reset the connection before the marker) or 'timeout'."""
        marker = b"xsentinel%d" % i
        tail = b""
        try:
            self.sock.settimeout(timeout)
            if mode == "eof":
                self.sock.sendall(data)
                self.sock.shutdown(socket.SHUT_WR)
            else:
                self.sock.sendall(data + (b"" if data.endswith(b"\n") else b"\n") + b"command_list_end\n"
                                  + marker + b"\n")
            deadline = time.monotonic() + timeout
            while True:
                self.sock.settimeout(max(0.01, deadline - time.monotonic()))
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    return "answered" if mode == "eof" else "closed"
                tail = (tail + chunk)[-(len(marker) + 64):]
                if mode == "sentinel" and marker + b'"' in tail:
                    return "answered"
        except socket.timeout:
            return "timeout"
        except OSError:
            return "closed"

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def restart_after_crash(server, label):
    """Restarts a crashed or killed server. When it dies again while starting, a FAIL line says so (it cannot load
    the state the crash left) and it is started once more without its state file."""
    try:
        server.restart()
    except (RuntimeError, OSError, Ack) as error:
        path = server.keep_log(f"{label}-restart")
        fail(server.kind, f"{label}: it does not start again ({error}): it crashes while starting with the state "
                          f"file the crash left; started again without it. log: {path}\n"
                          + indent(server.crash_summary()))
        state = os.path.join(server.dir, "state")
        if os.path.exists(state):
            os.replace(state, state + ".crashed")
        server.restart()


def fuzz_measure(kind, tree):
    server = start_server(kind, "fuzz", tree, ARGS.crowd_library)
    if server is None:
        return {}
    try:
        return fuzz_run(kind, server)
    finally:
        server.stop()


def fuzz_run(kind, server):
    counts = {"answered": 0, "closed": 0, "timeout": 0}
    crashes, hangs, status_times = [], [], []
    by_category = {}
    recent = []
    rng = random.Random(f"{ARGS.seed}:reconnect")
    started = time.time()

    def prepare():
        """A queue to act on (the requests clear, delete and consume it), playing (seekcur wants a song)."""
        try:
            client = library_bench.Client(server.port)
            client.sock.settimeout(10)
            try:
                status = client.pairs("status")
                length = int(status.get("playlistlength", "0"))
                if length > 2000:
                    client.raw("clear")
                    length = 0
                if length < 20:
                    client.raw('add "lib/d00/a000"')
                if status.get("state") != "play":
                    client.raw("repeat 1")
                    client.raw("play")
            finally:
                client.close()
        except (Ack, OSError, RuntimeError, ValueError):
            pass

    def last_requests():
        return "".join(f"      #{j} [{c}] {preview(d)}\n" for j, c, d in recent[-3:])

    def crashed(i):
        """If the server exited: a FAIL line naming the last requests, and a restart. Returns whether it had."""
        if server.alive():
            return False
        path = server.keep_log(f"fuzz-{i}")
        summary = server.crash_summary()
        crashes.append((i, server.proc.returncode, list(recent[-3:]), summary))
        fail(kind, f"fuzz: crashed (exit status {server.proc.returncode}) after request #{i} (seed {ARGS.seed}); "
                   f"the last requests sent:\n{last_requests()}    log: {path}\n" + indent(summary))
        restart_after_crash(server, "fuzz")
        prepare()
        return True

    def check(i, reason):
        """The fresh-connection status check: a hang if it takes over 1 s (refused or reset connections are tried
        again meanwhile); past ARGS.fuzz_status_timeout the server is killed and restarted."""
        why = []
        took = status_time(server.port, ARGS.fuzz_status_timeout, why)
        if took is None and server.crashing():
            deadline = time.time() + 60  # the crash report of a Swift program takes seconds
            while server.alive() and time.time() < deadline:
                time.sleep(0.1)
        if took is None and crashed(i):
            return
        if took is not None:
            status_times.append(took)
            if took <= 1.0 and not why:
                return
        hangs.append((i, took, list(recent[-3:])))
        detail = f" ({'; '.join(why[:3])}{'; ...' if len(why) > 3 else ''})" if why else ""
        if took is None:
            path = server.keep_log(f"fuzz-hang-{i}")
            fail(kind, f"fuzz: hang: no `status` answer within {ARGS.fuzz_status_timeout:g} s after request #{i} "
                       f"({reason}){detail}; killed and restarted; the last requests sent:\n{last_requests()}"
                       f"    log: {path}")
            server.proc.kill()
            server.proc.wait()
            restart_after_crash(server, "fuzz")
            prepare()
        elif took > 1.0:
            fail(kind, f"fuzz: hang: `status` took {took:.2f} s after request #{i} ({reason}){detail}; "
                       f"the last requests sent:\n{last_requests()}")
        else:
            fail(kind, f"fuzz: a fresh connection was refused or dropped before `status` was answered after "
                       f"request #{i} ({reason}){detail}; the last requests sent:\n{last_requests()}")

    prepare()
    connection, left = None, 0
    stopped, skipped = None, 0
    for i in range(ARGS.fuzz_requests):
        if len(crashes) >= ARGS.fuzz_max_crashes or time.time() - started > ARGS.fuzz_budget:
            stopped = i
            why = (f"{len(crashes)} crashes" if len(crashes) >= ARGS.fuzz_max_crashes
                   else f"the time budget of {ARGS.fuzz_budget:g} s")
            fail(kind, f"fuzz: stopped after {i} of {ARGS.fuzz_requests} requests: {why} (--fuzz-max-crashes, "
                       f"--fuzz-budget)")
            break
        category, data, mode = make_request(i)
        if kind == "mpd" and MPD_CRASHERS.search(data):
            skipped += 1
            continue
        recent.append((i, category, data))
        del recent[:-5]
        if connection is None or left <= 0:
            if connection:
                connection.close()
            connection = None
            for _ in range(3):
                try:
                    connection = FuzzConnection(server.port)
                    break
                except OSError as error:
                    if not crashed(i - 1):
                        check(i - 1, f"a new connection failed: {error}")
            if connection is None:
                raise RuntimeError("no connection to the server after three attempts")
            left = rng.randint(1, 200)
        left -= 1
        outcome = connection.exchange(i, data, mode, ARGS.fuzz_timeout)
        counts[outcome] += 1
        stats = by_category.setdefault(category, {"answered": 0, "closed": 0, "timeout": 0})
        stats[outcome] += 1
        if outcome != "answered" or mode == "eof":
            connection.close()
            connection = None
            if outcome == "closed" and not accepting(server.port):
                # A dying process closes its sockets a moment before it can be reaped.
                deadline = time.time() + 2
                while server.alive() and time.time() < deadline:
                    time.sleep(0.01)
        if crashed(i):
            if connection:
                connection.close()
            connection = None
            continue
        if outcome == "timeout":
            check(i, "a request left unanswered")
        if i % 100 == 99:
            check(i, "the check every 100 requests")
            prepare()
    if connection:
        connection.close()
    run = ARGS.fuzz_requests if stopped is None else stopped
    check(run - 1, "the end")
    if not server.alive():
        crashed(run - 1)
    elapsed = time.time() - started
    print(f"  {name(kind):8s} {run - skipped} requests in {elapsed:.1f} s: answered {counts['answered']}, "
          f"connection closed by the server {counts['closed']}, unanswered for {ARGS.fuzz_timeout:g} s "
          f"{counts['timeout']}; crashes {len(crashes)}, hangs {len(hangs)}; slowest status check "
          f"{fmt(max(status_times) if status_times else None, 'ms')}", flush=True)
    if skipped:
        print(f"             {skipped} requests not sent to MPD: addtagid/cleartagid, which crash MPD 0.23.12 "
              f"(SIGSEGV) when the id is not in the queue")
    print("             per category (answered/closed/unanswered): " + ", ".join(
        f"{c} {s['answered']}/{s['closed']}/{s['timeout']}" for c, s in sorted(by_category.items())))
    return {"requests": run - skipped, "crashes": len(crashes), "hangs": len(hangs), "closed": counts["closed"],
            "unanswered": counts["timeout"],
            "status max": max(status_times) if status_times else None, "time": elapsed, "crash list": crashes}


def section_fuzz(kinds):
    print(f"\n== fuzz: {ARGS.fuzz_requests} hostile requests, seed {ARGS.seed} (--seed to change), "
          f"{ARGS.crowd_library}-song library", flush=True)
    tree = library(ARGS.crowd_library)
    results = {kind: guarded(kind, "fuzz", lambda: fuzz_measure(kind, tree)) for kind in kinds}
    rows = []
    for metric, unit in (("requests", ""), ("crashes", ""), ("hangs", ""), ("closed", ""), ("unanswered", ""),
                         ("status max", "ms"),
                         ("time", "s")):
        values = {k: results[k].get(metric) for k in kinds}
        rows.append((metric, values.get("mpd"), values.get("nosignal"), unit))
        record("fuzz", metric, values, unit)
    print_table("fuzz", rows)
    for kind in kinds:
        sites = {}
        for i, status, last, summary in results[kind].get("crash list", []):
            site = summary.split("\n")[0] + (" / " + summary.split("\n")[2].strip() if summary.count("\n") >= 2
                                             else "")
            sites.setdefault(site, []).append((i, last))
        if sites:
            print(f"  {name(kind)} crashes by site (regenerate request i with make_request(i) and --seed {ARGS.seed}):")
            for site, items in sorted(sites.items(), key=lambda kv: -len(kv[1])):
                print(f"    {len(items)}× {site}\n      after requests {', '.join(str(i) for i, _ in items[:10])}"
                      f"{', ...' if len(items) > 10 else ''}; the first time, the last requests were:")
                for j, c, d in items[0][1]:
                    print(f"        #{j} [{c}] {preview(d)}")
        print()


# ---------------------------------------------------------------------------------------------------
# 4. Slow clients and memory

def open_client(port, rcvbuf=None):
    """A connected socket past its greeting, non-blocking; `rcvbuf`: a small SO_RCVBUF set before connecting (a
    client that does not read then holds little in its kernel buffer, so the server holds the rest)."""
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    greeting = b""
    while not greeting.endswith(b"\n"):
        chunk = s.recv(64)
        if not chunk:
            raise ConnectionError("closed before its greeting")
        greeting += chunk
    s.setblocking(False)
    return s


def calm_after(server, since, limit):
    """Seconds from `since` to the start of the first second in which the server used under 5 % of a CPU; None
    if that did not come within `limit` seconds."""
    while time.time() - since < limit:
        started, before = time.time(), server.cpu_seconds()
        time.sleep(1)
        if server.cpu_seconds() - before < 0.05:
            return round(max(0.0, started - since), 1)
    return None


def slow_measure(kind, tree):
    server = start_server(kind, "slow", tree, ARGS.large, scan_timeout=1800)
    if server is None:
        return {}
    result = {}
    try:
        time.sleep(2)
        result["rss start"] = server.rss_kib()
        sampler = RssSampler(server)
        stalled, nonreaders, failures = [], [], 0
        for _ in range(ARGS.stallers):
            try:
                s = open_client(server.port)
                s.send(b"stat")
                stalled.append(s)
            except OSError:
                failures += 1
        for _ in range(ARGS.nonreaders):
            try:
                s = open_client(server.port, rcvbuf=4096)
                s.send(b"listallinfo\n")
                nonreaders.append(s)
            except OSError:
                failures += 1
        time.sleep(ARGS.hold / 2)
        during = status_time(server.port, ARGS.hang)
        time.sleep(ARGS.hold / 2)
        result["rss peak (stalled)"] = sampler.stop()
        for s in stalled + nonreaders:
            s.close()
        closed = time.time()
        if failures:
            problem(kind, f"slow: {failures} of {ARGS.stallers + ARGS.nonreaders} connections failed to open")
        if check_crashed(server, "slow"):
            return result
        if during is None:
            fail(kind, f"slow: no `status` answer within {ARGS.hang} s while {len(stalled)} clients stalled and "
                       f"{len(nonreaders)} did not read (hang)")
        result["status while stalled"] = during
        result["busy after closing"] = calm_after(server, closed, ARGS.hang)
        time.sleep(max(0.0, closed + 5 - time.time()))
        result["rss after (stalled)"] = server.rss_kib()
        print(f"  {name(kind):8s} {len(stalled)} stalled + {len(nonreaders)} not reading: RSS "
              f"{fmt(result['rss start'], 'MiB')} → peak {fmt(result['rss peak (stalled)'], 'MiB')} → "
              f"{fmt(result['rss after (stalled)'], 'MiB')} 5 s after closing; a fresh `status` meanwhile took "
              f"{fmt(during, 'ms')}; its CPU busy for {fmt(result['busy after closing'], 's')} after the close",
              flush=True)

        # Listers: half read 16 KiB every 50 ms, half not at all (with a small receive buffer) for the window; then
        # all of them read freely until every answer ended or nothing came for 15 s (60 s at most).
        sampler = RssSampler(server)
        listers = []
        for n in range(ARGS.listers):
            s = open_client(server.port, rcvbuf=None if n % 2 == 0 else 4096)
            s.send(b"listallinfo\n")
            listers.append({"sock": s, "slow": n % 2 == 0, "bytes": 0, "tail": b"", "state": None,
                            "sent": time.time(), "first": None, "ended": None})

        def take(lister, size):
            """Reads up to size bytes; returns whether anything (data or the end) came."""
            try:
                chunk = lister["sock"].recv(size)
            except BlockingIOError:
                return False
            except OSError:
                chunk = b""
            if chunk:
                lister["bytes"] += len(chunk)
                lister["tail"] = (lister["tail"] + chunk)[-16:]
                lister["first"] = lister["first"] or time.time() - lister["sent"]
            else:
                lister["state"] = "complete" if lister["tail"].endswith(b"\nOK\n") else "cut"
                lister["ended"] = time.time() - lister["sent"]
            return True

        window_end = time.time() + ARGS.window
        while time.time() < window_end:
            for lister in listers:
                if lister["slow"] and lister["state"] is None:
                    take(lister, 16384)
            time.sleep(0.05)
        last_news, drain_end = time.time(), time.time() + 60
        while time.time() - last_news < 15 and time.time() < drain_end:
            waiting = [lister for lister in listers if lister["state"] is None]
            if not waiting:
                break
            readable, _, _ = select.select([lister["sock"] for lister in waiting], [], [], 0.5)
            for lister in waiting:
                if lister["sock"] in readable and take(lister, 1 << 20):
                    last_news = time.time()
        result["rss peak (listers)"] = sampler.stop()
        outcomes = {"slow": [], "not reading": []}
        for lister in listers:
            lister["sock"].close()
            outcomes["slow" if lister["slow"] else "not reading"].append(lister)
        if check_crashed(server, "slow"):
            return result
        time.sleep(2)
        result["rss after (listers)"] = server.rss_kib()
        for label, items in outcomes.items():
            sizes = sorted(lister["bytes"] for lister in items)
            states = {state: sum(1 for lister in items if lister["state"] == state) for state in ("cut", "complete")}
            ends = sorted(lister["ended"] for lister in items if lister["ended"] is not None)
            result[f"{label} received"] = statistics.median(sizes) / 1024 if sizes else None  # KiB
            print(f"  {name(kind):8s} {len(items)} listers {label}: received {sizes[0] / (1 << 20):.1f}-"
                  f"{sizes[-1] / (1 << 20):.1f} MiB (median {statistics.median(sizes) / (1 << 20):.1f}); cut "
                  f"{states['cut']}, whole answer {states['complete']}, no end after the window + 15 s of silence "
                  f"{len(items) - len(ends)}" + (f"; ended {ends[0]:.1f}-{ends[-1]:.1f} s after the request"
                                                  if ends else ""), flush=True)
        print(f"  {name(kind):8s} listers: RSS peak {fmt(result['rss peak (listers)'], 'MiB')}, "
              f"{fmt(result['rss after (listers)'], 'MiB')} 2 s after", flush=True)
        if status_time(server.port, ARGS.hang) is None:
            fail(kind, f"slow: no `status` answer within {ARGS.hang} s after the listers")
        return result
    finally:
        if not server.alive():
            check_crashed(server, "slow")
        server.stop()


def section_slow(kinds):
    print(f"\n== slow: {ARGS.stallers} half-line clients + {ARGS.nonreaders} non-reading `listallinfo` clients for "
          f"{ARGS.hold} s, then {ARGS.listers} `listallinfo` clients (half reading 16 KiB every 50 ms, half not at "
          f"all) for {ARGS.window} s; {ARGS.large}-song library", flush=True)
    tree = library(ARGS.large)
    results = {kind: guarded(kind, "slow", lambda: slow_measure(kind, tree)) for kind in kinds}
    rows = []
    for metric, unit in (("rss start", "MiB"), ("rss peak (stalled)", "MiB"), ("rss after (stalled)", "MiB"),
                         ("status while stalled", "ms"), ("busy after closing", "s"), ("rss peak (listers)", "MiB"),
                         ("rss after (listers)", "MiB"), ("slow received", "MiB"), ("not reading received", "MiB")):
        values = {k: results[k].get(metric) for k in kinds}
        rows.append((metric, values.get("mpd"), values.get("nosignal"), unit))
        record("slow", metric, values, unit)
    print_table("slow", rows)


# ---------------------------------------------------------------------------------------------------

SECTIONS = {"crowd": section_crowd, "list": section_list, "fuzz": section_fuzz, "slow": section_slow}


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", default=".build/release/nosignal")
    parser.add_argument("--only", default=",".join(SECTIONS), help="sections, comma-separated: " + ", ".join(SECTIONS))
    parser.add_argument("--seed", type=int, default=20240601, help="the fuzz and mix seed (printed)")
    parser.add_argument("--only-mpd", action="store_true")
    parser.add_argument("--crowd-clients", type=int, default=500)
    parser.add_argument("--crowd-commands", type=int, default=1000)
    parser.add_argument("--crowd-library", type=int, default=2000)
    parser.add_argument("--crowd-queue", type=int, default=200)
    parser.add_argument("--idlers", type=int, default=50)
    parser.add_argument("--toggle-ms", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2, help="the crowd load generator's threads")
    parser.add_argument("--stall", type=int, default=60, help="seconds without progress that count as a hang")
    parser.add_argument("--list-lines", type=int, default=40000)
    parser.add_argument("--pipeline", type=int, default=20000)
    parser.add_argument("--list-rounds", type=int, default=3, help="fewer when a round takes over 5 s")
    parser.add_argument("--probers", type=int, default=4, help="status clients during the list")
    parser.add_argument("--fuzz-requests", type=int, default=20000)
    parser.add_argument("--fuzz-timeout", type=float, default=3.0, help="seconds a request may stay unanswered")
    parser.add_argument("--fuzz-status-timeout", type=float, default=10.0)
    parser.add_argument("--fuzz-max-crashes", type=int, default=30, help="stop fuzzing a server after this many")
    parser.add_argument("--fuzz-budget", type=float, default=240.0, help="seconds of fuzzing per server at most")
    parser.add_argument("--large", type=int, default=100000)
    parser.add_argument("--stallers", type=int, default=300)
    parser.add_argument("--nonreaders", type=int, default=50)
    parser.add_argument("--hold", type=float, default=10.0)
    parser.add_argument("--listers", type=int, default=20)
    parser.add_argument("--window", type=float, default=20.0)
    parser.add_argument("--hang", type=float, default=120.0, help="seconds to wait for an answer before a hang")
    ARGS = parser.parse_args()
    ARGS.binary = os.path.abspath(ARGS.binary)
    sections = [s.strip() for s in ARGS.only.split(",") if s.strip()]
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {', '.join(unknown)}; sections: {', '.join(SECTIONS)}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that cached libraries go back to the cache
    # A shorter Swift crash report (the crashed thread only): the fuzz section restarts a crashed NoSignal and goes on.
    os.environ.setdefault("SWIFT_BACKTRACE", "enable=yes,interactive=no,threads=crashed,registers=none,images=none")

    started = time.time()
    kinds = ["mpd"] + ([] if ARGS.only_mpd else ["nosignal"])
    if "nosignal" in kinds and not os.access(ARGS.binary, os.X_OK):
        print(f"  NoSignal: skipped, no executable at {ARGS.binary}")
        kinds = ["mpd"]
    print(f"reliability benchmark: sections {', '.join(sections)}; seed {ARGS.seed}; NoSignal {ARGS.binary}; "
          f"{os.cpu_count()} CPUs", flush=True)
    for section in sections:
        section_started = time.time()
        SECTIONS[section](kinds)
        print(f"  ({section}: {time.time() - section_started:.0f} s)", flush=True)

    print("\nsummary (ratio NoSignal/MPD; below 1 = NoSignal faster or smaller)")
    for section, metric, mpd, nos, unit in SUMMARY:
        line = f"  {section:6s} {metric:28s} MPD {fmt(mpd, unit):>12s}   NoSignal {fmt(nos, unit):>12s}"
        if isinstance(mpd, (int, float)) and isinstance(nos, (int, float)) and mpd:
            line += f"   ratio {nos / mpd:7.2f}×"
        print(line)
    for line in (PROBLEMS + FAILS)[:15]:
        print(line.split("\n")[0])
    if len(PROBLEMS + FAILS) > 15:
        print(f"  ... and {len(PROBLEMS + FAILS) - 15} more FAIL/PROBLEM lines above")
    print(f"(total {time.time() - started:.0f} s; {len(FAILS)} FAIL, {len(PROBLEMS)} PROBLEM lines)")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
