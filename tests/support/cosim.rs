//! The co-simulation master of `Modelica.Mechanics.Translational.Examples.ElastoGap` (MSL 4.1),
//! with the two ElastoGaps as two instances of the packaged FMU and everything else (two masses,
//! two SpringDampers, the fixed walls at -2 m and +2 m) integrated here.
//!
//! ```text
//!  -2 m |--springDamper1--[mass1]--springDamper2--| +2 m
//!  -2 m |--elastoGap1-----[mass2]--elastoGap2-----| +2 m
//! ```
//! Both masses (1 kg) start at rest at +2 m. A component's `f` acts at its `flange_b`: the body at
//! `flange_b` feels `-f`, the one at `flange_a` feels `+f`. So
//! `m*a2 = -elastoGap1.f + elastoGap2.f` and `m*a1 = -springDamper1.f + springDamper2.f`.
//!
//! Coupling [`Coupling::Best`] (Gauss–Seidel): at each communication point set the gaps' flange
//! inputs from mass2's state, read their direct-feedthrough `f` to get mass2's acceleration now,
//! hand that acceleration to the FMUs as the first derivative of the moving flange's velocity
//! (`fmi2SetRealInputDerivatives`), `fmi2DoStep`, and move mass2 over the step under the mean
//! forces `f_mean` the FMUs report for it. [`Coupling::Naive`]: hold the forces `f` read at the
//! start of the step, no input derivatives. [`Coupling::Jacobi`]: step both gaps and the masses at
//! once, holding over each step the `f_next` the gaps output before it.
//!
//! [`DemoOptions::m_eff`] sets the gaps' parameter `m_eff`: mass2 (1 kg) meets each gap against a
//! fixed wall, and the two gaps are never in contact together (mass2 touches elastoGap1 below
//! -0.5 m, elastoGap2 above +0.5 m), so the effective mass of each gap's relative motion is mass2's,
//! 1 kg (the reduced mass m_a*m_b/(m_a + m_b) with m_a, the wall, infinite).

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use super::fmu::Fmu;
use super::instance::Instance;
use super::model_description::VarType;
use super::Status;

pub const STOP_TIME: f64 = 5.0;
pub const MASS: f64 = 1.0;
/// Both SpringDampers.
pub const SPRING_C: f64 = 10.0;
pub const SPRING_D: f64 = 1.5;
pub const SPRING_S_REL0: f64 = 1.0;
/// Both ElastoGaps.
pub const GAP_C: f64 = 10.0;
pub const GAP_D: f64 = 1.5;
pub const GAP_S_REL0: f64 = 1.5;
pub const GAP_N: f64 = 1.0;
pub const WALL_LEFT: f64 = -2.0;
pub const WALL_RIGHT: f64 = 2.0;
pub const X1_START: f64 = 2.0;
pub const X2_START: f64 = 2.0;
/// The MSL regression tube around each comparison signal.
pub const TUBE: f64 = 2e-3;
/// `comparisonSignals.txt` of the MSL reference, in this order in [`Row::comparison`].
pub const COMPARISON_SIGNALS: [&str; 4] = [
    "elastoGap1.v_rel",
    "elastoGap2.s_rel",
    "springDamper1.v_rel",
    "springDamper2.s_rel",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coupling {
    /// Gauss–Seidel order, `f_mean` held over the step, mass2's acceleration supplied as input
    /// derivative: the best the FMU offers.
    Best,
    /// `f_mean` held over the step, the FMU estimating the acceleration itself (what a master
    /// that never calls `fmi2SetRealInputDerivatives` gets).
    MeanForce,
    /// The force `f` at the step start held over the step: a plain co-simulation.
    Naive,
    /// All units stepped at once (OMSimulator's default): mass2 holds over each step the `f_next`
    /// the gaps output at its start, before their step.
    Jacobi,
    /// No co-simulation: both gaps as Model Exchange instances under one adaptive integrator
    /// with event location ([`super::model_exchange`]); the step is the output interval.
    ModelExchange,
}

impl FromStr for Coupling {
    type Err = String;
    fn from_str(s: &str) -> Result<Coupling, String> {
        match s {
            "best" => Ok(Coupling::Best),
            "mean" => Ok(Coupling::MeanForce),
            "naive" => Ok(Coupling::Naive),
            "jacobi" => Ok(Coupling::Jacobi),
            "model-exchange" => Ok(Coupling::ModelExchange),
            other => Err(format!(
                "unknown coupling {other:?} (best, mean, naive, jacobi or model-exchange)"
            )),
        }
    }
}

impl fmt::Display for Coupling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Coupling::Best => "best",
            Coupling::MeanForce => "mean",
            Coupling::Naive => "naive",
            Coupling::Jacobi => "jacobi",
            Coupling::ModelExchange => "model-exchange",
        })
    }
}

