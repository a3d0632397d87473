//! The bad-input tables of `docs/bad-input.md`, executed. Every row of its tables names a
//! case by its key; this file runs that case through the packaged FMU (the test importer in
//! `tests/support`) and checks what the row promises: the returned status, the logged message and
//! the state the instance is left in, then that a legal call from that state succeeds. A row
//! without a case and a case without a row both fail the test, so the table and the FMU cannot
//! drift apart.
//!
//! Every instance here has `loggingOn = fmi2False`: the table says errors are logged regardless.
//!
//! `table.rs` reads the rows (with `tests/support/bad_input_doc.rs`), `harness.rs` drives the
//! instances, and the cases are in `cases_*.rs` by what they cover; the parameter rules' cases
//! that both FMI versions' tables make the same way are `tests/support/parameter_cases.rs`'.

#[path = "../support/mod.rs"]
mod support;

mod cases_calls;
mod cases_instance;
mod cases_parameters;
mod cases_states;
mod harness;
mod table;

use std::collections::BTreeSet;
use std::sync::Arc;

use harness::{continue_from, messages, state_of, After, Case};
use support::bad_input_doc::{code_spans, is_separator, row_of, split_cells, with_row_changed};
use support::{Fmu, Status};
use table::{
    bad_input_rows, expected_return, expected_state, table_document, Returned, Row, TABLE_FILE,
};

/// The cases by table key.
fn cases() -> impl Iterator<Item = &'static (&'static str, Case)> {
    [
        cases_instance::CASES,
        cases_parameters::CASES,
        cases_parameters::SHARED_CASES,
        cases_calls::CASES,
        cases_states::CASES,
        cases_states::DAMAGED_STATES,
    ]
    .into_iter()
    .flatten()
}

// ---------------------------------------------------------------------------------------------
// Checking a row
// ---------------------------------------------------------------------------------------------

