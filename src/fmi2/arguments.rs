//! The importer's pointers turned into slices and strings, each checked once; resource URIs.

use std::ffi::CStr;

use fmi_sys::fmi2::fmi2String;

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

pub(super) fn string<'a>(pointer: fmi2String) -> Option<&'a str> {
    if pointer.is_null() {
        return None;
    }
    // SAFETY: the importer passes a NUL-terminated string.
    unsafe { CStr::from_ptr(pointer) }.to_str().ok()
}

/// The file path named by an FMI resource location; accepts `file:///p`, `file:/p`,
/// `file://localhost/p` and percent-encoding.
pub(crate) fn resource_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file:")?;
    let path = if let Some(after) = rest.strip_prefix("//") {
        let slash = after.find('/')?;
        let host = &after[..slash];
        if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
            return None;
        }
        &after[slash..]
    } else {
        rest
    };
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        if bytes[k] == b'%' {
            let hex = std::str::from_utf8(bytes.get(k + 1..k + 3)?).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            k += 3;
        } else {
            decoded.push(bytes[k]);
            k += 1;
        }
    }
    let mut path = String::from_utf8(decoded).ok()?;
    // "/C:/dir" is a Windows drive path.
    if path.len() >= 3 && path.as_bytes()[0] == b'/' && path.as_bytes()[2] == b':' {
        path.remove(0);
    }
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::resource_path;

    #[test]
    fn resource_locations_of_all_importers_are_understood() {
        assert_eq!(
            resource_path("file:///tmp/x/resources/").as_deref(),
            Some("/tmp/x/resources/")
        );
        assert_eq!(
            resource_path("file:/tmp/x/resources").as_deref(),
            Some("/tmp/x/resources")
        );
        assert_eq!(
            resource_path("file://localhost/tmp/x").as_deref(),
            Some("/tmp/x")
        );
        assert_eq!(
            resource_path("file:///tmp/a%20b/").as_deref(),
            Some("/tmp/a b/")
        );
        assert_eq!(
            resource_path("file:///C:/Users/x/").as_deref(),
            Some("C:/Users/x/")
        );
        assert_eq!(resource_path("http://example/x"), None);
        assert_eq!(resource_path("file://otherhost/x"), None);
        assert_eq!(resource_path("file:///bad%2"), None);
    }
}
