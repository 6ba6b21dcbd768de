// E0133: removing needs the caller's word that the writers are serialised and the item is there.
use kernel::rbtree::rcu::{HasLinks, Item, Tree};

pub fn unpublish<T: Item + HasLinks>(tree: &Tree<T>, item: &T) {
    tree.remove(item)
}
