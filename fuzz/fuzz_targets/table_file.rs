//! Random bytes as the Gap Force's table file (`laws::gap_force_tables`, what the FMU reads at
//! the end of initialization): any text must be refused with a reason or give tables that
//! evaluate to finite values and slopes over their span and next to it, pass through their
//! points, and stay monotone where the points are. The committed seeds are valid tables and near
//! misses.

#![no_main]

use elastogap::laws::{gap_force_tables, Table};
use libfuzzer_sys::fuzz_target;

/// The points of a table, read back through its evaluation at the abscissae it was given: the
/// checks need them, and the table keeps them private.
fn check(table: &Table, points: &[(f64, f64)]) {
    let (first, last) = (points[0].0, points[points.len() - 1].0);
    let span = last - first;
    for &(x, y) in points {
        let (value, _) = table.evaluate(x);
        assert!(
            (value - y).abs() <= 1e-9 * y.abs().max(1.0),
            "the table misses its point ({x}, {y}): {value}"
        );
    }
    let increasing = points.windows(2).all(|w| w[1].1 >= w[0].1);
    let decreasing = points.windows(2).all(|w| w[1].1 <= w[0].1);
    let scale = points
        .iter()
        .map(|p| p.1.abs())
        .fold(0.0, f64::max)
        .max(1.0);
    let mut previous: Option<f64> = None;
    for k in 0..=64 {
        let x = first + span * f64::from(k) / 64.0;
        let (value, slope) = table.evaluate(x);
        if !(value.is_finite() && slope.is_finite()) {
            // Finite inputs can only overflow when the values themselves are near the largest
            // double.
            assert!(
                scale > 1e300,
                "not finite at {x}: {value}, {slope} ({points:?})"
            );
            return;
        }
        if let Some(previous) = previous {
            let tolerance = 1e-9 * scale;
            assert!(
                !(increasing && value < previous - tolerance
                    || decreasing && value > previous + tolerance),
                "monotone points, but the table turns at {x}: {previous} then {value} ({points:?})"
            );
        }
        previous = Some(value);
    }
}

/// The pairs of one key of the JSON text, as the parser saw them.
fn points_of(text: &str, key: &str) -> Option<Vec<(f64, f64)>> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    value
        .get(key)?
        .as_array()?
        .iter()
        .map(|pair| Some((pair.get(0)?.as_f64()?, pair.get(1)?.as_f64()?)))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match gap_force_tables(&text) {
        Err(error) => assert!(!error.to_string().is_empty(), "a refusal without a reason"),
        Ok((stiffness, damping)) => {
            assert!(
                stiffness.is_some() || damping.is_some(),
                "accepted without a table"
            );
            for (table, key) in [(stiffness, "stiffness"), (damping, "damping")] {
                if let Some(table) = table {
                    let points = points_of(&text, key).expect("an accepted table has its points");
                    check(&table, &points);
                }
            }
        }
    }
});
