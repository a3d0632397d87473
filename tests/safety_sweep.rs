//! The seeded random stress sweep, through the packaged FMU
//! (`Fmu::load_default`): `SAFETY_SYSTEMS` systems (default 600), each a lone body, a body on a spring to ground driven
//! near its resonance, a body under gravity toward the stop, or a body with a second one behind
//! it on a spring; mass 0.05 to 20 kg, c = 1e4 to 1e8 N/m, damping ratio 0.02 to 0.5, approach
//! speed 0.1 to 5 m/s, steps of 0.1 to 30 contact durations (`T_c = pi*sqrt(m/c)`), the first
//! contact anywhere in the first three steps, the gap given `m_eff` = 0, the contacting body's
//! mass, or half or twice it; each under three masters (tests/support/masters.rs: Gauss–Seidel
//! gap first and body first holding `f_mean`, Jacobi holding `f_next`), 60 to 100 steps. A fourth,
//! Jacobi holding `f_mean` one step late, is swept and reported on request only
//! (`report_a_master_holding_f_mean_a_step_late`).
//!
//! Each system is also integrated monolithically without the FMU (tests/support/exact.rs: RK4 at
//! 1000 steps per contact duration, contact start and end located by bisection). The judged
//! energy is the bodies' mechanical energy at each communication point: kinetic, the partner's
//! and the ground spring's, and gravity's, measured from the lowest position the exact body
//! reaches (the exact energy is then never negative; at rest on the stop it is the weight times
//! the first impact's overshoot below the static rest). The contact's own spring is not counted:
//! with a step of many contact durations the master's body lies deep inside the stop at a
//! communication point while the gap, which integrates the contact itself, holds no such
//! compression (a lone body that comes out at the exact speed would count as a gain of 1000
//! times). For the driven body, whose drive does different work along the two motions, the
//! co-simulation's energy is compared with the exact run's in the same way (a gain of the
//! coupling and a different phase against the drive are not told apart).
//!
//! The criterion, with `r_k = E_cosim(t_k) / (max_j E_exact(t_j) + 1e-9*E_0)` (the exact run's
//! largest energy over the whole run): no value non-finite, no call failing, `r_k <= 1.1` at every
//! point where `m_eff` is right, and `r_k <= 10` at every point where it is 0 or off (0.5x, 2x).
//! That is the contract's bound: the bodies never hold more energy than the exact system ever does,
//! by more than these factors. The report also counts the runs that
//! exceed 1.1 times the exact energy at the neighbouring points `t_{k-1}..t_{k+1}` alone
//! ("tracking"): that judges phase as well, and a Jacobi master holds a contact's impulse a step
//! late by construction, so it is reported, not judged.
//!
//! Prints a report (per master: runs, failures, failed calls, non-finite runs, runs in which the
//! FMU logged a warning, the worst ratios, the runs with the right mass in which it warned that
//! the answers give another; failures per kind and per `m_eff`; the 15 worst runs,
//! all failed runs with `SAFETY_LIST=1`). Three tests judge it: in the default suite, that every
//! run stays bounded (no failed call, nothing non-finite, no energy above [`PEAK_BOUND`] times the
//! exact run's largest) and that no run with the right mass warns of another, under masters that
//! read the force they hold and under masters that read every output (FMPy's `simulate_fmu`,
//! cofmupy); on request, the criterion above for the
//! first, which fails on any failed run unless `SAFETY_REPORT_ONLY=1`:
//! `cargo test --release --test safety_sweep -- --ignored --nocapture`. One system or
//! master on request: `SAFETY_ONLY=<index>` (which also prints the run step by step),
//! `SAFETY_MASTER=<part of the master's label, any case>`; `SAFETY_SYSTEMS=<n>` draws n systems.

mod support;

use std::f64::consts::PI;
use std::sync::Arc;

