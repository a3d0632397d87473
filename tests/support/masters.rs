//! Co-simulation masters that couple a mechanical system to the packaged FMU: the body at flange_b
//! (flange_a fixed at 0, so `s_rel = x`), possibly with a second body behind it, moved by the
//! master's own integrator (RK4 with `substeps` steps per communication step, exact for a constant
//! force on a lone body) under its external forces and the gap force the master holds over the step.
//! Every master sets the flanges' initial positions and velocities during initialization mode.
//!
//! - Gauss–Seidel, gap first: the gap is stepped first from the body's state at `t_k`, then the
//!   body under `-f_mean` of that same step.
//! - Gauss–Seidel, body first: the body steps first under the `-f_mean` of the gap's previous step
//!   (0 before the first one); then the gap is given the body's state at `t_{k+1}` and steps over
//!   `[t_k, t_{k+1}]`; its `f_mean` is held over the body's next step.
//! - Jacobi: all units step at once: the body holds over `[t_k, t_k + h]` the `-f_next` it read at
//!   `t_k`, i.e. the value output by the previous `fmi2DoStep` (or by the initialization).
//! - Jacobi reading after the step (cofmupy's pattern): the same, but the outputs are read only
//!   after each `fmi2DoStep`, none before the first: over the first step the body holds its own
//!   start value, no force.
//!
//! Each master also sums the energy it put into the gap's port, `held * (s_rel(t_{k+1}) -
//! s_rel(t_k))` over the steps, to be compared with the FMU's output `E_port` where it has one.

use std::sync::Arc;

use super::exact::rk4_step;
use super::{ok, panic_message, Fmu, Instance, LogRecord, VarType};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Master {
    /// Gauss–Seidel with the gap stepped first.
    GaussSeidel,
    Jacobi,
    /// Gauss–Seidel with the body stepped first (only [`cosimulate_plant`] runs it).
    GaussSeidelBodyFirst,
    /// Jacobi that reads the outputs only after each step (only [`cosimulate_plant`] runs it).
    JacobiReadingAfter,
    /// Jacobi with `f_mean` connected: each step's `f_mean` held over the step after it
    /// (OMSimulator's default master; only [`cosimulate_plant`] runs it).
    JacobiMeanLate,
}

impl Master {
    /// The two masters of [`super::impact`] and of the tests that need no other ordering.
    pub const ALL: [Master; 2] = [Master::GaussSeidel, Master::Jacobi];
    /// Every ordering of the units the coupling's acceptance cases ask for.
    pub const EVERY_ORDERING: [Master; 4] = [
        Master::GaussSeidel,
        Master::GaussSeidelBodyFirst,
        Master::Jacobi,
        Master::JacobiReadingAfter,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Master::GaussSeidel => "Gauss-Seidel (f_mean)",
            Master::Jacobi => "Jacobi (f_next)",
            Master::GaussSeidelBodyFirst => "GS body first (f_mean)",
            Master::JacobiReadingAfter => "Jacobi, read after (f_next)",
            Master::JacobiMeanLate => "Jacobi (f_mean, late)",
        }
    }
}

/// The gap's parameters.
#[derive(Clone, Copy, Debug)]
pub struct Gap {
    pub c: f64,
    pub d: f64,
    pub m_eff: f64,
    /// Where the contact begins (`s_rel < s_rel0`); the body at flange_b meets it there.
    pub s_rel0: f64,
}

/// The master's body.
pub struct MasterBody<'a> {
    pub mass: f64,
    pub x0: f64,
    pub v0: f64,
    pub external: &'a dyn Fn(f64, f64, f64) -> f64,
}

impl<'a> MasterBody<'a> {
    /// A body of `mass` at `x0` moving at `v0`, with the external force `external(t, x, v)`.
    pub fn new(
        mass: f64,
        x0: f64,
        v0: f64,
        external: &'a dyn Fn(f64, f64, f64) -> f64,
    ) -> MasterBody<'a> {
        MasterBody {
            mass,
            x0,
            v0,
            external,
        }
    }
}

/// The master's record at one communication point `t_k = k*h`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    pub t: f64,
    pub x: f64,
    pub v: f64,
    /// The second body's position and velocity (0 for a lone body).
    pub partner_x: f64,
    pub partner_v: f64,
    /// The gap force `f` held over `[t_k, t_k + h]` (the body felt `-held`); 0 at the last sample.
    pub held: f64,
    /// `E_loss` and `m_eff_estimate` after the step ending at `t_k` (0 at `t_0`).
    pub e_loss: f64,
    pub m_eff_estimate: f64,
    /// The FMU's output `E_port` after the step ending at `t_k`, if it has one.
    pub e_port: Option<f64>,
    /// The master's own sum of `held * (s_rel(t_{j+1}) - s_rel(t_j))` over the steps up to `t_k`.
    pub port_energy: f64,
}

