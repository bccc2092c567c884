#!/usr/bin/python3
"""Real MPD clients against a real NoSignal: mpc (libmpdclient) and python-mpd2, as a user runs them.

Usage: run_clients.py PATH/TO/nosignal
Starts NoSignal on free loopback ports with temporary configurations, drives it with the clients and prints
one line per check and a closing 'N passed, N failed' line. Exits non-zero if any check failed.
"""
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import mpd  # python3-mpd (python-mpd2)

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/nosignal")
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


def check(name):
    def wrap(fn):
        def run(*args):
            try:
                fn(*args)
                RESULTS.append((name, None))
                print(f"PASS {name}")
            except Exception as e:  # noqa: BLE001 - a failed check of any kind is reported, not fatal
                RESULTS.append((name, e))
                print(f"FAIL {name}: {e!r}")
                traceback.print_exc()
        return run
    return wrap


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
        expect(local.config() == os.path.join(s.dir, "music"), local.config())
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
        probe = socket.create_connection(("127.0.0.1", s.port))
        probe.recv(64)
        probe.sendall(b"commands\n")
        one = b""
        while not one.endswith(b"OK\n"):
            one += probe.recv(65536)
        probe.close()
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
    finally:
        s.stop()


@check("nosignal login (QR, against the fake NetEase), whoami, logout; the cookie file is 0600 and no cookie is printed")
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
    finally:
        fake.terminate()
        fake.wait(10)


def main():
    server = Server()
    try:
        for test in (mpc_status, mpc_options, mpc_volume, mpc_idle, mpc_messages, python_basics, python_idle,
                     python_command_list, python_errors):
            test(server)
    finally:
        server.stop()
    passwords(None)
    unix_socket(None)
    output_buffer(None)
    bad_config(None)
    clean_stop(None)
    auto_update(None)
    playback_and_restart(None)
    probe(None)
    httpd_stream(None)
    netease_login(None)
    failed = sum(1 for _, e in RESULTS if e is not None)
    print(f"{len(RESULTS) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
