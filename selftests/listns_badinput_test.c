// SPDX-License-Identifier: GPL-2.0
/*
 * listns() bad-input matrix: every check of SYSCALL_DEFINE4(listns) and
 * copy_ns_id_req() in kernel/nstree.c, and the order they are made in:
 *
 *   flags != 0                          EINVAL
 *   nr_ns_ids > 1000000                 EOVERFLOW
 *   !access_ok(ns_ids, nr_ns_ids * 8)   EFAULT
 *   get_user(req->size) faults          EFAULT
 *   size > PAGE_SIZE                    E2BIG
 *   size < 32                           EINVAL
 *   non-zero bytes past 32 / a fault    E2BIG / EFAULT (copy_struct_from_user)
 *   spare != 0                          EINVAL (spare2 is not checked)
 *   ns_type & ~NS_ALL                   EOPNOTSUPP
 *   then user_ns_id (EINVAL) and the resume point ns_id (ENOENT)
 *   and put_user() of each id           EFAULT
 *
 * Every case asserts the exact errno or the exact ids, and, through
 * guarded buffers (guard pages around canary-filled memory), that the
 * kernel wrote nothing outside the ids it returned; for errors, nothing
 * at all (except what a put_user() fault leaves, checked byte for byte).
 * Run as root in the initial namespaces, which may see every namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/nsfs.h>

#include "kselftest_harness.h"
#include "listns_helpers.h"

/* An address that is never a user address: access_ok() rejects it. */
#define KERNEL_ADDR ((void *)0xffff800000000000UL)

/*
 * The end of the user address space (TASK_SIZE_MAX, which is also
 * access_ok()'s limit on x86-64): 2^47 - PAGE_SIZE, or 2^56 - PAGE_SIZE
 * with 5-level paging, detected by mapping a page above 2^47.
 */
static uintptr_t user_space_end(void)
{
	void *hint = (void *)(1UL << 50);
	void *p = mmap(hint, page_size(), PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == hint) {
		munmap(p, page_size());
		return (1UL << 56) - page_size();
	}
	if (p != MAP_FAILED)
		munmap(p, page_size());
	return (1UL << 47) - page_size();
}

/*
 * Most cases: a guarded id buffer of two pages (512 ids), the reference
 * listing (every namespace, unpaginated) and a valid request.
 */
FIXTURE(args) {
	struct gbuf ids;
	struct ns_id_req req;
	__u64 ref[MAX_NS];
	long nref;
};

FIXTURE_SETUP(args)
{
	ASSERT_EQ(0, gbuf_init(&self->ids, 2));
	self->req = mkreq(0, 0, 0);
	self->nref = list_ids(0, 0, 0, self->ref, MAX_NS);
	/* At least the eight initial namespaces, and room to spare. */
	ASSERT_GE(self->nref, 8);
	ASSERT_LT(self->nref, 512 - 8);
}

FIXTURE_TEARDOWN(args)
{
	gbuf_fini(&self->ids);
}

/* The reference listing comes back whole when there is room for it. */
#define ASSERT_FULL_LISTING(ret) do {					\
	ASSERT_EQ(self->nref, ret);					\
	ASSERT_TRUE(gbuf_holds(&self->ids, self->ids.data, self->ref,	\
			       self->nref));				\
} while (0)

/* An error, and not a single byte of the id buffer written. */
#define ASSERT_ERRNO_UNTOUCHED(err, ret) do {				\
	ASSERT_EQ(-(err), ret);						\
	ASSERT_TRUE(gbuf_untouched(&self->ids));			\
} while (0)

/* flags */

TEST_F(args, flags_1_einval)
{
	long ret = listns_ret(&self->req, self->ids.data, self->nref, 1);

	ASSERT_ERRNO_UNTOUCHED(EINVAL, ret);
}

