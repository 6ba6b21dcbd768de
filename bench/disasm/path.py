#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Walk one path through a disassembly file (llvm-objdump --symbolize-operands).
usage: path.py FILE DECISIONS [--start ADDR] [--show]
DECISIONS: comma list of  addr_suffix=TNNT...  (T taken / N not taken, consumed
in order for successive visits; the last letter repeats). addr_suffix matches the
end of the branch address (e.g. 7fe82). Prints the instruction count, per-kind
counts, and optionally the path."""
import re, sys
f = sys.argv[1]; dec = {}
for d in (sys.argv[2].split(',') if len(sys.argv) > 2 and sys.argv[2] else []):
    k, v = d.split('='); dec[k] = list(v)
show = '--show' in sys.argv
start = None
if '--start' in sys.argv: start = sys.argv[sys.argv.index('--start')+1]
stop = None
if '--stop' in sys.argv: stop = sys.argv[sys.argv.index('--stop')+1]
ins = []; labels = {}; pend = []
for line in open(f):
    m = re.match(r'^<(L\d+)>:', line)
    if m: pend.append(m.group(1)); continue
    m = re.match(r'^\s*([0-9a-f]{16}):\s+(.*)$', line.rstrip())
    if m:
        for l in pend: labels[l] = len(ins)
        pend = []
        ins.append((m.group(1), m.group(2).strip()))
idx = {a: i for i, (a, _) in enumerate(ins)}
def find(sfx):
    for a in idx:
        if a.endswith(sfx): return idx[a]
    raise SystemExit('no addr ' + sfx)
pc = find(start) if start else 0
used = {k: 0 for k in dec}
n = 0; path = []; calls = []
while True:
    a, t = ins[pc]; path.append((a, t))
    if t.split()[0] != 'lock': n += 1  # a lone LOCK prefix is part of the next instruction
    if stop and a.endswith(stop): break
    op = t.split()[0]
    if op.startswith('ret'): break
    m = re.search(r'<(L\d+)>', t)
    if op == 'jmp' and m: pc = labels[m.group(1)]; continue
    if op == 'jmp': calls.append(t); break   # tail call
    if op.startswith('call'): calls.append(t)
    if op.startswith('j') and m:
        key = next((k for k in dec if a.endswith(k)), None)
        if key is None: raise SystemExit('no decision for %s %s (after %d insns)\n' % (a, t, n) + '\n'.join('%s %s' % p for p in path[-12:]))
        seq = dec[key]; c = seq[min(used[key], len(seq)-1)]; used[key] += 1
        if c == 'T': pc = labels[m.group(1)]; continue
    pc += 1
print('instructions: %d' % n)
print('calls: ' + '; '.join(c.split('<')[-1].rstrip('>') if '<' in c else c for c in calls))
if show:
    for a, t in path: print(a[-6:], t)
