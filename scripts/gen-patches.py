#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerate patches/ from rust/ and c-glue/ against the pristine tree.

The series is described in c-glue/series, one stanza per patch:

    patch: 0001-short-name
    subject: subsystem: summary line
    body: c-glue/messages/0001-short-name.txt
    file: <repo path> <tree path> [drop=REGEX]
                                       (copied into the tree, repeatable)
    edit: c-glue/edits/<name>.diff     (git apply'd in the tree, repeatable)
    allow: <tree path> LINT[,LINT]     (a crate-level #![allow()] for this
                                        patch only)

A file is copied as it is in the repository, which holds its final form.
An earlier patch of the series can take an earlier form of it: drop=
removes the lines that match REGEX (a Python regex) together with the
outer attribute lines right above each, and, where a removed line opens
a brace it does not close, the following lines up to the one that
closes it. That is how the crate root and the module files of the
series' intermediate patches declare only the modules those patches
add. allow: inserts, after the crate's leading //! documentation,
"#![allow(LINT)]": items that an intermediate patch adds before all of
their users.

Each stanza becomes one commit in the work tree on top of "base"; the
commits are written out with git format-patch.  Author and dates are
fixed, so regenerating an unchanged series with the same git gives
byte-identical patches (the signature is git's version).
"""

import os
import re
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


def drop_lines(text, regex):
    """text without the lines matching regex (see the module doc)."""
    pat = re.compile(regex)
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not pat.search(line):
            out.append(line)
            i += 1
            continue
        while out and out[-1].lstrip().startswith("#[") and not out[-1].lstrip().startswith("#!["):
            out.pop()
        depth = line.count("{") - line.count("}")
        i += 1
        while depth > 0 and i < len(lines):
            depth += lines[i].count("{") - lines[i].count("}")
            i += 1
    return "\n".join(out)


def insert_allow(path, lints):
    """Insert #![allow(lints)] after the leading //! comment of path."""
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines) and (lines[i].startswith("//") or not lines[i].strip()):
        i += 1
    while i > 0 and not lines[i - 1].startswith("//!"):
        i -= 1
    add = ["", "// Items this patch adds before all of their users, which the",
           "// next patches of the series add.",
           f"#![allow({lints})]"]
    lines[i:i] = add
    open(path, "w").write("\n".join(lines))


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
            cur = {"patch": val, "file": [], "edit": [], "allow": []}
        elif key in ("file", "edit", "allow"):
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
            src, dst, *opts = spec.split(None, 2)
            dst_path = os.path.join(WORK, dst)
            os.makedirs(os.path.dirname(dst_path), exist_ok=True)
            text = open(os.path.join(REPO, src)).read()
            for opt in opts:
                if not opt.startswith("drop="):
                    sys.exit(f"unknown file option {opt!r} in {st['patch']}")
                text = drop_lines(text, opt[len("drop="):])
            with open(dst_path, "w") as f:
                f.write(text)
        for diff in st["edit"]:
            git("apply", "--whitespace=error-all", os.path.join(REPO, diff))
        for spec in st["allow"]:
            dst, lints = spec.split()
            insert_allow(os.path.join(WORK, dst), lints)
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