TEST_F(args, flags_all_ones_einval)
{
	long ret = listns_ret(&self->req, self->ids.data, self->nref, ~0U);

	ASSERT_ERRNO_UNTOUCHED(EINVAL, ret);
}

TEST_F(args, flags_every_bit_einval)
{
	for (int bit = 0; bit < 32; bit++) {
		long ret = listns_ret(&self->req, self->ids.data, self->nref,
				      1U << bit);

		if (ret != -EINVAL)
			TH_LOG("flags bit %d: got %ld", bit, ret);
		ASSERT_ERRNO_UNTOUCHED(EINVAL, ret);
	}
}

/* flags come first: before the count, the buffer and the request. */
TEST_F(args, flags_checked_first)
{
	long ret = listns_ret(NULL, KERNEL_ADDR, LISTNS_MAX_IDS + 1, 1);

	ASSERT_ERRNO_UNTOUCHED(EINVAL, ret);
}

/* nr_ns_ids */

TEST_F(args, nr_0_writes_nothing)
{
	long ret = listns_ret(&self->req, self->ids.data, 0, 0);

	ASSERT_ERRNO_UNTOUCHED(0, ret);
}

TEST_F(args, nr_1_writes_exactly_one)
{
	long ret = listns_ret(&self->req, self->ids.data, 1, 0);

	ASSERT_EQ(1, ret);
	ASSERT_TRUE(gbuf_holds(&self->ids, self->ids.data, self->ref, 1));
}

TEST_F(args, nr_2_writes_exactly_two)
{
	long ret = listns_ret(&self->req, self->ids.data, 2, 0);

	ASSERT_EQ(2, ret);
	ASSERT_TRUE(gbuf_holds(&self->ids, self->ids.data, self->ref, 2));
}

TEST_F(args, nr_exact_count)
{
	long ret = listns_ret(&self->req, self->ids.data, self->nref, 0);

	ASSERT_FULL_LISTING(ret);
}

TEST_F(args, nr_larger_than_count)
{
	long ret = listns_ret(&self->req, self->ids.data, 512, 0);

	ASSERT_FULL_LISTING(ret);
}

/* The largest count: an 8 MB buffer of which only the start is written. */
TEST_F(args, nr_1000000_ok)
{
	struct gbuf big = {};
	size_t pages = (LISTNS_MAX_IDS * sizeof(__u64) + page_size() - 1) /
		       page_size();
	unsigned char *at;
	long ret;

	ASSERT_EQ(0, gbuf_init(&big, pages));
	/* The last id slot ends exactly at the trailing guard page. */
	at = gbuf_end(&big) - LISTNS_MAX_IDS * sizeof(__u64);
	ret = listns_ret(&self->req, at, LISTNS_MAX_IDS, 0);
	ASSERT_EQ(self->nref, ret);
	ASSERT_TRUE(gbuf_holds(&big, at, self->ref, self->nref));
	gbuf_fini(&big);
}

TEST_F(args, nr_1000001_eoverflow)
{
	long ret = listns_ret(&self->req, self->ids.data, LISTNS_MAX_IDS + 1, 0);

	ASSERT_ERRNO_UNTOUCHED(EOVERFLOW, ret);
}

/* SIZE_MAX * 8 would wrap: the count is checked before it is multiplied. */
TEST_F(args, nr_size_max_eoverflow)
{
	long ret = listns_ret(&self->req, self->ids.data, SIZE_MAX, 0);

	ASSERT_ERRNO_UNTOUCHED(EOVERFLOW, ret);
}

TEST_F(args, nr_checked_before_buffer_and_request)
{
	long ret = listns_ret(NULL, KERNEL_ADDR, LISTNS_MAX_IDS + 1, 0);

	ASSERT_ERRNO_UNTOUCHED(EOVERFLOW, ret);
}

/* The id buffer */

TEST_F(args, ids_null_nr_0_ok)
{
	ASSERT_EQ(0, listns_ret(&self->req, NULL, 0, 0));
}

