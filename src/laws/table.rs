//! Tabulated characteristics (RecurDyn's stiffness and damping splines of the Gap Force): points
//! read from a JSON file, interpolated by a monotone C¹ cubic, the end slopes continued outside.
//!
//! The interpolant is the piecewise cubic Hermite of Fritsch and Butland (the one MATLAB's `pchip`
//! uses): at an inner point the slope is the weighted harmonic mean of the two secants, or 0 where
//! they differ in sign, so that it follows the data's monotonicity and overshoots nowhere; at the
//! ends, the three-point formula bounded the same way. Between two points the table is a cubic with
//! the value and slope of both; outside it is the straight line the end point and slope give.
//!
//! Pure Rust, no FFI. A table is built (and allocates) when the parameters take effect; evaluating
//! it allocates nothing.

/// Why a table cannot be used.
#[derive(Clone, Debug, PartialEq)]
pub enum TableError {
    /// The text is not JSON, or not the expected shape.
    Malformed(String),
    TooFewPoints(usize),
    NotFinite {
        index: usize,
    },
    NotIncreasing {
        index: usize,
        previous: f64,
        x: f64,
    },
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableError::Malformed(what) => write!(f, "{what}"),
            TableError::TooFewPoints(count) => {
                write!(f, "{count} point(s); a table needs at least 2")
            }
            TableError::NotFinite { index } => write!(f, "point {index} is not finite"),
            TableError::NotIncreasing { index, previous, x } => write!(
                f,
                "the abscissae must increase strictly, but point {index} has {x} after {previous}"
            ),
        }
    }
}

/// A monotone C¹ cubic through points with strictly increasing abscissae.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    x: Vec<f64>,
    y: Vec<f64>,
    slope: Vec<f64>,
}

impl Table {
    pub fn new(points: &[(f64, f64)]) -> Result<Table, TableError> {
        if points.len() < 2 {
            return Err(TableError::TooFewPoints(points.len()));
        }
        for (index, &(x, y)) in points.iter().enumerate() {
            if !(x.is_finite() && y.is_finite()) {
                return Err(TableError::NotFinite { index });
            }
            if index > 0 && x <= points[index - 1].0 {
                return Err(TableError::NotIncreasing {
                    index,
                    previous: points[index - 1].0,
                    x,
                });
            }
        }
        let (x, y): (Vec<f64>, Vec<f64>) = points.iter().copied().unzip();
        let slope = slopes(&x, &y);
        // Between two points the cubic's slope is at most 1.5 times the secant plus the two end
        // slopes (each at most 3 secants): 7.5 secants. Abscissae so close that this overflows
        // would give an infinite slope there (fuzz/table_file reads such tables).
        let steepest = x
            .windows(2)
            .zip(y.windows(2))
            .map(|(x, y)| ((y[1] - y[0]) / (x[1] - x[0])).abs())
            .chain(slope.iter().map(|s| s.abs()))
            .fold(0.0f64, f64::max);
        if !(8.0 * steepest).is_finite() {
            return Err(TableError::Malformed(
                "the points are too close together for their values (a slope overflows)".into(),
            ));
        }
        Ok(Table { x, y, slope })
    }

    /// The value and slope at `x`; outside the table, the end's straight line.
    pub fn evaluate(&self, x: f64) -> (f64, f64) {
        let last = self.x.len() - 1;
        if x <= self.x[0] {
            return (self.y[0] + self.slope[0] * (x - self.x[0]), self.slope[0]);
        }
        if x >= self.x[last] {
            return (
                self.y[last] + self.slope[last] * (x - self.x[last]),
                self.slope[last],
            );
        }
        // The interval [x_k, x_k+1] that holds x.
        let k = self.x.partition_point(|&xk| xk <= x) - 1;
        let h = self.x[k + 1] - self.x[k];
        let t = (x - self.x[k]) / h;
        let (y0, y1, m0, m1) = (self.y[k], self.y[k + 1], self.slope[k], self.slope[k + 1]);
        // Cubic Hermite basis on [0, 1].
        let t2 = t * t;
        let t3 = t2 * t;
        let value = (2.0 * t3 - 3.0 * t2 + 1.0) * y0
            + (t3 - 2.0 * t2 + t) * h * m0
            + (-2.0 * t3 + 3.0 * t2) * y1
            + (t3 - t2) * h * m1;
        let slope = (6.0 * t2 - 6.0 * t) * (y0 - y1) / h
            + (3.0 * t2 - 4.0 * t + 1.0) * m0
            + (3.0 * t2 - 2.0 * t) * m1;
        (value, slope)
    }
}

