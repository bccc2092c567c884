#!/usr/bin/python3
"""Every mpc subcommand and every python-mpd2 command wrapper, against NoSignal and against real MPD.

Usage: full_runs.py PATH/TO/nosignal [mpc|python ...]

Both servers get the generated test library (Tests/Support/make_library.sh), a null output, their own state,
sticker and playlist files. The same run of client calls goes to each (mpc 0.34 as a user types it; python-mpd2's
wrappers as a program calls them) and the outputs are compared call by call after normalising what is volatile
(times, the update job number, the server version). MPD is Debian's (`mpd`, 0.23) or MPD_BIN. The differences
NoSignal is allowed are declared in DECLARED with a reason: what protocol 0.24 adds (NoSignal greets 0.24),
the storage and neighbour plugins Debian's MPD has, MPD's player thread timing.
Prints one line per run and exits non-zero if a run differed.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import mpd  # python3-mpd (python-mpd2)

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/nosignal")
ONLY = sys.argv[2:] or ["mpc", "python"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MPD = os.environ.get("MPD_BIN") or shutil.which("mpd") or "/usr/bin/mpd"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """MPD or NoSignal on a free port over a private copy of the test library."""

    def __init__(self, kind, library):
        self.kind = kind
        self.dir = tempfile.mkdtemp(prefix=f"nosignal-full-{kind}-")
        self.port = free_port()
        music = os.path.join(self.dir, "music")
        subprocess.run(["cp", "-a", library, music], check=True)
        os.makedirs(os.path.join(self.dir, "playlists"))
        config = (f'music_directory "{music}"\nplaylist_directory "{self.dir}/playlists"\n'
                  f'db_file "{self.dir}/db"\nstate_file "{self.dir}/state"\nsticker_file "{self.dir}/sticker.sql"\n'
                  f'bind_to_address "127.0.0.1"\nport "{self.port}"\n'
                  'audio_output {\n type "null"\n name "null"\n mixer_type "software"\n}\n'
                  'audio_output {\n type "null"\n name "second"\n mixer_type "none"\n}\n')
        if kind == "mpd":
            # MP3 as MPD 0.24 scans it (libmpg123); Debian's 0.23 lists libmad first.
            config += 'zeroconf_enabled "no"\ndecoder {\n plugin "mad"\n enabled "no"\n}\n'
            args = [MPD, "--no-daemon", "--stderr"]
        else:
            config += f'data_directory "{self.dir}/data"\ncache_directory "{self.dir}/cache"\nnetease {{\n enabled "no"\n}}\n'
            args = [BINARY, "--config"]
        conf = os.path.join(self.dir, "server.conf")
        with open(conf, "w") as f:
            f.write(config)
        self.log = open(os.path.join(self.dir, "stderr.log"), "w")
        self.proc = subprocess.Popen(args + [conf], env=dict(os.environ, HOME=self.dir),
                                     stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                c = self.client()
                if "updating_db" not in c.status():
                    c.disconnect()
                    return
                c.disconnect()
            except (OSError, mpd.base.ConnectionError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{kind} did not start; see {self.log.name}")

    def client(self):
        c = mpd.MPDClient()
        c.timeout = 10
        c.connect("127.0.0.1", self.port)
        return c

    def mpc(self, args, timeout=10):
        env = dict(os.environ, MPD_HOST="127.0.0.1", MPD_PORT=str(self.port))
        try:
            out = subprocess.run(["mpc", *args], env=env, capture_output=True, timeout=timeout)
            return f"exit {out.returncode}\n" + out.stdout.decode(errors="replace") + out.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired as e:
            return "timeout\n" + (e.stdout or b"").decode(errors="replace")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


# MARK: - mpc

SONG = "Sigur Rós/Ágætis byrjun/01 Intro.flac"
OTHER = "Various/Compilation/02 Beta Solo.ogg"
MP3 = "It's \"quoted\"/Don't \"stop\" \\ me.mp3"

# (label, arguments, seconds to wait afterwards). A label ending in "&" runs while the next call is made (mpc idle,
# waitmessage): it is started, the next call runs, then its output is collected.
MPC_RUN = [
    ("status", [], 0),
    ("version", ["version"], 0),
    ("stats", ["stats"], 0),
    ("ls", ["ls"], 0),
    ("ls dir", ["ls", "Sigur Rós"], 0),
    ("listall", ["listall", "Various"], 0),
    ("listall all", ["listall"], 0),
    ("list artist", ["list", "artist"], 0),
    ("list album artist", ["list", "album", "artist", "Sigur Rós"], 0),
    ("list title group", ["list", "title", "group", "album"], 0),
    ("search", ["search", "title", "e"], 0),
    ("search any", ["search", "any", "sigur"], 0),
    ("search nothing", ["search", "any", "qxzjvw"], 0),
    ("find", ["find", "artist", "Sigur Rós"], 0),
    ("find filter", ["find", "(Artist == 'Sigur Rós')"], 0),
    ("find bad", ["find", "nosuchtag", "x"], 0),
    ("format", ["--format", "%artist% - %title% [%album%] %file% %time% #[%position%#]", "find", "album", "Compilation"], 0),
    ("add", ["add", SONG], 0),
    ("add dir", ["add", "Various"], 0),
    ("add missing", ["add", "nope.flac"], 0),
    ("findadd", ["findadd", "artist", "Solo"], 0),
    ("searchadd", ["searchadd", "title", "vaka"], 0),
    ("searchadd nothing", ["searchadd", "any", "qxzjvw"], 0),
    ("playlist", ["playlist"], 0),
    ("playlist format", ["playlist", "-f", "%position% %file%"], 0),
    ("insert", ["insert", MP3], 0),
    ("move", ["move", "1", "3"], 0),
    ("move bad", ["move", "99", "1"], 0),
    ("del", ["del", "2"], 0),
    ("prio", ["prio", "5", "1"], 0),
    ("prio range", ["prio", "7", "3-4"], 0),
    ("playlist after", ["playlist"], 0),
    ("save", ["save", "mix"], 0),
    ("save again", ["save", "mix"], 0),
    ("lsplaylists", ["lsplaylists"], 0),
    ("playlist named", ["playlist", "mix"], 0),
    ("load missing", ["load", "nope"], 0),
    ("repeat", ["repeat"], 0),
    ("repeat off", ["repeat", "off"], 0),
    ("random on", ["random", "on"], 0),
    ("random off", ["random", "off"], 0),
    ("single", ["single", "on"], 0),
    ("single off", ["single", "off"], 0),
    ("consume", ["consume", "on"], 0),
    ("consume off", ["consume", "off"], 0),
    ("crossfade", ["crossfade", "3"], 0),
    ("crossfade show", ["crossfade"], 0),
    ("crossfade off", ["crossfade", "0"], 0),
    ("mixrampdb", ["mixrampdb", "-17"], 0),
    ("mixrampdb show", ["mixrampdb"], 0),
    ("mixrampdelay", ["mixrampdelay", "2"], 0),
    ("mixrampdelay show", ["mixrampdelay"], 0),
    ("mixrampdelay off", ["mixrampdelay", "-1"], 0),
    ("volume", ["volume", "40"], 0),
    ("volume up", ["volume", "+10"], 0),
    ("volume show", ["volume"], 0),
    ("replaygain", ["replaygain"], 0),
    ("replaygain track", ["replaygain", "track"], 0),
    ("replaygain off", ["replaygain", "off"], 0),
    ("outputs", ["outputs"], 0),
    ("disable", ["disable", "2"], 0),
    ("disable name", ["disable", "null"], 0),
    ("enable", ["enable", "null"], 0),
    ("enable only", ["enable", "only", "second"], 0),
    ("toggleoutput", ["toggleoutput", "1"], 0),
    ("outputset", ["outputset", "1", "dop=1"], 0),
    ("outputs after", ["outputs"], 0),
    ("enable both", ["enable", "1", "2"], 0),
    # Playback on minute-long songs, so that no song ends while the run looks at the player.
    ("clear for playback", ["clear"], 0),
    ("add long", ["add", "Long"], 0),
    ("play", ["play", "1"], 0.5),
    ("current", ["current"], 0),
    ("current format", ["current", "-f", "%title%"], 0),
    ("queued", ["queued"], 0),
    ("pause", ["pause"], 0.3),
    ("status paused", [], 0),
    ("toggle", ["toggle"], 0.3),
    ("pause-if-playing", ["pause-if-playing"], 0.3),
    ("pause-if-playing stopped", ["pause-if-playing"], 0),
    ("seek", ["seek", "0:01"], 0.3),
    ("seek percent", ["seek", "50%"], 0.3),
    ("seekthrough", ["seekthrough", "+1"], 0.3),
    ("next", ["next"], 0.3),
    ("prev", ["prev"], 0.3),
    ("cdprev", ["cdprev"], 0.3),
    ("stop", ["stop"], 0.3),
    ("searchplay", ["searchplay", "title", "Two"], 0.5),
    ("searchplay nothing", ["searchplay", "title", "qxzjvw"], 0),
    ("crop", ["crop"], 0.3),
    ("playlist cropped", ["playlist"], 0),
    ("stop again", ["stop"], 0.3),
    ("clear", ["clear"], 0),
    ("load", ["load", "mix"], 0),
    ("shuffle", ["shuffle"], 0),
    ("clear again", ["clear"], 0),
    ("rm", ["rm", "mix"], 0),
    ("rm missing", ["rm", "mix"], 0),
    ("clearerror", ["clearerror"], 0),
    ("sticker set", ["sticker", SONG, "set", "rating", "5"], 0),
    ("sticker get", ["sticker", SONG, "get", "rating"], 0),
    ("sticker list", ["sticker", SONG, "list"], 0),
    ("sticker find", ["sticker", "Sigur Rós", "find", "rating"], 0),
    ("sticker delete", ["sticker", SONG, "delete", "rating"], 0),
    ("sticker get missing", ["sticker", SONG, "get", "rating"], 0),
    ("sticker missing song", ["sticker", "nope.flac", "get", "rating"], 0),
    ("albumart", ["albumart", SONG], 0),
    ("albumart none", ["albumart", OTHER], 0),
    ("readpicture", ["readpicture", SONG], 0),
    ("channels", ["channels"], 0),
    ("sendmessage none", ["sendmessage", "chan", "hello"], 0),
    ("waitmessage &", ["waitmessage", "chan"], 0.5),
    ("sendmessage", ["sendmessage", "chan", "hello"], 0),
    ("idle &", ["idle", "options"], 0.5),
    ("repeat on", ["repeat", "on"], 0),
    ("update", ["update"], 1),
    ("update dir", ["update", "Various"], 1),
    ("update wait", ["update", "--wait"], 0),
    ("rescan", ["rescan", "--wait", "Untagged"], 0),
    ("update missing", ["update", "nope"], 0),
    ("listneighbors", ["listneighbors"], 0),
    ("mount", ["mount"], 0),
    ("mount bad", ["mount", "x", "nfs://nowhere/x"], 0),
    ("unmount", ["unmount", "x"], 0),
    ("subscribe", ["subscribe", "chan"], 0),
    ("unknown", ["nosuchcommand"], 0),
    ("status end", [], 0),
]


def normalise(text):
    text = re.sub(r"\d+:\d\d/\d+:\d\d \(\d+%\)", "<time>", text)
    text = re.sub(r"(Uptime|Play Time|DB Updated|DB Play Time):.*", r"\1: <volatile>", text)
    text = re.sub(r"mpd version: \S+", "mpd version: <version>", text)
    text = re.sub(r"Updating DB \(#\d+\)", "Updating DB (#<job>)", text)
    text = re.sub(r"updating: \d+", "updating: <n>", text)
    return text


def run_mpc(server):
    outputs = []
    pending = None
    for label, args, wait in MPC_RUN:
        if label.endswith("&"):
            result = {}
            thread = threading.Thread(target=lambda a=args: result.setdefault("out", server.mpc(a, timeout=5)))
            thread.start()
            time.sleep(wait)
            pending = (label, thread, result)
            continue
        outputs.append((label, normalise(server.mpc(args))))
        if pending:
            pending[1].join()
            outputs.append((pending[0], normalise(pending[2]["out"])))
            pending = None
        time.sleep(wait)
    return outputs


# MARK: - python-mpd2

def run_python(server):
    """Every python-mpd2 wrapper of a command MPD 0.23 has, with arguments that work and some that fail."""
    c = server.client()
    calls = [
        ("ping", []), ("status", []), ("stats", []), ("currentsong", []), ("commands", []), ("notcommands", []),
        ("tagtypes", []), ("urlhandlers", []), ("decoders", []), ("outputs", []), ("config", []),
        ("listmounts", []), ("listneighbors", []), ("listpartitions", []), ("channels", []), ("readmessages", []),
        ("lsinfo", []), ("lsinfo", ["Sigur Rós"]), ("listfiles", ["Untagged"]), ("listall", ["Various"]),
        ("listallinfo", ["Various"]), ("count", ["artist", "Sigur Rós"]), ("count", ["group", "artist"]),
        ("listallinfo", ["Many"]), ("listall", ["Many"]), ("find", ["(base 'Many')"]), ("search", ["title", "many 1"]),
        ("list", ["album"]), ("list", ["title", "artist", "Solo"]), ("find", ["artist", "Solo"]),
        ("search", ["any", "sigur"]), ("find", ["(Title == 'Vaka')"]), ("readcomments", [SONG]),
        ("albumart", [SONG]), ("readpicture", [SONG]),
        ("add", [SONG]), ("addid", [OTHER]), ("addid", [MP3, 0]), ("playlistinfo", []), ("playlistid", []),
        ("playlist", []), ("plchanges", [0]), ("plchangesposid", [0]), ("playlistfind", ["artist", "Beta"]),
        ("playlistsearch", ["title", "intro"]), ("prio", [3, "0:2"]), ("prioid", [4, 2]),
        ("rangeid", [2, "0.5:1"]), ("addtagid", [2, "comment", "hello"]), ("cleartagid", [2, "comment"]),
        ("move", [0, 2]), ("moveid", [2, 0]), ("swap", [0, 1]), ("swapid", [1, 2]), ("delete", [2]),
        ("deleteid", [99]), ("findadd", ["album", "( )"]), ("searchadd", ["title", "vaka"]),
        ("searchaddpl", ["list1", "title", "vaka"]), ("playlistadd", ["list1", SONG]),
        ("listplaylist", ["list1"]), ("listplaylistinfo", ["list1"]), ("listplaylists", []),
        ("playlistmove", ["list1", 0, 1]), ("playlistdelete", ["list1", 0]), ("rename", ["list1", "list2"]),
        ("save", ["list3"]), ("load", ["list3"]), ("playlistclear", ["list2"]), ("rm", ["list2"]), ("rm", ["list3"]),
        ("shuffle", ["0:1"]), ("repeat", [1]), ("random", [0]), ("single", ["oneshot"]), ("consume", [0]),
        ("crossfade", [2]), ("mixrampdb", [-10]), ("mixrampdelay", [1]), ("replay_gain_mode", ["track"]),
        ("replay_gain_status", []), ("setvol", [30]), ("volume", [5]),
        ("disableoutput", [1]), ("enableoutput", [1]), ("toggleoutput", [1]), ("toggleoutput", [1]),
        ("play", [0]), ("playid", [99]), ("pause", [1]), ("pause", [0]),
        ("seek", [0, 0]), ("seekid", [99, 0]), ("seekcur", ["+0"]), ("next", []), ("previous", []),
        ("stop", []), ("clearerror", []), ("sticker_set", ["song", SONG, "rating", "3"]),
        ("sticker_get", ["song", SONG, "rating"]), ("sticker_list", ["song", SONG]),
        ("sticker_find", ["song", "", "rating"]), ("sticker_delete", ["song", SONG, "rating"]),
        ("subscribe", ["chan"]), ("sendmessage", ["chan", "hi"]), ("readmessages", []), ("unsubscribe", ["chan"]),
        ("newpartition", ["p2"]), ("partition", ["p2"]), ("status", []), ("partition", ["default"]),
        ("delpartition", ["p2"]), ("moveoutput", ["null"]), ("update", ["nope"]),
        ("rescan", ["Untagged"]), ("mount", ["x", "nfs://nowhere/x"]), ("umount", ["x"]),
        ("password", ["wrong"]), ("idle", ["nosuchevent"]), ("clear", []), ("status", []),
    ]
    # Every wrapper python-mpd2 has for a command MPD 0.23 knows is called above, except those that end the
    # connection or the server, or are no commands of their own.
    skipped = {"connect", "disconnect", "close", "fileno", "command_list_end", "command_list_ok_begin", "add_command",
               "remove_command", "kill", "noidle", "outputvolume", "use_unicode"}
    wrappers = {n for n in dir(c) if not n.startswith("_") and callable(getattr(c, n))} - skipped
    missing = wrappers - {name for name, _ in calls}
    if missing:
        raise AssertionError(f"python-mpd2 wrappers not exercised: {sorted(missing)}")
    results = []
    for name, args in calls:
        try:
            value = getattr(c, name)(*args)
            if isinstance(value, dict) and "binary" in value:
                value = dict(value, binary=f"<{len(value['binary'])} bytes>")
            if name == "update" or name == "rescan":
                value = "<job>"
        except mpd.CommandError as e:
            value = f"CommandError: {e}"
        except mpd.base.ConnectionError as e:
            value = f"ConnectionError: {e}"
            c = server.client()
        results.append((f"{name}({', '.join(map(repr, args))})", normalise_python(value, server.kind)))
        if name in ("update", "rescan"):
            # The job runs to its end in both servers before the next call (MPD's lasts as long as its save).
            deadline = time.time() + 20
            while "updating_db" in c.status() and time.time() < deadline:
                time.sleep(0.05)
        if name in ("play", "next", "previous", "pause", "seek", "seekcur", "update", "rescan"):
            time.sleep(0.3)
    # Long answers inside a command list (they go out with the list's answer, after the commands before them).
    c.command_list_ok_begin()
    c.ping()
    c.listallinfo("Many")
    c.find("(base 'Many/d1')")
    c.listall("Many")
    results.append(("command list", normalise_python(c.command_list_end(), server.kind)))
    c.disconnect()
    return results


VOLATILE = {"uptime", "playtime", "db_update", "elapsed", "time", "added", "updating_db"}
# What protocol 0.24 adds to answers MPD 0.23 gives without it: left out of NoSignal's answers while the oracle is
# older (declared, with the reason).
PROTOCOL_0_24_KEYS = {
    "added": "MPD 0.24 shows when each song was added to the database",
    "lastloadedplaylist": "MPD 0.24's status names the stored playlist loaded last",
}
ORACLE_BELOW_0_24 = True


def normalise_python(value, server="mpd"):
    def walk(v):
        if isinstance(v, dict):
            if "playlist" in v and "last-modified" in v:
                v = dict(v, **{"last-modified": "<saved>"})
            return {k: ("<volatile>" if k in VOLATILE else walk(x)) for k, x in v.items()
                    if not (server == "nosignal" and ORACLE_BELOW_0_24 and k in PROTOCOL_0_24_KEYS)}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v
    return json.dumps(walk(value), ensure_ascii=False, sort_keys=True, indent=1)


# MARK: - Declared differences

# label → reason. A declared step must still differ (a stale declaration is reported).
DECLARED = {
    "mpc": {
        # Debian's MPD has storage and neighbour plugins, NoSignal has none (docs/ARCHITECTURE.md §1).
        "mount bad": "NoSignal has no storage plugins: `Unrecognized storage URI` where Debian's MPD's nfs plugin fails to connect",
        "sticker get missing": "protocol 0.24 names the missing sticker (`no such sticker: \"rating\"`)",
        "update missing": "timing: MPD's update job of a missing folder is over before mpc asks for the status that "
                          "prints `Updating DB`; NoSignal's job is still running then",
        "update dir": "timing, as `update missing`: whether the job is still running when mpc asks for the status",
    },
    "python": {
        "commands()": "protocol 0.24 commands (protocol, searchcount, stickernames, …) that MPD 0.23 lacks",
        "tagtypes()": "protocol 0.24 tags TitleSort, Mood, ShowMovement, MUSICBRAINZ_RELEASEGROUPID",
        "decoders()": "the decoder plugin list: NoSignal decodes everything with FFmpeg",
        "urlhandlers()": "input plugins: NoSignal plays http(s) and netease:// streams; Debian's MPD has curl, ffmpeg, "
                         "alsa, cdio, nfs and smb inputs",
        "mount('x', 'nfs://nowhere/x')": "NoSignal has no storage plugins: `Unrecognized storage URI` where Debian's "
                                          "MPD's nfs plugin first asks for a cache_directory",
    },
}


def compare(kind, reference, candidate):
    declared = dict(DECLARED[kind])
    differing = []
    for (label, a), (_, b) in zip(reference, candidate):
        if label in declared:
            if a == b:
                print(f"  note: {kind} {label!r} is declared different but answered the same")
            declared.pop(label)
            continue
        if a != b:
            differing.append((label, a, b))
    for label, a, b in differing:
        print(f"--- {kind} {label}\n  MPD:      {a!r}\n  NoSignal: {b!r}")
    return differing


def oracle_version():
    out = subprocess.run([MPD, "--version"], capture_output=True, text=True).stdout
    match = re.search(r"Music Player Daemon (\d+)\.(\d+)", out)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def add_long_songs(music):
    """Three minute-long FLACs in `Long/`, with tags and the library's fixed modification time."""
    folder = os.path.join(music, "Long")
    os.makedirs(folder)
    for number, name in enumerate(["One", "Two", "Three"], 1):
        path = os.path.join(folder, f"{number}.flac")
        subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-f", "lavfi", "-i",
                        f"sine=frequency={200 * number}:duration=60:sample_rate=44100", "-c:a", "flac",
                        "-sample_fmt", "s16", "-fflags", "+bitexact", "-flags:a", "+bitexact",
                        "-metadata", f"title=Long {name}", "-metadata", "artist=Long", "-metadata", f"track={number}",
                        path], check=True)
        subprocess.run(["touch", "-d", "2020-01-02T03:04:05Z", path], check=True)
    subprocess.run(["touch", "-d", "2020-01-02T03:04:05Z", folder, music], check=True)


