// SPDX-License-Identifier: GPL-2.0

#include <linux/seqlock.h>

__rust_helper void rust_helper___seqlock_init(seqlock_t *sl, const char *name,
					      struct lock_class_key *lock_key,
					      struct lock_class_key *seq_key)
{
#ifdef CONFIG_DEBUG_SPINLOCK
# if defined(CONFIG_PREEMPT_RT)
	__spin_lock_init(&sl->lock, name, lock_key, false);
# else
	__raw_spin_lock_init(spinlock_check(&sl->lock), name, lock_key, LD_WAIT_CONFIG);
# endif
#else
	spin_lock_init(&sl->lock);
#endif
	__seqcount_init(&sl->seqcount.seqcount, name, seq_key);
	__SEQ_LOCK(sl->seqcount.lock = &sl->lock);
}

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
