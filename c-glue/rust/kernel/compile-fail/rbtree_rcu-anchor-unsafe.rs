// E0200: an anchor promises that its item stays on its trees, so implementing one is `unsafe`.
use kernel::rbtree::rcu::Anchor;

pub struct Item;
pub struct Ref<'a>(&'a Item);

impl<'a> Anchor<Item> for Ref<'a> {
    fn try_new(_: &Item) -> Option<Self> {
        None
    }

    fn item(&self) -> &Item {
        self.0
    }
}