/// The Fritsch–Butland slopes at the points.
fn slopes(x: &[f64], y: &[f64]) -> Vec<f64> {
    let n = x.len();
    let h: Vec<f64> = x.windows(2).map(|w| w[1] - w[0]).collect();
    let secant: Vec<f64> = (0..n - 1).map(|k| (y[k + 1] - y[k]) / h[k]).collect();
    if n == 2 {
        return vec![secant[0]; 2];
    }
    let mut slope = vec![0.0; n];
    for k in 1..n - 1 {
        let (a, b) = (secant[k - 1], secant[k]);
        if a * b > 0.0 {
            // Weighted harmonic mean, the weights from the interval lengths.
            let (w1, w2) = (2.0 * h[k] + h[k - 1], h[k] + 2.0 * h[k - 1]);
            slope[k] = (w1 + w2) / (w1 / a + w2 / b);
        }
    }
    slope[0] = end_slope(h[0], h[1], secant[0], secant[1]);
    slope[n - 1] = end_slope(h[n - 2], h[n - 3], secant[n - 2], secant[n - 3]);
    slope
}

/// The one-sided three-point slope at an end, kept to the sign of the end secant and within three
/// times it, so that the end interval stays monotone.
fn end_slope(h0: f64, h1: f64, d0: f64, d1: f64) -> f64 {
    let slope = ((2.0 * h0 + h1) * d0 - h0 * d1) / (h0 + h1);
    if slope * d0 <= 0.0 {
        0.0
    } else if d0 * d1 <= 0.0 && slope.abs() > 3.0 * d0.abs() {
        3.0 * d0
    } else {
        slope
    }
}

/// The Gap Force's tables of a JSON text: `"stiffness": [[x, force], ...]` with `x = s_rel -
/// s_rel0` and `"damping": [[v_rel, force], ...]`, either or both. Any other key is refused, so
/// that a misspelt one is not silently ignored.
pub fn gap_force_tables(json: &str) -> Result<(Option<Table>, Option<Table>), TableError> {
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|error| TableError::Malformed(format!("not valid JSON: {error}")))?;
    let object = value.as_object().ok_or_else(|| {
        TableError::Malformed(
            "the JSON text must be an object with \"stiffness\" and/or \"damping\"".into(),
        )
    })?;
    if let Some(key) = object.keys().find(|k| *k != "stiffness" && *k != "damping") {
        return Err(TableError::Malformed(format!(
            "unknown key \"{key}\" (the keys are \"stiffness\" and \"damping\")"
        )));
    }
    if object.is_empty() {
        return Err(TableError::Malformed(
            "neither \"stiffness\" nor \"damping\" is given".into(),
        ));
    }
    let table = |key: &str| -> Result<Option<Table>, TableError> {
        let Some(points) = object.get(key) else {
            return Ok(None);
        };
        let in_key = |error: TableError| TableError::Malformed(format!("\"{key}\": {error}"));
        let rows = points.as_array().ok_or_else(|| {
            in_key(TableError::Malformed(
                "must be an array of [x, y] pairs".into(),
            ))
        })?;
        let mut pairs = Vec::with_capacity(rows.len());
        for (index, row) in rows.iter().enumerate() {
            let pair = row
                .as_array()
                .filter(|pair| pair.len() == 2)
                .and_then(|pair| Some((pair[0].as_f64()?, pair[1].as_f64()?)))
                .ok_or_else(|| {
                    in_key(TableError::Malformed(format!(
                        "point {index} is not a pair of numbers [x, y]"
                    )))
                })?;
            pairs.push(pair);
        }
        Table::new(&pairs).map(Some).map_err(in_key)
    };
    let damping = table("damping")?;
    if let Some(damping) = &damping {
        check_dissipative(damping)
            .map_err(|why| TableError::Malformed(format!("\"damping\": {why}")))?;
    }
    Ok((table("stiffness")?, damping))
}

