//! Numerical edge cases of the packaged `ElastoGap.fmu`, driven through its C API as an importer
//! drives it (`tests/support`): contact start and end exactly on a substep boundary or a
//! communication point, grazing and hair-thin contacts, inputs exactly at `s_rel0`, exponents far
//! above 1, reference forces of 0 and near the top of the f64 range, denormal velocities, and
//! communication steps of 1e-12 s and 1e3 s.
//!
//! Every value the FMU hands out is checked against the invariants of the law (see
//! [`Run::check_point`] and [`Run::step`]) and, where there is a closed form, against it. An extreme
//! input may be refused, but only with `fmi2Error` and a logged message: `fmi2OK` with a non-finite
//! value is a failure.
//!
//! This file's reading of the MSL 4.1 law (`src/physics.rs`, `modelDescription.xml`):
//! `s_rel = flange_b.s - flange_a.s`, contact while `s_rel < s_rel0`,
//! `f_c = -F*((s_rel0 - s_rel)/s_ref)^n` with `F = f_ref`, or `c*s_ref` when `f_ref = 0`,
//! `f_d = min(max(d*v_rel, f_c), -f_c)`, `f = f_c + f_d` (the force at flange_b; `f <= 0` pushes
//! the flanges apart, never together), `lossPower = f_d*v_rel >= 0`; `f_mean` is the mean of `f`
//! over the last step along the extrapolated motion, `E_loss` the dissipated energy so far and
//! `heatPort.Q_flow` the mean heat flow of the last step, `-(dissipated energy)/h`.

mod support;

use std::f64::consts::PI;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use support::{panic_message, Fmu, Instance, InstantiateOptions, Status, VarType, PROBE_SHARE};

// ---------------------------------------------------------------------------------------------
// The law, independently of src/
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
struct Law {
    c: f64,
    d: f64,
    s_rel0: f64,
    n: f64,
    s_ref: f64,
    f_ref: f64,
}

/// A plain linear spring of 1e4 N/m without damper.
const SPRING: Law = Law {
    c: 1e4,
    d: 0.0,
    s_rel0: 0.0,
    n: 1.0,
    s_ref: 1.0,
    f_ref: 0.0,
};

#[derive(Clone, Copy, Debug)]
struct Point {
    contact: bool,
    f_c: f64,
    f_d: f64,
    f: f64,
    loss_power: f64,
}

