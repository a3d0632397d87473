//! The accuracy table, `docs/accuracy-table.md`: step over contact duration
//! (0.1, 1, 3, 10) × system (lone, on a spring, driven, a second body behind) × the `m_eff` the gap
//! is given (right, 0, 2×) × master (Gauss–Seidel on `f_mean`, Jacobi on `f_next`, and the FMI 3.0
//! FMU returning early under Gauss–Seidel), each cell the body's position error after the contact
//! and the largest mechanical energy against the exact run's, through the packaged FMUs
//! (`$ELASTOGAP_FMU`, `$ELASTOGAP3_FMU`).
//!
//! The table is data, so it is regenerated, not hand-edited: `ACCURACY_WRITE=1 cargo test --release
//! --test accuracy_table` writes it; without `ACCURACY_WRITE` the test regenerates it in memory and
//! fails, naming the rows, where it differs from the committed file. The figures are rounded to 2
//! or 3 significant digits so that only a change of the FMU's behaviour, not floating-point noise,
//! shows; the touch-down instants are drawn from a fixed seed. `ACCURACY_TRACE=<row, from 1>`
//! prints that row's runs point by point, to see why a cell is what it is.

mod support;

use std::f64::consts::PI;
use std::fmt::Write as _;
use std::sync::Arc;

use support::early_return_master::{fmi3_gap, run as run_early};
use support::exact::{plant_rates, rk4_step, Body, Exact, Partner};
use support::fmi3::{CsOptions, Fmu3};
use support::masters::{cosimulate_plant_run, Gap, Master, Plant, Reads, Run, State};
use support::random::Random;
use support::{Fmu, Status};

const SEED: u64 = 0x45_acc0_7a61_e5ed;
const DOC: &str = "docs/accuracy-table.md";
const COMMAND: &str = "ACCURACY_WRITE=1 cargo test --release --test accuracy_table";
/// Every body's mass (kg), the gap's stiffness (N/m), its damping ratio, the approach speed (m/s).
const MASS: f64 = 1.0;
const C: f64 = 1e4;
const ZETA: f64 = 0.1;
const SPEED: f64 = 1.0;
/// The steps, in contact durations `T_c = pi*sqrt(m/c)`.
const STEPS: [f64; 4] = [0.1, 1.0, 3.0, 10.0];
/// The free period of the spring to ground and of the partner's spring, in contact durations:
/// slow against the contact, so that the contact is a short event in a longer motion.
const SLOW_PERIOD: f64 = 30.0;
/// The drive: its frequency over the spring's natural one, and its amplitude over `k*v0/omega_n`.
const DETUNE: f64 = 1.02;
const DRIVE_SHARE: f64 = 0.2;
/// The partner spring's rest length (m).
const REST: f64 = 1.0;
/// How long a run lasts: at least two slow periods and at least this many steps.
const RUN_LENGTH: f64 = 2.0 * SLOW_PERIOD;
const MIN_STEPS: usize = 20;
/// The position is compared at the first communication point this many steps after the contact.
const AFTER: f64 = 3.0;
/// The touch-down's fraction of the step is drawn in `[LOW, HIGH)`.
const LOW: f64 = 0.05;
const HIGH: f64 = 0.95;
/// Below this share of the stroke a position error is noise, shown as a bound.
const NOISE: f64 = 1e-6;
/// The cells a reader should look at (the contract's energy bounds; 5 % of the stroke).
const ENERGY_BOUND: f64 = 1.1;
const ENERGY_BOUND_OFF: f64 = 10.0;
const POSITION_BOUND: f64 = 0.05;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Lone,
    Spring,
    Driven,
    Partner,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Lone, Kind::Spring, Kind::Driven, Kind::Partner];

    fn label(self) -> &'static str {
        match self {
            Kind::Lone => "lone",
            Kind::Spring => "on a spring",
            Kind::Driven => "driven",
            Kind::Partner => "body behind",
        }
    }

    /// Whether a spring to ground holds the contacting body, so that it reaches the stop only
    /// within a quarter of the spring's period.
    fn grounded(self) -> bool {
        matches!(self, Kind::Spring | Kind::Driven)
    }
}

