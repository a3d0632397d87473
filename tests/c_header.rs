//! The exported functions have exactly the signatures of the FMI 2.0 standard, and those of the
//! FMI 3.0 layer the signatures of FMI 3.0 (the same check with src/fmi3/, fmi3Functions.h and
//! `tests/c/check_exports3.c`).
//!
//! cbindgen writes a C header of the `extern "C"` functions in `src/fmi2/`; the system C compiler
//! (`cc`) then compiles `tests/c/check_exports.c`, which includes the standard's `fmi2Functions.h`
//! first and the generated header second. C allows a function to be declared twice only with
//! compatible types, so every signature that differs from the standard's is a "conflicting types"
//! error. The standard's headers are those the `fmi-sys` crate ships (and its bindings are made
//! from), read from its source folder, which `cargo metadata` names: no copy in this tree.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "support/fmi2_names.rs"]
mod fmi2_names;
#[path = "support/fmi3_names.rs"]
mod fmi3_names;

const GENERATED_HEADER: &str = "elastogap_fmi2.h";
const GENERATED_HEADER3: &str = "elastogap_fmi3.h";

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The header cbindgen generates from the files of `src/fmi2/`: C, no includes of its own, types such as
/// `fmi2Component` and `fmi2Status` left as names (they are the standard's typedefs).
fn generate_header() -> String {
    generate_header_of("fmi2")
}

/// The same for the files of `src/<layer>/`.
fn generate_header_of(layer: &str) -> String {
    let config = cbindgen::Config {
        language: cbindgen::Language::C,
        no_includes: true,
        usize_is_size_t: true,
        include_guard: Some(format!("ELASTOGAP_{}_H", layer.to_uppercase())),
        documentation: false,
        ..Default::default()
    };
    let mut builder = cbindgen::Builder::new().with_config(config);
    let mut sources: Vec<PathBuf> = std::fs::read_dir(manifest_dir().join("src").join(layer))
        .unwrap_or_else(|e| panic!("read src/{layer}: {e}"))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .collect();
    sources.sort();
    for source in sources {
        builder = builder.with_src(source);
    }
    let bindings = builder
        .generate()
        .unwrap_or_else(|e| panic!("cbindgen parses src/{layer}/: {e}"));
    let mut bytes = Vec::new();
    bindings.write(&mut bytes);
    String::from_utf8(bytes).expect("cbindgen writes UTF-8")
}

/// Names of the functions the header declares: every `fmi2...(` that is not a typedef name.
fn declared_functions(header: &str) -> BTreeSet<String> {
    declared_functions_of(header, "fmi2")
}

/// The same for the names that begin with `prefix`.
fn declared_functions_of(header: &str, prefix: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (start, _) in header.match_indices(prefix) {
        let rest = &header[start..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if rest[end..].starts_with('(') {
            names.insert(rest[..end].to_string());
        }
    }
    names
}

/// The FMI 2.0 standard headers in the source of the `fmi-sys` package this build uses: the folder
/// of its manifest as `cargo metadata` reports it (the registry's unpacked crate, a vendored copy or
/// a path dependency alike), then `fmi-standard2/headers`.
fn fmi2_standard_headers() -> PathBuf {
    standard_headers(
        "fmi-standard2",
        &[
            "fmi2Functions.h",
            "fmi2FunctionTypes.h",
            "fmi2TypesPlatform.h",
        ],
    )
}

/// The FMI 3.0 ones, beside them.
fn fmi3_standard_headers() -> PathBuf {
    standard_headers(
        "fmi-standard3",
        &[
            "fmi3Functions.h",
            "fmi3FunctionTypes.h",
            "fmi3PlatformTypes.h",
        ],
    )
}

/// `<fmi-sys>/<folder>/headers`, holding `files`.
fn standard_headers(folder: &str, files: &[&str]) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--manifest-path",
        ])
        .arg(manifest_dir().join("Cargo.toml"))
        .output()
        .expect("run `cargo metadata`");
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        report(&output)
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
    let headers = Path::new(manifest)
        .parent()
        .expect("a manifest has a folder")
        .join(folder)
        .join("headers");
    for header in files {
        assert!(
            headers.join(header).is_file(),
            "{header} is not in fmi-sys's {}",
            headers.display()
        );
    }
    headers
}

/// Compiles `tests/c/check_exports.c` with the generated header taken from `header_dir`.
fn compile_check(header_dir: &Path, object_dir: &Path) -> Output {
    compile_check_of(
        "check_exports",
        &fmi2_standard_headers(),
        header_dir,
        object_dir,
    )
}

/// Compiles `tests/c/<check>.c` against the standard's headers in `standard` and the generated
/// header in `header_dir`.
fn compile_check_of(check: &str, standard: &Path, header_dir: &Path, object_dir: &Path) -> Output {
    let c_dir = manifest_dir().join("tests").join("c");
    Command::new("cc")
        .args(["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-c"])
        .arg("-I")
        .arg(standard)
        .arg("-I")
        .arg(header_dir)
        .arg(c_dir.join(format!("{check}.c")))
        .arg("-o")
        .arg(object_dir.join(format!("{check}.o")))
        .output()
        .expect("run the system C compiler `cc`")
}

