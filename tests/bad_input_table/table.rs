//! The table side: the rows of `docs/bad-input.md`, read with the shared table reader of
//! `tests/support/bad_input_doc.rs`, and what their Status and State-after cells promise.

use crate::support::bad_input_doc::{find_section, state_named, tables};
use crate::support::Status;

// ---------------------------------------------------------------------------------------------
// The table side
// ---------------------------------------------------------------------------------------------

/// One row of a bad-input table, its cells as written (backslash-escaped pipes resolved).
#[derive(Debug)]
pub struct Row {
    pub line: usize,
    pub key: String,
    pub status: String,
    pub message: String,
    pub state: String,
}

/// Where the tables are, relative to the crate.
pub const TABLE_FILE: &str = "docs/bad-input.md";

pub fn table_document() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/bad-input.md");
    std::fs::read_to_string(path).expect("docs/bad-input.md is readable")
}

/// The rows of every table in the `# Bad input` document. Columns are found by their
/// header, so they may be reordered.
pub fn bad_input_rows(document: &str) -> Vec<Row> {
    let lines =
        find_section(document, "# Bad input").expect("docs/bad-input.md starts with '# Bad input'");
    let mut rows = Vec::new();
    for table in tables(&lines, TABLE_FILE) {
        let column = |prefix: &str| {
            table.column(prefix).unwrap_or_else(|| {
                panic!(
                    "{TABLE_FILE}:{}: table header {:?} has no column '{prefix}…'",
                    table.line, table.header
                )
            })
        };
        let (key, status, message, state) = (
            column("key"),
            column("status"),
            column("logged message"),
            column("state after"),
        );
        for (line, cells) in &table.rows {
            rows.push(Row {
                line: *line,
                key: cells[key].trim_matches('`').to_string(),
                status: cells[status].clone(),
                message: cells[message].clone(),
                state: cells[state].clone(),
            });
        }
    }
    rows
}

/// What the Status cell promises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returned {
    Status(Status),
    /// `fmi2Instantiate` returned an instance (`true`) or NULL (`false`).
    Instance(bool),
}

pub fn expected_return(cell: &str) -> Result<Returned, String> {
    let text = cell.replace('`', "");
    let word = text
        .split_whitespace()
        .find(|w| !matches!(*w, "a" | "an"))
        .unwrap_or("");
    Ok(match word {
        "fmi2OK" => Returned::Status(Status::Ok),
        "fmi2Warning" => Returned::Status(Status::Warning),
        "fmi2Discard" => Returned::Status(Status::Discard),
        "fmi2Error" => Returned::Status(Status::Error),
        "fmi2Fatal" => Returned::Status(Status::Fatal),
        "NULL" => Returned::Instance(false),
        "instance" => Returned::Instance(true),
        other => return Err(format!("unknown status {other:?} in cell {cell:?}")),
    })
}

pub const STATES: [&str; 8] = [
    "Instantiated",
    "InitializationMode",
    "StepComplete",
    "EventMode",
    "ContinuousTimeMode",
    "Terminated",
    "Error",
    "Fatal",
];

/// The state the State-after cell names, of the FMI 2.0 states.
pub fn expected_state(cell: &str) -> Result<Option<&'static str>, String> {
    state_named(cell, &STATES)
}