use support::exact::{plant_rates, Body, Exact, Partner};
use support::logger::DISAGREEMENT_WARNING;
use support::masters::{cosimulate_plant_run, Gap, Master, Plant, Reads, Run, Sample, State};
use support::random::Random;
use support::{Fmu, Status};

const SEED: u64 = 0x35_5afe_7e55_d0c5;
const MASTERS: [Master; 3] = [
    Master::GaussSeidel,
    Master::GaussSeidelBodyFirst,
    Master::Jacobi,
];
/// The bound on a point's energy against the exact one with the right `m_eff`, and with none or
/// a wrong one.
const BOUND: f64 = 1.1;
const BOUND_OFF: f64 = 10.0;
/// What every run holds in the default suite: no run's energy ever above this many times the
/// largest the exact run reaches (the port's bound, docs/coupling.md).
const PEAK_BOUND: f64 = 1000.0;
/// The absolute floor of the comparison, in units of the initial energy.
const FLOOR: f64 = 1e-9;
/// The partner spring's length at rest.
const REST: f64 = 1.0;
/// RK4 steps per contact duration, and per period of the slowest free oscillation, of the exact run.
const EXACT_PER_CONTACT: f64 = 1000.0;
const EXACT_PER_PERIOD: f64 = 1000.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Lone,
    Driven,
    Gravity,
    Partner,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Lone, Kind::Driven, Kind::Gravity, Kind::Partner];

    fn label(self) -> &'static str {
        match self {
            Kind::Lone => "lone",
            Kind::Driven => "driven",
            Kind::Gravity => "gravity",
            Kind::Partner => "partner",
        }
    }
}

/// What the gap is told of the mass: nothing, the contacting body's, or half or twice it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MassGiven {
    Zero,
    Right,
    Half,
    Double,
}

impl MassGiven {
    const ALL: [MassGiven; 4] = [
        MassGiven::Zero,
        MassGiven::Right,
        MassGiven::Half,
        MassGiven::Double,
    ];

    fn factor(self) -> f64 {
        match self {
            MassGiven::Zero => 0.0,
            MassGiven::Right => 1.0,
            MassGiven::Half => 0.5,
            MassGiven::Double => 2.0,
        }
    }

    fn label(self) -> &'static str {
        match self {
            MassGiven::Zero => "m_eff 0",
            MassGiven::Right => "m_eff right",
            MassGiven::Half => "m_eff 0.5x",
            MassGiven::Double => "m_eff 2x",
        }
    }

    /// Judged against [`BOUND`] (the right mass), or [`BOUND_OFF`] (none or a wrong one).
    fn strict(self) -> bool {
        self == MassGiven::Right
    }
}

/// The spring to ground and the sinusoidal force of a driven body.
#[derive(Clone, Copy, Debug)]
struct Drive {
    stiffness: f64,
    /// Where the spring is at rest (the body's start, outside the stop).
    rest: f64,
    amplitude: f64,
    omega: f64,
    phase: f64,
    /// `omega` over the spring-mass natural frequency, and the amplitude over `k*v0/omega_n`.
    detune: f64,
    share: f64,
}

/// One drawn system: the body at flange_b meets the stop at `s_rel = x < 0`.
#[derive(Clone, Copy, Debug)]
struct System {
    index: usize,
    kind: Kind,
    mass: f64,
    c: f64,
    zeta: f64,
    speed: f64,
    h: f64,
    x0: f64,
    steps: usize,
    gravity: f64,
    partner: Option<Partner>,
    drive: Option<Drive>,
    /// The period of the slowest free oscillation (the partner's, the driven spring's), or infinity.
    slow_period: f64,
    given: MassGiven,
}

