//! The single-mass impact: a 1 kg mass at flange_b hits the gap at 1 m/s (c = 1e4 N/m,
//! d = 20 N.s/m, flange_a fixed at 0, s_rel0 = 0), co-simulated through the packaged FMU by a
//! master that integrates the mass, against a high-accuracy solution computed here without the FMU.

use std::sync::Arc;

use super::gap_law::Law;
use super::masters::Master;
use super::{Fmu, Instance, Status, VarType};

pub const MASS: f64 = 1.0;
pub const C: f64 = 1e4;
pub const D: f64 = 20.0;
pub const GAP: f64 = 0.01;
pub const SPEED: f64 = 1.0;
/// Long enough for the mass to leave contact and fly free at every step size studied, and for
/// the FMU to have finished correcting the contact where it estimates the mass from it (a master
/// that holds `f_mean` and steps at half the contact duration: the contact takes three steps,
/// the correction starts one free step later and takes three more, ending at 0.11 s).
pub const STOP_TIME: f64 = 0.2;

/// Half a period of the undamped contact oscillation, pi*sqrt(m/c).
pub fn contact_duration() -> f64 {
    std::f64::consts::PI * (MASS / C).sqrt()
}

/// The gap's law, with the mass's position as `s_rel` (flange_a fixed at 0).
const LAW: Law = Law {
    c: C,
    d: D,
    s_rel0: 0.0,
    n: 1.0,
    s_ref: 1.0,
    f_ref: 0.0,
};

/// What an impact run gives: rebound coefficient and energy dissipated.
#[derive(Clone, Copy, Debug)]
pub struct Impact {
    pub restitution: f64,
    pub dissipated: f64,
}

/// Classical RK4 with a 1e-7 s step on the mass and the dissipated energy together; the force has
/// only kinks (no jumps), so this is accurate to ~1e-10 (checked by halving in the tests).
pub fn reference_with_step(h: f64) -> Impact {
    let rhs = |y: [f64; 3]| {
        let forces = LAW.forces(y[0], y[1]);
        [y[1], -forces.f / MASS, forces.loss_power]
    };
    let mut y = [GAP, -SPEED, 0.0];
    let steps = (STOP_TIME / h).round() as usize;
    for _ in 0..steps {
        let k1 = rhs(y);
        let k2 = rhs(std::array::from_fn(|i| y[i] + 0.5 * h * k1[i]));
        let k3 = rhs(std::array::from_fn(|i| y[i] + 0.5 * h * k2[i]));
        let k4 = rhs(std::array::from_fn(|i| y[i] + h * k3[i]));
        for i in 0..3 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    Impact {
        restitution: y[1] / SPEED,
        dissipated: y[2],
    }
}

pub fn reference() -> Impact {
    reference_with_step(1e-7)
}

/// How the master couples the mass to the FMU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImpactCoupling {
    /// The force `f` at the step start, held over the step (what a plain co-simulation does).
    Naive,
    /// `f_mean` of the step, from the FMU's own acceleration estimate.
    MeanForce,
    /// `f_mean`, with the mass's acceleration supplied by `fmi2SetRealInputDerivatives`.
    MeanForceWithDerivatives,
}

impl ImpactCoupling {
    pub const ALL: [ImpactCoupling; 3] = [
        ImpactCoupling::Naive,
        ImpactCoupling::MeanForce,
        ImpactCoupling::MeanForceWithDerivatives,
    ];

    pub fn label(self) -> &'static str {
        match self {
            ImpactCoupling::Naive => "naive f(t_k)",
            ImpactCoupling::MeanForce => "f_mean",
            ImpactCoupling::MeanForceWithDerivatives => "f_mean + input derivatives",
        }
    }
}

/// Co-simulates the impact with communication step `h`; the master moves the mass exactly under
/// the force it holds over each step (constant force: exact quadratic motion).
pub fn cosimulate(fmu: &Arc<Fmu>, h: f64, coupling: ImpactCoupling) -> Result<Impact, String> {
    cosimulate_set(fmu, h, coupling, &[])
}

