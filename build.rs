//! Writes, from the variable table in `src/variables.rs`, `$OUT_DIR/modelDescription.xml` (FMI 2.0,
//! template `modelDescription.xml.in`), `$OUT_DIR/modelDescription3.xml` (FMI 3.0, template
//! `modelDescription3.xml.in`) and `$OUT_DIR/terminalsAndIcons.xml` (FMI 3.0), and hands the GUID (a
//! hash of that table, also FMI 3.0's instantiation token) to the library as `ELASTOGAP_GUID`.

#[path = "src/variables.rs"]
#[allow(dead_code)]
mod variables;

#[path = "build/common_xml.rs"]
mod common_xml;
#[path = "build/fmi2_xml.rs"]
mod fmi2_xml;
#[path = "build/fmi3_xml.rs"]
mod fmi3_xml;
#[path = "build/terminals.rs"]
mod terminals;

use sha2::{Digest, Sha256};
use std::{env, fs, path::PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=src/variables.rs");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=modelDescription.xml.in");
    println!("cargo:rerun-if-changed=modelDescription3.xml.in");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");

    let guid = guid_of(&variables::interface_fingerprint());
    println!("cargo:rustc-env=ELASTOGAP_GUID={guid}");
    let date = generation_date();
    let header = |template: &str| {
        template
            .replace("@GUID@", &guid)
            .replace("@VERSION@", env!("CARGO_PKG_VERSION"))
            .replace(
                "@GENERATION_TOOL@",
                &format!("elastogap {} build.rs", env!("CARGO_PKG_VERSION")),
            )
            .replace("@GENERATION_DATE@", &date)
    };

    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    for (template, output, fill) in [
        (
            "modelDescription.xml.in",
            "modelDescription.xml",
            fmi2_xml::model_description as fn(&str, &dyn Fn(&str) -> String) -> String,
        ),
        (
            "modelDescription3.xml.in",
            "modelDescription3.xml",
            fmi3_xml::model_description,
        ),
    ] {
        let text = fs::read_to_string(template).unwrap_or_else(|e| panic!("read {template}: {e}"));
        let xml = fill(&text, &header);
        assert!(
            !xml.contains('@'),
            "a placeholder in {template} was not filled"
        );
        fs::write(out_dir.join(output), xml).unwrap_or_else(|e| panic!("write {output}: {e}"));
    }
    fs::write(
        out_dir.join("terminalsAndIcons.xml"),
        terminals::terminals_and_icons(),
    )
    .expect("write terminalsAndIcons.xml");
    restrict_exports_to_fmi(&out_dir);
}

/// The FMU must export its FMI functions and nothing else, but rustc exports every `#[no_mangle]`
/// function of every dependency too (fmi-sys defines `callback_log` for its own logger) and lists
/// each by name in its own version script (ELF) or `.def` file (PE).
///
/// Which names stay is the cargo features' choice: `fmi2*` for the FMI 2.0 binary, `fmi3*` for the
/// FMI 3.0 one, both when tests build the library with both layers.
///
/// ELF: GNU ld merges version scripts and an exact name beats a wildcard, so `callback_log` is
/// named as local in a second script. Without the FMI 2.0 layer the symbol may be absent, and
/// naming an absent symbol fails the link (`--no-undefined-version`), so that link allows it.
///
/// PE (MinGW): ld exports every name of a `.def` file whatever else it is told (`--exclude-symbols`
/// and version scripts only filter its automatic export, which a `.def` file turns off), so the
/// `.def` itself must lose the names. gcc runs the linker through a `-wrapper` program; this one
/// hands the linker a copy of each `.def` argument that keeps only the FMI names.
///
/// `tests/exports.rs` catches any other symbol on both.
fn restrict_exports_to_fmi(out_dir: &std::path::Path) {
    let fmi2 = env::var_os("CARGO_FEATURE_FMI2").is_some();
    let fmi3 = env::var_os("CARGO_FEATURE_FMI3").is_some();
    let prefixes: Vec<&str> = [(fmi2, "fmi2"), (fmi3, "fmi3")]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, prefix)| *prefix)
        .collect();
    if prefixes.is_empty() {
        // No layer, nothing to export (a build of the core alone).
        return;
    }
    let target_os = env::var("CARGO_CFG_TARGET_OS");
    let target_env = env::var("CARGO_CFG_TARGET_ENV");
    let host_is_unix = !env::var("HOST").unwrap_or_default().contains("windows");
    if target_os.as_deref() == Ok("windows") && target_env.as_deref() == Ok("gnu") && host_is_unix {
        let wrapper = out_dir.join("fmi-exports-only.sh");
        let script = DEF_FILTER_WRAPPER.replace("@PREFIXES@", &prefixes.join("|"));
        fs::write(&wrapper, script).expect("write the linker wrapper");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755))
                .expect("make the linker wrapper executable");
        }
        println!("cargo:rustc-cdylib-link-arg=-wrapper");
        println!("cargo:rustc-cdylib-link-arg={}", wrapper.display());
        return;
    }
    if target_os.as_deref() != Ok("linux") {
        return;
    }
    let global: String = prefixes.iter().map(|p| format!(" {p}*;")).collect();
    let local = " callback_log;";
    if !fmi2 {
        // Without the FMI 2.0 layer nothing of fmi-sys's fmi2 module is used, and whether the
        // linker still sees `callback_log` depends on the toolchain (it does with rustc 1.95 and
        // thin LTO, and then exports it unless named here); GNU ld >= 2.40 and LLD accept the
        // name either way with this flag.
        println!("cargo:rustc-cdylib-link-arg=-Wl,--undefined-version");
    }
    let script = out_dir.join("exports.map");
    fs::write(
        &script,
        format!("{{\n  global:{global}\n  local:{local} *;\n}};\n"),
    )
    .expect("write exports.map");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        script.display()
    );
}

/// gcc calls it as `wrapper <program> <arguments>` for each program it runs (only the linker, when
/// rustc links). The filtered copy sits next to the original in rustc's private temporary folder.
/// `@PREFIXES@` becomes the exported prefixes as an extended regular expression (`fmi2|fmi3`).
const DEF_FILTER_WRAPPER: &str = r#"#!/bin/sh
for argument do
    shift
    case $argument in
    *.def)
        if [ -f "$argument" ]; then
            filtered="${argument%.def}.fmi-only.def"
            if ! { echo EXPORTS; grep -E '^[[:space:]]*"?(@PREFIXES@)' "$argument"; } >"$filtered"; then
                echo "fmi-exports-only: no @PREFIXES@ function in $argument" >&2
                exit 1
            fi
            argument=$filtered
        fi
        ;;
    esac
    set -- "$@" "$argument"
done
exec "$@"
"#;

/// A name-based (version 5 style) UUID from the SHA-256 of the interface, in the braces FMI tools use.
fn guid_of(fingerprint: &str) -> String {
    let digest = Sha256::digest(fingerprint.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{{{}-{}-{}-{}-{}}}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// UTC now, or `SOURCE_DATE_EPOCH` for reproducible packages.
fn generation_date() -> String {
    let seconds = env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        });
    let (days, rem) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}
