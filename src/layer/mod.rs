//! What both FMI layers need and that is not FMI-typed: the `tableFile` parameter and the Gap Force
//! tables it names, the file paths that `file:` URIs name, and the rules for setting and reading
//! the variables' values (`values`). Safe code; errors are messages,
//! which each layer turns into its own status.

mod table_file;
pub mod values;

pub use table_file::TableFile;

/// The file path named by a `file:` URI (a resource location, a `tableFile`); accepts `file:///p`,
/// `file:/p`, `file://localhost/p` and percent-encoding.
pub fn resource_path(uri: &str) -> Option<String> {
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
