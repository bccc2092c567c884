#!/usr/bin/python3
"""Real MPD clients against a real NoSignal: mpc (libmpdclient) and python-mpd2, as a user runs them.

Usage: run_clients.py PATH/TO/nosignal [CHECK ...]
CHECK: the function name of a check (or a glob such as 'netease_*') to run only those checks.
Starts NoSignal on free loopback ports with temporary configurations, drives it with the clients and prints
one line per check and a closing 'N passed, N failed' line. Exits non-zero if any check failed.
"""
import array
import fnmatch
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
import urllib.request

import mpd  # python3-mpd (python-mpd2)

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/nosignal")
# Check names (function names, globs allowed) to run; all checks when empty.
ONLY = sys.argv[2:]
RESULTS = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A NoSignal process with its own HOME, config and port."""

    def __init__(self, extra_config="", directory=None):
        self.dir = directory or tempfile.mkdtemp(prefix="nosignal-clients-")
        self.port = free_port()
        os.makedirs(os.path.join(self.dir, "music"), exist_ok=True)
        self.conf = os.path.join(self.dir, "nosignal.conf")
        with open(self.conf, "w") as f:
            # NetEase stays off unless a check configures it (it would try NetEase's real hosts).
            netease = "" if "netease {" in extra_config else 'netease {\n enabled "no"\n}\n'
            f.write(f'bind_to_address "127.0.0.1"\nport "{self.port}"\n'
                    f'music_directory "{self.dir}/music"\n{netease}{extra_config}\n')
        env = dict(os.environ, HOME=self.dir)
        self.log = open(os.path.join(self.dir, "stderr.log"), "w")
        self.proc = subprocess.Popen([BINARY, "--config", self.conf], env=env, stdout=self.log, stderr=self.log)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    if s.recv(64).startswith(b"OK MPD "):
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("NoSignal did not start; see " + self.log.name)

    def mpc(self, *args, timeout=10):
        env = dict(os.environ, MPD_HOST="127.0.0.1", MPD_PORT=str(self.port))
        out = subprocess.run(["mpc", *args], env=env, capture_output=True, text=True, timeout=timeout)
        return out.returncode, out.stdout + out.stderr

    def client(self):
        c = mpd.MPDClient()
        c.timeout = 10
        c.connect("127.0.0.1", self.port)
        return c

    def stop(self):
        self.proc.terminate()
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.log.close()
        return code


def selected(fn):
    return not ONLY or any(fnmatch.fnmatchcase(fn.__name__, pattern) for pattern in ONLY)


def check(name):
    def wrap(fn):
        def run(*args):
            if not selected(fn):
                return
            try:
                fn(*args)
                RESULTS.append((name, None))
                print(f"PASS {name}")
            except Exception as e:  # noqa: BLE001 - a failed check of any kind is reported, not fatal
                RESULTS.append((name, e))
                print(f"FAIL {name}: {e!r}")
                traceback.print_exc()
        run.__name__ = fn.__name__
        return run
    return wrap


def raw_answer(connection, request):
    """Reads the greeting, sends `request`, returns the answer up to its final OK and closes the connection."""
    connection.recv(64)
    connection.sendall(request)
    answer = b""
    while not answer.endswith(b"OK\n"):
        answer += connection.recv(65536)
    connection.close()
    return answer


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


@check("mpc status shows the default options")
def mpc_status(s):
    code, out = s.mpc("status")
    expect(code == 0, out)
    expect("repeat: off" in out and "random: off" in out and "volume:100%" in out, out)


@check("mpc repeat/random/single once/consume change status")
def mpc_options(s):
    for args in (["repeat", "on"], ["random", "on"], ["single", "once"], ["consume", "on"]):
        code, out = s.mpc(*args)
        expect(code == 0, out)
    code, out = s.mpc("status")
    expect("repeat: on" in out and "random: on" in out and "single: once" in out and "consume: on" in out, out)
    c = s.client()
    st = c.status()
    expect(st["single"] == "oneshot" and st["consume"] == "1", st)
    c.close()


@check("mpc volume sets and adjusts the volume")
def mpc_volume(s):
    s.mpc("volume", "50")
    code, out = s.mpc("volume")
    expect("volume: 50%" in out, out)
    s.mpc("volume", "-20")
    code, out = s.mpc("volume")
    expect("volume: 30%" in out, out)


@check("mpc idle returns when another client changes an option")
def mpc_idle(s):
    result = {}

    def idle():
        result["out"] = s.mpc("idle", timeout=15)[1]

    t = threading.Thread(target=idle)
    t.start()
    time.sleep(0.5)
    s.mpc("repeat")
    t.join(15)
    expect(result.get("out", "").strip() == "options", result)


@check("mpc sendmessage reaches mpc waitmessage")
def mpc_messages(s):
    result = {}

    def wait():
        result["out"] = s.mpc("waitmessage", "chat", timeout=15)[1]

    t = threading.Thread(target=wait)
    t.start()
    deadline = time.time() + 10
    while time.time() < deadline and "chat" not in s.mpc("channels")[1]:
        time.sleep(0.1)
    code, out = s.mpc("sendmessage", "chat", "hello from mpc")
    expect(code == 0, out)
    t.join(15)
    expect(result.get("out", "").strip() == "hello from mpc", result)


@check("python-mpd2 connects and reads status, commands, tagtypes")
def python_basics(s):
    c = s.client()
    expect(c.mpd_version.count(".") == 2, c.mpd_version)
    st = c.status()
    for key in ("repeat", "random", "single", "consume", "playlist", "playlistlength", "state", "volume"):
        expect(key in st, st)
    commands = c.commands()
    expect("status" in commands and "idle" in commands and "sendmessage" in commands, commands)
    expect("play" in commands and "outputs" in commands and "getfingerprint" not in commands,
           "commands lists the implemented commands only")
    tags = c.tagtypes()
    expect(tags[:3] == ["Artist", "ArtistSort", "Album"], tags)
    c.close()


@check("python-mpd2 idle() wakes up on a change from another client")
def python_idle(s):
    watcher, actor = s.client(), s.client()
    result = {}

    def idle():
        result["changed"] = watcher.idle()

    t = threading.Thread(target=idle)
    t.start()
    time.sleep(0.3)
    actor.setvol(42)
    t.join(10)
    expect(result.get("changed") == ["mixer"], result)
    expect(watcher.getvol() if hasattr(watcher, "getvol") else True, "getvol")
    watcher.close()
    actor.close()


@check("python-mpd2 command lists return one result per command")
def python_command_list(s):
    c = s.client()
    c.command_list_ok_begin()
    c.repeat(1)
    c.status()
    c.replay_gain_status()
    results = c.command_list_end()
    expect(len(results) == 3 and results[1]["repeat"] == "1" and results[2] == "off", results)
    c.close()


@check("python-mpd2 gets MPD's error for a bad argument")
def python_errors(s):
    c = s.client()
    try:
        c.random(2)
        raise AssertionError("no error")
    except mpd.CommandError as e:
        expect(str(e) == "[2@0] {random} Boolean (0/1) expected: 2", str(e))
    c.ping()
    c.close()


@check("password grants permissions (python-mpd2 and mpc)")
def passwords(_):
    s = Server('password "secret@read,player"\npassword "admin@read,add,player,control,admin"')
    try:
        c = s.client()
        try:
            c.status()
            raise AssertionError("status allowed without password")
        except mpd.CommandError as e:
            expect("you don't have permission for \"status\"" in str(e), str(e))
        try:
            c.password("wrong")
            raise AssertionError("wrong password accepted")
        except mpd.CommandError as e:
            expect("incorrect password" in str(e), str(e))
        c.password("secret")
        c.repeat(1)
        expect(c.status()["repeat"] == "1", "status after password")
        try:
            c.sendmessage("x", "y")
            raise AssertionError("control command allowed")
        except mpd.CommandError as e:
            expect("[4@0]" in str(e), str(e))
        c.close()
        env = dict(os.environ, MPD_HOST="secret@127.0.0.1", MPD_PORT=str(s.port))
        out = subprocess.run(["mpc", "status"], env=env, capture_output=True, text=True, timeout=10)
        expect(out.returncode == 0 and "repeat: on" in out.stdout, out.stdout + out.stderr)
    finally:
        s.stop()


@check("unix socket: mpc connects, config is answered to the local client only")
def unix_socket(_):
    d = tempfile.mkdtemp(prefix="nosignal-sock-")
    sock = os.path.join(d, "mpd.sock")
    s = Server(f'bind_to_address "{sock}"\nplaylist_directory "{d}"')
    try:
        env = dict(os.environ, MPD_HOST=sock)
        out = subprocess.run(["mpc", "status"], env=env, capture_output=True, text=True, timeout=10)
        expect(out.returncode == 0 and "repeat: off" in out.stdout, out.stdout + out.stderr)
        local = mpd.MPDClient()
        local.connect(sock)
        # MPD 0.24's `config` has three items; python-mpd2 3.0 reads one (its config() gives None, as with MPD 0.24).
        raw = socket.socket(socket.AF_UNIX)
        raw.connect(sock)
        answer = raw_answer(raw, b"config\n")
        expected = f"music_directory: {os.path.join(s.dir, 'music')}\nplaylist_directory: {d}\npcre: 1\nOK\n"
        expect(answer.decode() == expected, answer)
        expect("file://" in local.urlhandlers(), "file:// for local clients")
        local.close()
        remote = s.client()
        try:
            remote.config()
            raise AssertionError("config answered over TCP")
        except mpd.CommandError as e:
            expect("Command only permitted to local clients" in str(e), str(e))
        remote.close()
    finally:
        s.stop()


@check("a client that does not read its answers is dropped at max_output_buffer_size")
def output_buffer(_):
    s = Server('max_output_buffer_size "64"')
    try:
        one = raw_answer(socket.create_connection(("127.0.0.1", s.port)), b"commands\n")
        raw = socket.create_connection(("127.0.0.1", s.port))
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        raw.recv(64)
        raw.sendall(b"commands\n" * 20000)
        time.sleep(1.5)
        # The server gave up on this client and still serves others.
        c = s.client()
        c.ping()
        c.close()
        raw.settimeout(5)
        total = 0
        try:
            while True:
                chunk = raw.recv(1 << 16)
                if not chunk:
                    break
                total += len(chunk)
        except OSError:
            pass
        expect(total < 20000 * len(one), f"read {total} of {20000 * len(one)} bytes; the server should have closed")
    finally:
        s.stop()


@check("a client that reads slowly gets every byte of its answers, in order")
def slow_reader(_):
    s = Server()
    try:
        one = raw_answer(socket.create_connection(("127.0.0.1", s.port)), b"commands\n")
        raw = socket.create_connection(("127.0.0.1", s.port))
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        expect(raw.recv(64).startswith(b"OK MPD"), "no greeting")
        # Far more than the socket buffers hold: the server keeps the rest until the client reads.
        count = 2000
        raw.sendall(b"commands\n" * count + b"ping\n")
        time.sleep(1)
        # Another client is served meanwhile.
        c = s.client()
        c.ping()
        c.close()
        raw.settimeout(10)
        data = b""
        while not data.endswith(one + b"OK\n"):
            time.sleep(0.001)
            chunk = raw.recv(8192)
            expect(chunk, f"closed after {len(data)} bytes")
            data += chunk
        expect(data == one * count + b"OK\n", f"read {len(data)} bytes, expected {len(one) * count + 3}")
    finally:
        s.stop()


@check("a bad configuration names file and line, exits 2; an MPD option NoSignal lacks only warns")
def bad_config(_):
    d = tempfile.mkdtemp(prefix="nosignal-badconf-")
    conf = os.path.join(d, "bad.conf")
    with open(conf, "w") as f:
        f.write('port "6600"\nfoo "bar"\n')
    out = subprocess.run([BINARY, "--config", conf], capture_output=True, text=True, timeout=10)
    expect(out.returncode == 2, out.returncode)
    expect(out.stderr.strip() == f'nosignal: {conf}:2: unknown option "foo"', out.stderr)
    with open(conf, "w") as f:
        f.write('user "mpd"\nport "6600"\n')
    out = subprocess.run([BINARY, "check-config", "--config", conf], capture_output=True, text=True, timeout=10)
    expect(out.returncode == 0, out.stdout + out.stderr)
    expect(f'{conf}:1: option "user" is not supported by NoSignal yet and is ignored' in out.stdout, out.stdout)


@check("SIGTERM stops the server cleanly")
def clean_stop(_):
    s = Server()
    code = s.stop()
    expect(code == 0, f"exit code {code}")


def resident_code_kb(pid):
    """Resident kB of the process's executable's read-only executable mappings (/proc/PID/smaps)."""
    executable = os.readlink(f"/proc/{pid}/exe")
    total, in_code = 0, False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 6 and "-" in fields[0] and len(fields[1]) == 4:
                in_code = fields[1] == "r-xp" and " ".join(fields[5:]) == executable
            elif in_code and fields[:1] == ["Rss:"]:
                total += int(fields[1])
    return total


@check("the executable's code leaves the page tables two seconds after start and after an update's indexing, and "
       "what runs comes back from the file")
def code_drop(_):
    s = Server('log_level "verbose"\n')

    def drops(after):
        """The resident kB the verbose log gives for each code drop after `after`."""
        pattern = re.compile(f"after {re.escape(after)} the executable's code left the page tables "
                             r"\((\d+) kB were resident\)")
        with open(s.log.name) as f:
            return [int(kb) for kb in pattern.findall(f.read())]

    def wait_for_drop(after, count):
        deadline = time.time() + 20
        while len(drops(after)) < count and time.time() < deadline:
            time.sleep(0.2)
        expect(len(drops(after)) >= count, f"no code drop after {after} in the verbose log")
        return drops(after)[-1]

    try:
        before, after = wait_for_drop("start-up", 1), resident_code_kb(s.proc.pid)
        # What runs between the drop and the count (an idle server's timers) comes back, little else.
        expect(0 < after < before / 2, f"resident code {before} kB before the drop, {after} kB after")
        # Code not run since start-up still works: it comes back from the file.
        code, out = s.mpc("status")
        expect(code == 0 and "volume:100%" in out, out)
        expect(resident_code_kb(s.proc.pid) > after, "the code run after the drop did not come back")
        # An update runs the scanner and the indexer: their code leaves again once the indexer is done.
        indexed = len(drops("the library's indexing"))
        for name in ("one", "two"):
            make_sine(os.path.join(s.dir, "music", f"{name}.flac"), 1)
        code, out = s.mpc("update", "--wait")
        expect(code == 0, out)
        before = wait_for_drop("the library's indexing", indexed + 1)
        after = resident_code_kb(s.proc.pid)
        expect(0 < after < before / 2, f"resident code {before} kB before the drop after indexing, {after} kB after")
        c = s.client()
        expect(c.stats()["songs"] == "2" and len(c.listallinfo()) == 2, "stats and listallinfo after the drop")
        c.close()
    finally:
        s.stop()


def make_sine(path, seconds, frequency=440):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                    f"sine=frequency={frequency}:duration={seconds}:sample_rate=44100", "-ac", "2", path], check=True)


@check("auto_update: a file copied into the music directory appears in mpc ls by itself")
def auto_update(_):
    s = Server('auto_update "yes"')
    try:
        os.makedirs(os.path.join(s.dir, "music", "New"))
        make_sine(os.path.join(s.dir, "music", "New", "fresh.flac"), 1)
        deadline = time.time() + 20
        listing = ""
        while time.time() < deadline:
            _, listing = s.mpc("ls", "New")
            if "New/fresh.flac" in listing:
                break
            time.sleep(0.5)
        expect("New/fresh.flac" in listing, f"mpc ls New: {listing!r}")
    finally:
        s.stop()


@check("mpc play, pause, seek, next; a restart resumes the song where it was (state file)")
def playback_and_restart(_):
    directory = tempfile.mkdtemp(prefix="nosignal-clients-")
    os.makedirs(os.path.join(directory, "music"))
    make_sine(os.path.join(directory, "music", "long.flac"), 30)
    make_sine(os.path.join(directory, "music", "short.flac"), 2, 660)
    config = f'state_file "{directory}/state"'
    s = Server(config, directory)
    try:
        s.mpc("update", "--wait")
        s.mpc("add", "long.flac")
        s.mpc("add", "short.flac")
        _, out = s.mpc("play")
        expect("[playing] #1/2" in out, out)
        _, out = s.mpc("seek", "50%")
        expect("0:15/0:30" in out, out)
        _, out = s.mpc("next")
        expect("short.flac" in out and "[playing] #2/2" in out, out)
        _, out = s.mpc("prev")
        expect("long.flac" in out, out)
        s.mpc("seek", "10")
        _, out = s.mpc("pause")
        expect("[paused]" in out, out)
        status = s.client().status()
        expect(abs(float(status["elapsed"]) - 10) < 1.5, repr(status))
    finally:
        code = s.stop()
    expect(code == 0, f"exit code {code}")
    s = Server(config, directory)
    try:
        status = s.client().status()
        expect(status.get("state") == "pause" and status.get("song") == "0", repr(status))
        expect(abs(float(status.get("elapsed", "-99")) - 10) < 1.5, repr(status))
    finally:
        s.stop()


GOPHER_SERVER = """
import os, socketserver, sys
root, port = sys.argv[1], int(sys.argv[2])
class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        path = os.path.join(root, os.path.basename(self.rfile.readline().decode().strip()))
        if os.path.isfile(path):
            with open(path, 'rb') as f:
                self.wfile.write(f.read())
