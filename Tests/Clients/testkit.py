"""What the end-to-end scripts share: one line per check, free ports, waiting for a condition, the fake NetEase server.

    from testkit import check, finish, free_port, wait_for
"""
import os
import socket
import subprocess
import sys
import threading
import time

failures = []


def check(name, condition, detail=""):
    """Prints `ok` or `FAIL` with the detail, and counts the failure."""
    print(f"{'ok  ' if condition else 'FAIL'} {name}" + ("" if condition else f": {detail}"), flush=True)
    if not condition:
        failures.append(name)
    return condition


def finish(test, *directories):
    """The summary line; exits non-zero after a failure (the directories kept for their logs), else removes them."""
    print(f"{'FAILED' if failures else 'passed'}: {test} ({len(failures)} failures)", flush=True)
    if failures:
        print("logs in", *directories)
        sys.exit(1)
    for directory in directories:
        subprocess.run(["rm", "-rf", directory])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, timeout, interval=0.2):
    """`condition()` once it is truthy, polling every `interval` seconds; its last value after `timeout`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    return condition()


def start_fake(binary_dir, directory):
    """`fake-netease` from beside the server binary on a free port: (process, {port, public, music_u, csrf})."""
    fake = subprocess.Popen([os.path.join(binary_dir, "fake-netease"), "--port", "0", "--key",
                             os.path.join(directory, "private.pem")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    info, banner = {}, []
    while "csrf" not in info:
        text = fake.stdout.readline()
        if not text:
            raise RuntimeError("fake-netease did not start: " + "".join(banner))
        banner.append(text)
        if text.startswith("port "):
            info["port"] = int(text.split()[1])
        elif text.startswith("public key "):
            info["public"] = text[len("public key "):].strip()
        elif text.startswith("demo MUSIC_U "):
            info["music_u"] = text.split()[2]
        elif text.startswith("demo __csrf "):
            info["csrf"] = text.split()[2]
    threading.Thread(target=fake.stdout.read, daemon=True).start()
    return fake, info
