//! Model Exchange's face: the event indicators, the continuous states (`E_loss` and the stiction
//! deformation) and their derivatives, and what an event updates. The discrete variables
//! (`contact`, whether the friction sticks, whether its deformation lies on the stiction circle)
//! change only at events, so the outputs read the values the last event took, not the inputs of
//! the moment; the end of initialization (`begin_run`) serves both interfaces.

use super::{ElastoGap, Interface};
use crate::laws::{distance_outside, distance_outside_and_rate, dot, slip_speed, ContactLaw};
use crate::variables::{EventIndicator, Var, EVENT_INDICATORS, STATES};

/// What an event changed (Model Exchange).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EventUpdate {
    pub contact_changed: bool,
    /// The continuous states were set anew.
    pub states_changed: bool,
}

impl ElastoGap {
    /// Model Exchange: the event indicators in the order of `EVENT_INDICATORS`.
    pub fn event_indicators(&mut self) -> [f64; EVENT_INDICATORS.len()] {
        self.evaluate_inputs_now();
        self.indicators()
    }

    /// [`Self::event_indicators`] at the inputs as they stand.
    pub(super) fn indicators(&self) -> [f64; EVENT_INDICATORS.len()] {
        let motion = self.motion();
        EVENT_INDICATORS.map(|indicator| match indicator {
            EventIndicator::Contact => distance_outside(self.law().contact_ends(), motion.s),
            EventIndicator::Kink => self.law().kink_indicator(motion.s, motion.v),
            EventIndicator::StickSlip => match self.stiction_deformation_limit() {
                Some(_) if self.contact_at_event => {
                    slip_speed(self.inputs.v_t) - self.parameters.friction.v_s
                }
                _ => 1.0,
            },
            EventIndicator::StictionCircle => match self.stiction_deformation_limit() {
                Some(delta) if self.model_exchange.sticking_at_event && self.contact_at_event => {
                    let radius = slip_speed(self.stiction);
                    let v = self.inputs.v_t;
                    if self.model_exchange.on_stiction_circle && radius > 0.0 {
                        dot(v, self.stiction) / radius
                    } else {
                        delta - radius
                    }
                }
                _ => 1.0,
            },
        })
    }

    /// Model Exchange: the continuous states in the order of `STATES`.
    pub fn continuous_states(&self) -> [f64; STATES.len()] {
        STATES.map(|(state, _)| self.value(state))
    }

    pub fn set_continuous_states(&mut self, states: &[f64; STATES.len()]) {
        for ((state, _), value) in STATES.iter().zip(states) {
            match state {
                Var::ELoss => self.e_loss = *value,
                Var::XiX => self.stiction[0] = *value,
                Var::XiY => self.stiction[1] = *value,
                other => unreachable!("{other:?} is not a continuous state"),
            }
        }
    }

    /// Model Exchange: the state derivatives in the order of `STATES`.
    pub fn derivatives(&mut self) -> [f64; STATES.len()] {
        self.evaluate_inputs_now();
        STATES.map(|(_, derivative)| self.value(derivative))
    }

    /// Model Exchange: takes the values of the discrete variables at an event (or at the end of
    /// initialization). Returns whether the contact changed.
    pub fn update_at_event(&mut self) -> bool {
        self.update_discrete_states().contact_changed
    }

    /// [`Self::update_at_event`], also telling whether the continuous states were set anew (the
    /// stiction deformation: released out of contact, along the slip where slipping turns to
    /// sticking, onto the circle where it reached it).
    pub fn update_discrete_states(&mut self) -> EventUpdate {
        self.evaluate_inputs_now();
        let contact_changed = self.update_contact_at_event();
        let before = self.stiction;
        match self.stiction_deformation_limit() {
            Some(delta) if self.contact_at_event => {
                let v = self.inputs.v_t;
                let sticks = slip_speed(v) < self.parameters.friction.v_s;
                if sticks && !self.model_exchange.sticking_at_event && !contact_changed {
                    // From slipping: the deformation slipping left.
                    self.stiction = self.parameters.friction.deformation_after_slip(v);
                }
                let radius = slip_speed(self.stiction);
                let outward = dot(v, self.stiction) > 0.0;
                self.model_exchange.on_stiction_circle =
                    sticks && radius >= delta * (1.0 - 1e-9) && outward;
                if self.model_exchange.on_stiction_circle {
                    self.stiction = self.stiction.map(|x| x * delta / radius);
                }
                self.model_exchange.sticking_at_event = sticks;
            }
            _ => {
                self.stiction = [0.0; 2];
                self.model_exchange.sticking_at_event = false;
                self.model_exchange.on_stiction_circle = false;
            }
        }
        EventUpdate {
            contact_changed,
            states_changed: self.stiction != before,
        }
    }

    /// The contact at an event; whether it changed.
    fn update_contact_at_event(&mut self) -> bool {
        let motion = self.motion();
        let spring = &self.parameters.spring;
        // A solver reports a contact event at a located root, which may lie a rounding error on
        // either side of a contact end. There the side the motion is heading to decides, or
        // contact would stay unset until the next event although the flanges are pressing in.
        let ends = self.law().contact_ends();
        let (gap, gap_rate) = distance_outside_and_rate(ends, motion.s, motion.v);
        // On an end, |s_rel| is the end's magnitude.
        let at_boundary = gap.abs() <= 1e-9 * spring.s_ref.max(motion.s.abs());
        let contact = if at_boundary {
            gap_rate < 0.0
        } else {
            gap < 0.0
        };
        let changed = contact != self.contact_at_event;
        self.contact_at_event = contact;
        if changed && contact {
            self.touchdown_speed = -motion.v;
        }
        self.f_mean = self.forces().f;
        changed
    }

    /// The end of initialization, in either interface: a contact under way at the start counts
    /// as touched down at the start's approach speed.
    pub fn begin_run(&mut self) {
        self.evaluate_inputs_now();
        let motion = self.motion();
        self.model_exchange.port_origin = motion.s;
        if self.inputs_set && self.interface == Interface::CoSimulation {
            self.co_simulation
                .coupling
                .remember_the_initial_motion(self.observed());
        }

        if distance_outside(self.law().contact_ends(), motion.s) < 0.0 {
            self.touchdown_speed = -motion.v;
        }
    }

    /// Model Exchange: an accepted integrator step; `f_mean` holds the force there.
    pub fn completed_integrator_step(&mut self) {
        self.evaluate_inputs_now();
        self.f_mean = self.forces().f;
    }
}
