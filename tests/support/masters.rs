//! Co-simulation masters that couple one body to the packaged FMU: the body at flange_b (flange_a
//! fixed at 0, so `s_rel = x`), moved by the master's own integrator (RK4 with `substeps` steps per
//! communication step, exact for a constant force) under its external force and the gap force the
//! master holds over the step.
//!
//! - Gauss–Seidel: the gap is stepped first, then the body under `-f_mean` of that same step.
//! - Jacobi: all units step at once: the body holds over `[t_k, t_k + h]` the `-f_next` it read at
//!   `t_k`, i.e. the value output by the previous `fmi2DoStep`.

use std::sync::Arc;

use super::{ok, Fmu, Instance, VarType};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Master {
    GaussSeidel,
    Jacobi,
}

impl Master {
    pub const ALL: [Master; 2] = [Master::GaussSeidel, Master::Jacobi];

    pub fn label(self) -> &'static str {
        match self {
            Master::GaussSeidel => "Gauss-Seidel (f_mean)",
            Master::Jacobi => "Jacobi (f_next)",
        }
    }
}

/// The gap's parameters.
#[derive(Clone, Copy, Debug)]
pub struct Gap {
    pub c: f64,
    pub d: f64,
    pub m_eff: f64,
}

/// The master's body.
pub struct MasterBody<'a> {
    pub mass: f64,
    pub x0: f64,
    pub v0: f64,
    pub external: &'a dyn Fn(f64, f64, f64) -> f64,
}

/// The master's record at one communication point `t_k = k*h`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    pub t: f64,
    pub x: f64,
    pub v: f64,
    /// The gap force `f` held over `[t_k, t_k + h]` (the body felt `-held`); 0 at the last sample.
    pub held: f64,
    /// `E_loss` and `m_eff_estimate` after the step ending at `t_k` (0 at `t_0`).
    pub e_loss: f64,
    pub m_eff_estimate: f64,
}

/// Runs `steps` communication steps of length `h`; returns `steps + 1` samples.
pub fn cosimulate(
    fmu: &Arc<Fmu>,
    gap: Gap,
    body: &MasterBody,
    master: Master,
    h: f64,
    steps: usize,
    substeps: usize,
) -> Vec<Sample> {
    let mut inst = Instance::new(fmu, "contact_dynamics");
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
    let [c, d, m_eff, s_b, v_b, f_mean, f_next, e_loss, m_est] = [
        "c",
        "d",
        "m_eff",
        "flange_b.s",
        "flange_b.v",
        "f_mean",
        "f_next",
        "E_loss",
        "m_eff_estimate",
    ]
    .map(|name| inst.vr(name, VarType::Real));
    ok(inst.set_real(&[c, d, m_eff], &[gap.c, gap.d, gap.m_eff]));
    let (mut x, mut v) = (body.x0, body.v0);
    ok(inst.set_real(&[s_b, v_b], &[x, v]));
    ok(inst.exit_initialization_mode());

    let mut samples = Vec::with_capacity(steps + 1);
    let mut current = Sample {
        t: 0.0,
        x,
        v,
        ..Sample::default()
    };
    for k in 0..steps {
        let t = k as f64 * h;
        ok(inst.set_real(&[s_b, v_b], &[x, v]));
        let predicted = if master == Master::Jacobi {
            let (status, values) = inst.get_real(&[f_next]);
            ok(status);
            values[0]
        } else {
            0.0
        };
        ok(inst.do_step(t, h, true));
        let (status, out) = inst.get_real(&[f_mean, e_loss, m_est]);
        ok(status);
        let held = match master {
            Master::GaussSeidel => out[0],
            Master::Jacobi => predicted,
        };
        current.held = held;
        samples.push(current);
        // The master's own integrator over the step, the gap force held.
        let dt = h / substeps as f64;
        let accel = |t: f64, x: f64, v: f64| ((body.external)(t, x, v) - held) / body.mass;
        for i in 0..substeps {
            let ti = t + i as f64 * dt;
            let (k1x, k1v) = (v, accel(ti, x, v));
            let (k2x, k2v) = (
                v + 0.5 * dt * k1v,
                accel(ti + 0.5 * dt, x + 0.5 * dt * k1x, v + 0.5 * dt * k1v),
            );
            let (k3x, k3v) = (
                v + 0.5 * dt * k2v,
                accel(ti + 0.5 * dt, x + 0.5 * dt * k2x, v + 0.5 * dt * k2v),
            );
            let (k4x, k4v) = (v + dt * k3v, accel(ti + dt, x + dt * k3x, v + dt * k3v));
            x += dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
            v += dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
        }
        current = Sample {
            t: (k + 1) as f64 * h,
            x,
            v,
            held: 0.0,
            e_loss: out[1],
            m_eff_estimate: out[2],
        };
    }
    samples.push(current);
    samples
}