impl System {
    /// Draws system `index`; every kind's parameters are drawn for every system, so that each
    /// system's draws do not depend on the others' kinds.
    fn draw(index: usize, draw: &mut Random) -> System {
        let kind = Kind::ALL[(draw.unit() * 4.0) as usize % 4];
        let mass = draw.log_uniform(0.05, 20.0);
        let c = draw.log_uniform(1e4, 1e8);
        let zeta = draw.log_uniform(0.02, 0.5);
        let speed = draw.log_uniform(0.1, 5.0);
        let h = PI * (mass / c).sqrt() * draw.log_uniform(0.1, 30.0);
        let x0 = speed * h * 3.0 * draw.unit();
        let steps = 60 + (draw.unit() * 41.0) as usize;
        let gravity = draw.log_uniform(1.0, 30.0);
        let partner_mass = mass * draw.log_uniform(0.1, 10.0);
        let partner_period = h * draw.log_uniform(10.0, 200.0);
        let natural_period = h * draw.log_uniform(20.0, 200.0);
        let detune = 1.0 + 0.1 * (draw.unit() - 0.5);
        let share = draw.log_uniform(0.02, 0.5);
        let phase = 2.0 * PI * draw.unit();
        let omega_n = 2.0 * PI / natural_period;
        let mut system = System {
            index,
            kind,
            mass,
            c,
            zeta,
            speed,
            h,
            x0,
            steps,
            gravity: 0.0,
            partner: None,
            drive: None,
            slow_period: f64::INFINITY,
            given: MassGiven::ALL[index % 4],
        };
        match kind {
            Kind::Lone => {}
            Kind::Gravity => system.gravity = gravity,
            Kind::Partner => {
                let reduced = 1.0 / (1.0 / mass + 1.0 / partner_mass);
                system.partner = Some(Partner {
                    mass: partner_mass,
                    stiffness: reduced * (2.0 * PI / partner_period).powi(2),
                    rest_length: REST,
                });
                system.slow_period = partner_period;
            }
            Kind::Driven => {
                // At rest where the body starts, the spring lets it reach the stop: its free
                // amplitude `v0/omega_n` is at least 20/(2 pi) steps of travel, above x0.
                system.drive = Some(Drive {
                    stiffness: mass * omega_n * omega_n,
                    rest: x0,
                    amplitude: share * mass * omega_n * speed,
                    omega: omega_n * detune,
                    phase,
                    detune,
                    share,
                });
                system.slow_period = natural_period.min(natural_period / detune);
            }
        }
        system
    }

    fn contact_duration(&self) -> f64 {
        PI * (self.mass / self.c).sqrt()
    }

    fn damping(&self) -> f64 {
        self.zeta * 2.0 * (self.c * self.mass).sqrt()
    }

    /// The force on the contacting body from gravity, the ground spring and the drive.
    fn external(&self, t: f64, x: f64) -> f64 {
        let drive = self.drive.map_or(0.0, |d| {
            -d.stiffness * (x - d.rest) + d.amplitude * (d.omega * t + d.phase).sin()
        });
        drive - self.mass * self.gravity
    }

    /// The bodies' mechanical energy in state `[x, v, partner_x, partner_v]`: kinetic, the
    /// partner's and the ground spring's, and gravity's above `datum`.
    fn energy(&self, y: State, datum: f64) -> f64 {
        let [x, v, partner_x, partner_v] = y;
        let mut energy = 0.5 * self.mass * v * v + self.mass * self.gravity * (x - datum);
        if let Some(p) = self.partner {
            let stretch = partner_x - x - p.rest_length;
            energy += 0.5 * p.mass * partner_v * partner_v + 0.5 * p.stiffness * stretch * stretch;
        }
        if let Some(d) = self.drive {
            energy += 0.5 * d.stiffness * (x - d.rest).powi(2);
        }
        energy
    }

    fn initial(&self) -> State {
        match self.partner {
            Some(p) => [self.x0, -self.speed, self.x0 + p.rest_length, -self.speed],
            None => [self.x0, -self.speed, 0.0, 0.0],
        }
    }

