// SPDX-License-Identifier: GPL-2.0

#include <linux/seqlock.h>

__rust_helper unsigned int rust_helper_read_seqbegin(const seqlock_t *sl)
{
	return read_seqbegin(sl);
}

__rust_helper unsigned int rust_helper_read_seqretry(const seqlock_t *sl,
						     unsigned int start)
{
	return read_seqretry(sl, start);
}

__rust_helper void rust_helper_write_seqlock(seqlock_t *sl)
{
	write_seqlock(sl);
}

__rust_helper void rust_helper_write_sequnlock(seqlock_t *sl)
{
	write_sequnlock(sl);
}

__rust_helper void rust_helper_read_seqlock_excl(seqlock_t *sl)
{
	read_seqlock_excl(sl);
}

__rust_helper void rust_helper_read_sequnlock_excl(seqlock_t *sl)
{
	read_sequnlock_excl(sl);
}
