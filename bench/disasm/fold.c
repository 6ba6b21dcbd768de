// SPDX-License-Identifier: GPL-2.0
struct n { struct n *l, *r; unsigned long long pad, id; };
#define RO(x) (*(volatile unsigned long long *)&(x))
struct n *plain(struct n *p, unsigned long long id) {
	while (p) { if (id < p->id) p = p->l; else if (id > p->id) p = p->r; else return p; }
	return 0;
}
struct n *vol(struct n *p, unsigned long long id) {
	while (p) { unsigned long long v = RO(p->id); if (id < v) p = p->l; else if (id > v) p = p->r; else return p; }
	return 0;
}
struct n *atom(struct n *p, unsigned long long id) {
	while (p) { unsigned long long v = __atomic_load_n(&p->id, __ATOMIC_RELAXED); if (id < v) p = p->l; else if (id > v) p = p->r; else return p; }
	return 0;
}