/* NULL passes access_ok(); the first put_user() faults. */
TEST_F(args, ids_null_nr_1_efault)
{
	ASSERT_EQ(-EFAULT, listns_ret(&self->req, NULL, 1, 0));
}

TEST_F(args, ids_guard_page_efault)
{
	long ret = listns_ret(&self->req, gbuf_end(&self->ids), 1, 0);

	ASSERT_ERRNO_UNTOUCHED(EFAULT, ret);
}

TEST_F(args, ids_unmapped_efault)
{
	void *p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p, page_size()));
	ASSERT_EQ(-EFAULT, listns_ret(&self->req, p, self->nref, 0));
}

TEST_F(args, ids_readonly_efault)
{
	long ret;

	ASSERT_EQ(0, mprotect(self->ids.data, self->ids.len, PROT_READ));
	ret = listns_ret(&self->req, self->ids.data, self->nref, 0);
	ASSERT_ERRNO_UNTOUCHED(EFAULT, ret);
}

TEST_F(args, ids_kernel_address_efault)
{
	ASSERT_EQ(-EFAULT, listns_ret(&self->req, KERNEL_ADDR, 1, 0));
}

/* access_ok(ptr, 0) still checks ptr itself. */
TEST_F(args, ids_kernel_address_nr_0_efault)
{
	ASSERT_EQ(-EFAULT, listns_ret(&self->req, KERNEL_ADDR, 0, 0));
}

/* access_ok() comes before the request is read (size 0 would be EINVAL). */
TEST_F(args, ids_checked_before_request)
{
	struct ns_id_req req = mkreq(0, 0, 0);

	req.size = 0;
	ASSERT_EQ(-EFAULT, listns_ret(&req, KERNEL_ADDR, 1, 0));
}

/*
 * access_ok() covers the whole nr_ns_ids * 8 range: one slot below the
 * end of user space passes (and the bad request is then seen), two fail.
 */
TEST_F(args, ids_range_end_checked)
{
	__u64 *ids = (__u64 *)(user_space_end() - sizeof(__u64));
	struct ns_id_req req = mkreq(0, 0, 0);

	req.size = 0;
	ASSERT_EQ(-EINVAL, listns_ret(&req, ids, 1, 0));
	ASSERT_EQ(-EFAULT, listns_ret(&req, ids, 2, 0));
}

/*
 * Room for two ids before the guard page: the third put_user() faults
 * and the call fails with EFAULT, the two ids already stored stay.
 */
TEST_F(args, ids_fault_after_two)
{
	unsigned char *at = gbuf_end(&self->ids) - 2 * sizeof(__u64);
	long ret = listns_ret(&self->req, at, self->nref, 0);

	ASSERT_EQ(-EFAULT, ret);
	ASSERT_TRUE(gbuf_holds(&self->ids, at, self->ref, 2));
}

/* The same fault in the owner walk (do_listns_userns()). */
TEST_F(args, ids_fault_after_two_owner_walk)
{
	unsigned char *at = gbuf_end(&self->ids) - 2 * sizeof(__u64);
	struct ns_id_req req = mkreq(0, 0, USER_NS_INIT_ID);
	__u64 owned[MAX_NS];
	long n, ret;

	n = list_ids(0, 0, USER_NS_INIT_ID, owned, MAX_NS);
	ASSERT_GE(n, 3);
	ret = listns_ret(&req, at, n, 0);
	ASSERT_EQ(-EFAULT, ret);
	ASSERT_TRUE(gbuf_holds(&self->ids, at, owned, 2));
}

