//! The serialized state's slots: one description of every field of the state, in slot order,
//! from which the one visit both `write` and `read` walk is generated.
//!
//! Each slot is one `f64`. A line `kind(place, ...)` stores the field `place` the way `kind`
//! says, in as many slots as the kind takes, and tells `read` what it accepts there: every slot
//! must be finite, and a kind's [`Rule`] may ask more (a flag is 0 or 1, a count a whole number
//! in its range) before the value is cast back. The order is the format: a new field is one line
//! at the end, with `FIELD_COUNT` grown by its slots and the format version raised. A field moved
//! or removed changes every slot after it. The slots named by constants (here and in the unit
//! tests, which corrupt them) are checked against the description by a unit test.

use std::ops::RangeInclusive;
use std::sync::Arc;

use crate::coupling::{AnswerWindow, Pace, Prediction, WINDOW};
use crate::laws::GapTables;
use crate::model::{ElastoGap, Interface};

/// Number of f64 slots after the header: the slots the description below takes.
pub const FIELD_COUNT: usize = 354;
/// The slot that names the interface (1 for Model Exchange, 0 for co-simulation).
pub const INTERFACE_SLOT: usize = 34;
/// The slot of `contact` latched at a switch a step returned early at ([`latch`]).
pub const CONTACT_LATCH_SLOT: usize = 148;
/// The slots of the tables' fingerprint, its high and low 32 bits (0: no tables).
pub const FINGERPRINT_SLOTS: [usize; 2] = [93, 94];

/// What `read` accepts in a slot, besides a finite value.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    Real,
    /// Masses, step sizes, distances and dissipated energies.
    NonNegative,
    /// Flags, counts and enumerations: exact small integers before they are cast.
    Whole {
        lo: f64,
        hi: f64,
    },
}

impl Rule {
    pub fn admits(self, value: f64) -> bool {
        value.is_finite()
            && match self {
                Rule::Real => true,
                Rule::NonNegative => value >= 0.0,
                Rule::Whole { lo, hi } => value >= lo && value <= hi && value.fract() == 0.0,
            }
    }

    fn whole(range: RangeInclusive<i64>) -> Rule {
        Rule::Whole {
            lo: *range.start() as f64,
            hi: *range.end() as f64,
        }
    }
}

/// Called once per slot, in slot order: `write` reads the value, `read` sets it.
pub type Visitor<'a> = dyn FnMut(&mut f64, Rule) + 'a;

/// An integer parameter: only integrality here; its range is the variable table's rule, checked
/// once the state is read.
const ANY_I32: RangeInclusive<i64> = i32::MIN as i64..=i32::MAX as i64;
/// A count kept in a `u32`, and each half of the tables' fingerprint.
const ANY_U32: RangeInclusive<i64> = 0..=u32::MAX as i64;

/// Plain reals, one slot each, in their fields' order.
trait Reals {
    fn each(&mut self, visitor: &mut Visitor<'_>, rule: Rule);
}

impl Reals for f64 {
    fn each(&mut self, visitor: &mut Visitor<'_>, rule: Rule) {
        visitor(self, rule);
    }
}

impl<T: Reals, const N: usize> Reals for [T; N] {
    fn each(&mut self, visitor: &mut Visitor<'_>, rule: Rule) {
        for value in self.iter_mut() {
            value.each(visitor, rule);
        }
    }
}

impl Reals for (f64, f64) {
    fn each(&mut self, visitor: &mut Visitor<'_>, rule: Rule) {
        visitor(&mut self.0, rule);
        visitor(&mut self.1, rule);
    }
}

/// Any finite reals.
fn real<T: Reals>(visitor: &mut Visitor<'_>, place: &mut T) {
    place.each(visitor, Rule::Real);
}

fn nonnegative(visitor: &mut Visitor<'_>, place: &mut f64) {
    visitor(place, Rule::NonNegative);
}

/// A flag as 0 or 1.
fn flag(visitor: &mut Visitor<'_>, place: &mut bool) {
    let mut value = f64::from(u8::from(*place));
    visitor(&mut value, Rule::whole(0..=1));
    *place = value != 0.0;
}

/// A flag as 0 or 1, read back as set from any finite value but 0 (not held to 0 or 1).
fn loose_flag(visitor: &mut Visitor<'_>, place: &mut bool) {
    let mut value = f64::from(u8::from(*place));
    visitor(&mut value, Rule::Real);
    *place = value != 0.0;
}

/// The integer types a count or an enumeration is kept in.
trait Whole: Copy {
    fn to_f64(self) -> f64;
    fn from_f64(value: f64) -> Self;
}

impl Whole for i32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(value: f64) -> Self {
        value as i32
    }
}