/// A damping table must take energy, never give it: `force*v_rel >= 0` everywhere. Its points
/// must not decrease (the monotone cubic then never does, nor do the continued end slopes) and
/// it must pass through 0 at `v_rel = 0`.
fn check_dissipative(table: &Table) -> Result<(), String> {
    for (index, pair) in table.y.windows(2).enumerate() {
        if pair[1] < pair[0] {
            return Err(format!(
                "the force must not decrease as v_rel grows, but point {} has {} after {}",
                index + 1,
                pair[1],
                pair[0]
            ));
        }
    }
    let scale = table.y.iter().fold(0.0f64, |m, y| m.max(y.abs()));
    let at_rest = table.evaluate(0.0).0;
    if at_rest.abs() > 1e-9 * scale {
        return Err(format!(
            "the force at v_rel = 0 is {at_rest}, not 0: a damper at rest would push and feed energy"
        ));
    }
    Ok(())
}

/// The tables of a Gap Force, as the instance keeps them once its parameters take effect, with a
/// fingerprint of the text they were read from (FNV-1a, the same on every platform) by which a
/// serialized FMU state names them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GapTables {
    pub stiffness: Option<Table>,
    pub damping: Option<Table>,
    pub fingerprint: u64,
}

impl GapTables {
    pub fn parse(json: &str) -> Result<GapTables, TableError> {
        let (stiffness, damping) = gap_force_tables(json)?;
        Ok(GapTables {
            stiffness,
            damping,
            fingerprint: fingerprint(json.as_bytes()),
        })
    }
}

