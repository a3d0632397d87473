//! One ElastoGap instance as the co-simulation slave sees it: parameters, inputs, the input history
//! used to estimate accelerations, and what the last steps produced. Pure Rust: the FMI layer maps
//! the variable table onto it and knows nothing of the physics.
//!
//! This file holds the instance ([`ElastoGap`]) with the state both interfaces share, the types
//! its parts share and the accessors every part reads (the motion now, the law, its forces). What
//! belongs to one interface is in that interface's part (`parts`: [`CoSimulation`], which owns
//! the coupling, and [`ModelExchange`]). The files, one concern each:
//!
//! - `parameters`: the parameters, their defaults and their rules ([`ElastoGap::check_parameters`]);
//! - `parts`: the co-simulation and Model Exchange state, and their views for the serialized state;
//! - `acceleration`: the flanges' acceleration over a step, from the input history or as supplied;
//! - `access`: the variable table's values (`value`, `read`, `set_value`);
//! - `master`: what the instance knows of the master: the force it holds, its motion now, the
//!   mass it moves;
//! - `do_step`: the co-simulation step: the check of the step a master asks for, what it learns
//!   from the master, which integration it takes, the bound on the forces it hands out, its
//!   test that everything it leaves is finite, and what it keeps;
//! - `normal_step`: the normal contact over the step, along the extrapolated motion (kinematic)
//!   or through an effective mass (dynamic);
//! - `early_return`: a step that stops at the contact's first switch, and the switch in event
//!   mode, for a layer that offers early return;
//! - `prescribed`: the step of a motion the user declared prescribed;
//! - `tangential`: the tangential force at an instant, and whether the friction sticks;
//! - `tangential_step`: the tangential force over a step (sliding, stick-slip, through the slip's
//!   mass);
//! - `notes`: what a step has to say, as text: the warnings, the coupling's notes and the
//!   contact's switches;
//! - `model_exchange`: Model Exchange's events, states and derivatives;
//! - `slopes`: the outputs' partial derivatives and time derivatives.
//!
//! Invariants: every output a step leaves is finite (a step that would leave one that is not is
//! refused: [`NonFiniteStep`]); the step (`do_step` and what it calls) allocates nothing and logs
//! nothing; src/snapshot.rs writes and reads the fields of [`ElastoGap`] and its parts by name in
//! a fixed order (the FMU state's format), so a field renamed or retyped breaks that format.

use std::sync::Arc;

use crate::coupling::Told;
use crate::laws::{ContactLaw, Forces, GapTables, Law};
use crate::step::{Motion, StepIntegral, SubstepLimits};
use crate::variables::{by_var, Var};

mod acceleration;
mod access;
mod do_step;
mod early_return;
mod input_derivatives;
mod master;
mod model_exchange;
mod normal_step;
mod notes;
mod parameters;
mod parts;
mod prescribed;
mod refusal;
mod slopes;
mod tangential;
mod tangential_step;
#[cfg(test)]
mod tests;

pub use acceleration::{AccelerationEstimate, SuppliedAccelerations, VelocityHistory};
pub use early_return::{Switch, MAX_CUTS};
pub use model_exchange::EventUpdate;
pub use parameters::{Number, Parameters, RuleViolation};
pub use parts::{CoSimulation, CoSimulationSerialized, ModelExchange, ModelExchangeSerialized};

/// Absolute positions and velocities of the two flanges, as the master set them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Inputs {
    pub s_a: f64,
    pub v_a: f64,
    pub s_b: f64,
    pub v_b: f64,
    /// Tangential (slip) velocity of flange_b relative to flange_a in the contact plane (x, y).
    pub v_t: [f64; 2],
    /// The instant each flange's position (a, b) was given for: the time of the first evaluation
    /// after the master set it (None until then). A master may set a position before or after it
    /// sets the time, and need not set it again for every evaluation: FMI lets an input keep its
    /// value, and fmusim sets none after an early return nor before the event indicators.
    pub given_at: [Option<f64>; 2],
}

impl Inputs {
    /// The relative position and velocity at `time`: a position not set since the instant it was
    /// given for is the motion given then, continued at its flange's velocity.
    #[inline(always)]
    pub fn relative_at(&self, time: f64) -> (f64, f64) {
        let s_a = continued(self.s_a, self.v_a, self.given_at[0], time);
        let s_b = continued(self.s_b, self.v_b, self.given_at[1], time);
        (s_b - s_a, self.v_b - self.v_a)
    }

