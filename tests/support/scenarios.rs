//! The scenarios of the coupling's acceptance cases and the report the tests print: each kind of
//! case is swept over a range of parameters (the product's acceptance uses other, hidden ones),
//! every measurement is kept as the worst value per master, case and criterion, and every
//! violation is counted. `COUPLING_REPORT_ONLY=1` prints the report without failing, to measure an
//! FMU.

use std::collections::BTreeMap;
use std::f64::consts::PI;

use super::masters::Master;

/// A body hitting a stop: contact stiffness and damping, the body's mass, its speed at touch-down.
#[derive(Clone, Copy, Debug)]
pub struct ImpactParameters {
    pub c: f64,
    pub d: f64,
    pub mass: f64,
    pub speed: f64,
}

/// The damping the base example scales with the stiffness: 20 N.s/m at 1e4 N/m, kept at the
/// same damping ratio for a 1 kg body.
pub fn issue_damping(c: f64) -> f64 {
    20.0 * (c / 1e4).sqrt()
}

impl ImpactParameters {
    /// The undamped contact's duration, half a period: pi*sqrt(m/c).
    pub fn contact_duration(&self) -> f64 {
        PI * (self.mass / self.c).sqrt()
    }

    pub fn label(&self) -> String {
        format!(
            "c={:.0e} d={:.3} m={} v={}",
            self.c, self.d, self.mass, self.speed
        )
    }
}

/// The base example (1 kg at 1 m/s, c = 1e4 N/m, d = 20 N.s/m), then one change at a time:
/// stiffer contacts up to 1e8 N/m with the damping scaled along, a quarter of that damping ratio,
/// a lighter and a heavier body, a slower and a faster impact.
pub fn impact_sweep() -> Vec<ImpactParameters> {
    let base = ImpactParameters {
        c: 1e4,
        d: issue_damping(1e4),
        mass: 1.0,
        speed: 1.0,
    };
    let stiff = |c: f64| ImpactParameters {
        c,
        d: issue_damping(c),
        ..base
    };
    vec![
        base,
        stiff(1e5),
        stiff(1e6),
        stiff(1e7),
        stiff(1e8),
        ImpactParameters {
            speed: 0.3,
            ..stiff(1e8)
        },
        ImpactParameters { d: 5.0, ..base },
        ImpactParameters { mass: 0.3, ..base },
        ImpactParameters {
            mass: 5.0,
            ..stiff(1e6)
        },
        ImpactParameters {
            speed: 3.0,
            ..stiff(1e6)
        },
    ]
}

/// Where the contact starts: in the first step (the body starts `phase` of a step's flight away
/// from the stop: just outside it for a small phase), or `phase` into step 3.
#[derive(Clone, Copy, Debug)]
pub enum Placement {
    FirstStep { phase: f64 },
    LaterStep { phase: f64 },
}

impl Placement {
    pub const SWEEP: [Placement; 6] = [
        Placement::FirstStep { phase: 0.02 },
        Placement::FirstStep { phase: 0.6 },
        Placement::FirstStep { phase: 0.95 },
        Placement::LaterStep { phase: 0.1 },
        Placement::LaterStep { phase: 0.5 },
        Placement::LaterStep { phase: 0.9 },
    ];

    /// The body's distance from the stop at `t = 0`, at `speed` with step `h`.
    pub fn start_distance(self, speed: f64, h: f64) -> f64 {
        match self {
            Placement::FirstStep { phase } => phase * speed * h,
            Placement::LaterStep { phase } => (3.0 + phase) * speed * h,
        }
    }

    pub fn is_first_step(self) -> bool {
        matches!(self, Placement::FirstStep { .. })
    }

    pub fn label(self) -> String {
        match self {
            Placement::FirstStep { phase } => format!("step 0 @{phase}"),
            Placement::LaterStep { phase } => format!("step 3 @{phase}"),
        }
    }
}

/// Steps `h` as multiples of the contact duration, from a tenth of it to a hundred.
pub const STEP_RATIOS: [f64; 9] = [0.1, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0];

