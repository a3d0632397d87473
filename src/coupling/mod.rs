//! How a co-simulation step couples the contact to the master's bodies when the effective mass of
//! the relative motion is known (the parameter `m_eff`, or the FMU's own estimate of it).
//!
//! The FMU keeps a model of the relative motion: the master's state plus what it still owes (`owed`,
//! model minus master). Each step it integrates the model under the contact force
//! ([`crate::step::dynamic`]) and outputs the mean force `f_mean` the master should hold over the
//! step. A held force gives the master's bodies the right velocity change, but a position that
//! differs from the model's where the impulse came in the middle of the step. That offset is
//! removed by a momentum-free correction: the force of the next steps is adjusted so that the
//! master's relative motion reaches the model's in two steps (a dead-beat law for the double
//! integrator the held force drives: `u = e_s/h^2 + 3/2*e_v/h`, which for a position offset alone
//! is `+u` then `-u`, zero net impulse).
//!
//! Without a given mass, the FMU estimates it from how the master answered the impulses it gave:
//! the applied impulse over a contact against the velocity change it caused (the external
//! acceleration, known from the last free step, taken out); a contact new to the master is probed
//! first (`probe.rs`). The correction is in `correction.rs`, the passivity controller and the speed
//! fuse in `passivity.rs`.
//!
//! Pure Rust: no FFI, no allocation.
//!
//! # The rules, and the function that holds each
//!
//! The coupling's state is one struct, [`Coupling`] (here, with the types its fields hold), and
//! only the coupling's files touch its fields: the instance asks and tells it through methods
//! named for what they mean (`steps.rs`: the mass and the port's energy for the outputs, the
//! master's reads, what a step that passed its test leaves), and the serialized state reaches
//! them through one view ([`Serialized`], `serialized.rs`).
//!
//! At a step start, before anything else and only while a probe's answer is due under
//! `heldForce` = Auto, a motion that answered none of the forces a master may have held
//! (`answers_no_force`, `probe.rs`) is prescribed from then on
//! (`take_the_motion_as_prescribed`; the model's `notice_a_prescribed_motion`). Otherwise
//! [`Coupling::observe`] (`observe.rs`) reads the master's answer to the last step, rule by rule
//! in this order:
//!
//! - the step's length (`step_since_last`); at the first step start only the motion is taken in;
//! - which force the master held (`held_force.rs`): an `f_next` read only after the step was not
//!   held (`forget_next_read_after_step`); a master that reads only `f_next` holds it
//!   (`holds_next_if_it_reads_only_next`); otherwise its answer tells, by whether the bodies felt
//!   a force at all (`tell_by_a_force_felt`) or by which force fits it better
//!   (`tell_by_the_better_fit`), and settles or overturns the reading
//!   (`read_which_force_was_held`); a master that holds `f_mean` one step late on a grid is told
//!   at a contact's first step with a mass (`tell_a_late_mean`; short of that, a clearly better
//!   fit leaves it suspected, `suspect_a_late_mean`), without one by the answer after a probe's
//!   silent one (`tell_a_late_mean_by_the_probe`) or by three answers on the late reading's
//!   line (`tell_a_late_mean_by_three_answers`, `three_answers.rs`); a step whose force both readings
//!   share tells the mass on its own (`estimate_from_a_step_both_readings_share`); the outcome
//!   is `held_force`;
//! - the port's account: the held force's work over the master's displacement
//!   (`account_the_ports_work`, `port.rs`), and how far that displacement missed the bound's
//!   prediction (`measure_the_ports_miss`);
//! - what the model owes the master where it held another force than the one assumed
//!   (`owe_what_another_force_did`, `held_force.rs`);
//! - the external acceleration (`external.rs`): as known before the step (`known_before_step`),
//!   then the step's own mean where the held force is known as an acceleration
//!   (`force_acceleration`, `learn_the_steps_external_acceleration`);
//! - a mass in use under changing forces is trusted from the start
//!   (`trust_the_mass_under_changing_forces`, `answer.rs`);
//! - the contact episode (`episode.rs`): opened at a contact (`open_an_episode_at_a_contact`), its
//!   forces summed step by step (`count_the_step_in_the_episode`);
//! - without a mass (`probe.rs`, `learn_without_a_mass`): a probe's answer (`learn_from_probe`:
//!   `answer_may_come_late`, `probed_force`, `weigh_probe_answer`, `moved_under_constant_forces`,
//!   `confirm_rough_answer`, `pair_answers_to_probes`, `told_at_the_last_chance`,
//!   `adopt_probed_mass`), read through `read_answer` (`floor.rs`; an unclear one measures how
//!   well the two extrapolations predict, `measure_misses_by_a_probe`, `external.rs`), or the
//!   least mass every held force allows (`raise_mass_floor`, `floor.rs`);
//! - the mass a coupled force's answer tells (`answer.rs`): whether the force was the coupling's
//!   (`asked_a_coupled_force`), the answer (`answer_to`), the mass it tells (`learn_from_answer`),
//!   read against the external acceleration before (`external_acceleration_of`), weighed against
//!   the mass in use and adopted beyond the disagreement (`weigh_against_mass_in_use`), or
//!   confirming it (`trust_mass_in_use`);
//! - the episode's end: its mass estimate, a candidate (`close_the_episode`), adopted once a free
//!   step shows the external acceleration steady (`adopt_the_candidate`);
//! - the fastest speed the port has not paid for (`note_passive_speed`), and the step start
//!   becomes the last one (`move_on_to`).
//!
//! Before the first step, `begin_after_unseen_step` takes in a step the master took before the
//! FMU saw one; with a mass, `begin_after_missed_contact` a contact the model's last step missed
//! (`observe.rs`). The force over the coming step:
//!
//! - the dynamic step (`dynamic.rs`): a contact given through a wrong mass replayed
//!   ([`Coupling::replay_the_contact`]), the correction set up, the plan held and `f_next`
//!   predicted one step ahead ([`Coupling::plan_the_dynamic_step`]); a free one (nothing of a
//!   contact under way or met) planned the same way without touching the coupling, and taken
//!   once it passed its test (`free_plan.rs`: [`Coupling::plan_a_free_step`]); what a step may
//!   rewrite before its test, to put back if it is refused (`rewritten.rs`);
//! - the plan (`plan.rs`): [`Coupling::plan`] integrates the model and makes the held force (a
//!   step with nothing of a contact under way or met is planned as the free flight it is,
//!   `free_plan.rs`), its correction's shift (`correction.rs`) held to the model's energy
//!   (`energy_bounded_shift`) and through the speed fuse (`through_the_speed_fuse`,
//!   `passivity.rs`); a contact given through a wrong mass is replayed with the mass known
//!   ([`replay`]); an offset the contact no longer needs is forgiven (`forgive_position`); the
//!   model starts no deeper in a contact than the energy it can account for
//!   (`fund_the_model_start`); nothing is owed after a short step (`forget_owed`, here);
//! - without a mass, the probe (`probe.rs`): whether the step probes (`probing`), its share
//!   (`hold_probe`, [`ProbeSizing`]);
//! - `f_next` (`prediction.rs`): [`Prediction`], made at the first read (`make_f_next`);
//! - the port's bound on every held force (`port.rs`, `bound.rs`): [`Coupling::port`],
//!   `bound_noting_the_reading` (which also notes a cut made only for want of knowing which
//!   force the master holds), `bound_next`; once the contact has settled (`is_settled`, here),
//!   `settle_port`;
//! - the tangential plane (`tangential.rs`), and the mass and external acceleration fitted to the
//!   last answers together (`mass_fit.rs`).

