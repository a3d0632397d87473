//! The FMU binaries export exactly their standard's functions: the FMI 2.0 ones the 44 common,
//! co-simulation and Model Exchange functions, the FMI 3.0 ones the 75 of fmi3Functions.h. Importers
//! such as fmusim resolve every one of them at load time, and any other exported symbol (a
//! dependency's `#[no_mangle]` function such as fmi-sys's `callback_log`) can clash with the host or
//! another FMU.
//!
//! Checked binaries, read with the `object` crate (no `nm` needed):
//! * the library cargo built next to this test (`target/<profile>/deps/libelastogap.so`), always:
//!   the functions of the layers its cargo features enable (`fmi2`, `fmi3` or both);
//! * `binaries/<platform>/<modelIdentifier>.<ext>` inside the packaged FMU, `$ELASTOGAP_FMU`
//!   (must exist when set) or `target/fmu/ElastoGap.fmu` (when present);
//! * `target/release/libelastogap.so`, when present: one layer's or both layers' functions exactly
//!   (packaging/package.py builds both layers there, one after the other);
//! * `binaries/win64/<modelIdentifier>.dll` inside the packaged FMU, from any platform: its export
//!   list, and its import table, which may name Windows system DLLs only;
//! * both binaries of the FMI 3.0 FMU, `$ELASTOGAP3_FMU` (must exist when set) or
//!   `target/fmu/ElastoGap3.fmu` (when present), from any platform:
//!   `binaries/x86_64-linux/ElastoGap3.so` and `binaries/x86_64-windows/ElastoGap3.dll`, the same
//!   checks as the FMI 2.0 ones.
//!
//! The FMI 3.0 list (`support/fmi3_names.rs`) is checked against fmi-sys's copy of fmi3Functions.h
//! when cargo runs the test (it names the header's folder).

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use object::{Object, ObjectSymbol, SymbolKind};

#[path = "support/fmi2_names.rs"]
mod fmi2_names;
#[path = "support/fmi3_names.rs"]
mod fmi3_names;

/// One standard's function set, for the checks and their messages.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Standard {
    Fmi2,
    Fmi3,
}

impl Standard {
    fn names(self) -> BTreeSet<String> {
        match self {
            Standard::Fmi2 => fmi2_names::all().map(String::from).collect(),
            Standard::Fmi3 => fmi3_names::all().map(String::from).collect(),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Standard::Fmi2 => "FMI 2.0",
            Standard::Fmi3 => "FMI 3.0",
        }
    }
}

/// The layers the library built with this test exports: those its cargo features enable.
fn enabled_layers() -> Vec<Standard> {
    let mut layers = Vec::new();
    if cfg!(feature = "fmi2") {
        layers.push(Standard::Fmi2);
    }
    if cfg!(feature = "fmi3") {
        layers.push(Standard::Fmi3);
    }
    layers
}

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

/// Compares the exported names with the FMI 2.0 set; the error names what is missing and extra.
fn check_exports(names: &BTreeSet<String>) -> Result<(), String> {
    check_exports_of(names, &[Standard::Fmi2])
}

/// Compares the exported names with the union of the standards' sets; the error names what is
/// missing and extra.
fn check_exports_of(names: &BTreeSet<String>, layers: &[Standard]) -> Result<(), String> {
    let expected: BTreeSet<String> = layers.iter().flat_map(|s| s.names()).collect();
    let missing: Vec<_> = expected.difference(names).collect();
    let extra: Vec<_> = names.difference(&expected).collect();
    if missing.is_empty() && extra.is_empty() {
        Ok(())
    } else {
        let labels: Vec<_> = layers.iter().map(|s| s.label()).collect();
        Err(format!(
            "missing: {missing:?}; not {}: {extra:?}",
            labels.join(" or ")
        ))
    }
}

fn assert_library(image: &[u8], what: &str) {
    assert_library_of(image, what, &[Standard::Fmi2]);
}

fn assert_library_of(image: &[u8], what: &str, layers: &[Standard]) {
    let names = exported_names(image, what);
    if let Err(problem) = check_exports_of(&names, layers) {
        panic!("{what} exports the wrong set of symbols: {problem}");
    }
    eprintln!("{what} exports exactly the {} functions", names.len());
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
fn library_built_with_this_test_exports_exactly_the_functions_of_its_layers() {
    let path = library_next_to_this_test();
    let image = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    assert_library_of(&image, &path.display().to_string(), &enabled_layers());
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
        assert_win64_skipped(&fmu, &name);
        return;
    }
    let image = read_entry(&mut archive, &name, &fmu);
    assert_windows_dll(&image, &format!("{}:{name}", fmu.display()), Standard::Fmi2);
}

