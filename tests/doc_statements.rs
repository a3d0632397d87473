//! What README, docs/ and the variable table's descriptions state about the FMU, held against the
//! code that decides it: each threshold, default, limit and count below is formatted from the
//! constant or table it comes from and must appear in the text, so that changing either fails
//! here. Figures measured by a run are checked by the test that measures them (named beside the
//! figure in the docs).

mod support;

use std::collections::BTreeSet;

use elastogap::coupling::{
    ANSWER_RANGE, DISAGREEMENT, PLAIN_STEP, PROBE_LIMIT, PROBE_SHARE, STEADY_ADOPTION,
    UNMEASURED_DRIFT_ADOPTION,
};
use elastogap::variables::{by_var, Causality, Var, VARIABLES};
use support::bad_input_doc::{section, table_rows};

/// The file's text with every run of white space (line breaks included) made one space, as a
/// reader sees a wrapped paragraph.
fn text_of(path: &str) -> String {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"));
    normalized(&text)
}

fn normalized(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every statement is in `text` (`label` names it in the failure).
fn assert_states(label: &str, text: &str, statements: &[String]) {
    let missing: Vec<&String> = statements
        .iter()
        .filter(|s| !text.contains(&normalized(s)))
        .collect();
    assert!(
        missing.is_empty(),
        "{label} no longer states what the code does; expected, word for word:\n{}",
        missing
            .iter()
            .map(|s| format!("  {s}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A share as the docs write it: 0.1 as "10 %", 0.005 as "0.5 %".
fn percent(share: f64) -> String {
    format!("{} %", 100.0 * share)
}

fn description(var: Var) -> String {
    normalized(by_var(var).description)
}

#[test]
fn the_readme_names_every_parameter() {
    let readme = text_of("README.md");
    let row = readme
        .split("| Parameters |")
        .nth(1)
        .and_then(|rest| rest.split(" |").next())
        .expect("README's interface table has a Parameters row");
    let named: BTreeSet<String> = row
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    let parameters: BTreeSet<String> = VARIABLES
        .iter()
        .filter(|v| v.causality == Causality::Parameter)
        .map(|v| v.name.to_string())
        .collect();
    assert_eq!(
        named, parameters,
        "README's Parameters row against the variable table"
    );
}

#[test]
fn the_readme_gives_every_enumeration_code_and_default() {
    let readme = text_of("README.md");
    let lines: Vec<String> = VARIABLES
        .iter()
        .filter_map(|v| {
            let enumeration = v.declared_type?;
            let default = v.start.expect("a choice has a start value") as usize;
            let items: Vec<String> = enumeration
                .items
                .iter()
                .enumerate()
                .map(|(k, (item, _))| {
                    let mark = if k + 1 == default { " (default)" } else { "" };
                    format!("{} {item}{mark}", k + 1)
                })
                .collect();
            Some(format!("`{}`: {}", v.name, items.join(", ")))
        })
        .collect();
    assert!(lines.len() >= 6, "the variable table has its choices");
    assert_states("README.md", &readme, &lines);
}

#[test]
fn the_variable_descriptions_state_the_coupling_thresholds() {
    assert_states(
        "f_mean's description",
        &description(Var::FMean),
        &[
            format!("at steps of at most {PLAIN_STEP} times the contact's duration"),
            format!("a probe of {PROBE_SHARE:e} of the impulse along the motion"),
        ],
    );
}

#[test]
fn the_readme_states_the_short_step_and_the_probe() {
    assert_states(
        "README.md",
        &text_of("README.md"),
        &[
            format!("| `h <= T_c/{}`", 1.0 / PLAIN_STEP),
            format!("the first contact step holds a probe (`{PROBE_SHARE:e}` of its impulse)"),
        ],
    );
}

#[test]
fn the_readme_counts_every_bad_input_row() {
    let table = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/bad-input.md"))
        .expect("docs/bad-input.md");
    let rows = table_rows(&section(&table, "# Bad input"), "docs/bad-input.md").len();
    assert!(rows > 100, "docs/bad-input.md has its table");
    let count = format!("{rows}, each a row of a table the tests run");
    assert_states("README.md", &text_of("README.md"), &[count]);
    assert_states(
        "docs/robustness.md",
        &text_of("docs/robustness.md"),
        &[format!("{rows} of them")],
    );
}

#[test]
fn the_docs_state_when_an_answer_replaces_the_mass_in_use() {
    let thresholds = [
        format!(
            "more than {} off through a steady external acceleration",
            percent(STEADY_ADOPTION)
        ),
        format!(
            "more than {} off in a contact met before two steps had measured",
            percent(UNMEASURED_DRIFT_ADOPTION)
        ),
        format!("more than {} off otherwise", percent(DISAGREEMENT)),
        format!(
            "an answer more than {ANSWER_RANGE} times above or below the mass in use is ignored"
        ),
        format!(
            "A replacement more than {} off is logged once per contact",
            percent(DISAGREEMENT)
        ),
    ];
    assert_states("README.md", &text_of("README.md"), &thresholds);
    assert_states(
        "docs/coupling.md",
        &text_of("docs/coupling.md"),
        &thresholds,
    );
}

#[test]
fn the_docs_state_when_probing_ends() {
    assert_states(
        "docs/m-eff.md",
        &text_of("docs/m-eff.md"),
        &[format!(
            "After {PROBE_LIMIT} probes whose answers told no mass (`PROBE_LIMIT`) the FMU probes no more in the run"
        )],
    );
    assert_states(
        "docs/coupling.md",
        &text_of("docs/coupling.md"),
        &[format!(
            "After `PROBE_LIMIT` = {PROBE_LIMIT} probes whose answers told no mass the FMU probes no more in the run"
        ), format!("or at the last of `PROBE_LIMIT` = {PROBE_LIMIT} probes"),
            format!("`PROBE_SHARE` = {PROBE_SHARE:e} of that impulse")],
    );
}

#[test]
fn the_layout_counts_the_traced_runs() {
    let trace =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/trace.txt"))
            .expect("tests/data/trace.txt");
    let runs = trace
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .count();
    assert_states(
        "docs/repository-layout.md",
        &text_of("docs/repository-layout.md"),
        &[format!("every output of {runs} runs hashed bit for bit")],
    );
}

#[test]
fn the_model_descriptions_name_the_warning_threshold() {
    for path in ["modelDescription.xml.in", "modelDescription3.xml.in"] {
        assert_states(
            path,
            &text_of(path),
            &[format!(
                "an answer more than {} off the mass in use, naming both masses (once per contact)",
                percent(DISAGREEMENT)
            )],
        );
    }
}

/// The words of a bash array `name=(a b c)` in `script`.
fn bash_array(script: &str, name: &str) -> Vec<String> {
    let start = format!("{name}=(");
    let line = script
        .lines()
        .find(|l| l.trim_start().starts_with(&start))
        .unwrap_or_else(|| panic!("fuzz/run.sh sets {name}"));
    let inside = line.split('(').nth(1).and_then(|r| r.split(')').next());
    inside
        .expect("a one-line array")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_docs_state_how_ci_shares_the_fuzzing_time() {
    let script = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/run.sh"))
        .expect("fuzz/run.sh");
    let targets = bash_array(&script, "targets");
    let shares = bash_array(&script, "shares");
    assert_eq!(targets.len(), shares.len(), "a share per target");
    let each: Vec<String> = targets
        .iter()
        .zip(&shares)
        .map(|(target, share)| format!("`{target}` {share} %"))
        .collect();
    let count = ["no", "one", "two", "three", "four", "five"][targets.len().min(5)];
    let statement = format!(
        "`bash fuzz/run.sh S` shares 3×S seconds among the {count} targets: {}.",
        each.join(", ")
    );
    assert!(
        script.contains("budget=$((3 * seconds))"),
        "fuzz/run.sh's budget"
    );
    assert!(
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run"))
            .expect(".ci/run")
            .contains("bash fuzz/run.sh 60"),
        "CI fuzzes for 3 x 60 s"
    );
    assert_states(
        "docs/robustness.md",
        &text_of("docs/robustness.md"),
        &[statement],
    );
    assert_states(
        "README.md",
        &text_of("README.md"),
        &[format!(
            "three minutes of fuzzing shared by the {count} fuzz targets"
        )],
    );
}

/// Every `const NAME: type = literal;` of `src/` with a numeric literal, by name.
fn source_constants() -> std::collections::BTreeMap<String, f64> {
    let mut constants = std::collections::BTreeMap::new();
    let mut stack = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src"
    ))];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for line in text.lines() {
                let Some(rest) = line.trim_start().split("const ").nth(1) else {
                    continue;
                };
                let Some((name, value)) = rest.split_once(':') else {
                    continue;
                };
                let literal = value
                    .split_once('=')
                    .and_then(|(_, v)| v.trim().strip_suffix(';'))
                    .map(|v| v.replace('_', ""));
                if let Some(number) = literal.and_then(|v| v.parse::<f64>().ok()) {
                    constants.insert(name.trim().to_string(), number);
                }
            }
        }
    }
    constants
}

/// The number that starts `text` (digits, a point, an exponent), if any.
fn leading_number(text: &str) -> Option<f64> {
    let end = text
        .char_indices()
        .find(|&(k, c)| !(c.is_ascii_digit() || c == '.' || c == 'e' || (c == '-' && k > 0)))
        .map_or(text.len(), |(k, _)| k);
    text[..end].trim_end_matches('.').parse().ok()
}

/// Where the docs give a named constant's value, "`NAME` = 3" or "`NAME` (1e-3", it is the source's.
#[test]
fn every_value_the_docs_give_a_named_constant_is_the_sources() {
    let constants = source_constants();
    assert!(
        constants.contains_key("PROBE_LIMIT"),
        "the scan finds the constants"
    );
    let mut failures = Vec::new();
    let mut checked = 0;
    let docs = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/docs"))
        .expect("docs/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .chain(
            ["README.md", "ARCHITECTURE.md"]
                .map(|f| std::path::PathBuf::from(format!("{}/{f}", env!("CARGO_MANIFEST_DIR")))),
        );
    for path in docs {
        let text = normalized(&std::fs::read_to_string(&path).expect("a doc"));
        for (name, value) in &constants {
            for form in [format!("`{name}` = "), format!("`{name}` (")] {
                for (at, _) in text.match_indices(&form) {
                    let Some(stated) = leading_number(&text[at + form.len()..]) else {
                        continue;
                    };
                    checked += 1;
                    if stated != *value {
                        failures.push(format!(
                            "{}: {name} is {value}, the doc says {stated}",
                            path.display()
                        ));
                    }
                }
            }
        }
    }
    println!("{checked} values the docs give named constants");
    assert!(checked >= 5, "only {checked} values found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
