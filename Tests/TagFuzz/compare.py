#!/usr/bin/python3
"""compare.py — the tag fuzz's differential run: NoSignal against real MPD 0.24 (live or recorded) over one library.

  compare.py DIR [--nosignal BIN] [--mpd BIN]                 DIR from generate.py (DIR/music, DIR/playlists,
                                                              DIR/manifest.jsonl)
  compare.py --music MUSIC [--playlists DIR] ...              any tree, e.g. the tag zoo's DIR/music
  compare.py DIR --mpd BIN --record FILE.jsonl.gz             also write MPD's answers (normalised) to FILE
  compare.py DIR --recorded FILE.jsonl.gz                     compare with recorded answers instead of a live MPD
  compare.py DIR --self-test                                  MPD against MPD: proves the normalisation

Both servers scan the same tree (read only) from temporary directories of their own, on free loopback ports, with a
null output. The requests come from the reference's answers (so a recording replays them exactly): `tagtypes all`,
`lsinfo` of every folder, `listall`, `listallinfo`, `readcomments` of every song, `listplaylist`/`listplaylistinfo`
of every playlist file and stored playlist, `list TAG [group TAG]`, `count group …`, `find`/`search` on random
values from the answers, `albumart`/`readpicture`. Only the music directory's absolute path is normalised.
Differences are grouped by category `request|key|format|tagger` (format and tagger from the manifest) and checked
against Tests/TagFuzz/declared.txt; exit 1 on an undeclared difference, 2 when a server fails to start, crashes or
hangs.
"""
import argparse
import base64
import calendar
import collections
import fnmatch
import gzip
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MPD = "/work/mpd-0.24.13/build/mpd"
TOKEN = b"<music_directory>"
RECORD_KINDS = ("lsinfo", "listallinfo", "listplaylistinfo", "find", "search", "listall", "listplaylist",
                "listplaylists", "listfiles")
LIST_TAGS = ["Artist", "AlbumArtist", "Album", "Title", "Genre", "Date", "OriginalDate", "Composer", "Performer",
             "Conductor", "Label", "Track", "Disc", "Mood", "ArtistSort", "AlbumSort", "AlbumArtistSort", "TitleSort",
             "ComposerSort", "Grouping", "Work", "Comment", "Name", "Ensemble", "Location", "Movement",
             "MovementNumber", "ShowMovement", "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ARTISTID",
             "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_WORKID",
             "MUSICBRAINZ_RELEASEGROUPID"]
GROUPS = [("Album", "AlbumArtist"), ("Album", "Date"), ("Title", "Artist"), ("Artist", "Genre"),
          ("Date", "Album"), ("AlbumArtist", "Genre")]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class ServerFailure(Exception):
    pass