    /// The exact run's state at every communication point, and the lowest position it reached.
    fn exact_run(&self) -> (Vec<State>, f64) {
        let external = |t: f64, x: f64, _: f64| self.external(t, x);
        let body = Body {
            mass: self.mass,
            c: self.c,
            d: self.damping(),
            s_rel0: 0.0,
            external: &external,
        };
        // Free flight of a lone body or under gravity is exact at any RK4 step.
        let dt_free = self.h.min(self.slow_period / EXACT_PER_PERIOD);
        let dt_contact = dt_free.min(self.contact_duration() / EXACT_PER_CONTACT);
        let [x, v, partner_x, partner_v] = self.initial();
        let mut exact = Exact::new(body, x, v, dt_free, dt_contact);
        if let Some(p) = self.partner {
            exact = exact.with_partner(p, partner_x, partner_v);
        }
        let states = (0..=self.steps)
            .map(|k| {
                exact.advance_to(k as f64 * self.h);
                [exact.x, exact.v, exact.partner_x, exact.partner_v]
            })
            .collect();
        assert!(
            !exact.events.is_empty(),
            "{}: the exact run has no contact",
            self.describe()
        );
        (states, exact.lowest)
    }

    /// The exact run's energies, gravity's measured from the lowest position the exact body
    /// reaches (so that none is negative).
    fn reference(&self) -> Reference {
        let (states, lowest) = self.exact_run();
        let datum = if self.gravity > 0.0 { lowest } else { 0.0 };
        let energies = states.iter().map(|&y| self.energy(y, datum)).collect();
        Reference { energies, datum }
    }

    /// The co-simulation under `master`: its samples or the failed call, and the FMU's messages.
    fn cosimulate(
        &self,
        fmu: &Arc<Fmu>,
        master: Master,
        reads: Reads,
    ) -> (Result<Vec<Sample>, String>, bool, bool) {
        let derivative = |t: f64, y: State, held: f64| -> State {
            plant_rates(self.mass, self.partner, y, self.external(t, y[0]) - held)
        };
        let plant = Plant {
            initial: self.initial(),
            derivative: &derivative,
        };
        let gap = Gap {
            c: self.c,
            d: self.damping(),
            m_eff: self.given.factor() * self.mass,
            s_rel0: 0.0,
        };
        // The master's RK4 is exact for a lone body or one under gravity; 16 substeps resolve
        // a spring of 10 steps' period.
        let substeps = if self.slow_period.is_finite() { 16 } else { 1 };
        let run = Run {
            master,
            h: self.h,
            steps: self.steps,
            substeps,
            reads,
        };
        let (run, logs) = cosimulate_plant_run(fmu, gap, &[], &plant, run);
        let warned = logs.iter().any(|r| r.status == Status::Warning);
        let another_mass = logs
            .iter()
            .any(|r| r.message.contains(DISAGREEMENT_WARNING));
        // A failed call's message names the test's check; the FMU's own says why.
        let run = run.map_err(|panic| {
            let said = logs
                .iter()
                .find(|r| !matches!(r.status, Status::Ok | Status::Warning));
            said.map_or(panic, |r| r.message.clone())
        });
        (run, warned, another_mass)
    }

    fn describe(&self) -> String {
        let t_c = self.contact_duration();
        let extra = match self.kind {
            Kind::Lone => String::new(),
            Kind::Gravity => format!(" g={:.1}", self.gravity),
            Kind::Partner => {
                let p = self.partner.unwrap();
                let period = self.slow_period / self.h;
                format!(" m2={:.2}m T_p={period:.0}h", p.mass / self.mass)
            }
            Kind::Driven => {
                let d = self.drive.unwrap();
                let period = 2.0 * PI * d.detune / d.omega / self.h;
                let (share, detune, phase) = (d.share, d.detune, d.phase);
                format!(" T_n={period:.0}h A={share:.2}k*v0/w_n w/w_n={detune:.3} phase={phase:.2}")
            }
        };
        format!(
            "#{} {} m={:.3} c={:.2e} zeta={:.3} v0={:.2} h={:.2}T_c x0={:.2}v0*h n={} {}{extra}",
            self.index,
            self.kind.label(),
            self.mass,
            self.c,
            self.zeta,
            self.speed,
            self.h / t_c,
            self.x0 / (self.speed * self.h),
            self.steps,
            self.given.label(),
        )
    }
}

