//! Text in the docs that a test makes from a run: a block between `<!-- generated: NAME (COMMAND)
//! -->` and `<!-- end: NAME -->`, or a table row that starts with a given head. Without the write
//! variable the test compares and reports every difference; with it set to 1 it writes the text.

/// Where the blocks and rows of one test go, and the command that writes them.
pub struct Generated<'a> {
    /// The environment variable that makes the test write (`NAME=1`).
    pub write_variable: &'a str,
    /// The command a reader runs to write them, named in each block's marker.
    pub command: &'a str,
    pub failures: Vec<String>,
}

impl<'a> Generated<'a> {
    pub fn new(write_variable: &'a str, command: &'a str) -> Generated<'a> {
        Generated {
            write_variable,
            command,
            failures: Vec::new(),
        }
    }

    fn writing(&self) -> bool {
        std::env::var(self.write_variable).is_ok_and(|v| v == "1")
    }

    fn read(path: &str) -> (String, String) {
        let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
        let doc = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"));
        (full, doc)
    }

    /// Writes or checks the block `name` of `path`.
    pub fn block(&mut self, path: &str, name: &str, now: &str) {
        let (full, mut doc) = Self::read(path);
        let open = format!("<!-- generated: {name} ({}) -->\n", self.command);
        let close = format!("<!-- end: {name} -->");
        let start = doc
            .find(&open)
            .unwrap_or_else(|| panic!("{path} has no {open:?}"))
            + open.len();
        let end = start
            + doc[start..]
                .find(&close)
                .unwrap_or_else(|| panic!("{path} has no {close:?}"));
        if &doc[start..end] == now {
            return;
        }
        if self.writing() {
            doc.replace_range(start..end, now);
            std::fs::write(&full, doc).unwrap_or_else(|e| panic!("{path}: {e}"));
        } else {
            let committed = &doc[start..end];
            self.failures.push(format!(
                "{path}, {name}:\ncommitted:\n{committed}\nnow:\n{now}"
            ));
        }
    }

    /// Writes or checks the table row of `path` that starts with `head`: the rest of it is `rest`.
    pub fn row(&mut self, path: &str, head: &str, rest: &str) {
        let (full, doc) = Self::read(path);
        let line = doc
            .lines()
            .find(|l| l.starts_with(head))
            .unwrap_or_else(|| panic!("{path} has no row {head:?}"));
        let now = format!("{head} {rest}");
        if line == now {
            return;
        }
        if self.writing() {
            std::fs::write(&full, doc.replacen(line, &now, 1))
                .unwrap_or_else(|e| panic!("{path}: {e}"));
        } else {
            self.failures
                .push(format!("{path}:\ncommitted: {line}\nnow:       {now}"));
        }
    }

    /// Fails, naming every difference, where the docs differ from the run.
    pub fn assert_settled(self) {
        assert!(
            self.failures.is_empty(),
            "the docs' figures differ from this run (`{}` writes them):\n{}",
            self.command,
            self.failures.join("\n")
        );
    }
}