/// The master's state: `[x, v, partner_x, partner_v]` (the last two unused by a lone body).
pub type State = [f64; 4];

/// The mechanical system the master integrates.
pub struct Plant<'a> {
    pub initial: State,
    /// `dy/dt` at time `t` in state `y`, the body at flange_b feeling `-held` from the gap.
    pub derivative: &'a dyn Fn(f64, State, f64) -> State,
}

/// Runs `steps` communication steps of length `h` of one body; returns `steps + 1` samples.
pub fn cosimulate(
    fmu: &Arc<Fmu>,
    gap: Gap,
    body: &MasterBody,
    master: Master,
    h: f64,
    steps: usize,
    substeps: usize,
) -> Vec<Sample> {
    let derivative = |t: f64, y: State, held: f64| {
        [
            y[1],
            ((body.external)(t, y[0], y[1]) - held) / body.mass,
            0.0,
            0.0,
        ]
    };
    let plant = Plant {
        initial: [body.x0, body.v0, 0.0, 0.0],
        derivative: &derivative,
    };
    cosimulate_plant(fmu, gap, &plant, master, h, steps, substeps)
}

/// Runs `steps` communication steps of length `h` of any plant; returns `steps + 1` samples.
pub fn cosimulate_plant(
    fmu: &Arc<Fmu>,
    gap: Gap,
    plant: &Plant,
    master: Master,
    h: f64,
    steps: usize,
    substeps: usize,
) -> Vec<Sample> {
    let (run, _) = cosimulate_plant_logged(fmu, gap, plant, master, h, steps, substeps);
    run.unwrap_or_else(|message| panic!("{message}"))
}

/// [`cosimulate_plant`] that does not unwind: the samples, or the message of the call that failed
/// (a status other than fmi2OK), and everything the FMU logged for the instance either way.
pub fn cosimulate_plant_logged(
    fmu: &Arc<Fmu>,
    gap: Gap,
    plant: &Plant,
    master: Master,
    h: f64,
    steps: usize,
    substeps: usize,
) -> (Result<Vec<Sample>, String>, Vec<LogRecord>) {
    cosimulate_plant_with(fmu, gap, &[], plant, master, h, steps, substeps)
}

/// [`cosimulate_plant_logged`] with more parameters set by name (Integers and Enumerations as
/// their values) during initialization.
#[allow(clippy::too_many_arguments)]
pub fn cosimulate_plant_with(
    fmu: &Arc<Fmu>,
    gap: Gap,
    parameters: &[(&str, f64)],
    plant: &Plant,
    master: Master,
    h: f64,
    steps: usize,
    substeps: usize,
) -> (Result<Vec<Sample>, String>, Vec<LogRecord>) {
    let run = Run {
        master,
        h,
        steps,
        substeps,
        reads: Reads::Connected,
    };
    cosimulate_plant_run(fmu, gap, parameters, plant, run)
}

/// Which outputs a master reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// The force it holds (`f_mean`, or `f_next` for a Jacobi master), and what the tests record.
    Connected,
    /// Every Real output after initialization and after every step, as FMPy's `simulate_fmu`
    /// and cofmupy do; the force it holds as with [`Reads::Connected`].
    Every,
}

/// How a master runs: its ordering, its step, the steps, the plant's substeps, what it reads.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub master: Master,
    pub h: f64,
    pub steps: usize,
    pub substeps: usize,
    pub reads: Reads,
}

/// [`cosimulate_plant_with`] with what the master reads.
pub fn cosimulate_plant_run(
    fmu: &Arc<Fmu>,
    gap: Gap,
    parameters: &[(&str, f64)],
    plant: &Plant,
    run: Run,
) -> (Result<Vec<Sample>, String>, Vec<LogRecord>) {
    let mut inst = Instance::new(fmu, "coupling");
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for &(name, value) in parameters {
            ok(inst.set_by_name(name, value));
        }
        run_plant(&mut inst, gap, plant, run)
    }))
    .map_err(|panic| panic_message(&*panic));
    let logs = inst.logs();
    (run, logs)
}