mod answer;
mod bound;
mod correction;
mod dynamic;
mod episode;
mod external;
mod floor;
mod free_plan;
mod held_force;
mod mass_fit;
mod observe;
mod passivity;
mod plan;
mod port;
mod prediction;
mod probe;
mod rewritten;
mod serialized;
mod steps;
mod tangential;
mod three_answers;

pub use answer::{ANSWER_RANGE, STEADY_ADOPTION, UNMEASURED_DRIFT_ADOPTION};
pub use bound::PortState;
pub use correction::{Correction, Pace, POSITION_RECOVERY};
pub use dynamic::{DynamicPlan, DynamicSetting};
pub use external::Extrapolation;
pub use free_plan::FreeStep;
pub use mass_fit::{AnswerWindow, MassFit, WINDOW};
pub use passivity::{passivity_force, SpeedFuse, PASSIVITY_TOLERANCE, SPEED_FUSE_FACTOR};
pub use plan::{held_over, replay, Plan, PlanStart};
pub use port::SETTLED_MARGIN;
pub use prediction::Prediction;
pub use probe::{only_grazes, ProbeSizing, RoughAnswer, PROBE_LIMIT, PROBE_SHARE};
pub use rewritten::Rewritten;
pub(crate) use serialized::serialized_view;
pub use serialized::Serialized;
pub use tangential::{SlipDynamics, TangentialAnswers, Told};
pub use three_answers::ThreeAnswers;

