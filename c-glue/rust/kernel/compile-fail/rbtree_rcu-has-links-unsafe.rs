// E0200: a type's links are found at the offset it declares, so declaring one is `unsafe`.
use kernel::rbtree::rcu::{HasLinks, Links};

pub struct Item {
    _links: Links,
}

impl HasLinks for Item {
    const OFFSET: usize = 0;

    unsafe fn raw_get_links(ptr: *mut Self) -> *mut Links {
        ptr.cast()
    }
}
