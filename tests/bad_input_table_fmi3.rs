//! The FMI 3.0 bad-input tables of `docs/bad-input-fmi3.md`, executed against the packaged
//! `ElastoGap3.fmu` (`tests/support/fmi3.rs`), as `tests/bad_input_table/main.rs` executes the
//! FMI 2.0 ones: every row names a case by its key; the case's status, logged message and the state
//! it leaves the instance in are checked, then that a legal continuation from that state succeeds.
//! A row without a case and a case without a row both fail, and so does an FMI 2 row without an
//! FMI 3 twin (unless the document lists it with its reason) or an FMI 3 function, the twin of one
//! the FMI 2 table names, that no row calls: the two tables cannot drift apart either.
//!
//! Every instance here has `loggingOn = false`: the document says errors are logged regardless.

mod support;

#[path = "bad_input_table_fmi3/cases.rs"]
mod cases;
#[path = "bad_input_table_fmi3/harness.rs"]
mod harness;

use std::collections::BTreeSet;
use std::sync::Arc;

use support::bad_input_doc::{
    code_spans, function_names, row_of, section, state_named, table_rows, with_row_changed, Row,
};
use support::fmi3::Fmu3;
use support::Status;

use harness::{continue_from, state_of, After, Case, Returned};

const FMI3_FILE: &str = "docs/bad-input-fmi3.md";
const FMI3_HEADING: &str = "# Bad input (FMI 3.0)";
const NO_TWIN_HEADING: &str = "## Rows of the FMI 2 table without an FMI 3 twin";