/* The same fault in a single type's tree (three extra ipc namespaces). */
TEST_F(args, ids_fault_after_two_type_walk)
{
	unsigned char *at = gbuf_end(&self->ids) - 2 * sizeof(__u64);
	struct ns_id_req req = mkreq(0, IPC_NS, 0);
	__u64 ipcs[MAX_NS], id;
	int fds[3];
	long n, ret;

	for (int i = 0; i < 3; i++) {
		fds[i] = make_fd_held_ns(CLONE_NEWIPC, "ipc", &id);
		ASSERT_GE(fds[i], 0);
	}
	n = list_ids(0, IPC_NS, 0, ipcs, MAX_NS);
	ASSERT_GE(n, 4);
	ret = listns_ret(&req, at, n, 0);
	ASSERT_EQ(-EFAULT, ret);
	ASSERT_TRUE(gbuf_holds(&self->ids, at, ipcs, 2));
	for (int i = 0; i < 3; i++)
		close(fds[i]);
}

/* Exactly two slots and nr_ns_ids 2: the guard is never touched. */
TEST_F(args, ids_exact_fit_before_guard)
{
	unsigned char *at = gbuf_end(&self->ids) - 2 * sizeof(__u64);
	long ret = listns_ret(&self->req, at, 2, 0);

	ASSERT_EQ(2, ret);
	ASSERT_TRUE(gbuf_holds(&self->ids, at, self->ref, 2));
}

/*
 * An id slot that straddles the guard page: put_user() of a u64 is one
 * store, which faults before writing anything, so the four mapped bytes
 * keep their canary.
 */
TEST_F(args, ids_first_slot_straddles_guard)
{
	unsigned char *at = gbuf_end(&self->ids) - 4;
	long ret = listns_ret(&self->req, at, 1, 0);

	ASSERT_ERRNO_UNTOUCHED(EFAULT, ret);
}

TEST_F(args, ids_second_slot_straddles_guard)
{
	unsigned char *at = gbuf_end(&self->ids) - sizeof(__u64) - 4;
	long ret = listns_ret(&self->req, at, 2, 0);

	ASSERT_EQ(-EFAULT, ret);
	ASSERT_TRUE(gbuf_holds(&self->ids, at, self->ref, 1));
}

TEST_F(args, ids_misaligned_ok)
{
	unsigned char *at = self->ids.data + 3;
	long ret = listns_ret(&self->req, at, self->nref, 0);

	ASSERT_EQ(self->nref, ret);
	ASSERT_TRUE(gbuf_holds(&self->ids, at, self->ref, self->nref));
}

/* The request pointer */

TEST_F(args, req_null_efault)
{
	long ret = listns_ret(NULL, self->ids.data, self->nref, 0);

	ASSERT_ERRNO_UNTOUCHED(EFAULT, ret);
}

TEST_F(args, req_unmapped_efault)
{
	struct gbuf r = {};
	long ret;

	ASSERT_EQ(0, gbuf_init(&r, 1));
	ret = listns_ret(gbuf_end(&r), self->ids.data, self->nref, 0);
	ASSERT_ERRNO_UNTOUCHED(EFAULT, ret);
	gbuf_fini(&r);
}

TEST_F(args, req_kernel_address_efault)
{
	long ret = listns_ret(KERNEL_ADDR, self->ids.data, self->nref, 0);

	ASSERT_ERRNO_UNTOUCHED(EFAULT, ret);
}

/* The request is checked before the first id is stored. */
TEST_F(args, req_checked_before_ids_written)
{
	struct ns_id_req req = mkreq(0, 0, 0);

	req.spare = 1;
	ASSERT_EQ(-EINVAL, listns_ret(&req, NULL, 1, 0));
}

/* spare and spare2 */

TEST_F(args, spare_1_einval)
{
	long ret;

	self->req.spare = 1;
	ret = listns_ret(&self->req, self->ids.data, self->nref, 0);
	ASSERT_ERRNO_UNTOUCHED(EINVAL, ret);
}

TEST_F(args, spare_high_bit_einval)
{
	long ret;

	self->req.spare = 1U << 31;
	ret = listns_ret(&self->req, self->ids.data, self->nref, 0);
	ASSERT_ERRNO_UNTOUCHED(EINVAL, ret);
}