fn report(output: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn generated_header_declares_exactly_the_fmi2_functions_of_both_interfaces() {
    let header = generate_header();
    let expected: BTreeSet<String> = fmi2_names::all().map(|s| s.to_string()).collect();
    assert_eq!(expected.len(), 44);
    assert_eq!(declared_functions(&header), expected, "header:\n{header}");
    assert!(!header.contains("#include"), "header:\n{header}");
}

#[test]
fn exported_signatures_match_the_fmi2_standard_headers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let header = generate_header();
    std::fs::write(dir.path().join(GENERATED_HEADER), &header).expect("write header");
    let output = compile_check(dir.path(), dir.path());
    assert!(
        output.status.success(),
        "the generated declarations conflict with fmi2Functions.h:\n{}\nheader:\n{header}",
        report(&output)
    );
}

/// The check can fail: one parameter type changed in the generated header (fmi2Real -> float in
/// fmi2DoStep, int in place of the size_t of fmi2GetReal) is refused by the compiler.
#[test]
fn a_wrong_signature_fails_to_compile() {
    let header = generate_header();
    let dir = tempfile::tempdir().expect("temp dir");
    let mutations: [(&str, &str, &str); 2] = [
        (
            "fmi2DoStep",
            "fmi2Real communicationStepSize",
            "float communicationStepSize",
        ),
        ("fmi2GetReal", "size_t nvr", "int nvr"),
    ];
    for (function, from, to) in mutations {
        // Change the declaration of `function` only.
        let start = header
            .find(&format!(" {function}("))
            .unwrap_or_else(|| panic!("{function} is declared:\n{header}"));
        let end = start + header[start..].find(';').expect("declaration ends");
        let declaration = &header[start..end];
        assert!(
            declaration.contains(from),
            "{function} has `{from}`: {declaration}"
        );
        let wrong = format!(
            "{}{}{}",
            &header[..start],
            declaration.replacen(from, to, 1),
            &header[end..]
        );
        std::fs::write(dir.path().join(GENERATED_HEADER), &wrong).expect("write header");
        let output = compile_check(dir.path(), dir.path());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success(),
            "{function} with `{to}` compiled:\n{}",
            report(&output)
        );
        assert!(
            stderr.contains("conflicting types") && stderr.contains(function),
            "{}",
            report(&output)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// FMI 3.0
// ---------------------------------------------------------------------------------------------

/// The getters and setters of the types ElastoGap has no variable of: made by a macro in
/// src/fmi3/values.rs, which cbindgen does not expand, so not in the generated header.
fn made_by_a_macro(name: &str) -> bool {
    [
        "Float32", "Int8", "UInt8", "Int16", "UInt16", "UInt32", "UInt64", "Binary", "Clock",
    ]
    .iter()
    .any(|ty| name == format!("fmi3Get{ty}") || name == format!("fmi3Set{ty}"))
}

#[test]
fn generated_fmi3_header_declares_the_fmi3_functions_but_those_a_macro_makes() {
    let header = generate_header_of("fmi3");
    let declared = declared_functions_of(&header, "fmi3");
    let all: BTreeSet<String> = fmi3_names::all().map(String::from).collect();
    assert_eq!(all.len(), fmi3_names::COUNT);
    let extra: Vec<_> = declared.difference(&all).collect();
    assert!(
        extra.is_empty(),
        "not FMI 3.0: {extra:?}\nheader:\n{header}"
    );
    let missing: Vec<_> = all.difference(&declared).collect();
    assert!(
        missing.iter().all(|name| made_by_a_macro(name)),
        "src/fmi3/ does not declare {missing:?}\nheader:\n{header}"
    );
    eprintln!(
        "{} of the {} FMI 3.0 functions in the generated header; made by a macro: {missing:?}",
        declared.len(),
        all.len()
    );
    assert!(!header.contains("#include"), "header:\n{header}");
}

#[test]
fn exported_fmi3_signatures_match_the_fmi3_standard_headers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let header = generate_header_of("fmi3");
    std::fs::write(dir.path().join(GENERATED_HEADER3), &header).expect("write header");
    let output = compile_check_of(
        "check_exports3",
        &fmi3_standard_headers(),
        dir.path(),
        dir.path(),
    );
    assert!(
        output.status.success(),
        "the generated declarations conflict with fmi3Functions.h:\n{}\nheader:\n{header}",
        report(&output)
    );
}

/// The FMI 3.0 check can fail too: fmi3DoStep's step size as a float is refused.
#[test]
fn a_wrong_fmi3_signature_fails_to_compile() {
    let header = generate_header_of("fmi3");
    let start = header.find(" fmi3DoStep(").expect("fmi3DoStep is declared");
    let end = start + header[start..].find(';').expect("declaration ends");
    let declaration = &header[start..end];
    let from = "fmi3Float64 communicationStepSize";
    assert!(declaration.contains(from), "{declaration}");
    let wrong = format!(
        "{}{}{}",
        &header[..start],
        declaration.replacen(from, "float communicationStepSize", 1),
        &header[end..]
    );
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join(GENERATED_HEADER3), &wrong).expect("write header");
    let output = compile_check_of(
        "check_exports3",
        &fmi3_standard_headers(),
        dir.path(),
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success()
            && stderr.contains("conflicting types")
            && stderr.contains("fmi3DoStep"),
        "{}",
        report(&output)
    );
}
