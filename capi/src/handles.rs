//! Handles across the boundary: every object the library gives out is a
//! pointer to a boxed Rust value, made here and freed by its type's
//! `*_free` function; results go to places the caller passes.

use crate::error::Failure;

/// Stores `value` in the caller's `out`.
///
/// # Safety
/// `out` is NULL (an error) or a valid place for a `T`.
pub(crate) unsafe fn value_out<T>(out: *mut T, value: T) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::null("the result"));
    }
    // SAFETY: the caller's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// A new handle for the caller, stored in `out`.
///
/// # Safety
/// `out` is NULL (an error) or a valid place for one pointer.
pub(crate) unsafe fn handle_out<T>(out: *mut *mut T, value: T) -> Result<(), Failure> {
    // SAFETY: the caller's contract.
    unsafe { value_out(out, Box::into_raw(Box::new(value))) }
}

/// The handle `ptr` (`what` names it in errors).
///
/// # Safety
/// `ptr` is NULL or a live handle of this type, not being changed by
/// another thread.
pub(crate) unsafe fn handle<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: the caller's contract.
    unsafe { ptr.as_ref() }.ok_or_else(|| Failure::null(what))
}

/// The handle `ptr`, to change (`what` names it in errors).
///
/// # Safety
/// `ptr` is NULL or a live handle of this type that no other thread uses.
pub(crate) unsafe fn handle_mut<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller's contract.
    unsafe { ptr.as_mut() }.ok_or_else(|| Failure::null(what))
}

/// Frees a handle made by [`handle_out`]; NULL does nothing.
///
/// # Safety
/// `ptr` is NULL or a handle of this type made by this library, freed once.
pub(crate) unsafe fn free_handle<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: the caller's contract: it came from Box::into_raw in `handle_out`.
        drop(unsafe { Box::from_raw(ptr) });
    }
}
