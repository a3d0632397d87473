//! The table of the step real masters take (`docs/performance.md`), from the `master` rows of the
//! benchmark's `paired_ratios.json`: what `examples/bench_ratios.rs` prints and what
//! `tests/performance_table.rs` keeps in the doc.

use serde_json::Value;

/// The markdown table: one row per configuration and scenario, medians and quartiles of the
/// paired ratios, the limit and its verdict.
pub fn master_table(paired: &Value) -> Result<String, String> {
    let rows = paired
        .get("master")
        .and_then(Value::as_object)
        .ok_or("paired_ratios.json: no master rows (run the benchmark again)")?;
    let mut table = String::from(
        "| Configuration | Step | Steps | ns / step | / prescribed step | / C step | Limit | Verdict |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for (id, row) in rows {
        let text = |key: &str| row.get(key).and_then(Value::as_str).unwrap_or("?");
        let quartiles = |key: &str| -> Result<[f64; 3], String> {
            let values: Vec<f64> = row
                .get(key)
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_f64).collect())
                .unwrap_or_default();
            values
                .try_into()
                .map_err(|_| format!("paired_ratios.json: no quartiles {key} for {id}"))
        };
        let [_, ns, _] = quartiles("ns_per_step")?;
        let [p_low, p_median, p_high] = quartiles("over_prescribed")?;
        let [_, c_median, _] = quartiles("over_c")?;
        let limit = row.get("limit").and_then(Value::as_f64);
        let verdict = match limit {
            Some(limit) if p_median <= limit => "met",
            Some(_) => "**missed**",
            None => "-",
        };
        let steps = row.get("steps").and_then(Value::as_u64).unwrap_or(0);
        table.push_str(&format!(
            "| {} | {} | {steps} | {ns:.0} | {p_median:.2} [{p_low:.2}, {p_high:.2}] | {c_median:.2} | {} | {verdict} |\n",
            text("configuration"),
            text("scenario"),
            limit.map_or("-".to_string(), |l| format!("{l}")),
        ));
    }
    Ok(table)
}
