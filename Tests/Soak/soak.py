#!/usr/bin/python3
"""Soak test: one NoSignal under many clients, a fuzzer, NetEase faults and kill -9 restarts, all at once.

Usage:
  soak.py PATH/TO/nosignal --quick          make test: 50 clients, 50 s of load, 2 kill -9 cycles
  soak.py PATH/TO/nosignal --seconds 1500   make soak: 300 clients, a kill -9 cycle every minute for the first
                                            three quarters, then one server for the last quarter
Options: --clients N, --seed N (or SOAK_SEED; printed; default 1), --kill-every SECONDS, --rss-bound MIB,
--skip-known (leave out the inputs of the bugs in KNOWN_BUGS), --exclude TEXT (no fuzz input containing TEXT,
to look past a crash), --no-alsa, --keep (keep the temporary directory, kept anyway on failure).

One NoSignal (`fake-netease` is taken from beside it) with a generated library (Tests/Support/make_library.sh,
plus 40 s tones and hard-linked copies so that a rescan takes a while; cached in the temporary directory),
logged in to the fake NetEase with the demo cookie, playing through a null output and alsa-lib's file plugin.
Against it, at the same time:
- clients, half python-mpd2 and half raw sockets, in sessions of a few dozen commands with think times:
  listeners (status, currentsong, playlistinfo, lsinfo, find, search, list, albumart, command lists),
  queue editors (add, delete, move, prio, rangeid, play, pause, seek, next, setvol, repeat/random/single/consume),
  idle/noidle clients, stored-playlist users, sticker users, NetEase users (lsinfo NetEase, netease://song/…,
  albums, the unavailable and the trial song, FM, likes), and slow clients that never read their answers;
- a fuzzer sending hostile input (random bytes, NUL, invalid UTF-8, overlong lines, unbalanced quotes,
  1,000 arguments, nested, unterminated and oversized command lists, absurd numbers, deeply nested filters,
  commands with random arguments), each listed input once and then at random, reconnecting whenever the
  server closes its connection; and a 40,000-line command list;
- the fake NetEase's faults: expired URLs, dropped, refused and late audio downloads, failing API calls;
- kill -9 and restart cycles, while playing (or paused, or stopped) and while a database update runs.

Asserted, each violation a `FAIL` line (repeated at the end) and exit status 1:
- no crash: the server never exits except by our kill -9 (a crash is reported with its Fatal error line, the
  first NoSignal frame of the crashed thread and the fuzz inputs sent just before; the server is restarted,
  and must start again);
- no hang: every `status` of the monitor (a separate process, so that this script's own load does not skew
  it), on its open connection every 0.25 s and on a fresh connection every second, is answered within 1 s
  (less the time in which the monitor process, measured by a 20 ms ticker, or the server's event-loop threads
  while runnable, from /proc/PID/task/*/schedstat, waited for a CPU: a machine overloaded by other work, not a
  server that does not answer; unless the server itself kept 1.5 cores busy); the clients' cheap commands
  (status, currentsong, ping, …) are answered within 5 s (they see the event loop of their own connection),
  every command within 30 s, `noidle` within 10 s, and no well-behaved client is disconnected (except by a
  restart);
- no state lost: before each kill the mutating clients and the fuzzer stop, the controller sets a state (a
  40 s song playing or paused, options, volume, a sticker, a stored playlist), waits the state file's debounce
  (read from Sources/Library/StateFile.swift) plus a margin, checks that nothing changed meanwhile, and kills;
  after the restart the queue (uris, priorities, ranges), the current song, play state, options, volume (and,
  paused, the elapsed time), the sticker and the stored playlist must be as before, and the database must
  hold as many songs as before after an update (also after a kill during one);
- playback: a `playid` is heard (elapsed moves) within 15 s, and while playing, elapsed advances at least
  0.4 s per second; something reaches the alsa-lib file output;
- RSS bounded: the server's VmRSS never exceeds its VmRSS after start-up plus --rss-bound MiB (120 for up to
  100 clients, else 200: about twice the growth measured without the known bugs);
- the server stops cleanly (exit status 0) on SIGTERM at the end.
"""
import argparse
import collections
import hashlib
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Clients"))
from testkit import start_fake  # noqa: E402  (the fake NetEase server, as the client tests start it)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

# Bounds. A status takes about a millisecond when the server is healthy, so 1 s leaves a wide margin for a
# loaded 2-core CI machine while still catching a server that stops answering.
HANG_BOUND = 1.0
# The clients time their cheap commands too (status, currentsong, …): more generously, as they share this
# process with hundreds of others, but they see the event loop their connection is on, which the monitor
# may not.
CLIENT_HANG_BOUND = 5.0
CHEAP_COMMANDS = {"status", "currentsong", "ping", "outputs", "replay_gain_status", "tagtypes", "commands",
                  "urlhandlers", "decoders"}
CLIENT_TIMEOUT = 30.0
NOIDLE_BOUND = 10.0
FUZZ_TIMEOUT = 30.0
# Seconds beyond the state file's debounce before a kill: the write is a task sleeping for the debounce, then
# rendering a small file; 4 s more covers a loaded machine.
STATE_MARGIN = 4.0
LONG_SONG_SECONDS = 40
LONG_SONGS = 6
BULK_COPIES = 40

# Bugs known today (being fixed). Their inputs are in by default; --skip-known leaves them out.
KNOWN_BUGS = {
    "seek": "seek/seekid/seekcur to an absurd time (inf, 1e30, 3e14, nan) crashes the server",
    "huge-list": "a 40,000-line command list freezes the server for seconds",
    "slow-clients": "clients that do not read their answers make the server hold hundreds of MiB",
}
# A crash whose backtrace names this function is the known seek bug.
KNOWN_CRASH_FRAMES = {"FFmpegAudioDecoder.seek": "seek"}

# The fake NetEase's demo catalogue (Sources/FakeNetEase/DemoCatalog.swift): album n's track k is 5_000_000 +
# 10n + k; 5_000_045 is unavailable (no copyright), 5_000_801 a trial clip, 5_000_901… cloud uploads.
NETEASE_SONGS = [5_000_000 + 10 * n + k for n in range(1, 9) for k in range(1, 6)] + [5_000_901, 5_000_902]
UNAVAILABLE_SONG = 5_000_045
TRIAL_SONG = 5_000_801
NETEASE_DIRS = ["NetEase", "NetEase/Playlists", "NetEase/Playlists/Late Night Mix", "NetEase/Albums",
                "NetEase/Daily", "NetEase/Liked", "NetEase/Charts", "NetEase/Recent", "NetEase/Artists",
                "NetEase/Cloud"]

START = time.monotonic()
PRINT_LOCK = threading.Lock()


def now():
    return time.monotonic()


def stamp():
    return f"[{now() - START:7.1f}s]"


def say(message):
    with PRINT_LOCK:
        print(f"{stamp()} {message}", flush=True)


# ---------------------------------------------------------------------------------------------------------
# Results


