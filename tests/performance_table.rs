//! `docs/performance.md`'s table of the step real masters take is the one the committed benchmark
//! run gives (`docs/performance/paired_ratios.json`, the packaged pair timed). After a run of the
//! benchmark on the packaged FMUs, `PERFORMANCE_WRITE=1 cargo test --release --test
//! performance_table` copies the run's `paired_ratios.json` there and writes the table.

mod support;

use std::path::{Path, PathBuf};

use support::generated::Generated;
use support::performance_table::master_table;

const RUN: &str = "docs/performance/paired_ratios.json";
const COMMAND: &str =
    "ELASTOGAP_FMU=target/fmu/ElastoGap.fmu ELASTOGAP3_FMU=target/fmu/ElastoGap3.fmu \
cargo bench --bench fmi_abi && PERFORMANCE_WRITE=1 cargo test --release --test performance_table";

/// Where the benchmark leaves its paired ratios.
fn last_run() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("criterion/paired_ratios.json")
}

#[test]
fn the_docs_table_is_the_committed_run_of_the_packaged_pair() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join(RUN);
    let mut docs = Generated::new("PERFORMANCE_WRITE", COMMAND);
    if std::env::var("PERFORMANCE_WRITE").is_ok_and(|v| v == "1") {
        std::fs::copy(last_run(), &committed).expect("a benchmark run to copy");
    }
    let text = std::fs::read_to_string(&committed).expect("the committed run");
    let run: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let library = run["library"].as_str().unwrap_or_default();
    assert!(
        library.starts_with("packaged FMU") && library.ends_with("ElastoGap.fmu"),
        "{RUN} timed {library:?}, not the packaged FMU"
    );
    let fmi3 = run["fmi3_over_fmi2"].as_object().expect("fmi3_over_fmi2");
    assert!(
        !fmi3.contains_key("not_measured"),
        "{RUN} has no FMI 3.0 rows: {fmi3:?}"
    );
    docs.block(
        "docs/performance.md",
        "master",
        &master_table(&run).unwrap(),
    );
    docs.assert_settled();
}