/// [`cosimulate`] with more parameters set by name (Integers and Enumerations as f64).
pub fn cosimulate_set(
    fmu: &Arc<Fmu>,
    h: f64,
    coupling: ImpactCoupling,
    parameters: &[(&str, f64)],
) -> Result<Impact, String> {
    let mut gap = Instance::new(fmu, "impact");
    let check = |status: Status, what: &str| {
        if status == Status::Ok {
            Ok(())
        } else {
            Err(format!("{what} returned {status:?}"))
        }
    };
    check(gap.setup_experiment(None, 0.0, None), "fmi2SetupExperiment")?;
    check(
        gap.enter_initialization_mode(),
        "fmi2EnterInitializationMode",
    )?;
    let [c, d, s_b, v_b, f, f_mean, e_loss] = [
        "c",
        "d",
        "flange_b.s",
        "flange_b.v",
        "f",
        "f_mean",
        "E_loss",
    ]
    .map(|name| gap.vr(name, VarType::Real));
    check(gap.set_real(&[c, d], &[C, D]), "fmi2SetReal(c, d)")?;
    for &(name, value) in parameters {
        check(gap.set_by_name(name, value), name)?;
    }
    let (mut x, mut v) = (GAP, -SPEED);
    check(gap.set_real(&[s_b, v_b], &[x, v]), "fmi2SetReal(inputs)")?;
    check(gap.exit_initialization_mode(), "fmi2ExitInitializationMode")?;

    let steps = (STOP_TIME / h).round() as usize;
    for k in 0..steps {
        let t = k as f64 * h;
        check(gap.set_real(&[s_b, v_b], &[x, v]), "fmi2SetReal(inputs)")?;
        let (status, start) = gap.get_real(&[f]);
        check(status, "fmi2GetReal(f)")?;
        if coupling == ImpactCoupling::MeanForceWithDerivatives {
            let acceleration = -start[0] / MASS;
            check(
                gap.set_real_input_derivatives(&[v_b], &[1], &[acceleration]),
                "fmi2SetRealInputDerivatives",
            )?;
        }
        check(gap.do_step(t, h, true), "fmi2DoStep")?;
        let force = match coupling {
            ImpactCoupling::Naive => start[0],
            _ => {
                let (status, mean) = gap.get_real(&[f_mean]);
                check(status, "fmi2GetReal(f_mean)")?;
                mean[0]
            }
        };
        let a = -force / MASS;
        x += h * (v + 0.5 * a * h);
        v += a * h;
    }
    let (status, dissipated) = gap.get_real(&[e_loss]);
    check(status, "fmi2GetReal(E_loss)")?;
    Ok(Impact {
        restitution: v / SPEED,
        dissipated: dissipated[0],
    })
}

/// What a run of [`cosimulate_with_mass`] gives besides the impact.
#[derive(Clone, Debug)]
pub struct MassRun {
    pub impact: Impact,
    /// The output `m_eff_estimate` at the end (0 until a contact completed).
    pub m_eff_estimate: f64,
    /// The messages logged under `logCoupling`.
    pub coupling_messages: Vec<String>,
    /// Communication steps taken.
    pub steps: usize,
}

/// Where the mass starts: `GAP` plus `STEPS_BEFORE_CONTACT` steps of free flight from the gap,
/// so that the first contact is not in the first step (before it a Jacobi master holds the
/// `f_next` of the initialization, 0) and starts in the middle of a step.
pub const STEPS_BEFORE_CONTACT: f64 = 3.5;
/// Steps after the contact's end, for the FMU's corrections of the master's motion to finish.
pub const STEPS_AFTER_CONTACT: usize = 8;