class Stats:
    """Counters, latencies and violations, shared by every thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counters = collections.Counter()
        self.errors = collections.Counter()
        self.fuzz = collections.Counter()
        self.latency = {"open connection": [], "fresh connection": []}
        self.play_start = []
        self.failures = collections.OrderedDict()  # category -> [count, first messages, worst]

    def count(self, key, n=1):
        with self.lock:
            self.counters[key] += n

    def error(self, kind, n=1):
        with self.lock:
            self.errors[kind] += n

    def fail(self, category, message, severity=None):
        """A violation. The first few of a category are printed at once; all are counted."""
        with self.lock:
            entry = self.failures.setdefault(category, [0, [], None])
            entry[0] += 1
            if severity is not None and (entry[2] is None or severity > entry[2][0]):
                entry[2] = (severity, message)
            show = len(entry[1]) < 5
            if show:
                entry[1].append(message)
        if show:
            say(f"FAIL {category}: {message}")

    def failure_lines(self):
        lines = []
        with self.lock:
            for category, (count, messages, worst) in self.failures.items():
                for message in messages:
                    lines.append(f"FAIL {category}: {message}")
                if count > len(messages):
                    lines.append(f"FAIL {category}: … {count} in all")
                if worst is not None and worst[1] not in messages:
                    lines.append(f"FAIL {category}: worst: {worst[1]}")
        return lines


STATS = Stats()


# ---------------------------------------------------------------------------------------------------------
# The MPD protocol, raw


class Closed(Exception):
    """The server closed the connection (or it broke)."""


class Ack(Exception):
    def __init__(self, text):
        super().__init__(text)
        self.text = text
        m = re.match(r"ACK \[(\d+)@\d+\] \{([^}]*)\} (.*)", text)
        self.code, self.command, self.message = (m.group(1), m.group(2), m.group(3)) if m else ("?", "?", text)

    def kind(self):
        # Messages name songs and numbers; keep the stable part for counting.
        message = re.sub(r'"[^"]*"|\d+', "…", self.message)[:60]
        return f"ACK [{self.code}] {{{self.command}}} {message}"


class ProtocolViolation(Exception):
    pass


class Unsupported(Exception):
    pass


def quote(arg):
    raw = arg if isinstance(arg, bytes) else str(arg).encode()
    return b'"' + raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'


def line(name, *args):
    return name.encode() + b"".join(b" " + quote(a) for a in args) + b"\n"


class Raw:
    """A plain socket client: sends lines, reads responses (OK, ACK, list_OK, binary chunks)."""

    def __init__(self, port, timeout=CLIENT_TIMEOUT, rcvbuf=None, greeting=True):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(("127.0.0.1", port))
        except OSError:
            self.sock.close()
            raise
        self.file = self.sock.makefile("rb")
        if greeting:
            try:
                hello = self.file.readline()
            except OSError as e:
                self.close()
                raise Closed(f"before the greeting: {e!r}") from None
            if not hello:
                self.close()
                raise Closed("closed before the greeting")
            if not hello.startswith(b"OK MPD "):
                self.close()
                raise ProtocolViolation(f"greeting {hello[:100]!r}")

    def settimeout(self, seconds):
        self.sock.settimeout(seconds)

    def send(self, data):
        try:
            self.sock.sendall(data)
        except socket.timeout:
            raise
        except OSError as e:
            raise Closed(repr(e)) from None

    def read_response(self):
        """The pairs of one response up to OK; raises Ack, Closed, ProtocolViolation or socket.timeout."""
        pairs = []
        while True:
            try:
                text = self.file.readline(1 << 20)
            except socket.timeout:
                raise
            except OSError as e:
                raise Closed(repr(e)) from None
            if not text:
                raise Closed("EOF")
            if not text.endswith(b"\n"):
                if len(text) >= 1 << 20:
                    raise ProtocolViolation(f"a response line over 1 MiB: {text[:80]!r}")
                raise Closed("EOF within a line")
            if text == b"OK\n":
                return pairs
            if text.startswith(b"ACK "):
                raise Ack(text.decode("utf-8", "replace").rstrip("\n"))
            if text == b"list_OK\n":
                pairs.append(("list_OK", ""))
                continue
            key, sep, value = text[:-1].partition(b": ")
            if not sep or not key:
                raise ProtocolViolation(f"not a 'key: value' line: {text[:120]!r}")
            if key == b"binary":
                try:
                    size = int(value)
                    data = self.file.read(size)
                    end = self.file.read(1)
                except (ValueError, OSError) as e:
                    raise Closed(f"in a binary chunk: {e!r}") from None
                if len(data) != size or end != b"\n":
                    raise Closed("EOF within a binary chunk")
            pairs.append((key.decode("utf-8", "replace"), value.decode("utf-8", "replace")))

    def command(self, name, *args):
        self.send(line(name, *args))
        return self.read_response()

    def status(self):
        return dict(self.command("status"))

    def close(self):
        try:
            self.file.close()
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass


def songs_of(pairs):
    """Splits playlistinfo-style pairs into one dict per song (first value of repeated tags)."""
    songs = []
    for key, value in pairs:
        if key == "file":
            songs.append({"file": value})
        elif songs and key not in songs[-1]:
            songs[-1][key] = value
    return songs


# ---------------------------------------------------------------------------------------------------------
# The server process


class Server:
    """NoSignal: started, watched for crashes, killed with -9 and restarted. `generation` counts starts; the
    intervals in which it was down (killed, crashed, starting) are kept so that errors seen by clients and
    the monitor in those moments are not mistaken for violations."""

    def __init__(self, binary, config, env, directory, port):
        self.binary, self.config, self.env, self.dir, self.port = binary, config, env, directory, port
        self.lock = threading.RLock()
        self.proc = None
        self.log_path = None
        self.generation = 0
        self.up = threading.Event()
        self.planned = False
        self.down = []  # [start, end or None]
        self.started_at = None
        self.planned_kills = 0
        self.crashes = 0

    def start(self, timeout=60):
        with self.lock:
            if not self.down or self.down[-1][1] is not None:
                self.down.append([now(), None])
            self.generation += 1
            self.planned = False
            self.log_path = os.path.join(self.dir, f"server-{self.generation}.log")
            deadline = now() + timeout
            busy_since = None
            self.spawn()
            while now() < deadline:
                if self.proc.poll() is not None:
                    # After a crash the port may still be taken: by the crash reporter the crashing server
                    # started (it inherits the server's sockets), while it writes the backtrace, or for good
                    # when it hangs.
                    if "Address already in use" in tail(self.log_path, 5) and now() < deadline - 1:
                        busy_since = busy_since or now()
                        if now() - busy_since > 10:
                            self.free_port(now() - busy_since)
                        time.sleep(0.5)
                        self.spawn()
                        continue
                    raise RuntimeError(f"NoSignal exited with {self.proc.returncode} while starting; see "
                                       f"{self.log_path}:\n{tail(self.log_path, 15)}")
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
                        s.settimeout(5)
                        if s.recv(64).startswith(b"OK MPD "):
                            break
                except OSError:
                    time.sleep(0.05)
            else:
                raise RuntimeError(f"NoSignal did not accept connections within {timeout} s; see {self.log_path}")
            self.down[-1][1] = now()
            self.started_at = now()
            self.up.set()

    def leftovers(self):
        """Processes our servers left behind (the crash reporter, swift-backtrace): their output goes to a
        server log in our directory."""
        found = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or (self.proc is not None and int(pid) == self.proc.pid):
                continue
            try:
                if os.readlink(f"/proc/{pid}/fd/1").startswith(self.dir + "/server-"):
                    with open(f"/proc/{pid}/comm") as f:
                        found.append((int(pid), f.read().strip()))
            except OSError:
                continue
        return found

    def free_port(self, waited):
        """The port is held by what a crashed server left behind: a violation (the server cannot start again);
        those processes are ended, so that the soak can go on."""
        for pid, name in self.leftovers():
            holds = False
            try:
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    holds = holds or os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
            except OSError:
                continue
            if not holds:
                continue
            STATS.fail("crash", f"after a crash, {name} (pid {pid}), started by the crashing server, still held its "
                                f"sockets {waited:.0f} s later (NoSignal's sockets are not close-on-exec, so it "
                                f"inherits the listening socket and every client connection), and the server could "
                                f"not start again (Address already in use); ended it")
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def spawn(self):
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen([self.binary, "--config", self.config], env=self.env, stdout=log,
                                     stderr=log, stdin=subprocess.DEVNULL)
        log.close()

    def pid(self):
        proc = self.proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def kill9(self):
        """Our kill: the down interval starts before the signal. A server that died by itself just before is
        left to the crash watcher."""
        with self.lock:
            if self.proc.poll() is not None:
                raise Closed("the server died by itself before the kill")
            self.up.clear()
            self.down.append([now(), None])
            self.planned = True
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
            self.planned_kills += 1

    def check_crash(self):
        """Returns (exit code, log path, detected at) when the process ended without our kill, else None."""
        with self.lock:
            if self.proc is None or self.planned or self.proc.poll() is None:
                return None
            self.up.clear()
            # The exit happened before we noticed (polled every 0.1 s): the down interval starts a bit earlier.
            self.down.append([now() - 0.5, None])
            self.planned = True
            self.crashes += 1
            return self.proc.returncode, self.log_path, now()

    def was_down(self, start, end):
        with self.lock:
            for down_start, down_end in self.down:
                if down_start <= end and (down_end is None or down_end >= start):
                    return True
        return False

    def expected_loss(self, generation):
        """Whether a lost connection of a client connected in `generation` is explained by a restart or a
        crash (waits a moment so that a crash is noticed first)."""
        for _ in range(30):
            with self.lock:
                if self.generation != generation or not self.up.is_set() or self.proc.poll() is not None:
                    return True
            time.sleep(0.1)
        return False

    def stop(self):
        """SIGTERM; the exit code (None if it had to be killed)."""
        with self.lock:
            self.planned = True
            self.up.clear()
            if self.proc.poll() is not None:
                return self.proc.returncode
            self.proc.terminate()
            try:
                return self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return None


def tail(path, n):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def crash_signature(path):
    """(Fatal error line, first NoSignal frame of the crashed thread) from a crash log (Swift's backtracer)."""
    fatal, frame = None, None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError:
        lines = []
    for text in lines:
        if "Fatal error" in text or "Precondition failed" in text or "Assertion failed" in text:
            fatal = text.strip()[:200]
            break
    crashed = next((i for i, text in enumerate(lines) if text.startswith("Thread ") and "crashed" in text), None)
    for text in lines[crashed or 0:]:
        m = re.search(r"\s0x[0-9a-f]+ (.*?) \+ \d+ in nosignal at (\S*/Sources/\S+)", text)
        if m and "/.build/" not in m.group(2):
            frame = f"{m.group(1)[:120]} at {m.group(2).split('/Sources/')[-1]}"
            break
    if fatal is None:
        signal_line = next((t.strip() for t in lines if "*** Signal" in t), None)
        fatal = signal_line or "(no Fatal error line in the log)"
    return fatal, frame or "(no NoSignal frame in the log)"


# ---------------------------------------------------------------------------------------------------------
# Shared run state


class Gate:
    """Mutating work (clients' queue/player/option commands, the fuzzer) runs inside the gate; the controller
    closes it and waits for what is in flight before it records the state it will check after a kill."""

    def __init__(self):
        self.cond = threading.Condition()
        self.open = True
        self.inflight = 0

    def enter(self):
        with self.cond:
            if not self.open:
                return False
            self.inflight += 1
            return True

    def leave(self):
        with self.cond:
            self.inflight -= 1
            self.cond.notify_all()

    def close(self, timeout):
        with self.cond:
            self.open = False
            return self.cond.wait_for(lambda: self.inflight == 0, timeout)

    def reopen(self):
        with self.cond:
            self.open = True


class Run:
    def __init__(self, args, server, port, library):
        self.args = args
        self.server = server
        self.port = port
        self.gate = Gate()
        self.stopping = threading.Event()
        self.files = library["files"]
        self.dirs = library["dirs"]
        self.artists = library["artists"] or ["Sigur Rós"]
        self.albums = library["albums"] or ["Compilation"]
        self.long_songs = [f"Soak/long-{n}.flac" for n in range(1, LONG_SONGS + 1)]
        self.cover_files = [f for f in self.files if f.startswith("Sigur Rós/Ágætis byrjun/")] or self.files[:1]
        self.fake_url = None
        # [start, end, description] of fuzz inputs and other heavy things, to name suspects in a failure: those
        # in flight, and the last ones that ended.
        self.activity_lock = threading.Lock()
        self.in_flight = []
        self.activity = collections.deque(maxlen=2000)
        self.slow_active = 0
        self.aborted = False

    def begin(self, description):
        entry = [now(), None, description]
        with self.activity_lock:
            self.in_flight.append(entry)
        return entry

    def end(self, entry):
        with self.activity_lock:
            entry[1] = now()
            self.in_flight.remove(entry)
            self.activity.append(entry)

    def suspects(self, start, end):
        with self.activity_lock:
            entries = self.in_flight + list(self.activity)
        return [e[2] for e in entries if e[0] <= end and (e[1] is None or e[1] >= start)]


# ---------------------------------------------------------------------------------------------------------
# Clients


class RawBackend:
    kind = "raw"

    def __init__(self, port):
        self.c = Raw(port)

    def call(self, name, *args):
        if name == "albumart" or name == "readpicture":
            args = args + ("0",)
        return self.c.command(name, *args)

    def status(self):
        return self.c.status()

    def playlist(self):
        return songs_of(self.c.command("playlistinfo"))

    def command_list(self, commands):
        data = b"command_list_ok_begin\n" + b"".join(line(n, *a) for n, a in commands) + b"command_list_end\n"
        self.c.send(data)
        return self.c.read_response()

    def idle(self, subsystems, wait):
        """idle; noidle after `wait` seconds without an event. Returns (changed, whether noidle was needed)."""
        self.c.send(line("idle", *subsystems))
        ready, _, _ = select.select([self.c.sock], [], [], wait)
        if ready:
            return [v for k, v in self.c.read_response() if k == "changed"], False
        self.c.send(b"noidle\n")
        self.c.settimeout(NOIDLE_BOUND)
        try:
            return [v for k, v in self.c.read_response() if k == "changed"], True
        except socket.timeout:
            raise NoidleTimeout() from None
        finally:
            self.c.settimeout(CLIENT_TIMEOUT)

    def close(self, polite):
        if polite:
            try:
                self.c.send(b"close\n")
                self.c.settimeout(5)
                self.c.file.read()
            except (OSError, Closed):
                pass
        self.c.close()


class NoidleTimeout(Exception):
    pass


class Mpd2Backend:
    kind = "python-mpd2"

    def __init__(self, port):
        import mpd
        self.mpd = mpd
        self.c = mpd.MPDClient()
        self.c.timeout = CLIENT_TIMEOUT
        self.c.connect("127.0.0.1", port)

    def function(self, name):
        fn = getattr(self.c, name.replace(" ", "_"), None)
        if fn is None:
            raise Unsupported(name)
        return fn

    def call(self, name, *args):
        return self.function(name)(*[str(a) for a in args])

    def status(self):
        return self.c.status()

    def playlist(self):
        return self.c.playlistinfo()

    def command_list(self, commands):
        functions = [(self.function(n), a) for n, a in commands]
        self.c.command_list_ok_begin()
        for fn, args in functions:
            fn(*[str(a) for a in args])
        return self.c.command_list_end()

    def idle(self, subsystems, wait):
        # python-mpd2's blocking client has no noidle: it waits for an event (other clients make them often),
        # giving up after `wait` seconds by dropping the connection.
        self.c.idletimeout = wait
        try:
            return self.c.idle(*subsystems), False
        except (socket.timeout, TimeoutError):
            raise IdleGaveUp() from None

    def close(self, polite):
        try:
            if polite:
                self.c.close()
        except Exception:  # noqa: BLE001 - closing a connection that may be gone
            pass
        try:
            self.c.disconnect()
        except Exception:  # noqa: BLE001
            pass


class IdleGaveUp(Exception):
    pass


PERSONAS = ["listener", "editor", "netease", "idler", "listener", "editor", "stickers", "playlists", "idler",
            "netease", "listener", "editor"]


class Client(threading.Thread):
    """A realistic client: sessions of commands with think times, reconnecting after each session."""

    def __init__(self, run, index, persona, seed):
        super().__init__(name=f"client-{index}", daemon=True)
        self.run_ = run
        self.index = index
        self.persona = persona
        self.rng = random.Random(seed)
        self.use_mpd2 = index % 2 == 0
        self.ids = []
        self.length = 0
        self.version = 0
        self.last = None

    # -- plumbing

    def run(self):
        run = self.run_
        think_low, think_high = run.args.think
        while not run.stopping.is_set():
            if not run.server.up.wait(1):
                continue
            generation = run.server.generation
            time.sleep(self.rng.uniform(0, 1.0))
            backend = None
            try:
                backend = Mpd2Backend(run.port) if self.use_mpd2 else RawBackend(run.port)
                STATS.count(f"sessions ({backend.kind})")
                for _ in range(self.rng.randint(5, 60)):
                    if run.stopping.is_set():
                        break
                    self.step(backend)
                    time.sleep(self.rng.uniform(think_low, think_high))
                polite = self.rng.random() < 0.3
                backend.close(polite)
                backend = None
            except Exception as e:  # noqa: BLE001 - sorted into expected and violations below
                self.trouble(e, generation)
            finally:
                if backend is not None:
                    backend.close(False)
            time.sleep(self.rng.uniform(think_low, think_high))

    def trouble(self, e, generation):
        run = self.run_
        name = type(e).__name__
        mpd_errors = ("ConnectionError", "ConnectionResetError", "BrokenPipeError", "ConnectionRefusedError",
                      "Closed", "EOFError", "ConnectionAbortedError")
        if isinstance(e, Closed) and "before the greeting" in str(e) and "timed out" in str(e):
            if run.stopping.is_set() or run.server.expected_loss(generation):
                STATS.error("timeouts at a restart")
            else:
                STATS.fail("client timeout", f"no greeting within {CLIENT_TIMEOUT:.0f} s of connecting "
                                             f"({self.persona}, {self.kind()})")
        elif name in mpd_errors or (isinstance(e, OSError) and not isinstance(e, (socket.timeout, TimeoutError))):
            if run.stopping.is_set() or run.server.expected_loss(generation):
                STATS.error("connections lost to a restart")
            else:
                STATS.fail("dropped", f"the server dropped a well-behaved client ({self.persona}, "
                                      f"{self.kind()}) after {self.last!r}: {e!r}")
        elif isinstance(e, (socket.timeout, TimeoutError)):
            if run.stopping.is_set() or run.server.expected_loss(generation):
                STATS.error("timeouts at a restart")
            else:
                STATS.fail("client timeout", f"no answer within {CLIENT_TIMEOUT:.0f} s to {self.last!r} "
                                             f"({self.persona}, {self.kind()})")
        elif isinstance(e, NoidleTimeout):
            if not run.server.expected_loss(generation):
                STATS.fail("client timeout", f"noidle not answered within {NOIDLE_BOUND:.0f} s ({self.kind()})")
        elif isinstance(e, IdleGaveUp):
            STATS.count("idle waits given up (python-mpd2 has no noidle)")
        elif name == "ProtocolError" or isinstance(e, ProtocolViolation):
            if not run.server.expected_loss(generation):
                STATS.fail("protocol", f"malformed answer to {self.last!r} ({self.kind()}): {e}")
        elif isinstance(e, UnicodeDecodeError) and b"soak-fuzz" in e.object:
            # The fuzzer saves playlists under names that are not UTF-8. The server gives them back as they were
            # sent, as MPD does, and python-mpd2 cannot decode them until the fuzzer removes them again.
            STATS.count("answers python-mpd2 could not decode (names the fuzzer gave in bytes that are not UTF-8)")
        else:
            STATS.fail("soak", f"unexpected {e!r} in {self.persona} after {self.last!r}: "
                               f"{traceback.format_exc(limit=3)}")

    def kind(self):
        return "python-mpd2" if self.use_mpd2 else "raw"

    def do(self, backend, name, *args):
        """One command; an ACK is counted and returns None. A cheap command that takes long is a hang."""
        self.last = (name,) + args
        STATS.count(f"commands ({backend.kind})")
        started = now()
        try:
            result = backend.call(name, *args)
            took = now() - started
            if name in CHEAP_COMMANDS and took > CLIENT_HANG_BOUND:
                self.slow_answer(name, started, took)
            return result
        except Ack as e:
            STATS.error(e.kind())
        except Unsupported:
            STATS.count("commands python-mpd2 lacks (skipped)")
        except Exception as e:  # noqa: BLE001 - python-mpd2's CommandError is an ACK
            if type(e).__name__ == "CommandError":
                STATS.error(Ack("ACK " + str(e)).kind())
            else:
                raise
        return None

    def slow_answer(self, name, started, took):
        run = self.run_
        if run.server.was_down(started - 1.0, started + took + 0.5):
            return
        loop_wait, server_cpu = run.watcher.starvation(started, started + took)
        if server_cpu is not None and server_cpu < 1.5 * took and took - loop_wait <= CLIENT_HANG_BOUND:
            return  # the machine, not the server (see Monitor.judge)
        suspects = run.suspects(started, started + took)
        known = (f" [known bug huge-list: {KNOWN_BUGS['huge-list']}]"
                 if any("known bug huge-list" in x for x in suspects) else "")
        shown = "; ".join(sorted(set(suspects))[:4]) or "nothing heavy"
        STATS.fail("hang", f"a client's {name} took {took:.1f} s (bound for clients {CLIENT_HANG_BOUND:.0f} s) at "
                           f"t={started - START:.1f}s ({self.kind()}); in flight: {shown}{known}", severity=took)

    def do_list(self, backend, commands):
        self.last = ("command list",) + tuple(n for n, _ in commands)
        STATS.count(f"commands ({backend.kind})", len(commands))
        STATS.count("command lists")
        try:
            return backend.command_list(commands)
        except Ack as e:
            STATS.error(e.kind())
        except Unsupported:
            STATS.count("commands python-mpd2 lacks (skipped)")
        except Exception as e:  # noqa: BLE001
            if type(e).__name__ == "CommandError":
                STATS.error(Ack("ACK " + str(e)).kind())
            else:
                raise
        return None

    def observe(self, backend):
        status = self.do(backend, "status")
        if status is not None:
            status = status if isinstance(status, dict) else dict(status)
            check_status(status, f"client {self.index}")
            self.length = int(status.get("playlistlength", 0))
            self.version = int(status.get("playlist", 0))
        return status

    def refresh_ids(self, backend):
        self.last = ("playlistinfo",)
        STATS.count(f"commands ({backend.kind})")
        songs = backend.playlist()
        self.ids = [int(s["id"]) for s in songs if "id" in s] or [int(s["Id"]) for s in songs if "Id" in s]
        self.length = len(songs)

    def mutate(self, backend, fn):
        """Runs `fn` inside the gate; a read instead while the controller holds it."""
        gate = self.run_.gate
        if not gate.enter():
            self.observe(backend)
            return
        try:
            fn()
        finally:
            gate.leave()

    # -- behaviour

    def step(self, backend):
        getattr(self, "step_" + self.persona)(backend)

    def any_file(self):
        return self.rng.choice(self.run_.files)

    def any_id(self):
        return self.rng.choice(self.ids) if self.ids else self.rng.randint(1, 50)

    def step_listener(self, backend):
        r, run = self.rng, self.run_
        x = r.random()
        if x < 0.25:
            self.observe(backend)
            self.do(backend, "currentsong")
        elif x < 0.35:
            self.do(backend, "playlistinfo", *([] if r.random() < 0.5 else ["0:20"]))
        elif x < 0.42:
            self.do(backend, "plchanges", self.version)
        elif x < 0.55:
            self.do(backend, "lsinfo", r.choice(run.dirs))
        elif x < 0.62:
            self.do(backend, "find", "artist", r.choice(run.artists))
        elif x < 0.66:
            self.do(backend, "find", f"(Album == {filter_quote(r.choice(run.albums))})", "sort", "Title",
                    "window", "0:10")
        elif x < 0.72:
            self.do(backend, "search", "any", r.choice(["a", "ó", "Long", "夜", "the", "x"]))
        elif x < 0.76:
            self.do(backend, "list", r.choice(["album", "artist", "genre", "date"]))
        elif x < 0.78:
            self.do(backend, "list", "album", "group", "albumartist")
        elif x < 0.80:
            self.do(backend, "count", "artist", r.choice(run.artists))
        elif x < 0.83:
            self.do(backend, r.choice(["albumart", "readpicture"]), r.choice(run.cover_files))
        elif x < 0.86:
            self.do(backend, r.choice(["stats", "outputs", "listplaylists", "replay_gain_status", "tagtypes",
                                       "commands", "urlhandlers", "decoders"]))
        elif x < 0.90:
            self.do_list(backend, [("status", []), ("currentsong", []), ("playlistinfo", ["0:5"])])
        elif x < 0.91:
            self.do(backend, "listallinfo", "Soak")
        elif x < 0.915:
            self.do(backend, "listall")
        elif x < 0.92:
            self.do(backend, "update", r.choice(["Soak", "Various"]))
        else:
            # Listeners press buttons too.
            self.mutate(backend, lambda: self.press(backend))

    def press(self, backend):
        r = self.rng
        choice = r.choice(["play", "pause", "next", "previous", "setvol", "seekcur", "toggle"])
        if choice == "play":
            self.do(backend, "play")
        elif choice == "pause":
            self.do(backend, "pause", r.choice([0, 1]))
        elif choice == "next":
            self.do(backend, "next")
        elif choice == "previous":
            self.do(backend, "previous")
        elif choice == "setvol":
            self.do(backend, "setvol", r.randint(0, 100))
        elif choice == "seekcur":
            self.do(backend, "seekcur", r.choice(["+1", "-1", "0.5", "3"]))
        else:
            self.do(backend, r.choice(["repeat", "random"]), r.choice([0, 1]))

    def step_editor(self, backend):
        if self.rng.random() < 0.15:
            self.refresh_ids(backend)
            return
        self.mutate(backend, lambda: self.edit(backend))

    def edit(self, backend):
        r = self.rng
        if self.length > 120:
            self.do(backend, "delete", f"0:{r.randint(40, 80)}")
            self.length = max(0, self.length - 60)
            return
        x = r.random()
        if x < 0.18:
            self.do(backend, "add", self.any_file())
            self.length += 1
        elif x < 0.22:
            self.do(backend, "add", r.choice(["Soak", "Sigur Rós", "Various/Compilation", "It's \"quoted\""]))
        elif x < 0.30:
            result = self.do(backend, "addid", self.any_file(), r.randint(0, max(0, self.length)))
            if result is not None:
                self.ids.append(int(result if isinstance(result, str) else dict(result).get("Id", 0) or 0))
        elif x < 0.36:
            if self.length:
                self.do(backend, "delete", r.randint(0, self.length - 1))
        elif x < 0.40:
            self.do(backend, "deleteid", self.any_id())
        elif x < 0.45:
            if self.length > 1:
                self.do(backend, "move", r.randint(0, self.length - 1), r.randint(0, self.length - 1))
        elif x < 0.48:
            self.do(backend, "moveid", self.any_id(), r.randint(0, max(0, self.length - 1)))
        elif x < 0.50:
            if self.length > 1:
                self.do(backend, "swap", r.randint(0, self.length - 1), r.randint(0, self.length - 1))
        elif x < 0.52:
            self.do(backend, "shuffle")
        elif x < 0.55:
            self.do(backend, "prio", r.randint(0, 255), f"0:{r.randint(1, 5)}")
        elif x < 0.57:
            self.do(backend, "prioid", r.randint(0, 255), self.any_id())
        elif x < 0.60:
            self.do(backend, "rangeid", self.any_id(), r.choice(["0.5:1.5", ":", "1:", ":30", "0.25:0.75"]))
        elif x < 0.66:
            self.do(backend, "playid", self.any_id())
        elif x < 0.70:
            self.do(backend, "play", r.randint(0, max(0, self.length - 1)))
        elif x < 0.73:
            self.do(backend, "seekid", self.any_id(), r.choice([0, 0.5, 1, 5, 20]))
        elif x < 0.75:
            self.do(backend, "seek", r.randint(0, max(0, self.length - 1)), r.choice([0, 1, 10]))
        elif x < 0.79:
            self.do(backend, r.choice(["next", "previous", "pause", "stop"]))
        elif x < 0.84:
            option = r.choice(["repeat", "random", "single", "consume"])
            values = [0, 1, "oneshot"] if option in ("single", "consume") else [0, 1]
            self.do(backend, option, r.choice(values))
        elif x < 0.88:
            self.do(backend, "setvol", r.randint(0, 100))
        elif x < 0.89:
            self.do(backend, "volume", r.choice(["+5", "-5"]))
        elif x < 0.90:
            self.do(backend, "clear")
            self.length = 0
        elif x < 0.94:
            commands = [("add", [self.any_file()]) for _ in range(r.randint(2, 8))]
            commands.append(("move", ["0", str(r.randint(0, self.length))]) if self.length else ("status", []))
            self.do_list(backend, commands)
            self.length += len(commands) - 1
        elif x < 0.96:
            self.do(backend, "crossfade", r.choice([0, 0, 1]))
        else:
            self.refresh_ids(backend)

    def step_idler(self, backend):
        r = self.rng
        subsystems = r.choice([[], [], ["player"], ["playlist", "player"], ["mixer", "options"], ["database"],
                               ["stored_playlist", "sticker"], ["message"]])
        self.last = ("idle",) + tuple(subsystems)
        STATS.count(f"commands ({backend.kind})")
        STATS.count("idle waits")
        changed, noidle = backend.idle(subsystems, r.uniform(0.5, 8) if backend.kind == "raw" else r.uniform(3, 12))
        STATS.count("idle: noidle" if noidle else "idle: woken by a change")
        if changed:
            self.observe(backend)
            if "playlist" in changed:
                self.do(backend, "plchanges", self.version)
            if "player" in changed:
                self.do(backend, "currentsong")

    def step_playlists(self, backend):
        r = self.rng
        name = f"soak-c{self.index}-{r.randint(0, 2)}"
        x = r.random()
        if x < 0.2:
            self.do(backend, "save", name)
        elif x < 0.4:
            self.do(backend, "playlistadd", name, self.any_file())
        elif x < 0.5:
            self.do(backend, "listplaylist", name)
        elif x < 0.6:
            self.do(backend, "listplaylistinfo", name)
        elif x < 0.65:
            self.do(backend, "playlistdelete", name, 0)
        elif x < 0.7:
            self.do(backend, "playlistmove", name, 0, 1)
        elif x < 0.75:
            self.do(backend, "rename", name, f"soak-c{self.index}-{r.randint(0, 2)}")
        elif x < 0.85:
            self.do(backend, "rm", name)
        elif x < 0.9:
            self.mutate(backend, lambda: self.do(backend, "load", name))
        elif x < 0.95:
            self.do(backend, "listplaylists")
        else:
            self.do(backend, "listplaylist", r.choice(["NetEase/Late Night Mix", "Sigur Rós/Ágætis byrjun/album"]))

    def step_stickers(self, backend):
        r = self.rng
        uri = self.any_file() if r.random() < 0.8 else f"netease://song/{r.choice(NETEASE_SONGS)}"
        x = r.random()
        if x < 0.3:
            self.do(backend, "sticker set", "song", uri, r.choice(["rating", "playcount", "mood"]), r.randint(0, 10))
        elif x < 0.5:
            self.do(backend, "sticker get", "song", uri, "rating")
        elif x < 0.65:
            self.do(backend, "sticker list", "song", uri)
        elif x < 0.75:
            self.do(backend, "sticker find", "song", r.choice(["", "Sigur Rós", "Bulk/01"]), "rating")
        elif x < 0.85:
            self.do(backend, "sticker delete", "song", uri, "rating")
        elif x < 0.9:
            self.do(backend, "sticker find", "song", "", "rating", "=", "5")
        else:
            song = f"netease://song/{r.choice(NETEASE_SONGS)}"
            self.mutate(backend, lambda: self.do(backend, "sticker set", "song", song, "liked", r.choice([0, 1])))

    def step_netease(self, backend):
        r = self.rng
        x = r.random()
        if x < 0.35:
            self.do(backend, "lsinfo", r.choice(NETEASE_DIRS))
        elif x < 0.45:
            self.do(backend, "search", "any", r.choice(["夜", "Heim", "星", "Ночь", "río"]))
        elif x < 0.5:
            self.do(backend, "listplaylistinfo", "NetEase/Late Night Mix")
        elif x < 0.55:
            self.observe(backend)
        else:
            self.mutate(backend, lambda: self.play_netease(backend))

    def play_netease(self, backend):
        r = self.rng
        x = r.random()
        song = r.choice(NETEASE_SONGS)
        if x < 0.1:
            song = UNAVAILABLE_SONG
        elif x < 0.15:
            song = TRIAL_SONG
        if x < 0.55:
            result = self.do(backend, "addid", f"netease://song/{song}")
            if result is not None and r.random() < 0.6:
                song_id = result if isinstance(result, str) else dict(result).get("Id")
                if song_id:
                    self.do(backend, "playid", song_id)
        elif x < 0.65:
            self.do(backend, "add", r.choice(["netease://album/3003", "netease://album/3005"]))
        elif x < 0.7:
            self.do(backend, "add", "netease://fm")
        elif x < 0.8:
            self.do(backend, "seekcur", r.choice(["2", "+1", "5"]))
        elif x < 0.9:
            self.do(backend, "next")
        else:
            self.do(backend, "add", f"netease://song/{song}")


def filter_quote(value):
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def check_status(status, who):
    """Invariants of any status answer."""
    state = status.get("state")
    problems = []
    if state not in ("play", "pause", "stop"):
        problems.append(f"state {state!r}")
    try:
        length = int(status.get("playlistlength", "x"))
        if length < 0:
            problems.append("negative playlistlength")
        if "song" in status and not 0 <= int(status["song"]) < max(length, 1):
            problems.append(f"song {status['song']} outside a queue of {length}")
        if "volume" in status and not -1 <= int(status["volume"]) <= 100:
            problems.append(f"volume {status['volume']}")
    except ValueError as e:
        problems.append(f"not a number: {e}")
    if problems:
        STATS.fail("status", f"{who}: impossible status ({', '.join(problems)}): {status}")


class SlowClient(threading.Thread):
    """A client that pipelines database queries and never reads the answers (known bug: slow-clients): mostly a
    find with an empty answer (so the server's output limit, max_output_buffer_size, never closes it and only
    the requests it has not got to yet pile up), sometimes listallinfo (big answers: the output limit closes it)."""

    def __init__(self, run, index, seed):
        super().__init__(name=f"slow-{index}", daemon=True)
        self.run_ = run
        self.rng = random.Random(seed)

    def run(self):
        run = self.run_
        chunks = [b"find \"(Title == 'no such title')\"\n" * 2000] * 3 + [b"listallinfo\n" * 5000]
        pause = (0, 3)
        while not run.stopping.is_set():
            if not run.server.up.wait(1):
                continue
            time.sleep(self.rng.uniform(*pause))
            pause = (1, 5)
            try:
                c = Raw(run.port, timeout=10, rcvbuf=4096, greeting=False)
            except OSError:
                continue
            chunk = self.rng.choice(chunks)
            command = chunk.split(b"\n")[0].split(b" ")[0].decode()
            entry = run.begin(f"a slow client pipelining {command} without reading (known bug slow-clients)")
            with run.activity_lock:
                run.slow_active += 1
            sent = 0
            deadline = now() + self.rng.uniform(10, 25)
            try:
                while now() < deadline and not run.stopping.is_set() and sent < 1 << 30:
                    c.sock.sendall(chunk)
                    sent += len(chunk)
                STATS.count("slow client sessions held to the end")
            except (OSError, socket.timeout):
                STATS.count("slow client sessions closed by the server")
            finally:
                with run.activity_lock:
                    run.slow_active -= 1
                run.end(entry)
                c.close()
                STATS.count("slow client bytes sent", sent)


# ---------------------------------------------------------------------------------------------------------
# The fuzzer

RANDOM_ARGS = ["", "0", "1", "-1", "2", "10", "255", "256", "2147483647", "2147483648", "4294967296",
               "99999999999999999999", "1e30", "-1e30", "1e-320", "inf", "-inf", "nan", "0:", ":", "1:0", "-1:",
               "0:-1", "3:1e30", "1.5", "0x10", "+5", "-5", "Artist", "title", "any", "file", "base", "song",
               "(Artist == 'x')", "(((", ")", "!", "Soak", "Soak/long-1.flac", "Sigur Rós", "NetEase",
               "NetEase/Playlists", "netease://song/5000045", "netease://song/5000012", "netease://fm",
               "netease://album/3003", "https://music.163.com/#/playlist?id=2000000002", "éé漢字😀", "x" * 300,
               "liked", "rating", "yes", "on", "oneshot", "..", "../..", "/", "/etc/passwd", "\\", "'", '"',
               "player", "playlist", "group", "sort", "window", "-Title", "Last-Modified", "modified-since",
               "(modified-since '2020-01-01')", "(file =~ '.*')", "(any contains 'a')", "(Title != 'a')",
               "(base 'Soak')", "(audioformat =~ '44100:*:2')", "(prio >= 1)"]
# Commands the fuzzer never sends with random arguments: kill stops the server (an exit we would count as a
# crash), idle/noidle/command lists have fuzz cases of their own, close just closes.
FUZZ_EXCLUDED = {"kill", "idle", "noidle", "close", "command_list_begin", "command_list_ok_begin",
                 "command_list_end"}
SEEK_COMMANDS = {"seek", "seekid", "seekcur"}
ALL_COMMANDS = ["add", "addid", "addtagid", "albumart", "binarylimit", "channels", "clear", "clearerror",
                "cleartagid", "commands", "config", "consume", "count", "crossfade", "currentsong", "decoders",
                "delete", "deleteid", "delpartition", "disableoutput", "enableoutput", "find", "findadd",
                "getvol", "list", "listall", "listallinfo", "listfiles", "listpartitions", "listplaylist",
                "listplaylistinfo", "listplaylists", "load", "lsinfo", "mixrampdb", "mixrampdelay", "move",
                "moveid", "moveoutput", "newpartition", "next", "notcommands", "outputs", "outputset",
                "partition", "password", "pause", "ping", "play", "playid", "playlist", "playlistadd",
                "playlistclear", "playlistdelete", "playlistfind", "playlistid", "playlistinfo",
                "playlistlength", "playlistmove", "playlistsearch", "plchanges", "plchangesposid", "previous",
                "prio", "prioid", "protocol", "random", "rangeid", "readcomments", "readmessages",
                "readpicture", "rename", "repeat", "replay_gain_mode", "replay_gain_status", "rescan", "rm",
                "save", "search", "searchadd", "searchaddpl", "searchcount", "searchplaylist", "seek",
                "seekcur", "seekid", "sendmessage", "setvol", "shuffle", "single", "stats", "status", "sticker",
                "stickernames", "stickertypes", "stop", "subscribe", "swap", "swapid", "tagtypes",
                "toggleoutput", "unsubscribe", "update", "urlhandlers", "volume"]

# Absurd numbers and other out-of-range arguments; {id} is a song id of the queue.
ABSURD_TEMPLATES = ["rangeid 1 1e30:", "setvol 1e30", "setvol -1", "setvol 101", "setvol nan", "volume 2147483648",
                    "volume -2147483649", "volume nan", "rangeid {id} 1e30:", "rangeid {id} 0:1e30",
                    "rangeid {id} nan:", "rangeid {id} nan:5", "rangeid {id} 5:nan", "rangeid {id} -inf:",
                    "rangeid {id} 1:inf", "rangeid {id} 1e300:1e301", "rangeid 4294967296 1:2", "prio 1e30 0",
                    "prio 256 0", "prio -1 0", "prioid 1e30 {id}", "move 0 1e30", "move 0:99999999999 0",
                    "delete 0:99999999999999999999", "delete -1", "playlistinfo -1:", "playlistinfo 4294967296",
                    "crossfade 1e30", "crossfade -1", "crossfade 4294967296", "crossfade nan", "mixrampdb inf",
                    "mixrampdb nan", "mixrampdb -1e30", "mixrampdelay nan", "mixrampdelay inf",
                    "mixrampdelay 1e30", "replay_gain_mode x", "consume 2", "single 3", "random 2", "repeat -1",
                    "play -1", "play 99999999999", "playid 0", "playid 4294967297", "swap 0 -1", "swapid {id} -1",
                    "addid Soak/long-1.flac 1e30", "plchanges 1e30", "plchanges -1",
                    "plchangesposid 99999999999999999999", "albumart Soak/long-1.flac 1e30",
                    "readpicture Soak/long-1.flac -1", "binarylimit 1e30", "binarylimit 0", "binarylimit 63",
                    "find any x window 0:1e30", "find any x window 5:2", "find any x sort x window 0:-1",
                    "listplaylist soak-fuzz 1e30:", "playlistdelete soak-fuzz 1e30", "load soak-fuzz 0:1e30",
                    "load soak-fuzz 1e30:", "searchadd any x 1e30", "findadd any x -1", "moveid {id} -1e30",
                    "addtagid {id} artist " + "x" * 8000, "cleartagid {id} \xff", "add file:///dev/urandom",
                    "add file:///etc/passwd", "addid file:///dev/zero", "newpartition " + "p" * 1000,
                    "update " + "../" * 100, "lsinfo ../../..", "listfiles /", "readcomments /dev/zero",
                    "count group artist group album group date", "list artist window 0:1e30"]
# Known bug seek: these crash the server today (a song must be playing for the decoder to seek).
SEEK_TEMPLATES = ["seek 0 inf", "seekcur 3e14", "seek 0 1e30", "seekid {id} 1e30", "seekcur +1e300",
                  "seek 0 nan", "seekcur -1e300", "seekid {id} -inf"]


class Fuzzer(threading.Thread):
    """Hostile input on one connection at a time, reconnecting whenever the server closes it."""

    def __init__(self, run, index, seed, commands):
        super().__init__(name=f"fuzzer-{index}", daemon=True)
        self.run_ = run
        self.rng = random.Random(seed)
        self.conn = None
        self.generation = None
        self.ids = [1, 2, 3]
        skip_known = run.args.skip_known
        self.commands = [c for c in commands if c not in FUZZ_EXCLUDED and not (skip_known and c in SEEK_COMMANDS)]
        self.recent = collections.deque(maxlen=60)  # (time, case name, payload preview)
        cases = [
            (8, self.random_bytes), (3, self.nul), (6, self.invalid_utf8), (3, self.long_line),
            (5, self.unbalanced_quotes), (4, self.many_arguments), (5, self.command_lists),
            (8, self.absurd_numbers), (5, self.deep_filters), (3, self.idle_abuse), (2, self.line_endings),
            (12, self.random_command), (2, self.churn), (2, self.stickers_and_messages),
        ]
        if not skip_known:
            cases.append((3, self.absurd_seeks))
        self.cases = [fn for weight, fn in cases for _ in range(weight)]
        # Cases that cannot change the player, the queue or the options run while the controller holds the
        # gate too (some take long: the controller need not wait for them).
        self.read_only = {self.random_bytes, self.long_line, self.command_lists, self.deep_filters,
                          self.idle_abuse, self.line_endings, self.churn}
        # First every listed input once (so each run tries all of them), in an order of the seed, then at random.
        plan = [(self.absurd_numbers, t) for t in ABSURD_TEMPLATES]
        plan += [(fn, None) for _, fn in cases]
        if not skip_known:
            plan += [(self.absurd_seeks, t) for t in SEEK_TEMPLATES[:3]]
        self.rng.shuffle(plan)
        self.plan = collections.deque(plan)

    def run(self):
        run = self.run_
        while not run.stopping.is_set():
            if not run.server.up.wait(1):
                continue
            planned = bool(self.plan)
            case, argument = self.plan[0] if planned else (self.rng.choice(self.cases), None)
            gated = case not in self.read_only
            if gated and not run.gate.enter():
                # The controller holds the gate: something that cannot change the state meanwhile.
                planned, argument, gated = False, None, False
                case = self.rng.choice(sorted(self.read_only, key=lambda f: f.__name__))
            if planned:
                self.plan.popleft()
            try:
                case(argument) if argument else case()
            except Exception as e:  # noqa: BLE001 - a bug in the fuzzer must not end the soak silently
                STATS.fail("soak", f"fuzzer: {e!r}: {traceback.format_exc(limit=4)}")
                self.drop()
            finally:
                if gated:
                    run.gate.leave()
            time.sleep(self.rng.uniform(0.01, 0.1))

    # -- plumbing

    def connection(self):
        run = self.run_
        if self.conn is not None and self.generation != run.server.generation:
            self.drop()
        if self.conn is None:
            self.generation = run.server.generation
            self.conn = Raw(run.port, timeout=FUZZ_TIMEOUT)
            STATS.count("fuzzer connections")
        return self.conn

    def drop(self):
        if self.conn is not None:
            self.conn.close()
        self.conn = None

    def excluded(self, payload):
        return any(text.encode() in payload for text in self.run_.args.exclude)

    def note(self, name, payload):
        preview = payload[:160] + (b"..." if len(payload) > 160 else b"")
        self.recent.append((now(), name, f"{preview!r} ({len(payload)} bytes)"))
        STATS.fuzz[name] += 1

    def send(self, name, payload, answers=1, timeout=FUZZ_TIMEOUT):
        """Sends `payload` and reads `answers` responses; the server may close the connection instead."""
        run = self.run_
        if self.excluded(payload):
            STATS.count("fuzz inputs excluded (--exclude)")
            return
        self.note(name, payload)
        try:
            conn = self.connection()
        except (OSError, Closed, ProtocolViolation) as e:
            if not run.server.expected_loss(self.generation or run.server.generation):
                STATS.fail("fuzz", f"cannot connect: {e!r}")
            self.drop()
            return
        generation = self.generation
        started = now()
        conn.settimeout(timeout)
        entry = run.begin(f"fuzz {name}: {payload[:60]!r}")
        try:
            conn.send(payload)
            for _ in range(answers):
                try:
                    conn.read_response()
                    STATS.count("fuzz answers OK")
                except Ack:
                    STATS.count("fuzz answers ACK")
        except Closed:
            STATS.count(f"fuzz connections closed by the server after {name}")
            self.drop()
        except socket.timeout:
            if not run.server.expected_loss(generation):
                STATS.fail("fuzz", f"no answer within {timeout:.0f} s to {name}: {payload[:200]!r}",
                           severity=now() - started)
            self.drop()
        except ProtocolViolation as e:
            if not run.server.expected_loss(generation):
                STATS.fail("protocol", f"malformed answer to fuzz {name} {payload[:120]!r}: {e}")
            self.drop()
        finally:
            run.end(entry)
            if self.conn is not None:
                self.conn.settimeout(FUZZ_TIMEOUT)

    def send_and_hang_up(self, name, payload, half_close=True):
        """On a new connection: sends `payload`, then closes the writing side and reads until the server
        closes (for inputs whose number of answers is not ours to predict), or just hangs up."""
        run = self.run_
        if self.excluded(payload):
            STATS.count("fuzz inputs excluded (--exclude)")
            return
        self.note(name, payload)
        generation = run.server.generation
        try:
            conn = Raw(run.port, timeout=FUZZ_TIMEOUT)
        except (OSError, Closed, ProtocolViolation):
            return
        entry = run.begin(f"fuzz {name}: {payload[:60]!r}")
        try:
            conn.sock.sendall(payload)
            if half_close:
                conn.sock.shutdown(socket.SHUT_WR)
                while conn.sock.recv(1 << 16):
                    pass
        except socket.timeout:
            if not run.server.expected_loss(generation):
                STATS.fail("fuzz", f"connection still open {FUZZ_TIMEOUT:.0f} s after the client's EOF, "
                                   f"after {name}: {payload[:200]!r}")
        except OSError:
            pass
        finally:
            run.end(entry)
            conn.close()

    def some_id(self):
        if self.rng.random() < 0.2:
            try:
                songs = songs_of(self.connection().command("playlistinfo", "0:50"))
                self.ids = [int(s["Id"]) for s in songs if "Id" in s] or self.ids
            except (Ack, Closed, OSError, ProtocolViolation, ValueError):
                self.drop()
        return self.rng.choice(self.ids)

    # -- cases

    def random_bytes(self):
        r = self.rng
        first = bytes([r.choice(list(range(0, 9)) + list(range(14, 32)) + list(range(0x80, 0x100)))])
        body = bytes(r.randrange(256) for _ in range(r.randint(0, 300))).replace(b"\n", b" ")
        self.send("random bytes", first + body + b"\n")

    def nul(self):
        payload = self.rng.choice([b"status\x00\n", b"\x00\n", b"play\x00 1\n", b'find "title\x00" x\n',
                                   b'add "\x00"\n', b"ping\x00ping\n", b'lsinfo "Soak\x00/../.."\n'])
        self.send("NUL", payload)

    def invalid_utf8(self):
        r = self.rng
        bad = r.choice([b"\xff\xfe", b"\xc3\x28", b"\xed\xa0\x80", b"\xf0\x28\x8c\x28", b"\xe2\x82", b"\x80",
                        b"a\xffb", b"\xf8\x88\x80\x80\x80"])
        template = r.choice([b'find title "%s"', b'add "%s"', b'search any "%s"', b'lsinfo "%s"',
                             b'sticker set song "%s" x 1', b'save "soak-fuzz-%s"', b'sendmessage "%s" "%s"',
                             b'subscribe "%s"', b"tagtypes enable %s", b'find "(Artist == \'%s\')"', b"list %s",
                             b'playlistadd "soak-fuzz" "%s"', b'rename "soak-fuzz" "%s"', b'%s',
                             b'addtagid 1 title "%s"', b'sticker get song "Soak/long-1.flac" "%s"'])
        payload = template.replace(b"%s", bad) + b"\n"
        if template.startswith(b"save ") or template.startswith(b"rename "):
            # The playlist goes again at once: its name comes back in listings as those bytes, as from MPD.
            name = b"soak-fuzz-" + bad if template.startswith(b"save ") else bad
            payload += b'rm "' + name + b'"\n'
        self.send("invalid UTF-8", payload)

    def long_line(self):
        r = self.rng
        size = r.choice([8100, 8191, 8192, 9000, 65536, 1 << 20])
        payload = (b"lsinfo \"" + b"a" * size + b"\"\n") if r.random() < 0.5 else (b"x" * size + b"\n")
        self.send("overlong line", payload)
        if r.random() < 0.2:
            # A huge line with no newline at all, then hang up.
            self.send_and_hang_up("overlong line without newline", b"a" * (5 << 20), half_close=False)

    def unbalanced_quotes(self):
        payload = self.rng.choice([b'find "title\n', b'find title "abc\n', b'"\n', b'add "\n', b'find title "a\\"\n',
                                   b'lsinfo "a\\\n', b'search "any" "x" "\n', b"find 'title' x\n",
                                   b'"status"\n', b'status"\n', b'find title "a"b"\n', b'add "a""b"\n',
                                   b'find "(Artist == \\"x)"\n', b'sticker set song "a b x 1\n'])
        self.send("unbalanced quotes", payload)

    def many_arguments(self):
        r = self.rng
        n = r.choice([100, 1000, 2000])
        payload = r.choice([b"status" + b" a" * n, b"find" + b' artist "x"' * (n // 2), b"add" + b' "x"' * n,
                            b"tagtypes enable" + b" Artist" * n, b"playlistinfo" + b" 1" * n,
                            b"sticker find song \"\" x" + b" = y" * (n // 2), b"ping" + b' ""' * n,
                            b"search" + b" any a" * (n // 2), b"list album group artist" + b" group date" * (n // 4)])
        self.send("1000 arguments", payload + b"\n")
        if r.random() < 0.3:
            # idle with a thousand (valid) subsystems, then noidle: one answer.
            self.send("idle with 1000 subsystems", b"idle" + b" player" * 1000 + b"\nnoidle\n")

    def command_lists(self):
        r = self.rng
        x = r.random()
        if x < 0.2:
            self.send_and_hang_up("nested command list", b"command_list_begin\ncommand_list_begin\nstatus\n"
                                  b"command_list_end\ncommand_list_end\nping\n")
        elif x < 0.35:
            self.send_and_hang_up("unterminated command list",
                                  b"command_list_ok_begin\nstatus\n" + b"currentsong\n" * r.randint(0, 5000),
                                  half_close=r.random() < 0.5)
        elif x < 0.45:
            self.send("command_list_end without begin", b"command_list_end\n")
        elif x < 0.6:
            self.send("command list with an unknown command",
                      b"command_list_begin\nstatus\nbogus\nping\ncommand_list_end\n")
        elif x < 0.7:
            self.send_and_hang_up("idle in a command list", b"command_list_begin\nidle\ncommand_list_end\nnoidle\n")
        elif x < 0.8:
            # Over max_command_list_size (2 MiB by default) in 300 long lines (short lines would be the known bug
            # huge-list): the server closes the connection, or answers.
            self.send("oversized command list", b"command_list_begin\n" + (b'ping "' + b"x" * 8000 + b'"\n') * 300
                      + b"command_list_end\n", timeout=60)
        elif x < 0.9:
            self.send_and_hang_up("close in a command list", b"command_list_begin\nclose\nstatus\ncommand_list_end\n")
        else:
            self.send("command list of 1,000 mixed commands", b"command_list_ok_begin\n" +
                      b"status\ncurrentsong\nplaylistinfo 0:3\nlsinfo Soak\n" * 250 + b"command_list_end\n",
                      timeout=120)

    def absurd_numbers(self, template=None):
        r = self.rng
        song = self.some_id()
        text = (template or r.choice(ABSURD_TEMPLATES)).replace("{id}", str(song))
        self.send("absurd numbers", text.encode("utf-8", "surrogateescape") + b"\n")

    def absurd_seeks(self, template=None):
        """Known bug seek: seeking to an absurd time crashes the server today."""
        r = self.rng
        song = self.some_id()
        text = (template or r.choice(SEEK_TEMPLATES)).replace("{id}", str(song))
        if template or r.random() < 0.5:
            # Seeking a song that plays makes the decoder seek.
            self.send("absurd seek (known bug seek)", f"play\n{text}\n".encode(), answers=2)
        else:
            self.send("absurd seek (known bug seek)", text.encode() + b"\n")

    def deep_filters(self):
        r = self.rng
        depth = r.choice([10, 100, 1000, 2000, 4000])
        command = r.choice(["find", "search", "count", "list album", "searchcount", "playlistsearch", "playlistfind"])
        kind = r.random()
        if kind < 0.4:
            expression = "(" * depth + "Artist == 'x'" + ")" * depth
        elif kind < 0.6:
            expression = "(!" * depth + "(Artist == 'x')" + ")" * depth
        elif kind < 0.75:
            expression = "(" * depth
        elif kind < 0.9:
            expression = "(" + " AND ".join(["(Title != 'a')"] * (depth // 20 + 1)) + ")"
        else:
            expression = ")" * depth + "(" * depth
        payload = command.encode() + b" " + quote(expression) + b"\n"
        if len(payload) > 8192:
            payload = payload[:8000] + b"\"\n"
        self.send("deep filter", payload)

    def idle_abuse(self):
        r = self.rng
        x = r.random()
        if x < 0.3:
            self.send_and_hang_up("noidle without idle", b"noidle\nping\n")
        elif x < 0.5:
            self.send("idle with a bogus subsystem", b"idle bogus\n")
        elif x < 0.7:
            # A command other than noidle while idle: MPD closes the connection.
            self.send_and_hang_up("command while idle", b"idle\nstatus\n")
        elif x < 0.85:
            self.send("idle then noidle", b"idle\nnoidle\n")
        else:
            self.send_and_hang_up("idle and hang up", b"idle player\n", half_close=False)

    def line_endings(self):
        payload = self.rng.choice([b"status\r\n", b"status \t\n", b"   \n", b"\n", b"\t\n", b"ping\r\r\n",
                                   b"PING\n", b"Status\n"])
        self.send("odd line endings", payload)

    def random_command(self):
        r = self.rng
        name = r.choice(self.commands)
        if name == "sticker":
            name = "sticker " + r.choice(["get", "set", "delete", "list", "find", "inc", "dec", "x"])
        args = []
        for _ in range(r.choice([0, 1, 1, 2, 2, 3, 4, 6])):
            value = r.choice(RANDOM_ARGS)
            args.append(quote(value) if r.random() < 0.7 else value.encode().replace(b"\n", b" "))
        payload = name.encode() + b"".join(b" " + a for a in args) + b"\n"
        if name.startswith("update") or name.startswith("rescan"):
            STATS.count("fuzz updates")
        self.send("random command", payload)

    def churn(self):
        r = self.rng
        x = r.random()
        if x < 0.4:
            self.send_and_hang_up("connect and hang up", b"", half_close=False)
        elif x < 0.7:
            self.send_and_hang_up("half a line and hang up", b"playlistinf", half_close=False)
        else:
            self.send_and_hang_up("request and hang up", b"listallinfo\nplaylistinfo\n", half_close=False)

    def stickers_and_messages(self):
        r = self.rng
        x = r.random()
        if x < 0.3:
            self.send("huge sticker", b'sticker set song "Soak/long-1.flac" soak-fuzz "' + b"v" * 8000 + b'"\n')
        elif x < 0.5:
            self.send("huge sticker name", b'sticker set song "Soak/long-1.flac" "' + b"n" * 8000 + b'" 1\n')
        elif x < 0.8:
            n = r.randint(10, 200)
            self.send("message flood", b"subscribe soak-fuzz\n" + b'sendmessage soak-fuzz "' + b"m" * 1000 +
                      b'"\n' * 1 + (b'sendmessage soak-fuzz "' + b"m" * 1000 + b'"\n') * (n - 1) +
                      b"readmessages\n", answers=n + 2)
        else:
            self.send("many channels", b"".join(b"subscribe c%d\n" % i for i in range(300)) + b"channels\n",
                      answers=301)


class HugeLists(threading.Thread):
    """A 40,000-line command list now and then (known bug: huge-list); 2,000 lines with --skip-known."""

    def __init__(self, run, times):
        super().__init__(name="huge-lists", daemon=True)
        self.run_ = run
        self.times = times
        self.answered_at = None

    def run(self):
        run = self.run_
        lines = 2000 if run.args.skip_known else 40000
        for at in [t for t in self.times for _ in range(3)]:
            while now() < at and not run.stopping.is_set():
                time.sleep(0.2)
            if run.stopping.is_set():
                return
            if not run.server.up.wait(30):
                continue
            if self.answered_at == at:
                continue
            # Read-only: runs outside the gate.
            generation = run.server.generation
            # Mostly ping, so that the answer (list_OK per command) stays far below max_output_buffer_size.
            payload = b"command_list_ok_begin\n" + (b"ping\n" * 39 + b"status\n") * (lines // 40) \
                + b"command_list_end\n"
            STATS.fuzz[f"{lines}-line command list"] += 1
            entry = run.begin(f"a {lines}-line command list" + ("" if run.args.skip_known
                                                                 else " (known bug huge-list)"))
            started = now()
            try:
                c = Raw(run.port, timeout=180)
                c.send(payload)
                c.read_response()
                took = now() - started
                say(f"a {lines}-line command list was answered in {took:.1f} s")
                STATS.count(f"{lines}-line command lists answered")
                self.answered_at = at
                c.close()
            except Ack as e:
                STATS.error(e.kind())
            except (Closed, OSError) as e:
                if not run.server.expected_loss(generation):
                    STATS.fail("fuzz", f"the {lines}-line command list got no answer: {e!r}")
                    self.answered_at = at
                else:
                    say(f"a {lines}-line command list was cut short by a restart; once more")
                    deadline = now() + 60
                    while now() < deadline and not run.stopping.is_set() and not (
                            run.server.generation != generation and run.server.up.is_set()):
                        time.sleep(0.1)
            finally:
                run.end(entry)


# ---------------------------------------------------------------------------------------------------------
# NetEase faults


class Chaos(threading.Thread):
    """Faults from the fake NetEase: expired URLs, dropped/refused/late audio, failing API calls."""

    def __init__(self, run, seed):
        super().__init__(name="chaos", daemon=True)
        self.run_ = run
        self.rng = random.Random(seed)

    def control(self, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.run_.fake_url + path, data=data)
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def fault(self, path, kind, value=None, count=1):
        body = {"path": path, "fault": kind, "count": count}
        if value is not None:
            body["value"] = value
        if self.control("/__fake/fault", body) != {"ok": True}:
            STATS.fail("soak", f"the fake NetEase refused the fault {body}")
        STATS.count(f"NetEase faults: {kind} on {path.split('/')[1] if path.startswith('/audio') else path}")

    def run(self):
        run, r = self.run_, self.rng
        last_reset = now()
        while not run.stopping.wait(r.uniform(2, 6)):
            try:
                if now() - last_reset > 60:
                    # Clears the fake's request log (and unused faults), so it does not grow for the whole soak.
                    self.control("/__fake/reset", {})
                    last_reset = now()
                song = r.choice(NETEASE_SONGS)
                x = r.random()
                if x < 0.2:
                    self.control("/__fake/expire", {})
                    STATS.count("NetEase faults: expired every URL")
                elif x < 0.4:
                    self.fault(f"/audio/{song}", "drop", r.randint(2000, 60000), r.randint(1, 3))
                elif x < 0.5:
                    self.fault(f"/audio/{song}", "disconnect")
                elif x < 0.6:
                    self.fault(f"/audio/{song}", "status", r.choice([403, 404, 500, 503]))
                elif x < 0.65:
                    self.fault(f"/audio/{song}", "delay", r.uniform(1, 4))
                elif x < 0.75:
                    self.fault("/api/song/enhance/player/url", r.choice(["status", "code", "malformed"]),
                               r.choice([500, -460, 404, 502]))
                elif x < 0.8:
                    self.fault("/api/song/enhance/player/url", "delay", r.uniform(1, 3))
                elif x < 0.85:
                    self.fault("/api/v3/song/detail", r.choice(["malformed", "disconnect"]))
                elif x < 0.9:
                    self.fault("/api/cloudsearch/pc", r.choice(["status", "delay"]), r.choice([500, 2]))
                elif x < 0.95:
                    self.fault("/api/v6/playlist/detail", r.choice(["code", "malformed", "disconnect"]), -447)
                elif not run.args.quick:
                    # NetEase not answering at all (the fake holds the request for two minutes): longer than the
                    # quick form runs.
                    self.fault("/api/song/enhance/player/url", "timeout")
                else:
                    self.fault("/api/song/enhance/player/url", "delay", r.uniform(1, 3))
            except OSError as e:
                STATS.fail("soak", f"the fake NetEase control API failed: {e!r}")


# ---------------------------------------------------------------------------------------------------------
# Monitoring: hangs (in a child process), RSS, crashes


def monitor_child(port):
    """`soak.py --monitor-child PORT`: status on an open connection every 0.25 s and on a fresh connection
    every second, each timed; one JSON line per sample on stdout. Runs until its parent goes away.

    A ticker thread wakes every 20 ms and notes how late it woke: the time this process could not run at all
    (a machine overloaded by other work). Each sample carries that time within its interval ("starved"), so
    that a status delayed by the monitor's own starvation is not taken for a server that does not answer."""
    out_lock = threading.Lock()
    parent = os.getppid()
    ticks = collections.deque(maxlen=5000)  # (woke at, lateness)
    ticks_lock = threading.Lock()

    def ticker():
        period = 0.02
        while True:
            expected = now() + period
            time.sleep(period)
            woke = now()
            with ticks_lock:
                ticks.append((woke, max(0.0, woke - expected)))

    def starved(start, end):
        """Seconds within [start, end] in which the ticker was overdue (each late wake covers the time before
        it); an upper bound of this process's own scheduling delays."""
        total = 0.0
        with ticks_lock:
            recent = list(ticks)
        for woke, late in recent:
            if late > 0.01 and woke >= start and woke - late <= end:
                total += min(woke, end) - max(woke - late, start)
        return max(0.0, total)

    def emit(sample):
        with out_lock:
            try:
                sys.stdout.write(json.dumps(sample) + "\n")
                sys.stdout.flush()
            except (BrokenPipeError, OSError):
                os._exit(0)

    def open_connection():
        conn = None
        while os.getppid() == parent:
            started = now()
            try:
                if conn is None:
                    conn = Raw(port, timeout=30)
                started = now()
                status = conn.status()
                took = now() - started
                time.sleep(0.03)  # the ticker's wake-up after the answer, to cover the whole interval
                emit({"kind": "open connection", "t0": started, "dt": took, "status": status,
                      "starved": starved(started, started + took)})
            except Exception as e:  # noqa: BLE001 - every failure is a sample
                emit({"kind": "open connection", "t0": started, "dt": now() - started, "error": repr(e)})
                if conn is not None:
                    conn.close()
                conn = None
            time.sleep(0.25)

    def fresh_connection():
        while os.getppid() == parent:
            started = now()
            conn = None
            try:
                conn = Raw(port, timeout=30)
                status = conn.status()
                took = now() - started
                time.sleep(0.03)
                emit({"kind": "fresh connection", "t0": started, "dt": took, "status": status,
                      "starved": starved(started, started + took)})
            except Exception as e:  # noqa: BLE001
                emit({"kind": "fresh connection", "t0": started, "dt": now() - started, "error": repr(e)})
            finally:
                if conn is not None:
                    conn.close()
            time.sleep(max(0.0, 1.0 - (now() - started)))

    threading.Thread(target=ticker, daemon=True).start()
    threading.Thread(target=fresh_connection, daemon=True).start()
    open_connection()


class Monitor:
    """Reads the monitor child's samples and judges them a few seconds later, once a crash in that moment
    would have been noticed; samples overlapping a restart are left out."""

    def __init__(self, run):
        self.run_ = run
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--monitor-child", str(run.port)],
                                     stdout=subprocess.PIPE, text=True)
        self.pending = collections.deque()
        self.lock = threading.Lock()
        self.excluded = 0
        self.excused = []
        threading.Thread(target=self.read, name="monitor-reader", daemon=True).start()
        threading.Thread(target=self.judge_loop, name="monitor-judge", daemon=True).start()

    def read(self):
        for text in self.proc.stdout:
            try:
                sample = json.loads(text)
            except ValueError:
                continue
            with self.lock:
                self.pending.append(sample)

    def judge_loop(self):
        while True:
            time.sleep(0.5)
            self.judge(now() - 3.0)

    def judge(self, before):
        run = self.run_
        while True:
            with self.lock:
                if not self.pending or self.pending[0]["t0"] + self.pending[0]["dt"] > before:
                    return
                sample = self.pending.popleft()
            start, took = sample["t0"], sample["dt"]
            if run.stopping.is_set() and start > run.stop_time:
                continue
            if run.server.was_down(start - 1.0, start + took + 0.5):
                self.excluded += 1
                continue
            kind = sample["kind"]
            if "error" in sample:
                STATS.fail("monitor", f"status on a {kind} failed after {took:.2f} s: {sample['error']}")
                continue
            STATS.latency[kind].append(took)
            check_status(sample["status"], f"monitor ({kind})")
            starved = sample.get("starved", 0.0)
            loop_wait, server_cpu = run.watcher.starvation(start, start + took) if took > HANG_BOUND else (0.0, 0.0)
            # Time in which the monitor itself, or the server's event loops while runnable, could not get a CPU:
            # the machine was overloaded by others (unless the server itself kept more than 1.5 cores busy).
            machine = max(starved, loop_wait if server_cpu is not None and server_cpu < 1.5 * took else 0.0)
            if took > HANG_BOUND and took - machine <= HANG_BOUND:
                self.excused.append((took, machine))
            elif took > HANG_BOUND:
                suspects = run.suspects(start, start + took)
                known = ""
                if any("known bug huge-list" in s for s in suspects):
                    known = f" [known bug huge-list: {KNOWN_BUGS['huge-list']}]"
                elif any("known bug slow-clients" in s for s in suspects):
                    known = f" [maybe known bug slow-clients: {KNOWN_BUGS['slow-clients']}]"
                shown = "; ".join(sorted(set(suspects))[:4]) or "nothing heavy"
                cpu = f"{server_cpu:.2f}" if server_cpu is not None else "?"
                STATS.fail("hang", f"status on a {kind} took {took:.2f} s (bound {HANG_BOUND:.0f} s; of it the monitor "
                                   f"waited for a CPU {starved:.2f} s, the server's event loops {loop_wait:.2f} s; the "
                                   f"server used {cpu} s of CPU) at t={start - START:.1f}s; in flight: {shown}{known}",
                           severity=took)

    def finish(self):
        time.sleep(3.5)
        self.judge(now())
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Watcher(threading.Thread):
    """Crashes (restarting the server), VmRSS and the size of the ALSA file output, every 0.1 s."""

    def __init__(self, run, fuzzers, alsa_file):
        super().__init__(name="watcher", daemon=True)
        self.run_ = run
        self.fuzzers = fuzzers
        self.alsa_file = alsa_file
        self.rss_start = None
        self.rss_peak = (0, 0)  # MiB, generation
        self.rss_last = 0
        self.rss_by_generation = {}
        self.over_bound = set()
        self.alsa_max = 0
        self.crashes = []
        # (time, pid, {tid: (name, cpu ns, run-queue wait ns)}) every 0.1 s: how much the server's threads ran
        # and how long they waited for a CPU while runnable (/proc/PID/task/TID/schedstat).
        self.sched = collections.deque(maxlen=1200)
        self.sched_lock = threading.Lock()

    def schedstats(self, pid):
        threads = {}
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return None
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    cpu, wait = f.read().split()[:2]
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    name = f.read().strip()
                threads[tid] = (name, int(cpu), int(wait))
            except (OSError, ValueError):
                continue
        return threads

    def starvation(self, start, end):
        """(longest run-queue wait of one of the server's event-loop threads, CPU seconds the server used) within
        [start, end], from the snapshots around it; (0, None) when there are none."""
        with self.sched_lock:
            snapshots = list(self.sched)
        before = [x for x in snapshots if x[0] <= start]
        after = [x for x in snapshots if x[0] >= end]
        if not before or not after or before[-1][1] != after[0][1]:
            return 0.0, None
        s0, s1 = before[-1][2], after[0][2]
        common = [tid for tid in s1 if tid in s0]
        loops = [tid for tid in common if s1[tid][0].startswith("NIO-")] or common
        wait = max((s1[tid][2] - s0[tid][2] for tid in loops), default=0) / 1e9
        cpu = sum(s1[tid][1] - s0[tid][1] for tid in common) / 1e9
        return min(wait, end - start), cpu

    def rss(self, pid):
        try:
            with open(f"/proc/{pid}/status") as f:
                for text in f:
                    if text.startswith("VmRSS:"):
                        return int(text.split()[1]) / 1024
        except (OSError, ValueError):
            return None
        return None

    def run(self):
        run = self.run_
        tick = 0
        while not run.finished.is_set():
            time.sleep(0.1)
            tick += 1
            if run.aborted:
                continue
            crash = run.server.check_crash()
            if crash is not None:
                self.crashed(*crash)
                continue
            pid = run.server.pid()
            if pid is None:
                continue
            stats = self.schedstats(pid)
            if stats:
                with self.sched_lock:
                    self.sched.append((now(), pid, stats))
            if tick % 5:
                continue
            rss = self.rss(pid)
            if rss is None:
                continue
            generation = run.server.generation
            self.rss_last = rss
            self.rss_by_generation[generation] = max(rss, self.rss_by_generation.get(generation, 0))
            if rss > self.rss_peak[0]:
                self.rss_peak = (rss, generation)
            if self.rss_start is not None and rss > self.rss_start + run.args.rss_bound \
                    and generation not in self.over_bound:
                self.over_bound.add(generation)
                slow = run.slow_active or any("known bug slow-clients" in s for s in run.suspects(now() - 20, now()))
                known = f" [maybe known bug slow-clients: {KNOWN_BUGS['slow-clients']}]" if slow else ""
                STATS.fail("rss", f"VmRSS {rss:.0f} MiB exceeds start {self.rss_start:.0f} MiB + "
                                  f"{run.args.rss_bound} MiB (server run {generation}){known}", severity=rss)
            if self.alsa_file:
                try:
                    self.alsa_max = max(self.alsa_max, os.path.getsize(self.alsa_file))
                except OSError:
                    pass

    def crashed(self, code, log_path, detected):
        run = self.run_
        how = f"signal {-code}" if code < 0 else f"exit status {code}"
        fatal, frame = crash_signature(log_path)
        known = next((bug for name, bug in KNOWN_CRASH_FRAMES.items() if name in frame), None)
        recent = []
        for fuzzer in self.fuzzers:
            recent += [(t, n, p) for t, n, p in list(fuzzer.recent) if t >= detected - 3]
        recent.sort()
        inputs = "; ".join(f"{n}: {p}" for _, n, p in recent[-4:]) or "no fuzz input in the last 3 s"
        tag = f" [known bug {known}: {KNOWN_BUGS[known]}]" if known else " [NOT a known bug]"
        self.crashes.append((how, fatal, frame, known))
        STATS.fail("crash", f"the server died ({how}) at t={detected - START:.1f}s: {fatal} — in {frame}{tag}; "
                            f"log {log_path}; last fuzz inputs: {inputs}")
        if run.finished.is_set():
            return
        try:
            run.server.start()
            say(f"restarted the server after the crash (run {run.server.generation})")
        except RuntimeError as e:
            if restart_or_give_up(run, "the crash", e):
                say(f"restarted the server without its state file (run {run.server.generation})")


def restart_or_give_up(run, after, error):
    """The server does not come back after `after`: a violation. When the state file is to blame (the server
    dies while starting with it and starts without it), the file is moved aside and the soak goes on (True);
    otherwise the soak ends (False)."""
    fatal, frame = crash_signature(run.server.log_path)
    state = os.path.join(run.server.dir, "data", "state")
    try:
        with open(state, encoding="utf-8", errors="replace") as f:
            odd = [t.strip() for t in f if re.search(r"\b(nan|inf)\b|\d{10,}", t)]
    except OSError:
        odd = []
    message = (f"the server does not start again after {after}: {str(error).splitlines()[0]} ({fatal} — in {frame}); "
               f"absurd values in its state file: {odd or 'none'}")
    if os.path.exists(state) and "Address already in use" not in tail(run.server.log_path, 5):
        aside = f"{state}.unstartable-{run.server.generation}"
        os.rename(state, aside)
        try:
            run.server.start()
            STATS.fail("crash", f"{message}; it starts without the state file (kept as {aside}), the soak goes on")
            return True
        except RuntimeError:
            pass
    run.aborted = True
    STATS.fail("crash", f"{message}. The soak cannot go on.")
    run.stopping.set()
    return False


# ---------------------------------------------------------------------------------------------------------
# The kill -9 cycles


class Controller:
    """Quiesces the mutating load, sets a state, waits past the state file's debounce, kills -9 (while playing,
    sometimes during an update), restarts and checks that nothing older than the debounce was lost."""

    def __init__(self, run, rng, debounce, baseline_songs):
        self.run_ = run
        self.rng = rng
        self.debounce = debounce
        self.baseline_songs = baseline_songs
        self.cycles = collections.Counter()

    def connect(self):
        return Raw(self.run_.port, timeout=CLIENT_TIMEOUT)

    def ignore_ack(self, conn, name, *args):
        try:
            return conn.command(name, *args)
        except Ack:
            return None

    def snapshot(self, conn):
        status = conn.status()
        songs = songs_of(conn.command("playlistinfo"))
        return {
            "status": {k: status.get(k) for k in ("state", "song", "repeat", "random", "single", "consume",
                                                  "volume", "playlistlength", "xfade")},
            "elapsed": float(status["elapsed"]) if "elapsed" in status else None,
            "songid": status.get("songid"),
            "queue": [(s["file"], s.get("Prio", "0"), s.get("Range")) for s in songs],
        }

    @staticmethod
    def same(a, b):
        return a["status"] == b["status"] and a["queue"] == b["queue"]

    @staticmethod
    def differences(expected, actual):
        diffs = [f"{k}: {expected['status'][k]!r} → {actual['status'][k]!r}" for k in expected["status"]
                 if expected["status"][k] != actual["status"][k]]
        if expected["queue"] != actual["queue"]:
            e, a = expected["queue"], actual["queue"]
            first = next((i for i in range(min(len(e), len(a))) if e[i] != a[i]), min(len(e), len(a)))
            diffs.append(f"queue of {len(e)} → {len(a)}, first difference at {first}: "
                         f"{e[first] if first < len(e) else None} → {a[first] if first < len(a) else None}")
        return "; ".join(diffs)

    def cycle(self, number, kind):
        run, r = self.run_, self.rng
        play, pause, update = kind.startswith("play"), kind.startswith("pause"), kind.endswith("update")
        say(f"kill -9 cycle {number} ({kind}): quiescing")
        started = now()
        if not run.gate.close(60):
            STATS.fail("client timeout", f"cycle {number}: mutating commands still running 60 s after the "
                                         "controller asked them to stop")
        elif now() - started > 2:
            say(f"kill -9 cycle {number}: the mutating load took {now() - started:.1f} s to stop")
        try:
            for attempt in range(3):
                generation = run.server.generation
                try:
                    self.cycle_quiet(number, kind, play, pause, update, r)
                    return
                except RuntimeError as e:
                    # No restored state to check when the server only starts without its state file.
                    restart_or_give_up(run, "kill -9", e)
                    return
                except (Closed, OSError, Ack, ProtocolViolation) as e:
                    if not run.server.expected_loss(generation):
                        STATS.fail("cycle", f"cycle {number}: {e!r}: {traceback.format_exc(limit=3)}")
                        return
                    # A crash (reported by the watcher) cut the cycle short: once more on the restarted server.
                    say(f"kill -9 cycle {number}: cut short, the server went down by itself ({e!r})")
                    STATS.count("kill cycles cut short by a crash")
                    # Until the watcher has noticed the crash and the server is back.
                    deadline = now() + 60
                    while now() < deadline and not run.stopping.is_set() and not (
                            run.server.generation != generation and run.server.up.is_set()):
                        time.sleep(0.1)
        finally:
            run.gate.reopen()

    def cycle_quiet(self, number, kind, play, pause, update, r):
        run = self.run_
        if not run.server.up.wait(60):
            STATS.fail("soak", f"cycle {number}: the server is not up")
            return
        conn = self.connect()
        try:
            # Undo what the load may have done to playback itself: outputs moved away or disabled, FM entries
            # that grow the queue by themselves.
            for name in ("null", "file"):
                self.ignore_ack(conn, "moveoutput", name)
            for output in range(2):
                self.ignore_ack(conn, "enableoutput", output)
            self.ignore_ack(conn, "crossfade", 0)
            songs = songs_of(conn.command("playlistinfo"))
            for song in songs:
                if song["file"].startswith(("netease://fm", "netease://heartbeat")):
                    self.ignore_ack(conn, "deleteid", song.get("Id"))
            if len(songs) > 100:
                conn.command("delete", "60:")
            length = int(conn.status()["playlistlength"])
            long_song = r.choice(run.long_songs)
            song_id = dict(conn.command("addid", long_song, r.randint(0, length))).get("Id")
            # The options and volume the restart must keep.
            conn.command("repeat", r.choice([0, 1]))
            conn.command("random", r.choice([0, 1]))
            conn.command("single", r.choice([0, 1, "oneshot"]))
            conn.command("consume", r.choice([0, 1, "oneshot"]))
            conn.command("setvol", r.randint(0, 100))
            if play or pause:
                conn.command("playid", song_id)
                position = r.choice([1.5, 4.0, 12.25]) if pause else 1.0
                conn.command("seekid", song_id, position)
                if pause:
                    conn.command("pause", 1)
            else:
                conn.command("stop")
            self.wait_for_player(conn, song_id, "play" if play else "pause" if pause else "stop", number)
            conn.command("sticker set", "song", long_song, "soak-cycle", str(number))
            self.ignore_ack(conn, "rm", "soak-control")
            conn.command("save", "soak-control")
            before = self.snapshot(conn)
            say(f"kill -9 cycle {number}: state set ({before['status']['state']}, song {before['status']['song']} of "
                f"{before['status']['playlistlength']}); waiting {self.debounce + STATE_MARGIN:g} s")
            # Wait out the debounce (and the margin) with nothing changing; if the state changes by itself,
            # wait again from there.
            wait = self.debounce + STATE_MARGIN
            for attempt in range(3):
                started = now()
                elapsed = [before["elapsed"]]
                while now() < started + wait:
                    time.sleep(min(1.0, started + wait - now()))
                    elapsed.append(float(conn.status().get("elapsed", "nan")))
                after = self.snapshot(conn)
                if play and before["elapsed"] is not None and after["elapsed"] is not None:
                    progress = after["elapsed"] - before["elapsed"]
                    wall = now() - started
                    if progress < 0.4 * wall:
                        STATS.fail("playback", f"cycle {number}: playing, elapsed went only from "
                                               f"{before['elapsed']:.2f} to {after['elapsed']:.2f} in {wall:.1f} s "
                                               f"(each second: {', '.join(f'{e:.2f}' for e in elapsed)})")
                    else:
                        STATS.count("playback progress checks passed")
                if self.same(before, after):
                    before = after
                    break
                STATS.fail("state", f"cycle {number}: the state changed while nothing changed it: "
                                    f"{self.differences(before, after)}")
                before = after
            else:
                return
            expected_playlist = [q[0] for q in before["queue"]]
            update_seen = False
            if update:
                conn.command("rescan")
                deadline = now() + 10
                while now() < deadline:
                    if "updating_db" in conn.status():
                        update_seen = True
                        break
                    time.sleep(0.02)
        finally:
            conn.close()
        run.server.kill9()
        self.cycles[kind] += 1
        if update:
            STATS.count("kills during an update" if update_seen else "kills meant for an update that had ended")
        say(f"kill -9 cycle {number}: killed ({kind}{', updating' if update_seen else ''}); restarting")
        run.server.start()
        self.check_restored(number, before, expected_playlist, pause, long_song)

    def wait_for_player(self, conn, song_id, state, number):
        """Until the player is in `state` on the song; playing, until the song is heard (elapsed moves past the
        seek target of 1 s)."""
        started = now()
        deadline = started + 15
        status = {}
        while now() < deadline:
            status = conn.status()
            if status.get("state") == state and (state == "stop" or status.get("songid") == song_id):
                if state != "play" or float(status.get("elapsed", 0)) >= 1.2:
                    STATS.play_start.append(now() - started)
                    return
            time.sleep(0.05)
        STATS.fail("playback", f"cycle {number}: the player did not reach {state} of song id {song_id} within "
                               f"15 s: {status}")

    def check_restored(self, number, before, expected_playlist, pause, long_song):
        conn = self.connect()
        try:
            after = self.snapshot(conn)
            expected = {"status": dict(before["status"]), "queue": before["queue"]}
            if expected["status"]["song"] is None and expected["queue"]:
                # A state file without a current song restores the first one as current, as MPD does
                # (playlist_state_restore: an invalid position becomes 0).
                expected["status"]["song"] = "0"
            diff = self.differences(expected, after)
            if diff:
                STATS.fail("state lost", f"cycle {number}: after kill -9 and restart (state older than "
                                         f"{self.debounce + STATE_MARGIN:.0f} s): {diff}")
            else:
                STATS.count("restored states checked")
            if pause and before["elapsed"] is not None:
                if after["elapsed"] is None or abs(after["elapsed"] - before["elapsed"]) > 0.5:
                    STATS.fail("state lost", f"cycle {number}: paused at {before['elapsed']:.3f} s, after the restart "
                                             f"at {after['elapsed']}")
            try:
                sticker = dict(conn.command("sticker get", "song", long_song, "soak-cycle")).get("sticker")
            except Ack as e:
                sticker = e.text
            if sticker != f"soak-cycle={number}":
                STATS.fail("state lost", f"cycle {number}: sticker soak-cycle of {long_song} is {sticker!r}")
            try:
                stored = [v for k, v in conn.command("listplaylist", "soak-control") if k == "file"]
            except Ack as e:
                stored = e.text
            if stored != expected_playlist:
                now_there = stored if isinstance(stored, str) else f"{len(stored)} songs"
                STATS.fail("state lost", f"cycle {number}: stored playlist soak-control differs: "
                                         f"{len(expected_playlist)} songs saved, now {now_there}")
            # The database: an update after the kill (during one, or not) must find every song again.
            conn.command("update")
            deadline = now() + 180
            time.sleep(0.2)
            while "updating_db" in conn.status():
                if now() > deadline:
                    STATS.fail("hang", f"cycle {number}: the update after the restart did not end within 180 s")
                    break
                time.sleep(0.1)
            songs = int(dict(conn.command("stats")).get("songs", -1))
            if songs != self.baseline_songs:
                STATS.fail("state lost", f"cycle {number}: the database holds {songs} songs after the restart and "
                                         f"an update, {self.baseline_songs} before")
        finally:
            conn.close()
        say(f"kill -9 cycle {number}: restored state checked")


# ---------------------------------------------------------------------------------------------------------
# Set-up


LIBRARY_VERSION = "soak-library-1"


def prepare_library():
    """The test library plus Soak/long-N.flac (40 s tones) and Bulk/NN (hard-linked copies, so a rescan takes
    a while), cached in the temporary directory by the generator's content."""
    script = os.path.join(REPO, "Tests", "Support", "make_library.sh")
    with open(script, "rb") as f:
        key = hashlib.sha256(f.read() + f"{LIBRARY_VERSION} {LONG_SONGS} {LONG_SONG_SECONDS} {BULK_COPIES}".encode())
    base = os.path.join(tempfile.gettempdir(), f"nosignal-soak-library-{key.hexdigest()[:16]}")
    music = os.path.join(base, "music")
    if os.path.exists(os.path.join(base, "complete")):
        return music
    staging = f"{base}.tmp-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    try:
        subprocess.run(["/bin/bash", script, os.path.join(staging, "music")], check=True, timeout=600)
        soak = os.path.join(staging, "music", "Soak")
        os.makedirs(soak)
        for n in range(1, LONG_SONGS + 1):
            subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                            f"sine=frequency={220 + 55 * n}:duration={LONG_SONG_SECONDS}:sample_rate=44100",
                            "-ac", "2", "-metadata", f"title=Long {n}", "-metadata", "artist=Soak Tones",
                            "-metadata", "album=Long Tones", "-metadata", f"track={n}",
                            os.path.join(soak, f"long-{n}.flac")], check=True, timeout=120)
        for n in range(1, BULK_COPIES + 1):
            for folder in ("Sigur Rós", "Various", "日本語", "Untagged"):
                shutil.copytree(os.path.join(staging, "music", folder),
                                os.path.join(staging, "music", "Bulk", f"{n:02d}", folder), copy_function=os.link)
        open(os.path.join(staging, "complete"), "w").close()
        try:
            os.rename(staging, base)
        except OSError:
            if not os.path.exists(os.path.join(base, "complete")):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return music


def state_file_debounce():
    """The state file's debounce: StateFileSaver's default delay in Sources/Library/StateFile.swift (the server's
    Application builds its saver with the default)."""
    path = os.path.join(REPO, "Sources", "Library", "StateFile.swift")
    try:
        with open(path, encoding="utf-8") as f:
            m = re.search(r"delay: Duration = \.(seconds|milliseconds)\((\d+(?:\.\d+)?)\)", f.read())
        if m:
            return float(m.group(2)) / (1000 if m.group(1) == "milliseconds" else 1), path
    except OSError:
        pass
    return 2.0, "a default of 2 s (StateFile.swift not found)"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def library_facts(port):
    conn = Raw(port, timeout=120)
    try:
        files = [v for k, v in conn.command("listall") if k == "file"]
        dirs = sorted({f.rsplit("/", 1)[0] for f in files if "/" in f and not f.startswith("Bulk/")}) + ["", "Bulk"]
        artists = [v for k, v in conn.command("list", "artist") if k == "Artist" and v]
        albums = [v for k, v in conn.command("list", "album") if k == "Album" and v]
        songs = int(dict(conn.command("stats"))["songs"])
    finally:
        conn.close()
    return {"files": files, "dirs": dirs, "artists": artists, "albums": albums, "songs": songs}


def wait_for_update(port, timeout=180):
    conn = Raw(port, timeout=60)
    try:
        conn.command("update")
        deadline = now() + timeout
        time.sleep(0.3)
        while "updating_db" in conn.status():
            if now() > deadline:
                raise RuntimeError(f"the first update took over {timeout} s")
            time.sleep(0.1)
    finally:
        conn.close()


def percentile(values, p):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


# ---------------------------------------------------------------------------------------------------------
# Main


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", nargs="?", default=".build/debug/nosignal")
    parser.add_argument("--quick", action="store_true", help="the make test form (50 clients, 2 kill cycles)")
    parser.add_argument("--seconds", type=float, help="seconds of load (quick: 50; else SOAK_SECONDS or 1500)")
    parser.add_argument("--clients", type=int, help="clients (quick: 50; else 300)")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("SOAK_SEED", "1")))
    parser.add_argument("--kill-every", type=float, default=60.0, help="seconds between kill -9 cycles (long form)")
    parser.add_argument("--rss-bound", type=float, default=None,
                        help="MiB of VmRSS allowed above the server's RSS after start-up")
    parser.add_argument("--skip-known", action="store_true", help="leave out the inputs of known bugs")
    parser.add_argument("--no-alsa", action="store_true", help="no alsa-lib file output, only the null one")
    parser.add_argument("--exclude", action="append", default=[], metavar="TEXT",
                        help="never send a fuzz input containing TEXT (repeatable), e.g. to look past a crash")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--monitor-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.seconds is None:
        args.seconds = 50.0 if args.quick else float(os.environ.get("SOAK_SECONDS", "1500"))
    if args.clients is None:
        args.clients = 50 if args.quick else 300
    args.think = (0.05, 0.6) if args.quick else (0.2, 2.5)
    if args.rss_bound is None:
        # Measured without the known bugs: the debug server with 50 clients grows by up to ~60 MiB over its RSS
        # after start-up, the release server with 300 clients by up to ~100 MiB (connections, caches). The
        # bounds leave about twice that; a server that holds what slow clients send goes far beyond.
        args.rss_bound = 120.0 if args.clients <= 100 else 200.0
    return args


def main(argv):
    args = parse_arguments(argv)
    if args.monitor_child:
        monitor_child(args.monitor_child)
        return 0
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        print(f"FAIL soak: no executable at {binary}")
        return 2
    debounce, debounce_source = state_file_debounce()
    if debounce_source.startswith("/"):
        debounce_source = os.path.relpath(debounce_source, REPO)
    # The long form kills every --kill-every seconds for its first three quarters; the last quarter runs one
    # server for long enough to see its memory settle (or not).
    kill_times = ([args.seconds * 0.3, args.seconds * 0.65] if args.quick
                  else list(frange(min(45.0, args.seconds / 3), max(args.seconds * 0.75, 50), args.kill_every)))
    say(f"soak: seed {args.seed} (rerun with --seed {args.seed} or SOAK_SEED={args.seed}); {binary}")
    say(f"soak: {args.clients} clients, {args.seconds:.0f} s of load, {len(kill_times)} kill -9 cycles, "
        f"known-bug inputs {'left out (--skip-known)' if args.skip_known else 'included'}; state file debounce "
        f"{debounce:g} s (from {debounce_source}) "
        f"+ {STATE_MARGIN:g} s margin; hang bound {HANG_BOUND:g} s; RSS bound start + {args.rss_bound:g} MiB"
        + (f"; fuzz inputs containing {args.exclude} left out" if args.exclude else ""))
    rng = random.Random(args.seed)
    directory = tempfile.mkdtemp(prefix="nosignal-soak-")
    fake = None
    server = None
    run = None
    watcher = None
    monitor = None
    try:
        t = now()
        music = prepare_library()
        say(f"library {music} ready in {now() - t:.1f} s")
        fake, fake_info = start_fake(os.path.dirname(binary), directory)
        fake_url = f"http://127.0.0.1:{fake_info['port']}"
        port = free_port()
        netease = (f'netease {{\n api_url "{fake_url}"\n eapi_url "{fake_url}"\n'
                   f' weapi_public_key "{fake_info["public"]}"\n sync_interval "0"\n}}\n')
        common = f'data_directory "{directory}/data"\ncache_directory "{directory}/cache"\n'
        login_conf = os.path.join(directory, "login.conf")
        with open(login_conf, "w") as f:
            f.write(common + netease)
        env = dict(os.environ, HOME=directory)
        login = subprocess.run([binary, "login", "--config", login_conf, "--cookie",
                                f"MUSIC_U={fake_info['music_u']}; __csrf={fake_info['csrf']}"],
                               env=env, capture_output=True, text=True, timeout=120)
        if login.returncode != 0 or "Logged in as demo_user" not in login.stdout:
            raise RuntimeError(f"nosignal login failed: {login.stdout}{login.stderr}")
        alsa_file = None
        outputs = 'audio_output {\n type "null"\n name "null"\n}\n'
        if not args.no_alsa:
            # alsa-lib's file plugin (HOME/.asoundrc): writes what plays to a file, over a null device.
            alsa_file = os.path.join(directory, "alsa-file.raw")
            with open(os.path.join(directory, ".asoundrc"), "w") as f:
                f.write(f'pcm.soakfile {{\n type file\n slave.pcm "null"\n file "{alsa_file}"\n format "raw"\n}}\n')
            outputs += 'audio_output {\n type "alsa"\n name "file"\n device "soakfile"\n}\n'
        config = os.path.join(directory, "nosignal.conf")
        with open(config, "w") as f:
            f.write(f'bind_to_address "127.0.0.1"\nport "{port}"\nmusic_directory "{music}"\n'
                    f'playlist_directory "{directory}/playlists"\nstate_file "{directory}/data/state"\n'
                    f'max_connections "{args.clients * 2 + 100}"\n{common}{outputs}{netease}')
        os.makedirs(os.path.join(directory, "playlists"), exist_ok=True)
        server = Server(binary, config, env, directory, port)
        server.start()
        t = now()
        wait_for_update(port)
        library = library_facts(port)
        say(f"server up (pid {server.pid()}), {library['songs']} songs after the first update ({now() - t:.1f} s)")
        run = Run(args, server, port, library)
        run.fake_url = fake_url
        run.finished = threading.Event()
        run.stop_time = float("inf")
        time.sleep(1.0)
        fuzzers = [Fuzzer(run, i, args.seed * 7919 + i, ALL_COMMANDS) for i in range(1 if args.quick else 2)]
        watcher = Watcher(run, fuzzers, alsa_file)
        run.watcher = watcher
        watcher.rss_start = watcher.rss(server.pid())
        watcher.start()
        monitor = Monitor(run)
        threads = []
        slow = 0 if args.skip_known else (4 if args.quick else 6)
        for i in range(args.clients - slow):
            threads.append(Client(run, i, PERSONAS[i % len(PERSONAS)], args.seed * 1_000_003 + i))
        for i in range(slow):
            threads.append(SlowClient(run, i, args.seed * 31 + i))
        threads += fuzzers
        load_start = now()
        huge_times = [load_start + args.seconds * 0.15] if args.quick else \
            [load_start + t for t in frange(60, args.seconds - 60, 300)]
        threads.append(HugeLists(run, huge_times))
        threads.append(Chaos(run, args.seed * 17))
        for thread in threads:
            thread.start()
        say(f"load started: {args.clients - slow} clients ({sum(1 for t in threads if getattr(t, 'use_mpd2', False))} "
            f"python-mpd2), {slow} slow clients, {len(fuzzers)} fuzzer(s), NetEase faults, a monitor process")
        controller = Controller(run, rng, debounce, library["songs"])
        kinds = ["play", "play+update"] if args.quick else ["play", "play+update", "pause", "pause+update",
                                                            "stop+update"]
        for number, at in enumerate(kill_times, 1):
            while now() < load_start + at and not run.stopping.is_set():
                time.sleep(0.2)
            if run.stopping.is_set():
                break
            controller.cycle(number, kinds[(number - 1) % len(kinds)])
        while now() < load_start + args.seconds and not run.stopping.is_set():
            time.sleep(0.2)
        say("load done: stopping the clients")
        run.stop_time = now()
        run.stopping.set()
        for thread in threads:
            thread.join(timeout=40)
        monitor.finish()
        run.finished.set()
        watcher.join(2)
        rss_end = watcher.rss(server.pid()) if server.pid() else watcher.rss_last
        code = server.stop()
        if code != 0 and not run.aborted:
            STATS.fail("crash", f"SIGTERM at the end: the server exited with {code} (expected 0 within 20 s); see "
                                f"{server.log_path}")
        if watcher.over_bound:
            peak, generation = watcher.rss_peak
            STATS.fail("rss peak", f"VmRSS {peak:.0f} MiB (server run {generation}); over the bound in "
                              f"{len(watcher.over_bound)} of {len(watcher.rss_by_generation)} server runs")
        if alsa_file and watcher.alsa_max == 0 and not run.aborted:
            STATS.fail("playback", f"nothing reached the alsa-lib file output ({alsa_file})")
        summary(args, run, server, watcher, monitor, controller, fuzzers, rss_end, alsa_file)
    except Exception as e:  # noqa: BLE001 - a soak that cannot run fails
        STATS.fail("soak", f"{e!r}\n{traceback.format_exc()}")
    finally:
        if run is not None:
            run.stopping.set()
            run.finished.set()
        if server is not None and server.pid():
            server.stop()
        if server is not None:
            left = server.leftovers()
            for pid, _ in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            if left:
                say(f"ended {len(left)} process(es) that crashed servers left behind: "
                    f"{', '.join(f'{name} (pid {pid})' for pid, name in left)}")
        if fake is not None:
            fake.terminate()
            try:
                fake.wait(10)
            except subprocess.TimeoutExpired:
                fake.kill()
        if monitor is not None and monitor.proc.poll() is None:
            monitor.proc.kill()
    failures = STATS.failure_lines()
    if failures or args.keep:
        say(f"kept {directory} (server logs server-N.log, the configuration, the state file)")
    else:
        shutil.rmtree(directory, ignore_errors=True)
    if failures:
        print("\nFailures:")
        for text in failures:
            print(text)
        print(f"soak: FAILED ({len(STATS.failures)} kinds of violation, seed {args.seed})")
        return 1
    print(f"soak: PASSED (seed {args.seed})")
    return 0


def frange(start, stop, step):
    value = start
    while value < stop:
        yield value
        value += step


def summary(args, run, server, watcher, monitor, controller, fuzzers, rss_end, alsa_file):
    c, e = STATS.counters, STATS.errors
    out = ["", "== soak summary =="]
    out.append(f"seed {args.seed}; {args.clients} clients; {now() - START:.0f} s in all; known-bug inputs "
               f"{'left out' if args.skip_known else 'included'}")
    commands = c["commands (raw)"] + c["commands (python-mpd2)"]
    out.append(f"client commands: {commands} ({c['commands (raw)']} raw, {c['commands (python-mpd2)']} python-mpd2) in "
               f"{c['sessions (raw)'] + c['sessions (python-mpd2)']} sessions; {c['command lists']} command lists; "
               f"{c['idle waits']} idle waits ({c['idle: noidle']} ended by noidle, {c['idle: woken by a change']} "
               f"woken)")
    fuzz_total = sum(STATS.fuzz.values())
    out.append(f"fuzz inputs: {fuzz_total} on {c['fuzzer connections']} connections ({c['fuzz answers OK']} OK, "
               f"{c['fuzz answers ACK']} ACK, "
               f"{sum(v for k, v in c.items() if k.startswith('fuzz connections closed'))} closed by the server)")
    out.append("  by case: " + ", ".join(f"{k} {v}" for k, v in STATS.fuzz.most_common()))
    if c["slow client bytes sent"]:
        out.append(f"slow clients: {c['slow client sessions closed by the server']} closed by the server, "
                   f"{c['slow client sessions held to the end']} held to the end, "
                   f"{c['slow client bytes sent'] / 1048576:.0f} MiB sent unread")
    out.append("errors by kind: " + (", ".join(f"{k} ×{v}" for k, v in e.most_common(25)) or "none"))
    if len(e) > 25:
        out.append(f"  … and {len(e) - 25} more kinds ({sum(v for _, v in e.most_common()[25:])} errors)")
    netease = [(k[len('NetEase faults: '):], v) for k, v in c.items() if k.startswith("NetEase faults: ")]
    out.append("NetEase faults: " + (", ".join(f"{k} ×{v}" for k, v in sorted(netease)) or "none"))
    for kind, values in STATS.latency.items():
        out.append(f"status latency on a {kind}: {len(values)} samples, p50 {percentile(values, 50) * 1000:.1f} ms, "
                   f"p99 {percentile(values, 99) * 1000:.1f} ms, max {max(values, default=0) * 1000:.1f} ms "
                   f"(bound {HANG_BOUND * 1000:.0f} ms)")
    out.append(f"monitor samples left out while the server was down: {monitor.excluded}; over the bound only while the "
               f"monitor or the server's event loops waited for a CPU (machine overloaded): {len(monitor.excused)}"
               + (f", worst {max(monitor.excused)[0]:.2f} s with {max(monitor.excused)[1]:.2f} s starved"
                  if monitor.excused else "") + f"; load average at the end {open('/proc/loadavg').read().split()[0]}")
    cycles = ", ".join(f"{k} ×{v}" for k, v in controller.cycles.items()) or "none"
    out.append(f"restarts: {server.planned_kills} kill -9 ({cycles}; {c['kills during an update']} during an update, "
               f"{c['restored states checked']} restored states matched), {server.crashes} crashes")
    kinds = collections.Counter((how, re.sub(r"0x[0-9a-f]+", "…", fatal), frame, known)
                                for how, fatal, frame, known in watcher.crashes)
    for (how, fatal, frame, known), count in kinds.most_common():
        out.append(f"  ×{count} {how}: {fatal} in {frame} — {('known bug ' + known) if known else 'NOT a known bug'}")
    peak, generation = watcher.rss_peak
    out.append(f"RSS: start {watcher.rss_start or 0:.0f} MiB, peak {peak:.0f} MiB (server run {generation}), end "
               f"{rss_end or 0:.0f} MiB; bound start + {args.rss_bound:g} MiB; per run: "
               + ", ".join(f"{g}: {v:.0f}" for g, v in sorted(watcher.rss_by_generation.items())[:12])
               + (f", … ({len(watcher.rss_by_generation)} runs; highest: " + ", ".join(
                   f"{g}: {v:.0f}" for g, v in sorted(watcher.rss_by_generation.items(), key=lambda x: -x[1])[:5]) + ")"
                  if len(watcher.rss_by_generation) > 12 else ""))
    if alsa_file:
        out.append(f"alsa-lib file output: up to {watcher.alsa_max / 176400:.1f} s of audio in the file at once")
    out.append(f"playback progress checks passed: {c['playback progress checks passed']}; playid to sound in the kill "
               f"cycles: max {max(STATS.play_start, default=0):.2f} s")
    for text in out:
        print(text, flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