    /// The positions set since the last evaluation are the motion at `time`.
    #[inline(always)]
    pub fn take_effect_at(&mut self, time: f64) {
        for given_at in &mut self.given_at {
            given_at.get_or_insert(time);
        }
    }
}

/// A position `s` given for `given_at` and moving at `v`, at `time` (itself where nothing moved).
#[inline(always)]
fn continued(s: f64, v: f64, given_at: Option<f64>, time: f64) -> f64 {
    match given_at {
        Some(at) if at != time && v != 0.0 => s + v * (time - at),
        _ => s,
    }
}

/// Which FMI interface the instance serves; it decides what the step-related outputs mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interface {
    /// The FMU steps itself over communication intervals and integrates the contact inside them.
    #[default]
    CoSimulation,
    /// The importer's solver integrates `E_loss`; the outputs are functions of the inputs now.
    ModelExchange,
}

/// One instance of the FMU, in either interface: the state both share here, each interface's
/// own in its part ([`CoSimulation`], [`ModelExchange`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ElastoGap {
    pub interface: Interface,
    pub parameters: Parameters,
    pub(crate) inputs: Inputs,
    pub supplied: SuppliedAccelerations,
    pub(crate) history: VelocityHistory,
    pub time: f64,
    /// The mean contact force over the last co-simulation step, or Model Exchange's force at
    /// the last event or accepted integrator step.
    pub(crate) f_mean: f64,
    /// With stick–slip: the friction's stiction deformation (m, x and y), the spring a sticking
    /// contact's friction is; 0 out of contact (a continuous state under Model Exchange).
    pub(crate) stiction: [f64; 2],
    /// The energy dissipated (J, `E_loss`; a continuous state under Model Exchange).
    pub(crate) e_loss: f64,
    /// Model Exchange: the contact as of the last event. A discrete variable changes only at events,
    /// so `contact` reports this rather than the inputs of the moment. Kept here, not in
    /// [`ModelExchange`]: the FMI layers read it.
    pub contact_at_event: bool,
    /// The approach speed (`-v_rel`) at the touch-down of the last contact, for laws whose
    /// parameters depend on the impact speed (Hunt–Crossley with `e`); 0 before any.
    pub(crate) touchdown_speed: f64,
    /// The Gap Force's tables, read from `tableFile` when the parameters took effect; shared with
    /// the FMU states taken since (they cannot change while the instance runs).
    pub tables: Option<Arc<GapTables>>,
    /// Whether the master has set a flange input (before the end of initialization, what the
    /// first step compares its inputs with).
    pub(crate) inputs_set: bool,
    pub(crate) co_simulation: CoSimulation,
    pub(crate) model_exchange: ModelExchange,
}

/// The contact's duration (s) through `mass` (kg) at the relative `speed` (m/s) it was found for,
/// kept until the mass changes or the speed grows by a tenth (four law evaluations and two powers
/// each time). Not part of the serialized FMU state (found again after a deserialization).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactTime {
    pub mass: f64,
    pub speed: f64,
    pub duration: f64,
}

/// What one co-simulation step did, for the FMI layer's log.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    pub integral: StepIntegral,
    /// Integrated with an effective mass (given or estimated) rather than along the extrapolated
    /// motion.
    pub dynamic: bool,
    /// Without a mass: a contact started and ended inside this step, lasting this long (s).
    pub contact_within_step: Option<f64>,
    /// Without a mass: a contact new to the master only grazed this step and was held in full;
    /// the next step probes it.
    pub grazed: bool,
    /// A contact completed in the last step and gave this effective-mass estimate (kg).
    pub new_estimate: Option<f64>,
    /// The master's relative speed at the start of the contact behind `new_estimate` (m/s).
    pub approach_speed: f64,
    /// What the master's answers in the tangential plane told about the slip's mass: a new one
    /// (the friction is integrated through it from this step on), or that they contradict it.
    pub tangential_told: Option<Told>,
    /// The contact was replayed with a newly adopted mass: what the master still owed then
    /// (relative position in m, velocity in m/s), removed over the next two steps.
    pub replayed_owed: Option<(f64, f64)>,
    /// ... and by how much `E_loss` had over-reported that contact's dissipation (J; negative if
    /// it under-reported): taken back from `E_loss` in this step.
    pub replayed_e_loss_excess: f64,
    /// The energy the tangential friction took over the step (J), part of `integral.dissipated`.
    pub friction_energy: f64,
    /// A contact step's answer gave this effective mass (kg), against the mass in use (kg, 0 for
    /// none), which it replaced: reported once per contact with status warning.
    pub mass_disagreement: Option<(f64, f64)>,
    /// The passivity controller's force this step (N), where the port had returned more energy
    /// than the contact dissipated, and that excess (J).
    pub passivity_force: f64,
    pub passivity_deficit: f64,
    /// Left to tell (Auto), the master's motion answered no probe: it is prescribed from this
    /// step on (reported once per run, with status warning).
    pub prescribed_motion_found: bool,
    /// The answers showed that the master holds `f_mean` one step late: `f_mean` is handed out as
    /// `f_next` from this step on (reported once per run, with status warning).
    pub late_mean_found: bool,
    /// The port's bound cut a force only because the master reads both forces and its answers
    /// have not told which one it holds (reported once per run, with status warning).
    pub cut_for_want_of_a_reading: bool,
}