/// Only `ELASTOGAP_SKIP_WIN64` (a developer's linux64-only package) excuses a missing DLL.
fn assert_win64_skipped(fmu: &Path, name: &str) {
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
}

/// A Windows DLL of the FMU: exactly the standard's exports, x86-64, system DLLs only.
fn assert_windows_dll(image: &[u8], what: &str, standard: Standard) {
    assert_library_of(image, what, &[standard]);
    let dlls = imported_dlls(image, what);
    eprintln!("{what} imports {}", dlls.join(", "));
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

/// `cargo build --release` makes the FMI 2.0 library there, `--no-default-features --features
/// fmi3` the FMI 3.0 one (packaging/package.py builds both, the FMI 3.0 one last), and a build with
/// both features exports both sets: any of the three exactly, nothing else.
#[test]
fn release_library_exports_exactly_the_functions_of_one_layer_or_both() {
    let (_, prefix, extension) = fmi_platform();
    let path = manifest_dir().join(format!("target/release/{prefix}elastogap.{extension}"));
    let Ok(image) = std::fs::read(&path) else {
        eprintln!("no {}; `cargo build --release` to check it", path.display());
        return;
    };
    let what = path.display().to_string();
    let names = exported_names(&image, &what);
    let choices: [&[Standard]; 3] = [
        &[Standard::Fmi2],
        &[Standard::Fmi3],
        &[Standard::Fmi2, Standard::Fmi3],
    ];
    let problems: Vec<String> = choices
        .iter()
        .map(|layers| check_exports_of(&names, layers))
        .filter_map(Result::err)
        .collect();
    assert!(
        problems.len() < choices.len(),
        "{what} exports the wrong set of symbols: {}",
        problems.join("; or ")
    );
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

#[test]
fn the_check_of_both_layers_names_what_the_other_lacks() {
    let fmi3: BTreeSet<String> = Standard::Fmi3.names();
    assert_eq!(fmi3.len(), fmi3_names::COUNT);
    assert_eq!(check_exports_of(&fmi3, &[Standard::Fmi3]), Ok(()));
    let problem = check_exports_of(&fmi3, &[Standard::Fmi2, Standard::Fmi3]).unwrap_err();
    assert!(problem.contains("\"fmi2DoStep\""), "{problem}");
    let mut both: BTreeSet<String> = fmi3.union(&Standard::Fmi2.names()).cloned().collect();
    assert_eq!(both.len(), 44 + fmi3_names::COUNT);
    assert_eq!(
        check_exports_of(&both, &[Standard::Fmi2, Standard::Fmi3]),
        Ok(())
    );
    both.remove("fmi3ActivateModelPartition");
    let problem = check_exports_of(&both, &[Standard::Fmi3]).unwrap_err();
    assert!(
        problem.contains("\"fmi3ActivateModelPartition\"") && problem.contains("\"fmi2DoStep\""),
        "{problem}"
    );
}

// ---------------------------------------------------------------------------------------------
// The FMI 3.0 FMU
// ---------------------------------------------------------------------------------------------

/// `$ELASTOGAP3_FMU` (must exist when set), else `target/fmu/ElastoGap3.fmu` when present.
fn packaged_fmu3() -> Option<PathBuf> {
    match std::env::var_os("ELASTOGAP3_FMU").filter(|p| !p.is_empty()) {
        Some(path) => {
            let path = PathBuf::from(path);
            let path = if path.is_absolute() {
                path
            } else {
                manifest_dir().join(path)
            };
            assert!(
                path.is_file(),
                "ELASTOGAP3_FMU={} does not exist",
                path.display()
            );
            Some(path)
        }
        None => {
            let path = manifest_dir().join("target/fmu/ElastoGap3.fmu");
            path.is_file().then_some(path)
        }
    }
}

/// The FMI 3.0 FMU opened, with its one model identifier: FMI 3.0 lets each interface name its
/// own binary, this FMU names the same one for both.
fn packaged_fmu3_archive() -> Option<(PathBuf, zip::ZipArchive<std::fs::File>, String)> {
    let Some(fmu) = packaged_fmu3() else {
        eprintln!(
            "no packaged FMI 3.0 FMU (target/fmu/ElastoGap3.fmu); run packaging/package.py to check it"
        );
        return None;
    };
    let file = std::fs::File::open(&fmu).expect("open the FMU");
    let mut archive = zip::ZipArchive::new(file).expect("the FMU is a zip archive");
    let description = read_entry(&mut archive, "modelDescription.xml", &fmu);
    let text = String::from_utf8_lossy(&description);
    let document = roxmltree::Document::parse(&text).expect("modelDescription.xml");
    let root = document.root_element();
    assert_eq!(
        root.attribute("fmiVersion"),
        Some("3.0"),
        "{}",
        fmu.display()
    );
    let identifiers: BTreeSet<&str> = root
        .children()
        .filter(|n| n.has_tag_name("CoSimulation") || n.has_tag_name("ModelExchange"))
        .filter_map(|n| n.attribute("modelIdentifier"))
        .collect();
    assert_eq!(
        identifiers.len(),
        1,
        "{}: the interfaces name {identifiers:?}",
        fmu.display()
    );
    let identifier = identifiers.into_iter().next().unwrap().to_string();
    Some((fmu, archive, identifier))
}

/// From any platform: the file is the same one users get.
#[test]
fn packaged_fmi3_linux_binary_exports_exactly_the_fmi3_functions() {
    let Some((fmu, mut archive, identifier)) = packaged_fmu3_archive() else {
        return;
    };
    let name = format!("binaries/x86_64-linux/{identifier}.so");
    let image = read_entry(&mut archive, &name, &fmu);
    let what = format!("{}:{name}", fmu.display());
    let file = object::File::parse(&*image).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(file.format(), object::BinaryFormat::Elf, "{what}");
    assert_eq!(file.architecture(), object::Architecture::X86_64, "{what}");
    assert_library_of(&image, &what, &[Standard::Fmi3]);
}

/// The same glibc floor as the FMI 2.0 binary's.
#[cfg(target_os = "linux")]
#[test]
fn packaged_fmi3_linux_binary_needs_no_glibc_newer_than_2_17() {
    let Some((fmu, mut archive, identifier)) = packaged_fmu3_archive() else {
        return;
    };
    let name = format!("binaries/x86_64-linux/{identifier}.so");
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

#[test]
fn packaged_fmi3_windows_dll_exports_exactly_the_fmi3_functions_and_imports_only_system_dlls() {
    let Some((fmu, mut archive, identifier)) = packaged_fmu3_archive() else {
        return;
    };
    let name = format!("binaries/x86_64-windows/{identifier}.dll");
    if archive.by_name(&name).is_err() {
        assert_win64_skipped(&fmu, &name);
        return;
    }
    let image = read_entry(&mut archive, &name, &fmu);
    assert_windows_dll(&image, &format!("{}:{name}", fmu.display()), Standard::Fmi3);
}

/// The functions fmi3Functions.h declares: its `FMI3_Export fmi3XxxTYPE fmi3Xxx;` lines.
fn header_functions(header: &str) -> Vec<String> {
    header
        .lines()
        .filter_map(|line| line.trim().strip_prefix("FMI3_Export "))
        .map(|declaration| {
            let words: Vec<&str> = declaration.split_whitespace().collect();
            let name = words
                .last()
                .and_then(|w| w.strip_suffix(';'))
                .unwrap_or_else(|| panic!("not a declaration: {declaration:?}"));
            assert_eq!(
                words.first().copied(),
                Some(format!("{name}TYPE").as_str()),
                "{declaration:?}"
            );
            name.to_string()
        })
        .collect()
}

/// fmi-sys's copy of fmi3Functions.h (the headers its bindings are made from), found through
/// `cargo metadata`: `None` when the test runs without cargo (under Wine).
fn fmi3_functions_header() -> Option<PathBuf> {
    let cargo = std::env::var_os("CARGO")?;
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--manifest-path",
        ])
        .arg(manifest_dir().join("Cargo.toml"))
        .output()
        .expect("run `cargo metadata`");
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata writes JSON");
    let manifest = metadata["packages"]
        .as_array()
        .expect("cargo metadata lists packages")
        .iter()
        .find(|package| package["name"] == "fmi-sys")
        .and_then(|package| package["manifest_path"].as_str())
        .expect("fmi-sys is a dependency with a manifest path");
    let header = Path::new(manifest)
        .parent()
        .expect("a manifest has a folder")
        .join("fmi-standard3/headers/fmi3Functions.h");
    assert!(header.is_file(), "no {}", header.display());
    Some(header)
}

#[test]
fn the_fmi3_list_is_the_functions_of_fmi3functions_h() {
    let names: Vec<&str> = fmi3_names::all().collect();
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len(), "a name is listed twice");
    assert_eq!(names.len(), fmi3_names::COUNT);
    let Some(header) = fmi3_functions_header() else {
        eprintln!("not run by cargo: fmi-sys's fmi3Functions.h not looked for");
        return;
    };
    let text = std::fs::read_to_string(&header).expect("read fmi3Functions.h");
    let declared = header_functions(&text);
    // In the header's order: the list is written as the header is laid out.
    assert_eq!(
        names,
        declared,
        "support/fmi3_names.rs against {}",
        header.display()
    );
}