fn read(path: &str) -> String {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The FMI 3 rows and the FMI 2 rows listed as having no twin.
fn fmi3_rows(document: &str) -> (Vec<Row>, Vec<Row>) {
    (
        table_rows(&section(document, FMI3_HEADING), FMI3_FILE),
        table_rows(&section(document, NO_TWIN_HEADING), FMI3_FILE),
    )
}

fn fmi2_rows() -> Vec<Row> {
    table_rows(
        &section(&read("docs/bad-input.md"), "# Bad input"),
        "docs/bad-input.md",
    )
}

/// Each FMI 2 function (or other `fmi2…` word) the FMI 2 table names, and its FMI 3 twin: `None`
/// where FMI 3.0 has none, or the word is no function. A name missing here fails the coverage
/// check, so that a new FMI 2 row is mapped when it is written.
const FMI2_TO_FMI3: &[(&str, Option<&str>)] = &[
    ("fmi2Instantiate", Some("fmi3InstantiateCoSimulation")),
    ("fmi2FreeInstance", Some("fmi3FreeInstance")),
    ("fmi2SetupExperiment", Some("fmi3EnterInitializationMode")),
    (
        "fmi2EnterInitializationMode",
        Some("fmi3EnterInitializationMode"),
    ),
    (
        "fmi2ExitInitializationMode",
        Some("fmi3ExitInitializationMode"),
    ),
    ("fmi2Terminate", Some("fmi3Terminate")),
    ("fmi2Reset", Some("fmi3Reset")),
    ("fmi2SetDebugLogging", Some("fmi3SetDebugLogging")),
    ("fmi2GetReal", Some("fmi3GetFloat64")),
    ("fmi2SetReal", Some("fmi3SetFloat64")),
    ("fmi2GetInteger", Some("fmi3GetInt32")),
    // The FMI 2 table sets Enumerations with fmi2SetInteger; FMI 3.0 sets them as Int64.
    ("fmi2SetInteger", Some("fmi3SetInt64")),
    ("fmi2GetBoolean", Some("fmi3GetBoolean")),
    ("fmi2SetBoolean", Some("fmi3SetBoolean")),
    ("fmi2GetString", Some("fmi3GetString")),
    ("fmi2SetString", Some("fmi3SetString")),
    ("fmi2GetFMUstate", Some("fmi3GetFMUState")),
    ("fmi2SetFMUstate", Some("fmi3SetFMUState")),
    ("fmi2FreeFMUstate", Some("fmi3FreeFMUState")),
    (
        "fmi2SerializedFMUstateSize",
        Some("fmi3SerializedFMUStateSize"),
    ),
    ("fmi2SerializeFMUstate", Some("fmi3SerializeFMUState")),
    ("fmi2DeSerializeFMUstate", Some("fmi3DeserializeFMUState")),
    (
        "fmi2GetDirectionalDerivative",
        Some("fmi3GetDirectionalDerivative"),
    ),
    (
        "fmi2GetRealOutputDerivatives",
        Some("fmi3GetOutputDerivatives"),
    ),
    ("fmi2DoStep", Some("fmi3DoStep")),
    ("fmi2EnterEventMode", Some("fmi3EnterEventMode")),
    ("fmi2NewDiscreteStates", Some("fmi3UpdateDiscreteStates")),
    (
        "fmi2EnterContinuousTimeMode",
        Some("fmi3EnterContinuousTimeMode"),
    ),
    (
        "fmi2CompletedIntegratorStep",
        Some("fmi3CompletedIntegratorStep"),
    ),
    ("fmi2SetTime", Some("fmi3SetTime")),
    ("fmi2SetContinuousStates", Some("fmi3SetContinuousStates")),
    (
        "fmi2GetDerivatives",
        Some("fmi3GetContinuousStateDerivatives"),
    ),
    ("fmi2GetEventIndicators", Some("fmi3GetEventIndicators")),
    ("fmi2GetContinuousStates", Some("fmi3GetContinuousStates")),
    (
        "fmi2GetNominalsOfContinuousStates",
        Some("fmi3GetNominalsOfContinuousStates"),
    ),
    // FMI 3.0 removed these: no twin.
    ("fmi2SetRealInputDerivatives", None),
    ("fmi2CancelStep", None),
    ("fmi2GetStatus", None),
    ("fmi2GetRealStatus", None),
    ("fmi2GetIntegerStatus", None),
    ("fmi2GetBooleanStatus", None),
    ("fmi2GetStringStatus", None),
    // Not functions: statuses, status kinds, types and constants.
    ("fmi2OK", None),
    ("fmi2Warning", None),
    ("fmi2Discard", None),
    ("fmi2Error", None),
    ("fmi2Fatal", None),
    ("fmi2True", None),
    ("fmi2False", None),
    ("fmi2LastSuccessfulTime", None),
    ("fmi2DoStepStatus", None),
    ("fmi2PendingStatus", None),
    ("fmi2Terminated", None),
    ("fmi2StatusKind", None),
    ("fmi2FMUstate", None),
    ("fmi2eventInfo", None),
    ("fmi2Set", None),
];

/// FMI 2 rows without a twin, twins of no FMI 2 row, and FMI 3 functions (twins of those the FMI 2
/// table names) that no FMI 3 row names.
fn coverage_failures(fmi2: &[Row], fmi3: &[Row], no_twin: &[Row]) -> Vec<String> {
    let mut failures = Vec::new();
    let fmi2_keys: BTreeSet<String> = fmi2.iter().map(Row::key).collect();
    let twin_of = |row: &Row| {
        code_spans(row.cell("fmi 2 row").unwrap_or(""))
            .first()
            .cloned()
    };
    let twinned: BTreeSet<String> = fmi3.iter().filter_map(twin_of).collect();
    let untwinned: BTreeSet<String> = no_twin.iter().filter_map(twin_of).collect();
    for row in fmi3 {
        if let Some(key) = twin_of(row) {
            if !fmi2_keys.contains(&key) {
                failures.push(format!(
                    "{FMI3_FILE}:{} `{}`: its FMI 2 row `{key}` is no row of docs/bad-input.md",
                    row.line,
                    row.key()
                ));
            }
        }
    }
    for key in &fmi2_keys {
        match (twinned.contains(key), untwinned.contains(key)) {
            (false, false) => failures.push(format!(
                "FMI 2 row `{key}` has no FMI 3 twin in {FMI3_FILE} (add one, or list it under '{NO_TWIN_HEADING}')"
            )),
            (true, true) => failures.push(format!(
                "FMI 2 row `{key}` has a twin and is also listed as having none"
            )),
            _ => {}
        }
    }
    for key in untwinned.difference(&fmi2_keys) {
        failures.push(format!(
            "'{NO_TWIN_HEADING}' lists `{key}`, which is no FMI 2 row"
        ));
    }
    let fmi3_text: String = fmi3
        .iter()
        .flat_map(|row| row.cells.values().cloned())
        .collect::<Vec<_>>()
        .join(" ");
    let named_fmi3: BTreeSet<String> = function_names(&fmi3_text, "fmi3").into_iter().collect();
    for row in fmi2 {
        let text: Vec<String> = row.cells.values().cloned().collect();
        for name in function_names(&text.join(" "), "fmi2") {
            match FMI2_TO_FMI3.iter().find(|(two, _)| *two == name) {
                None => failures.push(format!(
                    "FMI 2 row `{}` names {name}, which FMI2_TO_FMI3 does not map",
                    row.key()
                )),
                Some((_, Some(three))) if !named_fmi3.contains(*three) => failures.push(format!(
                    "{three}, the twin of {name} (FMI 2 row `{}`), appears in no FMI 3 row",
                    row.key()
                )),
                Some(_) => {}
            }
        }
    }
    failures.sort();
    failures.dedup();
    failures
}

fn expected_return(cell: &str) -> Result<Returned, String> {
    let text = cell.replace('`', "");
    let word = text
        .split_whitespace()
        .find(|w| !matches!(*w, "a" | "an"))
        .unwrap_or("");
    Ok(match word {
        "fmi3OK" => Returned::Status(Status::Ok),
        "fmi3Warning" => Returned::Status(Status::Warning),
        "fmi3Discard" => Returned::Status(Status::Discard),
        "fmi3Error" => Returned::Status(Status::Error),
        "fmi3Fatal" => Returned::Status(Status::Fatal),
        "NULL" => Returned::Instance(false),
        "instance" => Returned::Instance(true),
        other => return Err(format!("unknown status {other:?} in cell {cell:?}")),
    })
}

const STATES: [&str; 9] = [
    "Instantiated",
    "InitializationMode",
    "EventMode",
    "StepMode",
    "ContinuousTimeMode",
    "IntermediateUpdateMode",
    "Terminated",
    "Error",
    "Fatal",
];

/// The state the State-after cell names, of the FMI 3.0 states.
fn expected_state(cell: &str) -> Result<Option<&'static str>, String> {
    state_named(cell, &STATES)
}

