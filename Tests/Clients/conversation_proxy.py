#!/usr/bin/python3
"""A logging TCP proxy for MPD conversations, and a converter from its logs to `.mpdscript` files.

    conversation_proxy.py record --upstream HOST:PORT [--listen PORT] --log FILE
        Listens on 127.0.0.1:PORT (0 or absent: a free port, printed as `listening PORT`), forwards every client
        connection to the server, and appends to FILE (JSON lines) what each connection says, in order:
          {"t": seconds, "c": N, "open": true}                  a client connected (N counts from 1)
          {"t": …, "c": N, "greeting": "OK MPD 0.24.0"}
          {"t": …, "c": N, "send": "status"}                    one line the client sent, `\\n` stripped
                                                                (bytes that are not UTF-8: "send_hex")
          {"t": …, "c": N, "end": "OK", "lines": 17, "changed": [...]}
                                                                a response ended (its last line, how many lines,
                                                                and `changed:` lines, which end an idle)
          {"t": …, "c": N, "close": "client" | "server"}
        `idle` and `noidle` are kept like any line. `binary: N` chunks (albumart, readpicture) are passed through
        byte for byte and skipped by the response parser, so a cover never ends a response early.

    conversation_proxy.py convert LOG [--header TEXT] [--drop REGEX ...] [--library standard] > NAME.mpdscript
        Turns a recorded session into a differential script: each connection becomes `@N`, in the order the
        lines reached the server; `idle` is sent with `> idle` and read at the point where its answer came:
        with the `noidle` that ended it (a plain `noidle` step reads the idle's answer), or with `<` right after
        the step that caused it (a command on another connection). A `noidle` that reached MPD after the idle
        had already returned is dropped (MPD ignores it and answers nothing). A connection the client closed
        gets `!disconnect`. Lines that match a `--drop` regular expression (things that depend on time or
        randomness) are left out, and so are idles that returned on their own, with no request in between that
        could have caused them (a song ending during the recording): their `noidle`-less `<` would wait for an
        event the replay does not produce at the same point. With `--freeze`, each request that starts playback
        (play, playid, next, previous, seek*) goes in a command list with `pause 1` after it, then 300 ms pass (the decoder opens the song and
        the player's events are out before the next request). Requests are written plain when the format allows,
        else as raw strings (`"…\\n"`).

Used as a module: `Proxy(upstream_port, log_path)` has `.port` and `.stop()`.
"""
import argparse
import json
import re
import socket
import sys
import threading
import time


class Proxy:
    def __init__(self, upstream_port, log_path, upstream_host="127.0.0.1", listen_port=0):
        self.upstream = (upstream_host, upstream_port)
        self.log = open(log_path, "a", encoding="utf-8")
        self.lock = threading.Lock()
        self.start = time.time()
        self.count = 0
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", listen_port))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    def write(self, record):
        with self.lock:
            record["t"] = round(time.time() - self.start, 4)
            self.log.write(json.dumps(record, ensure_ascii=False) + "\n")
            self.log.flush()

    def stop(self):
        self.running = False
        try:
            self.listener.close()
        except OSError:
            pass
        with self.lock:
            self.log.close()

    def _accept(self):
        while self.running:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.count += 1
                n = self.count
            self.write({"c": n, "open": True})
            threading.Thread(target=self._client_side, args=(n, client, server), daemon=True).start()
            threading.Thread(target=self._server_side, args=(n, client, server), daemon=True).start()

    def _client_side(self, n, client, server):
        pending = b""
        while True:
            try:
                data = client.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            # Log first: a line is in the log before the server can answer it.
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                try:
                    self.write({"c": n, "send": line.decode("utf-8")})
                except UnicodeDecodeError:
                    self.write({"c": n, "send_hex": line.hex()})
            try:
                server.sendall(data)
            except OSError:
                break
        self.write({"c": n, "close": "client"})
        for s in (server, client):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _server_side(self, n, client, server):
        buffer = b""
        skip = 0  # bytes of a binary chunk (and its newline) still to pass
        lines = 0
        changed = []
        greeted = False
        while True:
            try:
                data = server.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            records = []
            buffer += data
            while True:
                if skip:
                    taken = min(skip, len(buffer))
                    buffer = buffer[taken:]
                    skip -= taken
                    if skip:
                        break
                    continue
                if b"\n" not in buffer:
                    break
                raw, buffer = buffer.split(b"\n", 1)
                line = raw.decode("utf-8", "replace")
                if not greeted:
                    greeted = True
                    records.append({"c": n, "greeting": line})
                    continue
                lines += 1
                if line.startswith("binary: "):
                    skip = int(line.split()[1]) + 1
                elif line.startswith("changed: "):
                    changed.append(line[len("changed: "):])
                elif line == "OK" or line.startswith("ACK "):
                    record = {"c": n, "end": line, "lines": lines}
                    if changed:
                        record["changed"] = changed
                    records.append(record)
                    lines, changed = 0, []
            # Log before forwarding, so the log's order is the order the client saw.
            for record in records:
                self.write(record)
            try:
                client.sendall(data)
            except OSError:
                break
        self.write({"c": n, "close": "server"})
        for s in (server, client):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


PLAIN_OK = re.compile(r'^[^"<>!%@#\s][^\x00-\x1f\x7f]*$')


def quote_step(line):
    """A request as a script step: plain when the format sends it unchanged, else a raw string with `\\n`."""
    if PLAIN_OK.match(line) and line == line.strip():
        return line
    out = []
    for ch in line:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7f:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '\\n"'


