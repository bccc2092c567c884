#!/usr/bin/python3
"""ncmpcpp, driven in tmux, against a server over the generated test library.

Usage: ncmpcpp_test.py SERVER [--keep]
  SERVER  the path of a NoSignal binary (e.g. .build/debug/nosignal), or `mpd` to check the test itself
          against real MPD.
  --keep  keep the temporary directory and print where it is (the server's log, ncmpcpp's config,
          the screen after each step in screens.txt).

Needs: ncmpcpp, tmux, ffmpeg, python3-mpd (Debian's Python: /usr/bin/python3), and mpd for `mpd`.
The library is Tests/Support/make_library.sh's tree, cached in $TMPDIR/nosignal-testlib-standard-<hash>
(the same cache as the differential harness). The server gets it as music_directory; the test waits
until the initial scan is over (no `updating_db:` in `status`).

ncmpcpp runs in a detached tmux session on a private tmux socket with a minimal config in a temporary
HOME. The test sends keys like a user: it opens the browser, walks into folders with unicode and quotes in
their names, adds songs, searches with the search engine, adds a result, saves the queue as a stored
playlist, and opens the media library and the playlist editor. After each step it waits for text on the
screen (capture-pane) and checks the server's state with python-mpd2. Prints one line per check and
'N passed, N failed'; exits non-zero if a check failed.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import mpd  # python3-mpd (python-mpd2)

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_LIBRARY = os.environ.get("MAKE_LIBRARY") or os.path.join(HERE, "..", "Support", "make_library.sh")
RESULTS = []
FAILED = []  # names, repeated at the end so the last lines of a log say what failed


def check(name, ok, detail=""):
    RESULTS.append(ok)
    if not ok:
        FAILED.append(name)
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok or not detail else f"\n      {detail}"), flush=True)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return format(h, "x")


def test_library():
    """The generated library (same cache as Sources/MPDTesting/TestLibrary.swift)."""
    script = open(MAKE_LIBRARY, "rb").read()
    base = os.path.join(tempfile.gettempdir(), f"nosignal-testlib-standard-{fnv1a(script)}")
    if not os.path.exists(os.path.join(base, "complete")):
        staging = f"{base}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        os.makedirs(staging)
        subprocess.run(["/bin/bash", MAKE_LIBRARY, os.path.join(staging, "music")], check=True)
        open(os.path.join(staging, "complete"), "w").close()
        try:
            os.rename(staging, base)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
    return os.path.join(base, "music")


class Server:
    def __init__(self, kind, workdir, music):
        self.port = free_port()
        for sub in ("playlists", "home", "data", "cache"):
            os.makedirs(os.path.join(workdir, sub), exist_ok=True)
        conf = os.path.join(workdir, "server.conf")
        lines = [f'music_directory "{music}"', f'playlist_directory "{workdir}/playlists"',
                 f'db_file "{workdir}/database"', f'state_file "{workdir}/state"',
                 'bind_to_address "127.0.0.1"', f'port "{self.port}"',
                 'audio_output {', ' type "null"', ' name "null"', ' mixer_type "software"', '}']
        if kind == "mpd":
            # MP3 as MPD 0.24 scans it (libmpg123); Debian's 0.23 lists libmad first.
            lines += ['zeroconf_enabled "no"', 'decoder {', ' plugin "mad"', ' enabled "no"', '}']
            cmd = ["mpd", "--no-daemon", "--stderr", conf]
        else:
            lines += [f'data_directory "{workdir}/data"', f'cache_directory "{workdir}/cache"',
                      'netease {', ' enabled "no"', '}']
            cmd = [os.path.abspath(kind), "--config", conf]
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
                # update --wait: the initial scan must be over before ncmpcpp starts.
                while "updating_db" in c.status():
                    if time.time() > deadline:
                        raise RuntimeError("the initial database update did not finish")
                    time.sleep(0.05)
                c.disconnect()
                return
            except (OSError, mpd.ConnectionError):
                if self.proc.poll() is not None:
                    raise RuntimeError(f"{cmd[0]} exited with {self.proc.returncode}; see {self.log.name}")
                time.sleep(0.1)
        raise RuntimeError(f"{cmd[0]} did not start; see {self.log.name}")

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


class Ncmpcpp:
    """ncmpcpp in a detached tmux session on a private socket."""

    def __init__(self, workdir, port):
        self.socket = f"nosignal-ncmpcpp-{os.getpid()}"
        self.screens = open(os.path.join(workdir, "screens.txt"), "w")
        home = os.path.join(workdir, "ncmpcpp-home")
        os.makedirs(os.path.join(home, ".config", "ncmpcpp"), exist_ok=True)
        with open(os.path.join(home, ".config", "ncmpcpp", "config"), "w") as f:
            f.write(f'mpd_host = "127.0.0.1"\nmpd_port = "{port}"\nmpd_connection_timeout = "10"\n'
                    'startup_screen = "playlist"\nask_before_clearing_playlists = "no"\n'
                    'autocenter_mode = "no"\ncyclic_scrolling = "no"\n')
        self.tmux("new-session", "-d", "-s", "t", "-x", "160", "-y", "45",
                  f"env HOME={home} TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 ncmpcpp")

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10)

    def keys(self, *keys, literal=False):
        self.tmux("send-keys", "-t", "t", *(["-l"] if literal else []), *keys)
        time.sleep(0.15)

    def type(self, text):
        self.keys(text, literal=True)

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "t").stdout

    def wait_for(self, *texts, timeout=10):
        """Waits until every text is on the screen; returns (ok, screen)."""
        deadline = time.time() + timeout
        screen = ""
        while time.time() < deadline:
            screen = self.screen()
            if all(t in screen for t in texts):
                break
            time.sleep(0.1)
        self.screens.write(f"===== waiting for {texts!r}\n{screen}\n")
        self.screens.flush()
        return all(t in screen for t in texts), screen

    def close(self):
        self.tmux("kill-server")
        directory = os.environ.get("TMUX_TMPDIR") or "/tmp"
        try:
            os.unlink(os.path.join(directory, f"tmux-{os.getuid()}", self.socket))
        except OSError:
            pass


class Stop(Exception):
    """A UI step failed: the later steps would only fail after it, each after a timeout."""


def trimmed(screen):
    return "\n".join(line.rstrip() for line in screen.splitlines() if line.strip())


def run(server, ui):
    def expect(name, *texts, timeout=10):
        ok, screen = ui.wait_for(*texts, timeout=timeout)
        if not check(name, ok, f"expected {texts!r} on the screen:\n{trimmed(screen)}"):
            raise Stop(name)

    def queue():
        c = server.client()
        try:
            return [s["file"] for s in c.playlistinfo()]
        finally:
            c.disconnect()

    def find(text):
        # find_item_forward ("/"): moves the cursor to the next item matching the text
        ui.keys("/")
        ui.type(text)
        ui.keys("Enter")

    expect("ncmpcpp connects and shows the empty queue", "Playlist (0 items")

    # --- browser -----------------------------------------------------------------------------------
    ui.keys("2")
    expect("browser lists the root folders (unicode, quotes) and songs",
           "Browse: /", "[Sigur Rós]", "[日本語]", "[It's \"quoted\"]", "[Various]", "Solo - Root Song")
    find("Various")
    ui.keys("Enter")
    expect("browser enters Various", "Browse: Various", "[Compilation]")
    find("Compilation")
    ui.keys("Enter")
    expect("browser lists a folder with a multi-valued artist", "Browse: Various/Compilation",
           "Alpha | Beta - Duet", "Beta - Beta Solo", "gamma - gamma")
    find("Duet")
    ui.keys("Space")
    expect("space adds the song", "Added to playlist: Alpha | Beta")
    check("the server's queue has the song", queue() == ["Various/Compilation/01 Duet.flac"], repr(queue()))

    ui.keys("BSpace")  # back to the parent directory
    expect("backspace goes up", "Browse: Various", "[Compilation]")
    ui.keys("BSpace")
    expect("backspace goes up to the root", "Browse: /", "[日本語]")
    find("quoted")
    ui.keys("Enter")
    expect("browser enters a folder with quotes in its name", "Browse: It's \"quoted\"", "Don't \"stop\" \\ me")
    find("stop")
    ui.keys("Space")
    expect("space adds a song with quotes and a backslash", "Added to playlist: It's \"quoted\"")
    check("the server's queue has both songs",
          queue() == ["Various/Compilation/01 Duet.flac", "It's \"quoted\"/Don't \"stop\" \\ me.mp3"], repr(queue()))

    # --- search engine -----------------------------------------------------------------------------
    ui.keys("3")
    expect("search engine opens", "Search engine", "Any", "Search mode")
    ui.keys("Enter")          # edit the "Any" field (the cursor starts there)
    ui.type("Sigur")
    ui.keys("Enter")
    expect("the search term is in the form", "Any          : Sigur")
    ui.keys("y")              # start_searching
    expect("search finds the four Sigur Rós songs", "Found 4 songs", "Sigur Rós - Starálfur", "Sigur Rós - Vaka")
    find("Starálfur")
    ui.keys("Space")
    expect("space adds a search result", "Added to playlist: Sigur Rós")
    expected_queue = ["Various/Compilation/01 Duet.flac", "It's \"quoted\"/Don't \"stop\" \\ me.mp3",
                      "Sigur Rós/Ágætis byrjun/03 Starálfur.opus"]
    check("the server's queue has the search result", queue() == expected_queue, repr(queue()))

    # --- save the queue as a stored playlist -------------------------------------------------------
    ui.keys("1")
    expect("the queue screen shows three songs", "Playlist (3 items", "Starálfur", "Don't \"stop\" \\ me")
    ui.keys("S")
    expect("save asks for a name", "Save playlist as")
    ui.type("ncmpcpp list")
    ui.keys("Enter")
    expect("the playlist is saved", 'Playlist saved as "ncmpcpp list"')
    c = server.client()
    try:
        stored = c.listplaylist("ncmpcpp list")
        names = [p["playlist"] for p in c.listplaylists()]
    finally:
        c.disconnect()
    check("the server has the stored playlist", stored == expected_queue and "ncmpcpp list" in names,
          f"{stored!r} {names!r}")

    # --- playlist editor ---------------------------------------------------------------------------
    ui.keys("5")
    expect("the playlist editor lists the stored playlist and its songs", "ncmpcpp list", "Starálfur")

    # --- media library (list … group …) ------------------------------------------------------------
    ui.keys("4")
    expect("the media library lists the artists", "Media library", "Sigur Rós", "椎名林檎", "It's \"quoted\"")
    find("Sigur Rós")
    expect("the media library shows the albums of an artist", "Ágætis byrjun", "( )")

    # --- playback: Enter plays the selected song; the status line shows it and its progress ------------
    ui.keys("1")
    c = server.client()
    try:
        c.repeat(1)
    finally:
        c.disconnect()
    ui.keys("Home")
    ui.keys("Enter")
    expect("the playback screen shows the song playing", "Playing:", "Starálfur")
    c = server.client()
    try:
        state = c.status().get("state")
        elapsed_seen = False
        deadline = time.time() + 5
        while time.time() < deadline and not elapsed_seen:
            screen = ui.screen()
            elapsed_seen = any(f"0:0{n}/0:01" in screen for n in (0, 1)) or "/0:01]" in screen
            time.sleep(0.2)
        check("the server plays the song", state == "play", repr(state))
        check("ncmpcpp shows the song's progress", elapsed_seen, trimmed(ui.screen()))
        c.stop()
    finally:
        c.disconnect()

    ui.keys("q")
    time.sleep(0.5)
    check("ncmpcpp quits cleanly", ui.tmux("has-session", "-t", "t").returncode != 0)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    kind = sys.argv[1]
    keep = "--keep" in sys.argv[2:]
    for tool in ("ncmpcpp", "tmux", "ffmpeg") + (("mpd",) if kind == "mpd" else ()):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed (apt-get install -y {tool})")
            sys.exit(2)
    if kind != "mpd" and not os.access(kind, os.X_OK):
        print(f"no executable at {kind}")
        sys.exit(2)
    workdir = tempfile.mkdtemp(prefix="nosignal-ncmpcpp-")
    server = ui = None
    try:
        server = Server(kind, workdir, test_library())
        ui = Ncmpcpp(workdir, server.port)
        run(server, ui)
    except Stop as stop:
        print(f"      (stopped after the first failed step: {stop})")
    except Exception as error:  # a broken setup is a failure, not a crash
        check(f"test ran to the end ({type(error).__name__}: {error})", False)
    finally:
        if ui:
            ui.close()
        if server:
            server.stop()
        if keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    failed = RESULTS.count(False)
    for name in FAILED:
        print(f"FAIL  {name}")
    print(f"{len(RESULTS) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