use crate::laws::{distance_outside, ContactLaw};

/// A contact over at most this many steps is one the steps cannot resolve (the extrapolated
/// impulse goes wrong from half a contact duration per step).
pub const MAX_STEPS_OF_AN_UNRESOLVED_CONTACT: u32 = 3;

/// The master's relative motion at a step start.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Observed {
    pub time: f64,
    pub s: f64,
    pub v: f64,
}

/// A contact as the master saw it, from the start of its first step with a contact impulse to the
/// start of the first step after it without one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Episode {
    open: bool,
    /// The master's motion at the start of the contact's first step.
    start: Observed,
    /// The external relative acceleration before the contact (mean of the last free step).
    a_ext: f64,
    /// The impulse the master applied over the contact's steps (N.s) if it held `f_mean`, and
    /// if it held the `f_next` read before each step.
    impulse_if_mean: f64,
    impulse_if_next: f64,
    /// The energy the FMU reported dissipated over the window (J).
    dissipated: f64,
    /// The steps that held a contact impulse from the master's motion (a probe's share is not
    /// one: a contact probed over several steps is still to be replayed once its mass is known).
    contact_steps: u32,
    /// Whether `a_ext` was measured (a step before the contact, or one whose force was
    /// negligible): otherwise it is taken as 0, and one answer cannot tell the mass from it.
    a_ext_known: bool,
    /// How much the external acceleration changed per step before the contact (m/s^2; 0 where
    /// fewer than two steps had measured it). An answer inside the contact allows for at least
    /// this drift per step since the contact's start: the trend of the contact's own last two
    /// steps can fall to nothing (a spring behind a body that turns) while the drift it summed
    /// stays.
    a_ext_trend: f64,
    /// Whether `a_ext_trend` was measured (two steps before the contact measured the external
    /// acceleration): where not, the drift an answer carries is not bounded
    /// ([`crate::coupling::UNMEASURED_DRIFT_ADOPTION`]).
    a_ext_trend_known: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Coupling {
    /// Model minus master, relative position and velocity, at the next step's start.
    owed_s: f64,
    owed_v: f64,
    /// The correction under way.
    correction: Correction,
    /// The master's motion at the last step's start and the step's length; `last_h == 0` before
    /// the first step.
    last: Observed,
    last_h: f64,
    /// The mean force the master was given for the last step (`f_mean`), and the contact's own
    /// impulse in it (without corrections).
    last_force: f64,
    last_contact_impulse: f64,
    /// The energy the last step dissipated (J).
    last_dissipated: f64,
    /// `f_next` as output before the last step: what a master that steps all units at once held
    /// over it.
    last_next: f64,
    /// Whether the master holds `f_next` (it steps all units at once) rather than `f_mean`, as
    /// told by a step where only one of them was zero; unknown until then.
    master_holds_next: Option<bool>,
    /// Whether a clear answer told it: until then any step's answer may change it, from then on
    /// only one `OVERTURN` times clearer (a master does not change its scheme; `held_force.rs`).
    holds_next_settled: bool,
    /// The user told it (parameter `heldForce`): no answer changes it, and the port's bound
    /// counts that force's work alone. Set from the parameter before every use.
    held_told: bool,
    /// The force the last step's bookkeeping assumed the master holds over it.
    assumed_held: f64,
    /// The mass answered by a single step whose force both readings agree on; 0 if none yet.
    step_estimate: f64,
    /// An estimate waiting to be adopted.
    candidate: Candidate,
    /// Mean external relative accelerations of the last two steps where they could be told
    /// apart from the contact's force, newest first, with the middle instants of those steps.
    a_ext_means: [f64; 2],
    a_ext_times: [f64; 2],
    a_ext_count: usize,
    episode: Episode,
    /// The effective mass estimated from the master's answers to the contact and adopted for
    /// the dynamic step; 0 until known.
    mass_estimate: f64,
    /// The latest estimate, adopted or not (the output `m_eff_estimate`).
    last_estimate: f64,
    /// A mass was adopted since the contact episode started: the episode is replayed with it at
    /// the next step, and what the master was given wrong is corrected from there.
    replay_pending: bool,
    /// The energy the master's bodies have given to the contact through the port (J, output
    /// `E_port`): the sum over the steps of the force the master held times the relative
    /// displacement it then reported. Exact for a held force, whatever the bodies are.
    e_port: f64,
    /// `E_port` had the master held `f_next` over the steps where it is not known which force
    /// it held (equal to `e_port` over the others): taken once it is told.
    e_port_if_next: f64,
    /// `E_port` had the master held each step's `f_mean` over the step after it (it steps every
    /// unit at once and connects `f_mean`): taken once the answers tell so.
    e_port_if_late: f64,
    /// The answers showed that the master holds `f_mean` one step late: from then on `f_mean`
    /// is handed out as `f_next`, the force over the step the master holds it over.
    mean_held_late: bool,
    /// The passivity controller's part of the `f_next` predicted for the next step (N).
    passivity_in_next: f64,
    /// The force the master held over the last step, as far as it is known (else `f_mean`).
    last_held: f64,
    /// The spring energy the contact held at the start (J; a compressed start): what it may
    /// return without having received it through the port.
    initial_energy: f64,
    /// What the port had received when the contact last settled (J; never below 0): the
    /// contact stored none of it then, so it was dissipated and is not the bound's to return.
    spent: f64,
    /// Nothing is learned from the master's answers: the steps are the law's integral along the
    /// master's motion ([`PLAIN_STEP`]). Told by the model before each step
    /// (`take_the_step_as_plain`); not part of the FMU state. (A prescribed motion never comes
    /// here: `model/prescribed.rs`.)
    ignore_answers: bool,
    /// The energy the model dissipated (J): what `E_loss` follows, up to what the port received.
    model_loss: f64,
    /// The master's relative motion as set during initialization, until the first step: a
    /// master that steps its bodies before the FMU (Gauss–Seidel, the bodies first) moves them
    /// over a step the FMU never saw, into a contact it could not answer.
    initial: Option<Observed>,
    /// Whether an answer of the master has confirmed the mass in use (agreed with it, or given
    /// it): until then the correction takes the robust gains.
    mass_confirmed: bool,
    /// Whether this contact episode's disagreement with the mass in use was reported already
    /// (once per episode: the log is not a per-step trace).
    disagreement_reported: bool,
    /// The mean force predicted over the coming step, for masters that step all units at once.
    f_next: Prediction,
    /// Whether the master has read `f_next`: until it does, no master can hold it, so the step
    /// leaves the prediction to the first read; from then on every step makes it.
    f_next_read: bool,
    /// Whether the master has read `f_mean`: one that reads only `f_next` holds it.
    f_mean_read: bool,
    /// The correction plan after the `f_next` made last: where the master holds it, the plan
    /// goes on from there (planned anew from each step's `f_mean` instead, a master one step
    /// behind would hold the first shifts of plans never followed).
    f_next_continuation: Correction,
    /// The last step held a probe (no mass known): its answer tells the mass.
    probe_pending: bool,
    /// Probes whose answer told nothing (a master that prescribes the motion answers no force):
    /// from [`PROBE_LIMIT`] of them on, the contact is integrated along the motion in full.
    unclear_probes: u32,
    /// The master's motion at the start of the step before the last, and the force it held over
    /// that step: where a contact opens with the master already in it, it met the contact there.
    before_last: Observed,
    last_held_before: f64,
    /// The impulse (N.s) and dissipation (J) the probes held back, to deliver with the next step
    /// where probing ended without a mass.
    probe_rest: (f64, f64),
    /// What the probes so far held back (N.s, J): delivered once probing ends without a mass,
    /// dropped where an answer tells it (the replay delivers the contact whole).
    probe_rest_waiting: (f64, f64),
    /// Whether `f_next` had been read before the last step, so that a master could hold it over
    /// that step. One that reads it only from then on (cofmupy reads every output after a step,
    /// none before the first) held its own start value: no force.
    next_readable: bool,
    /// The least mass (kg) a probe's answer hidden in the external acceleration's change allows:
    /// it sizes the next probe ([`ProbeSizing`]); 0 before any such answer.
    probe_mass_floor: f64,
    /// The least mass the probes held so far take for granted (kg): the one each probe's
    /// impulse would just reverse at the speed it met. Before an answer tells more, the bound
    /// holds every later force to it ([`PortState`]); 0 before any probe.
    probe_assumed_mass: f64,
    /// The last step only grazed a contact new to the master (`only_grazes`): held in full,
    /// its answer tells nothing of the bodies, and no least mass is read from it.
    grazed: bool,
    /// The step before the last only grazed such a contact: a master one step late held that
    /// graze over the last step, nothing of the contact.
    grazed_before_last: bool,
    /// A probe's answer showed a motion that no force moves (`answers_no_force`): the master
    /// prescribes it, and the steps are the law's integral along it from then on.
    motion_prescribed: bool,
    /// The impulse (N.s) along the motion of the last step, where it held a probe instead: what
    /// it would have held had the motion been declared prescribed.
    last_probed: Option<f64>,
    /// The mean force the master was given for the step before the last: what a master that
    /// holds `f_mean` one step late (it steps all units at once and connects `f_mean`) held over
    /// the last step.
    mean_before_last: f64,
    /// Without a mass, a contact's first probe was answered by no force, as a master that holds
    /// `f_mean` one step late answers it (it held the free step's nothing): the least force (N,
    /// in size) a master holding `f_mean` or the `f_next` it read would have held over that step,
    /// which the next answer weighs (`tell_a_late_mean_by_the_probe`); 0: no answer awaited.
    silently_answered: f64,
    /// With a mass: a contact's first step was answered by no force, which both a master one
    /// step late and one holding the `f_next` of nothing it read before the step give; the next
    /// answer tells them apart (`tell_a_late_mean`).
    late_or_next_undecided: bool,
    /// With a mass: an answer fitted the `f_mean` handed out a step before the last clearly
    /// better than every other reading, without telling (`suspect_a_late_mean`): `f_mean` is
    /// bounded as a late master holds it too.
    late_suspected: bool,
    /// Without a mass, the last three answers and the force each reading held
    /// (`tell_a_late_mean_by_three_answers`).
    last_answers: ThreeAnswers,
    /// The work the port would have received over the probing steps so far had each held the
    /// impulse along the motion instead of its probe (J): `E_port` takes it where the motion turns
    /// out prescribed.
    port_work_held_back: f64,
    /// How far the newest mean external acceleration lay from the linear extrapolation of the
    /// two before it (m/s^2; 0 until three are known).
    a_ext_miss: f64,
    /// The mean relative positions over the steps of the last two means (m, newest first).
    a_ext_positions: [f64; 2],
    /// How far the newest mean lay from the external acceleration linear in the position through
    /// the two before it (m/s^2; 0 until three are known).
    a_ext_miss_position: f64,
    /// A probe's answer read through a changing external acceleration, waiting for a larger
    /// probe to confirm it.
    rough_answer: RoughAnswer,
    /// An answer given while no external acceleration was known: its force and the velocity
    /// change per second it caused, waiting for a second answer to a different force that tells
    /// the mass and the acceleration together (force 0: none).
    unknown_answer: (f64, f64),
    /// The fastest relative speed (m/s) at a step start while the port had returned nothing
    /// beyond what it received, and the external acceleration of the last step the master held
    /// no force over (m/s^2): the speed fuse's scale and prediction.
    passive_speed: f64,
    a_free: f64,
    /// Whether `a_free` was measured.
    a_free_known: bool,
    /// A force the port's bound cut only for want of knowing which force the master holds, to be
    /// reported; whether the user was told to say which (`heldForce`).
    cut_unread: bool,
    told_which_force_to_name: bool,
    /// The largest acceleration by which the master's displacement over a step missed the one
    /// `a_free` and the mass predicted for the force held, over that step's speed (1/s): how far
    /// the bodies may move from the port bound's prediction ([`PortState`]).
    a_doubt: f64,
}