#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// Communication step (s).
    pub step: f64,
    pub coupling: Coupling,
    pub stop_time: f64,
    /// RK4 substeps per communication step for mass1 (which no FMU touches).
    pub mass1_substeps: usize,
    /// The gaps' parameter `m_eff` (kg): the effective mass of the relative motion, 1 kg (mass2
    /// against a wall) to integrate the contact's own dynamics in each step; 0 (the FMU's default)
    /// leaves it to the FMU's estimate after the first contact.
    pub m_eff: f64,
    /// The gaps' parameter `forceLaw` (1: ElastoGap, the MSL law of the example).
    pub force_law: i32,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            step: 0.01,
            coupling: Coupling::Best,
            stop_time: STOP_TIME,
            mass1_substeps: 10,
            m_eff: 0.0,
            force_law: 1,
        }
    }
}

/// What one gap FMU reports at a communication point.
#[derive(Clone, Copy, Debug, Default)]
pub struct GapOutputs {
    pub f: f64,
    pub s_rel: f64,
    pub v_rel: f64,
    pub contact: bool,
    /// Mean force over the step that ended here (as the FMU reports it).
    pub f_mean: f64,
    pub e_loss: f64,
}

impl GapOutputs {
    /// Reads the outputs of one gap: `reals` are the value references of `f`, `s_rel`, `v_rel`,
    /// `f_mean` and `E_loss`, in that order.
    pub fn read(
        instance: &mut Instance,
        reals: &[u32; 5],
        contact: u32,
    ) -> Result<GapOutputs, String> {
        let (s, v) = instance.get_real(reals);
        check(s, "fmi2GetReal(outputs)", instance)?;
        let (s, b) = instance.get_boolean(&[contact]);
        check(s, "fmi2GetBoolean(contact)", instance)?;
        Ok(GapOutputs {
            f: v[0],
            s_rel: v[1],
            v_rel: v[2],
            contact: b[0],
            f_mean: v[3],
            e_loss: v[4],
        })
    }
}

/// The system at one communication point.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub time: f64,
    pub x1: f64,
    pub v1: f64,
    pub x2: f64,
    pub v2: f64,
    pub gap1: GapOutputs,
    pub gap2: GapOutputs,
}

impl Row {
    /// The MSL comparison signals ([`COMPARISON_SIGNALS`]); the gap ones as the FMUs report them.
    pub fn comparison(&self) -> [f64; 4] {
        [
            self.gap1.v_rel,
            self.gap2.s_rel,
            self.v1,
            WALL_RIGHT - self.x1,
        ]
    }

    pub fn spring_damper1_f(&self) -> f64 {
        spring_damper_force(self.x1 - WALL_LEFT, self.v1)
    }

    pub fn spring_damper2_f(&self) -> f64 {
        spring_damper_force(WALL_RIGHT - self.x1, -self.v1)
    }
}

#[derive(Clone, Debug)]
pub struct DemoRun {
    pub options: DemoOptions,
    pub rows: Vec<Row>,
    /// The gaps' output `m_eff_estimate` at the end (co-simulation; 0 until a contact completed,
    /// and with Model Exchange).
    pub m_eff_estimates: [f64; 2],
}