socketserver.ThreadingTCPServer.allow_reuse_address = True
with socketserver.ThreadingTCPServer(('127.0.0.1', port), Handler) as server:
    server.serve_forever()
"""


def wait_listening(port, proc):
    deadline = time.time() + 20
    while time.time() < deadline and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def expect_plays(s, what):
    """`status` shows the song playing through the null output: state play, audio set, elapsed moving on."""
    c = s.client()
    first = None
    deadline = time.time() + 30
    status = {}
    while time.time() < deadline:
        status = c.status()
        if status.get("state") == "play" and "audio" in status and "elapsed" in status:
            if first is None:
                first = float(status["elapsed"])
            elif float(status["elapsed"]) > first:
                c.disconnect()
                return status
        time.sleep(0.2)
    raise AssertionError(f"{what} does not play: {status!r}")


@check("urlhandlers lists ftp, gopher, hls+http, rtmp, rtp; add, addid and load of such URLs play (real servers "
       "on 127.0.0.1)")
def url_schemes(_):
    directory = tempfile.mkdtemp(prefix="nosignal-schemes-")
    media = os.path.join(directory, "media")
    os.makedirs(os.path.join(media, "hls"))
    os.makedirs(os.path.join(directory, "playlists"))
    make_sine(os.path.join(media, "tone.flac"), 20)
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-i",
                    os.path.join(media, "tone.flac"), "-c:a", "aac", "-f", "hls", "-hls_time", "2",
                    "-hls_list_size", "0", "-hls_playlist_type", "vod", os.path.join(media, "hls", "index.m3u8")],
                   check=True)
    ftp_port, gopher_port, http_port = free_port(), free_port(), free_port()
    helpers = [
        subprocess.Popen(["/usr/bin/python3", "-m", "pyftpdlib", "-i", "127.0.0.1", "-p", str(ftp_port), "-d", media],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        subprocess.Popen(["/usr/bin/python3", "-c", GOPHER_SERVER, media, str(gopher_port)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        subprocess.Popen(["/usr/bin/python3", "-m", "http.server", str(http_port), "--bind", "127.0.0.1",
                          "--directory", media], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
    ]
    config = (f'playlist_directory "{directory}/playlists"\n'
              'audio_output {\n type "null"\n name "null"\n}\n')
    s = Server(config)
    try:
        for port, proc in zip([ftp_port, gopher_port, http_port], helpers):
            wait_listening(port, proc)
        c = s.client()
        handlers = c.urlhandlers()
        for scheme in ["ftp://", "gopher://", "hls+http://", "http://", "https://", "rtmp://", "rtp://"]:
            expect(scheme in handlers, f"{scheme} not in {handlers!r}")
        expect(handlers == sorted(handlers, key=lambda h: h.encode()), repr(handlers))
        ftp = f"ftp://127.0.0.1:{ftp_port}/tone.flac"
        gopher = f"gopher://127.0.0.1:{gopher_port}/9tone.flac"
        hls = f"hls+http://127.0.0.1:{http_port}/hls/index.m3u8"
        c.add(ftp)
        song_id = c.addid(gopher)
        with open(os.path.join(directory, "playlists", "streams.m3u"), "w") as f:
            f.write(hls + "\n")
        c.load("streams")
        files = [song["file"] for song in c.playlistinfo()]
        expect(files == [ftp, gopher, hls], repr(files))
        expect_ack(lambda: c.add("nfs://127.0.0.1/x.flac"), "[2@0] {add} Unsupported URI scheme", "add nfs://")
        c.play(0)
        expect_plays(s, "ftp://")
        c.playid(song_id)
        expect_plays(s, "gopher://")
        c.play(2)
        status = expect_plays(s, "hls+http://")
        expect(status.get("audio", "").startswith("44100:"), repr(status))
        # rtmp: the ffmpeg command line as a one-client RTMP server, started just before the song plays.
        rtmp_port = free_port()
        rtmp = f"rtmp://127.0.0.1:{rtmp_port}/live/tone"
        sender = subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-re", "-i", os.path.join(media, "tone.flac"),
                                   "-c:a", "aac", "-f", "flv", "-listen", "1", rtmp],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        helpers.append(sender)
        time.sleep(1)  # ffmpeg listens; a probe connection would be its one client
        rtmp_id = c.addid(rtmp)
        c.playid(rtmp_id)
        expect_plays(s, "rtmp://")
        c.disconnect()
    finally:
        s.stop()
        for proc in helpers:
            proc.terminate()
            proc.wait()


@check("nosignal probe decode prints the format; probe output plays through the configured outputs")
def probe(_):
    directory = tempfile.mkdtemp(prefix="nosignal-clients-")
    song = os.path.join(directory, "tone.flac")
    make_sine(song, 1)
    out = subprocess.run([BINARY, "probe", "decode", song], capture_output=True, text=True, timeout=30)
    expect(out.returncode == 0 and "audio: 44100:16:2" in out.stdout and "decoded 44100 frames" in out.stdout,
           out.stdout + out.stderr)
    out = subprocess.run([BINARY, "probe", "decode", os.path.join(directory, "missing.mp3")],
                         capture_output=True, text=True, timeout=30)
    expect(out.returncode != 0 and "missing.mp3" in out.stderr, out.stdout + out.stderr)
    conf = os.path.join(directory, "probe.conf")
    with open(conf, "w") as f:
        f.write(f'audio_output {{\n type "pipe"\n name "recorder"\n command "cat > {directory}/out.raw"\n}}\n')
    out = subprocess.run([BINARY, "probe", "output", "--config", conf, "--seconds", "0.5"],
                         capture_output=True, text=True, timeout=30)
    expect(out.returncode == 0 and '"recorder" (pipe): played' in out.stdout, out.stdout + out.stderr)
    expect(os.path.getsize(os.path.join(directory, "out.raw")) == 22050 * 4, "the tone reached the pipe")


@check("the httpd output streams what plays: ffprobe reads MP3 from it, ffmpeg decodes it while the song plays")
def httpd_stream(_):
    directory = tempfile.mkdtemp(prefix="nosignal-clients-")
    os.makedirs(os.path.join(directory, "music"))
    make_sine(os.path.join(directory, "music", "long.flac"), 20)
    stream_port = free_port()
    config = ("audio_output {\n type \"httpd\"\n name \"stream\"\n encoder \"lame\"\n bitrate \"128\"\n"
              f" port \"{stream_port}\"\n bind_to_address \"127.0.0.1\"\n}}\n"
              "audio_output {\n type \"null\"\n name \"clock\"\n}\n")
    s = Server(config, directory)
    try:
        s.mpc("update", "--wait")
        s.mpc("add", "long.flac")
        s.mpc("play")
        time.sleep(0.5)
        url = f"http://127.0.0.1:{stream_port}/"
        probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels",
                                "-of", "default=nw=1", url], capture_output=True, text=True, timeout=30)
        expect("codec_name=mp3" in probe.stdout and "sample_rate=44100" in probe.stdout,
               probe.stdout + probe.stderr)
        decode = subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-t", "2", "-i", url, "-f", "s16le", "-"],
                                capture_output=True, timeout=30)
        expect(decode.returncode == 0 and len(decode.stdout) >= 44100 * 4,
               f"decoded {len(decode.stdout)} bytes: {decode.stderr[-300:]!r}")
        _, outputs = s.mpc("outputs")
        expect("(stream) is enabled" in outputs, outputs)
        # Paused, the stream goes on with silence (as MPD's does), so a listener keeps playing instead of waiting.
        s.mpc("pause")
        paused = subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-t", "1.5", "-i", url, "-f", "s16le", "-"],
                                capture_output=True, timeout=30)
        samples = array.array("h", paused.stdout[:len(paused.stdout) // 2 * 2])
        # (The first moments may still be music: the last chunk before the pause, and the encoder's delay.)
        expect(paused.returncode == 0 and len(samples) >= 44100 * 2 and max(map(abs, samples[44100 // 2:])) < 64,
               f"paused: {len(samples)} samples, {paused.stderr[-300:]!r}")
    finally:
        s.stop()


@check("nosignal login (QR, against the fake NetEase), whoami, logout, login --phone (password, SMS code, 8821/-462/"
       "501/502 explained); the cookie file is 0600 and no cookie is printed")
def netease_login(_):
    directory = tempfile.mkdtemp(prefix="nosignal-clients-")
    fake_binary = os.path.join(os.path.dirname(BINARY), "fake-netease")
    port = free_port()
    fake = subprocess.Popen([fake_binary, "--port", str(port), "--key", f"{directory}/private.pem", "--qr-auto"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = [fake.stdout.readline() for _ in range(5)]
        public = next(line.split(" ", 2)[2].strip() for line in lines if line.startswith("public key "))
        music_u = next(line.split()[2] for line in lines if line.startswith("demo MUSIC_U "))
        conf = os.path.join(directory, "nosignal.conf")
        with open(conf, "w") as f:
            f.write(f'data_directory "{directory}/data"\nnetease {{\n api_url "http://127.0.0.1:{port}"\n'
                    f' eapi_url "http://127.0.0.1:{port}"\n weapi_public_key "{public}"\n}}\n')
        out = subprocess.run([BINARY, "login", "--config", conf, "--timeout", "30"], capture_output=True, text=True,
                             timeout=60)
        expect(out.returncode == 0 and "Logged in as demo_user" in out.stdout and "█" in out.stdout,
               out.stdout[-500:] + out.stderr)
        expect("Scanned by demo_user" in out.stdout, out.stdout[-300:])
        cookie_file = os.path.join(directory, "data", "netease-cookies")
        mode = os.stat(cookie_file).st_mode & 0o777
        expect(mode == 0o600, f"cookie file mode {oct(mode)}")
        out = subprocess.run([BINARY, "whoami", "--config", conf], capture_output=True, text=True, timeout=30)
        expect(out.returncode == 0 and "demo_user" in out.stdout, out.stdout + out.stderr)
        expect(music_u not in out.stdout + out.stderr, "a cookie value was printed")
        out = subprocess.run([BINARY, "logout", "--config", conf], capture_output=True, text=True, timeout=30)
        expect(out.returncode == 0, out.stdout + out.stderr)
        out = subprocess.run([BINARY, "whoami", "--config", conf], capture_output=True, text=True, timeout=30)
        expect(out.returncode != 0 and "not logged in" in out.stderr, out.stdout + out.stderr)
        # Phone login, the last resort: the password comes from standard input; NetEase's refusals are explained.
        def phone(number, secret, *extra):
            return subprocess.run([BINARY, "login", "--config", conf, "--phone", number, *extra], input=secret + "\n",
                                  capture_output=True, text=True, timeout=30)
        for number, explained in [("13800000001", "behaviour captcha (8821)"), ("13800000002", "risk verification (-462)"),
                                  ("13800000009", "no account with this phone number (501)")]:
            out = phone(number, "whatever")
            expect(out.returncode == 1 and "QR code" * (number != "13800000009") in out.stderr
                   and explained in out.stderr, out.stdout + out.stderr)
        out = phone("13800000000", "not the password")
        expect(out.returncode == 1 and "wrong password or code (502)" in out.stderr, out.stdout + out.stderr)
        out = phone("13800000000", "nosignal")
        expect(out.returncode == 0 and "Logged in as demo_user" in out.stdout and "nosignal" not in out.stdout,
               out.stdout + out.stderr)
        out = phone("13800000000", "1234", "--sms")
        expect(out.returncode == 0 and "Logged in as demo_user" in out.stdout, out.stdout + out.stderr)
        out = subprocess.run([BINARY, "whoami", "--config", conf], capture_output=True, text=True, timeout=30)
        expect(out.returncode == 0 and "demo_user" in out.stdout, out.stdout + out.stderr)
    finally:
        fake.terminate()
        fake.wait(10)


# ---------------------------------------------------------------------------------------------------
# NetEase as a music source, against the fake NetEase server (Sources/FakeNetEase; demo catalogue in
# DemoCatalog.swift). Each check starts its own fake-netease and NoSignal logged in with the demo cookie.

FAKE_BINARY = os.path.join(os.path.dirname(BINARY), "fake-netease")
NETEASE_FOLDERS = ["Daily", "Liked", "Playlists", "Albums", "Artists", "Cloud", "Charts", "Recent"]
# The demo account's own and subscribed playlists, without the liked-songs one (that is NetEase/Liked).
DEMO_PLAYLISTS = ["通勤路上 🚇", "Late Night Mix", "全部的歌 · All the Songs", "云音乐飙升榜"]
# "Late Night Mix" (id 2000000002): (uri, title, artist, album) in playlist order.
LATE_NIGHT_MIX = [
    ("netease://song/5000074", "凌晨三点", "林夕雨", "城市森林"),
    ("netease://song/5000043", "Полночь", "Ночной Город", "Полночь"),
    ("netease://song/5000055", "밤하늘 🌙", "이하늘", "별빛 노래"),
    ("netease://song/5000025", "星屑ラジオ", "星野ゆめ", "雨の街角"),
    ("netease://song/5000032", "Þögn", "Sigur Ósk", "Norðurljós"),
    ("netease://song/5000085", "おやすみ", "星野ゆめ", "ひかりの旅"),
]
# Album 3003 "Norðurljós" by Sigur Ósk.
NORDURLJOS = [(f"netease://song/{5000030 + n}", title, "Sigur Ósk", "Norðurljós")
              for n, title in enumerate(["Ljósið", "Þögn", "Við hafið", "Snjór í maí", "Heim"], 1)]
DEMO_ALBUMS = ["夏日的回声", "雨の街角", "Norðurljós", "Полночь", "별빛 노래", "Canción del Río", "城市森林", "ひかりの旅"]
DAILY_IDS = [5000014, 5000023, 5000035, 5000044, 5000052, 5000062, 5000073, 5000081, 5000015, 5000064]


def make_tagged(path, title, artist, album, seconds=1):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                    f"sine=frequency=440:duration={seconds}:sample_rate=44100", "-ac", "2",
                    "-metadata", f"title={title}", "-metadata", f"artist={artist}", "-metadata", f"album={album}",
                    path], check=True)


def lines(text):
    return [line for line in text.splitlines() if line]


def tags(song):
    """(file, Title, Artist, Album) of a python-mpd2 song dict (first value of a multi-value tag)."""
    def first(key):
        value = song.get(key)
        return value[0] if isinstance(value, list) else value
    return song.get("file"), first("title"), first("artist"), first("album")


class NetEaseRig:
    """fake-netease on a free port + NoSignal pointed at it (`sync_interval "0"`: the check syncs with
    `update NetEase`), logged in beforehand with `nosignal login --cookie` and the demo account's cookie, and a
    local music directory of two tagged FLACs:
      local.flac  Title "Local Night", Artist "Local Band", Album "Norðurljós (local)"
      heim.flac   Title "Heim", Artist "Sigur Ósk", Album "Norðurljós" (the same title and artist as the demo
                  catalogue's song 5000035, so the online search must leave that one out)
    """

    def __init__(self, netease_options="", extra_config=""):
        self.dir = tempfile.mkdtemp(prefix="nosignal-netease-")
        music = os.path.join(self.dir, "music")
        os.makedirs(music)
        make_tagged(os.path.join(music, "local.flac"), "Local Night", "Local Band", "Norðurljós (local)")
        make_tagged(os.path.join(music, "heim.flac"), "Heim", "Sigur Ósk", "Norðurljós")
        self.fake_port = free_port()
        self.fake_url = f"http://127.0.0.1:{self.fake_port}"
        self.fake = subprocess.Popen([FAKE_BINARY, "--port", str(self.fake_port), "--key",
                                      os.path.join(self.dir, "private.pem")],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.server = None
        try:
            public = self.music_u = self.csrf = None
            banner = []
            while self.csrf is None:
                line = self.fake.stdout.readline()
                if not line:
                    raise RuntimeError("fake-netease did not start: " + "".join(banner))
                banner.append(line)
                if line.startswith("public key "):
                    public = line[len("public key "):].strip()
                elif line.startswith("demo MUSIC_U "):
                    self.music_u = line.split()[2]
                elif line.startswith("demo __csrf "):
                    self.csrf = line.split()[2]
            # Keep reading, so the fake never blocks on a full pipe.
            threading.Thread(target=self.fake.stdout.read, daemon=True).start()
            netease = (f'netease {{\n api_url "{self.fake_url}"\n eapi_url "{self.fake_url}"\n'
                       f' weapi_public_key "{public}"\n sync_interval "0"\n{netease_options}}}\n')
            common = f'data_directory "{self.dir}/data"\ncache_directory "{self.dir}/cache"\n'
            login_conf = os.path.join(self.dir, "login.conf")
            with open(login_conf, "w") as f:
                f.write(common + netease)
            out = subprocess.run([BINARY, "login", "--config", login_conf, "--cookie",
                                  f"MUSIC_U={self.music_u}; __csrf={self.csrf}"],
                                 env=dict(os.environ, HOME=self.dir), capture_output=True, text=True, timeout=60)
            self.login_output = out.stdout + out.stderr
            expect(out.returncode == 0 and "Logged in as demo_user" in out.stdout, self.login_output)
            self.cookie_file = os.path.join(self.dir, "data", "netease-cookies")
            # `@DIR@` in extra_config stands for the rig's directory (a state file there, say).
            self.server_config = (common + 'audio_output {\n type "null"\n name "null"\n}\n' + netease
                                  + extra_config.replace("@DIR@", self.dir))
            self.server = Server(self.server_config, self.dir)
            code, out = self.server.mpc("update", "--wait", timeout=30)
            expect(code == 0, out)
        except BaseException:
            self.stop()
            raise

    def mpc(self, *args, timeout=15):
        return self.server.mpc(*args, timeout=timeout)

    def restart(self):
        """Stops NoSignal (SIGTERM) and starts it again with the same configuration; returns the exit code."""
        code = self.server.stop()
        self.server = Server(self.server_config, self.dir)
        return code

    def state(self):
        """The fake's account state: liked ids, playlists, scrobbles, trashed and FM-served ids."""
        return self.control("/__fake/state")

    def wait_until(self, condition, what, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}")

    def mpc_bytes(self, *args):
        env = dict(os.environ, MPD_HOST="127.0.0.1", MPD_PORT=str(self.server.port))
        out = subprocess.run(["mpc", *args], env=env, capture_output=True, timeout=15)
        return out.returncode, out.stdout, out.stderr.decode(errors="replace")

    def client(self, timeout=15):
        c = self.server.client()
        c.timeout = timeout
        return c

    def control(self, path, body=None):
        data = json.dumps(body).encode() if body is not None else None  # POST with a body, GET without
        request = urllib.request.Request(self.fake_url + path, data=data)
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def fault(self, path, fault, value=None, count=1):
        body = {"path": path, "fault": fault, "count": count}
        if value is not None:
            body["value"] = value
        expect(self.control("/__fake/fault", body) == {"ok": True}, f"fault {body}")

    def reset(self):
        self.control("/__fake/reset", {})

    def api_requests(self):
        """The fake's request log, API calls only (not cover or audio GETs)."""
        return [entry for entry in self.control("/__fake/log") if entry["method"] == "POST"]

    def song_detail(self, song_id):
        """The demo catalogue's song as the fake describes it (plain /api/ form, the demo cookie)."""
        data = urllib.parse.urlencode({"c": json.dumps([{"id": song_id}])}).encode()
        request = urllib.request.Request(self.fake_url + "/api/v3/song/detail", data=data,
                                         headers={"Cookie": f"MUSIC_U={self.music_u}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())["songs"][0]

    def liked_ids(self):
        """The demo account's like list on the fake, newest first."""
        return self.state()["liked"]

    def playlist_tracks(self, playlist_id):
        """A playlist's track ids on the fake, in order; None when there is no such playlist."""
        return next((p["trackIds"] for p in self.state()["playlists"] if p["id"] == playlist_id), None)

    def playlists(self):
        """The demo account's own playlists on the fake: {name: id}."""
        return {p["name"]: p["id"] for p in self.state()["playlists"] if p["own"]}

    def get(self, url):
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.read()

    def server_log(self):
        with open(os.path.join(self.dir, "stderr.log"), encoding="utf-8", errors="replace") as f:
            return f.read()

    def wait_for_update(self, client, seen_within=None):
        """Polls status until `updating_db` is gone; returns whether it was ever seen."""
        seen = False
        deadline = time.time() + 30
        while time.time() < deadline:
            if "updating_db" in client.status():
                seen = True
            elif seen or seen_within is None or time.time() > seen_within:
                return seen
            time.sleep(0.02)
        raise AssertionError("updating_db did not go away within 30 s")

    def sync(self):
        """`mpc update NetEase` and waits until the job is done."""
        code, out = self.mpc("update", "NetEase")
        expect(code == 0 and "Updating DB" in out, out)
        c = self.client()
        self.wait_for_update(c, seen_within=time.time() + 1)
        c.close()

    def stop(self):
        if self.server is not None:
            self.server.stop()
            self.server = None
        if self.fake.poll() is None:
            self.fake.terminate()
            try:
                self.fake.wait(10)
            except subprocess.TimeoutExpired:
                self.fake.kill()
                self.fake.wait()


def expect_local_music_works(rig, after):
    """mpc ls, mpc find title "Local Night" and mpc add local.flac answer as without NetEase."""
    code, out = rig.mpc("ls")
    expect(code == 0 and {"NetEase", "heim.flac", "local.flac"} <= set(lines(out)), f"after {after}: mpc ls: {out!r}")
    code, out = rig.mpc("find", "title", "Local Night")
    expect(code == 0 and lines(out) == ["local.flac"], f"after {after}: mpc find: {out!r}")
    c = rig.client()
    before = len(c.playlistinfo())
    code, out = rig.mpc("add", "local.flac")
    expect(code == 0, f"after {after}: mpc add local.flac: {out!r}")
    queue = c.playlistinfo()
    expect(len(queue) == before + 1 and tags(queue[-1]) == ("local.flac", "Local Night", "Local Band",
                                                             "Norðurljós (local)"),
           f"after {after}: the queue is {[tags(s) for s in queue]}")
    c.close()


def expect_listed_despite(rig, call, expected, failure, what):
    """A NetEase folder NetEase cannot list answers what is synced of it (`expected`), logs the failure, and no ACK:
    Cantata lists every folder at each start and shows an ACK as an error banner (issue 34)."""
    try:
        result = call()
    except mpd.CommandError as error:
        raise AssertionError(f"{what}: ACK {error}")
    expect(result == expected, f"{what}: answered {result!r}")
    expect(f"cannot list {failure}" in rig.server_log(), f"{what}: the log does not say it cannot list {failure}")


def expect_ack(call, expected, what):
    """The python-mpd2 call fails with CommandError whose text starts with `expected`; returns the text."""
    try:
        result = call()
    except mpd.CommandError as e:
        expect(str(e).startswith(expected), f"{what}: {str(e)!r}, expected {expected!r}…")
        return str(e)
    raise AssertionError(f"{what}: no error, answered {result!r}")


@check("NetEase browsing (mpc, python-mpd2): ls NetEase shows 8 folders, Playlists and a playlist's songs, "
       "search any gives local matches first then catalogue songs without duplicates")
def netease_browse(_):
    rig = NetEaseRig()
    try:
        code, out = rig.mpc("ls", "NetEase")
        expect(code == 0 and lines(out) == [f"NetEase/{name}" for name in NETEASE_FOLDERS], out)
        c = rig.client()
        expect([entry.get("directory") for entry in c.lsinfo("NetEase")]
               == [f"NetEase/{name}" for name in NETEASE_FOLDERS], c.lsinfo("NetEase"))
        root = c.lsinfo("")
        expect({"directory": "NetEase"} in [{"directory": e["directory"]} for e in root if "directory" in e], root)

        code, out = rig.mpc("ls", "NetEase/Playlists")
        expect(code == 0 and lines(out) == [f"NetEase/Playlists/{name}" for name in DEMO_PLAYLISTS], out)
        code, out = rig.mpc("ls", "NetEase/Playlists/Late Night Mix")
        expect(code == 0 and lines(out) == [song[0] for song in LATE_NIGHT_MIX], out)
        songs = c.lsinfo("NetEase/Playlists/Late Night Mix")
        expect([tags(song) for song in songs] == LATE_NIGHT_MIX, [tags(song) for song in songs])
        # Today's songs, then today's three recommended playlists as folders.
        code, out = rig.mpc("ls", "NetEase/Daily")
        daily = lines(out)
        expect(code == 0 and daily[:len(DAILY_IDS)] == [f"netease://song/{i}" for i in DAILY_IDS], out)
        expect(len(daily) == len(DAILY_IDS) + 3 and all(f.startswith("NetEase/Daily/") for f in daily[-3:]), out)
        code, out = rig.mpc("ls", "NetEase/Nonexistent")
        expect(code != 0 and "No such directory" in out, out)

        # Local matches (heim.flac, local.flac), then the catalogue's Norðurljós songs; its "Heim" by Sigur Ósk
        # is the same title and artist as heim.flac, so it is left out.
        expected_online = [song[0] for song in NORDURLJOS[:4]]
        code, out = rig.mpc("search", "any", "Norðurljós")
        found = lines(out)
        expect(code == 0 and sorted(found[:2]) == ["heim.flac", "local.flac"] and found[2:] == expected_online,
               f"mpc search any Norðurljós: {found}")
        results = [tags(song) for song in c.search("any", "Norðurljós")]
        expect([r[0] for r in results] == found, f"python-mpd2 search: {results} vs mpc {found}")
        expect(results[2:] == NORDURLJOS[:4], results)
        expect(len({r[0] for r in results}) == len(results), f"duplicate URIs: {results}")
        expect(len({(r[1], r[2]) for r in results}) == len(results), f"duplicate title+artist: {results}")
        # A word only the catalogue knows, and one only the local library knows.
        results = [tags(song) for song in c.search("any", "Ночной")]
        expect(results and all(r[0].startswith("netease://song/") and r[2] == "Ночной Город" for r in results),
               results)
        code, out = rig.mpc("search", "title", "Local Night")
        expect(code == 0 and lines(out) == ["local.flac"], out)
        c.close()
    finally:
        rig.stop()


@check("update NetEase (mpc, python-mpd2): updating_db while it runs, idle database after; NetEase/<name> in "
       "lsplaylists, synced albums in list album and stats; synced folders answer without asking NetEase")
def netease_sync(_):
    rig = NetEaseRig()
    try:
        code, out = rig.mpc("lsplaylists")
        expect(code == 0 and "NetEase/" not in out, f"before the sync: {out!r}")
        code, out = rig.mpc("list", "album")
        expect(code == 0 and lines(out) == ["Norðurljós", "Norðurljós (local)"], f"before the sync: {out!r}")
        c = rig.client()
        expect(c.stats()["songs"] == "2", c.stats())

        watcher = rig.client(timeout=30)
        changed = {}

        def idle():
            changed["subsystems"] = watcher.idle("database")

        thread = threading.Thread(target=idle)
        thread.start()
        time.sleep(0.3)
        # Slow the sync down, so `updating_db` is seen.
        rig.fault("/api/song/like/get", "delay", 1.5)
        code, out = rig.mpc("update", "NetEase")
        expect(code == 0 and "Updating DB" in out, out)
        expect(rig.wait_for_update(c, seen_within=time.time() + 1), "status never showed updating_db")
        thread.join(15)
        expect(changed.get("subsystems") == ["database"], f"idle database: {changed}")
        watcher.close()

        code, out = rig.mpc("lsplaylists")
        expect(code == 0 and [line for line in lines(out) if line.startswith("NetEase/")]
               == [f"NetEase/{name}" for name in DEMO_PLAYLISTS], out)
        names = [p["playlist"] for p in c.listplaylists()]
        expect([n for n in names if n.startswith("NetEase/")] == [f"NetEase/{name}" for name in DEMO_PLAYLISTS],
               names)
        code, out = rig.mpc("list", "album")
        albums = set(lines(out))
        expect(code == 0 and set(DEMO_ALBUMS) | {"Norðurljós (local)"} <= albums, f"mpc list album: {out!r}")
        expect(set(DEMO_ALBUMS) <= {row["album"] for row in c.list("album")}, c.list("album"))
        synced = {song["file"] for song in c.listallinfo("NetEase") if "file" in song}
        expect(len(synced) >= 40 and int(c.stats()["songs"]) == 2 + len(synced),
               f"stats {c.stats()} with {len(synced)} synced songs")
        code, out = rig.mpc("stats")
        expect(code == 0 and f"Songs:{2 + len(synced):>9}" in out, out)

        # Synced folders and playlists come from the database: no request reaches NetEase.
        rig.reset()
        started = time.time()
        code, out = rig.mpc("ls", "NetEase/Playlists/Late Night Mix")
        expect(code == 0 and lines(out) == [song[0] for song in LATE_NIGHT_MIX], out)
        code, out = rig.mpc("playlist", "NetEase/Late Night Mix")
        expect(code == 0 and lines(out) == [f"{s[2]} - {s[1]}" for s in LATE_NIGHT_MIX], out)
        liked = c.lsinfo("NetEase/Liked")
        expect(len(liked) == 12, [tags(s) for s in liked])
        expect(time.time() - started < 5, f"synced listings took {time.time() - started:.1f} s")
        expect(rig.api_requests() == [], f"synced listings asked NetEase: {rig.api_requests()}")
        code, out = rig.mpc("load", "NetEase/Late Night Mix")
        expect(code == 0, out)
        expect([tags(s) for s in c.playlistinfo()] == LATE_NIGHT_MIX, [tags(s) for s in c.playlistinfo()])

        # Synced songs are database matches now: the catalogue part does not repeat them.
        results = [tags(song) for song in c.search("any", "Norðurljós")]
        expect(sorted(r[0] for r in results[:2]) == ["heim.flac", "local.flac"], results)
        expect(len({r[0] for r in results}) == len(results), f"duplicate URIs after the sync: {results}")
        expect({r[0] for r in results[2:]} == {s[0] for s in NORDURLJOS}, results)
        c.close()
    finally:
        rig.stop()


@check("NetEase in the queue (mpc, python-mpd2): add a playlist folder, a share link, netease://album/<id> with "
       "their tags; albumart of a NetEase song is the fake's cover")
def netease_queue(_):
    rig = NetEaseRig()
    try:
        c = rig.client()
        code, out = rig.mpc("add", "NetEase/Playlists/Late Night Mix")
        expect(code == 0, out)
        expect([tags(s) for s in c.playlistinfo()] == LATE_NIGHT_MIX, [tags(s) for s in c.playlistinfo()])
        code, out = rig.mpc("add", "https://music.163.com/#/song?id=5000012")
        expect(code == 0, out)
        code, out = rig.mpc("add", "netease://album/3003")
        expect(code == 0, out)
        expected = LATE_NIGHT_MIX + [("netease://song/5000012", "海风", "林夕雨", "夏日的回声")] + NORDURLJOS
        queue = [tags(s) for s in c.playlistinfo()]
        expect(queue == expected, queue)
        code, out = rig.mpc("-f", "%artist% - %title% - %album%", "playlist")
        expect(code == 0 and lines(out) == [f"{s[2]} - {s[1]} - {s[3]}" for s in expected], out)
        # python-mpd2 adds a playlist share link and an album.
        c.clear()
        c.add("https://music.163.com/playlist?id=2000000002")
        c.add("netease://album/3003")
        queue = [tags(s) for s in c.playlistinfo()]
        expect(queue == LATE_NIGHT_MIX + NORDURLJOS, queue)
        expect(all(s.get("time") and int(s["time"]) > 0 for s in c.playlistinfo()), c.playlistinfo())
        expect_ack(lambda: c.add("netease://song/999999999"), "[50@0] {add}", "add of an unknown song")

        # albumart: a song just added, and one never seen by this server (5000053: album 3005).
        for song_id, uri in ((5000012, "netease://song/5000012"), (5000053, "netease://song/5000053")):
            cover_url = rig.song_detail(song_id)["al"]["picUrl"]
            cover = rig.get(cover_url)
            expect(cover[:3] == b"\xff\xd8\xff", f"the fake's cover {cover_url} is not a JPEG")
            art = c.albumart(uri)
            expect(art.get("binary") == cover, f"albumart {uri}: {len(art.get('binary') or b'')} bytes, "
                                               f"the cover has {len(cover)}")
            code, data, err = rig.mpc_bytes("albumart", uri)
            expect(code == 0 and data == cover, f"mpc albumart {uri}: {len(data)} bytes, {err}")
            picture = c.readpicture(uri)
            expect(picture.get("binary") == cover and picture.get("type") == "image/jpeg",
                   f"readpicture {uri}: {picture.get('type')}")
        c.close()
    finally:
        rig.stop()


@check("NetEase faults (timeout, -460, malformed JSON, 301): the documented ACK via python-mpd2 and mpc (a folder listing lists what is synced and logs), other "
       "clients answered during a timeout, a search answers from the local library as MPD would (mpc searchadd "
       "exits 0), local music works after each")
def netease_faults(_):
    rig = NetEaseRig(netease_options=' timeout "2"\n')
    try:
        c = rig.client()

        # Timeout on search (cloudsearch): python-mpd2 waits 2 s while another client is answered, then gets what
        # the local library has (nothing), as from MPD; the log says why NetEase added nothing.
        rig.fault("/api/cloudsearch/pc", "timeout")
        result = {}

        def slow_search():
            slow = rig.client()
            started = time.time()
            try:
                result["songs"] = slow.search("any", "Огни")
                result["error"] = "no error"
            except mpd.CommandError as e:
                result["error"] = str(e)
            result["took"] = time.time() - started
            result["done"] = time.time()
            slow.close()

        thread = threading.Thread(target=slow_search)
        thread.start()
        time.sleep(0.3)
        other = rig.client()
        asked = time.time()
        status = other.status()
        found = other.find("title", "Local Night")
        listing = other.lsinfo("")
        answered = time.time()
        other.close()
        thread.join(15)
        expect(result.get("error") == "no error" and result.get("songs") == [], result)
        expect(1.8 <= result["took"] < 4, f"the timed-out search took {result['took']:.2f} s")
        expect('search "Огни": answered from the local library only (NetEase: no answer within 2 s (timeout))'
               in rig.server_log(),
               "the log does not say why the search found nothing on NetEase: "
               + repr([l for l in rig.server_log().splitlines() if "Огни" in l]))
        expect("state" in status and [s["file"] for s in found] == ["local.flac"]
               and any(e.get("file") == "local.flac" for e in listing), (status, found, listing))
        expect(answered - asked < 1 and answered < result["done"],
               f"the other client took {answered - asked:.2f} s, the NetEase one ended "
               f"{result['done'] - answered:.2f} s after it")
        # Until NetEase answers something again (at most 30 s), searches do not wait for it: each answers its local
        # matches at once (nothing is sent to NetEase); with none, an empty answer and exit status 0, as with MPD.
        asked = len(rig.control("/__fake/log"))
        started = time.time()
        code, out = rig.mpc("search", "any", "Огни")
        expect(code == 0 and out.strip() == "", out)
        code, out = rig.mpc("searchadd", "any", "qxzjvw")
        expect(code == 0 and out.strip() == "", f"mpc searchadd without NetEase: {code} {out!r}")
        expect(time.time() - started < 1, f"mpc's search waited {time.time() - started:.2f} s after a timeout")
        started = time.time()
        found = [s["file"] for s in c.search("title", "Local Night")]
        expect(found == ["local.flac"] and time.time() - started < 1, (found, time.time() - started))
        expect(not any("cloudsearch" in e.get("path", "") for e in rig.control("/__fake/log")[asked:]),
               "searches during the pause asked NetEase")
        expect_local_music_works(rig, "a timeout")

        # -460 on the subscribed albums (lsinfo) and on an album (add).
        cheating = "NetEase: request refused as coming from a risky network (-460"
        rig.fault("/api/album/sublist", "code", -460)
        expect_listed_despite(rig, lambda: c.lsinfo("NetEase/Albums"), [], "NetEase/Albums", "-460 lsinfo")
        rig.fault("/api/album/sublist", "code", -460)
        code, out = rig.mpc("ls", "NetEase/Albums")
        expect(code == 0 and out.strip() == "", out)
        rig.fault("/api/v1/album", "code", -460)
        expect_ack(lambda: c.add("netease://album/3005"), "[52@0] {add} " + cheating, "-460 add")
        rig.fault("/api/v1/album", "code", -460)
        code, out = rig.mpc("add", "netease://album/3005")
        expect(code != 0 and cheating in out, out)
        expect_local_music_works(rig, "-460")
        code, out = rig.mpc("ls", "NetEase/Albums")
        expect(code == 0 and len(lines(out)) == 2, f"NetEase/Albums once the fault is gone: {out!r}")

        # Malformed JSON on the charts (lsinfo).
        rig.fault("/api/toplist", "malformed")
        expect_listed_despite(rig, lambda: c.lsinfo("NetEase/Charts"), [], "NetEase/Charts", "malformed")
        rig.fault("/api/toplist", "malformed")
        code, out = rig.mpc("ls", "NetEase/Charts")
        expect(code == 0 and out.strip() == "", out)
        expect_local_music_works(rig, "malformed JSON")
        code, out = rig.mpc("ls", "NetEase/Charts")
        expect(code == 0 and len(lines(out)) == 3, f"NetEase/Charts once the fault is gone: {out!r}")

        # 301 on search: the local answer (nothing) and a log line, then guest mode (no request for what needs a
        # login) until a sync reads the login again.
        rig.fault("/api/cloudsearch/pc", "code", 301)
        expect(c.search("any", "Mañana") == [], "301 search")
        expect("login required (301)" in rig.server_log(), "the log does not say the search needed a login")
        rig.fault("/api/cloudsearch/pc", "code", 301)
        code, out = rig.mpc("search", "any", "Niño")
        expect(code == 0 and out.strip() == "", out)
        expect_local_music_works(rig, "301")
        rig.reset()
        expect_listed_despite(rig, lambda: c.lsinfo("NetEase/Recent"), [], "NetEase/Recent",
                              "NetEase/Recent in guest mode")
        expect(not any(e["apiPath"] == "/api/v1/play/record" for e in rig.api_requests()), rig.api_requests())
        guest = [tags(s) for s in c.search("any", "Mañana")]
        expect(guest and all(r[0].startswith("netease://song/") for r in guest), f"guest search: {guest}")
        rig.sync()
        recent = c.lsinfo("NetEase/Recent")
        expect(len(recent) == 8, f"NetEase/Recent after the login came back: {recent}")
        expect("login has expired" in rig.server_log(), "the log does not say the login expired")
        c.close()
    finally:
        rig.stop()


@check("NetEase 405 (python-mpd2, mpc): rate limited ACK, then every NetEase command answers the same at once "
       "without asking NetEase, and a search its local matches; local music works")
def netease_rate_limit(_):
    rig = NetEaseRig(netease_options=' timeout "2"\n')
    try:
        c = rig.client()
        rate_limited = "NetEase: rate limited (405), try again in a minute"
        rig.fault("/api/toplist", "status", 405)
        expect_listed_despite(rig, lambda: c.lsinfo("NetEase/Charts"), [], "NetEase/Charts", "405 lsinfo")
        rig.reset()
        started = time.time()
        expect(c.search("any", "Snjór") == [], "search while backing off")
        expect([s["file"] for s in c.search("title", "Local Night")] == ["local.flac"], "local search while backing off")
        expect_ack(lambda: c.add("netease://album/3002"), "[52@0] {add} " + rate_limited, "add while backing off")
        expect(c.lsinfo("NetEase/Charts") == [], "lsinfo while backing off")
        expect_ack(lambda: c.albumart("netease://song/5000099"), "[52@0] {albumart} " + rate_limited,
                   "albumart while backing off")
        code, out = rig.mpc("search", "any", "Огни")
        expect(code == 0 and out.strip() == "", out)
        code, out = rig.mpc("ls", "NetEase/Playlists")
        expect(code == 0, out)
        expect(time.time() - started < 5, f"the refusals took {time.time() - started:.2f} s")
        expect(rig.api_requests() == [], f"requests reached NetEase while backing off: {rig.api_requests()}")
        expect_local_music_works(rig, "405")
        expect("no requests for 60" in rig.server_log(), "the log does not mention the back-off")
        c.close()
    finally:
        rig.stop()


@check("NetEase cookies: the cookie file is 0600 in a 0700 folder, and neither nosignal login nor the server log "
       "(verbose, with a sync, searches and faults) shows a cookie value")
def netease_cookie_privacy(_):
    rig = NetEaseRig(netease_options=' timeout "2"\n', extra_config='log_level "verbose"\n')
    try:
        mode = os.stat(rig.cookie_file).st_mode & 0o777
        expect(mode == 0o600, f"cookie file mode {oct(mode)}")
        folder = os.stat(os.path.dirname(rig.cookie_file)).st_mode & 0o777
        expect(folder == 0o700, f"cookie folder mode {oct(folder)}")
        with open(rig.cookie_file) as f:
            expect(rig.music_u in f.read(), "the cookie file does not hold the login")
        rig.sync()
        c = rig.client()
        c.search("any", "Ljósið")
        c.add("netease://album/3003")
        rig.fault("/api/cloudsearch/pc", "code", 301)
        # A failing search answers the local matches (none) and logs why.
        expect(c.search("any", "Zzyzx") == [], "301 search")
        rig.fault("/api/toplist", "malformed")
        expect_listed_despite(rig, lambda: c.lsinfo("NetEase/Charts"), [], "NetEase/Charts", "malformed")
        rig.sync()
        c.close()
        # The server did send the cookie (the log proves the login was used) ...
        sent = [e for e in rig.control("/__fake/log") if e.get("cookies", {}).get("MUSIC_U") == rig.music_u]
        expect(sent, "NoSignal never sent the demo MUSIC_U")
        mode = os.stat(rig.cookie_file).st_mode & 0o777
        expect(mode == 0o600, f"cookie file mode after the server ran: {oct(mode)}")
        log = rig.server_log()
        expect("NetEase sync" in log, "the verbose log has no sync lines")
        for name, value in (("MUSIC_U", rig.music_u), ("__csrf", rig.csrf)):
            expect(value not in log, f"the server log contains the {name} value")
            expect(value not in rig.login_output, f"nosignal login printed the {name} value")
    finally:
        rig.stop()


@check("NetEase songs play (audio and bitrate in status), an unavailable one is skipped with error:, a played song is "
       "scrobbled with its seconds, and the queue comes back after a restart without a request to NetEase")
def netease_playback(_):
    rig = NetEaseRig(extra_config='state_file "@DIR@/state"\n')
    try:
        c = rig.client()
        for song in ("5000011", "5000045", "5000021"):
            code, out = rig.mpc("add", f"netease://song/{song}")
            expect(code == 0, out)
        code, out = rig.mpc("play")
        expect(code == 0 and "[playing] #1/3" in out, out)
        status = rig.wait_until(lambda: (lambda st: st if st.get("audio") and int(st.get("bitrate", "0")) > 0
                                         else None)(c.status()), "audio and bitrate in status")
        expect(status["audio"] == "44100:f:2" and status["song"] == "0", repr(status))
        expect(abs(float(status["duration"]) - 6) < 0.2, repr(status))
        # 5000011 plays out (6 s), 5000045 has no stream: playback goes on with 5000021, the log says why, and
        # `status` has no error once the next song started (MPD's PlayerControl::Play clears it).
        status = rig.wait_until(lambda: (lambda st: st if st.get("song") == "2" else None)(c.status()),
                                "the third song", timeout=25)
        expect("error" not in status, repr(status))
        expect("5000045" in rig.server_log() and "no stream" in rig.server_log(), "the log names the unavailable song")
        # Scrobbled when it ended, with the seconds heard.
        scrobble = rig.wait_until(lambda: next((s for s in rig.state()["scrobbles"] if s["id"] == 5000011), None),
                                  "the scrobble of 5000011")
        expect(scrobble["action"] == "play" and 5 <= int(scrobble["time"]) <= 7, repr(scrobble))
        expect(not any(s["id"] == 5000045 for s in rig.state()["scrobbles"]), "an unplayed song was scrobbled")
        code, out = rig.mpc("stop")
        c.close()
        rig.reset()
        expect(rig.restart() == 0, "exit code")
        c = rig.client()
        queue = [tags(s) for s in c.playlistinfo()]
        expect([q[0] for q in queue] == ["netease://song/5000011", "netease://song/5000045", "netease://song/5000021"]
               and queue[0][1] == "晴天的约定" and queue[2][1] == "雨の街角", repr(queue))
        expect(rig.api_requests() == [], f"requests at start-up: {[r['apiPath'] for r in rig.api_requests()]}")
        code, out = rig.mpc("play", "3")
        expect(code == 0 and "雨の街角" in out, out)
        rig.wait_until(lambda: c.status().get("audio"), "audio after the restart")
        c.close()
    finally:
        rig.stop()


@check("netease://fm plays ten songs in a row (mpc next), each batch in the queue before the FM entry is reached; "
       "the disliked sticker trashes the playing song and skips it; netease://heartbeat and netease://daily play")
def netease_fm(_):
    rig = NetEaseRig()
    try:
        c = rig.client()
        code, out = rig.mpc("add", "netease://fm")
        expect(code == 0, out)
        queue = c.playlistinfo()
        expect(len(queue) == 1 and queue[0]["file"] == "netease://fm" and "FM" in queue[0].get("title", ""),
               repr(queue))
        code, out = rig.mpc("play")
        expect(code == 0, out)
        played = []
        for _ in range(10):
            song = rig.wait_until(lambda: (lambda s: s if s.get("file", "").startswith("netease://song/") and
                                           s["file"] not in played else None)(c.currentsong()), "an FM song")
            played.append(song["file"])
            # Prefetched: a song after the current one, before the FM entry, well before the border.
            rig.wait_until(lambda: (lambda q, pos: len(q) > pos + 2 and q[pos + 1]["file"].startswith("netease://song/")
                                    and q[-1]["file"] == "netease://fm")(c.playlistinfo(), int(c.status()["song"])),
                           "the next FM song in the queue")
            code, out = rig.mpc("next")
            expect(code == 0, out)
        expect(len(set(played)) == 10, repr(played))
        # Not this one: NetEase hears of it and playback moves on.
        song = rig.wait_until(lambda: (lambda s: s if s.get("file", "").startswith("netease://song/") and
                                       s["file"] not in played else None)(c.currentsong()), "the eleventh song")
        code, out = rig.mpc("sticker", song["file"], "set", "disliked", "1")
        expect(code == 0, out)
        rig.wait_until(lambda: c.currentsong().get("file") != song["file"], "a skip after disliked")
        trashed = rig.state()["trashed"]
        expect(int(song["file"].rsplit("/", 1)[1]) in trashed, f"{song['file']} not in {trashed}")
        expect(c.status().get("state") == "play", repr(c.status()))

        c.clear()
        code, out = rig.mpc("add", "netease://heartbeat")
        expect(code == 0, out)
        rig.mpc("play")
        rig.wait_until(lambda: c.currentsong().get("file", "").startswith("netease://song/"), "a heartbeat song")
        expect(any(r["apiPath"] == "/api/playmode/intelligence/list" for r in rig.api_requests()),
               "no intelligence request")

        c.clear()
        code, out = rig.mpc("ls", "NetEase/Daily")
        expect(code == 0, out)
        folders = [line for line in lines(out) if not line.startswith("netease://")]
        expect(folders and all(f.startswith("NetEase/Daily/") for f in folders), out)
        code, out = rig.mpc("add", folders[0])
        expect(code == 0 and len(c.playlistinfo()) > 0, out)
        code, out = rig.mpc("add", "netease://daily")
        expect(code == 0, out)
        rig.mpc("play")
        rig.wait_until(lambda: c.status().get("audio"), "a recommended song playing")
        c.close()
    finally:
        rig.stop()


def idle_in_background(rig, *subsystems):
    """Starts `idle SUBSYSTEMS` on a connection of its own; returns (thread, result dict with "changed")."""
    watcher = rig.client(timeout=20)
    result = {}

    def idle():
        result["changed"] = watcher.idle(*subsystems)
        watcher.close()

    thread = threading.Thread(target=idle)
    thread.start()
    time.sleep(0.3)
    return thread, result


@check("NetEase likes as the `liked` sticker (mpc, python-mpd2): sticker set/get/delete/find follow NetEase's like "
       "list both ways, idle sticker and database, and mpc ls NetEase/Liked follows a like without a sync")
def netease_likes(_):
    rig = NetEaseRig()
    try:
        song = "netease://song/5000012"
        code, out = rig.mpc("sticker", song, "get", "liked")
        expect(code != 0 and "no such sticker" in out, f"before the like: {out!r}")
        rig.sync()
        liked_before = rig.liked_ids()
        sticker = idle_in_background(rig, "sticker")
        database = idle_in_background(rig, "database")
        code, out = rig.mpc("sticker", song, "set", "liked", "1")
        expect(code == 0, out)
        expect(rig.liked_ids() == [5000012] + liked_before, f"the fake's likes: {rig.liked_ids()}")
        for thread, result in (sticker, database):
            thread.join(15)
        expect(sticker[1].get("changed") == ["sticker"] and database[1].get("changed") == ["database"],
               f"idle after the like: {sticker[1]}, {database[1]}")
        code, out = rig.mpc("sticker", song, "get", "liked")
        expect(code == 0 and out.strip() == "liked=1", out)
        code, out = rig.mpc("ls", "NetEase/Liked")
        expect(code == 0 and lines(out) == [f"netease://song/{i}" for i in [5000012] + liked_before], out)
        code, out = rig.mpc("sticker", "NetEase/Liked", "find", "liked")
        expect(code == 0 and len(lines(out)) == len(liked_before) + 1 and song in out, out)

        c = rig.client()
        c.sticker_set("song", "netease://song/5000021", "liked", "0")
        expect(5000021 not in rig.liked_ids(), rig.liked_ids())
        expect_ack(lambda: c.sticker_get("song", "netease://song/5000021", "liked"), "[50@0] {sticker} no such sticker",
                   "get after the unlike")
        c.sticker_delete("song", song, "liked")
        expect(rig.liked_ids() == [i for i in liked_before if i != 5000021], rig.liked_ids())
        found = c.sticker_find("song", "", "liked")
        expect(sorted(f["file"] for f in found) == sorted(f"netease://song/{i}" for i in rig.liked_ids()), found)
        code, out = rig.mpc("ls", "NetEase/Liked")
        expect(lines(out) == [f"netease://song/{i}" for i in rig.liked_ids()], out)
        expect_ack(lambda: c.sticker_set("song", song, "liked", "maybe"),
                   '[2@0] {sticker} the sticker liked of a NetEase song is 1 or 0', "a value that is not a flag")
        # Other stickers of NetEase songs are local ones, synced or not.
        c.sticker_set("song", "netease://song/5000099", "rating", "8")
        expect(c.sticker_get("song", "netease://song/5000099", "rating") == "8", "rating of a NetEase song")
        c.close()
    finally:
        rig.stop()


@check("NetEase dislike (mpc): sticker set disliked 1 on the playing song puts it in the FM trash on NetEase and "
       "skips to the next song; the sticker stays")
def netease_dislike(_):
    rig = NetEaseRig()
    try:
        first, second = "netease://song/5000012", "netease://song/5000021"
        for uri in (first, second):
            code, out = rig.mpc("add", uri)
            expect(code == 0, out)
        code, out = rig.mpc("play")
        expect(code == 0, out)
        # Paused, so the song (6 to 9 s of audio) cannot end by itself meanwhile.
        code, out = rig.mpc("pause")
        c = rig.client()
        expect(c.status().get("song") == "0", c.status())
        code, out = rig.mpc("sticker", first, "set", "disliked", "1")
        expect(code == 0, out)
        expect(rig.state()["trashed"] == [5000012], rig.state()["trashed"])
        expect(c.status().get("song") == "1", f"after the dislike: {c.status()}")
        code, out = rig.mpc("sticker", first, "get", "disliked")
        expect(code == 0 and out.strip() == "disliked=1", out)
        # A dislike of a song that is not playing changes nothing in the player.
        code, out = rig.mpc("sticker", first, "set", "disliked", "1")
        expect(code == 0 and c.status().get("song") == "1", c.status())
        c.close()
    finally:
        rig.stop()


@check("NetEase playlist edits (mpc, python-mpd2): playlistadd/playlistmove/playlistdelete/playlistclear change an "
       "own playlist on NetEase and its synced copy; mpc save and rm create and delete one; rename renames it; a subscribed one refuses")
def netease_playlist_edits(_):
    rig = NetEaseRig()
    try:
        rig.sync()
        c = rig.client()
        mix = "NetEase/Late Night Mix"
        before = rig.playlist_tracks(2000000002)
        changed = idle_in_background(rig, "stored_playlist")
        c.playlistadd(mix, "netease://song/5000012")
        changed[0].join(15)
        expect(changed[1].get("changed") == ["stored_playlist"], f"idle: {changed[1]}")
        expected = before + [5000012]
        expect(rig.playlist_tracks(2000000002) == expected, f"on NetEase: {rig.playlist_tracks(2000000002)}")
        uris = [f"netease://song/{i}" for i in expected]
        code, out = rig.mpc("ls", "NetEase/Playlists/Late Night Mix")
        expect(code == 0 and lines(out) == uris, out)
        expect(c.listplaylist(mix) == uris, c.listplaylist(mix))
        c.playlistmove(mix, len(expected) - 1, 0)
        expected = [5000012] + before
        expect(rig.playlist_tracks(2000000002) == expected, f"after the move: {rig.playlist_tracks(2000000002)}")
        c.playlistdelete(mix, 0)
        expect(rig.playlist_tracks(2000000002) == before, f"after the delete: {rig.playlist_tracks(2000000002)}")
        expect(c.listplaylist(mix) == [f"netease://song/{i}" for i in before], c.listplaylist(mix))

        # save: a new NetEase playlist with the queue's songs; rm deletes it.
        code, out = rig.mpc("add", "netease://album/3003")
        expect(code == 0, out)
        code, out = rig.mpc("save", "NetEase/New list")
        expect(code == 0, out)
        created = rig.playlists().get("New list")
        expect(created and rig.playlist_tracks(created) == [5000031, 5000032, 5000033, 5000034, 5000035],
               f"the new playlist: {created}, {created and rig.playlist_tracks(created)}")
        code, out = rig.mpc("lsplaylists")
        expect(code == 0 and "NetEase/New list" in lines(out), out)
        code, out = rig.mpc("playlist", "NetEase/New list")
        expect(code == 0 and lines(out) == [f"Sigur Ósk - {s[1]}" for s in NORDURLJOS], out)
        code, out = rig.mpc("save", "NetEase/New list")
        expect(code != 0 and "Playlist already exists" in out, out)
        code, out = rig.mpc("add", "local.flac")
        code, out = rig.mpc("save", "NetEase/Mixed")
        expect(code != 0 and 'NetEase playlists hold only NetEase songs: "local.flac" is not one' in out, out)
        expect("Mixed" not in rig.playlists(), rig.playlists())
        code, out = rig.mpc("rm", "NetEase/New list")
        expect(code == 0, out)
        expect("New list" not in rig.playlists() and rig.playlist_tracks(created) is None, rig.playlists())
        code, out = rig.mpc("lsplaylists")
        expect(code == 0 and "NetEase/New list" not in lines(out), out)

        # A subscribed playlist is not the user's to change.
        subscribed = "NetEase/全部的歌 · All the Songs"
        expect_ack(lambda: c.playlistadd(subscribed, "netease://song/5000012"),
                   '[4@0] {playlistadd} NetEase playlist "全部的歌 · All the Songs" is subscribed, not yours',
                   "playlistadd to a subscribed playlist")
        code, out = rig.mpc("rm", subscribed)
        expect(code != 0 and "is subscribed, not yours" in out, out)

        c.playlistclear("NetEase/通勤路上 🚇")
        expect(rig.playlist_tracks(2000000001) == [], rig.playlist_tracks(2000000001))
        expect(c.listplaylist("NetEase/通勤路上 🚇") == [], c.listplaylist("NetEase/通勤路上 🚇"))

        # rename (python-mpd2; mpc has no command for it): the same playlist on NetEase, under its new name here.
        songs = c.listplaylist(mix)
        c.rename(mix, "NetEase/Early Morning Mix")
        expect("Early Morning Mix" in rig.playlists() and "Late Night Mix" not in rig.playlists(), rig.playlists())
        expect(rig.playlists()["Early Morning Mix"] == 2000000002, rig.playlists())
        expect(c.listplaylist("NetEase/Early Morning Mix") == songs, c.listplaylist("NetEase/Early Morning Mix"))
        code, out = rig.mpc("lsplaylists")
        expect(code == 0 and "NetEase/Early Morning Mix" in lines(out) and mix not in lines(out), out)
        expect_ack(lambda: c.rename("NetEase/Early Morning Mix", "NetEase/通勤路上 🚇"),
                   "[56@0] {rename} Playlist already exists", "rename onto another playlist")
        c.close()
    finally:
        rig.stop()


def main():
    shared = (mpc_status, mpc_options, mpc_volume, mpc_idle, mpc_messages, python_basics, python_idle,
              python_command_list, python_errors)
    if any(selected(test) for test in shared):
        server = Server()
        try:
            for test in shared:
                test(server)
        finally:
            server.stop()
    passwords(None)
    unix_socket(None)
    output_buffer(None)
    slow_reader(None)
    bad_config(None)
    clean_stop(None)
    code_drop(None)
    auto_update(None)
    playback_and_restart(None)
    probe(None)
    url_schemes(None)
    httpd_stream(None)
    netease_login(None)
    netease_browse(None)
    netease_sync(None)
    netease_queue(None)
    netease_faults(None)
    netease_rate_limit(None)
    netease_cookie_privacy(None)
    netease_playback(None)
    netease_fm(None)
    netease_likes(None)
    netease_dislike(None)
    netease_playlist_edits(None)
    failed = sum(1 for _, e in RESULTS if e is not None)
    for name, error in RESULTS:
        if error is not None:
            print(f"FAIL {name}: {error!r}")
    print(f"{len(RESULTS) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