/* The C code never looks at spare2. */
TEST_F(args, spare2_1_ignored)
{
	long ret;

	self->req.spare2 = 1;
	ret = listns_ret(&self->req, self->ids.data, self->nref, 0);
	ASSERT_FULL_LISTING(ret);
}

TEST_F(args, spare2_all_ones_ignored)
{
	long ret;

	self->req.spare2 = ~0U;
	ret = listns_ret(&self->req, self->ids.data, self->nref, 0);
	ASSERT_FULL_LISTING(ret);
}

/* The order of the request checks */

/* Trailing bytes (copy_struct_from_user()) before spare. */
TEST_F(args, order_trailing_bytes_before_spare)
{
	unsigned char buf[40] = {};
	struct ns_id_req req = mkreq(0, 0, 0);
	long ret;

	req.size = 33;
	req.spare = 1;
	memcpy(buf, &req, sizeof(req));
	buf[32] = 1;
	ret = listns_ret(buf, self->ids.data, self->nref, 0);
	ASSERT_ERRNO_UNTOUCHED(E2BIG, ret);
}

TEST_F(args, order_spare_before_type)
{
	long ret;

	self->req.spare = 1;
	self->req.ns_type = 1;
	ret = listns_ret(&self->req, self->ids.data, self->nref, 0);
	ASSERT_ERRNO_UNTOUCHED(EINVAL, ret);
}

TEST_F(args, order_type_before_owner)
{
	long ret;

	self->req.ns_type = 1;
	self->req.user_ns_id = NET_NS_INIT_ID;
	ret = listns_ret(&self->req, self->ids.data, self->nref, 0);
	ASSERT_ERRNO_UNTOUCHED(EOPNOTSUPP, ret);
}

TEST_F(args, order_type_before_resume)
{
	long ret;

	self->req.ns_type = 1;
	self->req.ns_id = NEVER_ISSUED_ID;
	ret = listns_ret(&self->req, self->ids.data, self->nref, 0);
	ASSERT_ERRNO_UNTOUCHED(EOPNOTSUPP, ret);
}

TEST_F(args, order_owner_before_resume)
{
	long ret;

	self->req.user_ns_id = NET_NS_INIT_ID;
	self->req.ns_id = NEVER_ISSUED_ID;
	ret = listns_ret(&self->req, self->ids.data, self->nref, 0);
	ASSERT_ERRNO_UNTOUCHED(EINVAL, ret);
}

/* Owner and resume point are looked up even when no id is wanted. */
TEST_F(args, order_owner_checked_with_nr_0)
{
	self->req.user_ns_id = NET_NS_INIT_ID;
	ASSERT_EQ(-EINVAL, listns_ret(&self->req, self->ids.data, 0, 0));
}

TEST_F(args, order_resume_checked_with_nr_0)
{
	self->req.ns_id = NEVER_ISSUED_ID;
	ASSERT_EQ(-ENOENT, listns_ret(&self->req, self->ids.data, 0, 0));
}

/*
 * req->size: one case per variant. The request sits in a guarded buffer
 * with @avail bytes mapped from its start (0: two pages), so that a size
 * larger than what is mapped shows whether the kernel reads past it.
 */
FIXTURE(req_size) {
	struct gbuf req;
	struct gbuf ids;
	__u64 ref[MAX_NS];
	long nref;
};

FIXTURE_VARIANT(req_size) {
	long size;		/* req->size (plus PAGE_SIZE if page_rel) */
	bool page_rel;
	size_t avail;		/* bytes mapped from the request on */
	long nonzero_at;	/* a non-zero byte here; < 0: from size */
	int err;		/* expected errno, 0: success */
};

FIXTURE_SETUP(req_size)
{
	ASSERT_EQ(0, gbuf_init(&self->req, 2));
	ASSERT_EQ(0, gbuf_init(&self->ids, 2));
	self->nref = list_ids(0, 0, 0, self->ref, MAX_NS);
	ASSERT_GE(self->nref, 8);
	ASSERT_LT(self->nref, 512);
}