impl Whole for u32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(value: f64) -> Self {
        value as u32
    }
}

impl Whole for usize {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(value: f64) -> Self {
        value as usize
    }
}

/// A count or an enumeration, a whole number in `lo..=hi`.
fn whole<T: Whole>(visitor: &mut Visitor<'_>, place: &mut T, range: RangeInclusive<i64>) {
    let mut value = place.to_f64();
    visitor(&mut value, Rule::whole(range));
    *place = T::from_f64(value);
}

/// Whether a value is present (a flag), then the reals `fields` names in it (their defaults where
/// absent).
fn optional<T: Default + Copy, const N: usize>(
    visitor: &mut Visitor<'_>,
    place: &mut Option<T>,
    fields: fn(&mut T) -> [&mut f64; N],
) {
    let mut present = place.is_some();
    let mut value = place.unwrap_or_default();
    flag(visitor, &mut present);
    for field in fields(&mut value) {
        visitor(field, Rule::Real);
    }
    *place = present.then_some(value);
}

/// The interface as a flag: set for Model Exchange.
fn interface(visitor: &mut Visitor<'_>, place: &mut Interface) {
    let mut model_exchange = *place == Interface::ModelExchange;
    flag(visitor, &mut model_exchange);
    *place = if model_exchange {
        Interface::ModelExchange
    } else {
        Interface::CoSimulation
    };
}

/// `f_next`, made: `write` makes it first, and it is read back as made.
fn prediction(visitor: &mut Visitor<'_>, place: &mut Prediction) {
    let mut force = match *place {
        Prediction::Known(force) => force,
        _ => f64::NAN,
    };
    visitor(&mut force, Rule::Real);
    *place = Prediction::Known(force);
}

/// Which force the master holds: -1 unknown, 0 `f_mean`, 1 `f_next`.
fn which_held(visitor: &mut Visitor<'_>, place: &mut Option<bool>) {
    let mut code = match *place {
        None => -1.0,
        Some(next) => f64::from(u8::from(next)),
    };
    visitor(&mut code, Rule::whole(-1..=1));
    *place = (code >= 0.0).then_some(code != 0.0);
}

/// `contact` latched at a switch a step stopped at: 1 false, 2 true, anything else none. Not held
/// to those codes: in a state of this format the slot may hold a value of a window of answers
/// no part of the model keeps, and such a state must read as the state it was written from.
fn latch(visitor: &mut Visitor<'_>, place: &mut Option<bool>) {
    let mut code = match *place {
        None => 0.0,
        Some(contact) => 1.0 + f64::from(u8::from(contact)),
    };
    visitor(&mut code, Rule::Real);
    *place = match code {
        1.0 => Some(false),
        2.0 => Some(true),
        _ => None,
    };
}

/// A step length, in a slot that may hold a value of a window of answers no part of the model
/// keeps: read back as 0 (none) unless positive, as such a state must read as the state it was
/// written from.
fn leftover_step(visitor: &mut Visitor<'_>, place: &mut f64) {
    visitor(place, Rule::Real);
    if place.is_nan() || *place <= 0.0 {
        *place = 0.0;
    }
}

/// A correction's pace as its code (0 to 2).
fn pace(visitor: &mut Visitor<'_>, place: &mut Pace) {
    let mut code = place.code();
    visitor(&mut code, Rule::whole(0..=2));
    *place = Pace::from_code(code);
}