/// `f` of a SpringDamper at its flange_b.
pub fn spring_damper_force(s_rel: f64, v_rel: f64) -> f64 {
    SPRING_C * (s_rel - SPRING_S_REL0) + SPRING_D * v_rel
}

/// mass1's acceleration: walls fixed, so it depends on mass1 alone.
pub fn mass1_acceleration(x1: f64, v1: f64) -> f64 {
    let f1 = spring_damper_force(x1 - WALL_LEFT, v1);
    let f2 = spring_damper_force(WALL_RIGHT - x1, -v1);
    (-f1 + f2) / MASS
}

/// One classical RK4 step of mass1.
pub fn mass1_rk4(x: f64, v: f64, h: f64) -> (f64, f64) {
    let a = mass1_acceleration;
    let (k1x, k1v) = (v, a(x, v));
    let (k2x, k2v) = (v + 0.5 * h * k1v, a(x + 0.5 * h * k1x, v + 0.5 * h * k1v));
    let (k3x, k3v) = (v + 0.5 * h * k2v, a(x + 0.5 * h * k2x, v + 0.5 * h * k2v));
    let (k4x, k4v) = (v + h * k3v, a(x + h * k3x, v + h * k3v));
    (
        x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
        v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v),
    )
}

/// One ElastoGap FMU instance with its value references looked up by name.
struct Gap {
    instance: Instance,
    a_s: u32,
    a_v: u32,
    b_s: u32,
    b_v: u32,
    f: u32,
    s_rel: u32,
    v_rel: u32,
    contact: u32,
    f_mean: u32,
    f_next: u32,
    m_eff_estimate: u32,
    e_loss: u32,
}

/// `Ok` for fmi2OK; otherwise the call, the status and the instance's log.
pub fn check(status: Status, call: &str, instance: &Instance) -> Result<(), String> {
    if status == Status::Ok {
        Ok(())
    } else {
        let log: Vec<String> = instance
            .logs()
            .iter()
            .map(|r| format!("  [{:?} {:?}] {}", r.status, r.category, r.message))
            .collect();
        Err(format!(
            "{call} on {} returned {status:?}; FMU log:\n{}",
            instance.name(),
            log.join("\n")
        ))
    }
}

impl Gap {
    fn new(fmu: &Arc<Fmu>, name: &str, options: &DemoOptions) -> Result<Gap, String> {
        let (stop_time, m_eff) = (options.stop_time, options.m_eff);
        let md = &fmu.model_description;
        let real = |n: &str| md.vr(n, VarType::Real);
        let mut instance = Instance::instantiate(fmu, &super::InstantiateOptions::named(name))
            .map_err(|f| format!("fmi2Instantiate({name}) failed: {:?}", f.logs))?;
        let parameters = [
            ("c", GAP_C),
            ("d", GAP_D),
            ("s_rel0", GAP_S_REL0),
            ("n", GAP_N),
            ("m_eff", m_eff),
        ];
        for (p, value) in parameters {
            let s = instance.set_real(&[real(p)], &[value]);
            check(s, &format!("fmi2SetReal({p})"), &instance)?;
        }
        let s = instance.set_by_name("forceLaw", f64::from(options.force_law));
        check(s, "fmi2SetInteger(forceLaw)", &instance)?;
        let s = instance.setup_experiment(None, 0.0, Some(stop_time));
        check(s, "fmi2SetupExperiment", &instance)?;
        let s = instance.enter_initialization_mode();
        check(s, "fmi2EnterInitializationMode", &instance)?;
        Ok(Gap {
            a_s: real("flange_a.s"),
            a_v: real("flange_a.v"),
            b_s: real("flange_b.s"),
            b_v: real("flange_b.v"),
            f: real("f"),
            s_rel: real("s_rel"),
            v_rel: real("v_rel"),
            contact: md.vr("contact", VarType::Boolean),
            f_mean: real("f_mean"),
            f_next: real("f_next"),
            m_eff_estimate: real("m_eff_estimate"),
            e_loss: real("E_loss"),
            instance,
        })
    }

