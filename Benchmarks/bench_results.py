"""The rows of one `make bench` run, collected for one summary at its end.

Each side-by-side benchmark calls `record` for every row it prints as a ratio NoSignal/MPD. With the environment
variable NOSIGNAL_BENCH_RESULTS naming a file, the rows are appended to it as JSON lines (benchmark, row, MPD's value,
NoSignal's, unit); without it `record` does nothing. `Benchmarks/summary.py` reads such files back.
"""
import json
import os
import shutil
import subprocess
import tempfile


def record(bench, row, mpd, nosignal, unit=""):
    path = os.environ.get("NOSIGNAL_BENCH_RESULTS")
    if not path or not isinstance(mpd, (int, float)) or not isinstance(nosignal, (int, float)):
        return
    with open(path, "a") as f:
        f.write(json.dumps({"bench": bench, "row": row, "mpd": mpd, "nosignal": nosignal, "unit": unit}) + "\n")


def load(path):
    """{(bench, row): (mpd, nosignal, unit)} of a results file (a row recorded twice: its last value)."""
    rows = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                entry = json.loads(line)
                rows[(entry["bench"], entry["row"])] = (entry["mpd"], entry["nosignal"], entry["unit"])
    return rows


def compiled(source, *flags):
    """Compiles the C program `source` (a file beside this one) with `cc -O2` and `flags` into a temporary
    directory; returns the executable's path."""
    here = os.path.dirname(os.path.abspath(__file__))
    compiler = next((c for c in ("cc", "gcc", "clang", "/opt/swift/usr/bin/clang") if shutil.which(c)), None)
    if compiler is None:
        raise RuntimeError(f"no C compiler (cc, gcc or clang) for {source}")
    binary = os.path.join(tempfile.mkdtemp(prefix="bench-c-"), os.path.splitext(source)[0])
    subprocess.run([compiler, "-O2", *flags, "-o", binary, os.path.join(here, source)], check=True)
    return binary
