#!/usr/bin/python3
"""Multi-room with Debian's snapserver and snapclient: NoSignal's `tcp` output into snapserver's `tcp` source.

Usage: snapcast_test.py PATH/TO/nosignal

snapserver (a `tcp` source in server mode) and two snapclients with the `file` player run on this machine; NoSignal
plays a 48 kHz FLAC of white noise (so no 10 ms block repeats) through an output of type "tcp". In each client's
PCM at least 90 % of the song's 10 ms blocks must appear exactly (Snapcast may add or drop single samples to keep
the clients in step). Restarting snapserver in the middle of a song must resume the stream (the clients receive
audio again) without restarting NoSignal. A configuration with MPD's own `snapcast` output type loads, with a warning
naming the `tcp` setup.
Prints one line per check and exits non-zero when one failed.
"""
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

from testkit import check, finish, free_port, wait_for

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/nosignal")
BLOCK = 480 * 4  # 10 ms of 48 kHz 16-bit stereo





class Snapserver:
    def __init__(self, directory, source_port, controlscript):
        self.directory = directory
        self.stream_port, self.control_port = free_port(), free_port()
        self.config = os.path.join(directory, "snapserver.conf")
        os.makedirs(os.path.join(directory, "snapdata"), exist_ok=True)
        with open(self.config, "w") as f:
            f.write(f"[server]\ndatadir = {directory}/snapdata\n[http]\nenabled = false\n"
                    f"[tcp]\nenabled = true\nport = {self.control_port}\n"
                    f"[stream]\nport = {self.stream_port}\n"
                    f"source = tcp://127.0.0.1:{source_port}?name=NoSignal&mode=server&sampleformat=48000:16:2"
                    f"&codec=pcm&controlscript={urllib.parse.quote(controlscript, safe='')}\n")
        self.proc = None
        self.start()

    def start(self):
        self.log = open(os.path.join(self.directory, "snapserver.log"), "a")
        self.proc = subprocess.Popen(["snapserver", "-c", self.config], stdout=self.log, stderr=self.log)
        wait_for(lambda: connectable(self.stream_port), 10)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=20)


def rpc(port, method, params=None):
    """One JSON-RPC request to snapserver's control port."""
    import json
    request = {"id": 1, "jsonrpc": "2.0", "method": method}
    if params is not None:
        request["params"] = params
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
            connection.sendall((json.dumps(request) + "\r\n").encode())
            data = b""
            while not data.endswith(b"\n"):
                chunk = connection.recv(65536)
                if not chunk:
                    break
                data += chunk
        for line in data.splitlines():
            message = json.loads(line)
            if message.get("id") == 1:
                return message
    except (OSError, ValueError):
        pass
    return {}