/// A step refused because its force, motion, energy or prediction is not finite: the inputs,
/// parameters or step size are out of the law's numeric range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NonFiniteStep;

impl Default for ElastoGap {
    fn default() -> Self {
        ElastoGap {
            interface: Interface::default(),
            parameters: Parameters::default(),
            inputs: Inputs {
                s_a: by_var(Var::FlangeAS).start.unwrap_or(0.0),
                v_a: by_var(Var::FlangeAV).start.unwrap_or(0.0),
                s_b: by_var(Var::FlangeBS).start.unwrap_or(0.0),
                v_b: by_var(Var::FlangeBV).start.unwrap_or(0.0),
                v_t: [Var::VTx, Var::VTy].map(|var| by_var(var).start.unwrap_or(0.0)),
                given_at: [None; 2],
            },
            supplied: SuppliedAccelerations::default(),
            history: VelocityHistory::default(),
            time: 0.0,
            f_mean: 0.0,
            stiction: [0.0; 2],
            e_loss: 0.0,
            contact_at_event: false,
            touchdown_speed: 0.0,
            tables: None,
            inputs_set: false,
            co_simulation: CoSimulation::default(),
            model_exchange: ModelExchange::default(),
        }
    }
}

impl ElastoGap {
    pub fn new(interface: Interface, start_time: f64) -> Self {
        ElastoGap {
            interface,
            time: start_time,
            ..ElastoGap::default()
        }
    }

    /// The relative motion the direct-feedthrough outputs are evaluated at.
    pub fn motion(&self) -> Motion {
        self.co_simulation.end_of_step.unwrap_or_else(|| {
            let (s, v) = self.inputs.relative_at(self.time);
            Motion { s, v, a: 0.0 }
        })
    }

    /// An evaluation at `self.time` begins: the positions set since the last one are given for
    /// now (the rule for inputs not set again: [`Inputs::relative_at`]).
    #[inline(always)]
    pub(crate) fn evaluate_inputs_now(&mut self) {
        self.inputs.take_effect_at(self.time);
    }

    /// The law the parameters choose, as the contact under way sees it.
    pub fn law(&self) -> Law<'_> {
        self.law_with(self.tables.as_deref())
    }

    /// [`Self::law`] with the tables borrowed from elsewhere (a clone of the instance's `Arc`),
    /// so that the law does not borrow the instance while a step changes it.
    pub(crate) fn law_with<'t>(&self, tables: Option<&'t GapTables>) -> Law<'t> {
        Law::new(
            self.parameters.spring,
            &self.parameters.options,
            self.touchdown_speed,
            tables,
        )
    }

    /// The law's values at the motion now, the friction's power in `loss_power`.
    pub fn forces(&self) -> Forces {
        let motion = self.motion();
        let mut forces = self.law().evaluate(motion.s, motion.v);
        forces.loss_power += self.tangential_force(&forces).loss_power;
        forces
    }

    /// The limits the integrators hold a step's substeps to (`maxSubstepSize`,
    /// `maxSubstepCount`, `relativeTolerance`).
    pub fn substep_limits(&self) -> SubstepLimits {
        SubstepLimits {
            max_size: self.parameters.max_substep_size,
            max_count: self.parameters.max_substep_count.max(1) as u32,
            tolerance: self.parameters.relative_tolerance,
        }
    }

    /// The heat flow into the heat port for a dissipated power: all of it leaves there if the port
    /// is used.
    fn heat_flow(&self, dissipated_power: f64) -> f64 {
        if self.parameters.use_heat_port {
            -dissipated_power
        } else {
            0.0
        }
    }
}
