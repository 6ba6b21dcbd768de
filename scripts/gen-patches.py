#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerate patches/ from rust/ and c-glue/ against the pristine tree.

The series is described in c-glue/series, one stanza per patch:

    patch: 0001-short-name
    subject: subsystem: summary line
    body: c-glue/messages/0001-short-name.txt
    file: <repo path> <tree path>      (copied into the tree, repeatable)
    edit: c-glue/edits/<name>.diff     (git apply'd in the tree, repeatable)

Each stanza becomes one commit in the work tree on top of "base"; the
commits are written out with git format-patch.  Author and dates are
fixed, so regenerating an unchanged series with the same git gives
byte-identical patches (the signature is git's version).
"""

import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ["NSTREE_CACHE"]
WORK = os.path.join(CACHE, "trees", "work")
AUTHOR = "nstree-rs developers <nstree-rs@localhost>"
DATE = "2026-12-01T00:00:00+0000"


def git(*args, **kw):
    env = dict(os.environ, GIT_AUTHOR_DATE=DATE, GIT_COMMITTER_DATE=DATE,
               GIT_AUTHOR_NAME="nstree-rs developers", GIT_AUTHOR_EMAIL="nstree-rs@localhost",
               GIT_COMMITTER_NAME="nstree-rs developers", GIT_COMMITTER_EMAIL="nstree-rs@localhost")
    return subprocess.run(["git", "-C", WORK, *args], check=True, env=env, **kw)


def stanzas(path):
    cur = None
    for raw in open(path):
        line = raw.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        key, _, val = line.partition(":")
        key, val = key.strip(), val.strip()
        if key == "patch":
            if cur:
                yield cur
            cur = {"patch": val, "file": [], "edit": []}
        elif key in ("file", "edit"):
            cur[key].append(val)
        else:
            cur[key] = val
    if cur:
        yield cur


def main():
    git("checkout", "-q", "--detach", "base")
    git("reset", "-q", "--hard", "base")
    git("clean", "-qfdx", "-e", "/.build-*")
    for st in stanzas(os.path.join(REPO, "c-glue", "series")):
        for spec in st["file"]:
            src, dst = spec.split()
            dst_path = os.path.join(WORK, dst)
            os.makedirs(os.path.dirname(dst_path), exist_ok=True)
            shutil.copyfile(os.path.join(REPO, src), dst_path)
        for diff in st["edit"]:
            git("apply", "--whitespace=error-all", os.path.join(REPO, diff))
        git("add", "-A", "-f")
        body = open(os.path.join(REPO, st["body"])).read().strip()
        msg = f"{st['subject']}\n\n{body}\n\nSigned-off-by: {AUTHOR}\n"
        git("commit", "-q", "--allow-empty", "-F", "-", input=msg.encode())
    out = os.path.join(REPO, "patches")
    for f in os.listdir(out):
        if f.endswith(".patch"):
            os.unlink(os.path.join(out, f))
    # The default signature, the git version, as format-patch writes it.
    git("format-patch", "-q", "--zero-commit", "--no-numbered",
        "-o", out, "base..HEAD")
    subprocess.run(["git", "-C", WORK, "log", "--oneline", "base..HEAD"], check=True)
    git("checkout", "-q", "--detach", "base")


if __name__ == "__main__":
    sys.exit(main())