fn messages(logs: &[harness::Message]) -> Vec<String> {
    logs.iter()
        .map(|(status, category, message)| format!("{status:?} {category}: {message}"))
        .collect()
}

fn check_row(fmu: &Arc<Fmu3>, row: &Row, case: Case) -> Result<(), String> {
    let returned = expected_return(row.cell("status").unwrap_or(""))?;
    let excerpts = code_spans(row.cell("logged message").unwrap_or(""));
    let state = expected_state(row.cell("state after").unwrap_or(""))?;
    let outcome = case(fmu);

    if !outcome.problems.is_empty() {
        return Err(outcome.problems.join("; "));
    }
    if outcome.returned != returned {
        return Err(format!(
            "returned {:?}, the table says {returned:?}; log {:?}",
            outcome.returned,
            messages(&outcome.logs)
        ));
    }
    // The document promises that a message starts with the name of the function that failed.
    if let Some((_, _, unnamed)) = outcome
        .logs
        .iter()
        .find(|(_, _, m)| !(m.starts_with("fmi3") && m.contains(": ")))
    {
        return Err(format!(
            "the message {unnamed:?} does not start with the function's name"
        ));
    }
    if excerpts.is_empty() {
        if !outcome.logs.is_empty() {
            return Err(format!(
                "the table says nothing is logged, but: {:?}",
                messages(&outcome.logs)
            ));
        }
    } else {
        let status = match returned {
            Returned::Status(s) => s,
            Returned::Instance(_) => Status::Error,
        };
        let category = match status {
            Status::Fatal => "logStatusFatal",
            Status::Discard => "logStatusDiscard",
            _ => "logStatusError",
        };
        let found = outcome.logs.iter().any(|(s, c, m)| {
            *s == status && c == category && excerpts.iter().all(|e| m.contains(e.as_str()))
        });
        if !found {
            return Err(format!(
                "no {status:?} record under {category} contains {excerpts:?}; log {:?}",
                messages(&outcome.logs)
            ));
        }
    }
    match (outcome.after, state) {
        (After::NoInstance, None) => Ok(()),
        (After::Checked(actual), Some(expected)) if actual == expected => Ok(()),
        (After::Instance(mut inst), Some(expected)) => {
            let actual = state_of(&mut inst)?;
            if actual != expected {
                return Err(format!("left in state {actual}, the table says {expected}"));
            }
            continue_from(&mut inst, expected)
        }
        (After::NoInstance, Some(expected)) => Err(format!(
            "no instance is left, the table says state {expected}"
        )),
        (After::Checked(actual), expected) => Err(format!(
            "left in state {actual}, the table says {expected:?}"
        )),
        (After::Instance(mut inst), None) => Err(format!(
            "an instance is left in state {:?}, the table says none",
            state_of(&mut inst)
        )),
    }
}

