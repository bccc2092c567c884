#!/usr/bin/python3
"""Records real clients' conversations with real MPD through conversation_proxy.py, for client_*.mpdscript.

Usage: record_conversations.py CLIENT OUTDIR [MPD_BIN]
  CLIENT  ncmpc | mpdris2 | sima | cantata
  OUTDIR  gets CLIENT.log (the proxy's JSON lines) and CLIENT.notes (what the client showed)
  MPD_BIN default /work/mpd-0.24.13/build/mpd

The server serves the generated test library (Tests/Support/make_library.sh, the `%library standard` one, from the
same cache as the differential harness) with a null output, on a free port; the client talks to the proxy.
Convert the log with `conversation_proxy.py convert`.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import mpd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from conversation_proxy import Proxy  # noqa: E402
from ncmpcpp_test import free_port, test_library  # noqa: E402


class Server:
    def __init__(self, binary, workdir, music, kind="mpd"):
        self.port = free_port()
        for sub in ("playlists", "home", "data", "cache"):
            os.makedirs(os.path.join(workdir, sub), exist_ok=True)
        conf = os.path.join(workdir, "server.conf")
        lines = [f'music_directory "{music}"', f'playlist_directory "{workdir}/playlists"',
                 f'bind_to_address "127.0.0.1"', f'port "{self.port}"',
                 'audio_output {', ' type "null"', ' name "null"', ' mixer_type "software"', '}']
        if kind == "mpd":
            lines += [f'db_file "{workdir}/database"', 'zeroconf_enabled "no"',
                      'decoder {', ' plugin "mad"', ' enabled "no"', '}']
            cmd = [binary, "--no-daemon", "--stderr", conf]
        else:
            lines += [f'data_directory "{workdir}/data"', f'cache_directory "{workdir}/cache"',
                      'netease {', ' enabled "no"', '}']
            cmd = [binary, "--config", conf]
        with open(conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        env = dict(os.environ, HOME=f"{workdir}/home")
        env.pop("MPD_HOST", None)
        env.pop("MPD_PORT", None)
        self.log = open(os.path.join(workdir, "server.log"), "w")
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                c = self.client()
                while "updating_db" in c.status():
                    time.sleep(0.05)
                c.disconnect()
                return
            except (OSError, mpd.ConnectionError):
                if self.proc.poll() is not None:
                    raise RuntimeError(f"{binary} exited; see {self.log.name}")
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def client(self):
        c = mpd.MPDClient()
        c.timeout = 10
        c.connect("127.0.0.1", self.port)
        return c

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Tmux:
    def __init__(self, command, env):
        self.socket = f"nosignal-rec-{os.getpid()}"
        envs = " ".join(f"{k}={v}" for k, v in env.items())
        self.run("new-session", "-d", "-s", "t", "-x", "160", "-y", "45", f"env {envs} {command}")

    def run(self, *args):
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10)

    def keys(self, *keys, literal=False):
        self.run("send-keys", "-t", "t", *(["-l"] if literal else []), *keys)

    def screen(self):
        return self.run("capture-pane", "-p", "-t", "t").stdout

    def wait_for(self, text, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            s = self.screen()
            if text in s:
                return s
            time.sleep(0.1)
        raise RuntimeError(f"{text!r} not on the screen:\n{self.screen()}")

    def close(self):
        self.run("kill-server")


def quiet(seconds=1.0):
    time.sleep(seconds)


def ncmpc(port, work, notes):
    home = os.path.join(work, "ncmpc-home")
    os.makedirs(os.path.join(home, ".config", "ncmpc"), exist_ok=True)
    ui = Tmux(f"ncmpc --host=127.0.0.1 --port={port}",
              {"HOME": home, "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"})
    try:
        steps = [("start", None, "Queue"), ("library browser", "3", "Sigur Rós"),
                 ("search screen", "5", "Search"), ("queue", "2", "Queue")]
        for name, key, text in steps:
            if key:
                ui.keys(key)
            notes.write(f"== {name}\n{ui.wait_for(text)}\n")
            quiet()
        # A search: on the search screen `5` again asks for the text ("New search").
        ui.keys("5")
        ui.wait_for("New search")
        quiet(0.5)
        ui.keys("5")
        quiet(0.5)
        ui.keys("Vaka", literal=True)
        ui.keys("Enter")
        notes.write(f"== search results\n{ui.wait_for('Vaka', 5)}\n")
        quiet(1)
        # Browse: into "Sigur Rós/Ágætis byrjun", add the album (space adds the selected folder... `a` in 0.47 is
        # "add"), back to the queue, play the first song.
        ui.keys("3")
        ui.wait_for("Sigur Rós")
        quiet(0.5)
        # Select "Sigur Rós" by searching in the list (`/`), enter it.
        ui.keys("/")
        quiet(0.3)
        ui.keys("Sigur", literal=True)
        ui.keys("Enter")
        quiet(0.5)
        ui.keys("Enter")
        notes.write(f"== browse Sigur Rós\n{ui.wait_for('Ágætis byrjun')}\n")
        quiet(0.5)
        ui.keys("/")
        quiet(0.3)
        ui.keys("gætis", literal=True)
        ui.keys("Enter")
        quiet(0.5)
        ui.keys("Space")  # add the folder to the queue
        quiet(1)
        ui.keys("2")
        notes.write(f"== queue after adding\n{ui.wait_for('Intro')}\n")
        quiet(0.5)
        ui.keys("Enter")  # play the selected (first) song
        quiet(0.6)
        ui.keys("P")  # pause: a 2 s song must not end while the recording goes on (timing)
        quiet(1)
        notes.write(f"== playing, paused\n{ui.screen()}\n")
        ui.keys("q")
        quiet(1)
    finally:
        ui.close()


def seed(port):
    """A queue to play, added through the proxy (so the script adds it too): connection 1 of the recording."""
    c = mpd.MPDClient()
    c.connect("127.0.0.1", port)
    c.add("Sigur Rós/Ágætis byrjun")
    c.add("Various/Compilation")
    c.disconnect()


def mpdris2(port, work, notes):
    seed(port)
    home = os.path.join(work, "mpdris-home")
    os.makedirs(os.path.join(home, ".config", "mpDris2"), exist_ok=True)
    with open(os.path.join(home, ".config", "mpDris2", "mpDris2.conf"), "w") as f:
        f.write(f"[Connection]\nhost = 127.0.0.1\nport = {port}\n[Library]\nmusic_dir = \n"
                "[Bling]\nmmkeys = False\nnotify = False\n")
    script = f"""