def connectable(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def main():
    directory = tempfile.mkdtemp(prefix="nosignal-snapcast-")
    music = os.path.join(directory, "music")
    os.makedirs(music)
    for name, seconds, title in [("01 noise.flac", 8, "White Noise"), ("02 long noise.flac", 30, "Long Noise")]:
        subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                        f"anoisesrc=d={seconds}:c=white:r=48000:a=0.5:seed={seconds}", "-ac", "2", "-ar", "48000",
                        "-sample_fmt", "s16", "-metadata", f"title={title}", "-metadata", "artist=Test Artist",
                        os.path.join(music, name)], check=True)
    reference = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i",
                                os.path.join(music, "01 noise.flac"), "-f", "s16le", "-ac", "2", "-ar", "48000", "-"],
                               capture_output=True, check=True).stdout
    source_port = free_port()
    port = free_port()
    # snapserver runs the control script as `controlscript=` names it; the wrapper tells it where NoSignal is.
    wrapper = os.path.join(directory, "nosignal-snapcast-control")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec "{BINARY}" snapcast-control --mpd-port {port} "$@" 2>>"{directory}/control.log"\n')
    os.chmod(wrapper, 0o755)
    snapserver = Snapserver(directory, source_port, wrapper)
    clients = []
    server = None
    try:
        for name in ["kitchen", "bedroom"]:
            clients.append((name, os.path.join(directory, f"{name}.raw"), subprocess.Popen(
                ["snapclient", "-h", "127.0.0.1", "-p", str(snapserver.stream_port), "--hostID", name,
                 "--player", f"file:filename={directory}/{name}.raw"],
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(directory, f"{name}.log"), "w"))))
        config = os.path.join(directory, "nosignal.conf")
        with open(config, "w") as f:
            f.write(f'music_directory "{music}"\ndata_directory "{directory}/data"\ncache_directory "{directory}/cache"\n'
                    f'bind_to_address "127.0.0.1"\nport "{port}"\nhttp_port "0"\nzeroconf_enabled "no"\n'
                    'audio_output {\n type "tcp"\n name "Snapcast"\n host "127.0.0.1"\n'
                    f' port "{source_port}"\n}}\nnetease {{\n enabled "no"\n}}\n')
        server = subprocess.Popen([BINARY, "serve", "--config", config], env=dict(os.environ, HOME=directory),
                                  stdout=open(os.path.join(directory, "nosignal.log"), "w"), stderr=subprocess.STDOUT)

        def mpc(*args):
            return subprocess.run(["mpc", "-p", str(port), *args], capture_output=True, text=True, timeout=30).stdout

        wait_for(lambda: "volume" in mpc("status") and "Updating" not in mpc("status"), 60)
        time.sleep(2)  # the clients are connected and idle
        mpc("add", "01 noise.flac")
        mpc("play")
        time.sleep(1)
        check("NoSignal plays into snapserver", "[playing]" in mpc("status"), mpc("status"))
        wait_for(lambda: "[playing]" not in mpc("status"), 30)
        time.sleep(2)  # what the clients still buffer
        blocks = [reference[i:i + BLOCK] for i in range(0, len(reference) - BLOCK + 1, BLOCK)]
        for name, path, _ in clients:
            heard = open(path, "rb").read() if os.path.exists(path) else b""
            found = sum(1 for block in blocks if block in heard)
            check(f"{name}: {found}/{len(blocks)} of the song's 10 ms blocks arrive exactly",
                  found >= 0.9 * len(blocks), f"{found / max(1, len(blocks)):.1%} of {len(heard)} bytes")

        # snapserver restarts in the middle of a song: the stream resumes, NoSignal goes on.
        pid = server.pid
        mpc("clear")
        mpc("add", "02 long noise.flac")
        mpc("play")
        time.sleep(4)
        snapserver.stop()
        time.sleep(1)
        sizes = {name: os.path.getsize(path) for name, path, _ in clients}
        snapserver.start()
        for name, path, _ in clients:
            grew = wait_for(lambda: os.path.getsize(path) > sizes[name] + 48000 * 4, 20)
            check(f"{name}: audio again after snapserver restarts", grew,
                  f"{sizes[name]} -> {os.path.getsize(path)}")
        check("NoSignal kept playing without a restart", server.poll() is None and server.pid == pid
              and "[playing]" in mpc("status"), mpc("status"))

        # The control script: what plays in snapserver's status, control from any Snapcast app.
        mpc("add", "01 noise.flac")

        def stream():
            answer = rpc(snapserver.control_port, "Server.GetStatus")
            streams = answer.get("result", {}).get("server", {}).get("streams", [])
            return next((s for s in streams if s.get("id") == "NoSignal"), {})

        def metadata():
            return stream().get("properties", {}).get("metadata", {})

        shown = wait_for(lambda: metadata().get("title") == "Long Noise" and metadata(), 15)
        check("Server.GetStatus shows the stream's title and artist", shown and shown.get("artist") == ["Test Artist"],
              f"{stream()}")
        answer = rpc(snapserver.control_port, "Stream.Control", {"id": "NoSignal", "command": "next"})
        check("Stream.Control next moves NoSignal to the next song",
              wait_for(lambda: "White Noise" in mpc("current"), 10), f"{answer} {mpc('status')}")
        check("snapserver hears the new song", wait_for(lambda: metadata().get("title") == "White Noise", 10),
              f"{metadata()}")
        rpc(snapserver.control_port, "Stream.Control",
            {"id": "NoSignal", "command": "setPosition", "params": {"position": 3.0}})
        check("Stream.Control setPosition seeks", wait_for(lambda: "0:03/" in mpc("status"), 10), mpc("status"))
        rpc(snapserver.control_port, "Stream.Control", {"id": "NoSignal", "command": "pause"})
        check("Stream.Control pause pauses", wait_for(lambda: "[paused]" in mpc("status"), 10), mpc("status"))
        rpc(snapserver.control_port, "Stream.SetProperty", {"id": "NoSignal", "property": "volume", "value": 37})
        rpc(snapserver.control_port, "Stream.SetProperty", {"id": "NoSignal", "property": "shuffle", "value": True})
        check("Stream.SetProperty volume and shuffle", wait_for(
            lambda: "volume: 37%" in mpc("status") and "random: on" in mpc("status"), 10), mpc("status"))

        # MPD's `snapcast` output type: a clear message pointing at this setup.
        bad = os.path.join(directory, "snapcast-type.conf")
        with open(bad, "w") as f:
            f.write('audio_output {\n type "snapcast"\n name "x"\n}\n')
        result = subprocess.run([BINARY, "check-config", "--config", bad], capture_output=True, text=True)
        message = result.stdout + result.stderr
        check('type "snapcast" loads with a warning naming the tcp output', result.returncode == 0
              and "warning:" in message and '"tcp"' in message and "snapcast-type.conf:1" in message, message)
    finally:
        if server:
            server.terminate()
            server.wait(timeout=30)
        for _, _, client in clients:
            client.terminate()
        snapserver.stop()
    finish("snapcast test", directory)


if __name__ == "__main__":
    main()