/// Everything wrong with the FMI 3 document: rows that do not hold, keys without a case or used
/// twice, cases without a row, and the coverage of the FMI 2 table.
fn table_failures(fmu: &Arc<Fmu3>, document: &str, fmi2: &[Row]) -> Vec<String> {
    let (rows, no_twin) = fmi3_rows(document);
    let mut failures = coverage_failures(fmi2, &rows, &no_twin);
    let mut keys = BTreeSet::new();
    for row in &rows {
        if !keys.insert(row.key()) {
            failures.push(format!(
                "{FMI3_FILE}:{}: key `{}` is used twice",
                row.line,
                row.key()
            ));
        }
    }
    let case_keys: BTreeSet<String> = cases::all().map(|(key, _)| key.to_string()).collect();
    assert_eq!(
        case_keys.len(),
        cases::all().count(),
        "a case key is defined twice"
    );
    for key in case_keys.difference(&keys) {
        failures.push(format!("case `{key}` has no row in the table"));
    }
    for row in &rows {
        let key = row.key();
        let failure = match cases::all().find(|(k, _)| *k == key) {
            None => Some("the row has no case in tests/bad_input_table_fmi3/".to_string()),
            Some((_, case)) => check_row(fmu, row, *case).err(),
        };
        if let Some(failure) = failure {
            failures.push(format!("{FMI3_FILE}:{} `{key}`: {failure}", row.line));
        }
    }
    failures
}

