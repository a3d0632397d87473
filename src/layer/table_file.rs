//! The one String variable, `tableFile`: its text as the importer set it, where it points (the
//! FMU's `resources/` folder, an absolute path or a `file:` URI) and the Gap Force tables read
//! from it when the parameters take effect. Every refusal names the file and the problem.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::resource_path;
use crate::laws::{ForceLaw, GapTables};

/// The `tableFile` parameter of one instance.
#[derive(Debug, Default)]
pub struct TableFile {
    /// As set, and as the layer's string getter hands it out (valid until it is set again).
    text: CString,
    /// The FMU's `resources/` folder, as the importer named it at instantiation.
    resources: Option<PathBuf>,
}

impl TableFile {
    pub fn new(resources: Option<PathBuf>) -> Self {
        TableFile {
            text: CString::default(),
            resources,
        }
    }

    pub fn text(&self) -> &CString {
        &self.text
    }

    pub fn set(&mut self, text: &str) -> Result<(), String> {
        self.text = CString::new(text)
            .map_err(|_| "tableFile must not contain a NUL character".to_string())?;
        Ok(())
    }

    /// Back to the start value (empty), keeping the resource location.
    pub fn clear(&mut self) {
        self.text = CString::default();
    }

    /// The tables for the parameters now in effect: read and checked for the Gap Force when the
    /// file is named, none otherwise.
    pub fn load(&self, force_law: i32) -> Result<Option<Arc<GapTables>>, String> {
        let text = self.text.to_str().unwrap_or("");
        if force_law != ForceLaw::GapForce as i32 || text.is_empty() {
            return Ok(None);
        }
        let path = self.resolve(text)?;
        let json = std::fs::read_to_string(&path).map_err(|why| {
            format!(
                "tableFile '{text}' cannot be read: {why} (looked for {})",
                path.display()
            )
        })?;
        let tables = GapTables::parse(&json)
            .map_err(|why| format!("tableFile '{text}': {why} (read from {})", path.display()))?;
        Ok(Some(Arc::new(tables)))
    }

    /// A `file:` URI, an absolute path, or a path relative to the resources folder.
    fn resolve(&self, text: &str) -> Result<PathBuf, String> {
        if text.starts_with("file:") {
            return resource_path(text).map(PathBuf::from).ok_or_else(|| {
                format!(
                    "tableFile '{text}' is not a file URI this FMU can read (file:///path, file:/path or file://localhost/path)"
                )
            });
        }
        let path = Path::new(text);
        if path.is_absolute() {
            return Ok(path.to_path_buf());
        }
        match &self.resources {
            Some(resources) => Ok(resources.join(path)),
            None => Err(format!(
                "tableFile '{text}' is relative to the FMU's resources folder, but the importer gave no resource location"
            )),
        }
    }
}
