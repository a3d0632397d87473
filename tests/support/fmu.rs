//! Finding, unpacking and loading the `.fmu`, the way fmusim and FMPy do it.

use std::ffi::CStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fmi_sys::fmi2::Fmi2Binding;

use super::model_description::ModelDescription;

/// Environment variable naming the `.fmu` to test.
pub const FMU_ENV: &str = "ELASTOGAP_FMU";

/// The FMU under test: `$ELASTOGAP_FMU`, else `<crate>/target/fmu/ElastoGap.fmu` (what
/// `packaging/package.py` writes).
pub fn default_fmu_path() -> PathBuf {
    match std::env::var_os(FMU_ENV) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fmu/ElastoGap.fmu"),
    }
}

pub use super::fmi2_names::{COMMON_FUNCTIONS, CO_SIMULATION_FUNCTIONS};

/// Where the shared library sits inside the archive on this platform.
pub fn binary_path_in_archive(model_identifier: &str) -> String {
    if cfg!(windows) {
        format!("binaries/win64/{model_identifier}.dll")
    } else if cfg!(target_os = "macos") {
        format!("binaries/darwin64/{model_identifier}.dylib")
    } else if cfg!(target_arch = "aarch64") {
        format!("binaries/aarch64-linux/{model_identifier}.so")
    } else {
        format!("binaries/linux64/{model_identifier}.so")
    }
}

/// An unpacked and loaded FMU. Field order matters: the library is unloaded before the directory
/// it came from is removed.
pub struct Fmu {
    /// The loaded binary; each function is `Err` if the symbol is missing.
    pub binding: Fmi2Binding,
    pub model_description: ModelDescription,
    /// The `.fmu` this came from.
    pub archive: PathBuf,
    /// Entry names exactly as stored in the zip.
    pub entries: Vec<String>,
    /// The unpacked tree.
    pub root: PathBuf,
    dir: tempfile::TempDir,
}

impl std::fmt::Debug for Fmu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fmu")
            .field("archive", &self.archive)
            .field("root", &self.root)
            .field("model_identifier", &self.model_description.model_identifier)
            .finish()
    }
}

impl Fmu {
    /// Unpack and load the FMU at [`default_fmu_path`]; panics with a hint if that fails.
    pub fn load_default() -> Arc<Fmu> {
        let path = default_fmu_path();
        match Fmu::open(&path) {
            Ok(fmu) => Arc::new(fmu),
            Err(e) => panic!(
                "cannot load the FMU {}: {e}\n(build it with packaging/package.py, or point {FMU_ENV} at an .fmu)",
                path.display()
            ),
        }
    }

    /// Unpack `archive` into a fresh temporary directory, parse its `modelDescription.xml` and
    /// load `binaries/<platform>/<modelIdentifier>.<ext>`.
    pub fn open(archive: &Path) -> Result<Fmu, String> {
        // A space in the directory name makes the resource URI need percent-encoding (`%20`),
        // as it does on many users' machines.
        let dir = tempfile::Builder::new()
            .prefix("elastogap fmu-")
            .tempdir()
            .map_err(|e| format!("temporary directory: {e}"))?;
        let root = dir.path().to_path_buf();
        let entries = unzip(archive, &root)?;

        let xml_path = root.join("modelDescription.xml");
        let xml =
            fs::read_to_string(&xml_path).map_err(|e| format!("{}: {e}", xml_path.display()))?;
        let model_description = ModelDescription::parse(&xml)?;
        if model_description.fmi_version != "2.0" {
            return Err(format!(
                "fmiVersion is {:?}, not \"2.0\"",
                model_description.fmi_version
            ));
        }

        let lib_path = root.join(binary_path_in_archive(&model_description.model_identifier));
        if !lib_path.is_file() {
            return Err(format!(
                "the archive has no {}",
                binary_path_in_archive(&model_description.model_identifier)
            ));
        }
        // SAFETY: loading a shared library runs its initialisers; this is the library under test.
        let binding = unsafe { Fmi2Binding::new(&lib_path) }
            .map_err(|e| format!("cannot load {}: {e}", lib_path.display()))?;

        Ok(Fmu {
            binding,
            model_description,
            archive: archive.to_path_buf(),
            entries,
            root,
            dir,
        })
    }

