"""Shell start-up of two builds of warden, paired: the sandbox launcher of each
(`warden __sandbox-exec`, the spec of `host/benches/shell.rs`: `sh -c true`, a 50-directory
workspace, `.env` hidden, `.git`/`.warden` read-only) run alternately, the order swapped every
pair, so that a machine's changing load falls on both alike. Prints each build's median and
the ratio.

    python3 bench/shell-paired/paired_launcher.py BASE_WARDEN NEW_WARDEN [PAIRS]

Copy both binaries to one place first (`/tmp`): a binary run from `target/` measured slower
than the same one copied (docs/benchmarks.md).
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def workspace(root):
    os.makedirs(os.path.join(root, ".git/hooks"))
    with open(os.path.join(root, ".git/config"), "w") as f:
        f.write("[core]\n")
    with open(os.path.join(root, ".env"), "w") as f:
        f.write("T=1\n")
    for i in range(50):
        os.makedirs(os.path.join(root, f"src/m{i}"))
        with open(os.path.join(root, f"src/m{i}/lib.rs"), "w") as f:
            f.write("fn main() {}\n")


def main():
    base, new = sys.argv[1], sys.argv[2]
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as tmp:
        root = os.path.realpath(root)
        workspace(root)
        spec = {
            "command": "true",
            "cwd": root,
            "roots": [root],
            "tmp": tmp,
            "hide": [root + "/.env"],
            "read_only": [root + "/.git", root + "/.warden"],
            "network": False,
            "env": [["PATH", "/usr/bin:/bin"]],
        }
        data = json.dumps(spec).encode()
        builds = {"base": base, "new": new}
        times = {k: [] for k in builds}
        for i in range(pairs):
            for k in ("base", "new") if i % 2 == 0 else ("new", "base"):
                start = time.perf_counter()
                done = subprocess.run(
                    [builds[k], "__sandbox-exec"], input=data, capture_output=True, timeout=60
                )
                times[k].append(time.perf_counter() - start)
                if done.returncode != 0:
                    sys.exit(f"{k}: exit {done.returncode}: {done.stderr.decode(errors='replace')}")
    m = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    print(
        f"pairs {pairs}: base median {m['base']:.2f} ms, new median {m['new']:.2f} ms, "
        f"ratio {m['new'] / m['base']:.3f}; load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