/// What the gap is told of the mass: the contacting body's, nothing, or twice it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MassGiven {
    Right,
    Zero,
    Double,
}

impl MassGiven {
    const ALL: [MassGiven; 3] = [MassGiven::Right, MassGiven::Zero, MassGiven::Double];

    fn factor(self) -> f64 {
        match self {
            MassGiven::Right => 1.0,
            MassGiven::Zero => 0.0,
            MassGiven::Double => 2.0,
        }
    }

    fn label(self) -> &'static str {
        match self {
            MassGiven::Right => "right",
            MassGiven::Zero => "0",
            MassGiven::Double => "2×",
        }
    }
}

/// One row of the table: a system, a step and the mass the gap is given.
#[derive(Clone, Copy, Debug)]
struct Case {
    kind: Kind,
    /// The step in contact durations.
    step: f64,
    /// Where in the first step the body touches the stop, as a share of the step.
    fraction: f64,
    given: MassGiven,
}

impl Case {
    fn contact_duration() -> f64 {
        PI * (MASS / C).sqrt()
    }

    fn h(&self) -> f64 {
        self.step * Self::contact_duration()
    }

    fn slow_period() -> f64 {
        SLOW_PERIOD * Self::contact_duration()
    }

    fn omega_n() -> f64 {
        2.0 * PI / Self::slow_period()
    }

    fn steps(&self) -> usize {
        ((RUN_LENGTH / self.step).ceil() as usize).max(MIN_STEPS)
    }

    /// The master's RK4 steps per communication step: one is exact for a lone body, the others
    /// get 400 per slow period so that what remains is the coupling's error.
    fn substeps(&self) -> usize {
        if self.kind == Kind::Lone {
            1
        } else {
            ((400.0 * self.step / SLOW_PERIOD).ceil() as usize).max(1)
        }
    }

    fn gap(&self) -> Gap {
        Gap {
            c: C,
            d: ZETA * 2.0 * (C * MASS).sqrt(),
            m_eff: self.given.factor() * MASS,
            s_rel0: 0.0,
        }
    }

    fn partner(&self) -> Option<Partner> {
        (self.kind == Kind::Partner).then(|| {
            let reduced = MASS * MASS / (MASS + MASS);
            Partner {
                mass: MASS,
                stiffness: reduced * Self::omega_n().powi(2),
                rest_length: REST,
            }
        })
    }

    /// The force on the contacting body besides the gap and the partner, with `rest` where the
    /// spring to ground is at rest: that spring and, driven, a force in phase with the free
    /// motion's velocity at a frequency near the spring's.
    fn external(&self, t: f64, x: f64, rest: f64) -> f64 {
        let omega = Self::omega_n();
        let stiffness = MASS * omega * omega;
        match self.kind {
            Kind::Lone | Kind::Partner => 0.0,
            Kind::Spring => -stiffness * (x - rest),
            Kind::Driven => {
                let amplitude = DRIVE_SHARE * stiffness * SPEED / omega;
                -stiffness * (x - rest) - amplitude * (DETUNE * omega * t).cos()
            }
        }
    }

    fn touch_down(&self) -> f64 {
        self.fraction * self.h()
    }

    /// The start position (the spring's rest) from which the free body reaches the stop at
    /// [`Case::touch_down`]: the motion relative to the rest does not depend on where the rest is.
    fn start(&self) -> f64 {
        let pieces = 20_000;
        let dt = self.touch_down() / pieces as f64;
        let relative = (0..pieces).fold([0.0, -SPEED], |y, i| {
            let f = |t: f64, y: [f64; 2]| [y[1], self.external(t, y[0], 0.0) / MASS];
            rk4_step(f, i as f64 * dt, y, dt)
        });
        -relative[0]
    }

    fn initial(&self, x0: f64) -> State {
        [x0, -SPEED, x0 + REST, -SPEED]
    }

