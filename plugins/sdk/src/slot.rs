//! Holds the one plugin instance that `init` creates, for later calls.

use std::cell::RefCell;

/// A slot for the plugin value of type `T`. Components are single-threaded; the slot lives in a
/// `thread_local`, declared by the export macros.
pub struct Slot<T> {
    value: RefCell<Option<T>>,
}

impl<T> Slot<T> {
    /// An empty slot.
    pub const fn new() -> Self {
        Self {
            value: RefCell::new(None),
        }
    }

    /// Store the value made by `init`, replacing any earlier one.
    pub fn set(&self, value: T) {
        *self.value.borrow_mut() = Some(value);
    }

    /// Run `f` on the value. Calling before `init` succeeded is a host bug: it traps with a
    /// message and the host replaces the instance.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut guard = self.value.borrow_mut();
        match guard.as_mut() {
            Some(value) => f(value),
            None => panic!("warden plugin called before a successful init"),
        }
    }
}

/// Store the value `init` made in the slot behind `key`, or pass its refusal on.
pub fn init_slot<T: 'static>(
    key: &'static std::thread::LocalKey<Slot<T>>,
    made: Result<T, String>,
) -> Result<(), String> {
    let value = made?;
    key.with(|slot| slot.set(value));
    Ok(())
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self::new()
    }
}
