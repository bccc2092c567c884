#!/usr/bin/python3
"""NoSignal under systemd's conventions, without systemd: what a unit with `Type=notify`, a `.socket` unit and the
journal give and expect, done by hand (`sd_notify(3)`, `sd_listen_fds(3)`, `systemd.exec(5)`).

Usage: systemd_test.py PATH/TO/nosignal

- notify: NOTIFY_SOCKET names a datagram socket of the test's; NoSignal sends READY=1 (with a STATUS= line) once it
  serves, mpc then works, and STOPPING=1 on SIGTERM.
- socket activation: a TCP and a unix listening socket passed as descriptors 3 and 4 (LISTEN_FDS=2, LISTEN_PID its
  own pid, as systemd sets them): mpc works through both, bind_to_address is not bound, the unix socket's clients
  are local (local_permissions), and a `pipe` output's child process does not hold the sockets.
- journal: with JOURNAL_STREAM naming standard error, lines are `<priority>label: message` without a timestamp.
- the unit files name the binary through @BINDIR@ and carry Type=notify and the hardening options; `make install`
  (DESTDIR, PREFIX) puts the binary, the man page generated from `--help`, the units (with the binary's path) and the
  example configuration in place, and `make uninstall` removes them.
Prints one line per check and exits non-zero when one failed.
"""
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

from testkit import check, finish, free_port

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/nosignal")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))




def config(directory, port, extra=""):
    path = os.path.join(directory, "nosignal.conf")
    with open(path, "w") as f:
        f.write(f'bind_to_address "127.0.0.1"\nport "{port}"\nhttp_port "0"\nmusic_directory "{directory}/music"\n'
                f'data_directory "{directory}/data"\ncache_directory "{directory}/cache"\n'
                'audio_output {\n type "null"\n name "null"\n}\nnetease {\n enabled "no"\n}\n' + extra)
    os.makedirs(os.path.join(directory, "music"), exist_ok=True)
    return path


def mpc(*args, host="127.0.0.1", port=None):
    command = ["mpc", "-h", host] + (["-p", str(port)] if port else []) + list(args)
    return subprocess.run(command, capture_output=True, text=True, timeout=30)


def notify_checks(directory):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    address = os.path.join(directory, "notify")
    listener.bind(address)
    listener.settimeout(60)
    port = free_port()
    log = open(os.path.join(directory, "notify.log"), "w")
    server = subprocess.Popen([BINARY, "serve", "--config", config(directory, port)], stdout=log, stderr=log,
                              env=dict(os.environ, HOME=directory, NOTIFY_SOCKET=address))
    try:
        message = listener.recv(4096).decode()
        check("notify: READY=1 with a STATUS line once serving", "READY=1" in message.split("\n")
              and any(line.startswith("STATUS=Serving on ") for line in message.split("\n")), message)
        check("notify: the server answers when READY arrives", mpc("status", port=port).returncode == 0)
        server.send_signal(signal.SIGTERM)
        message = listener.recv(4096).decode()
        check("notify: STOPPING=1 on SIGTERM", "STOPPING=1" in message.split("\n"), message)
        check("notify: exits cleanly", server.wait(timeout=30) == 0, f"exit {server.returncode}")
    finally:
        if server.poll() is None:
            server.kill()
        listener.close()
    # An abstract address (`@name`) works too.
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    name = f"nosignal-test-{os.getpid()}"
    listener.bind("\0" + name)
    listener.settimeout(60)
    server = subprocess.Popen([BINARY, "serve", "--config", config(directory, free_port())], stdout=log, stderr=log,
                              env=dict(os.environ, HOME=directory, NOTIFY_SOCKET="@" + name))
    try:
        check("notify: an abstract NOTIFY_SOCKET", "READY=1" in listener.recv(4096).decode())
        # SIGTERM the moment READY arrives (a signal between a dispatch source's SIG_IGN and its registration was
        # lost, and the server served on).
        server.terminate()
        check("notify: SIGTERM as READY arrives stops it", exits_within(server, 30) == 0, f"exit {server.returncode}")
    finally:
        if server.poll() is None:
            server.kill()
        listener.close()
    # SIGTERM at any moment of the start: the server stops (killed by it before its handler is in, else cleanly).
    outcomes = []
    for delay in (0.05, 0.15, 0.3, 0.5, 0.8):
        server = subprocess.Popen([BINARY, "serve", "--config", config(directory, free_port())], stdout=log,
                                  stderr=log, env=dict(os.environ, HOME=directory))
        time.sleep(delay)
        server.terminate()
        outcomes.append(exits_within(server, 30))
    check("SIGTERM during the start stops the server", all(code in (0, -signal.SIGTERM) for code in outcomes),
          f"{outcomes}")