    /// The bodies' mechanical energy: kinetic, the ground spring's and the partner spring's; not
    /// the contact's spring (a master's body may lie deep in the stop at a communication point
    /// while the gap, which integrates the contact itself, holds no such compression) nor the
    /// drive's work.
    fn energy(&self, y: State, rest: f64) -> f64 {
        let [x, v, partner_x, partner_v] = y;
        let mut energy = 0.5 * MASS * v * v;
        if self.kind.grounded() {
            energy += 0.5 * MASS * Self::omega_n().powi(2) * (x - rest).powi(2);
        }
        if let Some(p) = self.partner() {
            let stretch = partner_x - x - p.rest_length;
            energy += 0.5 * p.mass * partner_v * partner_v + 0.5 * p.stiffness * stretch * stretch;
        }
        energy
    }

    fn label(&self) -> String {
        format!(
            "| {} | {} | {} | {:.2} |",
            self.step,
            self.kind.label(),
            self.given.label(),
            self.fraction
        )
    }
}

/// The exact run at the communication points, and where the position is compared.
struct Reference {
    states: Vec<State>,
    /// The communication point of the comparison and the exact body's path from the touch-down
    /// to it.
    at: usize,
    stroke: f64,
}

/// An exact integrator of `case` from `x0`: RK4 at a two-thousandth of the contact's duration in
/// contact and of the slow period in free flight (a lone body's free flight is exact at any step).
fn exact_run<'a>(case: &Case, x0: f64, external: &'a dyn Fn(f64, f64, f64) -> f64) -> Exact<'a> {
    let gap = case.gap();
    let body = Body {
        mass: MASS,
        c: gap.c,
        d: gap.d,
        s_rel0: gap.s_rel0,
        external,
    };
    let dt_free = if case.kind == Kind::Lone {
        case.h()
    } else {
        case.h().min(Case::slow_period() / 2000.0)
    };
    let dt_contact = dt_free.min(Case::contact_duration() / 2000.0);
    let y = case.initial(x0);
    let exact = Exact::new(body, y[0], y[1], dt_free, dt_contact);
    match case.partner() {
        Some(p) => exact.with_partner(p, y[2], y[3]),
        None => exact,
    }
}

fn reference(case: &Case, x0: f64) -> Reference {
    let external = |t: f64, x: f64, _: f64| case.external(t, x, x0);
    let h = case.h();
    let mut exact = exact_run(case, x0, &external);
    let states: Vec<State> = (0..=case.steps())
        .map(|k| {
            exact.advance_to(k as f64 * h);
            [exact.x, exact.v, exact.partner_x, exact.partner_v]
        })
        .collect();
    let first = exact.events.first().expect("the exact run has a contact");
    let end = first.end.expect("the exact run's first contact ends");
    let at = (end / h + AFTER).ceil() as usize;
    assert!(at < states.len(), "{case:?}: the run ends before {at}");
    let touch_down = first.start;
    assert!(
        (touch_down - case.touch_down()).abs() < 1e-6 * h,
        "{case:?}: the exact run touches down at {touch_down}"
    );
    // The path from the touch-down on, summed over a hundredth of the contact's duration.
    let mut path = exact_run(case, x0, &external);
    path.advance_to(touch_down);
    let (mut stroke, mut x) = (0.0, path.x);
    let fine = Case::contact_duration() / 100.0;
    let target = at as f64 * h;
    while path.t < target {
        path.advance_to((path.t + fine).min(target));
        stroke += (path.x - x).abs();
        x = path.x;
    }
    Reference { states, at, stroke }
}

/// One cell: the position error over the stroke and the largest energy over the exact run's, or
/// why the run failed.
type Cell = Result<(f64, f64), String>;

fn measure(case: &Case, x0: f64, exact: &Reference, run: &Result<Vec<State>, String>) -> Cell {
    let states = run.as_ref().map_err(Clone::clone)?;
    // A NaN anywhere makes the largest NaN (`f64::max` would skip it).
    let largest = |states: &[State]| {
        states
            .iter()
            .map(|&y| case.energy(y, x0))
            .fold(0.0, |a: f64, e| {
                if a.is_nan() || e.is_nan() {
                    f64::NAN
                } else {
                    a.max(e)
                }
            })
    };
    let position = (states[exact.at][0] - exact.states[exact.at][0]).abs() / exact.stroke;
    let energy = largest(states) / largest(&exact.states);
    Ok((position, energy))
}

