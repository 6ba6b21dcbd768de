// E0277: a tree is pinned: its empty list head points to itself, so it cannot be moved out.
use core::pin::Pin;
use kernel::alloc::KBox;
use kernel::rbtree::rcu::{HasLinks, Item, Tree};

pub fn take<T: Item + HasLinks>(tree: Pin<KBox<Tree<T>>>) -> Tree<T> {
    *Pin::into_inner(tree)
}
