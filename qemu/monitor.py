#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""monitor.py SOCKET COMMAND...: one human monitor command to a QEMU
started with -monitor unix:SOCKET,server,nowait; prints its answer."""
import re
import socket
import sys
import time


def main():
    sock, cmds = sys.argv[1], sys.argv[2:]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sock)
    out = b""
    for cmd in cmds:
        s.sendall(cmd.encode() + b"\n")
        end = time.time() + 5
        while time.time() < end:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            out += chunk
            # The prompt after the answer.
            if out.rstrip().endswith(b"(qemu)") and out.count(b"(qemu)") > cmds.index(cmd) + 1:
                break
    s.close()
    # The monitor echoes each key with terminal escapes: only the text.
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", out.decode(errors="replace"))
    lines = text.replace("\r", "").split("\n")
    for i, line in enumerate(lines):
        for cmd in cmds:
            if line.startswith("(qemu) ") and line.endswith(cmd):
                lines[i] = "(qemu) " + cmd
    text = "\n".join(lines)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
