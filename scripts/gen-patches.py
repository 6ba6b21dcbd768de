#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerate patches/ from rust/ and c-glue/ against the pristine tree.

Three series, each described by a file of stanzas, one per patch:

  c-glue/series            -> patches/          (the Rust namespace tree)
  c-glue/series-selftests  -> patches/selftests/ (an independent fix of
                                                  an upstream selftest)
  c-glue/series-fixes      -> patches/fixes/     (independent fixes of
                                                  upstream kernel bugs, which
                                                  both kernels carry)

A series file starts with a cover letter and its patches follow:

    cover-subject: summary line of the series
    cover-body: c-glue/messages/cover-letter.txt

    patch: 0001-short-name
    subject: subsystem: summary line
    body: c-glue/messages/0001-short-name.txt
    file: <repo path> <tree path> [drop=REGEX]   (copied into the tree)
    edit: c-glue/edits/<name>.diff               (git apply'd in the tree)
    expect: <tree path> <REGEX> <reason>         (per item, this patch only)
    expect-mod: <tree path> <reason>             (per module, this patch only)

A file is copied as it is in the repository, which holds its final form.
An earlier patch of the series can take an earlier form of it: drop=
removes the lines that match REGEX (a Python regex) together with the
outer attribute lines right above each, and, where a removed line opens
a brace or a parenthesis it does not close, the following lines up to
the one that closes it.  That is how the crate root and the module files
of the series' intermediate patches declare only the modules those
patches add.  expect: puts `#[expect(dead_code, reason = "...")]` above
the lines that match REGEX, and expect-mod: `#![expect(dead_code, ...)]`
after the file's leading //! documentation: items that a patch adds
before their first user, in the next patches, say so item by item (or
module by module, where a whole module waits for its user), and the
compiler checks the claim (an unfulfilled expectation is a warning).

Each stanza becomes one commit in the work tree on top of "base"; the
commits are written out with git format-patch, numbered, with the cover
letter and the base commit.  The author and the Signed-off-by are the git
identity of whoever runs this (user.name and user.email of this
repository's git configuration); without one it stops.  Dates are fixed,
so regenerating an unchanged series with the same git and identity gives
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
PRISTINE = os.environ.get("PRISTINE", "")
DATE = "2026-12-01T00:00:00+0000"
SERIES = [("c-glue/series", "patches"), ("c-glue/series-selftests", "patches/selftests"),
          ("c-glue/series-fixes", "patches/fixes")]


def identity():
    """The git identity of the person running this, or exit."""
    who = []
    for key in ("user.name", "user.email"):
        p = subprocess.run(["git", "-C", REPO, "config", key], capture_output=True, text=True)
        who.append(p.stdout.strip())
    if not all(who):
        sys.exit("gen-patches: no git identity: set `git config user.name` and "
                 "`git config user.email` (the author and Signed-off-by of the patches "
                 "are yours; no placeholder is written)")
    return who


NAME, EMAIL = None, None


def git(*args, **kw):
    env = dict(os.environ, GIT_AUTHOR_DATE=DATE, GIT_COMMITTER_DATE=DATE,
               GIT_AUTHOR_NAME=NAME, GIT_AUTHOR_EMAIL=EMAIL,
               GIT_COMMITTER_NAME=NAME, GIT_COMMITTER_EMAIL=EMAIL)
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
        depth = line.count("{") - line.count("}") + line.count("(") - line.count(")")
        i += 1
        while depth > 0 and i < len(lines):
            depth += (lines[i].count("{") - lines[i].count("}")
                      + lines[i].count("(") - lines[i].count(")"))
            i += 1
        # No two blank lines where the dropped ones were.
        if out and not out[-1].strip() and i < len(lines) and not lines[i].strip():
            i += 1
    return "\n".join(out)


def inner_attr_at(lines):
    """Where a crate or module file's inner attribute goes: after its
    leading // and //! comments."""
    i = 0
    while i < len(lines) and (lines[i].startswith("//") or not lines[i].strip()):
        i += 1
    while i > 0 and not lines[i - 1].startswith("//"):
        i -= 1
    return i


def insert_expect_mod(path, reason):
    lines = open(path).read().split("\n")
    i = inner_attr_at(lines)
    lines[i:i] = ["", f'#![expect(dead_code, reason = "{reason}")]']
    # No blank line between it and the file's own inner attributes, as
    # rustfmt writes them.
    j = i + 2
    if j + 1 < len(lines) and not lines[j].strip() and lines[j + 1].startswith("#!["):
        del lines[j]
    open(path, "w").write("\n".join(lines))


def insert_expect(path, regex, reason):
    pat = re.compile(regex)
    lines = open(path).read().split("\n")
    out, n = [], 0
    for line in lines:
        if pat.search(line):
            indent = line[:len(line) - len(line.lstrip())]
            # Above the item's attributes and doc comment.
            j = len(out)
            while j > 0 and out[j - 1].strip().startswith(("#[", "///")):
                j -= 1
            out.insert(j, f'{indent}#[expect(dead_code, reason = "{reason}")]')
            n += 1
        out.append(line)
    if not n:
        sys.exit(f"gen-patches: expect: {regex!r} matches nothing in {path}")
    open(path, "w").write("\n".join(out))


def stanzas(path):
    cover, cur = {}, None
    for raw in open(path):
        line = raw.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        key, _, val = line.partition(":")
        key, val = key.strip(), val.strip()
        if key == "patch":
            if cur:
                yield cur
            cur = {"patch": val, "file": [], "edit": [], "expect": [], "expect-mod": []}
        elif cur is None:
            cover[key] = val
        elif key in ("file", "edit", "expect", "expect-mod"):
            cur[key].append(val)
        else:
            cur[key] = val
    if cur:
        yield cur
    yield {"cover": cover}


def generate(series, outdir):
    git("checkout", "-q", "--detach", "base")
    git("reset", "-q", "--hard", "base")
    git("clean", "-qfdx", "-e", "/.build-*")
    cover = {}
    for st in stanzas(os.path.join(REPO, series)):
        if "cover" in st:
            cover = st["cover"]
            continue
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
            # @IDENTITY@ (the MAINTAINERS entry) is whoever runs this.
            text = open(os.path.join(REPO, diff)).read().replace("@IDENTITY@", f"{NAME} <{EMAIL}>")
            git("apply", "--whitespace=error-all", "-", input=text.encode())
        for spec in st["expect-mod"]:
            dst, reason = spec.split(None, 1)
            insert_expect_mod(os.path.join(WORK, dst), reason)
        for spec in st["expect"]:
            dst, regex, reason = spec.split(None, 2)
            insert_expect(os.path.join(WORK, dst), regex, reason)
        git("add", "-A", "-f")
        body = open(os.path.join(REPO, st["body"])).read().strip()
        # A body that ends with trailers (Fixes:, Cc:) gets the Signed-off-by in
        # the same block.
        last = body.split("\n\n")[-1].split("\n")
        sep = "\n" if all(re.match(r"[A-Z][A-Za-z-]*: ", l) for l in last) else "\n\n"
        msg = f"{st['subject']}\n\n{body}{sep}Signed-off-by: {NAME} <{EMAIL}>\n"
        git("commit", "-q", "--allow-empty", "-F", "-", input=msg.encode())
    out = os.path.join(REPO, outdir)
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if f.endswith(".patch"):
            os.unlink(os.path.join(out, f))
    # No base-commit trailer: the base is a local commit of Debian's tree,
    # which the cover letter names in words instead.  The default
    # signature, the git version, as format-patch writes it.
    git("format-patch", "-q", "--zero-commit", "--numbered", "--cover-letter",
        "-o", out, "base..HEAD")
    fill_cover(os.path.join(out, "0000-cover-letter.patch"), cover)
    subprocess.run(["git", "-C", WORK, "log", "--oneline", "base..HEAD"], check=True)
    git("checkout", "-q", "--detach", "base")


def fill_cover(path, cover):
    """The cover letter: its subject and body from the series file, the base
    as Debian names it, in place of git's *** placeholders."""
    text = open(path).read()
    body = open(os.path.join(REPO, cover["cover-body"])).read().strip()
    version = ""
    stamp = os.path.join(PRISTINE, ".nstree-rs-version")
    if os.path.exists(stamp):
        version = open(stamp).read().strip()
    # "linux-source-7.3 7.3.4-1~bpo13+1 (Linux 7.3.4)" becomes
    # "Linux 7.3.4 (Debian linux-source-7.3 7.3.4-1~bpo13+1)".
    m = re.match(r"(\S+) (\S+) \((Linux [^)]+)\)$", version)
    if m:
        version = f"{m.group(3)} (Debian {m.group(1)} {m.group(2)})"
    body = body.replace("@BASE@", version or "the kernel tree the series was generated on")
    # The results of the last full run, with its commit (written from the
    # run's report; docs/results.md has the tables).
    res = os.path.join(REPO, "c-glue", "messages", "cover-results.txt")
    if "@RESULTS@" in body:
        body = body.replace("@RESULTS@", open(res).read().strip() if os.path.exists(res)
                            else "(no results recorded)")
    # The builds of make check-toolchains, as it wrote them.
    tc = os.path.join(REPO, "c-glue", "messages", "cover-toolchains.txt")
    if "@TOOLCHAINS@" in body:
        body = body.replace("@TOOLCHAINS@", open(tc).read().strip() if os.path.exists(tc)
                            else "(no builds recorded)")
    text = text.replace("*** SUBJECT HERE ***", cover["cover-subject"])
    text = text.replace("*** BLURB HERE ***", body)
    open(path, "w").write(text)


def main():
    global NAME, EMAIL
    NAME, EMAIL = identity()
    for series, outdir in SERIES:
        generate(series, outdir)


if __name__ == "__main__":
    sys.exit(main())
