// E0515: an item found under RCU cannot be handed out beyond the read-side critical section.
use kernel::rbtree::rcu::{HasLinks, Item, Tree};
use kernel::sync::rcu;

pub fn first<T: Item + HasLinks>(tree: &Tree<T>) -> Option<&T> {
    let g = rcu::read_lock();
    tree.first(&g).map(|c| c.item())
}
