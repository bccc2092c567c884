#!/usr/bin/python3
"""The HTTP server (`http_port`): curl against every route, and the now-playing page in headless Chromium.

Usage: web_test.py PATH/TO/nosignal [curl|browser ...]

One NoSignal (`fake-netease` is taken from beside it), logged in to the fake NetEase with the demo cookie, with a
small music directory made here by ffmpeg and metaflac: a song with a sidecar `.lrc` (timed lines and their
translations), one whose lyrics are an unsynchronised `LYRICS` tag, one whose sidecar is a symlink out of the
music directory, a `cover.jpg`. A second NoSignal has a password.

- curl: every API route, Cantata's `/music/…lyrics` and cover paths, the password (401 without, the command's
  permission with), path escapes (`..`, encoded dots, NUL, a symlink out) answered 4xx or 404 with nothing outside
  the music directory in the body, and the server still answering afterwards.
- browser: Debian's chromium and chromedriver through Selenium open the page while a NetEase song with word timings
  and a translation plays from the fake server; at three paused moments the lit line must be the one whose span
  holds the player's `elapsed` (by the lyrics the API serves), its translation shown; pause on the page pauses the
  player (`mpc status`); `mpc next` changes the page within a second without a reload. The same for the local song
  with the sidecar (lit line) and the one with unsynchronised lyrics (the text shown). Screenshots are kept in
  .build/web-test/ as artifacts.
Prints one line per check and exits non-zero when one failed.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

from testkit import check, finish, free_port, start_fake, wait_for

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/nosignal")
ONLY = sys.argv[2:] or ["curl", "browser"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, ".build", "web-test")
NETEASE_SONG = 5000021      # 雨の街角: yrc, translation, romanization (the fake server's lyrics)
NETEASE_NEXT = 5000022
INSTRUMENTAL = 5000032




def run(*args, **kwargs):
    return subprocess.run(list(args), check=True, capture_output=True, **kwargs)


# ---------------------------------------------------------------------------------------------------------------
# The library and the servers

SIDECAR_LRC = """[ti:Sidecar Song]
[ar:Test Artist]
[00:01.00]First line
[00:01.00]第一行
[00:04.00]Second line
[00:04.00]第二行
[00:07.00]Third line
[00:10.00]Last line
"""


def make_music(directory):
    music = os.path.join(directory, "music")
    local = os.path.join(music, "Local")
    os.makedirs(local)
    def tone(path, seconds, tags):
        metadata = []
        for key, value in tags.items():
            metadata += ["-metadata", f"{key}={value}"]
        run("ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
            f"sine=frequency=440:duration={seconds}:sample_rate=44100", "-ac", "2", *metadata, path)
    tone(os.path.join(local, "01 Sidecar Song.flac"), 14, {"TITLE": "Sidecar Song", "ARTIST": "Test Artist",
                                                            "ALBUM": "Web Test", "TRACKNUMBER": "1"})
    with open(os.path.join(local, "01 Sidecar Song.lrc"), "w", encoding="utf-8") as f:
        f.write(SIDECAR_LRC)
    tone(os.path.join(local, "02 Embedded.flac"), 8, {"TITLE": "Embedded", "ARTIST": "Test Artist",
                                                       "ALBUM": "Web Test", "TRACKNUMBER": "2"})
    run("metaflac", "--set-tag=LYRICS=Plain words here\nand a second line", os.path.join(local, "02 Embedded.flac"))
    tone(os.path.join(local, "03 Escape.flac"), 3, {"TITLE": "Escape", "TRACKNUMBER": "3"})
    tone(os.path.join(local, "04 Text.flac"), 3, {"TITLE": "Text", "TRACKNUMBER": "4"})
    with open(os.path.join(local, "04 Text.txt"), "w", encoding="utf-8") as f:
        f.write("Words from a text file\nwithout any times\n")
    secret = os.path.join(directory, "secret.txt")
    with open(secret, "w") as f:
        f.write("[00:01.00]TOP SECRET OUTSIDE THE MUSIC DIRECTORY\n")
    os.symlink(secret, os.path.join(local, "03 Escape.lrc"))
    run("ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
        "color=c=red:s=64x64:d=1", "-frames:v", "1", os.path.join(local, "cover.jpg"))
    return music


class Server:
    def __init__(self, directory, music, fake, extra=""):
        self.dir = directory
        self.port, self.http = free_port(), free_port()
        fake_url = f"http://127.0.0.1:{fake['port']}"
        netease = (f'netease {{\n api_url "{fake_url}"\n eapi_url "{fake_url}"\n'
                   f' weapi_public_key "{fake["public"]}"\n sync_interval "0"\n}}\n')
        common = f'data_directory "{directory}/data"\ncache_directory "{directory}/cache"\n'
        self.env = dict(os.environ, HOME=directory)
        login_conf = os.path.join(directory, "login.conf")
        with open(login_conf, "w") as f:
            f.write(common + netease)
        login = subprocess.run([BINARY, "login", "--config", login_conf, "--cookie",
                                f"MUSIC_U={fake['music_u']}; __csrf={fake['csrf']}"],
                               env=self.env, capture_output=True, text=True, timeout=120)
        if "Logged in as demo_user" not in login.stdout:
            raise RuntimeError(f"nosignal login failed: {login.stdout}{login.stderr}")
        config = os.path.join(directory, "nosignal.conf")
        with open(config, "w") as f:
            f.write(f'bind_to_address "127.0.0.1"\nport "{self.port}"\nhttp_port "{self.http}"\n'
                    f'music_directory "{music}"\nstate_file "{directory}/data/state"\n'
                    'audio_output {\n type "null"\n name "null"\n}\n' + common + netease + extra)
        self.log = open(os.path.join(directory, "server.log"), "w")
        self.proc = subprocess.Popen([BINARY, "--config", config], env=self.env, stdout=self.log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.password = None
        deadline = time.time() + 90
        while time.time() < deadline:
            # Up when the HTTP port answers and the first update is over (MPD's port may need a password).
            status, body, _ = self.curl("/api/status", user=":boss" if "boss@" in extra else None)
            if status == 200 and b"updating_db" not in body:
                return
            time.sleep(0.2)
        raise RuntimeError(f"nosignal did not start; see {self.log.name}")

    def mpc(self, *args, check=True):
        host = f"{self.password}@127.0.0.1" if self.password else "127.0.0.1"
        result = subprocess.run(["mpc", "-h", host, "-p", str(self.port), *args], capture_output=True, text=True,
                                timeout=30)
        if check and result.returncode != 0:
            raise RuntimeError(f"mpc {' '.join(args)}: {result.stdout}{result.stderr}")
        return result.stdout

    def curl(self, path, method="GET", user=None, data=None):
        """(HTTP status, body bytes, headers text) through curl."""
        args = ["curl", "-s", "--path-as-is", "-o", "-", "-D", "/dev/stderr", "-X", method,
                f"http://127.0.0.1:{self.http}{path}"]
        if user is not None:
            args += ["-u", user]
        if data is not None:
            args += ["--data", data]
        result = subprocess.run(args, capture_output=True, timeout=30)
        headers = result.stderr.decode("utf-8", "replace")
        status = int(headers.split()[1]) if headers.startswith("HTTP/") else 0
        return status, result.stdout, headers

    def json(self, path, **kwargs):
        status, body, _ = self.curl(path, **kwargs)
        return status, (json.loads(body) if body[:1] in (b"{", b"[") else None)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()



def line_at(lines, t):
    """Lyrics.lineIndex(at:): the last line starting at or before t, unless its known end has passed."""
    found = -1
    for index, line in enumerate(lines):
        if line["start"] <= t:
            found = index
    if found >= 0 and line_end(lines[found]) is not None and t >= line_end(lines[found]):
        return -1
    return found


def line_end(line):
    return line.get("end")


# ---------------------------------------------------------------------------------------------------------------
# curl

def curl_checks(server, locked):
    status, body = server.json("/api/status")
    check("GET /api/status", status == 200 and body["state"] in ("play", "pause", "stop") and "volume" in body,
          f"{status} {body}")
    server.mpc("clear")
    for uri in ["Local/01 Sidecar Song.flac", "Local/02 Embedded.flac", "Local/03 Escape.flac",
                f"netease://song/{NETEASE_SONG}"]:
        server.mpc("add", uri)
    status, queue = server.json("/api/queue")
    check("GET /api/queue", status == 200 and [s["title"] for s in queue] ==
          ["Sidecar Song", "Embedded", "Escape", "雨の街角"] and [s["pos"] for s in queue] == [0, 1, 2, 3]
          and queue[0]["artist"] == "Test Artist" and queue[3]["uri"] == f"netease://song/{NETEASE_SONG}",
          f"{status} {queue}")

    uri = urllib.parse.quote("Local/01 Sidecar Song.flac")
    status, body = server.json(f"/api/lyrics?uri={uri}")
    lines = body["lyrics"]["lines"] if body and body.get("status") == "found" else []
    check("GET /api/lyrics (sidecar .lrc)", [l["text"] for l in lines] ==
          ["First line", "Second line", "Third line", "Last line"] and lines[0].get("translation") == "第一行"
          and lines[0]["start"] == 1000 and lines[0]["end"] == 4000, f"{status} {body}")
    status, text, headers = server.curl(f"/api/lyrics?uri={uri}&format=lrc")
    check("GET /api/lyrics format=lrc", status == 200 and b"[00:04.00]Second line" in text
          and "text/plain" in headers, f"{status} {text[:200]}")
    status, body = server.json("/api/lyrics?uri=" + urllib.parse.quote("Local/02 Embedded.flac"))
    check("GET /api/lyrics (embedded LYRICS)", status == 200 and body["status"] == "found"
          and body["lyrics"].get("text") == "Plain words here\nand a second line", f"{body}")
    status, body = server.json("/api/lyrics?uri=" + urllib.parse.quote("Local/04 Text.flac"))
    check("GET /api/lyrics (sidecar .txt)", status == 200 and body["status"] == "found"
          and body["lyrics"].get("text") == "Words from a text file\nwithout any times", f"{body}")
    status, body = server.json(f"/api/lyrics?uri=netease://song/{NETEASE_SONG}")
    nlines = body["lyrics"]["lines"] if body and body.get("status") == "found" else []
    worded = [l for l in nlines if l.get("words")]
    check("GET /api/lyrics (NetEase yrc + translation + romanization)",
          len(worded) == 3 and worded[0]["start"] == 1000 and worded[0]["end"] == 2400
          and worded[0].get("translation") == "(translation) 雨の街角"
          and worded[0].get("romanization") == "(romaji) 雨の街角"
          and "".join(w["text"] for w in worded[0]["words"]) == "雨の街角", f"{body}")
    cached = os.path.join(server.dir, "cache", "netease-lyrics", f"{NETEASE_SONG}.json")
    check("NetEase lyrics kept in cache_directory", os.path.exists(cached), cached)
    status, body = server.json(f"/api/lyrics?uri=netease://song/{INSTRUMENTAL}")
    check("GET /api/lyrics (instrumental)", status == 200 and body["status"] == "instrumental", f"{body}")
    status, body = server.json("/api/lyrics?uri=netease://song/5000044")
    check("GET /api/lyrics (uncollected)", status == 200 and body["status"] == "uncollected", f"{body}")
    status, body = server.json("/api/lyrics?uri=" + urllib.parse.quote("Local/nope.flac"))
    check("GET /api/lyrics of no song is 404", status == 404, f"{status} {body}")

    status, image, headers = server.curl("/api/cover?uri=" + uri)
    check("GET /api/cover", status == 200 and image[:2] == b"\xff\xd8" and "image/jpeg" in headers,
          f"{status} {image[:8]} {headers}")
    status, image, _ = server.curl(f"/api/cover?uri=netease://song/{NETEASE_SONG}")
    check("GET /api/cover (NetEase album cover)", status == 200 and len(image) > 100, f"{status} {len(image)}")

    status, body, _ = server.curl("/music/Local/01%20Sidecar%20Song.lyrics")
    check("Cantata: GET /music/DIR/NAME.lyrics", status == 200 and body.decode().startswith(
        "First line\n第一行\nSecond line"), f"{status} {body[:200]}")
    status, body, _ = server.curl("/music/Local/02%20Embedded.lyrics")
    check("Cantata: embedded lyrics", status == 200 and body.decode().strip() == "Plain words here\nand a second line",
          f"{status} {body}")
    status, image, _ = server.curl("/music/Local/cover.jpg")
    check("Cantata: GET /music/DIR/cover.jpg", status == 200 and image[:2] == b"\xff\xd8", f"{status}")
    status, body, _ = server.curl("/music/Local/01%20Sidecar%20Song.flac")
    check("Cantata: the audio file is not served", status == 404, f"{status}")

    # Events: the status at once, then again on a change.
    events = subprocess.Popen(["curl", "-s", "-N", "--max-time", "4", f"http://127.0.0.1:{server.http}/api/events"],
                              stdout=subprocess.PIPE)
    time.sleep(1.0)
    server.mpc("volume", "33")
    stream = events.communicate(timeout=10)[0].decode()
    statuses = [json.loads(line[6:]) for line in stream.splitlines() if line.startswith("data: {")]
    check("GET /api/events: status now and after a change", stream.startswith("event: status\ndata: {")
          and len(statuses) >= 2 and statuses[-1]["volume"] == 33, stream[:300])

    # Commands, as MPD's.
    server.mpc("play", "1")
    status, body = server.json("/api/pause?state=1", method="POST")
    check("POST /api/pause", status == 200 and "paused" in server.mpc("status"), f"{status} {body}")
    status, body = server.json("/api/seek?position=5.5", method="POST")
    elapsed = server.json("/api/status")[1]["elapsed"]
    check("POST /api/seek", status == 200 and abs(elapsed - 5.5) < 0.3, f"{status} {body} {elapsed}")
    status, body = server.json("/api/volume?value=42", method="POST")
    check("POST /api/volume", status == 200 and "volume: 42%" in server.mpc("status"), f"{status} {body}")
    status, body = server.json("/api/next", method="POST")
    check("POST /api/next", status == 200 and server.json("/api/status")[1]["song"]["title"] == "Embedded",
          f"{status} {body}")
    status, body = server.json("/api/volume?value=nope", method="POST")
    check("POST with a bad argument is 400 with MPD's message", status == 400 and body.get("code") == 2,
          f"{status} {body}")
    status, _, _ = server.curl("/api/status", method="DELETE")
    check("a wrong method is 405", status == 405, f"{status}")
    status, _, _ = server.curl("/api/unknown", method="POST")
    check("an unknown command is 404", status == 404, f"{status}")

    # Escapes: nothing outside the music directory, never a crash.
    secret = b"TOP SECRET"
    for path in ["/music/../secret.lyrics", "/music/Local/..%2F..%2Fsecret.lyrics", "/music/%2e%2e/secret.lyrics",
                 "/music/Local/%00.lyrics", "/music/Local/03%20Escape.lyrics", "/%ZZ", "/music//etc/passwd.lyrics",
                 "/api/lyrics?uri=" + urllib.parse.quote("../secret.flac"),
                 "/api/lyrics?uri=" + urllib.parse.quote("Local/03 Escape.flac"),
                 "/api/cover?uri=" + urllib.parse.quote("/etc/passwd")]:
        status, body, _ = server.curl(path)
        refused = 400 <= status < 500 or (status == 200 and b'"status":"none"' in body)
        check(f"escape {path} refused", refused and secret not in body and b"root:" not in body,
              f"{status} {body[:120]}")
    raw = socket.create_connection(("127.0.0.1", server.http), timeout=10)
    raw.sendall(b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = raw.recv(100)
    raw.close()
    check("an oversized request line gets a 4xx or is closed", answer == b"" or answer.startswith(b"HTTP/1.1 4"),
          f"{answer}")
    status, _ = server.json("/api/status")
    check("the server still answers", status == 200)

    # The password: read permission to see anything; the command's own permission to act.
    status, _, headers = locked.curl("/api/status")
    check("password: 401 without credentials", status == 401 and "WWW-Authenticate: Basic" in headers,
          f"{status} {headers}")
    status, _, _ = locked.curl("/api/status", user="x:wrong")
    check("password: 401 with a wrong one", status == 401, f"{status}")
    status, body = locked.json("/api/status", user="anyone:reader")
    check("password: read permission sees the status", status == 200 and "state" in body, f"{status}")
    status, body = locked.json("/api/next", method="POST", user=":reader")
    check("password: read permission cannot control (MPD's ACK 4)", status == 403 and body.get("code") == 4,
          f"{status} {body}")
    status, body = locked.json("/api/stop", method="POST", user=":boss")
    check("password: control permission can", status == 200, f"{status} {body}")
    status, body, _ = locked.curl("/", user=":reader")
    check("password: the page with read permission", status == 200 and b"<title>" in body, f"{status}")


# ---------------------------------------------------------------------------------------------------------------
# browser

def browser_checks(server):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    os.makedirs(ARTIFACTS, exist_ok=True)
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=420,900"]:
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=options)
    try:
        page = f"http://127.0.0.1:{server.http}/"

        def lit():
            elements = driver.find_elements(By.CSS_SELECTOR, "#lyrics .line.current")
            return elements[0] if elements else None

        def check_moments(label, uri, moments):
            lyrics = server.json("/api/lyrics?uri=" + urllib.parse.quote(uri))[1]["lyrics"]["lines"]
            for seconds in moments:
                # `seekcur` (mpc's seek takes whole seconds only).
                server.json(f"/api/seek?position={seconds}", method="POST")
                time.sleep(0.3)
                elapsed = server.json("/api/status")[1]["elapsed"]
                expected = line_at(lyrics, elapsed * 1000)
                shown = wait_for(lambda: lit() is not None and int(lit().get_attribute("data-index")) == expected
                                 and lit(), 3)
                index = int(shown.get_attribute("data-index")) if shown else None
                check(f"{label}: at {elapsed:.2f} s the lit line is line {expected}", index == expected,
                      f"lit {index}")
                translation = lyrics[expected].get("translation") if expected >= 0 else None
                if translation and shown:
                    shown_translation = shown.find_elements(By.CSS_SELECTOR, ".translation")
                    check(f"{label}: the translation under it", shown_translation and
                          shown_translation[0].text == translation, f"{[t.text for t in shown_translation]}")
            driver.save_screenshot(os.path.join(ARTIFACTS, f"{label}.png"))

        # A NetEase song with word timings and a translation.
        server.mpc("clear")
        server.mpc("add", f"netease://song/{NETEASE_SONG}")
        server.mpc("add", f"netease://song/{NETEASE_NEXT}")
        server.mpc("play")
        wait_for(lambda: "[playing]" in server.mpc("status"), 20)
        ahead = os.path.join(server.dir, "cache", "netease-lyrics", f"{NETEASE_NEXT}.json")
        check("the next NetEase song's lyrics are fetched ahead", wait_for(lambda: os.path.exists(ahead), 5), ahead)
        driver.get(page)
        check("page: the song is shown", wait_for(
            lambda: driver.find_element(By.ID, "title").text == "雨の街角", 5), driver.find_element(By.ID, "title").text)
        check("page: the lyrics are drawn as lines with words", wait_for(
            lambda: len(driver.find_elements(By.CSS_SELECTOR, "#lyrics .line .word")) > 3, 5))
        # Pause on the page: the player pauses.
        driver.find_element(By.ID, "toggle").click()
        check("page: pause pauses the player", wait_for(lambda: "[paused]" in server.mpc("status"), 2),
              server.mpc("status"))
        check_moments("netease", f"netease://song/{NETEASE_SONG}", [1.5, 3.0, 4.5])
        words = driver.find_elements(By.CSS_SELECTOR, "#lyrics .line.current .word.sung")
        check("page: the words sung so far are lit", len(words) > 0, f"{len(words)}")
        # `mpc next` reaches the page without a reload.
        following = server.json("/api/queue")[1][1]["title"]
        marker = driver.execute_script("window.__stay = 1; return 1")
        server.mpc("next")
        started = time.time()
        changed = wait_for(lambda: driver.find_element(By.ID, "title").text == following, 1.0, 0.02)
        check("page: mpc next shows the next song within a second", changed and marker ==
              driver.execute_script("return window.__stay"), f"{time.time() - started:.2f} s, "
              f"title {driver.find_element(By.ID, 'title').text!r}")
        driver.save_screenshot(os.path.join(ARTIFACTS, "netease-next.png"))

        # A local song with a sidecar .lrc.
        server.mpc("clear")
        server.mpc("add", "Local/01 Sidecar Song.flac")
        server.mpc("add", "Local/02 Embedded.flac")
        server.mpc("play")
        server.mpc("pause")
        check("page: the local song is shown", wait_for(
            lambda: driver.find_element(By.ID, "title").text == "Sidecar Song", 3))
        check_moments("sidecar", "Local/01 Sidecar Song.flac", [2.0, 5.0, 11.0])
        # A local song with unsynchronised lyrics: its text, no lit line.
        server.mpc("next")
        server.mpc("pause")
        shown = wait_for(lambda: "Plain words here" in driver.find_element(By.ID, "lyrics").text, 3)
        check("page: unsynchronised lyrics are shown as text", shown and lit() is None,
              driver.find_element(By.ID, "lyrics").text)
        driver.save_screenshot(os.path.join(ARTIFACTS, "embedded.png"))
    finally:
        driver.quit()

    # Without JavaScript the page is the text and working forms.
    status, body, _ = server.curl("/")
    check("page without JavaScript: title, lyrics text, queue forms", status == 200 and b"Embedded" in body
          and b"Plain words here" in body and b'action="/api/playid"' in body, f"{status}")
    status, _, headers = server.curl("/api/toggle", method="POST", data="x=1")
    check("a form post without JavaScript", status in (200, 303), f"{status}")


def main():
    directory = tempfile.mkdtemp(prefix="nosignal-web-")
    locked_dir = tempfile.mkdtemp(prefix="nosignal-web-locked-")
    fake = server = locked = None
    try:
        music = make_music(directory)
        fake, info = start_fake(os.path.dirname(BINARY), directory)
        server = Server(directory, music, info)
        if "curl" in ONLY:
            locked = Server(locked_dir, music, info, 'password "reader@read"\npassword "boss@read,control"\n')
            locked.password = "boss"
            curl_checks(server, locked)
        if "browser" in ONLY:
            browser_checks(server)
    finally:
        for process in (server, locked):
            if process:
                process.stop()
        if fake:
            fake.terminate()
    finish("web test", directory, locked_dir)


if __name__ == "__main__":
    main()