/// A mass estimate waiting for a free step that shows the external acceleration steady.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Candidate {
    /// 0: none.
    estimate: f64,
    a_ext_before: f64,
    /// The contact window's length (s) and the velocity change it answered with (m/s).
    duration: f64,
    answered: f64,
}

/// What `observe` learned at a step start.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Learned {
    /// A contact ended in the last step and gave this mass estimate.
    pub new_estimate: Option<f64>,
    /// A step's answer gave an effective mass (first) that disagrees with the given or adopted
    /// mass in use (second) by more than [`DISAGREEMENT`].
    pub disagreement: Option<(f64, f64)>,
    /// The last step's answer showed a master that holds `f_mean` one step late.
    pub late_mean: bool,
}

/// The relative disagreement between the master's answer and the mass in use beyond which the
/// FMU warns.
pub const DISAGREEMENT: f64 = 0.1;

/// The longest step, as a share of the contact's duration through the mass in use, that is the
/// law's integral along the master's motion: plain substepping is right there, and at a tenth of
/// a contact it is not, while the contact's dynamics through the mass is exact at any step
/// (docs/coupling.md, "Short steps", has both errors).
pub const PLAIN_STEP: f64 = 0.01;

/// The share of the speeds below which a velocity change is taken for rounding in a master's
/// answer to a force the coupling made.
const ANSWER_ROUNDING: f64 = 1e-9;