/// The exact run's energies at the communication points and gravity's datum.
struct Reference {
    energies: Vec<f64>,
    datum: f64,
}

/// The ratios of one run: the largest single one and where, and the largest 3-point minimum.
#[derive(Clone, Copy, Debug)]
struct Ratios {
    single: f64,
    at: usize,
    windowed: f64,
    /// The exact energy at `at`, in units of the initial energy.
    exact_share: f64,
    /// The co-simulation's largest energy over the exact run's largest.
    peak: f64,
    /// The largest `E_cosim(t_k)` over the exact energy's largest at `t_{k-1}..t_{k+1}`.
    tracking: f64,
}

/// `r_k = E_cosim(t_k) / (the exact energy's largest over the run + floor)`; a NaN counts as
/// infinite.
fn energy_ratios(cosim: &[f64], exact: &[f64]) -> (Vec<f64>, Ratios) {
    let floor = FLOOR * exact[0];
    let last = exact.len() - 1;
    let largest = |e: &[f64]| e.iter().fold(0.0f64, |a, &b| a.max(b));
    let ratio = |k: usize, of: f64| {
        let ratio = cosim[k] / (of + floor);
        if ratio.is_nan() {
            f64::INFINITY
        } else {
            ratio
        }
    };
    let r: Vec<f64> = (0..=last).map(|k| ratio(k, largest(exact))).collect();
    let tracking = (0..=last)
        .map(|k| ratio(k, largest(&exact[k.saturating_sub(1)..=(k + 1).min(last)])))
        .fold(0.0, f64::max);
    let at = (0..=last).fold(0, |best, k| if r[k] > r[best] { k } else { best });
    let windowed = r
        .windows(3)
        .map(|w| w[0].min(w[1]).min(w[2]))
        .fold(f64::MIN, f64::max);
    let peak = largest(cosim) / largest(exact);
    let summary = Ratios {
        single: r[at],
        at,
        windowed,
        exact_share: exact[at] / exact[0],
        tracking,
        peak: if peak.is_nan() { f64::INFINITY } else { peak },
    };
    (r, summary)
}

/// One run's verdict.
struct Row {
    system: System,
    master: Master,
    ratios: Option<Ratios>,
    /// A failed call's message (the FMU's error ends the run).
    error: Option<String>,
    non_finite: bool,
    warned: bool,
    /// Whether the FMU warned that the answers give another mass than the one in use.
    warned_of_another_mass: bool,
    /// The worst ratio over its bound (1 at the bound); infinite for an error or a non-finite value.
    score: f64,
}

impl Row {
    fn failed(&self) -> bool {
        self.score > 1.0
    }
}

fn finite(s: &Sample) -> bool {
    [s.x, s.v, s.partner_x, s.partner_v, s.held, s.e_loss]
        .iter()
        .all(|v| v.is_finite())
}

/// Runs `system` under `master` and judges it against the exact energies.
fn judge(
    fmu: &Arc<Fmu>,
    (system, master, reads): (&System, Master, Reads),
    exact: &Reference,
    trace: bool,
) -> Row {
    let (run, warned, warned_of_another_mass) = system.cosimulate(fmu, master, reads);
    let mut row = Row {
        system: *system,
        master,
        ratios: None,
        error: None,
        non_finite: false,
        warned,
        warned_of_another_mass,
        score: f64::INFINITY,
    };
    let samples = match run {
        Ok(samples) => samples,
        Err(message) => {
            row.error = Some(message);
            return row;
        }
    };
    row.non_finite = !samples.iter().all(finite);
    let cosim: Vec<f64> = samples
        .iter()
        .map(|s| system.energy([s.x, s.v, s.partner_x, s.partner_v], exact.datum))
        .collect();
    let (r, ratios) = energy_ratios(&cosim, &exact.energies);
    if trace {
        print_trace(system, master, &samples, &cosim, &exact.energies, &r);
    }
    let score = if system.given.strict() {
        ratios.single / BOUND
    } else {
        ratios.single / BOUND_OFF
    };
    row.score = if row.non_finite { f64::INFINITY } else { score };
    row.ratios = Some(ratios);
    row
}

