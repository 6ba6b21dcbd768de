#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-excerpts.py [--linux DIR] [--linux-old DIR] FILE.md...: every code
excerpt in the documentation still says what the file it quotes says.

Every ```rust, ```c and ```diff block of FILE.md is an excerpt and names
its source on its first line:

    // rust/cascade.rs                     a file of this repository
    // c-glue/rust/kernel/sync/seqlock.rs (doc example)
                                           that file's doc comments, as
                                           rustdoc renders them (without
                                           the hidden "# " lines)
    /* linux-7.3/kernel/nstree.c, do_listns() (abridged) */
                                           a file of the base kernel tree
                                           (--linux), or of the previous
                                           one, linux-7.2 (--linux-old)

A ```diff block names its two sides on its --- and +++ lines instead.

The lines of an excerpt must appear in its source, in order and
contiguous, each with the same indentation relative to the first (an
excerpt may be dedented as a whole). An excerpt that leaves lines out
says "abridged" in its header and marks each gap with a line of its own:
"...", "// ...", "/* ... */" (or "@@ ... @@" in a diff); an unabridged
excerpt has no gap. Diff sides: the context and "-" lines must be in the
old file, the context and "+" lines in the new one.

A ```text block that quotes a compiler error ("error[E0505]: ...") right
after a doc example excerpt must name the error code that the example's
`compile_fail,E0505` fence expects; right after an excerpt of a
compile-fail proof (c-glue/rust/kernel/compile-fail/*.rs), the code that
the proof's first line names ("// E0505: why").

Sources outside the repository that are not there (no kernel tree yet)
are reported as skipped, not as passed.

Then the facts the prose states about the repository, where drift has
happened before (see facts()): every relative link and every `c-glue/`
path names a file or directory that exists; every file of the crate's C
side (c-glue/kernel/nstree_rs/, c-glue/rust/helpers/) is named in the
documentation; "N loom scenarios" (quick, long or all), "N patches" and
"N KUnit suites" agree with rust/host/tests/loom_cascade.rs, c-glue/series
and rust/kunit.rs; every "rustc 1.NN" is the rustc scripts/env.sh builds
the kernel with; "each ... has a twin" is only said if every
compile_fail example has one; "every interleaving" is only said with its
qualification (quick, exhaustive, bound or preemption in the same
sentence). The counts apply to README.md and the walkthrough, not to the
measured reports (results.md, bench.md, torture.md), which record a run.

Prints one line per finding and a summary; exits 1 on findings.
"""

import argparse
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
HEADER = re.compile(r"^\s*(?://|/\*|#)\s*(?P<path>[\w./+-]+)(?P<rest>.*?)\s*(?:\*/)?\s*$")
ELISION = re.compile(r"^\s*(\.\.\.|// \.\.\.|/\* \.\.\. \*/|@@.*@@.*|@@)\s*$")
CODE = re.compile(r"\berror\[(E\d{4})\]")
PROOFS = "c-glue/rust/kernel/compile-fail/"


class Sources:
    def __init__(self, linux, linux_old):
        self.roots = {"linux-7.3": linux, "linux-7.2": linux_old}
        self.cache = {}

    def resolve(self, path):
        """(filesystem path or None if unavailable, is_external)."""
        top, _, rest = path.partition("/")
        if top in self.roots:
            root = self.roots[top]
            if not root or not os.path.isdir(root):
                return None, True
            return os.path.join(root, rest), True
        return os.path.join(REPO, path), False

    def lines(self, fs_path):
        if fs_path not in self.cache:
            with open(fs_path, encoding="utf-8", errors="replace") as f:
                self.cache[fs_path] = f.read().split("\n")
        return self.cache[fs_path]


def doc_lines(lines):
    """A Rust file's doc comments as rendered: [(text, fence_info)], with
    the hidden lines of Rust code blocks left out and a None separator
    between doc comments."""
    out = []
    fence = None
    prev_doc = False
    for line in lines:
        m = re.match(r"^\s*//[/!](?: ?)(.*)$", line)
        if not m or line.strip().startswith("////"):
            if prev_doc:
                out.append((None, None))
            prev_doc = False
            fence = None
            continue
        prev_doc = True
        text = m.group(1)
        f = FENCE.match(text)
        if f:
            fence = None if fence is not None else f.group(2)
            out.append((text, None))
            continue
        rust = fence is not None and (fence == "" or "rust" in fence or "compile_fail" in fence
                                      or "no_run" in fence or "ignore" in fence)
        if rust and (text == "#" or text.startswith("# ")):
            continue
        out.append((text, fence))
    return out


def split_chunks(body):
    chunks, cur, gaps = [], [], 0
    for line in body:
        if ELISION.match(line):
            gaps += 1
            if cur:
                chunks.append(cur)
            cur = []
        else:
            cur.append(line)
    if cur:
        chunks.append(cur)
    return chunks, gaps


def match_chunk(chunk, src, start):
    """The index after the first place at or after `start` where `chunk`
    matches `src` with one indentation offset, or None."""
    first = next((k for k, l in enumerate(chunk) if l.strip()), None)
    if first is None:
        return start
    lead = len(chunk[first]) - len(chunk[first].lstrip())
    want = chunk[first].strip()
    for i in range(start, len(src) - len(chunk) + 1):
        s = src[i + first]
        if s is None or s.strip() != want:
            continue
        indent = (len(s) - len(s.lstrip())) - lead
        ok = True
        for k, l in enumerate(chunk):
            t = src[i + k]
            if t is None:
                ok = False
                break
            if not l.strip():
                if t.strip():
                    ok = False
                    break
                continue
            li = len(l) - len(l.lstrip())
            ti = len(t) - len(t.lstrip())
            if t.strip() != l.strip() or ti - li != indent:
                ok = False
                break
        if ok:
            return i + len(chunk)
    return None


def closest(chunk, src, start):
    """Where `chunk` best matches `src` from `start`: (excerpt line, file
    line) of the first difference after the longest matching run, or
    None if not even one line matches."""
    best = None
    for i in range(start, len(src)):
        k = 0
        while k < len(chunk) and i + k < len(src) and src[i + k] is not None \
                and src[i + k].strip() == chunk[k].strip():
            k += 1
        if k and (best is None or k > best[0]):
            best = (k, i)
    if best is None or best[0] == len(chunk):
        return None
    k, i = best
    return chunk[k], (src[i + k] if i + k < len(src) else None)


def check_against(body, src, abridged):
    """None if `body` is an excerpt of `src`, else a reason."""
    chunks, gaps = split_chunks(body)
    if gaps and not abridged:
        return "has gaps (\"...\") but its header does not say \"abridged\""
    pos = 0
    for n, chunk in enumerate(chunks):
        nxt = match_chunk(chunk, src, pos)
        if nxt is None:
            part = f"part {n + 1} of {len(chunks)}" if len(chunks) > 1 else "it"
            near = closest(chunk, src, pos)
            if near:
                want, have = near
                return (f"differs from the file: {part} has {want.strip()!r} where the "
                        f"file has {(have or '').strip()!r}")
            line = next((l for l in chunk if l.strip()), "")
            return f"is not in the file: {part} starts with {line.strip()!r}"
        pos = nxt
    return None


def doc_fence_code(body, docs):
    """The error code that the doc example quoted by `body` expects."""
    chunks, _ = split_chunks(body)
    src = [t for t, _ in docs]
    pos = match_chunk(chunks[0], src, 0) if chunks else None
    if pos is None:
        return None
    info = docs[pos - 1][1] or ""
    m = re.search(r"compile_fail,(E\d{4})", info)
    return m.group(1) if m else None


NUMBERS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}


def number(word):
    word = word.lower()
    if word.isdigit():
        return int(word)
    return NUMBERS.get(word)


def repo_facts():
    """What the prose may claim, computed from the repository."""
    f = {}
    loom = open(os.path.join(REPO, "rust/host/tests/loom_cascade.rs"), encoding="utf-8").read()
    tests = re.findall(r"#\[test\]\n(#\[ignore[^\n]*\]\n)?fn (\w+)\(\)\s*\{\s*static SC", loom)
    f["loom"] = len(tests)
    f["loom long"] = sum(1 for ign, _ in tests if ign)
    f["loom quick"] = f["loom"] - f["loom long"]
    series = open(os.path.join(REPO, "c-glue/series"), encoding="utf-8").read()
    f["patches"] = len(re.findall(r"^patch: ", series, re.M))
    kunit = open(os.path.join(REPO, "rust/kunit.rs"), encoding="utf-8").read()
    f["kunit suites"] = len(re.findall(r"#\[kunit_tests\(", kunit))
    env = open(os.path.join(REPO, "scripts/env.sh"), encoding="utf-8").read()
    m = re.search(r"rustc-web (1\.\d+)", env)
    f["rustc"] = m.group(1) if m else None
    # compile_fail examples and whether their doc comment has another example
    twins = []
    for root, _, names in os.walk(os.path.join(REPO, "rust")):
        if "/host" in root:
            continue
        for n in names:
            if not n.endswith(".rs"):
                continue
            docs = doc_lines(open(os.path.join(root, n), encoding="utf-8").read().split("\n"))
            block = []
            for text, _ in docs + [(None, None)]:
                if text is None:
                    fences = [t.strip()[3:] for t in block if t.strip().startswith("```") and
                              t.strip() != "```"]
                    fails = [x for x in fences if x.startswith("compile_fail")]
                    others = [x for x in fences if not x.startswith(("compile_fail", "text"))]
                    twins += [bool(others)] * len(fails)
                    block = []
                else:
                    block.append(text)
    f["twins"] = twins
    return f