    fn set_motion(&mut self, a: (f64, f64), b: (f64, f64)) -> Result<(), String> {
        let s = self.instance.set_real(
            &[self.a_s, self.a_v, self.b_s, self.b_v],
            &[a.0, a.1, b.0, b.1],
        );
        check(s, "fmi2SetReal(flange inputs)", &self.instance)
    }

    fn set_accelerations(&mut self, a_a: f64, a_b: f64) -> Result<(), String> {
        let s =
            self.instance
                .set_real_input_derivatives(&[self.a_v, self.b_v], &[1, 1], &[a_a, a_b]);
        check(s, "fmi2SetRealInputDerivatives", &self.instance)
    }

    fn outputs(&mut self) -> Result<GapOutputs, String> {
        let reals = [self.f, self.s_rel, self.v_rel, self.f_mean, self.e_loss];
        GapOutputs::read(&mut self.instance, &reals, self.contact)
    }

    fn do_step(&mut self, t: f64, h: f64) -> Result<(), String> {
        let s = self.instance.do_step(t, h, true);
        check(s, &format!("fmi2DoStep(t={t}, h={h})"), &self.instance)
    }
}

/// Run the example from 0 to `stop_time` with the FMU `fmu` (two instances of it).
pub fn run_demo(fmu: &Arc<Fmu>, options: &DemoOptions) -> Result<DemoRun, String> {
    if options.coupling == Coupling::ModelExchange {
        return super::model_exchange::run(fmu, options).map(|(run, _)| run);
    }
    let h = options.step;
    if !(h > 0.0 && h.is_finite()) {
        return Err(format!("step must be > 0, got {h}"));
    }
    let stop = options.stop_time;
    let steps = ((stop / h) - 1e-9).ceil().max(1.0) as usize;
    let time_at = |k: usize| if k >= steps { stop } else { k as f64 * h };

    let mut gap1 = Gap::new(fmu, "elastoGap1", options)?;
    let mut gap2 = Gap::new(fmu, "elastoGap2", options)?;
    let (mut x1, mut v1) = (X1_START, 0.0);
    let (mut x2, mut v2) = (X2_START, 0.0);

    // Initial inputs in initialization mode, then leave it.
    gap1.set_motion((WALL_LEFT, 0.0), (x2, v2))?;
    gap2.set_motion((x2, v2), (WALL_RIGHT, 0.0))?;
    for gap in [&mut gap1, &mut gap2] {
        let s = gap.instance.exit_initialization_mode();
        check(s, "fmi2ExitInitializationMode", &gap.instance)?;
    }

    let mut rows = Vec::with_capacity(steps + 1);
    for k in 0..=steps {
        let t = time_at(k);
        // Inputs at t (the flange positions and velocities of mass2 and the walls).
        gap1.set_motion((WALL_LEFT, 0.0), (x2, v2))?;
        gap2.set_motion((x2, v2), (WALL_RIGHT, 0.0))?;
        let out1 = gap1.outputs()?;
        let out2 = gap2.outputs()?;
        rows.push(Row {
            time: t,
            x1,
            v1,
            x2,
            v2,
            gap1: out1,
            gap2: out2,
        });
        if k == steps {
            break;
        }
        let step = time_at(k + 1) - t;

        // mass2's acceleration now, from the direct-feedthrough forces.
        let a2 = (-out1.f + out2.f) / MASS;
        if options.coupling == Coupling::Best {
            gap1.set_accelerations(0.0, a2)?;
            gap2.set_accelerations(a2, 0.0)?;
        }
        // A Jacobi master reads every output before stepping any unit.
        let held_next = if options.coupling == Coupling::Jacobi {
            let (s, n1) = gap1.instance.get_real(&[gap1.f_next]);
            check(s, "fmi2GetReal(f_next)", &gap1.instance)?;
            let (s, n2) = gap2.instance.get_real(&[gap2.f_next]);
            check(s, "fmi2GetReal(f_next)", &gap2.instance)?;
            Some(-n1[0] + n2[0])
        } else {
            None
        };
        gap1.do_step(t, step)?;
        gap2.do_step(t, step)?;

        // The force on mass2, held over the step.
        let force = match options.coupling {
            Coupling::Best | Coupling::MeanForce => {
                let (s, m1) = gap1.instance.get_real(&[gap1.f_mean]);
                check(s, "fmi2GetReal(f_mean)", &gap1.instance)?;
                let (s, m2) = gap2.instance.get_real(&[gap2.f_mean]);
                check(s, "fmi2GetReal(f_mean)", &gap2.instance)?;
                -m1[0] + m2[0]
            }
            Coupling::Jacobi => held_next.unwrap_or_default(),
            Coupling::Naive | Coupling::ModelExchange => -out1.f + out2.f,
        };
        let a = force / MASS;
        x2 += v2 * step + 0.5 * a * step * step;
        v2 += a * step;

        // mass1: the springDampers, evaluated continuously.
        let n = options.mass1_substeps.max(1);
        let sub = step / n as f64;
        for _ in 0..n {
            (x1, v1) = mass1_rk4(x1, v1, sub);
        }
    }

    let mut m_eff_estimates = [0.0; 2];
    for (gap, estimate) in [&mut gap1, &mut gap2].into_iter().zip(&mut m_eff_estimates) {
        let (s, value) = gap.instance.get_real(&[gap.m_eff_estimate]);
        check(s, "fmi2GetReal(m_eff_estimate)", &gap.instance)?;
        *estimate = value[0];
    }
    for gap in [&mut gap1, &mut gap2] {
        let s = gap.instance.terminate();
        check(s, "fmi2Terminate", &gap.instance)?;
    }
    Ok(DemoRun {
        options: options.clone(),
        rows,
        m_eff_estimates,
    })
}