impl Law {
    fn settings(&self) -> [(&'static str, f64); 6] {
        [
            ("c", self.c),
            ("d", self.d),
            ("s_rel0", self.s_rel0),
            ("n", self.n),
            ("s_ref", self.s_ref),
            ("f_ref", self.f_ref),
        ]
    }

    fn reference_force(&self) -> f64 {
        if self.f_ref == 0.0 {
            self.c * self.s_ref
        } else {
            self.f_ref
        }
    }

    /// `|f_c|` at compression `x >= 0`.
    fn spring(&self, x: f64) -> f64 {
        self.reference_force() * (x / self.s_ref).powf(self.n)
    }

    /// Integral of [`Law::spring`] from compression 0 to `x`.
    fn spring_work(&self, x: f64) -> f64 {
        self.spring_work_over(0.0, x)
    }

    /// Integral of [`Law::spring`] from compression `a >= 0` to `a + span`, without the
    /// cancellation of `spring_work(a + span) - spring_work(a)` when `span` is much smaller than
    /// `a`: `(a + span)^m - a^m = a^m * expm1(m * ln1p(span/a))`.
    fn spring_work_over(&self, a: f64, span: f64) -> f64 {
        let m = self.n + 1.0;
        let difference = if a > 0.0 {
            (a / self.s_ref).powf(m) * (m * (span / a).ln_1p()).exp_m1()
        } else {
            (span / self.s_ref).powf(m)
        };
        self.reference_force() * self.s_ref / m * difference
    }

    fn at(&self, s_rel: f64, v_rel: f64) -> Point {
        // A NaN s_rel is no contact, as in the FMU.
        if s_rel >= self.s_rel0 || s_rel.is_nan() {
            return Point {
                contact: false,
                f_c: 0.0,
                f_d: 0.0,
                f: 0.0,
                loss_power: 0.0,
            };
        }
        let f_c = -self.spring(self.s_rel0 - s_rel);
        let f_d = (self.d * v_rel).max(f_c).min(-f_c);
        Point {
            contact: true,
            f_c,
            f_d,
            f: f_c + f_d,
            loss_power: f_d * v_rel,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Closed forms of the step integrals
// ---------------------------------------------------------------------------------------------

/// (integral of f, integral of lossPower) over `[0, h]` along `s_rel = s0 + v*t`, in closed form.
///
/// At constant speed the compression `x` is monotone, `dt = dx/|v|`, and the law splits at the
/// compression where the spring force equals `d*|v|`: below it the damper is bounded (`f = 2 f_c`
/// approaching, `f = 0` leaving, loss `|f_c|*|v|`), above it linear (`f = f_c + d*v`, loss
/// `d*v^2`).
fn constant_velocity(law: &Law, s0: f64, v: f64, h: f64) -> (f64, f64) {
    if v == 0.0 {
        let point = law.at(s0, 0.0);
        return (point.f * h, point.loss_power * h);
    }
    let speed = v.abs();
    let x_start = law.s_rel0 - s0;
    let x_end = x_start - v * h;
    let low = x_start.min(x_end).max(0.0);
    // The compression covered in contact; |v|*h itself when in contact all through, rather than
    // a difference of rounded compressions.
    let span = if x_start.min(x_end) > 0.0 {
        speed * h
    } else {
        x_start.max(x_end).max(0.0)
    };
    let damper = law.d * speed;
    let switch = if damper == 0.0 {
        0.0
    } else {
        law.s_ref * (damper / law.reference_force()).powf(1.0 / law.n)
    };
    let bounded_span = (switch - low).clamp(0.0, span);
    let linear_span = span - bounded_span;
    let bounded_work = law.spring_work_over(low, bounded_span);
    let linear_work = law.spring_work_over(low + bounded_span, linear_span);
    let impulse = if v < 0.0 {
        -(2.0 * bounded_work + linear_work + damper * linear_span) / speed
    } else {
        -(linear_work - damper * linear_span) / speed
    };
    (impulse, bounded_work + damper * linear_span)
}

/// `integral of (1 - x^2)^n over [-1, 1]` = B(1/2, n + 1), for the exponents used here.
fn dip_shape(n: f64) -> f64 {
    if n == 1.0 {
        4.0 / 3.0
    } else if n == 1.5 {
        3.0 * PI / 8.0
    } else if n == 2.0 {
        16.0 / 15.0
    } else {
        panic!("no closed form for n = {n} here")
    }
}

/// Integral of f over a parabolic dip `depth` below `s_rel0` with relative acceleration `a`
/// (`x = depth - a*u^2/2` around the deepest point), lying wholly inside the step. With `d = 0`
/// exactly; with a damper that is bounded everywhere in the dip (`f = 2 f_c` in, `f = 0` out,
/// symmetric) the same up to the linear window around `v_rel = 0`, which is of relative size
/// `|f_c|/(d*a*half_width)`.
fn dip_impulse(law: &Law, depth: f64, a: f64) -> f64 {
    let half_width = (2.0 * depth / a).sqrt();
    -law.spring(depth) * half_width * dip_shape(law.n)
}

/// `f_mean` of a step of length `h` from rest at `s_rel0` accelerating into contact with `a < 0`
/// (`x = |a| t^2/2`), `d = 0`.
fn from_rest_impulse(law: &Law, a: f64, h: f64) -> f64 {
    let n = law.n;
    -law.reference_force() * (a.abs() / (2.0 * law.s_ref)).powf(n) * h.powf(2.0 * n + 1.0)
        / (2.0 * n + 1.0)
}

#[track_caller]
fn assert_close(actual: f64, expected: f64, relative: f64, what: &str) {
    let error = (actual - expected).abs();
    assert!(
        error <= relative * expected.abs().max(f64::MIN_POSITIVE),
        "{what}: {actual:e} vs {expected:e} (relative error {:e} > {relative:e})",
        error / expected.abs()
    );
}

// ---------------------------------------------------------------------------------------------
// Driving one instance and checking everything it says
// ---------------------------------------------------------------------------------------------

const INPUTS: [&str; 4] = ["flange_a.s", "flange_a.v", "flange_b.s", "flange_b.v"];
const REALS: [&str; 9] = [
    "f",
    "s_rel",
    "v_rel",
    "lossPower",
    "heatPort.Q_flow",
    "f_mean",
    "E_loss",
    "f_c",
    "f_d",
];

#[derive(Clone, Copy, Debug)]
struct Outputs {
    f: f64,
    s_rel: f64,
    v_rel: f64,
    loss_power: f64,
    q_flow: f64,
    f_mean: f64,
    e_loss: f64,
    f_c: f64,
    f_d: f64,
    contact: bool,
}

#[derive(Clone, Copy, Debug)]
struct Setup {
    law: Law,
    use_heat_port: bool,
    max_substep_size: Option<f64>,
    max_substep_count: Option<i32>,
    /// 0 (none) makes the extrapolated motion exactly the one the inputs and supplied derivatives
    /// describe; 3 is the FMU's default.
    acceleration_estimate: i32,
    start_time: f64,
    /// `loggingOn`, so that contact events are logged.
    log_events: bool,
}

impl Setup {
    fn exact(law: Law) -> Setup {
        Setup {
            law,
            use_heat_port: true,
            max_substep_size: None,
            max_substep_count: None,
            acceleration_estimate: 0,
            start_time: 0.0,
            log_events: false,
        }
    }
}

/// An initialized instance and what the master knows: its time and the last `E_loss`.
struct Run {
    inst: Instance,
    setup: Setup,
    label: String,
    time: f64,
    e_loss: f64,
}

impl Run {
    fn start(fmu: &Arc<Fmu>, label: &str, setup: Setup) -> Run {
        let options = InstantiateOptions {
            logging_on: setup.log_events,
            ..InstantiateOptions::named(label)
        };
        let mut inst = Instance::instantiate(fmu, &options)
            .unwrap_or_else(|f| panic!("{label}: fmi2Instantiate failed: {:#?}", f.logs));
        for (name, value) in setup.law.settings() {
            assert_eq!(
                inst.set_real_by_name(name, value),
                Status::Ok,
                "{label}: {name} = {value}; log: {:#?}",
                inst.logs()
            );
        }
        assert_eq!(
            inst.set_boolean_by_name("useHeatPort", setup.use_heat_port),
            Status::Ok
        );
        assert_eq!(
            inst.set_integer_by_name("accelerationEstimate", setup.acceleration_estimate),
            Status::Ok
        );
        if let Some(size) = setup.max_substep_size {
            assert_eq!(inst.set_real_by_name("maxSubstepSize", size), Status::Ok);
        }
        if let Some(count) = setup.max_substep_count {
            assert_eq!(
                inst.set_integer_by_name("maxSubstepCount", count),
                Status::Ok
            );
        }
        assert_eq!(
            inst.setup_experiment(None, setup.start_time, None),
            Status::Ok
        );
        assert_eq!(inst.enter_initialization_mode(), Status::Ok);
        let status = inst.exit_initialization_mode();
        assert_eq!(status, Status::Ok, "{label}: log: {:#?}", inst.logs());
        Run {
            inst,
            setup,
            label: label.to_string(),
            time: setup.start_time,
            e_loss: 0.0,
        }
    }

    /// A refused call: `fmi2Error` and a message under `logStatusError`. Returns the message.
    #[track_caller]
    fn refusal(&mut self, status: Status, call: &str) -> String {
        let logs = self.inst.sink().take();
        assert_eq!(
            status,
            Status::Error,
            "{}: {call} returned {status:?}; log: {logs:#?}",
            self.label
        );
        let record = logs
            .iter()
            .rev()
            .find(|r| r.status == Status::Error)
            .unwrap_or_else(|| {
                panic!(
                    "{}: {call} returned fmi2Error without a logged message; log: {logs:#?}",
                    self.label
                )
            });
        assert_eq!(record.category.as_deref(), Some("logStatusError"));
        assert!(
            !record.message.trim().is_empty(),
            "{}: empty message",
            self.label
        );
        record.message.clone()
    }

    /// Every Real output and local and `contact`; when the FMU says fmi2OK, all finite.
    #[track_caller]
    fn read(&mut self, when: &str) -> Result<Outputs, String> {
        let vrs: Vec<u32> = REALS
            .iter()
            .map(|name| self.inst.vr(name, VarType::Real))
            .collect();
        let (status, values) = self.inst.get_real(&vrs);
        if status != Status::Ok {
            return Err(self.refusal(status, &format!("fmi2GetReal {when}")));
        }
        for (name, value) in REALS.iter().zip(&values) {
            assert!(
                value.is_finite(),
                "{}: fmi2GetReal returned fmi2OK with {name} = {value} {when}",
                self.label
            );
        }
        let (status, contact) = self.inst.get_boolean_by_name("contact");
        assert_eq!(status, Status::Ok);
        Ok(Outputs {
            f: values[0],
            s_rel: values[1],
            v_rel: values[2],
            loss_power: values[3],
            q_flow: values[4],
            f_mean: values[5],
            e_loss: values[6],
            f_c: values[7],
            f_d: values[8],
            contact,
        })
    }

    /// The direct-feedthrough outputs at the current motion against the law: the contact only
    /// pushes, the damper is bounded by the spring, dissipation is never negative.
    #[track_caller]
    fn check_point(&self, out: &Outputs, when: &str) {
        let label = format!("{} {when}", self.label);
        let law = &self.setup.law;
        assert!(out.f <= 0.0, "{label}: f = {} pulls", out.f);
        assert!(out.f_c <= 0.0, "{label}: f_c = {}", out.f_c);
        assert!(out.f_d.abs() <= out.f_c.abs(), "{label}: {out:?}");
        assert_eq!(out.f, out.f_c + out.f_d, "{label}: f = f_c + f_d");
        assert!(
            out.loss_power >= 0.0,
            "{label}: lossPower = {}",
            out.loss_power
        );
        assert_eq!(out.loss_power, out.f_d * out.v_rel, "{label}: lossPower");
        assert_eq!(out.contact, out.s_rel < law.s_rel0, "{label}: contact");
        let expected = law.at(out.s_rel, out.v_rel);
        if expected.contact {
            for (what, actual, wanted) in [
                ("f", out.f, expected.f),
                ("f_c", out.f_c, expected.f_c),
                ("f_d", out.f_d, expected.f_d),
                ("lossPower", out.loss_power, expected.loss_power),
            ] {
                let error = (actual - wanted).abs();
                assert!(
                    error <= 1e-13 * wanted.abs() + f64::MIN_POSITIVE,
                    "{label}: {what} = {actual:e}, the law gives {wanted:e}"
                );
            }
        } else {
            assert_eq!(
                (out.f, out.f_c, out.f_d, out.loss_power),
                (0.0, 0.0, 0.0, 0.0),
                "{label}: force out of contact"
            );
        }
    }

    /// Sets all four inputs and, if given, the acceleration of flange_b (first derivative of its
    /// velocity); returns the outputs at these inputs.
    #[track_caller]
    fn set(&mut self, inputs: [f64; 4], acceleration_b: Option<f64>) -> Result<Outputs, String> {
        let vrs: Vec<u32> = INPUTS
            .iter()
            .map(|name| self.inst.vr(name, VarType::Real))
            .collect();
        let status = self.inst.set_real(&vrs, &inputs);
        if status != Status::Ok {
            return Err(self.refusal(status, "fmi2SetReal of the inputs"));
        }
        if let Some(a) = acceleration_b {
            let status = self.inst.set_real_input_derivatives(&[vrs[3]], &[1], &[a]);
            assert_eq!(status, Status::Ok, "{}: input derivative", self.label);
        }
        let out = self.read("at the inputs")?;
        self.check_point(&out, "at the inputs");
        Ok(out)
    }

    /// One `fmi2DoStep` from the master's time; on fmi2OK, the outputs after it, checked: the
    /// point invariants, `f_mean <= 0`, `E_loss` non-decreasing, `heatPort.Q_flow` the negative
    /// mean dissipated power of the step (0 without heat port).
    #[track_caller]
    fn step(&mut self, h: f64) -> Result<Outputs, String> {
        let status = self.inst.do_step(self.time, h, false);
        if status != Status::Ok {
            return Err(self.refusal(status, &format!("fmi2DoStep({}, {h})", self.time)));
        }
        let when = format!("after the step from t = {} by {h}", self.time);
        self.time += h;
        let out = self.read(&when)?;
        self.check_point(&out, &when);
        let label = format!("{} {when}", self.label);
        assert!(out.f_mean <= 0.0, "{label}: f_mean = {} pulls", out.f_mean);
        assert!(
            out.e_loss >= self.e_loss,
            "{label}: E_loss fell from {} to {}",
            self.e_loss,
            out.e_loss
        );
        let dissipated = out.e_loss - self.e_loss;
        if self.setup.use_heat_port {
            assert!(
                out.q_flow <= 0.0,
                "{label}: heatPort.Q_flow = {}",
                out.q_flow
            );
            // Rounding of E_loss's running sum and of the division by h.
            let slack = 4.0 * f64::EPSILON * (out.e_loss + (out.q_flow * h).abs());
            assert!(
                (out.q_flow * h + dissipated).abs() <= slack,
                "{label}: heatPort.Q_flow*h = {:e}, E_loss grew by {dissipated:e}",
                out.q_flow * h
            );
        } else {
            assert_eq!(
                out.q_flow, 0.0,
                "{label}: heatPort.Q_flow without heat port"
            );
        }
        self.e_loss = out.e_loss;
        Ok(out)
    }

    /// `(t, entering)` of every contact event logged so far (needs `log_events`).
    fn contact_events(&self) -> Vec<(f64, bool)> {
        self.inst
            .logs()
            .iter()
            .filter_map(|r| {
                let rest = r.message.strip_prefix("contact ")?;
                let (kind, time) = rest.split_once(" at t = ")?;
                Some((time.trim().parse().ok()?, kind == "starts"))
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// One step from given relative motion: the table of cases
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Out of contact over the whole step (at most touching `s_rel0`): exactly no force and no
    /// loss.
    NoForce,
    /// The impulse and dissipated energy of the step against closed forms.
    Integral {
        impulse: f64,
        dissipated: f64,
        tolerance: f64,
    },
    /// A contact at the rounding level of the inputs: only bounds.
    AtMost { force: f64, dissipated: f64 },
}

#[derive(Clone, Debug)]
struct OneStep {
    name: String,
    law: Law,
    /// Relative position, velocity and acceleration at the step start (flange_a at rest at 0).
    s0: f64,
    v0: f64,
    a: f64,
    h: f64,
    max_substep_size: Option<f64>,
    max_substep_count: Option<i32>,
    expect: Expect,
}

impl OneStep {
    fn new(name: impl Into<String>, law: Law, (s0, v0, a): (f64, f64, f64), h: f64) -> OneStep {
        OneStep {
            name: name.into(),
            law,
            s0,
            v0,
            a,
            h,
            max_substep_size: None,
            max_substep_count: None,
            expect: Expect::NoForce,
        }
    }

    fn substeps(self, size: f64) -> OneStep {
        OneStep {
            max_substep_size: Some(size),
            ..self
        }
    }

    fn expect(self, expect: Expect) -> OneStep {
        OneStep { expect, ..self }
    }

    /// The closed form of [`constant_velocity`] (needs `a = 0`).
    fn expect_constant_velocity(self, tolerance: f64) -> OneStep {
        assert_eq!(self.a, 0.0, "{}", self.name);
        let (impulse, dissipated) = constant_velocity(&self.law, self.s0, self.v0, self.h);
        self.expect(Expect::Integral {
            impulse,
            dissipated,
            tolerance,
        })
    }

    /// Runs the step on a fresh instance and checks it; returns the run for more checks.
    fn run(&self, fmu: &Arc<Fmu>, log_events: bool) -> (Run, Outputs) {
        let setup = Setup {
            max_substep_size: self.max_substep_size,
            max_substep_count: self.max_substep_count,
            log_events,
            ..Setup::exact(self.law)
        };
        let mut run = Run::start(fmu, &self.name, setup);
        let acceleration = (self.a != 0.0).then_some(self.a);
        let at_inputs = run
            .set([0.0, 0.0, self.s0, self.v0], acceleration)
            .unwrap_or_else(|m| panic!("{}: inputs refused: {m}", self.name));
        assert_eq!(at_inputs.s_rel, self.s0, "{}", self.name);
        let out = run
            .step(self.h)
            .unwrap_or_else(|m| panic!("{}: step refused: {m}", self.name));
        let dissipated = out.e_loss;
        match self.expect {
            Expect::NoForce => {
                assert_eq!(out.f_mean, 0.0, "{}: f_mean", self.name);
                assert_eq!(dissipated, 0.0, "{}: E_loss", self.name);
            }
            Expect::Integral {
                impulse,
                dissipated: expected,
                tolerance,
            } => {
                // Without a mass, a contact that begins in the step is probed: the step holds
                // PROBE_SHARE of the integral along the motion (docs/coupling.md).
                let share = if self.s0 >= self.law.s_rel0 {
                    PROBE_SHARE
                } else {
                    1.0
                };
                let (impulse, expected) = (share * impulse, share * expected);
                assert_close(
                    out.f_mean,
                    impulse / self.h,
                    tolerance,
                    &format!("{}: f_mean", self.name),
                );
                assert_close(
                    dissipated,
                    expected,
                    tolerance,
                    &format!("{}: E_loss", self.name),
                );
            }
            Expect::AtMost {
                force,
                dissipated: bound,
            } => {
                assert!(
                    out.f_mean.abs() <= force,
                    "{}: f_mean = {:e}",
                    self.name,
                    out.f_mean
                );
                assert!(
                    dissipated <= bound,
                    "{}: E_loss = {dissipated:e}",
                    self.name
                );
            }
        }
        let s_end = self.s0 + self.h * (self.v0 + 0.5 * self.a * self.h);
        assert!(
            (out.s_rel - s_end).abs() <= 1e-15 * (self.s0.abs() + s_end.abs()),
            "{}: s_rel = {:e} at the step end, expected {s_end:e}",
            self.name,
            out.s_rel
        );
        (run, out)
    }
}

/// Binary-exact times and positions, so that "exactly on a boundary" is exact in f64 too: steps of
/// 2^-10 s cut into 8 substeps of 2^-13 s.
const H: f64 = 1.0 / 1024.0;
const SUBSTEP: f64 = H / 8.0;

const DAMPED: Law = Law { d: 30.0, ..SPRING };

#[test]
fn contact_start_and_end_exactly_on_substep_boundaries_and_step_ends() {
    let fmu = Fmu::load_default();
    let cases = [
        // Touch-down at 3 substeps into the step at 1 m/s, then 5 substeps of contact.
        OneStep::new(
            "touch-down on substep boundary 3",
            SPRING,
            (3.0 * SUBSTEP, -1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-13),
        OneStep::new(
            "touch-down on substep boundary 3, damped",
            DAMPED,
            (3.0 * SUBSTEP, -1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "lift-off on substep boundary 5, damped",
            DAMPED,
            (-5.0 * SUBSTEP, 1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "touch-down on substep boundary 3, n = 2",
            Law { n: 2.0, ..DAMPED },
            (3.0 * SUBSTEP, -1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "touch-down exactly at the step end",
            DAMPED,
            (H, -1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP),
        OneStep::new(
            "touch-down exactly at the step start",
            DAMPED,
            (0.0, -1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "lift-off exactly at the step end",
            DAMPED,
            (-H, 1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "lift-off exactly at the step start",
            DAMPED,
            (0.0, 1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP),
    ];
    for case in cases {
        let (run, _) = case.run(&fmu, true);
        // A transition strictly inside the step is logged at its exact time.
        let inside = case.s0 != 0.0 && case.s0 != -case.v0 * case.h;
        let expected: Vec<(f64, bool)> = if inside {
            vec![(-case.s0 / case.v0, case.v0 < 0.0)]
        } else {
            Vec::new()
        };
        assert_eq!(run.contact_events(), expected, "{}", case.name);
    }
}

/// Touch-down exactly at a communication point, at 1 m/s: the step before ends at `s_rel0` and
/// sees no force at all, the step after is in contact from its start. Under the default
/// parameters the contact's first two steps hold probes; the motion, prescribed, answers neither,
/// and from the third step on each step holds the law's integral along it (the closed form), and
/// `E_loss` is the closed form over the contact so far.
#[test]
fn touch_down_exactly_at_a_communication_point() {
    let fmu = Fmu::load_default();
    for law in [SPRING, DAMPED, Law { n: 1.5, ..DAMPED }] {
        let label = format!("touch-down at t = 2h, n = {}, d = {}", law.n, law.d);
        let setup = Setup {
            max_substep_size: Some(SUBSTEP),
            log_events: true,
            ..Setup::exact(law)
        };
        let mut run = Run::start(&fmu, &label, setup);
        // n = 1.5: the force grows like t^1.5 from the contact's start, which the 3-point rule
        // per substep integrates to a few 1e-7 of the impulse.
        let tolerance = if law.n == 1.0 { 1e-12 } else { 2e-6 };
        for k in 0..7 {
            let t = f64::from(k) * H;
            let s_rel = 2.0 * H - t;
            run.set([0.0, 0.0, s_rel, -1.0], None).unwrap();
            let out = run.step(H).unwrap();
            if k < 2 {
                assert_eq!(out.f_mean, 0.0, "{label}: step {k}");
                assert_eq!(out.e_loss, 0.0, "{label}: step {k}");
            }
            if k == 1 {
                // Exactly at s_rel0 at the end of the step: no contact yet.
                assert_eq!(out.s_rel, 0.0, "{label}");
                assert!(!out.contact, "{label}");
                assert_eq!(out.f, 0.0, "{label}");
            }
            if k >= 4 {
                let (expected, _) = constant_velocity(&law, s_rel, -1.0, H);
                assert_close(
                    out.f_mean * H,
                    expected,
                    tolerance,
                    &format!("{label}: step {k}"),
                );
                let (_, dissipated) = constant_velocity(&law, 2.0 * H, -1.0, t + H);
                if law.d > 0.0 {
                    assert_close(
                        out.e_loss,
                        dissipated,
                        tolerance,
                        &format!("{label}: E_loss {k}"),
                    );
                }
            }
        }
        let starts: Vec<f64> = run
            .contact_events()
            .into_iter()
            .filter_map(|(t, entering)| entering.then_some(t))
            .collect();
        assert!(
            starts.is_empty() || starts == [2.0 * H],
            "{label}: contact starts logged at {starts:?}"
        );
    }
}

#[test]
fn grazing_and_hair_thin_contacts() {
    let fmu = Fmu::load_default();
    // s_rel = s0 + v0 t + a t^2/2 touching s_rel0 = 0 with v_rel = 0 at t* = -v0/a; all values
    // are binary-exact so the motion touches exactly.
    let a = 1024.0;
    let grazing = |t_star: f64| (0.5 * a * t_star * t_star, -a * t_star, a);
    // The deepest point `depth` below s_rel0 at t* = H/2: in and out within a tiny fraction of
    // the step.
    let dip = |depth: f64| {
        let (s0, v0, a) = grazing(0.5 * H);
        (s0 - depth, v0, a)
    };
    let thin = 2f64.powi(-40);
    // A damper strong enough to be bounded through the dip, except for a window of relative
    // size |f_c|/(d*a*half_width) = 9e-9/(1e4*1024*4.2e-8) = 2e-8 around the deepest point.
    let bounded_damper = Law { d: 1e4, ..SPRING };
    let cases = [
        OneStep::new("grazing at mid-step", DAMPED, grazing(0.5 * H), H),
        OneStep::new("grazing at a quarter step", DAMPED, grazing(0.25 * H), H),
        OneStep::new("grazing at the step end", DAMPED, grazing(H), H),
        OneStep::new("grazing at the step start", DAMPED, (0.0, 0.0, a), H),
        OneStep::new(
            "from rest at s_rel0 into contact",
            SPRING,
            (0.0, 0.0, -a),
            H,
        )
        .expect(Expect::Integral {
            impulse: from_rest_impulse(&SPRING, -a, H),
            dissipated: 0.0,
            tolerance: 1e-13,
        }),
        // Contact of 2*sqrt(2*2^-40/1024) = 8.4e-8 s, 2^-40 m deep: the positions round at
        // 1.4e-20 m, 1.5e-8 of the depth.
        OneStep::new("dip 2^-40 m deep", SPRING, dip(thin), H).expect(Expect::Integral {
            impulse: dip_impulse(&SPRING, thin, a),
            dissipated: 0.0,
            tolerance: 1e-6,
        }),
        // One substep covers the whole 8.4e-8 s contact: the 3-point Gauss rule on
        // (1 - x^2)^1.5 gives 1.1703 for 3 pi/8 = 1.1781, 0.69 % low.
        OneStep::new(
            "dip 2^-40 m deep, n = 1.5",
            Law { n: 1.5, ..SPRING },
            dip(thin),
            H,
        )
        .expect(Expect::Integral {
            impulse: dip_impulse(&Law { n: 1.5, ..SPRING }, thin, a),
            dissipated: 0.0,
            tolerance: 7.5e-3,
        }),
        // Substeps of H/1e6 = 9.8e-10 s: 86 of them over the contact.
        OneStep {
            max_substep_count: Some(1_000_000),
            ..OneStep::new(
                "dip 2^-40 m deep, n = 1.5, substeps of 1e-9 s",
                Law { n: 1.5, ..SPRING },
                dip(thin),
                H,
            )
            .substeps(1e-10)
            .expect(Expect::Integral {
                impulse: dip_impulse(&Law { n: 1.5, ..SPRING }, thin, a),
                dissipated: 0.0,
                tolerance: 1e-6,
            })
        },
        OneStep::new("dip 2^-40 m deep, damped", bounded_damper, dip(thin), H).expect(
            Expect::Integral {
                impulse: dip_impulse(&bounded_damper, thin, a),
                dissipated: 2.0 * bounded_damper.spring_work(thin),
                tolerance: 1e-6,
            },
        ),
        // 2^-70 m is below the rounding of s_rel (1.4e-20 m): whatever is found, the force is
        // at most c times the rounding error.
        OneStep::new("dip at the rounding level", DAMPED, dip(2f64.powi(-70)), H).expect(
            Expect::AtMost {
                force: SPRING.c * 1e-19,
                dissipated: 1e-30,
            },
        ),
    ];
    for case in cases {
        case.run(&fmu, false);
    }
}

/// Inputs whose difference is exactly `s_rel0`: no contact and no force at the inputs, whatever
/// the velocity; moving into the gap gives the closed form of the step, moving out or standing
/// nothing.
#[test]
fn inputs_exactly_at_s_rel0() {
    let fmu = Fmu::load_default();
    for (s_a, s_rel0) in [(0.0, 0.0), (1.0, 0.25), (1e6, 0.25), (-3.0, -0.5)] {
        for v_rel in [1.0, 0.0, -1.0, 1e-300, -1e-300] {
            let law = Law { s_rel0, ..DAMPED };
            let label = format!("s_a = {s_a}, s_rel0 = {s_rel0}, v_rel = {v_rel}");
            let mut run = Run::start(&fmu, &label, Setup::exact(law));
            let s_b = s_a + s_rel0;
            assert_eq!(s_b - s_a, s_rel0, "the test's inputs are exact");
            let at = run.set([s_a, 0.5, s_b, 0.5 + v_rel], None).unwrap();
            assert_eq!(at.s_rel, s_rel0, "{label}");
            assert!(
                !at.contact && at.f == 0.0 && at.loss_power == 0.0,
                "{label}: {at:?}"
            );
            let out = run.step(H).unwrap();
            let relative_velocity = (0.5 + v_rel) - 0.5;
            if relative_velocity >= 0.0 {
                assert_eq!(out.f_mean, 0.0, "{label}");
                assert_eq!(out.e_loss, 0.0, "{label}");
            } else {
                // A contact that begins in the step, probed (docs/coupling.md).
                let (impulse, dissipated) = constant_velocity(&law, s_rel0, relative_velocity, H);
                let (impulse, dissipated) = (PROBE_SHARE * impulse, PROBE_SHARE * dissipated);
                assert_close(out.f_mean, impulse / H, 1e-12, &format!("{label}: f_mean"));
                assert_close(out.e_loss, dissipated, 1e-12, &format!("{label}: E_loss"));
            }
        }
    }
    // Positions that a master believes are s_rel0 apart but whose f64 difference is 2.8e-17 m
    // less: a contact of rounding size, with a force of rounding size.
    let law = Law {
        s_rel0: 0.1,
        ..DAMPED
    };
    let mut run = Run::start(&fmu, "0.3 - 0.2 vs 0.1", Setup::exact(law));
    let at = run.set([0.2, 0.0, 0.3, 0.0], None).unwrap();
    assert!(at.contact, "0.3 - 0.2 < 0.1 in f64");
    assert!(at.f.abs() <= law.c * 1e-16, "{at:?}");
    let out = run.step(H).unwrap();
    assert!(out.f_mean.abs() <= law.c * 1e-16, "{out:?}");
}

/// The exponent far above 1 with compressions from 0.02 to 1.6 `s_ref`, so that the force spans
/// from 1e-168 to 3e22 N, and a compression of 1e-6 `s_ref`, where `ratio^100` underflows to 0.
///
/// The FMU's 3-point Gauss rule per substep is exact for polynomials of degree 5; `x^n` with
/// n >= 10 is not one, so the default substeps (1e-4 s) leave a quadrature error that grows with
/// `n` times the relative change of the compression over a substep; substeps of 1e-6 s resolve it.
#[test]
fn exponents_far_above_one() {
    let fmu = Fmu::load_default();
    let base = Law {
        s_ref: 0.01,
        ..DAMPED
    };
    let mut cases = Vec::new();
    for n in [10.0, 50.0, 100.0] {
        let law = Law { n, ..base };
        for (s0, v0, default_tolerance) in [
            (-0.005, -0.5, 1e-6),
            (-0.015, -0.5, 1e-6),
            (-0.016, 0.5, 1e-6),
            // Lift-off after 0.4 ms: the 4 substeps see x^n fall by 0.75^n each, and the
            // 3-point rule is off by 4e-5 (n = 10), 14 % (n = 50) and 60 % (n = 100) of an
            // E_loss of 1.9e-20, 4.4e-89 and 2.5e-174 J.
            (-0.0002, 0.5, 1.0),
        ] {
            let step = OneStep::new(
                format!("n = {n}, s0 = {s0}, v0 = {v0}"),
                law,
                (s0, v0, 0.0),
                1e-3,
            );
            cases.push(step.clone().expect_constant_velocity(default_tolerance));
            cases.push(OneStep {
                name: format!("{}, substeps of 1e-6 s", step.name),
                ..step.substeps(1e-6).expect_constant_velocity(1e-9)
            });
        }
    }
    let underflow = Law {
        n: 100.0,
        s_ref: 1.0,
        ..DAMPED
    };
    cases.push(
        OneStep::new(
            "n = 100, ratio^n underflows",
            underflow,
            (-1e-6, -0.5, 0.0),
            1e-3,
        )
        .expect(Expect::AtMost {
            force: f64::MIN_POSITIVE,
            dissipated: f64::MIN_POSITIVE,
        }),
    );
    each_case(cases, |case| {
        let (run, out) = case.run(&fmu, false);
        if let Expect::Integral {
            impulse,
            dissipated,
            ..
        } = case.expect
        {
            eprintln!(
                "{}: f_mean = {:e} (relative error {:.1e}), E_loss = {:e} (relative error {:.1e})",
                case.name,
                out.f_mean,
                (out.f_mean * case.h - impulse) / impulse,
                run.e_loss,
                (run.e_loss - dissipated) / dissipated
            );
        }
    });
}

/// Runs `check` on every case and collects the failures, so that one run reports every failing
/// case rather than the first.
fn each_case<T>(cases: impl IntoIterator<Item = T>, check: impl Fn(T)) {
    let mut failures = Vec::new();
    for case in cases {
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| check(case))) {
            failures.push(panic_message(&*panic));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing case(s): {failures:#?}",
        failures.len()
    );
}

/// Settings where the force overflows f64 (`|f_c| > 1.8e308`), at the inputs or during the step:
/// the FMU must refuse with fmi2Error and a message, or return finite values; never fmi2OK with
/// an infinite or NaN output.
#[test]
fn overflowing_forces_are_refused_or_finite_never_silent() {
    let fmu = Fmu::load_default();
    let stiff = Law {
        c: 1e4,
        d: 30.0,
        s_ref: 1e-3,
        ..SPRING
    };
    let cases: [(&str, Law, f64, f64); 7] = [
        // 10 N * 2000^100 = 1.3e331.
        (
            "n = 100, 2000 s_ref deep",
            Law { n: 100.0, ..stiff },
            -2.0,
            0.0,
        ),
        (
            "n = 1000, 3 s_ref deep",
            Law { n: 1000.0, ..stiff },
            -3e-3,
            0.0,
        ),
        // Finite at the inputs (1e301 N), beyond f64 within the step (2000^100).
        (
            "n = 100, overflowing within the step",
            Law { n: 100.0, ..stiff },
            -1.0,
            -1e3,
        ),
        // F = 0 and ratio^n = inf: the law is 0 * inf.
        (
            "c = 0, f_ref = 0, n = 1000, 3 s_ref deep",
            Law {
                c: 0.0,
                n: 1000.0,
                ..stiff
            },
            -3e-3,
            0.0,
        ),
        (
            "f_ref = 1e300, 1e9 s_ref deep",
            Law {
                f_ref: 1e300,
                s_ref: 1.0,
                ..stiff
            },
            -1e9,
            0.0,
        ),
        // Both parts finite (-1.2e308 each), their sum not: f = 2 f_c approaching.
        (
            "f_ref = 1.2e308, bounded damper doubles f_c",
            Law {
                f_ref: 1.2e308,
                d: f64::MAX,
                s_ref: 1.0,
                ..stiff
            },
            -1.0,
            -1.0,
        ),
        // s_ref = 1e-320 (denormal): ratio = inf although F*ratio = c*x = 1e2 N for n = 1.
        (
            "s_ref = 1e-320, n = 1",
            Law {
                s_ref: 1e-320,
                ..stiff
            },
            -1e-2,
            0.0,
        ),
    ];
    each_case(cases, |(label, law, s0, v0)| {
        let mut run = Run::start(&fmu, label, Setup::exact(law));
        let what = match run.set([0.0, 0.0, s0, v0], None) {
            Err(message) => format!("inputs refused: {message}"),
            Ok(_) => match run.step(1e-3) {
                Err(message) => format!("step refused: {message}"),
                Ok(out) => format!("finite: f_mean = {:e}", out.f_mean),
            },
        };
        eprintln!("{label}: {what}");
    });
}

/// A mean force of half the largest double held for 4 s: the impulse overflows although the mean
/// would not. The step tests the integrals before dividing by `h`, and for an `h` that overflows
/// that bound too, an infinite impulse must still be refused rather than handed out as an
/// infinite `f_mean`. Half the step length keeps the impulse finite, and that step is taken.
#[test]
fn an_impulse_that_overflows_over_a_long_step_is_refused() {
    let fmu = Fmu::load_default();
    let law = Law {
        f_ref: f64::MAX,
        ..SPRING
    };
    for (h, finite) in [(4.0, false), (1.5, true)] {
        let label = format!("f = -f64::MAX/2 held over h = {h} s");
        let mut run = Run::start(&fmu, &label, Setup::exact(law));
        run.set([0.0, 0.0, -0.5, 0.0], None)
            .unwrap_or_else(|m| panic!("{label}: inputs refused: {m}"));
        match run.step(h) {
            Ok(out) => {
                assert!(finite, "{label}: taken, f_mean = {:e}", out.f_mean);
                let expected = -0.5 * f64::MAX;
                assert!(
                    (out.f_mean - expected).abs() <= 1e-12 * expected.abs(),
                    "{label}: f_mean = {:e}",
                    out.f_mean
                );
            }
            Err(message) => {
                assert!(!finite, "{label}: refused: {message}");
                assert!(message.contains("non-finite"), "{label}: {message}");
            }
        }
    }
}

/// `f_ref = 0` selects `F = c*s_ref`: the same run with `f_ref = c*s_ref` set explicitly gives
/// bit-identical outputs. `c = 0` with `f_ref = 0` is no spring, and so no damper either.
#[test]
fn zero_reference_force_is_c_times_s_ref() {
    let fmu = Fmu::load_default();
    // c*s_ref = 1e4 * 2^-7 = 78.125 exactly.
    let implicit = Law {
        n: 1.5,
        s_ref: 1.0 / 128.0,
        ..DAMPED
    };
    let explicit = Law {
        f_ref: implicit.c * implicit.s_ref,
        ..implicit
    };
    let mut rows = Vec::new();
    for law in [implicit, explicit] {
        let setup = Setup {
            acceleration_estimate: 3,
            ..Setup::exact(law)
        };
        let mut run = Run::start(&fmu, &format!("f_ref = {}", law.f_ref), setup);
        let mut row = Vec::new();
        // In and out of contact: s_rel = 0.002 - t + 5 t^2.
        for k in 0..200 {
            let t = f64::from(k) * 1e-3;
            run.set([0.0, 0.0, 0.002 - t + 5.0 * t * t, -1.0 + 10.0 * t], None)
                .unwrap();
            let out = run.step(1e-3).unwrap();
            row.push(
                [out.f, out.f_mean, out.e_loss, out.f_c, out.f_d, out.q_flow].map(f64::to_bits),
            );
        }
        rows.push(row);
    }
    assert!(
        rows[0].iter().any(|r| f64::from_bits(r[1]) < 0.0),
        "no contact"
    );
    assert_eq!(rows[0], rows[1]);

    let no_spring = Law {
        c: 0.0,
        f_ref: 0.0,
        ..DAMPED
    };
    let (mut run, out) = OneStep::new("c = 0, f_ref = 0", no_spring, (-0.01, -1.0, 0.0), H)
        .expect_constant_velocity(0.0)
        .run(&fmu, false);
    assert!(out.contact);
    assert_eq!(out.f, 0.0);
    let out = run.step(H).unwrap();
    assert_eq!((out.f_mean, out.e_loss), (0.0, 0.0));
}

/// Reference forces near the top of the f64 range, with compressions that keep the force finite.
#[test]
fn huge_reference_forces() {
    let fmu = Fmu::load_default();
    let huge = Law {
        f_ref: 1e300,
        ..SPRING
    };
    let cases = [
        OneStep::new("f_ref = 1e300", huge, (-1e-3, -1.0, 0.0), 1e-3)
            .expect_constant_velocity(1e-13),
        OneStep::new(
            "f_ref = 1e300, d = 1e300 (damper bounded throughout)",
            Law { d: 1e300, ..huge },
            (-1e-3, -1.0, 0.0),
            1e-3,
        )
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "f_ref = 1e300, d = 1e300, leaving",
            Law { d: 1e300, ..huge },
            (-1e-3, 0.5, 0.0),
            1e-3,
        )
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "f_ref = 1e300, n = 1.5, s_ref = 1e-2",
            Law {
                n: 1.5,
                s_ref: 1e-2,
                d: 30.0,
                ..huge
            },
            (-0.02, -1.0, 0.0),
            1e-3,
        )
        .expect_constant_velocity(1e-6),
        OneStep::new(
            "f_ref = f64::MAX at half s_ref",
            Law {
                f_ref: f64::MAX,
                ..SPRING
            },
            (-0.5, -1e-3, 0.0),
            1e-3,
        )
        .expect_constant_velocity(1e-13),
    ];
    for case in cases {
        let (_, out) = case.run(&fmu, false);
        eprintln!("{}: f_mean = {:e}", case.name, out.f_mean);
    }
}

/// Relative velocities of 5e-324 (the smallest denormal) and 1e-310, both signs, at `s_rel0`, in
/// contact and in the gap, over steps of 1 ms and 1000 s.
#[test]
fn denormal_velocities() {
    let fmu = Fmu::load_default();
    let law = Law {
        n: 1.5,
        d: 1e4,
        ..SPRING
    };
    let mut cases = Vec::new();
    for h in [1e-3, 1e3] {
        for v in [5e-324, -5e-324, 1e-310, -1e-310] {
            for s0 in [0.0, -1e-3, 1e-3] {
                let name = format!("v_rel = {v:e}, s_rel = {s0}, h = {h}");
                let case = OneStep::new(name, law, (s0, v, 0.0), h);
                cases.push(if s0 > 0.0 || (s0 == 0.0 && v > 0.0) {
                    case
                } else if s0 == 0.0 {
                    // At most |v|*h = 1e-307 m deep: (1e-307)^1.5 underflows.
                    case.expect(Expect::AtMost {
                        force: 1e-300,
                        dissipated: 1e-300,
                    })
                } else {
                    // The compression moves by at most 1e-307 m: the force of the start point.
                    let start = law.at(s0, v);
                    case.expect(Expect::Integral {
                        impulse: start.f * h,
                        dissipated: start.loss_power * h,
                        tolerance: 1e-14,
                    })
                });
            }
        }
    }
    for case in cases {
        case.run(&fmu, false);
    }
}

#[test]
fn communication_steps_of_a_picosecond() {
    let fmu = Fmu::load_default();
    let cases = [
        // n = 1, d = 0: f_mean is the spring force at the mid-step compression.
        OneStep::new(
            "1e-12 s in contact, linear spring",
            SPRING,
            (-1e-3, -1.0, 0.0),
            1e-12,
        )
        .expect(Expect::Integral {
            impulse: -SPRING.c * (1e-3 + 0.5e-12) * 1e-12,
            dissipated: 0.0,
            tolerance: 1e-14,
        }),
        // f varies by 1e-9 relative over the step: the mid-step values are the mean to 1e-18.
        {
            let law = Law { n: 1.5, ..DAMPED };
            let mid = law.at(-1e-3 - 0.5e-12, -1.0);
            OneStep::new(
                "1e-12 s in contact, n = 1.5, damped",
                law,
                (-1e-3, -1.0, 0.0),
                1e-12,
            )
            .expect(Expect::Integral {
                impulse: mid.f * 1e-12,
                dissipated: mid.loss_power * 1e-12,
                tolerance: 1e-13,
            })
        },
        OneStep::new(
            "1e-12 s touching down mid-step",
            DAMPED,
            (0.5e-12, -1.0, 0.0),
            1e-12,
        )
        .expect_constant_velocity(1e-9),
    ];
    for case in cases {
        case.run(&fmu, false);
    }

    // 1000 steps of 1e-12 s through a touch-down at step 500, with the default acceleration
    // estimate. The contact's first two steps are probed (docs/coupling.md); the prescribed motion
    // answers neither, and from the third each step holds the law's integral along it; E_loss is
    // the closed form over the whole nanosecond.
    let setup = Setup {
        acceleration_estimate: 3,
        ..Setup::exact(DAMPED)
    };
    let mut run = Run::start(&fmu, "1000 steps of 1e-12 s", setup);
    for k in 0..1000 {
        let s_rel = 5e-10 - run.time;
        run.set([0.0, 0.0, s_rel, -1.0], None).unwrap();
        let f_mean = run.step(1e-12).unwrap().f_mean;
        if k >= 502 {
            let (expected, _) = constant_velocity(&DAMPED, s_rel, -1.0, 1e-12);
            assert_close(
                f_mean * 1e-12,
                expected,
                1e-9,
                &format!("impulse of step {k}"),
            );
        }
    }
    let (_, dissipated) = constant_velocity(&DAMPED, 5e-10, -1.0, run.time);
    assert_close(run.e_loss, dissipated, 1e-9, "E_loss over 1000 steps");
}

/// At t >= 2^14 s a step of 1e-12 s is below half an ulp of the time, so `t + h == t`: a step
/// that cannot advance the time would leave the acceleration estimate a zero time difference to
/// divide by. It is refused with a reason under every estimate, never run into NaN outputs.
#[test]
fn picosecond_steps_where_the_time_does_not_advance_are_refused() {
    let fmu = Fmu::load_default();
    let start_time = 1e5;
    assert_eq!(start_time + 1e-12, start_time);
    each_case(0..=3, |estimate| {
        let setup = Setup {
            acceleration_estimate: estimate,
            start_time,
            ..Setup::exact(DAMPED)
        };
        let label = format!("t = 1e5 s, h = 1e-12 s, accelerationEstimate = {estimate}");
        let mut run = Run::start(&fmu, &label, setup);
        run.set([0.0, 0.0, -1e-3, 0.0], None).unwrap();
        let refused = run
            .step(1e-12)
            .expect_err("a step that does not advance the time must be refused");
        assert!(
            refused.contains("does not advance the time"),
            "{label}: {refused}"
        );
    });
}

/// A 1000 s step with the default maxSubstepSize (1e-4 s) would want 1e7 substeps;
/// maxSubstepCount (default 1000) caps them, so the contact is integrated in substeps of 1 s. The
/// step integral stays accurate for smooth motion: checked against closed forms.
#[test]
fn communication_step_of_1000_s_with_the_default_substep_limits() {
    let fmu = Fmu::load_default();
    let h = 1e3;
    // A dip 0.01 m deep around t = 500 s, 200 s long.
    let (a, t_star, depth) = (2e-6, 500.0, 0.01);
    let dip = (0.5 * a * t_star * t_star - depth, -a * t_star, a);
    let dip_law = Law { n: 1.5, ..SPRING };
    let dip_depth = dip.1 * dip.1 / (2.0 * a) - dip.0;
    let dip_expect = |tolerance| Expect::Integral {
        impulse: dip_impulse(&dip_law, dip_depth, a),
        dissipated: 0.0,
        tolerance,
    };
    let cases = [
        OneStep::new(
            "1000 s in contact, n = 1.5, damped",
            Law { n: 1.5, ..DAMPED },
            (0.0, -1e-3, 0.0),
            h,
        )
        // Contact from the step start: the damper is bounded for the first 0.21 s, where the
        // loss grows like t^1.5, which the 3-point rule integrates to 5e-4 (4e-8 of E_loss).
        .expect_constant_velocity(1e-7),
        OneStep::new("1000 s, dip inside, n = 1.5", dip_law, dip, h).expect(dip_expect(1e-6)),
        // One substep for the whole 200 s contact: the 3-point Gauss rule on (1 - x^2)^1.5 is
        // 0.7 % off (1.1703 against 3 pi/8 = 1.1781), still finite and pushing.
        OneStep {
            max_substep_count: Some(1),
            ..OneStep::new(
                "1000 s, dip inside, n = 1.5, maxSubstepCount = 1",
                dip_law,
                dip,
                h,
            )
        }
        .expect(dip_expect(1e-2)),
    ];
    for case in cases {
        let (_, out) = case.run(&fmu, false);
        if let Expect::Integral { impulse, .. } = case.expect {
            eprintln!(
                "{}: f_mean = {:e}, relative error {:e}",
                case.name,
                out.f_mean,
                (out.f_mean - impulse / h) / (impulse / h)
            );
        }
    }
}

/// Each step alone is finite (5.95e307 J dissipated, |f| <= 2.1e307 N), but four of them add up
/// to more than f64 holds: `E_loss` must not turn into inf under fmi2OK.
#[test]
fn dissipated_energy_beyond_f64_is_refused_or_finite() {
    let fmu = Fmu::load_default();
    let law = Law {
        f_ref: 1e306,
        d: 1e306,
        ..SPRING
    };
    let (_, per_step) = constant_velocity(&law, -1.0, -10.0, 1.0);
    assert!(per_step.is_finite() && 4.0 * per_step > f64::MAX);
    let mut run = Run::start(&fmu, "E_loss overflow", Setup::exact(law));
    for k in 0..4 {
        // The master moves the flanges back each step (the FMU does not check the positions
        // against the velocities).
        if let Err(message) = run.set([0.0, 0.0, -1.0, -10.0], None) {
            eprintln!("step {k}: inputs refused: {message}");
            return;
        }
        match run.step(1.0) {
            Ok(out) => assert_close(
                out.e_loss,
                per_step * f64::from(k + 1),
                1e-12,
                &format!("E_loss after step {k}"),
            ),
            Err(message) => {
                eprintln!("step {k}: refused: {message}");
                return;
            }
        }
    }
}

/// Near the overflow of the force its slope overflows first: `f` = 1.2e307 N but `df/ds_rel`
/// = F*n*ratio^99/s_ref = 1e309. The partial derivatives the FMU hands out must be finite when it
/// says fmi2OK.
#[test]
fn derivatives_near_overflow_are_refused_or_finite() {
    let fmu = Fmu::load_default();
    let law = Law {
        n: 100.0,
        s_ref: 1e-3,
        ..DAMPED
    };
    let mut run = Run::start(&fmu, "slope overflow", Setup::exact(law));
    let at = run.set([0.0, 0.0, -1.15, -1.0], None).unwrap();
    assert!(at.f.is_finite() && at.f < -1e307, "{at:?}");
    let f = run.inst.vr("f", VarType::Real);
    let f_c = run.inst.vr("f_c", VarType::Real);
    let s_b = run.inst.vr("flange_b.s", VarType::Real);
    let (status, partials) = run
        .inst
        .get_directional_derivative(&[f, f_c], &[s_b], &[1.0]);
    if status == Status::Ok {
        assert!(
            partials.iter().all(|x| x.is_finite()),
            "fmi2GetDirectionalDerivative returned fmi2OK with d(f, f_c)/d(flange_b.s) = {partials:?}"
        );
    } else {
        run.refusal(status, "fmi2GetDirectionalDerivative");
    }
    // The output derivative is evaluated at the end of a step: this one stays finite in f. A
    // refusal above left the instance in the Error state, so a fresh one takes the step.
    let mut run = Run::start(&fmu, "slope overflow, output derivative", Setup::exact(law));
    run.set([0.0, 0.0, -1.15, -1.0], None).unwrap();
    let out = run.step(1e-6).unwrap();
    assert!(out.f < -1e307);
    let (status, derivative) = run.inst.get_real_output_derivatives(&[f], &[1]);
    if status == Status::Ok {
        assert!(
            derivative[0].is_finite(),
            "fmi2GetRealOutputDerivatives returned fmi2OK with df/dt = {}",
            derivative[0]
        );
    } else {
        run.refusal(status, "fmi2GetRealOutputDerivatives");
    }
}
