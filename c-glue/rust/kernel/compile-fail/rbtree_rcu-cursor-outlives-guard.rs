// E0505: a cursor, and the item it gives, cannot be used once the RCU read-side critical section
// it was found in is over.
use kernel::rbtree::rcu::{HasLinks, Item, Tree};
use kernel::sync::rcu;

pub fn first_key<T: Item + HasLinks>(tree: &Tree<T>) -> Option<T::Key> {
    let g = rcu::read_lock();
    let c = tree.first(&g)?;
    drop(g);
    Some(c.item().key())
}