    /// The temporary directory (removed when the `Fmu` is dropped).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// `file://` URI of the unpacked `resources/` directory, percent-encoded, with a trailing `/`.
    pub fn resource_uri(&self) -> String {
        file_uri(&self.root.join("resources"), true)
    }

    /// Which FMI 2.0 common and co-simulation functions the binary does not export.
    pub fn missing_functions(&self) -> Vec<&'static str> {
        super::fmi2_names::all()
            .filter(|name| !self.has_function(name))
            .collect()
    }

    /// Whether the binary exports `name` (one of the FMI 2.0 functions).
    pub fn has_function(&self, name: &str) -> bool {
        let b = &self.binding;
        match name {
            "fmi2GetTypesPlatform" => b.fmi2GetTypesPlatform.is_ok(),
            "fmi2GetVersion" => b.fmi2GetVersion.is_ok(),
            "fmi2SetDebugLogging" => b.fmi2SetDebugLogging.is_ok(),
            "fmi2Instantiate" => b.fmi2Instantiate.is_ok(),
            "fmi2FreeInstance" => b.fmi2FreeInstance.is_ok(),
            "fmi2SetupExperiment" => b.fmi2SetupExperiment.is_ok(),
            "fmi2EnterInitializationMode" => b.fmi2EnterInitializationMode.is_ok(),
            "fmi2ExitInitializationMode" => b.fmi2ExitInitializationMode.is_ok(),
            "fmi2Terminate" => b.fmi2Terminate.is_ok(),
            "fmi2Reset" => b.fmi2Reset.is_ok(),
            "fmi2GetReal" => b.fmi2GetReal.is_ok(),
            "fmi2GetInteger" => b.fmi2GetInteger.is_ok(),
            "fmi2GetBoolean" => b.fmi2GetBoolean.is_ok(),
            "fmi2GetString" => b.fmi2GetString.is_ok(),
            "fmi2SetReal" => b.fmi2SetReal.is_ok(),
            "fmi2SetInteger" => b.fmi2SetInteger.is_ok(),
            "fmi2SetBoolean" => b.fmi2SetBoolean.is_ok(),
            "fmi2SetString" => b.fmi2SetString.is_ok(),
            "fmi2GetFMUstate" => b.fmi2GetFMUstate.is_ok(),
            "fmi2SetFMUstate" => b.fmi2SetFMUstate.is_ok(),
            "fmi2FreeFMUstate" => b.fmi2FreeFMUstate.is_ok(),
            "fmi2SerializedFMUstateSize" => b.fmi2SerializedFMUstateSize.is_ok(),
            "fmi2SerializeFMUstate" => b.fmi2SerializeFMUstate.is_ok(),
            "fmi2DeSerializeFMUstate" => b.fmi2DeSerializeFMUstate.is_ok(),
            "fmi2GetDirectionalDerivative" => b.fmi2GetDirectionalDerivative.is_ok(),
            "fmi2SetRealInputDerivatives" => b.fmi2SetRealInputDerivatives.is_ok(),
            "fmi2GetRealOutputDerivatives" => b.fmi2GetRealOutputDerivatives.is_ok(),
            "fmi2DoStep" => b.fmi2DoStep.is_ok(),
            "fmi2CancelStep" => b.fmi2CancelStep.is_ok(),
            "fmi2GetStatus" => b.fmi2GetStatus.is_ok(),
            "fmi2GetRealStatus" => b.fmi2GetRealStatus.is_ok(),
            "fmi2GetIntegerStatus" => b.fmi2GetIntegerStatus.is_ok(),
            "fmi2GetBooleanStatus" => b.fmi2GetBooleanStatus.is_ok(),
            "fmi2GetStringStatus" => b.fmi2GetStringStatus.is_ok(),
            "fmi2EnterEventMode" => b.fmi2EnterEventMode.is_ok(),
            "fmi2NewDiscreteStates" => b.fmi2NewDiscreteStates.is_ok(),
            "fmi2EnterContinuousTimeMode" => b.fmi2EnterContinuousTimeMode.is_ok(),
            "fmi2CompletedIntegratorStep" => b.fmi2CompletedIntegratorStep.is_ok(),
            "fmi2SetTime" => b.fmi2SetTime.is_ok(),
            "fmi2SetContinuousStates" => b.fmi2SetContinuousStates.is_ok(),
            "fmi2GetDerivatives" => b.fmi2GetDerivatives.is_ok(),
            "fmi2GetEventIndicators" => b.fmi2GetEventIndicators.is_ok(),
            "fmi2GetContinuousStates" => b.fmi2GetContinuousStates.is_ok(),
            "fmi2GetNominalsOfContinuousStates" => b.fmi2GetNominalsOfContinuousStates.is_ok(),
            other => panic!("{other} is not an FMI 2.0 function"),
        }
    }

    /// `fmi2GetVersion()`, if exported.
    pub fn get_version(&self) -> Option<String> {
        let f = self.binding.fmi2GetVersion.as_ref().ok()?;
        // SAFETY: returns a static NUL-terminated string (or NULL).
        unsafe { c_str(f()) }
    }

    /// `fmi2GetTypesPlatform()`, if exported.
    pub fn get_types_platform(&self) -> Option<String> {
        let f = self.binding.fmi2GetTypesPlatform.as_ref().ok()?;
        // SAFETY: returns a static NUL-terminated string (or NULL).
        unsafe { c_str(f()) }
    }
}

