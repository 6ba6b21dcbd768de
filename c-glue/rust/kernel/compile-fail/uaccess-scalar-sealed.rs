// E0277: only the integer types are moved in one access; others cannot be made scalars.
use kernel::uaccess::{UserScalar, UserSliceWriter};

#[derive(Clone, Copy)]
pub struct Pair(u32, u32);

impl UserScalar for Pair {}

pub fn write(w: &mut UserSliceWriter) -> kernel::error::Result {
    w.write_scalar(Pair(1, 2))
}