/// The larger of two measurements, NaN the largest of all: `f64::max` would drop the NaN of an FMU
/// whose outputs went bad, and pass it.
pub fn worse(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// The worst measurement of one criterion for one master and case, and its violations.
#[derive(Clone, Debug)]
struct Worst {
    measured: f64,
    limit: f64,
    /// Where the worst value was measured (step, placement, ...).
    at: String,
    checks: usize,
    violations: usize,
}

/// The measurements of one test, printed as a table of the worst values.
pub struct Report {
    title: String,
    worst: BTreeMap<(String, String, String), Worst>,
    notes: Vec<String>,
}

/// Whether the tests only print (the other engineer's measuring mode).
pub fn report_only() -> bool {
    std::env::var("COUPLING_REPORT_ONLY").is_ok_and(|v| v == "1")
}

impl Report {
    pub fn new(title: &str) -> Report {
        Report {
            title: title.to_string(),
            worst: BTreeMap::new(),
            notes: Vec::new(),
        }
    }

    /// Records `measured` against `limit` (a violation when above it, or not a number).
    pub fn check(
        &mut self,
        master: Master,
        case: &str,
        criterion: &str,
        measured: f64,
        limit: f64,
        at: &str,
    ) {
        let key = (
            case.to_string(),
            master.label().to_string(),
            criterion.to_string(),
        );
        let entry = self.worst.entry(key).or_insert(Worst {
            measured: f64::MIN,
            limit,
            at: String::new(),
            checks: 0,
            violations: 0,
        });
        entry.checks += 1;
        // NaN counts as the worst possible value.
        let violated = measured.is_nan() || measured > limit;
        if violated {
            entry.violations += 1;
        }
        if measured.is_nan() || measured > entry.measured {
            entry.measured = measured;
            entry.limit = limit;
            entry.at = at.to_string();
        }
    }

    /// A line printed under the table (what was skipped, what a measure means).
    pub fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    pub fn violations(&self) -> usize {
        self.worst.values().map(|w| w.violations).sum()
    }

    /// Prints the table and fails when a check failed, unless `COUPLING_REPORT_ONLY=1`.
    pub fn finish(self) {
        let violations = self.print();
        if !report_only() {
            assert_eq!(violations, 0, "{}: see the table above", self.title);
        }
    }

    /// Prints the table and fails when a check failed, whatever `COUPLING_REPORT_ONLY` says: for
    /// the checks in the default suite.
    pub fn finish_in_the_default_suite(self) {
        let violations = self.print();
        assert_eq!(violations, 0, "{}: see the table above", self.title);
    }

    /// Prints the table; returns the number of violations.
    fn print(&self) -> usize {
        let mut out = format!("\n== {} ==\n", self.title);
        out += &format!(
            "{:<34} {:<24} {:<30} {:>11} {:>9} {:>9} {}\n",
            "case", "master", "criterion", "worst", "limit", "fails", "worst at"
        );
        for ((case, master, criterion), w) in &self.worst {
            out += &format!(
                "{case:<34} {master:<24} {criterion:<30} {:>11.3e} {:>9.1e} {:>4}/{:<4} {}{}\n",
                w.measured,
                w.limit,
                w.violations,
                w.checks,
                w.at,
                if w.violations > 0 { "  FAIL" } else { "" }
            );
        }
        // The same, over all cases: per master and criterion.
        let mut summary: BTreeMap<(&str, &str), Worst> = BTreeMap::new();
        for ((case, master, criterion), w) in &self.worst {
            let entry = summary
                .entry((master.as_str(), criterion.as_str()))
                .or_insert(Worst {
                    measured: f64::MIN,
                    limit: w.limit,
                    at: String::new(),
                    checks: 0,
                    violations: 0,
                });
            if w.measured.is_nan() || w.measured > entry.measured {
                entry.measured = w.measured;
                entry.limit = w.limit;
                entry.at = format!("{case}, {}", w.at);
            }
            entry.violations += w.violations;
            entry.checks += w.checks;
        }
        out += &format!("-- {}: worst over all cases --\n", self.title);
        for ((master, criterion), w) in &summary {
            out += &format!(
                "{master:<24} {criterion:<30} {:>11.3e} {:>9.1e} {:>5}/{:<5} {}\n",
                w.measured, w.limit, w.violations, w.checks, w.at
            );
        }
        for note in &self.notes {
            out += &format!("note: {note}\n");
        }
        let violations = self.violations();
        out += &format!("{}: {violations} violations\n", self.title);
        println!("{out}");
        violations
    }
}
