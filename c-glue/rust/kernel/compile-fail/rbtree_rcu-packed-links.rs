// E0793: links must be aligned, so a packed struct cannot declare them.
use kernel::rbtree::rcu::Links;

#[repr(C, packed)]
pub struct Item {
    pub tag: u8,
    pub links: Links,
}

kernel::impl_has_rcu_links! {
    impl HasLinks for Item { self.links }
}
