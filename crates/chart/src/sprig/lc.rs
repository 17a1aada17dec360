//! The two pieces of AWS-LC's C API that [`super::dsa`] and [`super::rsa_gen`] share:
//! ownership of a C object and DER written by one of its `*_marshal_*` functions. They
//! call the C library (aws-lc-sys, the library aws-lc-rs links) for what aws-lc-rs does
//! not wrap; everything else goes through aws-lc-rs.
use std::os::raw::c_int;

use aws_lc_sys as ffi;

/// An AWS-LC object, freed with its destructor when dropped.
pub(super) struct Owned<T>(pub(super) *mut T, unsafe extern "C" fn(*mut T));

impl<T> Owned<T> {
    /// `made` (from a constructor that returns null when out of memory), or `None`.
    pub(super) fn new(made: *mut T, free: unsafe extern "C" fn(*mut T)) -> Option<Self> {
        (!made.is_null()).then_some(Owned(made, free))
    }

    /// Hands the object over to a C function that takes ownership of it.
    pub(super) fn into_raw(self) -> *mut T {
        let ptr = self.0;
        std::mem::forget(self);
        ptr
    }
}

impl<T> Drop for Owned<T> {
    fn drop(&mut self) {
        // SAFETY: the pointer came from the matching constructor, is not null and is
        // freed only here.
        unsafe { (self.1)(self.0) }
    }
}

/// The DER `write` puts into a fresh byte builder (a `*_marshal_*` function returning 1 on
/// success), or `None` when it or the builder fails.
pub(super) fn der(write: impl FnOnce(*mut ffi::CBB) -> c_int) -> Option<Vec<u8>> {
    let mut cbb = std::mem::MaybeUninit::<ffi::CBB>::uninit();
    // SAFETY: CBB_init initialises the builder; once it has succeeded the builder is
    // either finished (its buffer handed to us, copied, then freed) or cleaned up.
    unsafe {
        if ffi::CBB_init(cbb.as_mut_ptr(), 2048) != 1 {
            return None;
        }
        let cbb = cbb.as_mut_ptr();
        let (mut data, mut len) = (std::ptr::null_mut::<u8>(), 0usize);
        if write(cbb) != 1 || ffi::CBB_finish(cbb, &raw mut data, &raw mut len) != 1 {
            ffi::CBB_cleanup(cbb);
            return None;
        }
        let der = std::slice::from_raw_parts(data, len).to_vec();
        ffi::OPENSSL_free(data.cast());
        Some(der)
    }
}