FIXTURE_TEARDOWN(req_size)
{
	gbuf_fini(&self->req);
	gbuf_fini(&self->ids);
}

FIXTURE_VARIANT_ADD(req_size, size_0) { .size = 0, .err = EINVAL };
FIXTURE_VARIANT_ADD(req_size, size_8) { .size = 8, .err = EINVAL };
FIXTURE_VARIANT_ADD(req_size, size_31) { .size = 31, .err = EINVAL };
FIXTURE_VARIANT_ADD(req_size, size_32) { .size = 32 };
FIXTURE_VARIANT_ADD(req_size, size_33_zero_tail) { .size = 33 };
FIXTURE_VARIANT_ADD(req_size, size_33_nonzero_tail) {
	.size = 33, .nonzero_at = 32, .err = E2BIG,
};
FIXTURE_VARIANT_ADD(req_size, size_64_nonzero_last) {
	.size = 64, .nonzero_at = -1, .err = E2BIG,
};
FIXTURE_VARIANT_ADD(req_size, size_page_zero_tail) { .page_rel = true };
FIXTURE_VARIANT_ADD(req_size, size_page_nonzero_at_32) {
	.page_rel = true, .nonzero_at = 32, .err = E2BIG,
};
FIXTURE_VARIANT_ADD(req_size, size_page_nonzero_last) {
	.page_rel = true, .nonzero_at = -1, .err = E2BIG,
};
FIXTURE_VARIANT_ADD(req_size, size_page_plus_1) {
	.size = 1, .page_rel = true, .err = E2BIG,
};
FIXTURE_VARIANT_ADD(req_size, size_u32_max) {
	.size = UINT32_MAX, .err = E2BIG,
};
/* The request ends where the mapping does. */
FIXTURE_VARIANT_ADD(req_size, map_end_size_32) { .size = 32, .avail = 32 };
FIXTURE_VARIANT_ADD(req_size, map_end_size_33_efault) {
	.size = 33, .avail = 32, .err = EFAULT,
};
FIXTURE_VARIANT_ADD(req_size, map_end_size_page_efault) {
	.page_rel = true, .avail = 32, .err = EFAULT,
};
/* check_zeroed_user() stops at the first non-zero word, before the fault. */
FIXTURE_VARIANT_ADD(req_size, map_end_size_page_nonzero_before_fault) {
	.page_rel = true, .avail = 40, .nonzero_at = 32, .err = E2BIG,
};
/* Too big is decided from the size alone: nothing past it is read. */
FIXTURE_VARIANT_ADD(req_size, map_end_size_page_plus_1_e2big) {
	.size = 1, .page_rel = true, .avail = 32, .err = E2BIG,
};
/* Only the size field is mapped. */
FIXTURE_VARIANT_ADD(req_size, map_size_field_only_size_0) {
	.size = 0, .avail = 4, .err = EINVAL,
};
FIXTURE_VARIANT_ADD(req_size, map_size_field_only_size_31) {
	.size = 31, .avail = 4, .err = EINVAL,
};
FIXTURE_VARIANT_ADD(req_size, map_size_field_only_size_32_efault) {
	.size = 32, .avail = 4, .err = EFAULT,
};
FIXTURE_VARIANT_ADD(req_size, map_size_field_only_size_page_plus_1) {
	.size = 1, .page_rel = true, .avail = 4, .err = E2BIG,
};
FIXTURE_VARIANT_ADD(req_size, map_31_bytes_size_32_efault) {
	.size = 32, .avail = 31, .err = EFAULT,
};
/* Even the size field is cut by the guard page. */
FIXTURE_VARIANT_ADD(req_size, map_2_bytes_efault) {
	.size = 32, .avail = 2, .err = EFAULT,
};