/// Co-simulates the impact with communication step `h` and the parameter `m_eff` (0: the FMU
/// estimates the mass from the master's answer), the master holding the force `master` names and
/// moving the mass exactly under it (constant force: exact quadratic motion). The mass starts
/// [`STEPS_BEFORE_CONTACT`] steps away from the gap, and the run ends [`STEPS_AFTER_CONTACT`] steps
/// after the contact: any `h` works, from a tenth of the contact to many contact durations.
pub fn cosimulate_with_mass(
    fmu: &Arc<Fmu>,
    h: f64,
    m_eff: f64,
    master: Master,
) -> Result<MassRun, String> {
    let parameters = [("c", C), ("d", D), ("m_eff", m_eff)];
    cosimulate_with_parameters(fmu, h, &parameters, contact_duration(), master)
}

/// [`cosimulate_with_mass`] with any parameter settings (by name, Integers and Enumerations as
/// f64) and a contact expected to last about `duration`, which sets how long the run is.
pub fn cosimulate_with_parameters(
    fmu: &Arc<Fmu>,
    h: f64,
    parameters: &[(&str, f64)],
    duration: f64,
    master: Master,
) -> Result<MassRun, String> {
    // This master steps the gap first or both at once; the body-first ordering lives in masters.rs.
    assert!(
        matches!(master, Master::GaussSeidel | Master::Jacobi),
        "not run here"
    );
    let mut gap = Instance::new(fmu, "impact");
    let check = |status: Status, what: &str| {
        if status == Status::Ok {
            Ok(())
        } else {
            Err(format!("{what} returned {status:?}"))
        }
    };
    check(
        gap.set_debug_logging(true, &["logCoupling"]),
        "fmi2SetDebugLogging(logCoupling)",
    )?;
    check(gap.setup_experiment(None, 0.0, None), "fmi2SetupExperiment")?;
    check(
        gap.enter_initialization_mode(),
        "fmi2EnterInitializationMode",
    )?;
    let [s_b, v_b, f_mean, f_next, e_loss, estimate] = [
        "flange_b.s",
        "flange_b.v",
        "f_mean",
        "f_next",
        "E_loss",
        "m_eff_estimate",
    ]
    .map(|name| gap.vr(name, VarType::Real));
    for &(name, value) in parameters {
        check(
            gap.set_by_name(name, value),
            &format!("fmi2Set*({name} = {value})"),
        )?;
    }
    let (mut x, mut v) = (GAP + SPEED * STEPS_BEFORE_CONTACT * h, -SPEED);
    check(gap.set_real(&[s_b, v_b], &[x, v]), "fmi2SetReal(inputs)")?;
    check(gap.exit_initialization_mode(), "fmi2ExitInitializationMode")?;

    // The flight to the gap, the contact, and the steps after it.
    let steps =
        (STEPS_BEFORE_CONTACT + (GAP / SPEED + duration) / h).ceil() as usize + STEPS_AFTER_CONTACT;
    for k in 0..steps {
        let t = k as f64 * h;
        check(gap.set_real(&[s_b, v_b], &[x, v]), "fmi2SetReal(inputs)")?;
        let held_next = if master == Master::Jacobi {
            let (status, next) = gap.get_real(&[f_next]);
            check(status, "fmi2GetReal(f_next)")?;
            Some(next[0])
        } else {
            None
        };
        check(gap.do_step(t, h, true), "fmi2DoStep")?;
        let force = match held_next {
            Some(force) => force,
            None => {
                let (status, mean) = gap.get_real(&[f_mean]);
                check(status, "fmi2GetReal(f_mean)")?;
                mean[0]
            }
        };
        let a = -force / MASS;
        x += h * (v + 0.5 * a * h);
        v += a * h;
    }
    let (status, outputs) = gap.get_real(&[e_loss, estimate]);
    check(status, "fmi2GetReal(E_loss, m_eff_estimate)")?;
    let coupling_messages = gap
        .logs()
        .into_iter()
        .filter(|r| r.category.as_deref() == Some("logCoupling"))
        .map(|r| r.message)
        .collect();
    Ok(MassRun {
        impact: Impact {
            restitution: v / SPEED,
            dissipated: outputs[0],
        },
        m_eff_estimate: outputs[1],
        coupling_messages,
        steps,
    })
}
