//! The instance's state that belongs to one interface: what the co-simulation steps keep
//! ([`CoSimulation`]: the last step's outputs, the coupling, early return's step grid) and what
//! Model Exchange keeps between events ([`ModelExchange`]). The state both share (the inputs,
//! the time, `f_mean`, `E_loss`, the stiction deformation) is the instance's own.
//!
//! The fields are the model's to read and write (its files are the parts' methods); outside it,
//! only the serialized state reaches them, through each part's view (`serialized`).

use super::{ContactTime, ElastoGap};
use crate::coupling::{serialized_view, Coupling, TangentialAnswers};
use crate::step::Motion;

/// What the co-simulation steps keep.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoSimulation {
    /// The relative motion at the end of the last step, where the direct-feedthrough outputs are
    /// evaluated until the master sets an input again.
    pub(super) end_of_step: Option<Motion>,
    /// The mean tangential friction force over the last step (x, y).
    pub(super) f_t_mean: [f64; 2],
    /// With stick–slip: the tangential port's account over the contact, what it received and
    /// what of that the contact dissipated (J).
    pub(super) tangential_account: [f64; 2],
    /// With friction: the master's answers in the tangential plane and the mass they tell,
    /// through which the friction is integrated once known.
    pub(super) tangential_answers: TangentialAnswers,
    /// The heat port's mean flow over the last step (W).
    pub(super) q_flow_mean: f64,
    /// The last step's length (s; 0 before the first).
    pub(super) last_step_size: f64,
    /// The model of the relative motion behind `f_mean` and `f_next`.
    pub(super) coupling: Coupling,
    /// The contact's duration through the mass in use, for the short-step gate.
    pub(super) contact_time: ContactTime,
    /// At a switch a step stopped at (an early return): the value `contact` reads there until
    /// the next step, before the switch or, once taken in event mode, after it.
    pub(super) contact_latch: Option<bool>,
    /// With early return: the master's regular step, the one it asked for last where it did not
    /// resume after an early return (0 before any).
    pub(super) grid_step: f64,
    /// The length of the step `f_next` is predicted over where it is not this step's: set for
    /// one step by [`ElastoGap::do_step_to_switch`], none otherwise.
    pub(super) next_step: Option<f64>,
}

/// What Model Exchange keeps between events (the contact at the last event is the instance's
/// `contact_at_event`, which the FMI layers read).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ModelExchange {
    /// With stick–slip: whether the contact stuck at the last event, and whether its
    /// deformation lay on the stiction circle there, pushed out by the slip.
    pub(super) sticking_at_event: bool,
    pub(super) on_stiction_circle: bool,
    /// `s_rel` at the end of initialization, from where `E_port` counts the spring's energy.
    pub(super) port_origin: f64,
}

serialized_view! {
    /// The co-simulation fields the serialized state keeps, the coupling as a whole (it gives
    /// its own view). Not kept: `contact_time` and `next_step`, found again by the next step.
    CoSimulationSerialized for CoSimulation {
        end_of_step: Option<Motion> = end_of_step,
        f_t_mean: [f64; 2] = f_t_mean,
        tangential_account: [f64; 2] = tangential_account,
        tangential_answers: TangentialAnswers = tangential_answers,
        q_flow_mean: f64 = q_flow_mean,
        last_step_size: f64 = last_step_size,
        coupling: Coupling = coupling,
        contact_latch: Option<bool> = contact_latch,
        grid_step: f64 = grid_step,
    }
}

serialized_view! {
    /// The Model Exchange fields the serialized state keeps: all of them.
    ModelExchangeSerialized for ModelExchange {
        sticking_at_event: bool = sticking_at_event,
        on_stiction_circle: bool = on_stiction_circle,
        port_origin: f64 = port_origin,
    }
}

impl ElastoGap {
    /// The heat port's mean flow over the last co-simulation step (W), which a restored state
    /// is checked against.
    pub(crate) fn heat_flow_mean(&self) -> f64 {
        self.co_simulation.q_flow_mean
    }

    /// Whether the coupling keeps the rules between its fields that a running instance keeps
    /// (`may_pull`: the force law may pull).
    pub(crate) fn coupling_keeps_its_rules(&self, may_pull: bool) -> bool {
        self.co_simulation.coupling.keeps_its_rules(may_pull)
    }

    /// The tangential port's account over the contact (J): what it received and what of that
    /// the contact dissipated.
    pub(crate) fn tangential_port_account(&self) -> [f64; 2] {
        self.co_simulation.tangential_account
    }
}