set -x
mpDris2 --host=127.0.0.1 --port={port} > {work}/mpdris2.log 2>&1 &
P=$!
for i in $(seq 50); do playerctl -l 2>/dev/null | grep -q mpd && break; sleep 0.2; done
sleep 1
playerctl -p mpd metadata; echo "rc=$?"; sleep 1
playerctl -p mpd status; echo "rc=$?"; sleep 1
playerctl -p mpd play; echo "rc=$?"; sleep 0.5
playerctl -p mpd next; echo "rc=$?"; sleep 0.5
playerctl -p mpd loop Track; echo "rc=$?"; sleep 0.5
playerctl -p mpd loop; echo "rc=$?"
playerctl -p mpd status; echo "rc=$?"
playerctl -p mpd stop; echo "rc=$?"; sleep 1
playerctl -p mpd metadata; echo "rc=$?"; sleep 1
kill $P; wait $P
"""
    out = subprocess.run(["dbus-run-session", "--", "bash", "-c", script], capture_output=True, text=True,
                         env=dict(os.environ, HOME=home), timeout=120)
    notes.write(out.stdout + out.stderr)


def sima(port, work, notes):
    seed(port)
    home = os.path.join(work, "sima-home")
    os.makedirs(home, exist_ok=True)
    conf = os.path.join(work, "sima.cfg")
    with open(conf, "w") as f:
        f.write(f"[MPD]\nhost = 127.0.0.1\nport = {port}\n[sima]\ninternal = Crop, Random\nhistory_duration = 8\n"
                "queue_length = 2\n[random]\nflavour = sensible\ntrack_to_add = 2\n[crop]\nconsume = 5\n")
    proc = subprocess.Popen(["mpd-sima", "--config", conf, "--var-dir", home, "--log-level", "debug"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, HOME=home))
    time.sleep(6)
    proc.terminate()
    try:
        out, _ = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    notes.write(out)


def cantata(port, work, notes):
    home = os.path.join(work, "cantata-home")
    confdir = os.path.join(home, ".config", "cantata")
    os.makedirs(confdir, exist_ok=True)
    with open(os.path.join(confdir, "cantata.conf"), "w") as f:
        f.write(CANTATA_CONF.format(port=port))
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_CACHE_HOME=os.path.join(home, ".cache"), XDG_DATA_HOME=os.path.join(home, ".local/share"),
               QT_QPA_PLATFORM="xcb", LANG="C.UTF-8")
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    script = f"""
cantata > {work}/cantata.log 2>&1 &
P=$!
sleep {os.environ.get('CANTATA_SETTLE', '12')}
import -window root {work}/cantata.png
kill $P; wait $P
"""
    out = subprocess.run(["dbus-run-session", "--", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "bash", "-c",
                          script], capture_output=True, text=True, env=env, timeout=180)
    notes.write(out.stdout + out.stderr)


CANTATA_CONF = """[General]
version=2.5.0
currentConnection=Default
page=LibraryPage
hiddenPages=PlayQueuePage, FolderPage, PlaylistsPage, OnlinePage, SearchPage, ContextPage
sidebar=1
showPopups=false
showDeleteAction=false
storeCoversInMpdDir=false
fetchCovers=false

[Connection]
host=127.0.0.1
port={port}
passwd=
dir=/nonexistent/
dynamicHost=
streamUrl=
applyReplayGain=
allowLocalStreaming=false
autoUpdate=false
partition=

[LibraryPage]
viewMode=iconview
grouping=album
albumSort=artist
"""

CLIENTS = {"ncmpc": ncmpc, "mpdris2": mpdris2, "sima": sima, "cantata": cantata}


def main():
    name, outdir = sys.argv[1], sys.argv[2]
    binary = sys.argv[3] if len(sys.argv) > 3 else "/work/mpd-0.24.13/build/mpd"
    os.makedirs(outdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix=f"nosignal-rec-{name}-")
    server = Server(binary, work, test_library())
    log = os.path.join(outdir, f"{name}.log")
    if os.path.exists(log):
        os.unlink(log)
    proxy = Proxy(server.port, log)
    try:
        with open(os.path.join(outdir, f"{name}.notes"), "w") as notes:
            CLIENTS[name](proxy.port, work, notes)
        time.sleep(0.5)
    finally:
        proxy.stop()
        server.stop()
    print("log:", log, "work:", work)


if __name__ == "__main__":
    main()
