// E0061: a scalar's access to a raw user pointer cannot be called: only the bounded reader and
// writer can make the token it takes.
use kernel::ffi::c_void;
use kernel::uaccess::UserScalar;

pub fn put<T: UserScalar>(v: T, p: *mut c_void) -> bool {
    v.put_user(p)
}