fn print_trace(
    system: &System,
    master: Master,
    samples: &[Sample],
    cosim: &[f64],
    exact: &[f64],
    r: &[f64],
) {
    println!("{} under {}", system.describe(), master.label());
    println!(
        "{:>4} {:>12} {:>12} {:>12} {:>12} {:>12} {:>10} {:>12} {:>12}",
        "k", "x", "v", "held", "E/E0", "E_exact/E0", "r", "port/E0", "E_loss/E0"
    );
    for (k, s) in samples.iter().enumerate() {
        println!(
            "{k:>4} {:>12.4e} {:>12.4e} {:>12.4e} {:>12.4e} {:>12.4e} {:>10.4} {:>12.4e} {:>12.4e}",
            s.x,
            s.v,
            s.held,
            cosim[k] / exact[0],
            exact[k] / exact[0],
            r[k],
            s.port_energy / exact[0],
            s.e_loss / exact[0]
        );
    }
}

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Every system under every master, judged; the report printed.
fn sweep(reads: Reads) -> Vec<Row> {
    sweep_under(reads, &MASTERS)
}

/// Every system under each of `masters`, judged; the report printed.
fn sweep_under(reads: Reads, masters: &[Master]) -> Vec<Row> {
    let fmu = Fmu::load_default();
    let count = env_usize("SAFETY_SYSTEMS").unwrap_or(600);
    let only = env_usize("SAFETY_ONLY");
    let master_filter = std::env::var("SAFETY_MASTER")
        .ok()
        .map(|m| m.to_lowercase());
    let masters: Vec<Master> = masters
        .iter()
        .copied()
        .filter(|m| {
            master_filter
                .as_ref()
                .is_none_or(|f| m.label().to_lowercase().contains(f.as_str()))
        })
        .collect();
    let mut draw = Random(SEED);
    let mut rows = Vec::new();
    for index in 0..count {
        let system = System::draw(index, &mut draw);
        if only.is_some_and(|o| o != index) || masters.is_empty() {
            continue;
        }
        let exact = system.reference();
        for &master in &masters {
            let run = (&system, master, reads);
            rows.push(judge(&fmu, run, &exact, only.is_some()));
        }
    }
    report(&rows, &masters);
    rows
}

/// The default suite's part: no call fails, no value is non-finite, no run's energy ever
/// exceeds [`PEAK_BOUND`] times the largest the exact run reaches, and no run with the right
/// `m_eff` warns that the answers give another mass (a warning must be true).
#[test]
fn every_random_system_stays_bounded_under_every_master() {
    assert_bounded(&sweep(Reads::Connected));
}

/// The same for a master that reads every output after every step (FMPy's `simulate_fmu`,
/// cofmupy), `heldForce` left at Auto.
#[test]
fn every_random_system_stays_bounded_reading_every_output() {
    assert_bounded(&sweep(Reads::Every));
}

fn assert_bounded(rows: &[Row]) {
    let unbounded: Vec<String> = rows
        .iter()
        .filter(|r| {
            r.error.is_some() || r.non_finite || r.ratios.is_none_or(|x| x.peak > PEAK_BOUND)
        })
        .map(|r| format!("{} under {}", r.system.describe(), r.master.label()))
        .collect();
    assert!(unbounded.is_empty(), "unbounded runs: {unbounded:#?}");
    let falsely_warned: Vec<String> = rows
        .iter()
        .filter(|r| r.system.given == MassGiven::Right && r.warned_of_another_mass)
        .map(|r| format!("{} under {}", r.system.describe(), r.master.label()))
        .collect();
    assert!(
        falsely_warned.is_empty(),
        "runs with the right m_eff warned of another mass: {falsely_warned:#?}"
    );
}