/// The tables themselves are the instance's: a state names them by their fingerprint, its high
/// and low 32 bits, which `read` returns for the FMI layer to match; read back, they stay none.
fn fingerprint(visitor: &mut Visitor<'_>, place: &mut Option<Arc<GapTables>>) {
    let fingerprint = place.as_ref().map_or(0, |tables| tables.fingerprint);
    let mut high = (fingerprint >> 32) as f64;
    let mut low = (fingerprint & 0xffff_ffff) as f64;
    visitor(&mut high, Rule::whole(ANY_U32));
    visitor(&mut low, Rule::whole(ANY_U32));
}

/// A window of the master's answers: its columns, then its count.
fn window(visitor: &mut Visitor<'_>, place: &mut AnswerWindow) {
    real(visitor, &mut place.times);
    real(visitor, &mut place.positions);
    real(visitor, &mut place.rates);
    real(visitor, &mut place.forces);
    whole(visitor, &mut place.count, 0..=WINDOW as i64);
}

/// Generates `fn $name(model, visitor)` from the lines `kind(place, args)`, each one the call
/// `kind(visitor, &mut place, args)`, in the order given. The fields of the instance's parts and
/// of the coupling are reached through their views for the serialized state (`serialized`),
/// bound first to the names the list gives them.
macro_rules! layout {
    (
        fn $name:ident($model:ident, $visitor:ident);
        views { $(let $part:ident = $view:expr;)* }
        $($kind:ident($place:expr $(, $arg:expr)*);)*
    ) => {
        /// Visits every slot of the state in the one order used for both writing and reading.
        pub fn $name($model: &mut ElastoGap, $visitor: &mut Visitor<'_>) {
            $(let $part = $view;)*
            $($kind($visitor, &mut $place $(, $arg)*);)*
        }
    };
}