unsafe fn c_str(p: *const std::ffi::c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: caller guarantees a NUL-terminated string.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

/// Unpack every entry of `archive` under `dest`; returns the entry names as stored. Refuses entries
/// that would land outside `dest`.
pub fn unzip(archive: &Path, dest: &Path) -> Result<Vec<String>, String> {
    let file = fs::File::open(archive).map_err(|e| format!("{}: {e}", archive.display()))?;
    let mut zip = zip::ZipArchive::new(io::BufReader::new(file))
        .map_err(|e| format!("{} is not a zip archive: {e}", archive.display()))?;
    let mut names = Vec::with_capacity(zip.len());
    for i in 0..zip.len() {
        let mut entry = zip
            .by_index(i)
            .map_err(|e| format!("zip entry #{i}: {e}"))?;
        // The name as stored (FMU archives use UTF-8 or plain ASCII names).
        let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        let relative = entry
            .enclosed_name()
            .ok_or_else(|| format!("zip entry {name:?} would unpack outside the directory"))?;
        let target = dest.join(relative);
        if entry.is_dir() {
            fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
        } else {
            if let Some(parent) = target.parent() {
                fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            let mut out =
                fs::File::create(&target).map_err(|e| format!("{}: {e}", target.display()))?;
            io::copy(&mut entry, &mut out).map_err(|e| format!("unzip {name}: {e}"))?;
        }
        names.push(name);
    }
    Ok(names)
}

/// A `file://` URI for `path` (made absolute), percent-encoding everything but RFC 3986 unreserved
/// characters and `/`; with `trailing_slash`, ends in `/` as a directory URI.
pub fn file_uri(path: &Path, trailing_slash: bool) -> String {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let mut text = absolute.to_string_lossy().replace('\\', "/");
    if !text.starts_with('/') {
        // Windows: C:/x -> /C:/x
        text.insert(0, '/');
    }
    if trailing_slash && !text.ends_with('/') {
        text.push('/');
    }
    let mut uri = String::from("file://");
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' | b':' => {
                uri.push(b as char)
            }
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri
}
