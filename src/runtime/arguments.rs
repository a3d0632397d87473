//! The importer's pointers turned into slices, strings and out-parameters, each checked once.

use std::ffi::{c_char, CStr};

use super::{error, Failure};

/// A slice from an importer's array; `n == 0` needs no pointer.
pub fn slice<'a, T>(pointer: *const T, n: usize, what: &str) -> Result<&'a [T], Failure> {
    if n == 0 {
        return Ok(&[]);
    }
    if pointer.is_null() {
        return Err(error(format!(
            "{what} is NULL but {n} values were announced"
        )));
    }
    // SAFETY: the importer passes an array of n elements, as the standard requires.
    Ok(unsafe { std::slice::from_raw_parts(pointer, n) })
}

pub fn slice_mut<'a, T>(pointer: *mut T, n: usize, what: &str) -> Result<&'a mut [T], Failure> {
    if n == 0 {
        return Ok(&mut []);
    }
    if pointer.is_null() {
        return Err(error(format!(
            "{what} is NULL but {n} values were announced"
        )));
    }
    // SAFETY: the importer passes an array of n writable elements, as the standard requires.
    Ok(unsafe { std::slice::from_raw_parts_mut(pointer, n) })
}

/// One writable value the importer passes by pointer.
pub fn out<'a, T>(pointer: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    if pointer.is_null() {
        return Err(error(format!("{what} is NULL")));
    }
    // SAFETY: non-NULL and, as the standard requires, pointing to writable memory of type T.
    Ok(unsafe { &mut *pointer })
}

pub fn string<'a>(pointer: *const c_char) -> Option<&'a str> {
    if pointer.is_null() {
        return None;
    }
    // SAFETY: the importer passes a NUL-terminated string.
    unsafe { CStr::from_ptr(pointer) }.to_str().ok()
}
