//! Writes `$OUT_DIR/modelDescription.xml` from `modelDescription.xml.in` and the variable table in
//! `src/variables.rs`, and hands the GUID (a hash of that table) to the library as `ELASTOGAP_GUID`.

#[path = "src/variables.rs"]
#[allow(dead_code)]
mod variables;

use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::{env, fs, path::PathBuf};
use variables::{
    Causality, Dependency, Kind, Rule, Var, Variability, EVENT_INDICATORS, STATES,
    TYPE_DEFINITIONS, UNITS, VARIABLES,
};

fn main() {
    println!("cargo:rerun-if-changed=src/variables.rs");
    println!("cargo:rerun-if-changed=modelDescription.xml.in");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");

    let guid = guid_of(&variables::interface_fingerprint());
    println!("cargo:rustc-env=ELASTOGAP_GUID={guid}");

    let template =
        fs::read_to_string("modelDescription.xml.in").expect("read modelDescription.xml.in");
    let xml = template
        .replace("@GUID@", &guid)
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"))
        .replace(
            "@GENERATION_TOOL@",
            &format!("elastogap {} build.rs", env!("CARGO_PKG_VERSION")),
        )
        .replace("@GENERATION_DATE@", &generation_date())
        .replace("@UNIT_DEFINITIONS@", &unit_definitions())
        .replace("@TYPE_DEFINITIONS@", &type_definitions())
        .replace("@MODEL_VARIABLES@", &model_variables())
        .replace(
            "@NUMBER_OF_EVENT_INDICATORS@",
            &EVENT_INDICATORS.len().to_string(),
        )
        .replace("@OUTPUTS@", &outputs())
        .replace("@DERIVATIVES@", &derivatives())
        .replace("@INITIAL_UNKNOWNS@", &initial_unknowns());
    assert!(
        !xml.contains('@'),
        "a placeholder in modelDescription.xml.in was not filled"
    );

    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    fs::write(out_dir.join("modelDescription.xml"), xml).expect("write modelDescription.xml");
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

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn unit_definitions() -> String {
    let mut out = String::new();
    for (name, kg, m, s) in UNITS {
        let mut exponents = String::new();
        for (symbol, exponent) in [("kg", kg), ("m", m), ("s", s)] {
            if *exponent != 0 {
                write!(exponents, " {symbol}=\"{exponent}\"").unwrap();
            }
        }
        writeln!(
            out,
            "    <Unit name=\"{}\">\n      <BaseUnit{exponents}/>\n    </Unit>",
            xml_escape(name)
        )
        .unwrap();
    }
    out.trim_end().to_string()
}

/// `<SimpleType>` elements of the Enumeration types; items are valued from 1 in table order.
fn type_definitions() -> String {
    let mut out = String::new();
    for enumeration in TYPE_DEFINITIONS {
        writeln!(
            out,
            "    <SimpleType name=\"{}\" description=\"{}\">\n      <Enumeration>",
            xml_escape(enumeration.name),
            xml_escape(enumeration.description)
        )
        .unwrap();
        for (value, (name, description)) in (1..).zip(enumeration.items) {
            writeln!(
                out,
                "        <Item name=\"{}\" value=\"{value}\" description=\"{}\"/>",
                xml_escape(name),
                xml_escape(description)
            )
            .unwrap();
        }
        writeln!(out, "      </Enumeration>\n    </SimpleType>").unwrap();
    }
    out.trim_end().to_string()
}

fn format_real(x: f64) -> String {
    // `{:?}` is the shortest text that reads back to the same f64.
    format!("{x:?}")
}

fn model_variables() -> String {
    let mut out = String::new();
    for (index, v) in VARIABLES.iter().enumerate() {
        let causality = match v.causality {
            Causality::Independent => "independent",
            Causality::Parameter => "parameter",
            Causality::Input => "input",
            Causality::Output => "output",
            Causality::Local => "local",
        };
        let variability = match v.variability {
            Variability::Fixed => "fixed",
            Variability::Tunable => "tunable",
            Variability::Discrete => "discrete",
            Variability::Continuous => "continuous",
        };
        // Parameters and inputs are set by the user (exact); everything else is computed.
        let initial = match v.causality {
            Causality::Parameter => " initial=\"exact\"",
            Causality::Input | Causality::Independent => "",
            Causality::Output | Causality::Local => " initial=\"calculated\"",
        };
        let mut attributes = String::new();
        match (v.kind, v.declared_type) {
            (Kind::Real, _) => {
                if let Some(unit) = v.unit {
                    write!(attributes, " unit=\"{}\"", xml_escape(unit)).unwrap();
                }
                if let Some((state, _)) = STATES.iter().find(|(_, derivative)| *derivative == v.var)
                {
                    write!(attributes, " derivative=\"{}\"", index_of(*state)).unwrap();
                }
                match v.rule {
                    Rule::AtLeast(bound) => {
                        write!(attributes, " min=\"{}\"", format_real(bound)).unwrap()
                    }
                    Rule::Within(lo, hi) => write!(
                        attributes,
                        " min=\"{}\" max=\"{}\"",
                        format_real(lo),
                        format_real(hi)
                    )
                    .unwrap(),
                    // The XML's bounds are inclusive: the open lower one is only in the rule.
                    Rule::PositiveAtMost(hi) => {
                        write!(attributes, " max=\"{}\"", format_real(hi)).unwrap()
                    }
                    _ => {}
                }
                if let Some(start) = v.start {
                    write!(attributes, " start=\"{}\"", format_real(start)).unwrap();
                }
            }
            (Kind::Integer, Some(declared)) => {
                write!(
                    attributes,
                    " declaredType=\"{}\"",
                    xml_escape(declared.name)
                )
                .unwrap();
                if let Some(start) = v.start {
                    write!(attributes, " start=\"{}\"", start as i64).unwrap();
                }
            }
            (Kind::Integer, None) => {
                if let Rule::Range(lo, hi) = v.rule {
                    write!(attributes, " min=\"{lo}\" max=\"{hi}\"").unwrap();
                }
                if let Some(start) = v.start {
                    write!(attributes, " start=\"{}\"", start as i64).unwrap();
                }
            }
            (Kind::Boolean, _) => {
                if let Some(start) = v.start {
                    let text = if start != 0.0 { "true" } else { "false" };
                    write!(attributes, " start=\"{text}\"").unwrap();
                }
            }
            // The one String parameter starts empty (a parameter must have a start value).
            (Kind::String, _) => attributes.push_str(" start=\"\""),
        }
        let element = match v.kind {
            Kind::Real => "Real",
            Kind::Integer if v.declared_type.is_some() => "Enumeration",
            Kind::Integer => "Integer",
            Kind::Boolean => "Boolean",
            Kind::String => "String",
        };
        writeln!(
            out,
            "    <!-- index {} -->\n    <ScalarVariable name=\"{}\" valueReference=\"{}\" description=\"{}\" causality=\"{causality}\" variability=\"{variability}\"{initial}>\n      <{element}{attributes}/>\n    </ScalarVariable>",
            index + 1,
            xml_escape(v.name),
            v.value_reference,
            xml_escape(v.description),
        )
        .unwrap();
    }
    out.trim_end().to_string()
}

fn index_of(var: Var) -> usize {
    VARIABLES
        .iter()
        .position(|v| v.var == var)
        .expect("variable in table")
        + 1
}

fn outputs() -> String {
    unknowns(
        VARIABLES
            .iter()
            .filter(|v| v.causality == Causality::Output),
    )
}

/// The state derivatives of Model Exchange, in the order of `STATES`.
fn derivatives() -> String {
    unknowns(
        STATES
            .iter()
            .map(|(_, derivative)| variables::by_var(*derivative)),
    )
}

/// `<Unknown>` elements with the dependencies of the table.
fn unknowns<'a>(list: impl Iterator<Item = &'a variables::Variable>) -> String {
    let mut out = String::new();
    for v in list {
        let mut pairs: Vec<(usize, &str)> = v
            .depends_on
            .iter()
            .map(|dependency| match dependency {
                Dependency::Constant(known) => (index_of(*known), "constant"),
                Dependency::Dependent(known) => (index_of(*known), "dependent"),
            })
            .collect();
        pairs.sort_unstable();
        let indices: Vec<String> = pairs.iter().map(|(i, _)| i.to_string()).collect();
        let kinds: Vec<&str> = pairs.iter().map(|(_, k)| *k).collect();
        if pairs.is_empty() {
            writeln!(
                out,
                "      <Unknown index=\"{}\" dependencies=\"\"/> <!-- {} -->",
                index_of(v.var),
                v.name
            )
            .unwrap();
        } else {
            writeln!(
                out,
                "      <Unknown index=\"{}\" dependencies=\"{}\" dependenciesKind=\"{}\"/> <!-- {} -->",
                index_of(v.var),
                indices.join(" "),
                kinds.join(" "),
                v.name
            )
            .unwrap();
        }
    }
    out.trim_end().to_string()
}

/// All outputs, continuous states and state derivatives are calculated at initialization, in
/// the order of their indices. Their dependencies are left out, which declares a dependence on
/// all knowns: during initialization those include the parameters.
fn initial_unknowns() -> String {
    let mut out = String::new();
    let is_derivative = |var: Var| STATES.iter().any(|(_, derivative)| *derivative == var);
    let is_state = |var: Var| STATES.iter().any(|(state, _)| *state == var);
    for v in VARIABLES
        .iter()
        .filter(|v| v.causality == Causality::Output || is_derivative(v.var) || is_state(v.var))
    {
        writeln!(
            out,
            "      <Unknown index=\"{}\"/> <!-- {} -->",
            index_of(v.var),
            v.name
        )
        .unwrap();
    }
    out.trim_end().to_string()
}