/// The run of [`cosimulate_plant_logged`] on an instance just instantiated.
fn run_plant(inst: &mut Instance, gap: Gap, plant: &Plant, run: Run) -> Vec<Sample> {
    let Run {
        master,
        h,
        steps,
        substeps,
        reads,
    } = run;
    let fmu = Arc::clone(inst.fmu());
    let every_output: Vec<u32> = fmu
        .model_description
        .variables
        .iter()
        .filter(|v| v.var_type == VarType::Real && v.causality == "output")
        .map(|v| v.value_reference)
        .collect();
    let read_every = |inst: &mut Instance| {
        if reads == Reads::Every {
            ok(inst.get_real(&every_output).0);
        }
    };
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
    let [c, d, m_eff, s_a, v_a, s_b, v_b, f_mean, f_next, e_loss, m_est] = [
        "c",
        "d",
        "m_eff",
        "flange_a.s",
        "flange_a.v",
        "flange_b.s",
        "flange_b.v",
        "f_mean",
        "f_next",
        "E_loss",
        "m_eff_estimate",
    ]
    .map(|name| inst.vr(name, VarType::Real));
    // `E_port` is read where the FMU has it; an FMU without it is still measured.
    let e_port = fmu
        .model_description
        .variable("E_port")
        .filter(|v| v.var_type == VarType::Real && v.causality == "output")
        .map(|v| v.value_reference);
    // A master that steps all units at once reads the force it holds, f_next, and never
    // f_mean (read too, the FMU could not tell which one it holds: docs/coupling.md).
    let steps_all_at_once = matches!(master, Master::Jacobi | Master::JacobiReadingAfter);
    let force_read = if steps_all_at_once { f_next } else { f_mean };
    let mut outputs = vec![force_read, e_loss, m_est];
    outputs.extend(e_port);
    let s_rel0 = inst.vr("s_rel0", VarType::Real);
    ok(inst.set_real(
        &[c, d, m_eff, s_rel0],
        &[gap.c, gap.d, gap.m_eff, gap.s_rel0],
    ));
    let mut y = plant.initial;
    ok(inst.set_real(&[s_a, v_a, s_b, v_b], &[0.0, 0.0, y[0], y[1]]));
    ok(inst.exit_initialization_mode());
    read_every(inst);

    let advance = |t: f64, y: State, held: f64| -> State {
        let dt = h / substeps as f64;
        (0..substeps).fold(y, |y, i| {
            rk4_step(
                |t, y| (plant.derivative)(t, y, held),
                t + i as f64 * dt,
                y,
                dt,
            )
        })
    };
    let mut samples = Vec::with_capacity(steps + 1);
    let mut current = Sample {
        t: 0.0,
        x: y[0],
        v: y[1],
        partner_x: y[2],
        partner_v: y[3],
        ..Sample::default()
    };
    // The body-first master's force for its next step: the last f_mean, 0 before the first; and
    // the f_next a master reading after the step read last, 0 before the first.
    let mut last_f_mean = 0.0;
    let mut last_f_next = 0.0;
    for k in 0..steps {
        let t = k as f64 * h;
        let (held, next) = match master {
            Master::GaussSeidel => {
                ok(inst.set_real(&[s_b, v_b], &[y[0], y[1]]));
                ok(inst.do_step(t, h, true));
                let (status, mean) = inst.get_real(&[f_mean]);
                ok(status);
                (mean[0], advance(t, y, mean[0]))
            }
            Master::Jacobi => {
                let (status, predicted) = inst.get_real(&[f_next]);
                ok(status);
                ok(inst.set_real(&[s_b, v_b], &[y[0], y[1]]));
                ok(inst.do_step(t, h, true));
                (predicted[0], advance(t, y, predicted[0]))
            }
            Master::JacobiMeanLate => {
                ok(inst.set_real(&[s_b, v_b], &[y[0], y[1]]));
                ok(inst.do_step(t, h, true));
                (last_f_mean, advance(t, y, last_f_mean))
            }
            Master::GaussSeidelBodyFirst => {
                let next = advance(t, y, last_f_mean);
                ok(inst.set_real(&[s_b, v_b], &[next[0], next[1]]));
                ok(inst.do_step(t, h, true));
                (last_f_mean, next)
            }
            Master::JacobiReadingAfter => {
                ok(inst.set_real(&[s_b, v_b], &[y[0], y[1]]));
                ok(inst.do_step(t, h, true));
                let (status, predicted) = inst.get_real(&[f_next]);
                ok(status);
                let held = last_f_next;
                last_f_next = predicted[0];
                (held, advance(t, y, held))
            }
        };
        read_every(inst);
        let (status, out) = inst.get_real(&outputs);
        ok(status);
        last_f_mean = out[0];
        current.held = held;
        samples.push(current);
        y = next;
        current = Sample {
            t: (k + 1) as f64 * h,
            x: y[0],
            v: y[1],
            partner_x: y[2],
            partner_v: y[3],
            held: 0.0,
            e_loss: out[1],
            m_eff_estimate: out[2],
            e_port: out.get(3).copied(),
            port_energy: current.port_energy + held * (y[0] - current.x),
        };
    }
    samples.push(current);
    samples
}
