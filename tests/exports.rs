//! The FMU binary exports exactly the FMI 2.0 common and co-simulation functions: importers such as
//! fmusim resolve every one of them at load time, and any other exported symbol (a dependency's
//! `#[no_mangle]` function such as fmi-sys's `callback_log`) can clash with the host or another FMU.
//!
//! Checked binaries, read with the `object` crate (no `nm` needed):
//! * the library cargo built next to this test (`target/<profile>/deps/libelastogap.so`), always;
//! * `binaries/<platform>/<modelIdentifier>.<ext>` inside the packaged FMU, `$ELASTOGAP_FMU`
//!   (must exist when set) or `target/fmu/ElastoGap.fmu` (when present);
//! * `target/release/libelastogap.so`, when present;
//! * `binaries/win64/<modelIdentifier>.dll` inside the packaged FMU, from any platform: its export
//!   list, and its import table, which may name Windows system DLLs only.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use object::{Object, ObjectSymbol, SymbolKind};

#[path = "support/fmi2_names.rs"]
mod fmi2_names;

/// The FMI platform folder and library file name for the platform the tests run on.
fn fmi_platform() -> (&'static str, &'static str, &'static str) {
    // (binaries/<folder>, library prefix cargo uses, extension)
    if cfg!(target_os = "windows") {
        ("win64", "", "dll")
    } else if cfg!(target_os = "macos") {
        ("darwin64", "lib", "dylib")
    } else {
        ("linux64", "lib", "so")
    }
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Exported function names of a shared library image, with ELF-specific sanity checks.
fn exported_names(image: &[u8], what: &str) -> BTreeSet<String> {
    let file = object::File::parse(image).unwrap_or_else(|e| panic!("{what}: not a binary: {e}"));
    let exports = file
        .exports()
        .unwrap_or_else(|e| panic!("{what}: export table: {e}"));
    if file.format() == object::BinaryFormat::Elf {
        // Every defined dynamic symbol is a global function.
        for symbol in file.dynamic_symbols().filter(|s| s.is_definition()) {
            let name = symbol.name().unwrap_or("?");
            assert!(
                symbol.kind() == SymbolKind::Text && symbol.is_global(),
                "{what}: exported {name} is {:?}, global = {}",
                symbol.kind(),
                symbol.is_global()
            );
        }
    }
    exports
        .iter()
        .map(|e| {
            let name = String::from_utf8_lossy(e.name()).into_owned();
            // Mach-O prefixes C symbols with an underscore.
            match file.format() {
                object::BinaryFormat::MachO => name.strip_prefix('_').unwrap_or(&name).to_string(),
                _ => name,
            }
        })
        .collect()
}

/// Compares the exported names with the standard's set; the error names what is missing and extra.
fn check_exports(names: &BTreeSet<String>) -> Result<(), String> {
    let expected: BTreeSet<String> = fmi2_names::all().map(|s| s.to_string()).collect();
    let missing: Vec<_> = expected.difference(names).collect();
    let extra: Vec<_> = names.difference(&expected).collect();
    if missing.is_empty() && extra.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "missing: {missing:?}; not FMI 2.0 co-simulation: {extra:?}"
        ))
    }
}

fn assert_library(image: &[u8], what: &str) {
    let names = exported_names(image, what);
    if let Err(problem) = check_exports(&names) {
        panic!("{what} exports the wrong set of symbols: {problem}");
    }
}

/// The library built alongside this test binary (`target/<profile>/deps/`).
fn library_next_to_this_test() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let (_, prefix, extension) = fmi_platform();
    exe.parent()
        .expect("deps directory")
        .join(format!("{prefix}elastogap.{extension}"))
}

fn packaged_fmu() -> Option<PathBuf> {
    match std::env::var_os("ELASTOGAP_FMU") {
        Some(path) => {
            let path = PathBuf::from(path);
            let path = if path.is_absolute() {
                path
            } else {
                manifest_dir().join(path)
            };
            assert!(
                path.is_file(),
                "ELASTOGAP_FMU={} does not exist",
                path.display()
            );
            Some(path)
        }
        None => {
            let path = manifest_dir().join("target/fmu/ElastoGap.fmu");
            path.is_file().then_some(path)
        }
    }
}

/// The model identifier the FMU's modelDescription.xml gives for co-simulation.
fn model_identifier(model_description: &str) -> String {
    let document = roxmltree::Document::parse(model_description).expect("modelDescription.xml");
    document
        .descendants()
        .find(|n| n.has_tag_name("CoSimulation"))
        .and_then(|n| n.attribute("modelIdentifier"))
        .expect("<CoSimulation modelIdentifier=...>")
        .to_string()
}

fn read_entry(archive: &mut zip::ZipArchive<std::fs::File>, name: &str, fmu: &Path) -> Vec<u8> {
    let mut entry = archive
        .by_name(name)
        .unwrap_or_else(|e| panic!("{}: no {name}: {e}", fmu.display()));
    let mut bytes = Vec::new();
    entry.read_to_end(&mut bytes).expect("read zip entry");
    bytes
}