def exits_within(server, seconds):
    """The exit status, or None (and the server killed) when it did not exit in time."""
    try:
        return server.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        return None


def activation_checks(directory):
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(16)
    activated_port = tcp.getsockname()[1]
    unix_path = os.path.join(directory, "socket")
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(unix_path)
    unix.listen(16)
    configured_port = free_port()
    # A pipe output starts a child: it must not inherit the listening sockets.
    pipe = 'audio_output {\n type "pipe"\n name "pipe"\n command "sleep 600"\n}\n'
    conf = config(directory, configured_port, 'password "secret@read"\nlocal_permissions "read,add,control"\n'
                  'default_permissions ""\n' + pipe)
    tcp_fd, unix_fd = tcp.fileno(), unix.fileno()
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                    "sine=frequency=440:duration=30", os.path.join(directory, "music", "tone.flac")], check=True)

    def place_sockets():
        os.dup2(tcp_fd, 3)
        os.dup2(unix_fd, 4)
        os.environ["LISTEN_PID"] = str(os.getpid())
        os.environ["LISTEN_FDS"] = "2"
        os.environ["LISTEN_FDNAMES"] = "tcp:unix"
        os.environ["HOME"] = directory

    log = open(os.path.join(directory, "activation.log"), "w")
    server = subprocess.Popen([BINARY, "serve", "--config", conf], stdout=log, stderr=log, preexec_fn=place_sockets,
                              pass_fds=(tcp_fd, unix_fd))
    tcp.close()
    unix.close()
    try:
        answered = None
        deadline = time.time() + 60
        while time.time() < deadline:
            answered = mpc("status", host="secret@127.0.0.1", port=activated_port)
            if answered.returncode == 0:
                break
            time.sleep(0.2)
        check("activation: serves the passed TCP socket", answered.returncode == 0, answered.stderr)
        # The first scan of the music directory runs beside the serving: add once the tone is in the database.
        local = mpc("add", "", host=unix_path)
        deadline = time.time() + 60
        while local.returncode == 0 and time.time() < deadline and not mpc("playlist", host=unix_path).stdout.strip():
            time.sleep(0.2)
            local = mpc("add", "", host=unix_path)
        check("activation: serves the passed unix socket with local permissions", local.returncode == 0,
              local.stderr)
        remote = mpc("add", "", host="secret@127.0.0.1", port=activated_port)
        check("activation: TCP clients get default permissions", remote.returncode != 0 and
              "permission" in remote.stderr.lower(), remote.stderr)
        refused = mpc("status", port=configured_port)
        check("activation: bind_to_address is not bound", refused.returncode != 0, refused.stdout)
        played = mpc("play", host=unix_path)
        children = []
        deadline = time.time() + 10
        while not children and time.time() < deadline:
            time.sleep(0.2)
            children = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()
        leaked = []
        for child in children:
            for fd in os.listdir(f"/proc/{child}/fd"):
                target = os.readlink(f"/proc/{child}/fd/{fd}")
                if target.startswith("socket:"):
                    leaked.append((child, fd, target))
        check("activation: a pipe output's child holds no listening socket", children and not leaked,
              f"children {children}, sockets {leaked}, play: {played.stdout.strip()} {played.stderr.strip()}")
    finally:
        server.terminate()
        exits_within(server, 30)


