//! The layers of ARCHITECTURE.md, checked on the sources: the core knows nothing of FMI 2 or 3 (it
//! names no FMI function or type), only the FMI layers (`src/fmi2/`, `src/fmi3/`) and the runtime
//! they share (`src/runtime/`) have `unsafe` code, and each core module depends only on the layers
//! below it. The runtime is held to the core's other rules: it names no FMI version either, and
//! uses only the modules its row allows. Unit tests (`#[cfg(test)]` items) are left out: they may
//! reach across layers to check one another.

use std::path::{Path, PathBuf};

/// What each part of the core may name of the crate outside itself (`crate::<module>`).
const ALLOWED: [(&str, &[&str]); 9] = [
    ("variables", &[]),
    ("laws", &["variables"]),
    ("step", &["laws"]),
    ("coupling", &["laws", "step"]),
    (
        "model",
        &["coupling", "laws", "step", "variables", "with_law"],
    ),
    ("snapshot", &["coupling", "laws", "model", "variables"]),
    ("layer", &["laws", "model", "variables"]),
    (
        "runtime",
        &["layer", "laws", "model", "snapshot", "variables", "GUID"],
    ),
    ("lib", &[]),
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top module a file of `src/` belongs to (`step` for `src/step/dynamic.rs`).
fn module_of(path: &Path) -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let relative = path.strip_prefix(&src).expect("a file under src/");
    let first = relative.components().next().expect("a path");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// The code of a file without its `#[cfg(test)]` items, comments kept (the FMI 2 check reads
/// them too).
fn without_tests(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            out.push(line.to_string());
            continue;
        }
        let mut depth = 0i64;
        let mut opened = false;
        for item in lines.by_ref() {
            let code = item.split("//").next().unwrap_or("");
            depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            opened |= code.contains('{');
            if (opened && depth <= 0) || (!opened && code.trim_end().ends_with(';')) {
                break;
            }
        }
    }
    out
}

/// The files of modules declared under `#[cfg(test)]` (`mod checks;`, with or without a
/// `#[path]`): test code, like the items `without_tests` removes.
fn test_only_files(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut test_only = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path).expect("a readable source");
        let stem = path.file_stem().unwrap().to_string_lossy();
        let parent = path.parent().unwrap();
        let dir = if stem == "mod" || stem == "lib" {
            parent.to_path_buf()
        } else {
            parent.join(&*stem)
        };
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (i, line) in lines.iter().enumerate() {
            if *line != "#[cfg(test)]" {
                continue;
            }
            let mut explicit = None;
            for next in &lines[i + 1..] {
                if let Some(rest) = next.strip_prefix("#[path = \"") {
                    explicit = rest.split('"').next().map(|p| parent.join(p));
                    continue;
                }
                let declared = next
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub(super) ")
                    .trim_start_matches("pub ");
                if let Some(name) = declared
                    .strip_prefix("mod ")
                    .and_then(|r| r.strip_suffix(';'))
                {
                    test_only.push(
                        explicit
                            .take()
                            .unwrap_or_else(|| dir.join(format!("{name}.rs"))),
                    );
                    test_only.push(dir.join(name).join("mod.rs"));
                }
                break;
            }
        }
    }
    test_only
}

fn core_files() -> Vec<(String, PathBuf, Vec<String>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let test_only = test_only_files(&files);
    files
        .into_iter()
        .filter(|path| !test_only.contains(path))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a readable source");
            (module_of(&path), path, without_tests(&text))
        })
        .filter(|(module, _, _)| !["fmi2", "fmi3", "test_random"].contains(&module.as_str()))
        .collect()
}

#[test]
fn the_core_names_no_fmi_standard() {
    let mut found = Vec::new();
    for (module, path, lines) in core_files() {
        for (i, line) in lines.iter().enumerate() {
            let lower = line.to_lowercase();
            let names_fmi = ["fmi2", "fmi3", "fmi_sys", "fmi 2", "fmi 3", "fmi-sys"]
                .iter()
                .any(|word| lower.contains(word));
            // The crate root declares the layers (and documents them) and says what the crate is.
            let declaration = module == "lib"
                && ([
                    "pub mod fmi2;",
                    "pub mod fmi3;",
                    "#[cfg(feature = \"fmi2\")]",
                    "#[cfg(feature = \"fmi3\")]",
                    "#[cfg(any(feature = \"fmi2\", feature = \"fmi3\"))]",
                    "#[cfg_attr(not(all(feature = \"fmi2\", feature = \"fmi3\")), allow(dead_code))]",
                ]
                .contains(&line.trim())
                    || line.trim_start().starts_with("//!")
                    || line.trim_start().starts_with("///"));
            if names_fmi && !declaration {
                found.push(format!("{}:{}: {line}", path.display(), i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the core names an FMI standard:\n{}",
        found.join("\n")
    );
}

#[test]
fn only_the_fmi_layer_has_unsafe_code() {
    let mut found = Vec::new();
    // The runtime under both layers dereferences the importer's pointers, as the layers do.
    let core = core_files()
        .into_iter()
        .filter(|(module, _, _)| module != "runtime");
    for (_, path, lines) in core {
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let words: Vec<&str> = code
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .collect();
            if words.contains(&"unsafe") && !code.contains("deny(unsafe_code)") {
                found.push(format!("{}:{}: {line}", path.display(), i + 1));
            }
        }
    }
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("src/lib.rs");
    assert!(
        lib.contains("#![deny(unsafe_code)]"),
        "the crate denies unsafe code"
    );
    assert!(
        found.is_empty(),
        "unsafe in the core:\n{}",
        found.join("\n")
    );
}

#[test]
fn each_core_module_depends_only_on_the_layers_below_it() {
    let mut found = Vec::new();
    for (module, path, lines) in core_files() {
        let allowed = ALLOWED
            .iter()
            .find(|(name, _)| *name == module)
            .unwrap_or_else(|| panic!("{module} has no row in ALLOWED: add it to the layers"))
            .1;
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for part in code.split("crate::").skip(1) {
                let target: String = part
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if target != module && !allowed.contains(&target.as_str()) {
                    found.push(format!(
                        "{}:{}: uses crate::{target}",
                        path.display(),
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "dependencies against the layers:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scanner_sees_what_it_checks() {
    // The checks above pass on an empty list; make sure they read the core.
    let files = core_files();
    let modules: Vec<&str> = files.iter().map(|(m, _, _)| m.as_str()).collect();
    for module in [
        "laws",
        "step",
        "coupling",
        "model",
        "snapshot",
        "variables",
        "runtime",
        "lib",
    ] {
        assert!(modules.contains(&module), "no file of {module} was read");
    }
    assert!(
        files.iter().all(|(_, p, _)| !p.ends_with("laws/checks.rs")),
        "laws/checks.rs is declared under #[cfg(test)]: test code"
    );
    let stripped = without_tests("fn a() {}\n#[cfg(test)]\nmod tests {\n fn b() { }\n}\nfn c() {}");
    assert_eq!(stripped, vec!["fn a() {}", "fn c() {}"]);
}