def facts(md_files):
    """Findings about what the prose claims (see the module doc)."""
    out = []
    f = repo_facts()
    kinds = {None: "loom", "quick": "loom quick", "long": "loom long"}
    mentioned = ""
    for md in md_files:
        rel = os.path.relpath(md, REPO)
        text = open(md, encoding="utf-8").read()
        mentioned += text
        base = os.path.dirname(md)
        record = os.path.basename(md) in ("results.md", "bench.md", "torture.md")
        for n, line in enumerate(text.split("\n"), 1):
            where = f"{rel}:{n}"
            for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", line):
                if re.match(r"^[a-z]+:", target):
                    continue
                if not os.path.exists(os.path.normpath(os.path.join(base, target))):
                    out.append(f"{where}: links {target}, which does not exist")
            for path in re.findall(r"`(c-glue/[\w./+-]*)`", line):
                if "*" not in path and not os.path.exists(os.path.join(REPO, path)):
                    out.append(f"{where}: names {path}, which does not exist")
            for v in re.findall(r"\brustc(?:-web)? (1\.\d+)\b", line):
                if f["rustc"] and v != f["rustc"]:
                    out.append(f"{where}: says rustc {v}; the kernel is built with rustc "
                               f"{f['rustc']} (scripts/env.sh)")
            if record:
                continue
            for first, total, kind in re.findall(
                    r"\b(\w+) (?:of the (\w+) )?(quick |long )?(?:loom )?scenarios\b", line):
                # "four of the nine loom scenarios": the nine is the count.
                word = total or first
                k = kinds[kind.strip() or None]
                v = number(word)
                if v is not None and v != f[k]:
                    out.append(f"{where}: says {word} {kind}scenarios; "
                               f"rust/host/tests/loom_cascade.rs has {f[k]}")
            for word in re.findall(r"\b(\w+) (?:logical |`git format-patch` )?patches\b", line):
                v = number(word)
                if v is not None and v != f["patches"]:
                    out.append(f"{where}: says {word} patches; c-glue/series has {f['patches']}")
            for word in re.findall(r"\b(\w+) KUnit suites\b", line):
                v = number(word)
                if v is not None and v != f["kunit suites"]:
                    out.append(f"{where}: says {word} KUnit suites; rust/kunit.rs has "
                               f"{f['kunit suites']}")
        flat = re.sub(r"\s+", " ", text)
        sentences = re.split(r"(?<=[.!?])\s+", flat)
        for sent in [x for x in sentences if re.search(r"\b[Ee]ach (?:one )?has a twin\b", x)]:
            if not all(f["twins"]):
                out.append(f"{rel}: says each has a twin; {f['twins'].count(False)} of "
                           f"{len(f['twins'])} compile_fail examples have none")
        if not record:
            for sent in [x for x in sentences if "every interleaving" in x]:
                if not re.search(r"quick|exhaustive|bound|preemption", sent):
                    out.append(f"{rel}: says \"every interleaving\" without saying which "
                               f"scenarios: {sent.strip()[:80]}")
    for d in ("c-glue/kernel/nstree_rs", "c-glue/rust/helpers"):
        for n in sorted(os.listdir(os.path.join(REPO, d))):
            if n.endswith((".c", ".h")) and n not in mentioned:
                out.append(f"{d}/{n}: never named in {', '.join(os.path.relpath(m, REPO) for m in md_files)}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--linux", help="the base kernel tree (linux-7.3/...)")
    ap.add_argument("--linux-old", help="the previous kernel tree (linux-7.2/...)")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    srcs = Sources(args.linux, args.linux_old)
    findings, checked, skipped = [], 0, []

    for md in args.files:
        rel = os.path.relpath(md, REPO)
        lines = open(md, encoding="utf-8").read().split("\n")
        i = 0
        last_code = None  # expected error code of the last doc example
        while i < len(lines):
            m = FENCE.match(lines[i])
            if not m or not m.group(2):
                i += 1
                continue
            lang, start = m.group(2), i
            j = i + 1
            while j < len(lines) and not FENCE.match(lines[j]):
                j += 1
            block = [l[len(m.group(1)):] for l in lines[i + 1:j]]
            i = j + 1
            where = f"{rel}:{start + 1}"

            if lang == "text" and block and CODE.search(block[0]):
                got = CODE.search(block[0]).group(1)
                if last_code != got:
                    findings.append(f"{where}: quotes {got}, but the example before it "
                                    f"expects {last_code or 'no error'}")
                last_code = None
                continue
            if lang not in ("rust", "c", "diff"):
                continue
            last_code = None

            if lang == "diff":
                old = next((l[4:].split()[0] for l in block if l.startswith("--- ")), None)
                new = next((l[4:].split()[0] for l in block if l.startswith("+++ ")), None)
                if not old or not new:
                    findings.append(f"{where}: diff without --- and +++ lines naming its files")
                    continue
                hunk = [l for l in block if not l.startswith(("--- ", "+++ "))]
                for side, path, keep in (("old", old, "-"), ("new", new, "+")):
                    fs, _ = srcs.resolve(path)
                    if fs is None:
                        skipped.append(f"{where}: {path} ({side} side; no such tree here)")
                        continue
                    if not os.path.isfile(fs):
                        findings.append(f"{where}: {path}: no such file")
                        continue
                    body = []
                    for l in hunk:
                        if l.startswith("@@"):
                            body.append("@@")
                        elif l.startswith(keep) or l.startswith(" ") or l == "":
                            body.append(l[1:] if l else "")
                    why = check_against(body, srcs.lines(fs), True)
                    checked += 1
                    if why:
                        findings.append(f"{where}: {side} side of the diff, {path}: {why}")
                continue

            h = HEADER.match(block[0]) if block else None
            if not h or "/" not in h.group("path"):
                findings.append(f"{where}: {lang} block without a source header "
                                "(\"// rust/file.rs\" or \"/* linux-7.3/path */\")")
                continue
            path, rest = h.group("path"), h.group("rest")
            fs, external = srcs.resolve(path)
            if fs is None:
                skipped.append(f"{where}: {path} (no such tree here)")
                continue
            if not os.path.isfile(fs):
                findings.append(f"{where}: {path}: no such file")
                continue
            body = block[1:]
            src = srcs.lines(fs)
            if "doc example" in rest:
                docs = doc_lines(src)
                why = check_against(body, [t for t, _ in docs], "abridged" in rest)
                if not why:
                    last_code = doc_fence_code(body, docs)
            else:
                why = check_against(body, src, "abridged" in rest)
                proof = re.match(r"^// (E\d{4}):", src[0]) if src else None
                if not why and path.startswith(PROOFS) and proof:
                    last_code = proof.group(1)
            checked += 1
            if why:
                findings.append(f"{where}: excerpt of {path} {why}")

    fact_findings = facts(args.files)
    findings += fact_findings
    for f in findings:
        print(f)
    for s in skipped:
        print(f"skipped: {s}")
    print(f"excerpts: {checked} checked, {len(skipped)} skipped, facts checked, "
          f"{len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
