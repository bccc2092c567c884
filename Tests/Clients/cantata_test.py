#!/usr/bin/python3
"""Cantata draws album covers that it fetched from the server (`albumart`), under Xvfb.

Usage: cantata_test.py [SERVER] [--keep]
  SERVER  a NoSignal binary (default .build/debug/nosignal), or `mpd` (MPD_BIN, default /work/mpd-0.24.13/build/mpd,
          else `mpd`) to check the test itself against real MPD.

Starts the server on the generated test library, starts Cantata under Xvfb (1280x800) with a fresh HOME whose
cantata.conf points at the server (music folder unreadable, so covers can only come over the protocol), waits,
takes a screenshot with `import -window root` (kept as OUT/cantata-<server>.png, OUT = $CANTATA_OUT or /tmp), and
checks: the album grid is drawn, the cover of "Ágætis byrjun" (`cover.jpg` in the library, a flat colour) is on the
screen (its colour covers a patch of pixels, which Cantata's grey placeholder never does), and the server saw
`albumart` requests. Needs cantata, xvfb, imagemagick, dbus.
"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from record_conversations import CANTATA_CONF, Server  # noqa: E402
from ncmpcpp_test import test_library  # noqa: E402
from conversation_proxy import Proxy  # noqa: E402
from testkit import check, finish  # noqa: E402


def dominant_colour(path):
    """The most common colour of an image, as (r, g, b)."""
    out = subprocess.run(["convert", path, "-scale", "1x1!", "-format", "%[fx:int(255*r)] %[fx:int(255*g)] %[fx:int(255*b)]",
                          "info:"], capture_output=True, text=True, check=True).stdout.split()
    return tuple(int(x) for x in out)


def pixels_near(png, colour, tolerance=24):
    """How many pixels of the screenshot are within `tolerance` of `colour` in every channel."""
    r, g, b = colour
    ppm = subprocess.run(["convert", png, "-depth", "8", "rgb:-"], capture_output=True, check=True).stdout
    count = 0
    for i in range(0, len(ppm) - 2, 3):
        if abs(ppm[i] - r) <= tolerance and abs(ppm[i + 1] - g) <= tolerance and abs(ppm[i + 2] - b) <= tolerance:
            count += 1
    return count


def main():
    args = [a for a in sys.argv[1:] if a != "--keep"]
    target = args[0] if args else ".build/debug/nosignal"
    work = tempfile.mkdtemp(prefix="nosignal-cantata-")
    music = test_library()
    if target == "mpd":
        binary = os.environ.get("MPD_BIN") or ("/work/mpd-0.24.13/build/mpd" if os.path.exists(
            "/work/mpd-0.24.13/build/mpd") else "mpd")
        server = Server(binary, work, music, kind="mpd")
        name = "mpd"
    else:
        server = Server(os.path.abspath(target), work, music, kind="nosignal")
        name = "nosignal"
    log = os.path.join(work, "proxy.log")
    proxy = Proxy(server.port, log)
    out = os.environ.get("CANTATA_OUT", "/tmp")
    shot = os.path.join(out, f"cantata-{name}.png")
    try:
        home = os.path.join(work, "cantata-home")
        confdir = os.path.join(home, ".config", "cantata")
        os.makedirs(confdir, exist_ok=True)
        with open(os.path.join(confdir, "cantata.conf"), "w") as f:
            f.write(CANTATA_CONF.format(port=proxy.port))
        env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
                   XDG_CACHE_HOME=os.path.join(home, ".cache"), XDG_DATA_HOME=os.path.join(home, ".local/share"),
                   QT_QPA_PLATFORM="xcb", LANG="C.UTF-8")
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        # Cantata is given time to load the library and its covers; the screenshot is then checked (no timing
        # assertion: a slow cover is a failure to draw it within the settle time, reported with the screenshot).
        script = f"""
cantata > {work}/cantata.log 2>&1 &
P=$!
sleep {os.environ.get('CANTATA_SETTLE', '12')}
import -window root {shot}
kill $P; wait $P
"""
        subprocess.run(["dbus-run-session", "--", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "bash", "-c",
                        script], capture_output=True, text=True, env=env, timeout=180)
        time.sleep(0.3)
    finally:
        proxy.stop()
        server.stop()
    sent = [line for line in open(log, encoding="utf-8") if '"send"' in line]
    check("Cantata connected and listed the library", any("list" in s or "lsinfo" in s or "find" in s for s in sent),
          f"{len(sent)} requests; see {log}")
    check("Cantata asked for covers with albumart", any('"send": "albumart' in s for s in sent), f"see {log}")
    check("a screenshot was taken", os.path.exists(shot), shot)
    if os.path.exists(shot):
        cover = dominant_colour(os.path.join(music, "Sigur Rós", "Ágætis byrjun", "cover.jpg"))
        count = pixels_near(shot, cover)
        # A 230-byte JPEG: one flat colour; drawn as a grid cover it fills thousands of pixels.
        check(f"the cover of Ágætis byrjun (colour {cover}) is drawn", count > 1500,
              f"{count} pixels of that colour in {shot}")
        errors = [line for line in open(os.path.join(work, "cantata.log"), errors="replace")
                  if "error" in line.lower() and "albumart" not in line.lower() and "UDisks2" not in line]
        check("no error shown", not errors, "".join(errors[:5]))
    print("screenshot:", shot, "log:", log)
    finish(f"cantata against {name}", work)


if __name__ == "__main__":
    main()
