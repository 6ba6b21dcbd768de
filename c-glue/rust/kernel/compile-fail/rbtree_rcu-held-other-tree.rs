// E0308: a place held on a tree of one kind of links cannot be where a walk of another resumes.
use kernel::rbtree::rcu::{Anchor, HasLinks, Held, Item, Tree};
use kernel::sync::rcu;

pub fn resume_point<'t, T: Item + HasLinks<0> + HasLinks<1>, A: Anchor<T>>(
    by_type: &'t Tree<T, 1>,
) -> Option<Held<'t, T, A, 0>> {
    let g = rcu::read_lock();
    by_type.first(&g)?.hold()
}
