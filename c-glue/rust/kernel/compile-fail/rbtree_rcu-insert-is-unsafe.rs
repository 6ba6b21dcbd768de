// E0133: inserting needs the caller's word that the writers are serialised and the item lives on.
use kernel::rbtree::rcu::{HasLinks, Item, Tree};

pub fn publish<T: Item + HasLinks>(tree: &Tree<T>, item: &T) -> bool {
    tree.insert(item)
}