#[test]
fn library_built_with_this_test_exports_exactly_the_fmi2_functions() {
    let path = library_next_to_this_test();
    let image = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    assert_library(&image, &path.display().to_string());
}

/// The packaged FMU opened as an importer opens it, with the archive path of its binary
/// `binaries/<folder>/<modelIdentifier>.<extension>`; `None` (and a note) without a packaged FMU.
fn packaged_binary(
    folder: &str,
    extension: &str,
) -> Option<(PathBuf, zip::ZipArchive<std::fs::File>, String)> {
    let Some(fmu) = packaged_fmu() else {
        eprintln!(
            "no packaged FMU (target/fmu/ElastoGap.fmu); run packaging/package.py to check it"
        );
        return None;
    };
    let file = std::fs::File::open(&fmu).expect("open the FMU");
    let mut archive = zip::ZipArchive::new(file).expect("the FMU is a zip archive");
    let description = read_entry(&mut archive, "modelDescription.xml", &fmu);
    let identifier = model_identifier(&String::from_utf8_lossy(&description));
    let name = format!("binaries/{folder}/{identifier}.{extension}");
    Some((fmu, archive, name))
}

#[test]
fn packaged_fmu_binary_exports_exactly_the_fmi2_functions() {
    let (folder, _, extension) = fmi_platform();
    let Some((fmu, mut archive, name)) = packaged_binary(folder, extension) else {
        return;
    };
    let image = read_entry(&mut archive, &name, &fmu);
    assert_library(&image, &format!("{}:{name}", fmu.display()));
}

/// The glibc symbol versions an ELF image needs, as (major, minor), sorted.
#[cfg(target_os = "linux")]
fn glibc_versions(image: &[u8], what: &str) -> Vec<(u32, u32)> {
    use object::read::elf::ElfFile64;
    use object::read::SymbolIndex;
    let file = ElfFile64::<object::Endianness>::parse(image)
        .unwrap_or_else(|e| panic!("{what}: not a 64-bit ELF file: {e}"));
    let endian = file.endian();
    let versions = file
        .elf_section_table()
        .versions(endian, image)
        .unwrap_or_else(|e| panic!("{what}: symbol versions: {e}"))
        .unwrap_or_else(|| panic!("{what}: no symbol version table"));
    let mut found = BTreeSet::new();
    for index in 0..file.elf_dynamic_symbol_table().len() {
        let version = versions
            .version(versions.version_index(endian, SymbolIndex(index)))
            .unwrap_or_else(|e| panic!("{what}: version of symbol {index}: {e}"));
        let Some(name) = version.map(|v| String::from_utf8_lossy(v.name()).into_owned()) else {
            continue;
        };
        if let Some(number) = name.strip_prefix("GLIBC_") {
            let mut parts = number.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
            found.insert((parts.next().unwrap_or(0), parts.next().unwrap_or(0)));
        }
    }
    found.into_iter().collect()
}

/// Importers run on old distributions too (RHEL 7 has glibc 2.17): packaging links the Linux
/// binary against the glibc 2.17 symbol versions (cargo-zigbuild), checked here on the shipped file.
#[cfg(target_os = "linux")]
#[test]
fn packaged_linux_binary_needs_no_glibc_newer_than_2_17() {
    // The reader sees the versions a native build of this test needs (at least GLIBC_2.2.5).
    let native = library_next_to_this_test();
    let image = std::fs::read(&native).expect("read the library built with this test");
    assert!(
        glibc_versions(&image, "native build").contains(&(2, 2)),
        "no GLIBC_2.2.5 found in {}",
        native.display()
    );

    let fmu = packaged_fmu().expect("no packaged FMU: run packaging/package.py first");
    let file = std::fs::File::open(&fmu).expect("open the FMU");
    let mut archive = zip::ZipArchive::new(file).expect("the FMU is a zip archive");
    let description = read_entry(&mut archive, "modelDescription.xml", &fmu);
    let identifier = model_identifier(&String::from_utf8_lossy(&description));
    let name = format!("binaries/linux64/{identifier}.so");
    let image = read_entry(&mut archive, &name, &fmu);
    let needed = glibc_versions(&image, &name);
    let newest = needed.last().copied().expect("the binary needs glibc");
    assert!(
        newest <= (2, 17),
        "{name} needs GLIBC_{}.{} (all: {needed:?}); the floor is 2.17",
        newest.0,
        newest.1
    );
}