/// FNV-1a over `bytes`, never 0 (0 stands for "no tables").
pub fn fingerprint(bytes: &[u8]) -> u64 {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    hash.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_through_its_points_with_a_continuous_slope() {
        let points = [
            (-2.0, -30.0),
            (-1.0, -4.0),
            (0.0, 0.0),
            (0.5, 1.0),
            (3.0, 50.0),
        ];
        let table = Table::new(&points).unwrap();
        for &(x, y) in &points {
            assert!((table.evaluate(x).0 - y).abs() < 1e-12, "at {x}");
        }
        // The slope is continuous at the inner points: the same from both sides.
        for &(x, _) in &points[1..4] {
            let (left, right) = (table.evaluate(x - 1e-9).1, table.evaluate(x + 1e-9).1);
            assert!((left - right).abs() < 1e-5 * left.abs().max(1.0), "at {x}");
        }
        // The slope is the derivative of the value.
        for k in 0..100 {
            let x = -2.5 + 0.06 * f64::from(k);
            let numeric = (table.evaluate(x + 1e-7).0 - table.evaluate(x - 1e-7).0) / 2e-7;
            let analytic = table.evaluate(x).1;
            assert!(
                (numeric - analytic).abs() < 1e-4 * analytic.abs().max(1.0),
                "at {x}"
            );
        }
    }

    #[test]
    fn keeps_monotone_data_monotone_and_reproduces_a_straight_line() {
        // A steep step: a natural spline would overshoot, the monotone cubic does not.
        let table = Table::new(&[
            (0.0, 0.0),
            (1.0, 0.0),
            (1.1, 10.0),
            (2.0, 10.0),
            (3.0, 10.5),
        ])
        .unwrap();
        let mut previous = f64::NEG_INFINITY;
        for k in 0..=3000 {
            let (y, slope) = table.evaluate(f64::from(k) * 1e-3);
            assert!(
                y >= previous - 1e-12 && slope >= -1e-12,
                "at {}: {y}",
                f64::from(k) * 1e-3
            );
            assert!((-1e-12..=10.5 + 1e-12).contains(&y));
            previous = y;
        }
        let line = Table::new(&[(0.0, 1.0), (1.0, 3.0), (4.0, 9.0), (5.0, 11.0)]).unwrap();
        for k in 0..60 {
            let x = -1.0 + 0.12 * f64::from(k);
            let (y, slope) = line.evaluate(x);
            assert!(
                (y - (1.0 + 2.0 * x)).abs() < 1e-12 && (slope - 2.0).abs() < 1e-12,
                "at {x}"
            );
        }
    }

    #[test]
    fn continues_the_end_slopes_outside() {
        let table = Table::new(&[(0.0, 0.0), (1.0, 1.0), (2.0, 4.0)]).unwrap();
        let (y2, m2) = table.evaluate(2.0);
        assert_eq!(table.evaluate(5.0), (y2 + 3.0 * m2, m2));
        let (y0, m0) = table.evaluate(0.0);
        assert_eq!(table.evaluate(-1.0), (y0 - m0, m0));
        // Two points: the straight line through them, everywhere.
        let two = Table::new(&[(1.0, 2.0), (3.0, 6.0)]).unwrap();
        assert_eq!(two.evaluate(0.0), (0.0, 2.0));
        let (y, slope) = two.evaluate(2.0);
        assert!((y - 4.0).abs() < 1e-12 && (slope - 2.0).abs() < 1e-12);
    }

    #[test]
    fn refuses_what_cannot_be_a_table() {
        assert_eq!(Table::new(&[(0.0, 1.0)]), Err(TableError::TooFewPoints(1)));
        assert_eq!(
            Table::new(&[(0.0, 1.0), (1.0, f64::NAN)]),
            Err(TableError::NotFinite { index: 1 })
        );
        assert_eq!(
            Table::new(&[(0.0, 1.0), (0.0, 2.0)]),
            Err(TableError::NotIncreasing {
                index: 1,
                previous: 0.0,
                x: 0.0
            })
        );
        assert!(matches!(
            Table::new(&[(0.0, 0.0), (1e-300, 1e300), (1.0, 0.0)]),
            Err(TableError::Malformed(_))
        ));
    }

    #[test]
    fn reads_the_gap_force_tables_of_a_json_text() {
        let (stiffness, damping) = gap_force_tables(
            r#"{"stiffness": [[-0.01, -100], [0, 0], [0.01, 100]], "damping": [[-1, -5], [1, 5]]}"#,
        )
        .unwrap();
        assert!((stiffness.unwrap().evaluate(0.005).0 - 50.0).abs() < 1e-12);
        let (force, slope) = damping.unwrap().evaluate(0.5);
        assert!((force - 2.5).abs() < 1e-12 && (slope - 5.0).abs() < 1e-12);
        let (stiffness, damping) = gap_force_tables(r#"{"damping": [[0, 0], [1, 2]]}"#).unwrap();
        assert!(stiffness.is_none() && damping.is_some());
        for (text, expected) in [
            ("{", "not valid JSON"),
            ("[1, 2]", "must be an object"),
            ("{}", "neither"),
            (
                r#"{"stifness": [[0, 0], [1, 1]]}"#,
                "unknown key \"stifness\"",
            ),
            (r#"{"stiffness": 3}"#, "\"stiffness\": must be an array"),
            (
                r#"{"stiffness": [[0, 0], [1]]}"#,
                "\"stiffness\": point 1 is not a pair",
            ),
            (
                r#"{"damping": [[0, 0], ["1", 2]]}"#,
                "\"damping\": point 1 is not a pair",
            ),
            (
                r#"{"stiffness": [[0, 0]]}"#,
                "\"stiffness\": 1 point(s); a table needs at least 2",
            ),
            (
                r#"{"stiffness": [[1, 0], [0, 1]]}"#,
                "\"stiffness\": the abscissae must increase",
            ),
            (
                r#"{"damping": [[0, 0], [0, 1]]}"#,
                "\"damping\": the abscissae must increase",
            ),
            (r#"{"damping": [[0, 0], [1, 1e999]]}"#, "not valid JSON"),
            // A secant of 1.25e308: finite, but the cubic's slope between the points is not.
            (
                r#"{"stiffness":[[0,0], [12e-308,15]]}"#,
                "\"stiffness\": the points are too close together for their values",
            ),
            (
                r#"{"damping": [[-1, -1], [0, 0], [1, -2]]}"#,
                "\"damping\": the force must not decrease as v_rel grows, but point 2 has -2 after 0",
            ),
            (
                r#"{"damping": [[-1, 1], [1, 3]]}"#,
                "\"damping\": the force at v_rel = 0 is 2, not 0",
            ),
        ] {
            let error = gap_force_tables(text).unwrap_err().to_string();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