#[test]
#[ignore = "issue 45's acceptance sweep, not met yet: cargo test --release --test safety_sweep -- --ignored --nocapture"]
fn safety_sweep_random_systems_gain_no_energy() {
    let failures = sweep(Reads::Connected)
        .iter()
        .filter(|r| r.failed())
        .count();
    if !std::env::var("SAFETY_REPORT_ONLY").is_ok_and(|v| v == "1") {
        assert_eq!(failures, 0, "safety sweep: see the report above");
    }
}

/// A master that steps every unit at once with `f_mean` connected (OMSimulator's default master
/// does) holds each step's `f_mean` over the step after it: measured, not yet judged.
/// `cargo test --release --test safety_sweep late -- --ignored --nocapture`.
#[test]
#[ignore = "measured only: cargo test --release --test safety_sweep late -- --ignored --nocapture"]
fn report_a_master_holding_f_mean_a_step_late() {
    for reads in [Reads::Connected, Reads::Every] {
        let rows = sweep_under(reads, &[Master::JacobiMeanLate]);
        if std::env::var("SAFETY_LIST").is_ok() {
            for r in rows.iter().filter(|r| r.system.given == MassGiven::Right) {
                if r.warned_of_another_mass {
                    println!("warned of another mass: {}", r.system.describe());
                }
            }
        }
    }
}

/// The row of `rows` with the largest `key` (NaN-free keys).
fn worst_by<'a>(rows: &[&'a Row], key: impl Fn(&Ratios) -> f64) -> Option<(&'a Row, f64)> {
    rows.iter()
        .filter_map(|row| row.ratios.map(|r| (*row, key(&r))))
        .fold(None, |best, (row, value)| match best {
            Some((_, b)) if b >= value => best,
            _ => Some((row, value)),
        })
}

fn worst_line(name: &str, worst: Option<(&Row, f64)>) -> String {
    match worst {
        Some((row, value)) => {
            let r = row.ratios.unwrap();
            format!(
                "  {name:<34} {value:>10.3e} at k={} (E_exact/E0 {:.2e}): {}\n",
                r.at,
                r.exact_share,
                row.system.describe()
            )
        }
        None => format!("  {name:<34} -\n"),
    }
}

/// Per master: runs, failures, errors and non-finite runs, warned runs, the worst ratios.
fn master_summary(rows: &[Row], masters: &[Master]) -> String {
    let mut out = format!(
        "{:<26} {:>5} {:>6} {:>7} {:>10} {:>7}\n",
        "master", "runs", "fails", "errors", "non-finite", "warned"
    );
    for &master in masters {
        let of: Vec<&Row> = rows.iter().filter(|r| r.master == master).collect();
        let count = |f: &dyn Fn(&Row) -> bool| of.iter().filter(|r| f(r)).count();
        out += &format!(
            "{:<26} {:>5} {:>6} {:>7} {:>10} {:>7}\n",
            master.label(),
            of.len(),
            count(&|r| r.failed()),
            count(&|r| r.error.is_some()),
            count(&|r| r.non_finite),
            count(&|r| r.warned),
        );
        let strict: Vec<&Row> = of
            .iter()
            .copied()
            .filter(|r| r.system.given.strict())
            .collect();
        let off: Vec<&Row> = of
            .iter()
            .copied()
            .filter(|r| !r.system.given.strict())
            .collect();
        out += &worst_line(
            &format!("peak over the exact's (<= {PEAK_BOUND})"),
            worst_by(&of, |r| r.peak),
        );
        out += &worst_line(
            &format!("m_eff right (<= {BOUND})"),
            worst_by(&strict, |r| r.single),
        );
        out += &worst_line(
            &format!("m_eff 0, 0.5x, 2x (<= {BOUND_OFF})"),
            worst_by(&off, |r| r.single),
        );
        let right = of.iter().filter(|r| r.system.given == MassGiven::Right);
        let (runs, warned) = right.fold((0, 0), |(n, w), r| {
            (n + 1, w + usize::from(r.warned_of_another_mass))
        });
        out += &format!("  m_eff right, warned of another mass   {warned} of {runs} runs\n");
    }
    out
}

