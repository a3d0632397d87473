//! Reading the bad-input tables of `docs/bad-input*.md`: Markdown tables whose columns are found by
//! their header, each row's cells as written (backslash-escaped pipes resolved); and a row of one
//! changed, for the tests that check a drift between a table and the FMU is reported.

use std::collections::BTreeMap;

/// One row of a table, its cells by lower-cased header.
#[derive(Debug, Clone)]
pub struct Row {
    /// 1-based line in the document.
    pub line: usize,
    pub cells: BTreeMap<String, String>,
}

impl Row {
    /// The cell under the first header that starts with `prefix` (lower case).
    pub fn cell(&self, prefix: &str) -> Option<&str> {
        self.cells
            .iter()
            .find(|(header, _)| header.starts_with(prefix))
            .map(|(_, cell)| cell.as_str())
    }

    /// The key cell without its backticks.
    pub fn key(&self) -> String {
        self.cell("key").unwrap_or("").trim_matches('`').to_string()
    }
}

pub fn split_cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut cells = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => cells.push(String::new()),
            other => cells.last_mut().unwrap().push(other),
        }
    }
    cells.iter().map(|c| c.trim().to_string()).collect()
}

pub fn is_separator(line: &str) -> bool {
    let cells = split_cells(line);
    !cells.is_empty()
        && cells
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':')))
}

/// The lines of the section that starts at the heading `heading` (exactly) and ends at the next
/// heading of level 1 or 2, with their 1-based line numbers.
pub fn section<'a>(document: &'a str, heading: &str) -> Vec<(usize, &'a str)> {
    find_section(document, heading).unwrap_or_default()
}

/// [`section`], or `None` where the document has no heading `heading`.
pub fn find_section<'a>(document: &'a str, heading: &str) -> Option<Vec<(usize, &'a str)>> {
    let lines: Vec<&str> = document.lines().collect();
    let start = lines.iter().position(|l| l.trim_end() == heading)?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("# ") || l.starts_with("## "))
        .map_or(lines.len(), |k| start + 1 + k);
    Some((start + 1..end).map(|k| (k + 1, lines[k])).collect())
}

/// One table as written: its header and each row's cells, in column order.
#[derive(Debug, Clone)]
pub struct Table {
    /// 1-based line of the header in the document.
    pub line: usize,
    /// The header's cells as written (not lower-cased).
    pub header: Vec<String>,
    /// Each row's 1-based line and cells, as many as the header has.
    pub rows: Vec<(usize, Vec<String>)>,
}

impl Table {
    /// The first column, from the left, whose header lower-cased starts with `prefix`.
    pub fn column(&self, prefix: &str) -> Option<usize> {
        self.header
            .iter()
            .position(|h| h.to_lowercase().starts_with(prefix))
    }
}

/// Every table in `lines` (from [`section`]): a header line, a separator line, and the `|` lines
/// after them. A row with more or fewer cells than its header panics; `label` names the file.
pub fn tables(lines: &[(usize, &str)], label: &str) -> Vec<Table> {
    let mut tables = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let is_header = lines[k].1.trim_start().starts_with('|')
            && k + 1 < lines.len()
            && is_separator(lines[k + 1].1);
        if !is_header {
            k += 1;
            continue;
        }
        let mut table = Table {
            line: lines[k].0,
            header: split_cells(lines[k].1),
            rows: Vec::new(),
        };
        k += 2;
        while k < lines.len() && lines[k].1.trim_start().starts_with('|') {
            let cells = split_cells(lines[k].1);
            assert_eq!(
                cells.len(),
                table.header.len(),
                "{label}:{}: {} cells under a header of {}",
                lines[k].0,
                cells.len(),
                table.header.len()
            );
            table.rows.push((lines[k].0, cells));
            k += 1;
        }
        tables.push(table);
    }
    tables
}

/// The rows of every table in `lines` (from [`section`]); `label` names the file in panics.
pub fn table_rows(lines: &[(usize, &str)], label: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    for table in tables(lines, label) {
        let header: Vec<String> = table.header.iter().map(|h| h.to_lowercase()).collect();
        for (line, cells) in table.rows {
            rows.push(Row {
                line,
                cells: header.iter().cloned().zip(cells).collect(),
            });
        }
    }
    rows
}

/// The text inside each pair of backticks.
pub fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The FMI function names (`fmi2…` or `fmi3…` as `prefix` says) a cell mentions.
pub fn function_names(cell: &str, prefix: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = cell;
    while let Some(at) = rest.find(prefix) {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(tail.len());
        names.push(tail[..end].to_string());
        rest = &tail[end..];
    }
    names
}

/// The line of the row whose key cell is `` `key` ``.
pub fn row_of(document: &str, key: &str) -> String {
    document
        .lines()
        .find(|l| l.starts_with(&format!("| `{key}` |")))
        .unwrap_or_else(|| panic!("the table has a row `{key}`"))
        .to_string()
}

/// The document with the cell text `from` replaced by `to` in the row of `key`.
pub fn with_row_changed(document: &str, key: &str, from: &str, to: &str) -> String {
    let marker = format!("| `{key}` |");
    let mut changed = 0;
    let lines: Vec<String> = document
        .lines()
        .map(|line| {
            if line.starts_with(&marker) && line.contains(from) {
                changed += 1;
                line.replacen(from, to, 1)
            } else {
                line.to_string()
            }
        })
        .collect();
    assert_eq!(changed, 1, "the row `{key}` holds {from:?} once");
    lines.join("\n")
}

/// The state a State-after cell names (its first word) among `states`, or `None` for "none" or
/// an empty cell (no instance).
pub fn state_named(cell: &str, states: &[&'static str]) -> Result<Option<&'static str>, String> {
    let word = cell
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric());
    if word.is_empty() || word == "none" {
        return Ok(None);
    }
    states
        .iter()
        .find(|s| **s == word)
        .map(|s| Some(*s))
        .ok_or_else(|| format!("unknown state {word:?} in cell {cell:?}"))
}
