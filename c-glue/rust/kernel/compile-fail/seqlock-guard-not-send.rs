// E0277: a lock is released by the task that took it: its guards stay on that task.
use kernel::sync::SeqLockWriteGuard;

fn send<T: Send>(_: T) {}

pub fn give_away(guard: SeqLockWriteGuard<'_>) {
    send(guard)
}