def journal_checks(directory):
    path = os.path.join(directory, "journal.log")
    with open(path, "w") as log:
        info = os.fstat(log.fileno())
        server = subprocess.Popen([BINARY, "serve", "--config", config(directory, free_port())], stdout=log,
                                  stderr=log, env=dict(os.environ, HOME=directory,
                                                       JOURNAL_STREAM=f"{info.st_dev}:{info.st_ino}"))
        time.sleep(3)
        server.terminate()
        server.wait(timeout=30)
    lines = [line for line in open(path).read().splitlines() if line]
    check("journal: priority prefixes, no timestamps", lines and all(re.match(r"^<[2-7]>[\w.]+: ", line)
                                                                     for line in lines)
          and not any(re.search(r"\d{4}-\d\d-\d\dT\d\d:", line) for line in lines), "\n".join(lines[:5]))
    check("journal: notices at priority 5", any(line.startswith("<5>nosignal") for line in lines), "\n".join(lines))
    with open(os.path.join(directory, "plain.log"), "w") as log:
        server = subprocess.Popen([BINARY, "serve", "--config", config(directory, free_port())], stdout=log,
                                  stderr=log, env=dict(os.environ, HOME=directory, JOURNAL_STREAM="1:2"))
        time.sleep(3)
        server.terminate()
        server.wait(timeout=30)
    plain = open(os.path.join(directory, "plain.log")).read()
    check("journal: a JOURNAL_STREAM that is not standard error keeps timestamps",
          re.search(r"^\d{4}-\d\d-\d\dT", plain, re.M) is not None, plain[:200])


def unit_checks():
    for name, wanted in [("nosignal.service", ["Type=notify", "ExecStart=@BINDIR@/nosignal serve", "User=nosignal",
                                               "ProtectSystem=strict", "NoNewPrivileges=yes", "PrivateTmp=yes",
                                               "StateDirectory=nosignal", "Also=nosignal.socket"]),
                         ("nosignal.socket", ["ListenStream=6600", "ListenStream=%t/nosignal/socket"]),
                         ("nosignal-user.service", ["Type=notify", "ExecStart=@BINDIR@/nosignal serve",
                                                    "WantedBy=default.target"])]:
        text = open(os.path.join(ROOT, "conf", name)).read()
        missing = [line for line in wanted if line not in text.splitlines()]
        check(f"units: {name}", not missing, f"missing {missing}")


def socket_activate_checks(directory):
    """systemd's own `systemd-socket-activate` on a port and a unix socket: NoSignal starts at the first client."""
    port = free_port()
    unix_path = os.path.join(directory, "socket")
    conf = config(directory, free_port())
    log = open(os.path.join(directory, "activate.log"), "w")
    runner = subprocess.Popen(["systemd-socket-activate", "-l", f"127.0.0.1:{port}", "-l", unix_path,
                               "-E", f"HOME={directory}", BINARY, "serve", "--config", conf],
                              stdout=log, stderr=log)
    try:
        wait = time.time() + 10
        while not os.path.exists(unix_path) and time.time() < wait:
            time.sleep(0.1)
        tcp = mpc("status", port=port)
        check("systemd-socket-activate: mpc through the port", tcp.returncode == 0 and "volume" in tcp.stdout,
              tcp.stderr)
        local = mpc("status", host=unix_path)
        check("systemd-socket-activate: mpc through the unix socket", local.returncode == 0, local.stderr)
    finally:
        runner.terminate()
        exits_within(runner, 30)


