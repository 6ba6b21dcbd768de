#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shell-session.py --name NAME --script FILE [--log FILE] [--tap FILE] -- QEMU...:
a scripted `make shell` session.

Starts QEMU (the command after --, as scripts/shell.sh builds it for an
interactive shell) with the serial console on pipes, waits for the guest
shell (NSTREE-SHELL-READY, then the prompt), and types the commands of
FILE one at a time, as a user at the console would: one command per
line; blank lines and lines starting with '#' are skipped; a line
starting with '!' is a command expected to fail (non-zero exit).  After
each command it types `echo "@@rc=$?"` and reads the status.  Finally it
types `exit`, and the guest powers off (NSTREE-DONE).

Prints the transcript (as the console shows it, kernel messages
included) and one TAP line per command; exits 0 if every command had the
expected status, the guest finished, and the console shows no WARNING,
BUG or Oops.  The whole console goes to --log, the TAP alone to --tap
too (for scripts/report.py).
"""

import argparse
import os
import re
import select
import subprocess
import sys
import time

BOOT_TIMEOUT = int(os.environ.get("NSTREE_SHELL_BOOT_TIMEOUT", "300"))
CMD_TIMEOUT = int(os.environ.get("NSTREE_SHELL_CMD_TIMEOUT", "120"))
RC = re.compile(rb"^@@rc=(\d+)\r?$", re.M)
# Kernel reports, at the start of a console line (a typed command that
# names them is echoed after the prompt, not at the start).
BAD = re.compile(rb"^(?:\[\s*[\d.]+\]\s*)?(WARNING: CPU|BUG: |Oops|Kernel panic|"
                 rb"-+\[ cut here \]-+)", re.M)
# Terminal queries the guest shell sends (busybox ash asks for the cursor
# position, ESC [ 6 n): not part of the transcript.
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


class Console:
    def __init__(self, argv, log):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT)
        self.buf = b""
        self.log = log
        self.seen = 0

    def wait(self, pattern, timeout):
        """Reads until `pattern` matches after the last match; the match."""
        deadline = time.time() + timeout
        while True:
            m = pattern.search(self.buf, self.seen)
            if m:
                self.seen = m.end()
                return m
            left = deadline - time.time()
            if left <= 0 or self.p.poll() is not None and not self._read(0):
                return None
            self._read(min(left, 1.0))

    def _read(self, timeout):
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not r:
            return False
        data = os.read(self.p.stdout.fileno(), 65536)
        if not data:
            return False
        self.buf += data
        self.log.write(data)
        self.log.flush()
        return True

    def type(self, line):
        self.p.stdin.write(line.encode() + b"\n")
        self.p.stdin.flush()


def commands(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.startswith("!"):
                yield line[1:].strip(), False
            else:
                yield line, True


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--name", required=True)
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", default=os.devnull)
    ap.add_argument("--tap")
    ap.add_argument("qemu", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    argv = a.qemu[1:] if a.qemu[:1] == ["--"] else a.qemu
    cmds = list(commands(a.script))
    results = []
    start = time.time()
    with open(a.log, "wb") as log:
        con = Console(argv, log)
        ready = con.wait(re.compile(rb"NSTREE-SHELL-READY"), BOOT_TIMEOUT)
        booted = time.time() - start
        if not ready and con.p.poll() is None:
            # Where the guest is stuck, for the log: QEMU's monitor, which
            # -nographic multiplexes on the console (Ctrl-A c).
            con.p.stdin.write(b"\x01c")
            con.type("info cpus")
            con.type("info registers -a")
            con.wait(re.compile(rb"(?s)CPU#\d+.*\(qemu\) $"), 10)
            con.type("quit")
        if ready:
            for cmd, want_ok in cmds:
                before = con.seen
                con.type(cmd)
                con.type('echo "@@rc=$?"')
                m = con.wait(RC, CMD_TIMEOUT)
                if not m:
                    results.append((cmd, want_ok, None))
                    break
                rc = int(m.group(1))
                results.append((cmd, want_ok, rc))
            con.type("exit")
        done = con.wait(re.compile(rb"NSTREE-DONE"), 60 if ready else 1)
        try:
            con.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            con.p.kill()
        text = con.buf
    sys.stdout.write(ANSI.sub(b"", text).decode("utf-8", "replace").replace("\r\n", "\n"))
    print()
    n = len(cmds) + 2
    tap = []
    emit = tap.append
    emit("TAP version 13")
    emit(f"1..{n}")
    fails = 0
    k = 1
    ok = bool(ready)
    emit(f"{'ok' if ok else 'not ok'} {k} shell: {a.name} booted to the prompt"
          f" in {booted:.0f}s" if ready else f"not ok {k} shell: no prompt within {BOOT_TIMEOUT}s")
    fails += not ok
    for i, (cmd, want_ok) in enumerate(cmds):
        k += 1
        r = results[i] if i < len(results) else None
        if r is None or r[2] is None:
            emit(f"not ok {k} shell: {cmd} # no exit status")
            fails += 1
            continue
        rc = r[2]
        good = (rc == 0) == want_ok
        fails += not good
        want = "succeeds" if want_ok else "fails"
        emit(f"{'ok' if good else 'not ok'} {k} shell: {cmd} ({want}; exit status {rc})")
    k += 1
    bad = BAD.findall(text)
    good = done is not None and not bad
    fails += not good
    why = "no NSTREE-DONE" if done is None else (f"console has {bad[0].decode()}" if bad else "")
    emit(f"{'ok' if good else 'not ok'} {k} shell: exit powers off, console clean"
          + (f" # {why}" if why else ""))
    emit(f"# shell session {a.name}: {n - fails} passed, {fails} failed, in {time.time() - start:.0f}s")
    sys.stdout.write("\n".join(tap) + "\n")
    if a.tap:
        with open(a.tap, "w", encoding="utf-8") as f:
            f.write("\n".join(tap) + "\n")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