ID_COMMANDS = re.compile(r'^(playid|deleteid|moveid|swapid|prioid|rangeid|seekid|addtagid|cleartagid)( .*)$')
ID_ARGUMENTS = {"playid": [0], "deleteid": [0], "moveid": [0], "swapid": [0, 1], "prioid": [1, 2, 3, 4, 5],
                "rangeid": [0], "seekid": [0], "addtagid": [0], "cleartagid": [0]}


def ids(line):
    """Song ids as `${id:N}`: a fresh MPD numbers the songs of a recording 1, 2, … in the order the transcript first
    shows them (the queue starts empty), so id K is the script's `${id:K}`, whatever ids the other server gives."""
    m = ID_COMMANDS.match(line)
    if not m:
        return line
    words = re.findall(r'"(?:[^"\\]|\\.)*"|\S+', m.group(2))
    for i in ID_ARGUMENTS[m.group(1)]:
        if i < len(words):
            bare = words[i].strip('"')
            if bare.isdigit():
                words[i] = f'"${{id:{bare}}}"' if words[i].startswith('"') else f"${{id:{bare}}}"
    return m.group(1) + " " + " ".join(words)


PLAYING = {"play", "playid", "next", "previous", "seek", "seekid", "seekcur"}


def convert(records, drop=(), header="", library="standard", freeze=False):
    """With `freeze`, every request that starts playback is sent in a command list with `pause 1` after it: the
    harness's null output plays a 2 s song in no time, so what a later `status` shows would be timing; the
    300 ms after it let the decoder open the song (`audio:`) and the player's idle events come out."""
    frozen_lists = set()
    drops = [re.compile(d) for d in drop]
    steps = []
    idle = {}  # connection -> "sent" (idle outstanding)
    in_list = set()
    idle_sent_at = {}
    requests_since_idle = {}
    dropped = []
    for r in records:
        n = r["c"]
        if "send" in r or "send_hex" in r:
            line = r["send"] if "send" in r else bytes.fromhex(r["send_hex"]).decode("latin-1")
            word = line.strip().split(" ", 1)[0] if line.strip() else ""
            if line == "noidle" or (word == "noidle" and n in idle):
                if idle.get(n) == "sent":
                    steps.append(f"@{n} noidle")
                    del idle[n]
                else:
                    dropped.append(f"@{n} {line}  (after its idle had returned: MPD answers nothing)")
                continue
            if any(d.search(line) for d in drops):
                dropped.append(f"@{n} {line}")
                # Its answer still comes; mark it so the `end` record is not read as an idle's.
                in_list.add(("dropped", n))
                continue
            if word == "idle" and n not in in_list:
                steps.append(f"@{n} > {line}" if PLAIN_OK.match(line) else f"@{n} > {quote_step(line)}")
                idle[n] = "sent"
                requests_since_idle[n] = 0
                idle_sent_at[n] = r["t"]
                continue
            if word in ("command_list_begin", "command_list_ok_begin"):
                in_list.add(n)
            elif word == "command_list_end":
                in_list.discard(n)
            for m in requests_since_idle:
                if m != n:
                    requests_since_idle[m] += 1
            if freeze and word in PLAYING and n not in in_list:
                steps += [f"@{n} command_list_begin", f"@{n} {quote_step(ids(line))}", f"@{n} pause 1",
                          f"@{n} command_list_end", "!sleep 300"]
                continue
            if freeze and word in PLAYING:
                frozen_lists.add(n)
            if freeze and word == "command_list_end" and n in frozen_lists:
                frozen_lists.discard(n)
                steps.append(f"@{n} pause 1")
            steps.append(f"@{n} {quote_step(ids(line))}")
        elif "end" in r:
            if ("dropped", n) in in_list:
                in_list.discard(("dropped", n))
                continue
            if idle.get(n) == "sent":
                del idle[n]
                # At once: events this connection's own commands left pending, which the replay sees too.
                pending = r["t"] - idle_sent_at.get(n, 0) < 0.05
                if requests_since_idle.get(n, 0) == 0 and not pending:
                    # Returned on its own (a song ended, an update finished): timing, not a conversation.
                    # Take back the `> idle` and leave the idle out.
                    for i in range(len(steps) - 1, -1, -1):
                        if steps[i].startswith(f"@{n} > idle"):
                            dropped.append(steps.pop(i) + f"  (returned on its own: {r.get('changed')})")
                            break
                else:
                    steps.append(f"@{n} <")
        elif r.get("close") == "client":
            if idle.get(n) == "sent":
                # The client left while idle: read nothing (the answer never came), just close.
                del idle[n]
            steps.append(f"@{n} !disconnect")
    out = [header.rstrip("\n")] if header else []
    if library:
        out.append(f"%library {library}")
    out += steps
    return "\n".join(out) + "\n", dropped


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="mode", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--upstream", required=True)
    rec.add_argument("--listen", type=int, default=0)
    rec.add_argument("--log", required=True)
    conv = sub.add_parser("convert")
    conv.add_argument("log")
    conv.add_argument("--header", default="")
    conv.add_argument("--drop", action="append", default=[])
    conv.add_argument("--library", default="standard")
    conv.add_argument("--freeze", action="store_true", help="pause right after each request that starts playback")
    args = ap.parse_args()
    if args.mode == "record":
        host, port = args.upstream.rsplit(":", 1)
        proxy = Proxy(int(port), args.log, host, args.listen)
        print(f"listening {proxy.port}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            proxy.stop()
    else:
        records = [json.loads(line) for line in open(args.log, encoding="utf-8") if line.strip()]
        text, dropped = convert(records, args.drop, args.header, args.library, args.freeze)
        sys.stdout.write(text)
        for d in dropped:
            print("dropped:", d, file=sys.stderr)


if __name__ == "__main__":
    main()