/// The worst run of each kind of system, over every master and mass.
fn worst_per_kind(rows: &[Row]) -> String {
    let mut out = String::new();
    for kind in Kind::ALL {
        let of: Vec<&Row> = rows.iter().filter(|r| r.system.kind == kind).collect();
        out += &worst_line(kind.label(), worst_by(&of, |r| r.single));
    }
    out
}

/// Failures out of runs, per group (rows) and master (columns).
fn breakdown(rows: &[Row], masters: &[Master], groups: &[&str], group: fn(&Row) -> &str) -> String {
    let mut out = format!("{:<14}", "");
    for master in masters {
        out += &format!(" {:>26}", master.label());
    }
    out += "\n";
    for &name in groups {
        out += &format!("{name:<14}");
        for &master in masters {
            let of = rows
                .iter()
                .filter(|r| r.master == master && group(r) == name);
            let (runs, fails) = of.fold((0, 0), |(n, f), r| (n + 1, f + usize::from(r.failed())));
            out += &format!(" {:>26}", format!("{fails}/{runs}"));
        }
        out += "\n";
    }
    out
}

/// Prints the report; returns the number of failed runs.
fn report(rows: &[Row], masters: &[Master]) {
    let mut out = format!(
        "\n== safety sweep: {} runs, seed {SEED:#x} ==\n",
        rows.len()
    );
    out += &master_summary(rows, masters);
    out += "-- the worst run of each kind (energy over the exact run's largest) --\n";
    out += &worst_per_kind(rows);
    out += "-- failed runs per kind --\n";
    let kinds = Kind::ALL.map(Kind::label);
    out += &breakdown(rows, masters, &kinds, |r| r.system.kind.label());
    out += "-- failed runs per m_eff --\n";
    let given = MassGiven::ALL.map(MassGiven::label);
    out += &breakdown(rows, masters, &given, |r| r.system.given.label());
    let mut failed: Vec<&Row> = rows.iter().filter(|r| r.failed()).collect();
    failed.sort_by(|a, b| b.score.total_cmp(&a.score));
    out += "-- the worst failed runs (score: the ratio over its bound) --\n";
    let listed = if std::env::var("SAFETY_LIST").is_ok() {
        failed.len()
    } else {
        15
    };
    for row in failed.iter().take(listed) {
        let what = match (&row.error, row.ratios) {
            (Some(e), _) => format!("error: {}", e.lines().next().unwrap_or("")),
            (None, Some(r)) => format!(
                "single {:.3e} at k={} (E_exact/E0 {:.2e}), 3-point {:.3e}{}",
                r.single,
                r.at,
                r.exact_share,
                r.windowed,
                if row.non_finite { ", non-finite" } else { "" }
            ),
            (None, None) => String::new(),
        };
        out += &format!(
            "{:>10.3e} {:<24} {what}\n           {}\n",
            row.score,
            row.master.label(),
            row.system.describe()
        );
    }
    let failures = failed.len();
    let tracking = rows
        .iter()
        .filter(|r| r.ratios.is_some_and(|x| x.tracking > BOUND))
        .count();
    out += &format!(
        "tracking (not judged): {tracking} runs above {BOUND} times the exact energy at t_(k-1)..t_(k+1)\n"
    );
    out += &format!("safety sweep: {failures} of {} runs failed\n", rows.len());
    println!("{out}");
}