TEST_F(req_size, listns)
{
	__u32 size = variant->size + (variant->page_rel ? page_size() : 0);
	size_t avail = variant->avail ? variant->avail : self->req.len;
	unsigned char *req = gbuf_end(&self->req) - avail;
	struct ns_id_req tmpl = mkreq(0, 0, 0);
	unsigned char *before;
	long ret;

	tmpl.size = size;
	memcpy(req, &tmpl, avail < sizeof(tmpl) ? avail : sizeof(tmpl));
	/* The bytes the kernel does not know are zero, up to size. */
	if (size > sizeof(tmpl) && avail > sizeof(tmpl))
		memset(req + sizeof(tmpl), 0,
		       (size < avail ? size : avail) - sizeof(tmpl));
	if (variant->nonzero_at) {
		long at = variant->nonzero_at;

		if (at < 0)
			at += size;
		ASSERT_LT(at, avail);
		req[at] = 1;
	}
	before = malloc(avail);
	ASSERT_NE(NULL, before);
	memcpy(before, req, avail);

	ret = listns_ret(req, self->ids.data, 512, 0);
	if (variant->err) {
		ASSERT_EQ(-variant->err, ret);
		ASSERT_TRUE(gbuf_untouched(&self->ids));
	} else {
		ASSERT_EQ(self->nref, ret);
		ASSERT_TRUE(gbuf_holds(&self->ids, self->ids.data, self->ref,
				       self->nref));
	}
	/* listns() never writes to the request. */
	ASSERT_EQ(0, memcmp(before, req, avail));
	free(before);
}

/*
 * ns_type: each of the 24 bits outside NS_ALL is EOPNOTSUPP, alone, with
 * every known bit, and in the owner walk.
 */
FIXTURE(unknown_type) {
	struct gbuf ids;
};

FIXTURE_VARIANT(unknown_type) {
	int bit;
};

FIXTURE_SETUP(unknown_type)
{
	ASSERT_EQ(0, gbuf_init(&self->ids, 1));
}

FIXTURE_TEARDOWN(unknown_type)
{
	gbuf_fini(&self->ids);
}

FIXTURE_VARIANT_ADD(unknown_type, bit_0) { .bit = 0 };
FIXTURE_VARIANT_ADD(unknown_type, bit_1) { .bit = 1 };
FIXTURE_VARIANT_ADD(unknown_type, bit_2) { .bit = 2 };
FIXTURE_VARIANT_ADD(unknown_type, bit_3) { .bit = 3 };
FIXTURE_VARIANT_ADD(unknown_type, bit_4) { .bit = 4 };
FIXTURE_VARIANT_ADD(unknown_type, bit_5) { .bit = 5 };
FIXTURE_VARIANT_ADD(unknown_type, bit_6) { .bit = 6 };
/* bit 7: CLONE_NEWTIME */
FIXTURE_VARIANT_ADD(unknown_type, bit_8) { .bit = 8 };
FIXTURE_VARIANT_ADD(unknown_type, bit_9) { .bit = 9 };
FIXTURE_VARIANT_ADD(unknown_type, bit_10) { .bit = 10 };
FIXTURE_VARIANT_ADD(unknown_type, bit_11) { .bit = 11 };
FIXTURE_VARIANT_ADD(unknown_type, bit_12) { .bit = 12 };
FIXTURE_VARIANT_ADD(unknown_type, bit_13) { .bit = 13 };
FIXTURE_VARIANT_ADD(unknown_type, bit_14) { .bit = 14 };
FIXTURE_VARIANT_ADD(unknown_type, bit_15) { .bit = 15 };
FIXTURE_VARIANT_ADD(unknown_type, bit_16) { .bit = 16 };
/* bit 17: CLONE_NEWNS */
FIXTURE_VARIANT_ADD(unknown_type, bit_18) { .bit = 18 };
FIXTURE_VARIANT_ADD(unknown_type, bit_19) { .bit = 19 };
FIXTURE_VARIANT_ADD(unknown_type, bit_20) { .bit = 20 };
FIXTURE_VARIANT_ADD(unknown_type, bit_21) { .bit = 21 };
FIXTURE_VARIANT_ADD(unknown_type, bit_22) { .bit = 22 };
FIXTURE_VARIANT_ADD(unknown_type, bit_23) { .bit = 23 };
FIXTURE_VARIANT_ADD(unknown_type, bit_24) { .bit = 24 };
/* bit 25: CLONE_NEWCGROUP */
/* bit 26: CLONE_NEWUTS */
/* bit 27: CLONE_NEWIPC */
/* bit 28: CLONE_NEWUSER */
/* bit 29: CLONE_NEWPID */
/* bit 30: CLONE_NEWNET */
FIXTURE_VARIANT_ADD(unknown_type, bit_31) { .bit = 31 };