def verify_checks(directory):
    """`systemd-analyze verify` accepts the units as installed (the binary where ExecStart says)."""
    prefix = os.path.join(directory, "usr")
    result = subprocess.run(["make", "-s", "install", "CONFIG=debug", f"PREFIX={prefix}"], cwd=ROOT,
                            capture_output=True, text=True, timeout=900)
    check("verify: make install", result.returncode == 0, result.stderr[-300:])
    units = os.path.join(prefix, "lib", "systemd")
    system = subprocess.run(["systemd-analyze", "verify", "--man=no", f"{units}/system/nosignal.socket",
                             f"{units}/system/nosignal.service"], capture_output=True, text=True, timeout=60)
    check("verify: systemd-analyze accepts nosignal.service and nosignal.socket",
          system.returncode == 0 and not system.stderr.strip(), system.stderr)
    runtime = os.path.join(directory, "runtime")
    os.makedirs(runtime, mode=0o700)
    user = subprocess.run(["systemd-analyze", "verify", "--man=no", "--user", f"{units}/user/nosignal.service"],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ, XDG_RUNTIME_DIR=runtime))
    check("verify: systemd-analyze accepts the user unit", user.returncode == 0 and not user.stderr.strip(),
          user.stderr)


def install_checks(directory):
    """`make install` into DESTDIR (the debug build) and `make uninstall`."""
    destination = os.path.join(directory, "root")
    result = subprocess.run(["make", "-s", "install", "CONFIG=debug", "PREFIX=/usr", f"DESTDIR={destination}"],
                            cwd=ROOT, capture_output=True, text=True, timeout=900)
    check("install: make install succeeds", result.returncode == 0, result.stdout[-500:] + result.stderr[-500:])
    files = sorted(os.path.relpath(os.path.join(d, f), destination) for d, _, names in os.walk(destination)
                   for f in names)
    check("install: binary, Snapcast wrapper, man page, units, example configuration", files == [
        "usr/bin/nosignal", "usr/bin/nosignal-snapcast-control", "usr/lib/systemd/system/nosignal.service", "usr/lib/systemd/system/nosignal.socket",
        "usr/lib/systemd/user/nosignal.service", "usr/share/doc/nosignal/nosignal.conf.example",
        "usr/share/man/man1/nosignal.1"], f"{files}")
    if files:
        unit = open(os.path.join(destination, "usr/lib/systemd/system/nosignal.service")).read()
        check("install: the unit names the installed binary", "ExecStart=/usr/bin/nosignal serve" in unit, unit[:300])
        manual = open(os.path.join(destination, "usr/share/man/man1/nosignal.1")).read()
        check("install: the man page is the command line's help", ".Dt NOSIGNAL 1" in manual and "check-config"
              in manual and "Run the server in the foreground" in manual, manual[:300])
        version = subprocess.run([os.path.join(destination, "usr/bin/nosignal"), "--version"], capture_output=True,
                                 text=True)
        check("install: the installed binary runs", version.returncode == 0, version.stderr)
        wrapper = open(os.path.join(destination, "usr/bin/nosignal-snapcast-control")).read()
        check("install: the Snapcast wrapper runs the installed binary",
              '"/usr/bin/nosignal" snapcast-control "$@"' in wrapper
              and os.access(os.path.join(destination, "usr/bin/nosignal-snapcast-control"), os.X_OK), wrapper)
    subprocess.run(["make", "-s", "uninstall", "PREFIX=/usr", f"DESTDIR={destination}"], cwd=ROOT,
                   capture_output=True, timeout=60)
    left = [f for _, _, names in os.walk(destination) for f in names]
    check("install: make uninstall removes them", not left, f"{left}")


def main():
    directory = tempfile.mkdtemp(prefix="nosignal-systemd-")
    for part in (notify_checks, activation_checks, socket_activate_checks, journal_checks, verify_checks,
                 install_checks):
        sub = os.path.join(directory, part.__name__)
        os.makedirs(sub)
        part(sub)
    unit_checks()
    finish("systemd test", directory)


if __name__ == "__main__":
    main()
