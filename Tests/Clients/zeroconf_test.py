#!/usr/bin/python3
"""Zeroconf with the real avahi-daemon: a system bus and avahi-daemon started here (no systemd needed), NoSignal
found by `avahi-browse` as phone apps find it.

Usage: zeroconf_test.py PATH/TO/nosignal

- `_mpd._tcp` with the configured name (`%h` the host name) and port, and `_http._tcp` on the page's port;
- avahi-daemon restarted: the service is back without touching NoSignal;
- a name another host already publishes: NoSignal takes Avahi's alternative (`NAME #2`);
- no avahi-daemon and no bus: NoSignal serves normally and logs one zeroconf line; `zeroconf_enabled "no"`
  publishes nothing.
Needs root (the system bus and avahi-daemon's files). Prints one line per check; exits non-zero when one failed.
"""
import os
import socket
import subprocess
import sys
import tempfile
import time

from testkit import check, finish, free_port, wait_for

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/nosignal")
HOST = socket.gethostname()




def escaped(name):
    """avahi-browse -p escapes spaces and '@', '#' as \\032, \\064, \\035."""
    return "".join(f"\\{ord(c):03d}" if c in " @#\\;" else c for c in name)


def browse(service_type):
    """(name, port) of each resolved service of `service_type` (avahi-browse -rtp)."""
    result = subprocess.run(["avahi-browse", "-rtp", service_type], capture_output=True, text=True, timeout=30)
    found = set()
    for line in result.stdout.splitlines():
        fields = line.split(";")
        if fields[0] == "=" and len(fields) >= 9:
            found.add((fields[3], int(fields[8])))
    return found



BUS_SOCKET = "/run/dbus/system_bus_socket"


def bus_answers():
    """True when a system bus listens on its socket (a socket file left by a bus that died refuses connections)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(BUS_SOCKET)
            return True
        except OSError:
            return False


def start_bus():
    """Starts a system bus unless one answers; True when this test started it."""
    if bus_answers():
        return False
    for stale in (BUS_SOCKET, "/run/dbus/pid"):
        if os.path.exists(stale):
            os.remove(stale)
    os.makedirs("/run/dbus", exist_ok=True)
    subprocess.run(["dbus-daemon", "--system", "--fork"], check=True, timeout=30)
    wait_for(bus_answers, 10)
    return True


def stop_bus():
    try:
        os.kill(int(open("/run/dbus/pid").read()), 15)
    except (OSError, ValueError):
        pass
    wait_for(lambda: not bus_answers(), 10)
    for leftover in (BUS_SOCKET, "/run/dbus/pid"):
        if os.path.exists(leftover):
            os.remove(leftover)


def start_avahi():
    subprocess.run(["avahi-daemon", "-k"], capture_output=True, timeout=30)
    wait_for(lambda: subprocess.run(["avahi-daemon", "-c"], capture_output=True).returncode != 0, 10)
    started = subprocess.run(["avahi-daemon", "--no-drop-root", "--no-chroot", "-D"], capture_output=True, text=True,
                             timeout=30)
    if started.returncode != 0:
        print(f"avahi-daemon exited with {started.returncode}: {started.stderr.strip()}")
        return False
    return wait_for(lambda: subprocess.run(["avahi-daemon", "-c"], capture_output=True).returncode == 0, 10)


def stop_avahi():
    subprocess.run(["avahi-daemon", "-k"], capture_output=True, timeout=30)
    wait_for(lambda: subprocess.run(["avahi-daemon", "-c"], capture_output=True).returncode != 0, 10)


class Server:
    def __init__(self, directory, name, extra="", env=None):
        self.port, self.http = free_port(), free_port()
        os.makedirs(os.path.join(directory, "music"), exist_ok=True)
        config = os.path.join(directory, "nosignal.conf")
        with open(config, "w") as f:
            f.write(f'bind_to_address "127.0.0.1"\nport "{self.port}"\nhttp_port "{self.http}"\n'
                    f'music_directory "{directory}/music"\ndata_directory "{directory}/data"\n'
                    f'cache_directory "{directory}/cache"\nzeroconf_name "{name}"\n'
                    'audio_output {\n type "null"\n name "null"\n}\nnetease {\n enabled "no"\n}\n' + extra)
        self.log_path = os.path.join(directory, "server.log")
        self.proc = subprocess.Popen([BINARY, "serve", "--config", config], stdout=open(self.log_path, "w"),
                                     stderr=subprocess.STDOUT, env=dict(os.environ, HOME=directory, **(env or {})))
        wait_for(lambda: subprocess.run(["mpc", "-p", str(self.port), "status"], capture_output=True).returncode == 0,
                 60)

    def zeroconf_lines(self):
        return [line for line in open(self.log_path).read().splitlines() if "zeroconf" in line]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def main():
    if os.geteuid() != 0:
        print("FAIL zeroconf test: needs root to run the system bus and avahi-daemon")
        sys.exit(1)
    directory = tempfile.mkdtemp(prefix="nosignal-zeroconf-")
    servers = []
    publisher = None
    own_bus = False
    try:
        own_bus = start_bus()
        check("avahi-daemon runs", start_avahi())
        first = Server(os.path.join(directory, "first"), "ZTest @ %h")
        servers.append(first)
        name = escaped(f"ZTest @ {HOST}")
        check("_mpd._tcp with the name and port", wait_for(lambda: (name, first.port) in browse("_mpd._tcp"), 15),
              f"{browse('_mpd._tcp')}")
        check("_http._tcp on the page's port", wait_for(lambda: (name, first.http) in browse("_http._tcp"), 15),
              f"{browse('_http._tcp')}")

        stop_avahi()
        start_avahi()
        check("back after avahi-daemon restarts", wait_for(lambda: (name, first.port) in browse("_mpd._tcp"), 20),
              f"{browse('_mpd._tcp')} {first.zeroconf_lines()}")

        publisher = subprocess.Popen(["avahi-publish-service", "ZTaken", "_mpd._tcp", "9"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        wait_for(lambda: (escaped("ZTaken"), 9) in browse("_mpd._tcp"), 15)
        second = Server(os.path.join(directory, "second"), "ZTaken")
        servers.append(second)
        check("a taken name becomes Avahi's alternative",
              wait_for(lambda: (escaped("ZTaken #2"), second.port) in browse("_mpd._tcp"), 20),
              f"{browse('_mpd._tcp')} {second.zeroconf_lines()}")

        quiet = Server(os.path.join(directory, "off"), "ZOff", 'zeroconf_enabled "no"\n')
        servers.append(quiet)
        time.sleep(2)
        check('zeroconf_enabled "no" publishes nothing', not any(n == escaped("ZOff") for n, _ in browse("_mpd._tcp"))
              and not quiet.zeroconf_lines(), f"{quiet.zeroconf_lines()}")

        stop_avahi()
        lonely = Server(os.path.join(directory, "nobus"), "ZNone", "",
                        env={"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"})
        servers.append(lonely)
        time.sleep(3)
        status = subprocess.run(["mpc", "-p", str(lonely.port), "status"], capture_output=True, text=True)
        lines = lonely.zeroconf_lines()
        check("no daemon, no bus: serves and logs one line", status.returncode == 0 and len(lines) == 1
              and lonely.proc.poll() is None, f"{lines}")
    finally:
        for server in servers:
            server.stop()
        if publisher:
            publisher.terminate()
        stop_avahi()
        if own_bus:
            stop_bus()
    finish("zeroconf test", directory)


if __name__ == "__main__":
    main()