#[test]
fn every_row_of_the_fmi3_bad_input_table_holds() {
    let document = read(FMI3_FILE);
    let (rows, _) = fmi3_rows(&document);
    assert!(
        rows.len() >= 150,
        "the FMI 3 bad-input tables have only {} rows; is the document intact?",
        rows.len()
    );
    let failures = table_failures(&Fmu3::load_default(), &document, &fmi2_rows());
    assert!(
        failures.is_empty(),
        "{} problems with the {} rows:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// A changed document and what its failures must say, each in one failure of its own.
type Drift = (String, Vec<&'static str>);

/// Cells of rows changed to say what the FMU does not do.
fn cell_drifts(document: &str) -> Vec<Drift> {
    vec![
        (
            with_row_changed(
                document,
                "unknown-value-reference",
                "reference 99`",
                "reference 98`",
            ),
            vec!["no Error record under logStatusError contains"],
        ),
        (
            with_row_changed(document, "negative-c", "`fmi3Error`", "`fmi3OK`"),
            vec!["returned Status(Error), the table says Status(Ok)"],
        ),
        (
            with_row_changed(
                document,
                "step-before-initialization",
                "Instantiated (unchanged)",
                "Error",
            ),
            vec!["left in state Instantiated, the table says Error"],
        ),
        (
            with_row_changed(document, "set-output", "| Error |", "| StepMode |"),
            vec!["left in state Error, the table says StepMode"],
        ),
        (
            with_row_changed(
                document,
                "null-resource-path",
                "| Instantiated |",
                "| none |",
            ),
            vec!["the table says none"],
        ),
        (
            with_row_changed(
                document,
                "wrong-instantiation-token",
                "| NULL |",
                "| an instance |",
            ),
            vec!["returned Instance(false), the table says Instance(true)"],
        ),
        (
            with_row_changed(
                document,
                "n-below-1",
                "`n = 0.5 is not allowed: it must be a finite number >= 1`",
                "—",
            ),
            vec!["the table says nothing is logged"],
        ),
        (
            with_row_changed(
                document,
                "absent-type-empty-call",
                "| — | StepMode",
                "| `valueReferences[] is NULL` | StepMode",
            ),
            vec!["no Ok record"],
        ),
    ]
}

/// Rows removed, re-keyed or doubled: drift between the document and the cases, and between the
/// FMI 3 and the FMI 2 tables.
fn coverage_drifts(document: &str) -> Vec<Drift> {
    let without = |key: &str| document.replace(&format!("{}\n", row_of(document, key)), "");
    let doubled = |key: &str, new_key: &str| {
        let row = row_of(document, key);
        let copy = row.replacen(&format!("`{key}`"), &format!("`{new_key}`"), 1);
        document.replace(&row, &format!("{row}\n{copy}"))
    };
    vec![
        // A twin removed: its case has no row, and the FMI 2 row no twin.
        (
            without("zero-step-size"),
            vec![
                "case `zero-step-size` has no row in the table",
                "FMI 2 row `zero-step-size` has no FMI 3 twin",
            ],
        ),
        (
            without("non-finite-time"),
            vec![
                "case `non-finite-time` has no row in the table",
                "FMI 2 row `non-finite-time` has no FMI 3 twin",
            ],
        ),
        (
            with_row_changed(
                document,
                "null-discrete-states-flag",
                "| `null-event-info` |",
                "| — |",
            ),
            vec!["FMI 2 row `null-event-info` has no FMI 3 twin"],
        ),
        // The one row that names fmi3GetEventIndicators names another function: the row fails,
        // and so does the coverage of fmi2GetEventIndicators.
        (
            {
                let row = row_of(document, "wrong-number-of-event-indicators");
                let renamed = row.replace("fmi3GetEventIndicators", "fmi3GetEventIndicatorz");
                document.replace(&row, &renamed)
            },
            vec![
                "fmi3GetEventIndicators, the twin of fmi2GetEventIndicators",
                "`wrong-number-of-event-indicators`: no Error record",
            ],
        ),
        (
            with_row_changed(document, "cancel-step", "| `cancel-step` |", "| `cancel` |"),
            vec![
                "FMI 2 row `cancel-step` has no FMI 3 twin",
                "lists `cancel`, which is no FMI 2 row",
            ],
        ),
        (
            doubled("enter-step-mode-in-step-mode", "enter-step-mode-twice"),
            vec!["`enter-step-mode-twice`: the row has no case"],
        ),
        (
            doubled(
                "enter-step-mode-in-step-mode",
                "enter-step-mode-in-step-mode",
            ),
            vec!["key `enter-step-mode-in-step-mode` is used twice"],
        ),
    ]
}

/// The check itself can fail: each kind of drift between the document and the FMU, and between
/// the FMI 3 and the FMI 2 tables, is reported (and nothing else).
#[test]
fn drift_between_fmi3_table_and_fmu_is_reported() {
    let fmu = Fmu3::load_default();
    let document = read(FMI3_FILE);
    let fmi2 = fmi2_rows();
    // Rows that fail as the document stands (an FMU that does not yet do what a row says) are
    // the every-row test's business; here only what a change adds counts. Line numbers are
    // dropped, since removing or adding a row moves the rows after it.
    let without_line = |failure: &String| {
        let mut parts = failure.splitn(2, ' ');
        let place = parts.next().unwrap_or("");
        let place = place.split(':').next().unwrap_or(place);
        format!("{place} {}", parts.next().unwrap_or(""))
    };
    let baseline: BTreeSet<String> = table_failures(&fmu, &document, &fmi2)
        .iter()
        .map(without_line)
        .collect();
    let drifts = cell_drifts(&document)
        .into_iter()
        .chain(coverage_drifts(&document));
    for (changed, expected) in drifts {
        let failures: Vec<String> = table_failures(&fmu, &changed, &fmi2)
            .into_iter()
            .filter(|f| !baseline.contains(&without_line(f)))
            .collect();
        for e in &expected {
            assert!(
                failures.iter().any(|f| f.contains(e)),
                "a table changed to fail with {e:?} gave {failures:#?}"
            );
        }
        assert_eq!(
            failures.len(),
            expected.len(),
            "only the changed row fails: {failures:#?}"
        );
    }
}

/// An FMI 2 row that names a function FMI2_TO_FMI3 does not know fails the coverage check.
#[test]
fn an_unmapped_fmi2_function_is_reported() {
    let document = read(FMI3_FILE);
    let (rows, no_twin) = fmi3_rows(&document);
    let mut fmi2 = fmi2_rows();
    let row = fmi2.first_mut().expect("the FMI 2 table has rows");
    row.cells
        .insert("example".into(), "`fmi2GetTypesPlatform()`".into());
    let failures = coverage_failures(&fmi2, &rows, &no_twin);
    assert!(
        failures
            .iter()
            .any(|f| f.contains("fmi2GetTypesPlatform, which FMI2_TO_FMI3 does not map")),
        "{failures:#?}"
    );
}

#[test]
fn fmi3_table_cells_parse_as_documented() {
    assert_eq!(
        expected_return("`fmi3Error`"),
        Ok(Returned::Status(Status::Error))
    );
    assert_eq!(expected_return("NULL"), Ok(Returned::Instance(false)));
    assert_eq!(expected_return("an instance"), Ok(Returned::Instance(true)));
    assert!(expected_return("fmi2Error").is_err());
    assert_eq!(expected_state("StepMode (unchanged)"), Ok(Some("StepMode")));
    assert_eq!(expected_state("none"), Ok(None));
    assert!(expected_state("StepComplete").is_err());
    assert_eq!(
        function_names("`fmi3GetFloat64(c, …)` then fmi3DoStep.", "fmi3"),
        ["fmi3GetFloat64", "fmi3DoStep"]
    );
}
