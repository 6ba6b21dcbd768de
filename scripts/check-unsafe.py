#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-unsafe.py FILE...: the crate's unsafe-code rules, file by file.

- every `unsafe {` block and `unsafe impl` is preceded by a `// SAFETY:`
  comment (on the lines just above it, or earlier on the same statement);
- every `unsafe fn` has a `# Safety` section in its doc comment;
- no safe fn's doc comment puts a duty on its caller ("the caller must",
  "must be called", "caller guarantees", and the prohibitions: "must not",
  "must never", "may only be called", "only call"): such a precondition
  makes the fn `unsafe`;
- no `SAFETY:` comment of a safe fn rests on its callers ("callers
  hold", "caller guarantees", ...): a safe fn cannot rely on what its
  callers do.

Prints one line per finding and a summary; exits 1 on findings.
"""

import re
import sys

SAFE_FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?fn\s")
UNSAFE_FN = re.compile(r"\bunsafe\s+(extern\s+\"C\"\s+)?fn\s")
DUTY = re.compile(r"caller must|must be called|caller guarantees|callers must|"
                  r"must not\b|must never|may only be called|only call\b|"
                  r"not be called|never be called", re.I)
# In the body of a safe fn, a SAFETY comment that leans on the callers.
LEANS = re.compile(r"callers? (hold|holds|guarantee|guarantees|ensure|ensures|must)\b", re.I)


def doc_above(lines, i):
    """The doc comment and attributes directly above line i."""
    doc = []
    j = i - 1
    while j >= 0 and (lines[j].strip().startswith("///") or lines[j].strip().startswith("#[")):
        doc.append(lines[j].strip())
        j -= 1
    return "\n".join(reversed(doc))


def in_trait_impl(lines, i):
    """Whether line i is a method of a trait impl (its `# Safety` is the trait's)."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    for j in range(i - 1, -1, -1):
        line = lines[j]
        ind = len(line) - len(line.lstrip())
        if line.strip() and ind < indent and re.match(r"\s*(unsafe\s+)?impl\b", line):
            return " for " in line
        if line.strip() and ind == 0 and not line.startswith(("//", "#", " ", "}")):
            return False
    return False


def main(paths):
    findings = []
    blocks = safety = 0
    for path in paths:
        lines = open(path).read().split("\n")
        current_safe = False
        for i, line in enumerate(lines):
            code = line.split("//")[0]
            if "// SAFETY:" in line:
                safety += 1
            if re.search(r"\bunsafe\s*\{", code) or re.search(r"\bunsafe\s+impl\b", code):
                blocks += 1
                # Look back over the statement: up to 30 lines, stop at a
                # blank line or a line ending a previous statement/block.
                ok = False
                for j in range(i, max(-1, i - 30), -1):
                    if "// SAFETY:" in lines[j]:
                        ok = True
                        break
                    if j < i and (not lines[j].strip() or lines[j].rstrip().endswith(("}", ";"))
                                  and not lines[j].strip().startswith("//")):
                        break
                if not ok:
                    findings.append(f"{path}:{i + 1}: unsafe without a SAFETY comment")
            if UNSAFE_FN.search(code):
                if "# Safety" not in doc_above(lines, i) and not in_trait_impl(lines, i):
                    findings.append(f"{path}:{i + 1}: unsafe fn without a # Safety section")
                current_safe = False
            elif SAFE_FN.match(code):
                current_safe = True
                if DUTY.search(doc_above(lines, i)):
                    findings.append(f"{path}:{i + 1}: safe fn whose doc puts a duty on the caller")
            if current_safe and "// SAFETY:" in line:
                # The SAFETY comment block, up to the code it covers.
                block = [line]
                j = i + 1
                while j < len(lines) and lines[j].strip().startswith("//"):
                    block.append(lines[j])
                    j += 1
                if LEANS.search(" ".join(block)):
                    findings.append(f"{path}:{i + 1}: SAFETY comment in a safe fn leans on its callers")
    for f in findings:
        print(f)
    print(f"unsafe: {blocks} unsafe blocks/impls, {safety} SAFETY comments, "
          f"{len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