/// A result file with a header row of (possibly quoted) names, e.g. the MSL reference CSV.
#[derive(Clone, Debug)]
pub struct TimeSeries {
    pub names: Vec<String>,
    pub time: Vec<f64>,
    /// `columns[j][i]`: signal `names[j + 1]` at `time[i]`.
    pub columns: Vec<Vec<f64>>,
}

impl TimeSeries {
    pub fn read_csv(path: &Path) -> Result<TimeSeries, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header = lines
            .next()
            .ok_or_else(|| format!("{}: empty", path.display()))?;
        let names: Vec<String> = header
            .split(',')
            .map(|n| n.trim().trim_matches('"').to_string())
            .collect();
        if names.first().map(String::as_str) != Some("time") {
            return Err(format!("{}: first column is not time", path.display()));
        }
        let mut time = Vec::new();
        let mut columns = vec![Vec::new(); names.len() - 1];
        for (i, line) in lines.enumerate() {
            let values: Vec<f64> = line
                .split(',')
                .map(|v| v.trim().parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|e| format!("{} row {}: {e}", path.display(), i + 2))?;
            if values.len() != names.len() {
                return Err(format!(
                    "{} row {}: {} values",
                    path.display(),
                    i + 2,
                    values.len()
                ));
            }
            if let Some(&last) = time.last() {
                if values[0] < last {
                    return Err(format!("{} row {}: time goes back", path.display(), i + 2));
                }
            }
            time.push(values[0]);
            for (column, v) in columns.iter_mut().zip(&values[1..]) {
                column.push(*v);
            }
        }
        if time.is_empty() {
            return Err(format!("{}: no rows", path.display()));
        }
        Ok(TimeSeries {
            names,
            time,
            columns,
        })
    }

    pub fn column(&self, name: &str) -> Option<&[f64]> {
        let j = self.names.iter().position(|n| n == name)?;
        j.checked_sub(1).map(|j| self.columns[j].as_slice())
    }

    /// Interpolation of `values` (one of the columns) at `t`, clamped to the time range: a cubic
    /// Hermite curve through the two rows around `t` whose slopes are those of the parabolas through
    /// the neighbouring rows (third-order accurate, so a communication grid that misses the
    /// reference's output grid is not charged with interpolation error). A time listed twice (an
    /// event) splits the curve: no slope is taken across it, and at that time the first of the two
    /// rows is used.
    pub fn interpolate(&self, values: &[f64], t: f64) -> f64 {
        let time = &self.time;
        let n = time.len();
        if t <= time[0] {
            return values[0];
        }
        if t >= time[n - 1] {
            return values[n - 1];
        }
        // First index with time > t; its predecessor has time <= t.
        let hi = time.partition_point(|&x| x <= t);
        let lo = hi - 1;
        let (t0, t1) = (time[lo], time[hi]);
        if t == t0 {
            let first = time.partition_point(|&x| x < t);
            return values[first];
        }
        // Derivative at `at` of the parabola through rows i, i+1, i+2.
        let parabola_slope = |i: usize, at: f64| {
            let (ta, tb, tc) = (time[i], time[i + 1], time[i + 2]);
            let d_ab = (values[i + 1] - values[i]) / (tb - ta);
            let d_bc = (values[i + 2] - values[i + 1]) / (tc - tb);
            let curvature = (d_bc - d_ab) / (tc - ta);
            d_ab + curvature * ((at - ta) + (at - tb))
        };
        let has_left = lo > 0 && time[lo - 1] < t0;
        let has_right = hi + 1 < n && time[hi + 1] > t1;
        let secant = (values[hi] - values[lo]) / (t1 - t0);
        let (m0, m1) = match (has_left, has_right) {
            (true, true) => (parabola_slope(lo - 1, t0), parabola_slope(lo, t1)),
            (true, false) => (parabola_slope(lo - 1, t0), parabola_slope(lo - 1, t1)),
            (false, true) => (parabola_slope(lo, t0), parabola_slope(lo, t1)),
            (false, false) => (secant, secant),
        };
        let h = t1 - t0;
        let s = (t - t0) / h;
        let (s2, s3) = (s * s, s * s * s);
        (2.0 * s3 - 3.0 * s2 + 1.0) * values[lo]
            + (s3 - 2.0 * s2 + s) * h * m0
            + (-2.0 * s3 + 3.0 * s2) * values[hi]
            + (s3 - s2) * h * m1
    }
}