/// The plant the masters integrate: the contacting body feels `-held` from the gap.
fn derivative(case: &Case, x0: f64) -> impl Fn(f64, State, f64) -> State + '_ {
    let partner = case.partner();
    move |t, y, held| plant_rates(MASS, partner, y, case.external(t, y[0], x0) - held)
}

/// The FMI 2.0 FMU under `master`: the states at the communication points.
fn fmi2_run(fmu: &Arc<Fmu>, case: &Case, x0: f64, master: Master) -> Result<Vec<State>, String> {
    let derivative = derivative(case, x0);
    let plant = Plant {
        initial: case.initial(x0),
        derivative: &derivative,
    };
    let run = Run {
        master,
        h: case.h(),
        steps: case.steps(),
        substeps: case.substeps(),
        reads: Reads::Connected,
    };
    let (samples, logs) = cosimulate_plant_run(fmu, case.gap(), &[], &plant, run);
    // A failed call's message names the test's check; the FMU's own says why.
    let samples = samples.map_err(|panic| {
        let said = logs
            .iter()
            .find(|r| !matches!(r.status, Status::Ok | Status::Warning));
        said.map_or(panic, |r| r.message.clone())
    })?;
    Ok(samples
        .iter()
        .map(|s| [s.x, s.v, s.partner_x, s.partner_v])
        .collect())
}

/// The FMI 3.0 FMU under Gauss–Seidel (gap first, `f_mean` held over the step actually taken)
/// with early return and event mode (`support::early_return_master`): on an early return the
/// plant is stepped to where the gap stopped and the next step starts there, ending on the grid
/// again; the states at the grid's points, or where a call failed, what the FMU logged (the cell
/// says so instead of ending the test).
fn fmi3_run(fmu: &Arc<Fmu3>, case: &Case, x0: f64) -> Result<Vec<State>, String> {
    let derivative = derivative(case, x0);
    let plant = Plant {
        initial: case.initial(x0),
        derivative: &derivative,
    };
    let options = CsOptions {
        early_return_allowed: true,
        event_mode_used: true,
        intermediate_update: false,
    };
    let mut gap = fmi3_gap(fmu, case.gap(), plant.initial[0], plant.initial[1], options);
    let stop = case.steps() as f64 * case.h();
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_early(
            &mut gap,
            &plant,
            Master::GaussSeidel,
            case.h(),
            stop,
            case.substeps(),
        )
    }));
    ran.map(|end| end.on_grid)
        .map_err(|_| gap.instance.log_text())
}

/// The draws: per step and system, the touch-down's fraction of the first step. A body on a
/// spring to ground meets the stop only within a quarter of the spring's period (7.5 `T_c`), so
/// at the longest step its fraction is drawn below 0.7 of that quarter.
fn cases() -> Vec<Case> {
    let mut random = Random(SEED);
    let mut cases = Vec::new();
    for step in STEPS {
        for kind in Kind::ALL {
            let quarter = SLOW_PERIOD / 4.0;
            let high = if kind.grounded() {
                HIGH.min(0.7 * quarter / step)
            } else {
                HIGH
            };
            let fraction = LOW + (high - LOW) * random.unit();
            for given in MassGiven::ALL {
                cases.push(Case {
                    kind,
                    step,
                    fraction,
                    given,
                });
            }
        }
    }
    cases
}

/// `x` to `digits` significant digits, in plain notation below 1e4.
fn significant(x: f64, digits: i32) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let magnitude = x.abs().log10().floor() as i32;
    if magnitude >= 4 {
        return format!("{x:.*e}", (digits - 1) as usize);
    }
    format!("{x:.*}", (digits - 1 - magnitude).max(0) as usize)
}

/// The bound on a cell's energy ratio: the contract's, looser where the gap is given a wrong mass.
fn energy_bound(case: &Case) -> f64 {
    if case.given == MassGiven::Right {
        ENERGY_BOUND
    } else {
        ENERGY_BOUND_OFF
    }
}