class Server:
    """An MPD or NoSignal process with its own temporary directory, port and null output, reading MUSIC."""

    def __init__(self, kind, binary, music, playlists, start_timeout):
        self.kind, self.binary, self.music = kind, binary, music
        self.dir = tempfile.mkdtemp(prefix="tagfuzz-%s-" % kind)
        self.port = free_port()
        os.makedirs(self.dir + "/playlists")
        if playlists and os.path.isdir(playlists):
            for name in os.listdir(playlists):
                shutil.copy2(os.path.join(playlists, name), self.dir + "/playlists/" + name)
        lines = ['music_directory "%s"' % music, 'playlist_directory "%s/playlists"' % self.dir,
                 'db_file "%s/database"' % self.dir, 'bind_to_address "127.0.0.1"', 'port "%d"' % self.port]
        if kind == "mpd":
            lines += ['zeroconf_enabled "no"', 'log_level "verbose"']
        else:
            lines += ['data_directory "%s/data"' % self.dir, 'cache_directory "%s/cache"' % self.dir,
                      'netease {', '    enabled "no"', '}']
        lines += ['audio_output {', '    type "null"', '    name "null"', '    mixer_type "software"', '}']
        self.conf = self.dir + "/server.conf"
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        args = [binary, "--no-daemon", "--stderr", self.conf] if kind == "mpd" else [binary, "--config", self.conf]
        env = dict(os.environ, HOME=self.dir, XDG_CONFIG_HOME=self.dir + "/xdg", XDG_CACHE_HOME=self.dir + "/xdg",
                   XDG_RUNTIME_DIR=self.dir)
        env.pop("MPD_HOST", None)
        self.log = open(self.dir + "/stderr.log", "w")
        self.started = time.time()
        self.proc = subprocess.Popen(args, env=env, stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        self.sock, self.buf, self.pos, self.dead, self.timeouts, self.total_timeouts = None, bytearray(), 0, None, 0, 0
        self.connect(start_timeout)

    def name(self):
        return "%s (%s)" % (self.kind, self.binary)

    def log_tail(self):
        try:
            with open(self.dir + "/stderr.log", "rb") as f:
                return f.read()[-1500:].decode("utf-8", "replace")
        except OSError:
            return ""

    def connect(self, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise ServerFailure("%s exited with %s at start; stderr:\n%s" % (self.name(), self.proc.returncode,
                                                                                 self.log_tail()))
            try:
                self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=2)
                self.buf, self.pos = bytearray(), 0
                greeting = self.readline(5)
                if greeting.startswith(b"OK MPD "):
                    return
            except (OSError, ServerFailure):
                pass
            time.sleep(0.1)
        raise ServerFailure("%s did not answer on port %d within %d s; stderr:\n%s" % (self.name(), self.port, timeout,
                                                                                        self.log_tail()))

    def _fill(self, deadline):
        left = deadline - time.time()
        if left <= 0:
            raise TimeoutError
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(1 << 20)
        except socket.timeout:
            raise TimeoutError
        if not chunk:
            raise EOFError
        if self.pos > (1 << 20):  # drop what was read (keeps reading linear in the answer's size)
            del self.buf[:self.pos]
            self.pos = 0
        self.buf += chunk

    def readline(self, timeout):
        deadline = time.time() + timeout
        while True:
            i = self.buf.find(b"\n", self.pos)
            if i >= 0:
                line = bytes(self.buf[self.pos:i + 1])
                self.pos = i + 1
                return line
            self._fill(deadline)

    def readexact(self, n, timeout):
        deadline = time.time() + timeout
        while len(self.buf) - self.pos < n:
            self._fill(deadline)
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return out

    def request(self, line, timeout):
        """The whole answer as bytes, up to OK or ACK; '<timeout>'/'<closed>' markers when the server fails."""
        if self.dead:
            return b"<" + self.dead.encode() + b">\n"
        parts = []
        try:
            self.sock.sendall(line.encode("utf-8", "surrogateescape") + b"\n")
            while True:
                l = self.readline(timeout)
                parts.append(l)
                if l == b"OK\n" or l.startswith(b"ACK "):
                    break
                if l.startswith(b"binary: "):
                    n = int(l[8:])
                    parts.append(self.readexact(n + 1, timeout))
            self.timeouts = 0
            return b"".join(parts)
        except TimeoutError:
            self.timeouts += 1
            self.total_timeouts += 1
            if self.timeouts >= 3 or self.total_timeouts >= 10:
                self.dead = "hung: %d timeouts in a row, %d in all" % (self.timeouts, self.total_timeouts)
                return b"".join(parts) + b"<timeout>\n"
            # the rest of the late answer would shift every later one: reconnect
            self.reconnect()
            return b"".join(parts) + b"<timeout>\n"
        except (EOFError, OSError):
            if self.proc.poll() is not None:
                self.dead = "crashed: exit status %s" % self.proc.returncode
            else:
                self.reconnect()
            return b"".join(parts) + b"<closed>\n"

    def reconnect(self):
        try:
            self.sock.close()
            if self.proc.poll() is None:
                self.connect(10)
                kept = self.timeouts  # a reconnection's own request does not end a run of timeouts
                self.request("tagtypes all", 10)
                self.timeouts = kept
        except ServerFailure as e:
            self.dead = "unreachable: %s" % str(e).splitlines()[0]

    def wait_update(self, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            answer = self.request("status", 60)
            if self.dead:
                raise ServerFailure("%s %s during its scan; stderr:\n%s" % (self.name(), self.dead, self.log_tail()))
            if b"updating_db:" not in answer and answer.endswith(b"OK\n"):
                self.window = (int(self.started), time.time())
                return time.time() - self.started
            time.sleep(0.05)
        raise ServerFailure("%s still updating after %d s" % (self.name(), timeout))

    def stop(self):
        try:
            self.sock.close()
        except Exception:  # noqa: BLE001
            pass
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


# --------------------------------------------------------------------------------------------- answers --------

def lines_of(answer):
    return answer.split(b"\n")[:-1] if answer.endswith(b"\n") else answer.split(b"\n")


def kv(line):
    k, sep, v = line.partition(b": ")
    return (k.decode("utf-8", "replace"), v) if sep else ("<raw>", line)


def records(answer):
    """[(key, value, [lines])]: file/directory/playlist records of a listing; the final OK/ACK is its own."""
    out = []
    for line in lines_of(answer):
        k, v = kv(line)
        if k in ("file", "directory", "playlist") or not out or line == b"OK" or line.startswith(b"ACK "):
            out.append((k, v, [line]))
        else:
            out[-1][2].append(line)
    return out


ADDED = re.compile(rb"^Added: (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$", re.M)


def normalise(answer, music, window):
    """The absolute music directory becomes a token; so does a song's `Added:` time when it falls inside the
    server's own scan (MPD 0.24 stamps a new song with the wall clock of its scan: two MPDs differ by a second).
    Any other `Added:` (none, the file's mtime, a time outside the scan) stays and is compared."""
    answer = answer.replace(music.encode("utf-8", "surrogateescape"), TOKEN)

    def added(m):
        t = calendar.timegm(time.strptime(m.group(1).decode(), "%Y-%m-%dT%H:%M:%SZ"))
        return b"Added: <during the scan>" if window[0] - 1 <= t <= window[1] + 1 else m.group(0)
    return ADDED.sub(added, answer) if b"Added: " in answer else answer


# ---------------------------------------------------------------------------------------------- requests -------

def build_requests(ref, rng, nfinds, manifest):
    """The request list, from the reference's own answers (`ref(line)` → bytes)."""
    reqs = ["tagtypes all", "tagtypes", "lsinfo"]
    answers = {}
    dirs, seen = [""], set()
    playlists = []
    while dirs:
        d = dirs.pop(0)
        line = "lsinfo " + quote(d) if d else "lsinfo"
        if d:
            reqs.append(line)
        a = answers[line] = ref(line)
        for k, v, _ in records(a):
            s = v.decode("utf-8", "surrogateescape")
            if k == "directory" and s not in seen:
                seen.add(s)
                dirs.append(s)
            elif k == "playlist":
                playlists.append(s)
    reqs += ["listall", "listallinfo", "listplaylists", "listfiles"]
    # the songs as every folder's lsinfo showed them (MPD closes the connection of a listallinfo whose answer
    # outgrows max_output_buffer_size, 8 MiB: 20,000 songs with long values do)
    songs, values, seen_songs = [], [], set()
    for k, v, rec in [r for a in answers.values() for r in records(a)] + records(ref("listallinfo")):
        if k != "file" or v in seen_songs:
            continue
        seen_songs.add(v)
        songs.append(v.decode("utf-8", "surrogateescape"))
        for line in rec[1:]:
            tk, tv = kv(line)
            if tk not in ("Last-Modified", "Added", "Time", "duration", "Format", "Range") and tv:
                values.append((tk, tv.decode("utf-8", "surrogateescape")))
    for s in songs:
        reqs.append("readcomments " + quote(s))
    for p in playlists:
        reqs += ["listplaylist " + quote(p), "listplaylistinfo " + quote(p)]
    for k, v, _ in records(ref("listplaylists")):
        if k == "playlist":
            p = v.decode("utf-8", "surrogateescape")
            reqs += ["listplaylist " + quote(p), "listplaylistinfo " + quote(p)]
    for t in LIST_TAGS:
        reqs.append("list " + t)
    for t, g in GROUPS:
        reqs.append("list %s group %s" % (t, g))
    reqs += ["count group artist", "count group albumartist", "count group genre", "count group date",
             "count group album"]
    # finds and searches on values the reference showed
    values = [(k, v) for k, v in values if len(v.encode()) < 900 and "\n" not in v and "\r" not in v]
    for k, v in rng.sample(values, min(nfinds, len(values))) if values else []:
        expr = "(%s == %s)" % (k, quote(v))
        reqs.append("find " + quote(expr))
        reqs.append("find %s %s" % (k, quote(v)))
        if v.strip():
            a, b = sorted(rng.sample(range(len(v) + 1), 2)) if len(v) > 1 else (0, len(v))
            sub = v[a:b] or v
            sub = sub.lower() if rng.random() < 0.5 else sub
            reqs.append("search " + quote("(%s contains %s)" % (k, quote(sub))))
            reqs.append("search %s %s" % (rng.choice([k, "any"]), quote(sub)))
        if rng.random() < 0.3:
            reqs.append("count %s %s" % (k, quote(v)))
    # pictures: one song per folder (albumart), embedded pictures of songs whose manifest entry has one, a sample
    by_dir = {}
    for s in songs:
        by_dir.setdefault(os.path.dirname(s), s)
    for s in by_dir.values():
        reqs.append("albumart %s 0" % quote(s))
    for s in songs:
        m = manifest.get(s)
        told = json.dumps(m.get("told", "")) if m else ""
        if any(w in told for w in ("APIC", "embed.", "covr", "picture", "Cover Art", "artwork", "add-image")) \
                or rng.random() < 0.05:
            reqs.append("readpicture %s 0" % quote(s))
    return reqs


# ---------------------------------------------------------------------------------------------- analysis -------

def request_kind(req):
    return req.split(" ", 1)[0]


def song_of(req):
    parts = req.split(" ", 1)
    if len(parts) < 2 or not parts[1].startswith('"'):
        return None
    s, i, out = parts[1], 1, ""
    while i < len(s) and s[i] != '"':
        if s[i] == "\\":
            i += 1
        out += s[i]
        i += 1
    return out


class Analysis:
    def __init__(self, manifest):
        self.manifest = manifest
        self.categories = collections.OrderedDict()  # category -> {"count", "example"}
        self.kinds = collections.Counter()
        self.kinds_diff = collections.Counter()
        self.listallinfo = {}  # (key, value) -> (mpd's record, NoSignal's record) as listallinfo showed them

    def origin(self, uri):
        m = self.manifest.get(uri)
        base = uri or ""
        while m is None and "/" in base:
            # cue tracks (x.cue/track0001), songs inside a symlinked folder
            base = base.rsplit("/", 1)[0]
            m = self.manifest.get(base)
        if m is None:
            ext = os.path.splitext(uri or "")[1][1:].lower() or "?"
            return ext, "?", None
        return m["format"], m["tagger"], m

    def add(self, cat, req, mpd, ns, entry, size):
        c = self.categories.get(cat)
        ex = {"request": req, "mpd": mpd, "nosignal": ns, "manifest": entry, "size": size}
        if c is None:
            self.categories[cat] = {"count": 1, "example": ex}
        else:
            c["count"] += 1
            if size < c["example"]["size"]:
                c["example"] = ex

    def compare(self, req, mpd, ns):
        kind = request_kind(req)
        self.kinds[kind] += 1
        if mpd == ns:
            return True
        self.kinds_diff[kind] += 1
        if b"<timeout>" in ns or b"<closed>" in ns or ns.startswith((b"<crashed", b"<hung", b"<unreachable")):
            self.add("%s|<server failure>|-|-" % kind, req, mpd[-300:], ns[-300:], None, len(ns))
            return False
        if mpd.endswith(b"<closed>\n"):
            # MPD dropped the client (an answer beyond max_output_buffer_size): NoSignal answered
            self.add("%s|<mpd closed the connection>|-|-" % kind, req, mpd[-300:], ns[-300:], None, len(ns))
            return False
        la, lb = lines_of(mpd), lines_of(ns)
        if (la and la[-1].startswith(b"ACK")) != (lb and lb[-1].startswith(b"ACK")) or \
                (la and lb and la[-1].startswith(b"ACK") and la[-1] != lb[-1]):
            fmt, tagger, entry = self.origin(song_of(req))
            self.add("%s|<ACK>|%s|%s" % (kind, fmt, tagger), req, mpd, ns, entry, len(mpd) + len(ns))
            return False
        if kind in RECORD_KINDS:
            self.compare_records(kind, req, mpd, ns)
        elif kind == "readcomments":
            fmt, tagger, entry = self.origin(song_of(req))
            self.compare_keys(kind, req, la, lb, fmt, tagger, entry)
        elif kind in ("albumart", "readpicture"):
            fmt, tagger, entry = self.origin(song_of(req))
            self.add("%s|<bytes>|%s|%s" % (kind, fmt, tagger), req, mpd[:300], ns[:300], entry, len(mpd) + len(ns))
        else:
            words = req.split(" ")
            tag = words[1] if len(words) > 1 and kind in ("list", "count") else "-"
            if kind == "list" and "group" in words:
                tag += " group " + words[-1]
            if kind == "count" and words[1] == "group":
                tag = "group " + words[2]
            elif kind == "count":
                tag = words[1]
            if sorted(la) == sorted(lb):
                self.add("%s|<order>|%s|-" % (kind, tag), req, mpd, ns, None, len(mpd) + len(ns))
            else:
                self.add("%s|<lines>|%s|-" % (kind, tag), req, diff_lines(la, lb, b"\n".join(la)),
                         diff_lines(lb, la, b"\n".join(lb)), None, len(mpd) + len(ns))
        return False

    def compare_keys(self, kind, req, la, lb, fmt, tagger, entry):
        ca, cb = collections.defaultdict(list), collections.defaultdict(list)
        for line in la:
            k, v = kv(line)
            ca[k].append(v)
        for line in lb:
            k, v = kv(line)
            cb[k].append(v)
        keys = [k for k in sorted(set(ca) | set(cb)) if ca.get(k) != cb.get(k)]
        if not keys:
            self.add("%s|<order>|%s|%s" % (kind, fmt, tagger), req, b"\n".join(la), b"\n".join(lb), entry, 0)
        for k in keys:
            ex_a = b"\n".join(b"%s: %s" % (k.encode(), v) for v in ca.get(k, []))
            ex_b = b"\n".join(b"%s: %s" % (k.encode(), v) for v in cb.get(k, []))
            self.add("%s|%s|%s|%s" % (kind, k, fmt, tagger), req, ex_a or b"(none)", ex_b or b"(none)", entry,
                     len(ex_a) + len(ex_b) + len(json.dumps(entry or "")))

    def compare_records(self, kind, req, mpd, ns):
        ra, rb = records(mpd), records(ns)
        ia = {(k, v): rec for k, v, rec in ra}
        ib = {(k, v): rec for k, v, rec in rb}
        if kind == "listallinfo":
            self.listallinfo = {key: (ia.get(key), ib.get(key)) for key in set(ia) | set(ib)}
        # what a find or search returns is judged by the set of songs, per searched tag
        searched = ""
        if kind in ("find", "search"):
            w = req.split(" ", 2)
            searched = " " + (w[1].strip('"(').split(" ")[0] if len(w) > 1 else "")
        for key in ia:
            if key not in ib:
                fmt, tagger, entry = self.origin(key[1].decode("utf-8", "replace"))
                self.add("%s|<only in mpd: %s>%s|%s|%s" % (kind, key[0], searched, fmt, tagger), req,
                         b"\n".join(ia[key]), b"(none)", entry, len(b"".join(ia[key])))
        for key in ib:
            if key not in ia:
                fmt, tagger, entry = self.origin(key[1].decode("utf-8", "replace"))
                self.add("%s|<only in nosignal: %s>%s|%s|%s" % (kind, key[0], searched, fmt, tagger), req, b"(none)",
                         b"\n".join(ib[key]), entry, len(b"".join(ib[key])))
        same = True
        for key in ia:
            if key in ib and ia[key] != ib[key]:
                same = False
                if kind != "listallinfo" and self.listallinfo.get(key) == (ia[key], ib[key]):
                    # the song's own differences, already counted under listallinfo
                    self.add("%s|<song differs as in listallinfo>|-|-" % kind, req, b"\n".join(ia[key]),
                             b"\n".join(ib[key]), None, len(b"".join(ia[key])))
                    continue
                fmt, tagger, entry = self.origin(key[1].decode("utf-8", "replace"))
                if key[0] != "file":
                    fmt, tagger = key[0], "-"
                self.compare_keys(kind, req, ia[key], ib[key], fmt, tagger, entry)
        if same and set(ia) == set(ib) and [(k, v) for k, v, _ in ra] != [(k, v) for k, v, _ in rb]:
            # only the playlists' order differs: MPD lists stored playlists in playlist_directory's readdir order
            others_a = [(k, v) for k, v, _ in ra if k != "playlist"]
            others_b = [(k, v) for k, v, _ in rb if k != "playlist"]
            what = "<order of playlists>" if others_a == others_b else "<order>"
            self.add("%s|%s|-|-" % (kind, what), req, b"\n".join(b"%s: %s" % (k.encode(), v) for k, v, _ in ra[:20]),
                     b"\n".join(b"%s: %s" % (k.encode(), v) for k, v, _ in rb[:20]), None, len(mpd))


def diff_lines(a, b, whole):
    sb = collections.Counter(b)
    extra = []
    for line in a:
        if sb[line] > 0:
            sb[line] -= 1
        else:
            extra.append(line)
    return b"\n".join(extra[:20]) + (b"\n... (%d more)" % (len(extra) - 20) if len(extra) > 20 else b"") \
        if extra else b"(no line missing; order differs)"


def load_declared(path):
    out = []
    if path and os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            pattern, _, reason = line.partition(" -- ")
            out.append((pattern.strip(), reason.strip()))
    return out


def show(b, limit=1200):
    s = b.decode("utf-8", "backslashreplace") if isinstance(b, bytes) else str(b)
    s = s.replace("\r", "\\r")
    return s if len(s) <= limit else s[:limit] + " …(%d chars)" % len(s)


# ------------------------------------------------------------------------------------------------ main ---------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", help="a generate.py output directory")
    ap.add_argument("--music", help="the music directory (default DIR/music)")
    ap.add_argument("--playlists", help="stored playlists to copy (default: playlists next to the music directory)")
    ap.add_argument("--manifest", help="default DIR/manifest.jsonl")
    ap.add_argument("--nosignal", default=".build/debug/nosignal")
    ap.add_argument("--mpd", default=os.environ.get("MPD_BIN") or (DEFAULT_MPD if os.path.exists(DEFAULT_MPD) else None))
    ap.add_argument("--recorded", help="compare with these recorded answers instead of a live MPD")
    ap.add_argument("--record", help="write the reference's (normalised) answers here (.jsonl.gz)")
    ap.add_argument("--self-test", action="store_true", help="MPD in NoSignal's place")
    ap.add_argument("--declared", default=os.path.join(HERE, "declared.txt"))
    ap.add_argument("--finds", type=int, default=300, help="random find/search values (default 300)")
    ap.add_argument("--seed", default=None, help="for the request picks (default: the manifest's seed)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per answer")
    ap.add_argument("--start-timeout", type=float, default=1800, help="seconds for a server's first scan")
    ap.add_argument("--report", help="also write the report here")
    ap.add_argument("--json", help="write the differences as JSON here")
    ap.add_argument("--examples", type=int, default=1000, help="categories shown in full")
    args = ap.parse_args()
    t0 = time.time()
    music = os.path.abspath(args.music or os.path.join(args.dir, "music"))
    if not os.path.isdir(music):
        ap.error("no music directory %s" % music)
    playlists = args.playlists or os.path.join(os.path.dirname(music), "playlists")
    manifest_path = args.manifest or (os.path.join(args.dir, "manifest.jsonl") if args.dir else
                                      os.path.join(os.path.dirname(music), "manifest.jsonl"))
    manifest, header = {}, {}
    if os.path.exists(manifest_path):
        with open(manifest_path, encoding="utf-8") as f:
            header = json.loads(f.readline())
            for line in f:
                e = json.loads(line)
                manifest[e["path"]] = e
    seed = args.seed or header.get("seed") or "0"
    # the tree's digest (paths, mtimes, contents): a recording holds only for the tree it was made from
    sys.path.insert(0, HERE)
    from generate import tree_digest
    digest = tree_digest(os.path.dirname(music))
    out = []

    def say(s=""):
        out.append(s)
        print(s, flush=True)

    recorded = None
    if args.recorded:
        with gzip.open(args.recorded, "rt", encoding="utf-8") as f:
            rheader = json.loads(f.readline())
            recorded = []
            for line in f:
                r = json.loads(line)
                recorded.append((r["q"], base64.b64decode(r["b"]) if "b" in r else r["a"].encode("utf-8")))
            recorded_answers = dict(recorded)
        say("reference: MPD's answers recorded in %s (%s)" % (args.recorded, rheader.get("mpd", "?")))
        if rheader.get("digest") != digest:
            say("FAIL: the library (tree %s) is not the one recorded (tree %s): the generator, its tools or the "
                "zoo changed; record again with a live MPD 0.24.13 (make tag-fuzz-record)" % (digest,
                                                                                               rheader.get("digest")))
            return 2
    elif not args.mpd or not os.path.exists(args.mpd):
        say("compare.py: no MPD binary (--mpd, MPD_BIN, %s) and no --recorded answers" % DEFAULT_MPD)
        return 2

    servers = {}
    failure = None
    try:
        if recorded is None:
            servers["mpd"] = Server("mpd", args.mpd, music, playlists, 30)
        if args.self_test:
            servers["nosignal"] = Server("mpd", args.mpd, music, playlists, 30)
        else:
            servers["nosignal"] = Server("nosignal", os.path.abspath(args.nosignal), music, playlists, 30)
        scans = {k: s.wait_update(args.start_timeout) for k, s in servers.items()}
        say("scans: " + ", ".join("%s %.1f s" % kv_ for kv_ in scans.items()))
        for s in servers.values():
            s.request("tagtypes all", args.timeout)
    except ServerFailure as e:
        say("FAIL: %s" % e)
        for s in servers.values():
            s.stop()
        return 2

    cache = {}

    def ref(line):
        if recorded is not None:
            return recorded_answers.get(line, b"<not recorded>\n")
        if line not in cache:
            cache[line] = normalise(servers["mpd"].request(line, args.timeout * (10 if "all" in line else 1)), music,
                                    servers["mpd"].window)
        return cache[line]

    try:
        rng = random.Random("%s:requests" % seed)
        reqs = [q for q, _ in recorded] if recorded is not None else build_requests(ref, rng, args.finds, manifest)
        analysis = Analysis(manifest)
        record_lines = []
        identical = 0
        results = []
        for i, req in enumerate(reqs):
            if i and i % 2000 == 0:
                print("  %d/%d requests (%.0f s)" % (i, len(reqs), time.time() - t0), file=sys.stderr, flush=True)
            a = ref(req)
            b = normalise(servers["nosignal"].request(req, args.timeout * (10 if "all" in req else 1)), music,
                          servers["nosignal"].window)
            if args.record:
                try:
                    record_lines.append(json.dumps({"q": req, "a": a.decode("utf-8")}, ensure_ascii=False))
                except UnicodeDecodeError:
                    record_lines.append(json.dumps({"q": req, "b": base64.b64encode(a).decode()}))
            results.append((req, a, b))
        # listallinfo first: the other listings' song records are judged against it
        results.sort(key=lambda r: r[0] != "listallinfo")
        for req, a, b in results:
            if analysis.compare(req, a, b):
                identical += 1
        for k, s in servers.items():
            if s.dead:
                failure = "%s %s" % (s.name(), s.dead)
            elif s.proc.poll() is not None:
                failure = "%s exited with %s" % (s.name(), s.proc.returncode)
    finally:
        for s in servers.values():
            s.stop()

    if args.record:
        # no file name and no time in the gzip header: the same answers give the same bytes
        with open(args.record, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as f:
            mpd_version = subprocess.run([args.mpd, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
            f.write((json.dumps({"seed": seed, "count": header.get("count"), "mpd": mpd_version,
                                 "digest": digest,
                                 "music": os.path.basename(music)}) + "\n").encode())
            for line in record_lines:
                f.write(line.encode("utf-8", "surrogateescape") + b"\n")

    declared = load_declared(args.declared)
    formats = collections.Counter(e["format"] for e in manifest.values())
    taggers = collections.Counter(e["tagger"] for e in manifest.values())
    say("")
    say("=== tag fuzz: seed %s, %d manifest entries, music %s" % (seed, len(manifest), music))
    say("formats: " + ", ".join("%s %d" % x for x in sorted(formats.items())))
    say("taggers: " + ", ".join("%s %d" % x for x in sorted(taggers.items())))
    say("requests %d, identical %d, different %d (%.0f s)" % (len(reqs), identical, len(reqs) - identical,
                                                               time.time() - t0))
    say("by request: " + ", ".join("%s %d/%d" % (k, analysis.kinds_diff[k], n)
                                   for k, n in sorted(analysis.kinds.items())) + "  (different/all)")
    undeclared = []
    cats = sorted(analysis.categories.items(), key=lambda kv_: -kv_[1]["count"])
    # roll-ups: a song's tag differences (listallinfo, readcomments) by key, and by format/tagger
    by_key, by_origin = collections.Counter(), collections.Counter()
    for cat, c in cats:
        kind, key, fmt, tagger = (cat.split("|") + ["", "", ""])[:4]
        if kind in ("listallinfo", "readcomments"):
            by_key["%s %s" % (kind, key)] += c["count"]
            by_origin["%s/%s" % (fmt, tagger)] += c["count"]
    if by_key:
        say("")
        say("song differences by key:    " + ", ".join("%s %d" % x for x in by_key.most_common()))
        say("song differences by origin: " + ", ".join("%s %d" % x for x in by_origin.most_common()))
    say("")
    say("=== %d difference categories (request|key|format|tagger: count)" % len(cats))
    for cat, c in cats:
        why = next((r for p, r in declared if fnmatch.fnmatchcase(cat, p)), None)
        if why is None:
            undeclared.append(cat)
        say("%6d  %s%s" % (c["count"], cat, "   [declared: %s]" % why if why else ""))
    say("")
    say("=== examples (the smallest of each category)")
    for cat, c in cats[:args.examples]:
        ex = c["example"]
        say("--- %s (%d)" % (cat, c["count"]))
        say("request: %s" % show(ex["request"], 300))
        if ex["manifest"]:
            say("manifest: %s" % show(json.dumps(ex["manifest"], ensure_ascii=False), 1500))
        say("mpd:      %s" % show(ex["mpd"]).replace("\n", "\n          "))
        say("nosignal: %s" % show(ex["nosignal"]).replace("\n", "\n          "))
    say("")
    reproduce = "make tag-fuzz SEED=%s COUNT=%s" % (seed, header.get("count", "?")) if header else \
        "Tests/TagFuzz/compare.py --music %s" % music
    say("reproduce: %s   (or: Tests/TagFuzz/generate.py %s %s DIR && Tests/TagFuzz/compare.py DIR --nosignal BIN)"
        % (reproduce, seed, header.get("count", "?")))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({cat: {"count": c["count"], "example": {k: show(v, 4000) if isinstance(v, bytes) else v
                                                              for k, v in c["example"].items()}}
                       for cat, c in cats}, f, ensure_ascii=False, indent=1)
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(out) + "\n")
    if failure:
        print("FAIL: %s" % failure)
        return 2
    if undeclared:
        print("FAIL: %d undeclared difference categories (of %d); declared ones are in %s"
              % (len(undeclared), len(cats), args.declared))
        return 1
    print("PASS: no undeclared difference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