/// The largest deviation of each comparison signal from `reference`, with the time it occurs.
pub fn max_deviation(run: &DemoRun, reference: impl Fn(f64) -> [f64; 4]) -> [(f64, f64); 4] {
    let mut worst = [(0.0f64, 0.0f64); 4];
    for row in &run.rows {
        let r = reference(row.time);
        for (j, (ours, theirs)) in row.comparison().iter().zip(r).enumerate() {
            let dev = (ours - theirs).abs();
            // A NaN is kept as the worst: it must fail every tube check.
            if !worst[j].0.is_nan() && (dev.is_nan() || dev > worst[j].0) {
                worst[j] = (dev, row.time);
            }
        }
    }
    worst
}

/// [`max_deviation`] against the MSL reference file (columns named as [`COMPARISON_SIGNALS`]).
pub fn max_deviation_from_csv(
    run: &DemoRun,
    reference: &TimeSeries,
) -> Result<[(f64, f64); 4], String> {
    let mut columns = Vec::new();
    for name in COMPARISON_SIGNALS {
        columns.push(
            reference
                .column(name)
                .ok_or_else(|| format!("the reference has no column {name}"))?,
        );
    }
    Ok(max_deviation(run, |t| {
        [0, 1, 2, 3].map(|j| reference.interpolate(columns[j], t))
    }))
}