TEST_F(unknown_type, eopnotsupp)
{
	__u32 bit = 1U << variant->bit;
	__u32 types[] = { bit, bit | NS_ALL_TYPES, bit | NET_NS };
	__u64 owners[] = { 0, LISTNS_CURRENT_USER, USER_NS_INIT_ID };

	ASSERT_EQ(0, bit & NS_ALL_TYPES);
	for (int t = 0; t < 3; t++) {
		for (int o = 0; o < 3; o++) {
			struct ns_id_req req = mkreq(0, types[t], owners[o]);
			long ret = listns_ret(&req, self->ids.data, 1, 0);

			if (ret != -EOPNOTSUPP)
				TH_LOG("ns_type %#x user_ns_id %#llx: got %ld",
				       types[t], (unsigned long long)owners[o],
				       ret);
			ASSERT_EQ(-EOPNOTSUPP, ret);
			ASSERT_TRUE(gbuf_untouched(&self->ids));
		}
	}
}

/*
 * The eight known bits filter exactly: a single bit walks that type's
 * tree, several bits the unified tree; either way the result is the
 * reference listing restricted to those types (checked with
 * NS_GET_NSTYPE on each namespace, opened by its id).
 */
static const __u32 known_types[] = {
	TIME_NS, MNT_NS, CGROUP_NS, UTS_NS, IPC_NS, USER_NS, PID_NS, NET_NS,
};

static long filter_by_type(const __u64 *ids, const long *types, long n,
			   __u32 mask, __u64 *out)
{
	long m = 0;

	for (long i = 0; i < n; i++)
		if (types[i] & mask)
			out[m++] = ids[i];
	return m;
}

TEST(ns_type_known_bits_filter_exactly)
{
	static __u64 ref[MAX_NS], got[MAX_NS], want[MAX_NS];
	static long types[MAX_NS];
	__u32 masks[ARRAY_SIZE(known_types) + 3];
	long nref, n, m;
	size_t k = 0;

	nref = list_ids(0, 0, 0, ref, MAX_NS);
	ASSERT_GE(nref, 8);
	for (long i = 0; i < nref; i++) {
		types[i] = ns_type_of_id(ref[i]);
		ASSERT_GT(types[i], 0);
	}
	for (size_t i = 0; i < ARRAY_SIZE(known_types); i++)
		masks[k++] = known_types[i];
	masks[k++] = NET_NS | UTS_NS;
	masks[k++] = USER_NS | MNT_NS | PID_NS;
	masks[k++] = NS_ALL_TYPES;

	for (size_t i = 0; i < k; i++) {
		n = list_ids(0, masks[i], 0, got, MAX_NS);
		m = filter_by_type(ref, types, nref, masks[i], want);
		if (!ids_equal("filtered listing", got, n, want, m))
			TH_LOG("ns_type %#x", masks[i]);
		ASSERT_TRUE(ids_equal("filtered listing", got, n, want, m));
		/* Each initial namespace is in its type's list. */
		ASSERT_GE(n, 1);
	}
}

TEST_HARNESS_MAIN
