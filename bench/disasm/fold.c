// SPDX-License-Identifier: GPL-2.0
/*
 * Does LLVM fold the load of a node's id into the compare of a tree
 * search?  Compiled with clang-22 -O2 -S, plain() compares against memory
 * (cmpq 24(%rax),%rsi); a relaxed atomic load, which is what the crate's
 * Atomic<u64>::load(Relaxed) becomes (as does a volatile READ_ONCE()),
 * is loaded into a register first (movq; cmpq): one instruction more per
 * level (docs/bench-disasm.md, section 3).
 */
struct n {
	struct n *l, *r;
	unsigned long long pad, id;
};

struct n *plain(struct n *p, unsigned long long id)
{
	while (p) {
		if (id < p->id)
			p = p->l;
		else if (id > p->id)
			p = p->r;
		else
			return p;
	}
	return 0;
}

struct n *atom(struct n *p, unsigned long long id)
{
	while (p) {
		unsigned long long v = __atomic_load_n(&p->id, __ATOMIC_RELAXED);

		if (id < v)
			p = p->l;
		else if (id > v)
			p = p->r;
		else
			return p;
	}
	return 0;
}