layout! {
    fn visit(model, visitor);
    views {
        let co_simulation = model.co_simulation.serialized();
        let coupling = co_simulation.coupling.serialized();
        let model_exchange = model.model_exchange.serialized();
    }

    // The parameters every law shares, and the substeps'.
    real(model.parameters.spring.c);
    real(model.parameters.spring.d);
    real(model.parameters.spring.s_rel0);
    real(model.parameters.spring.n);
    real(model.parameters.spring.s_ref);
    real(model.parameters.spring.f_ref);
    real(model.parameters.max_substep_size);
    flag(model.parameters.use_heat_port);
    whole(model.parameters.max_substep_count, ANY_I32);
    whole(model.parameters.acceleration_estimate, ANY_I32);

    // The flanges' inputs, the accelerations the master supplied, the velocities at the starts
    // of the last two steps.
    real(model.inputs.s_a);
    real(model.inputs.v_a);
    real(model.inputs.s_b);
    real(model.inputs.v_b);
    optional(model.supplied.a, |a| [a]);
    optional(model.supplied.b, |b| [b]);
    whole(model.history.len, 0..=2);
    real(model.history.time);
    real(model.history.v_a);
    real(model.history.v_b);

    // The last step: where it ended and what it gave.
    real(model.time);
    optional(*co_simulation.end_of_step, |end| [&mut end.s, &mut end.v, &mut end.a]);
    real(model.f_mean);
    real(model.e_loss);
    real(*co_simulation.q_flow_mean);
    real(*co_simulation.last_step_size);
    interface(model.interface);
    flag(model.contact_at_event);
    real(model.parameters.m_eff);
    real(model.parameters.relative_tolerance);

    // The coupling: what is owed, the master's last step, the external acceleration, the contact
    // episode, the mass and `f_next`.
    real(*coupling.owed_s);
    real(*coupling.owed_v);
    real(coupling.last.time);
    real(coupling.last.s);
    real(coupling.last.v);
    real(*coupling.last_h);
    real(*coupling.last_force);
    real(*coupling.last_contact_impulse);
    real(*coupling.a_ext_means);
    real(*coupling.a_ext_times);
    whole(*coupling.a_ext_count, 0..=2);
    flag(*coupling.episode_open);
    real(coupling.episode_start.time);
    real(coupling.episode_start.s);
    real(coupling.episode_start.v);
    real(*coupling.episode_a_ext);
    real(*coupling.episode_impulse_if_mean);
    nonnegative(*coupling.mass_estimate);
    flag(*coupling.replay_pending);
    prediction(*coupling.f_next);
    real(*coupling.last_next);
    which_held(*coupling.master_holds_next);
    real(*coupling.assumed_held);
    nonnegative(*coupling.last_estimate);
    whole(*coupling.episode_contact_steps, ANY_U32);
    real(*coupling.episode_impulse_if_next);
    real(*coupling.episode_dissipated);
    real(*coupling.last_dissipated);
    real(coupling.correction.remaining);
    whole(coupling.correction.count, 0..=2);
    real(coupling.correction.expected);
    nonnegative(*coupling.step_estimate);
    nonnegative(*coupling.candidate_estimate);
    real(*coupling.candidate_a_ext_before);
    real(*coupling.candidate_duration);
    real(*coupling.candidate_answered);
    flag(*coupling.f_next_read);

    // The force law's choice and parameters (the Enumerations as their values), and the
    // touch-down speed of the last contact.
    whole(model.parameters.options.force_law, ANY_I32);
    whole(model.parameters.options.hysteresis, ANY_I32);
    real(model.parameters.options.chi);
    real(model.parameters.options.e);
    real(model.parameters.options.v0_min);
    real(model.parameters.options.d_max);
    whole(model.parameters.options.recurdyn_damping, ANY_I32);
    real(model.parameters.options.n_d);
    real(model.parameters.options.rdf);
    real(model.touchdown_speed);
    real(model.parameters.options.n_v);
    real(model.parameters.options.preload);
    real(model.parameters.options.range_min);
    real(model.parameters.options.range_max);
    fingerprint(model.tables);

    // Friction: the slip velocity's x, the law and its parameters, the mean friction's x.
    real(model.inputs.v_t[0]);
    whole(model.parameters.friction.law, ANY_I32);
    whole(model.parameters.friction.interpolation, ANY_I32);
    real(model.parameters.friction.mu_s);
    real(model.parameters.friction.mu_d);
    real(model.parameters.friction.v_s);
    real(model.parameters.friction.v_d);
    real(model.parameters.friction.f_t_max);
    real(co_simulation.f_t_mean[0]);

    // The port's energy and the passivity controller, the correction's pace, Model Exchange's
    // origin of the port energy, and the master's inputs and reads.
    real(*coupling.e_port);
    real(*coupling.passivity_in_next);
    flag(*coupling.disagreement_reported);
    pace(coupling.correction.pace);
    real(*model_exchange.port_origin);
    flag(model.inputs_set);
    optional(*coupling.initial, |at| [&mut at.time, &mut at.s, &mut at.v]);
    real(*coupling.last_held);
    flag(*coupling.f_mean_read);
    flag(*coupling.mass_confirmed);
    flag(coupling.correction.robust);
    real(*coupling.initial_energy);
    real(*coupling.model_loss);

    // The correction plan after the `f_next` made last.
    real(coupling.f_next_continuation.remaining);
    whole(coupling.f_next_continuation.count, 0..=2);
    real(coupling.f_next_continuation.expected);
    pace(coupling.f_next_continuation.pace);

    // The probe without a mass: the impulse and dissipation it held back, the master's motion
    // the step before the last, and what the answers told so far.
    flag(*coupling.probe_pending);
    whole(*coupling.unclear_probes, ANY_U32);
    real(coupling.probe_rest.0);
    nonnegative(coupling.probe_rest.1);
    real(coupling.before_last.time);
    real(coupling.before_last.s);
    real(coupling.before_last.v);
    real(*coupling.last_held_before);
    real(*coupling.e_port_if_next);
    flag(*coupling.next_readable);
    real(coupling.probe_rest_waiting.0);
    nonnegative(coupling.probe_rest_waiting.1);
    flag(*coupling.holds_next_settled);
    nonnegative(*coupling.probe_mass_floor);
    nonnegative(*coupling.a_ext_miss);
    nonnegative(*coupling.rough_answer_mass);
    nonnegative(*coupling.rough_answer_doubt);
    real(*coupling.rough_answer_force);
    flag(*coupling.episode_a_ext_known);
    real(*coupling.unknown_answer);
    real(*coupling.spent);
    latch(*co_simulation.contact_latch);
    leftover_step(*co_simulation.grid_step);
    // The other slots of a window of answers no part of the model keeps: written as zeros, read
    // and dropped, so that the format's size stays.
    real([0.0f64; 4 * WINDOW - 2]);
    real(*coupling.passive_speed);
    real(*coupling.a_free);

    // The tangential plane: the slip velocity's and the mean friction's y, stick-slip (Model
    // Exchange's modes, the stiction deformation, the tangential port's account) and the Gap
    // Force's tangential dampers.
    real(model.inputs.v_t[1]);
    real(co_simulation.f_t_mean[1]);
    real(model.parameters.friction.max_stiction_deformation);
    loose_flag(*model_exchange.sticking_at_event);
    loose_flag(*model_exchange.on_stiction_circle);
    real(model.stiction);
    real(*co_simulation.tangential_account);
    real(model.parameters.gap_dampers.d);
    real(model.parameters.gap_dampers.n);
    real(model.parameters.gap_dampers.preload);

    // The master's answers in the tangential plane and what they told.
    window(co_simulation.tangential_answers.against_same[0]);
    window(co_simulation.tangential_answers.against_same[1]);
    window(co_simulation.tangential_answers.against_before[0]);
    window(co_simulation.tangential_answers.against_before[1]);
    real(co_simulation.tangential_answers.last_time);
    nonnegative(co_simulation.tangential_answers.last_h);
    real(co_simulation.tangential_answers.last_v);
    real(co_simulation.tangential_answers.forces);
    real(co_simulation.tangential_answers.rate);
    real(co_simulation.tangential_answers.rate_before);
    whole(co_simulation.tangential_answers.steps, 0..=3);
    flag(co_simulation.tangential_answers.answered);
    flag(co_simulation.tangential_answers.answered_before);
    nonnegative(co_simulation.tangential_answers.mass);
    flag(co_simulation.tangential_answers.holds_earlier);
    nonnegative(co_simulation.tangential_answers.candidate);
    flag(co_simulation.tangential_answers.candidate_holds_earlier);
    optional(co_simulation.tangential_answers.predicted, |slip| slip.each_mut());
    whole(co_simulation.tangential_answers.misses, 0..=3);

    // The mass the probes take for granted, and the parameter `heldForce`.
    real(*coupling.probe_assumed_mass);
    whole(model.parameters.held_force, ANY_I32);

    // The instants the flanges' positions were given for.
    optional(model.inputs.given_at[0], |at| [at]);
    optional(model.inputs.given_at[1], |at| [at]);
    flag(*coupling.motion_prescribed);
    optional(*coupling.last_probed, |impulse| [impulse]);
    real(*coupling.mean_before_last);
    real(*coupling.port_work_held_back);
    flag(*coupling.grazed);
    real(*coupling.e_port_if_late);
    flag(*coupling.mean_held_late);
    flag(*coupling.grazed_before_last);
    flag(*coupling.a_free_known);
    nonnegative(*coupling.a_doubt);
    flag(*coupling.cut_unread);
    flag(*coupling.told_which_force_to_name);
    real(*coupling.a_ext_positions);
    nonnegative(*coupling.a_ext_miss_position);
    nonnegative(*coupling.episode_a_ext_trend);
    flag(*coupling.episode_a_ext_trend_known);
    nonnegative(*coupling.silently_answered);
    flag(*coupling.late_or_next_undecided);
    flag(*coupling.late_suspected);
    real(*coupling.last_answers);
    whole(*coupling.last_answers_count, 0..=3);
}