/// Whether `value` is at most `bound`: not for a NaN.
fn within(value: f64, bound: f64) -> bool {
    value <= bound
}

/// Whether a cell is beyond the bounds a reader should look at: a failed call, a value not
/// finite, a position error or an energy ratio above its bound.
fn alarming(case: &Case, cell: &Cell) -> bool {
    match cell {
        Err(_) => true,
        Ok((position, energy)) => {
            !within(*position, POSITION_BOUND) || !within(*energy, energy_bound(case))
        }
    }
}

/// The two figures of a cell, each bold beyond its bound.
fn figures(case: &Case, cell: &Cell) -> String {
    let bold = |text: String, within: bool| {
        if within {
            text
        } else {
            format!("**{text}**")
        }
    };
    match cell {
        Err(_) => "**fails** | **fails**".to_string(),
        Ok((position, energy)) => {
            let shown = if *position < NOISE {
                format!("< {}", significant(NOISE * 100.0, 1))
            } else {
                significant(position * 100.0, 2)
            };
            let position = bold(shown, within(*position, POSITION_BOUND));
            let energy = bold(significant(*energy, 3), within(*energy, energy_bound(case)));
            format!("{position} | {energy}")
        }
    }
}

const HEADER: &str = r"# How exact each case is: the measured table

Measured through the packaged FMUs by `tests/accuracy_table.rs`; do not edit by hand. Written by
`ACCURACY_WRITE=1 cargo test --release --test accuracy_table` (with `ELASTOGAP_FMU` and
`ELASTOGAP3_FMU` naming the FMUs, `target/fmu/` by default), and checked against this
file by the same command without `ACCURACY_WRITE`. Seed `SEED_HERE` (`tests/support/random.rs`).

**Systems.** Every body 1 kg; the gap c = 1e4 N/m, d = 20 N·s/m (damping ratio 0.1), flange_a
fixed, the contacting body at flange_b approaching the stop at 1 m/s; `T_c = pi*sqrt(m/c)` =
31.4 ms.

- *lone*: the body alone.
- *on a spring*: the body on a spring to ground of free period 30 `T_c`, starting at the spring's
  rest, moving toward the stop.
- *driven*: that spring and a force `-0.2 k v0/omega_n * cos(1.02 omega_n t)`, near resonance and
  in phase with the free motion's velocity.
- *body behind*: a second body of 1 kg on a spring (rest length 1 m, period of the relative motion
  30 `T_c`), the two moving together at the start.

