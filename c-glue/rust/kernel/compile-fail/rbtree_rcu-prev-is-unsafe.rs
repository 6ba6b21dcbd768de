// E0133: stepping backwards reads links that writers store plainly: the writers must be excluded.
use kernel::rbtree::rcu::{HasLinks, Item, Tree};
use kernel::sync::rcu;

pub fn last_but_first<T: Item + HasLinks>(tree: &Tree<T>) -> bool {
    let g = rcu::read_lock();
    tree.first(&g).is_some_and(|c| c.prev().is_none())
}