/// How far the master's position moved from `from` to `to` off the parabola its two velocities
/// span: zero for a body under a held force and a steady external acceleration, a twelfth of
/// the acceleration's change times the step squared where it changes linearly within the step.
fn bend_off_parabola(from: Observed, to: Observed) -> f64 {
    to.s - from.s - 0.5 * (to.v + from.v) * (to.time - from.time)
}

impl Coupling {
    /// Nothing owed, planned, replayed or probed: a short step is the law's integral along the
    /// master's motion, and a longer one after it starts from there.
    pub fn forget_owed(&mut self) {
        self.owed_s = 0.0;
        self.owed_v = 0.0;
        self.correction = Correction::default();
        self.f_next_continuation = Correction::default();
        self.replay_pending = false;
        self.probe_pending = false;
    }

    /// Whether the contact is over for the master and for the model: the master's motion outside
    /// the contact range, no contact episode open, no correction under way, nothing owed.
    pub fn is_settled<L: ContactLaw>(&self, law: &L, now: Observed, h: f64) -> bool {
        let length = law.length_scale();
        let owed_nothing =
            self.owed_s.abs() <= 1e-9 * length && (self.owed_v * h).abs() <= 1e-9 * length;
        !self.episode.open
            && !self.replay_pending
            && self.correction.count == 0
            && owed_nothing
            && distance_outside(law.contact_ends(), now.s) >= 0.0
    }

    /// The velocity change that rounding can hide, `relative` times the speeds at both ends of
    /// the step to `now`.
    fn rounding(&self, now: Observed, relative: f64) -> f64 {
        relative * (now.v.abs() + self.last.v.abs())
    }

    /// Whether `force` held over `h` changes the velocity beyond rounding through `mass` (any
    /// force that is not 0 without one): a smaller one, a free step's rounding residue, asks the
    /// master nothing, and its answer neither confirms a mass nor tells one.
    fn asks(&self, force: f64, h: f64, mass: Option<f64>, now: Observed) -> bool {
        mass.map_or(force != 0.0, |m| {
            (force * h / m).abs() > self.rounding(now, ANSWER_ROUNDING)
        })
    }
}