def add_many_songs(music):
    """600 short FLACs in `Many/d0`…`Many/d5`, each with its own title and track: listings of them are long
    enough (about 150 KB) to go out in parts (`StreamedAnswer.partSize`)."""
    template = os.path.join(music, "many-template.flac")
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-f", "lavfi", "-i",
                    "sine=frequency=440:duration=0.05:sample_rate=8000", "-c:a", "flac", "-sample_fmt", "s16",
                    "-fflags", "+bitexact", "-flags:a", "+bitexact", "-metadata", "artist=Many Artist",
                    "-metadata", "album=Many Album", "-metadata", "genre=Drone", template], check=True)
    for number in range(600):
        folder = os.path.join(music, "Many", f"d{number // 100}")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{number:03d}.flac")
        shutil.copyfile(template, path)
        # Tracks against the file names' order, so the walk order is the tags' and not the names'.
        subprocess.run(["metaflac", f"--set-tag=TITLE=Many {number}", f"--set-tag=TRACKNUMBER={100 - number % 100}",
                        path], check=True)
        subprocess.run(["touch", "-d", "2020-01-02T03:04:05Z", path], check=True)
    os.unlink(template)
    for folder in [os.path.join(music, "Many", f"d{n}") for n in range(6)] + [os.path.join(music, "Many"), music]:
        subprocess.run(["touch", "-d", "2020-01-02T03:04:05Z", folder], check=True)


def main():
    global ORACLE_BELOW_0_24
    ORACLE_BELOW_0_24 = oracle_version() < (0, 24)
    library = tempfile.mkdtemp(prefix="nosignal-full-lib-")
    music = os.path.join(library, "music")
    subprocess.run([os.path.join(ROOT, "Tests/Support/make_library.sh"), music], check=True)
    add_long_songs(music)
    add_many_songs(music)
    failed = 0
    try:
        for kind in ONLY:
            runs = {}
            for server_kind in ("mpd", "nosignal"):
                server = Server(server_kind, music)
                try:
                    runs[server_kind] = run_mpc(server) if kind == "mpc" else run_python(server)
                finally:
                    server.stop()
            differing = compare(kind, runs["mpd"], runs["nosignal"])
            calls = len(runs["mpd"])
            declared = len(DECLARED[kind])
            if differing:
                failed += 1
                print(f"FAIL {kind}: {len(differing)} of {calls} calls differ from MPD ({declared} declared differences)")
            else:
                print(f"PASS {kind}: {calls} calls answered as MPD does ({declared} declared differences)")
    finally:
        shutil.rmtree(library, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
