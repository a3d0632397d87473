//! The importer's pointers turned into slices, strings and out-parameters, each checked once.

use std::ffi::CStr;

use fmi_sys::fmi3::fmi3String;

use super::logging::{error, Failure};

/// A slice from an importer's array; `n == 0` needs no pointer.
pub(super) fn slice<'a, T>(pointer: *const T, n: usize, what: &str) -> Result<&'a [T], Failure> {
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

pub(super) fn slice_mut<'a, T>(
    pointer: *mut T,
    n: usize,
    what: &str,
) -> Result<&'a mut [T], Failure> {
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
pub(super) fn out<'a, T>(pointer: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    if pointer.is_null() {
        return Err(error(format!("{what} is NULL")));
    }
    // SAFETY: non-NULL and, as the standard requires, pointing to writable memory of type T.
    Ok(unsafe { &mut *pointer })
}

pub(super) fn string<'a>(pointer: fmi3String) -> Option<&'a str> {
    if pointer.is_null() {
        return None;
    }
    // SAFETY: the importer passes a NUL-terminated string.
    unsafe { CStr::from_ptr(pointer) }.to_str().ok()
}

/// FMI 3.0 variables may be arrays, so a getter or setter is told the number of values apart from
/// the number of value references; this FMU's variables are all scalars.
pub(super) fn check_scalars(n_value_references: usize, n_values: usize) -> Result<(), Failure> {
    if n_values == n_value_references {
        return Ok(());
    }
    Err(error(format!(
        "nValues = {n_values}, but {n_value_references} value references of scalar variables were given"
    )))
}