fn check_row(fmu: &Arc<Fmu>, row: &Row, case: Case) -> Result<(), String> {
    let returned = expected_return(&row.status)?;
    let excerpts = code_spans(&row.message);
    let state = expected_state(&row.state)?;
    let outcome = case(fmu);

    if outcome.returned != returned {
        return Err(format!(
            "returned {:?}, the table says {returned:?}; log {:?}",
            outcome.returned,
            messages(&outcome.logs)
        ));
    }
    if let Some(bad) = outcome
        .logs
        .iter()
        .find(|r| r.lone_percent || r.raw.is_none())
    {
        return Err(format!("malformed log record {bad:?}"));
    }
    // The table promises that a message starts with the name of the function that failed.
    if let Some(unnamed) = outcome
        .logs
        .iter()
        .find(|r| !(r.message.starts_with("fmi2") && r.message.contains(": ")))
    {
        return Err(format!(
            "the message {:?} does not start with the function's name",
            unnamed.message
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
        // Failed calls log with their own status; a refused fmi2Instantiate with fmi2Error.
        let status = match returned {
            Returned::Status(s) => s,
            Returned::Instance(_) => Status::Error,
        };
        let category = match status {
            Status::Fatal => "logStatusFatal",
            Status::Discard => "logStatusDiscard",
            _ => "logStatusError",
        };
        let found = outcome.logs.iter().any(|r| {
            r.status == status
                && r.category.as_deref() == Some(category)
                && excerpts.iter().all(|e| r.message.contains(e.as_str()))
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
            let actual = state_of(&mut inst);
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
            "an instance is left in state {}, the table says none",
            state_of(&mut inst)
        )),
    }
}

/// Everything wrong with `rows`: keys without a case or used twice, cases without a row, and rows
/// that do not hold.
fn table_failures(fmu: &Arc<Fmu>, rows: &[Row]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut keys = BTreeSet::new();
    for row in rows {
        if !keys.insert(row.key.as_str()) {
            failures.push(format!(
                "{TABLE_FILE}:{}: key `{}` is used twice",
                row.line, row.key
            ));
        }
    }
    let case_keys: BTreeSet<&str> = cases().map(|(key, _)| *key).collect();
    assert_eq!(
        case_keys.len(),
        cases().count(),
        "a case key is defined twice"
    );
    for key in case_keys.difference(&keys) {
        failures.push(format!("case `{key}` has no row in the table"));
    }
    for row in rows {
        let failure = match cases().find(|(key, _)| *key == row.key) {
            None => Some("the row has no case in tests/bad_input_table/".to_string()),
            Some((_, case)) => check_row(fmu, row, *case).err(),
        };
        if let Some(failure) = failure {
            failures.push(format!(
                "{TABLE_FILE}:{} `{}`: {failure}",
                row.line, row.key
            ));
        }
    }
    failures
}

#[test]
fn every_row_of_the_bad_input_table_holds() {
    let rows = bad_input_rows(&table_document());
    assert!(
        rows.len() >= 40,
        "the bad-input tables have only {} rows; is the section intact?",
        rows.len()
    );
    let failures = table_failures(&Fmu::load_default(), &rows);
    assert!(
        failures.is_empty(),
        "{} problems with the {} rows:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// The check itself can fail: each kind of drift between the table and the FMU is reported.
#[test]
fn drift_between_table_and_fmu_is_reported() {
    let fmu = Fmu::load_default();
    let document = table_document();
    let row_of = |key: &str| row_of(&document, key);
    let drifts = [
        (
            with_row_changed(
                &document,
                "unknown-value-reference",
                "reference 99`",
                "reference 98`",
            ),
            "no Error record under logStatusError contains",
        ),
        (
            with_row_changed(&document, "negative-c", "`fmi2Error`", "`fmi2OK`"),
            "returned Status(Error), the table says Status(Ok)",
        ),
        (
            with_row_changed(
                &document,
                "step-before-initialization",
                "Instantiated (unchanged)",
                "Error",
            ),
            "left in state Instantiated, the table says Error",
        ),
        (
            with_row_changed(&document, "set-output", "| Error |", "| StepComplete |"),
            "left in state Error, the table says StepComplete",
        ),
        (
            with_row_changed(
                &document,
                "null-resource-uri",
                "| Instantiated |",
                "| none |",
            ),
            "the table says none",
        ),
        (
            with_row_changed(&document, "wrong-guid", "| NULL |", "| an instance |"),
            "returned Instance(false), the table says Instance(true)",
        ),
        (
            with_row_changed(
                &document,
                "n-below-1",
                "`n = 0.5 is not allowed: it must be a finite number >= 1`",
                "—",
            ),
            "the table says nothing is logged",
        ),
        (
            with_row_changed(
                &document,
                "empty-null-arrays",
                "| — |",
                "| `vr[] is NULL` |",
            ),
            "no Ok record",
        ),
        (
            document.replace(&format!("{}\n", row_of("cancel-step")), ""),
            "case `cancel-step` has no row in the table",
        ),
        (
            document.replace(
                &row_of("cancel-step"),
                &format!(
                    "{}\n{}",
                    row_of("cancel-step"),
                    row_of("cancel-step").replace("`cancel-step`", "`cancel-twice`")
                ),
            ),
            "the row has no case",
        ),
        (
            document.replace(
                &row_of("cancel-step"),
                &format!("{}\n{}", row_of("cancel-step"), row_of("cancel-step")),
            ),
            "key `cancel-step` is used twice",
        ),
    ];
    for (changed, expected) in drifts {
        let failures = table_failures(&fmu, &bad_input_rows(&changed));
        assert!(
            failures.iter().any(|f| f.contains(expected)),
            "a table changed to fail with {expected:?} gave {failures:#?}"
        );
        assert_eq!(
            failures.len(),
            1,
            "only the changed row fails: {failures:#?}"
        );
    }
}

#[test]
fn table_cells_parse_as_documented() {
    assert_eq!(
        split_cells("| `a` | x \\| y | `b` and `c` |"),
        ["`a`", "x | y", "`b` and `c`"]
    );
    assert!(is_separator("|---|:--:|---|"));
    assert!(!is_separator("| a | --- |"));
    assert_eq!(code_spans("`b` and `c`, not d"), ["b", "c"]);
    assert!(code_spans("— (nothing logged)").is_empty());
    assert_eq!(
        expected_return("`fmi2Error`"),
        Ok(Returned::Status(Status::Error))
    );
    assert_eq!(expected_return("NULL"), Ok(Returned::Instance(false)));
    assert_eq!(expected_return("an instance"), Ok(Returned::Instance(true)));
    assert!(expected_return("fmi2Oops").is_err());
    assert_eq!(
        expected_state("Instantiated (unchanged)"),
        Ok(Some("Instantiated"))
    );
    assert_eq!(expected_state("—"), Ok(None));
    assert!(expected_state("Broken").is_err());
}
