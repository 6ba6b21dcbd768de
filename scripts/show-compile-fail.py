#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""show-compile-fail.py [FILTER]: the compiler's messages for the crate's
`compile_fail` doc examples.

`make host-test` checks that each `compile_fail,E0XXX` example fails with
its error code, but rustdoc does not print the message. This script
builds the host crate (rust/host) as the doctests see it, compiles each
example the way rustdoc does (hidden lines included, wrapped in
`fn main`), and prints what rustc says. FILTER (a substring of
"file: item") picks examples. Run it after `make host-test`, which
installs a cargo if there is none; CARGO, RUSTC and NSTREE_CACHE as for
host-test.sh.
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = os.path.join(REPO, "rust", "host")


def examples():
    """(file, line, code, expected error code, example source)."""
    for path in sorted(glob.glob(os.path.join(REPO, "rust", "**", "*.rs"), recursive=True)):
        if "/host/" in path:
            continue
        lines = open(path).read().split("\n")
        i = 0
        while i < len(lines):
            m = re.match(r"^\s*///\s?```compile_fail(?:,(E\d{4}))?\s*$", lines[i])
            if not m:
                i += 1
                continue
            start, code, body = i + 1, m.group(1), []
            i += 1
            while not re.match(r"^\s*///\s?```\s*$", lines[i]):
                text = re.sub(r"^\s*///\s?", "", lines[i])
                body.append(text[2:] if text.startswith("# ") else ("" if text == "#" else text))
                i += 1
            # The item the example documents: the next non-doc line.
            j = i + 1
            while j < len(lines) and lines[j].strip().startswith(("///", "#[")):
                j += 1
            item = lines[j].strip() if j < len(lines) else ""
            yield os.path.relpath(path, REPO), start, code, item, "\n".join(body)
            i += 1


def build():
    """The --extern and -L arguments of the host library and its deps."""
    cache = os.environ.get("NSTREE_CACHE", os.path.expanduser("~/.cache/nstree-rs"))
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(cache, "host-target"),
               RUSTC_BOOTSTRAP="1")
    cargo = os.environ.get("CARGO", os.path.expanduser("~/.cargo/bin/cargo"))
    if not os.access(cargo, os.X_OK):
        cargo = "cargo"
    out = subprocess.run([cargo, "build", "--locked", "--lib", "--message-format=json"],
                         cwd=HOST, env=env, capture_output=True, text=True)
    if out.returncode:
        sys.exit(out.stderr)
    externs, deps = [], set()
    for line in out.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact":
            continue
        name = msg["target"]["name"]
        for f in msg["filenames"]:
            if f.endswith(".rlib") and name in ("nstree_rs", "kernel"):
                externs += ["--extern", f"{name}={f}"]
            deps.add(os.path.dirname(f))
    rustc = os.environ.get("RUSTC") or os.path.join(os.path.dirname(cargo), "rustc")
    if not os.access(rustc, os.X_OK):
        rustc = "rustc"
    return env, rustc, externs + [a for d in sorted(deps) for a in ("-L", d)]


def main():
    want = sys.argv[1] if len(sys.argv) > 1 else ""
    env, rustc, args = build()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (path, line, code, item, src) in enumerate(examples()):
            if want not in f"{path}: {item}":
                continue
            body = src if "fn main" in src else f"#![allow(unused)]\nfn main() {{\n{src}\n}}\n"
            f = os.path.join(tmp, f"example{n}.rs")
            open(f, "w").write(body)
            r = subprocess.run([rustc, "--edition", "2021", "--crate-type", "bin",
                                "--emit", "metadata", "-o", os.path.join(tmp, f"out{n}"),
                                f] + args, env=env, capture_output=True, text=True)
            got = sorted(set(re.findall(r"^error\[(E\d{4})\]", r.stderr, re.M)))
            verdict = "as expected" if r.returncode and (not code or code in got) else "UNEXPECTED"
            bad += verdict != "as expected"
            print(f"=== {path}:{line}: {item}")
            print(f"=== expects {code or 'an error'}, got {', '.join(got) or 'none'}: {verdict}")
            msg = r.stderr.replace(f + ":", f"<{path} example>:")
            msg = re.sub(r"\S*/out/kernel_crate\.rs", "$OUT_DIR/kernel_crate.rs", msg)
            print(msg.rstrip())
            print()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