**Rows.** The step `h` in `T_c`; the system; the `m_eff` the gap is given (right: 1 kg, the
contacting body's mass; 0; 2×: 2 kg); `phi`, the seeded share of the first step at which the body
touches the stop, drawn in [0.05, 0.95) (a body on a spring to ground touches down within 0.7 of
the spring's quarter period: at 10 `T_c`, phi < 0.525). A run lasts 60 `T_c` and at least 20
steps. At 10 `T_c` the springs' period is 3 steps: the step no longer resolves the bodies' own
motion, and a coupling that holds a force over it is outside what it can follow.

**Masters.** *GS*: Gauss–Seidel, the gap stepped first from the body's state, the body then under
`-f_mean` of that step. *Jacobi*: both at once, the body holding `-f_next` read before the step.
*FMI 3 ER*: the FMI 3.0 FMU under that Gauss–Seidel master with early return and event mode: where
the gap returns early, the body is stepped to that instant under the step's `f_mean` and the next
step starts there. The masters integrate the bodies with RK4 (400 substeps per spring period, one
per step for the lone body, which is then exact).

**Figures.** The reference is an exact run without the FMU (`tests/support/exact.rs`: RK4 at
`T_c`/2000 in contact, contact start and end located by bisection). *pos %*: the contacting body's
position error `|x(t_e) - x_exact(t_e)|` at `t_e`, the first communication point at least 3 steps
after the exact run's first contact ends, over the stroke: the path the exact body travels from the
touch-down to `t_e`, in % (`< 0.0001` below 1e-6 of the stroke). *E ratio*: the largest over the
communication points of the bodies' mechanical energy (kinetic, the ground spring's, the partner
spring's; not the contact's spring, nor the drive's work) over the exact run's largest. Rounded to 2
and 3 significant digits; **bold**: an energy ratio above 1.1 with `m_eff` right or above 10
otherwise, a position error above 5 %, a value not finite, or a failed call (*fails*).

| h/T_c | system | m_eff | phi | GS pos % | GS E ratio | Jacobi pos % | Jacobi E ratio | FMI 3 ER pos % | FMI 3 ER E ratio |
| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
";

/// The runs of one row under its three masters.
type Runs = [(&'static str, Result<Vec<State>, String>); 3];

/// Prints row `row` (`ACCURACY_TRACE`, counted from 1) point by point: the contacting body's
/// position in the exact run and under each master, and the energies.
fn print_trace(row: usize, case: &Case, x0: f64, exact: &Reference, runs: &Runs) {
    println!(
        "row {row}: {case:?}, x0 = {x0:.6e}, t_e at point {}, stroke {:.4e}",
        exact.at, exact.stroke
    );
    for (k, y) in exact.states.iter().enumerate() {
        let mut line = format!("{k:>4} exact x {:+.5e} E {:.4e}", y[0], case.energy(*y, x0));
        for (name, run) in runs {
            if let Some(z) = run.as_ref().ok().and_then(|states| states.get(k)) {
                let _ = write!(
                    line,
                    " | {name} x {:+.5e} E {:.4e}",
                    z[0],
                    case.energy(*z, x0)
                );
            }
        }
        println!("{line}");
    }
}

/// The table, and the alarming cells as text.
fn table() -> (String, Vec<String>) {
    let fmu2 = Fmu::load_default();
    let fmu3 = Fmu3::load_default();
    let trace: Option<usize> = std::env::var("ACCURACY_TRACE")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut out = HEADER.replace("SEED_HERE", &format!("{SEED:#x}"));
    let mut alarms = Vec::new();
    for (row, case) in (1..).zip(cases()) {
        let x0 = case.start();
        let exact = reference(&case, x0);
        let runs: Runs = [
            ("GS", fmi2_run(&fmu2, &case, x0, Master::GaussSeidel)),
            ("Jacobi", fmi2_run(&fmu2, &case, x0, Master::Jacobi)),
            ("FMI 3 ER", fmi3_run(&fmu3, &case, x0)),
        ];
        if trace == Some(row) {
            print_trace(row, &case, x0, &exact, &runs);
        }
        let mut line = case.label();
        for (name, run) in &runs {
            let cell = measure(&case, x0, &exact, run);
            let _ = write!(line, " {} |", figures(&case, &cell));
            if alarming(&case, &cell) {
                alarms.push(format!("row {row} {} {name}: {cell:?}", case.label()));
            }
        }
        out += &line;
        out += "\n";
    }
    (out, alarms)
}

/// The lines of `now` that differ from `committed`, both versions of each (a row's line begins
/// with its label).
fn differences(committed: &str, now: &str) -> Vec<String> {
    let (old, new): (Vec<&str>, Vec<&str>) = (committed.lines().collect(), now.lines().collect());
    (0..old.len().max(new.len()))
        .filter(|&i| old.get(i) != new.get(i))
        .map(|i| {
            format!(
                "line {}:\n  committed: {}\n  now:       {}",
                i + 1,
                old.get(i).unwrap_or(&"(none)"),
                new.get(i).unwrap_or(&"(none)")
            )
        })
        .collect()
}

#[test]
fn accuracy_table_matches_its_committed_output() {
    let started = std::time::Instant::now();
    let (table, alarms) = table();
    println!("{table}");
    println!("alarming cells ({}):\n{}", alarms.len(), alarms.join("\n"));
    println!("measured in {:.1} s", started.elapsed().as_secs_f64());
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DOC);
    if std::env::var("ACCURACY_WRITE").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &table).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; write it with `{COMMAND}`", path.display()));
    let differ = differences(&committed, &table);
    assert!(
        differ.is_empty(),
        "{DOC} differs from the measured table in {} lines (rewrite it with `{COMMAND}` if the change is meant):\n{}",
        differ.len(),
        differ.join("\n")
    );
}