/// DLLs every Windows 10 has; `api-ms-win-*` API sets are resolved by the loader itself. Anything
/// else (a MinGW runtime such as libgcc_s_seh-1.dll or libwinpthread-1.dll) is absent on users'
/// machines, and LoadLibrary of the FMU then fails with error 126.
const WINDOWS_SYSTEM_DLLS: &[&str] = &[
    "kernel32.dll",
    "ntdll.dll",
    "msvcrt.dll",
    "ucrtbase.dll",
    "advapi32.dll",
    "userenv.dll",
    "ws2_32.dll",
    "bcrypt.dll",
    "bcryptprimitives.dll",
    "user32.dll",
    "shell32.dll",
    "ole32.dll",
    "oleaut32.dll",
    "secur32.dll",
    "synchronization.dll",
];

/// The DLLs a PE image imports from, in the order of its import table, without repeats.
fn imported_dlls(image: &[u8], what: &str) -> Vec<String> {
    let file = object::File::parse(image).unwrap_or_else(|e| panic!("{what}: not a binary: {e}"));
    assert_eq!(
        file.format(),
        object::BinaryFormat::Pe,
        "{what} is not a PE image"
    );
    assert_eq!(
        file.architecture(),
        object::Architecture::X86_64,
        "{what} is not x86-64"
    );
    let mut dlls: Vec<String> = Vec::new();
    for import in file
        .imports()
        .unwrap_or_else(|e| panic!("{what}: import table: {e}"))
    {
        let dll = String::from_utf8_lossy(import.library()).into_owned();
        if !dlls.contains(&dll) {
            dlls.push(dll);
        }
    }
    dlls
}

/// The imported DLLs that are not Windows system DLLs.
fn non_system_dlls(dlls: &[String]) -> Vec<String> {
    dlls.iter()
        .filter(|dll| {
            let name = dll.to_ascii_lowercase();
            !(name.starts_with("api-ms-win-") || WINDOWS_SYSTEM_DLLS.contains(&name.as_str()))
        })
        .cloned()
        .collect()
}

/// The win64 DLL inside the packaged FMU, checked on any platform: Windows users get the same
/// file. Only `ELASTOGAP_SKIP_WIN64` (a developer's linux64-only package) excuses its absence.
#[test]
fn packaged_win64_dll_exports_exactly_the_fmi2_functions_and_imports_only_system_dlls() {
    let Some((fmu, mut archive, name)) = packaged_binary("win64", "dll") else {
        return;
    };
    if archive.by_name(&name).is_err() {
        let skipped =
            std::env::var_os("ELASTOGAP_SKIP_WIN64").is_some_and(|v| v != "0" && !v.is_empty());
        assert!(
            skipped,
            "{} has no {name}: package with the win64 toolchain (packaging/setup.sh installs it)",
            fmu.display()
        );
        eprintln!(
            "{} has no {name} (ELASTOGAP_SKIP_WIN64 is set)",
            fmu.display()
        );
        return;
    }
    let image = read_entry(&mut archive, &name, &fmu);
    let what = format!("{}:{name}", fmu.display());
    assert_library(&image, &what);
    let dlls = imported_dlls(&image, &what);
    eprintln!("{name} imports {}", dlls.join(", "));
    assert!(
        dlls.iter().any(|d| d.eq_ignore_ascii_case("kernel32.dll")),
        "{what}: no KERNEL32.dll among the imports {dlls:?}: not a Windows DLL built as expected"
    );
    let foreign = non_system_dlls(&dlls);
    assert!(
        foreign.is_empty(),
        "{what} imports {foreign:?}, not Windows system DLLs (link the MinGW runtime statically)"
    );
}

#[test]
fn the_import_check_refuses_mingw_runtime_dlls() {
    let dlls: Vec<String> = [
        "KERNEL32.dll",
        "api-ms-win-core-synch-l1-2-0.dll",
        "bcryptprimitives.dll",
        "libgcc_s_seh-1.dll",
        "libwinpthread-1.dll",
        "libstdc++-6.dll",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(
        non_system_dlls(&dlls),
        [
            "libgcc_s_seh-1.dll",
            "libwinpthread-1.dll",
            "libstdc++-6.dll"
        ]
    );
}

#[test]
fn release_library_exports_exactly_the_fmi2_functions() {
    let (_, prefix, extension) = fmi_platform();
    let path = manifest_dir().join(format!("target/release/{prefix}elastogap.{extension}"));
    let Ok(image) = std::fs::read(&path) else {
        eprintln!("no {}; `cargo build --release` to check it", path.display());
        return;
    };
    assert_library(&image, &path.display().to_string());
}

#[test]
fn the_check_names_missing_and_extra_symbols() {
    let mut names: BTreeSet<String> = fmi2_names::all().map(|s| s.to_string()).collect();
    assert_eq!(names.len(), 44);
    assert_eq!(check_exports(&names), Ok(()));
    names.remove("fmi2CancelStep");
    names.insert("callback_log".to_string());
    let problem = check_exports(&names).unwrap_err();
    assert!(
        problem.contains("\"fmi2CancelStep\"") && problem.contains("\"callback_log\""),
        "{problem}"
    );
}
