//! What the tests of this target share: the closed forms of the step integrals under the law of
//! [`crate::support::gap_law`], an instance driven and checked ([`Run`]), one step from given
//! relative motion ([`OneStep`]) and [`each_case`].

use std::f64::consts::PI;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::support::gap_law::{assert_close, Law};
use crate::support::{
    panic_message, Fmu, Instance, InstantiateOptions, Status, VarType, INPUTS, PROBE_SHARE, REALS,
};

/// A plain linear spring of 1e4 N/m without damper.
pub(crate) const SPRING: Law = Law {
    c: 1e4,
    d: 0.0,
    s_rel0: 0.0,
    n: 1.0,
    s_ref: 1.0,
    f_ref: 0.0,
};

// ---------------------------------------------------------------------------------------------
// Closed forms of the step integrals
// ---------------------------------------------------------------------------------------------

/// (integral of f, integral of lossPower) over `[0, h]` along `s_rel = s0 + v*t`, in closed form.
///
/// At constant speed the compression `x` is monotone, `dt = dx/|v|`, and the law splits at the
/// compression where the spring force equals `d*|v|`: below it the damper is bounded (`f = 2 f_c`
/// approaching, `f = 0` leaving, loss `|f_c|*|v|`), above it linear (`f = f_c + d*v`, loss
/// `d*v^2`).
pub(crate) fn constant_velocity(law: &Law, s0: f64, v: f64, h: f64) -> (f64, f64) {
    if v == 0.0 {
        let point = law.forces(s0, 0.0);
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
pub(crate) fn dip_impulse(law: &Law, depth: f64, a: f64) -> f64 {
    let half_width = (2.0 * depth / a).sqrt();
    -law.spring(depth) * half_width * dip_shape(law.n)
}

/// `f_mean` of a step of length `h` from rest at `s_rel0` accelerating into contact with `a < 0`
/// (`x = |a| t^2/2`), `d = 0`.
pub(crate) fn from_rest_impulse(law: &Law, a: f64, h: f64) -> f64 {
    let n = law.n;
    -law.reference_force() * (a.abs() / (2.0 * law.s_ref)).powf(n) * h.powf(2.0 * n + 1.0)
        / (2.0 * n + 1.0)
}

// ---------------------------------------------------------------------------------------------
// Driving one instance and checking everything it says
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
pub(crate) struct Outputs {
    pub(crate) f: f64,
    pub(crate) s_rel: f64,
    pub(crate) v_rel: f64,
    pub(crate) loss_power: f64,
    pub(crate) q_flow: f64,
    pub(crate) f_mean: f64,
    pub(crate) e_loss: f64,
    pub(crate) f_c: f64,
    pub(crate) f_d: f64,
    pub(crate) contact: bool,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Setup {
    pub(crate) law: Law,
    pub(crate) use_heat_port: bool,
    pub(crate) max_substep_size: Option<f64>,
    pub(crate) max_substep_count: Option<i32>,
    /// 0 (none) makes the extrapolated motion exactly the one the inputs and supplied derivatives
    /// describe; 3 is the FMU's default.
    pub(crate) acceleration_estimate: i32,
    pub(crate) start_time: f64,
    /// `loggingOn`, so that contact events are logged.
    pub(crate) log_events: bool,
}

impl Setup {
    pub(crate) fn exact(law: Law) -> Setup {
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
pub(crate) struct Run {
    pub(crate) inst: Instance,
    setup: Setup,
    label: String,
    pub(crate) time: f64,
    pub(crate) e_loss: f64,
}

impl Run {
    pub(crate) fn start(fmu: &Arc<Fmu>, label: &str, setup: Setup) -> Run {
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
    pub(crate) fn refusal(&mut self, status: Status, call: &str) -> String {
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
        let expected = law.forces(out.s_rel, out.v_rel);
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
    pub(crate) fn set(
        &mut self,
        inputs: [f64; 4],
        acceleration_b: Option<f64>,
    ) -> Result<Outputs, String> {
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
    pub(crate) fn step(&mut self, h: f64) -> Result<Outputs, String> {
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
    pub(crate) fn contact_events(&self) -> Vec<(f64, bool)> {
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
pub(crate) enum Expect {
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
pub(crate) struct OneStep {
    pub(crate) name: String,
    pub(crate) law: Law,
    /// Relative position, velocity and acceleration at the step start (flange_a at rest at 0).
    pub(crate) s0: f64,
    pub(crate) v0: f64,
    pub(crate) a: f64,
    pub(crate) h: f64,
    pub(crate) max_substep_size: Option<f64>,
    pub(crate) max_substep_count: Option<i32>,
    pub(crate) expect: Expect,
}

impl OneStep {
    pub(crate) fn new(
        name: impl Into<String>,
        law: Law,
        (s0, v0, a): (f64, f64, f64),
        h: f64,
    ) -> OneStep {
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

    pub(crate) fn substeps(self, size: f64) -> OneStep {
        OneStep {
            max_substep_size: Some(size),
            ..self
        }
    }

    pub(crate) fn expect(self, expect: Expect) -> OneStep {
        OneStep { expect, ..self }
    }

    /// The closed form of [`constant_velocity`] (needs `a = 0`).
    pub(crate) fn expect_constant_velocity(self, tolerance: f64) -> OneStep {
        assert_eq!(self.a, 0.0, "{}", self.name);
        let (impulse, dissipated) = constant_velocity(&self.law, self.s0, self.v0, self.h);
        self.expect(Expect::Integral {
            impulse,
            dissipated,
            tolerance,
        })
    }

    /// Runs the step on a fresh instance and checks it; returns the run for more checks.
    pub(crate) fn run(&self, fmu: &Arc<Fmu>, log_events: bool) -> (Run, Outputs) {
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
pub(crate) const H: f64 = 1.0 / 1024.0;
pub(crate) const SUBSTEP: f64 = H / 8.0;

pub(crate) const DAMPED: Law = Law { d: 30.0, ..SPRING };

/// Runs `check` on every case and collects the failures, so that one run reports every failing
/// case rather than the first.
pub(crate) fn each_case<T>(cases: impl IntoIterator<Item = T>, check: impl Fn(T)) {
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
