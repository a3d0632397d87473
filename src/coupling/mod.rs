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
//! first (`probe.rs`). The correction is in `correction.rs`, the passivity
//! controller and the speed fuse in `passivity.rs`.
//!
//! Pure Rust: no FFI, no allocation.

mod bound;
mod correction;
mod mass_fit;
mod passivity;
mod probe;
mod tangential;

pub use bound::PortState;
use correction::Situation;
pub use correction::{Correction, Pace, POSITION_RECOVERY};
pub use mass_fit::{AnswerWindow, MassFit, WINDOW};
pub use passivity::{passivity_force, SpeedFuse, PASSIVITY_TOLERANCE, SPEED_FUSE_FACTOR};
pub use probe::{ProbeSizing, RoughAnswer, PROBE_LIMIT, PROBE_SHARE};
pub use tangential::{SlipDynamics, TangentialAnswers, Told};

use crate::laws::{distance_outside, ContactLaw};
use crate::step::dynamic::{entry_time, integrate_dynamics, Dynamics};
use crate::step::{integrate_step, ContactSpan, DynamicStep, Motion, SubstepLimits};

/// How far the spring energy at the model's start may exceed what the coupling can account for
/// before the start is taken back towards the contact's edge ([`Coupling::fund_the_model_start`]).
const UNFUNDED_MARGIN: f64 = 2.0;

/// Newton steps to the funded depth at most ([`Coupling::fund_the_model_start`]).
const MAX_FUNDING_ITERATIONS: usize = 30;

/// The spring energy a one-sided contact holds at `depth` past its edge (J), by three-point
/// Gauss–Legendre on the spring force: exact for a linear spring, about 1e-3 for `n` = 1.5. It
/// tests a bound with a margin of two on every dynamic step that starts in contact, where the
/// quadrature to 1e-10 of `laws::spring_work` (336 evaluations) made a prescribed motion's steps
/// fifteen times slower.
fn stored_spring_energy<L: ContactLaw>(law: &L, depth: f64) -> f64 {
    const NODES: [(f64, f64); 3] = [
        (0.112_701_665_379_258_3, 5.0 / 18.0),
        (0.5, 8.0 / 18.0),
        (0.887_298_334_620_741_7, 5.0 / 18.0),
    ];
    let upper = law.contact_ends().1;
    NODES.iter().fold(0.0, |sum, &(x, w)| {
        sum + w * law.evaluate(upper - x * depth, 0.0).f_c.abs()
    }) * depth
}

/// A contact over at most this many steps is one the steps cannot resolve (the issue's
/// measurements: the extrapolated impulse goes wrong from half a contact duration per step).
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
    pub open: bool,
    /// The master's motion at the start of the contact's first step.
    pub start: Observed,
    /// The external relative acceleration before the contact (mean of the last free step).
    pub a_ext: f64,
    /// The impulse the master applied over the contact's steps (N.s) if it held `f_mean`, and
    /// if it held the `f_next` read before each step.
    pub impulse_if_mean: f64,
    pub impulse_if_next: f64,
    /// The energy the FMU reported dissipated over the window (J).
    pub dissipated: f64,
    /// The steps that held a contact impulse from the master's motion (a probe's share is not
    /// one: a contact probed over several steps is still to be replayed once its mass is known).
    pub contact_steps: u32,
    /// Whether `a_ext` was measured (a step before the contact, or one whose force was
    /// negligible): otherwise it is taken as 0, and one answer cannot tell the mass from it.
    pub a_ext_known: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Coupling {
    /// Model minus master, relative position and velocity, at the next step's start.
    pub owed_s: f64,
    pub owed_v: f64,
    /// The correction under way.
    pub correction: Correction,
    /// The master's motion at the last step's start and the step's length; `last_h == 0` before
    /// the first step.
    pub last: Observed,
    pub last_h: f64,
    /// The mean force the master was given for the last step (`f_mean`), and the contact's own
    /// impulse in it (without corrections).
    pub last_force: f64,
    pub last_contact_impulse: f64,
    /// The energy the last step dissipated (J).
    pub last_dissipated: f64,
    /// `f_next` as output before the last step: what a master that steps all units at once held
    /// over it.
    pub last_next: f64,
    /// Whether the master holds `f_next` (it steps all units at once) rather than `f_mean`, as
    /// told by a step where only one of them was zero; unknown until then.
    pub master_holds_next: Option<bool>,
    /// Whether a clear answer told it: until then any step's answer may change it, from then on
    /// only one [`OVERTURN`] times clearer (a master does not change its scheme).
    pub holds_next_settled: bool,
    /// The user told it (parameter `heldForce`): no answer changes it, and the port's bound
    /// counts that force's work alone. Set from the parameter before every use.
    pub held_told: bool,
    /// The force the last step's bookkeeping assumed the master holds over it.
    pub assumed_held: f64,
    /// The mass answered by a single step whose force both readings agree on; 0 if none yet.
    pub step_estimate: f64,
    /// An estimate waiting to be adopted.
    pub candidate: Candidate,
    /// Mean external relative accelerations of the last two steps where they could be told
    /// apart from the contact's force, newest first, with the middle instants of those steps.
    pub a_ext_means: [f64; 2],
    pub a_ext_times: [f64; 2],
    pub a_ext_count: usize,
    pub episode: Episode,
    /// The effective mass estimated from the master's answers to the contact and adopted for
    /// the dynamic step; 0 until known.
    pub mass_estimate: f64,
    /// The latest estimate, adopted or not (the output `m_eff_estimate`).
    pub last_estimate: f64,
    /// A mass was adopted since the contact episode started: the episode is replayed with it at
    /// the next step, and what the master was given wrong is corrected from there.
    pub replay_pending: bool,
    /// The energy the master's bodies have given to the contact through the port (J, output
    /// `E_port`): the sum over the steps of the force the master held times the relative
    /// displacement it then reported. Exact for a held force, whatever the bodies are.
    pub e_port: f64,
    /// `E_port` had the master held `f_next` over the steps where it is not known which force
    /// it held (equal to `e_port` over the others): taken once it is told.
    pub e_port_if_next: f64,
    /// The passivity controller's part of the `f_next` predicted for the next step (N).
    pub passivity_in_next: f64,
    /// The force the master held over the last step, as far as it is known (else `f_mean`).
    pub last_held: f64,
    /// The spring energy the contact held at the start (J; a compressed start): what it may
    /// return without having received it through the port.
    pub initial_energy: f64,
    /// What the port had received when the contact last settled (J; never below 0): the
    /// contact stored none of it then, so it was dissipated and is not the bound's to return.
    pub spent: f64,
    /// Nothing is learned from the master's answers: the steps are the law's integral along the
    /// master's motion ([`PLAIN_STEP`]). Set by the model before each step; not part of the FMU
    /// state. (A prescribed motion never comes here: `model/prescribed.rs`.)
    pub ignore_answers: bool,
    /// The energy the model dissipated (J): what `E_loss` follows, up to what the port received.
    pub model_loss: f64,
    /// The master's relative motion as set during initialization, until the first step: a
    /// master that steps its bodies before the FMU (Gauss–Seidel, the bodies first) moves them
    /// over a step the FMU never saw, into a contact it could not answer.
    pub initial: Option<Observed>,
    /// Whether an answer of the master has confirmed the mass in use (agreed with it, or given
    /// it): until then the correction takes the robust gains.
    pub mass_confirmed: bool,
    /// Whether this contact episode's disagreement with the mass in use was reported already
    /// (once per episode: the log is not a per-step trace).
    pub disagreement_reported: bool,
    /// The mean force predicted over the coming step, for masters that step all units at once.
    pub f_next: Prediction,
    /// Whether the master has read `f_next`: until it does, no master can hold it, so the step
    /// leaves the prediction to the first read; from then on every step makes it.
    pub f_next_read: bool,
    /// Whether the master has read `f_mean`: one that reads only `f_next` holds it.
    pub f_mean_read: bool,
    /// The correction plan after the `f_next` made last: where the master holds it, the plan
    /// goes on from there (planned anew from each step's `f_mean` instead, a master one step
    /// behind would hold the first shifts of plans never followed).
    pub f_next_continuation: Correction,
    /// The last step held a probe (no mass known): its answer tells the mass.
    pub probe_pending: bool,
    /// Probes whose answer told nothing (a master that prescribes the motion answers no force):
    /// from [`PROBE_LIMIT`] of them on, the contact is integrated along the motion in full.
    pub unclear_probes: u32,
    /// The master's motion at the start of the step before the last, and the force it held over
    /// that step: where a contact opens with the master already in it, it met the contact there.
    pub before_last: Observed,
    pub last_held_before: f64,
    /// The impulse (N.s) and dissipation (J) the probes held back, to deliver with the next step
    /// where probing ended without a mass.
    pub probe_rest: (f64, f64),
    /// What the probes so far held back (N.s, J): delivered once probing ends without a mass,
    /// dropped where an answer tells it (the replay delivers the contact whole).
    pub probe_rest_waiting: (f64, f64),
    /// Whether `f_next` had been read before the last step, so that a master could hold it over
    /// that step. One that reads it only from then on (cofmupy reads every output after a step,
    /// none before the first) held its own start value: no force.
    pub next_readable: bool,
    /// The least mass (kg) a probe's answer hidden in the external acceleration's change allows:
    /// it sizes the next probe ([`ProbeSizing`]); 0 before any such answer.
    pub probe_mass_floor: f64,
    /// The least mass the probes held so far take for granted (kg): the one each probe's
    /// impulse would just reverse at the speed it met. Before an answer tells more, the bound
    /// holds every later force to it ([`PortState`]); 0 before any probe.
    pub probe_assumed_mass: f64,
    /// How far the newest mean external acceleration lay from the linear extrapolation of the
    /// two before it (m/s^2; 0 until three are known).
    pub a_ext_miss: f64,
    /// A probe's answer read through a changing external acceleration, waiting for a larger
    /// probe to confirm it.
    pub rough_answer: RoughAnswer,
    /// An answer given while no external acceleration was known: its force and the velocity
    /// change per second it caused, waiting for a second answer to a different force that tells
    /// the mass and the acceleration together (force 0: none).
    pub unknown_answer: (f64, f64),
    /// The fastest relative speed (m/s) at a step start while the port had returned nothing
    /// beyond what it received, and the external acceleration of the last step the master held
    /// no force over (m/s^2): the speed fuse's scale and prediction.
    pub passive_speed: f64,
    pub a_free: f64,
}

/// The share of the last contact's dissipation that the port may still return once the contact
/// has settled. Its forces are step means, and what they did along the master's motion
/// (`E_port`) is not the work of the model's own motion: over a contact that spans a few steps
/// the two differ by a part of its dissipation, so a bound at exactly zero would cut a rebound
/// the model had right (in `tests/contact_dynamics.rs`'s driven body, by a quarter at 5 ms).
/// Whatever it lets pass, the port never gives away more than this share of one contact's
/// dissipation beyond all it has received.
pub const SETTLED_MARGIN: f64 = 0.25;

/// How far from the mass in use one answer read with the external acceleration unknown (taken
/// as 0) may put the mass before a second answer confirms it: the errors of a user's `m_eff`
/// this product is made for, with a margin.
const UNKNOWN_ACCELERATION_RANGE: f64 = 2.2;

/// The share of the speeds below which a velocity change is taken for rounding in a master's
/// answer to a force the coupling made.
const ANSWER_ROUNDING: f64 = 1e-9;

/// How far the master's position moved from `from` to `to` off the parabola its two velocities
/// span: zero for a body under a held force and a steady external acceleration, a twelfth of
/// the acceleration's change times the step squared where it changes linearly within the step.
fn bend_off_parabola(from: Observed, to: Observed) -> f64 {
    to.s - from.s - 0.5 * (to.v + from.v) * (to.time - from.time)
}

/// `f_next`, made or still to be made: a master that steps the gap first never reads it, and
/// for it the prediction would double the work of every step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Prediction {
    Known(f64),
    /// Along the motion extrapolated from the step's end (no mass); a probe's share of it
    /// where the step is to probe the mass.
    Kinematic {
        start: Motion,
        h: f64,
        probe: Option<ProbeSizing>,
    },
    /// The coupled model's plan one step ahead, from where the master will be then.
    Dynamic {
        owed: (f64, f64),
        correction: Correction,
        master: Motion,
        dynamics: Dynamics,
        h: f64,
        passivity: f64,
    },
}

impl Default for Prediction {
    fn default() -> Self {
        Prediction::Known(0.0)
    }
}

impl Prediction {
    /// The step the prediction is made over (0 where it is made already).
    pub fn step(&self) -> f64 {
        match *self {
            Prediction::Known(_) => 0.0,
            Prediction::Kinematic { h, .. } | Prediction::Dynamic { h, .. } => h,
        }
    }

    /// The predicted mean force.
    pub fn force<L: ContactLaw>(&self, law: &L, limits: SubstepLimits) -> f64 {
        self.planned(law, limits).0
    }

    /// The predicted mean force and the correction plan after it.
    pub fn planned<L: ContactLaw>(&self, law: &L, limits: SubstepLimits) -> (f64, Correction) {
        match *self {
            Prediction::Known(force) => (force, Correction::default()),
            Prediction::Kinematic { start, h, probe } => {
                let impulse = integrate_step(law, start, h, limits).impulse;
                let share = probe
                    .and_then(|sizing| sizing.share(impulse))
                    .unwrap_or(1.0);
                let force = share * impulse / h;
                (force, Correction::default())
            }
            Prediction::Dynamic {
                owed,
                correction,
                master,
                dynamics,
                h,
                passivity,
            } => {
                let plan = Coupling::plan(owed, correction, law, master, dynamics, h, passivity);
                let continuation = Correction {
                    expected: plan.owed,
                    ..plan.correction
                };
                (plan.force, continuation)
            }
        }
    }
}

/// How the external acceleration over a step is extrapolated from the past ones; the values of the
/// parameter `accelerationEstimate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extrapolation {
    None,
    Constant,
    Linear,
}

/// A mass estimate waiting for a free step that shows the external acceleration steady.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Candidate {
    /// 0: none.
    pub estimate: f64,
    pub a_ext_before: f64,
    /// The contact window's length (s) and the velocity change it answered with (m/s).
    pub duration: f64,
    pub answered: f64,
}

/// One step's answer: the force the master held over it, the external acceleration taken for
/// it, how much that changed over the step before and how many steps ago it was measured, the
/// velocity change it reported.
#[derive(Clone, Copy, Debug)]
struct Answer {
    force: f64,
    a_before: f64,
    trend: f64,
    age: f64,
    /// Whether `a_before` was measured rather than taken as 0.
    a_known: bool,
    dv: f64,
    h: f64,
}

/// What `observe` learned at a step start.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Learned {
    /// A contact ended in the last step and gave this mass estimate.
    pub new_estimate: Option<f64>,
    /// A step's answer gave an effective mass (first) that disagrees with the given or adopted
    /// mass in use (second) by more than [`DISAGREEMENT`].
    pub disagreement: Option<(f64, f64)>,
}

/// The relative disagreement between the master's answer and the mass in use beyond which the
/// FMU warns.
pub const DISAGREEMENT: f64 = 0.1;

/// The longest step, as a share of the contact's duration through the mass in use, that is the
/// law's integral along the master's motion (docs/coupling.md, "Short steps"): plain substepping
/// is right there to a few 1e-4. Measured on a lone body (damping ratio 0.1), its rebound and
/// `E_loss` errors are 3.6e-5 and 9.8e-5 at a hundredth of a contact under a master that holds
/// `f_mean`, 8.9e-5 and 2.4e-4 under one that holds `f_next`; at a tenth, 8e-4 and 1e-2, and 4e-2
/// and 1.1e-1, where the contact's dynamics through the mass is exact to 1e-9.
pub const PLAIN_STEP: f64 = 0.01;

/// How many times clearer than the external acceleration's change and the mass's margin a step's
/// answer must be to overturn which force the master was told to hold.
const OVERTURN: f64 = 4.0;

/// The disagreement beyond which the FMU adopts an answer through a steady external acceleration
/// (a lone body, gravity), which is exact to rounding. Any other answer is adopted only beyond
/// [`DISAGREEMENT`]: a body pushed by springs or a drive during the contact answers a few per cent
/// off (the estimate takes the external acceleration as it was before), and a given `m_eff` stays.
pub const STEADY_ADOPTION: f64 = 0.005;

impl Coupling {
    /// `f_next`, made now if it was not yet (it is then kept however often it is read).
    pub fn make_f_next<L: ContactLaw>(
        &mut self,
        law: &L,
        limits: SubstepLimits,
        least_mass: f64,
        held: f64,
    ) -> f64 {
        if let Prediction::Known(force) = self.f_next {
            return force;
        }
        let prediction = self.f_next;
        let (planned, continuation) = prediction.planned(law, limits);
        let force = self.bound_next(planned, prediction.step(), least_mass, held);
        self.f_next = Prediction::Known(force);
        // A plan the bound cut does not go on: the step after it plans anew from the master.
        self.f_next_continuation = if planned == force {
            continuation
        } else {
            Correction::default()
        };
        self.note_probe_in_next(&prediction, force);
        force
    }

    /// `f_next` as predicted, within the port's bound, and the correction plan after it.
    pub fn predicted_next<L: ContactLaw>(
        &self,
        law: &L,
        limits: SubstepLimits,
        least_mass: f64,
        held: f64,
    ) -> (f64, Correction) {
        let (force, continuation) = self.f_next.planned(law, limits);
        let h = self.f_next.step();
        (self.bound_next(force, h, least_mass, held), continuation)
    }

    /// The port as the master leaves it at the start of the step just taken (after
    /// [`Self::observe`]): the one place the held forces are bounded from ([`PortState`]).
    ///
    /// A master that reads both forces may hold either: unless the user told which
    /// (`heldForce`), the smaller of the two accounts counts ([`Self::holds_either`]).
    pub fn port(&self, least_mass: f64) -> PortState {
        PortState {
            v: self.last.v,
            a: self.a_free,
            received: self.received() - self.spent,
            least_mass,
        }
    }

    /// What the port has received since the start (J), through the smaller account where the
    /// master may hold either force.
    fn received(&self) -> f64 {
        let e_port = if self.holds_either() {
            self.e_port.min(self.e_port_if_next)
        } else {
            self.e_port
        };
        e_port + self.initial_energy
    }

    /// The contact has settled ([`Self::is_settled`]): it stores nothing, so what the port
    /// received up to now was dissipated, and no later force may return it beyond
    /// [`SETTLED_MARGIN`] of what the last contact dissipated. A deficit (the port gave away
    /// more than it received) stays owed.
    pub fn settle_port(&mut self) {
        let margin = SETTLED_MARGIN * self.episode.dissipated.max(0.0);
        self.spent = self.spent.max(self.received() - margin);
    }

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

    /// Whether the master may have held either force over the step just taken: it read both,
    /// and the user did not tell which it holds (`heldForce`). The answers do not count: a
    /// driven body's answers once proved, four times clearer than anything seemed to hide, that
    /// a Jacobi master held `f_mean`, and the bound through that account let the bodies' energy
    /// grow 1e42-fold.
    pub fn holds_either(&self) -> bool {
        !self.held_told && self.f_mean_read && self.next_readable
    }

    /// The force a master that holds `f_next` held over the step just taken: the `f_next` it
    /// read before it, or nothing where it read none.
    pub fn next_held(&self) -> f64 {
        if self.next_readable {
            self.last_next
        } else {
            0.0
        }
    }

    /// `f_mean` as a master may hold it over the step just taken.
    pub fn bound_mean(&self, force: f64, h: f64, least_mass: f64) -> f64 {
        self.port(least_mass).bound(force, h)
    }

    /// `f_next` as a master may hold it over the step after the one just taken, over which it
    /// holds `held`.
    pub fn bound_next(&self, force: f64, h: f64, least_mass: f64, held: f64) -> f64 {
        let (low, high) = self.port(least_mass).admissible_after(held, h);
        force.clamp(low, high)
    }

    /// A master that holds `f_next` holds a probe made in it over the step ahead (the contact
    /// foreseen a step early), before any step's own `f_mean` probes: its answer is to be read
    /// as a probe's, and the step that meets the contact probes too.
    pub fn note_probe_in_next(&mut self, prediction: &Prediction, force: f64) {
        if let Prediction::Kinematic {
            probe: Some(_),
            start,
            h,
        } = *prediction
        {
            if force != 0.0 {
                self.probe_pending = true;
                self.assume_probe(force * h, start.v.abs());
            }
        }
    }

    /// Takes in the master's motion at a step start: the external acceleration of the last step
    /// (where the force the master held is known in acceleration, i.e. with a mass or without a
    /// force), and the contact episode bookkeeping behind the mass estimate.
    #[inline(always)]
    pub fn observe(
        &mut self,
        now: Observed,
        mass: Option<f64>,
        ends: (Option<f64>, f64),
    ) -> Learned {
        let mut learned = Learned::default();
        if self.last_h <= 0.0 {
            if now.v.is_finite() {
                self.passive_speed = self.passive_speed.max(now.v.abs());
            }
            self.last = now;
            return learned;
        }
        let h1 = now.time - self.last.time;
        if h1.is_nan() || h1 <= 0.0 {
            self.last = now;
            return learned;
        }
        let dv = now.v - self.last.v;
        if self.f_next_read && !self.next_readable {
            // Read only after the step: no master held it over the step.
            self.last_next = 0.0;
        }
        let holds_before = self.master_holds_next;
        // A master that reads f_next and never f_mean holds f_next: it steps all units at once.
        if !self.held_told && self.f_next_read && !self.f_mean_read {
            self.master_holds_next = Some(true);
            self.holds_next_settled = true;
        }
        // Which force did the master hold: f_mean (it stepped the gap first) or the f_next output
        // before the step (it stepped all units at once)? Where they differ, the one that fits
        // the external acceleration seen so far; the model then owes the master the difference.
        if self.last_next != self.last_force && !self.held_told && self.f_mean_read {
            // An answer settles the reading where it is clearer than what the change of the
            // external acceleration over the last step could explain; until then each step's
            // answer may change it. A master does not change its scheme during a run: once
            // settled, a step overturns the reading only where its answer is [`OVERTURN`] times
            // clearer than that and a mass off by the warning margin together. A body pushed
            // through a contact by a spring behind it answered a Jacobi master's step 0.1 m/s^2
            // closer to f_mean, the reading flipped, and E_port and the owed motion went off by
            // the difference of the two forces.
            let doubt = self.a_ext_trend();
            let mut told = None;
            // A force a rounding away from zero is none: a body on a spring driven near resonance,
            // held 1.4e-11 N by a Jacobi master, answered 0.3 m/s^2 closer to a 0.37 N f_mean
            // through the extrapolation's miss, and E_port went off by that force's work.
            let rounding_apart = 1e-9 * self.last_force.abs().max(self.last_next.abs());
            let next_is_none = self.last_next.abs() <= rounding_apart;
            let mean_is_none = self.last_force.abs() <= rounding_apart;
            match mass {
                // Where one of them is zero, the velocity change tells without a mass (a wrong
                // one can tie the fit below): did the master's bodies feel a force at all? In
                // the first step the external acceleration is taken as 0: a contact's answer
                // stands out of any gravity.
                // Both within rounding of zero: no force either way.
                _ if mean_is_none && next_is_none => {}
                _ if mean_is_none || next_is_none => {
                    let expected = self.a_ext(Extrapolation::Linear, self.last.time, h1);
                    let forced_change = self.last_force.abs().max(self.last_next.abs()) * h1
                        / mass.unwrap_or(f64::INFINITY);
                    // With a mass, the boundary lies where a force answered through a mass 2x
                    // off still falls on its side; without one, only rounding is unforced.
                    let tolerance = if mass.is_some() {
                        0.25 * forced_change
                    } else {
                        self.rounding(now, ANSWER_ROUNDING)
                    };
                    let unexplained = (dv - expected * h1).abs();
                    let unforced = unexplained <= tolerance;
                    let margin = (unexplained - tolerance).abs();
                    // Before any external acceleration is known, a change that is not zero may
                    // be its: a reading, not a settled one. Gravity's change over a Jacobi
                    // master's first step (0.065 m/s down), read as the answer to a f_mean it
                    // never held (0.23 m/s up through half the mass), once settled that the
                    // master holds f_mean; a ball then flew off at 13 m/s from 1.
                    let measured = self.a_ext_count > 0 || unforced;
                    // Overturned only out of what the extrapolation has been missing by as well:
                    // a body a spring pushes in and out of a resting contact is extrapolated
                    // through masses its answers blur, and a passivity force of 0.5 N once
                    // turned a Jacobi master's reading to f_mean.
                    let clear = (
                        measured && margin > doubt * h1,
                        measured && margin > OVERTURN * (doubt + self.a_ext_miss) * h1,
                    );
                    // Before any external acceleration is known, a velocity change may be
                    // gravity's; no change at all is no force (the held one would have to
                    // cancel an unseen one exactly).
                    if measured || mass.is_some() {
                        told = Some((next_is_none == unforced, clear));
                    }
                }
                Some(m) if self.a_ext_count > 0 => {
                    let expected = self.a_ext(Extrapolation::Linear, self.last.time, h1);
                    let misfit = |force: f64| (dv / h1 + force / m - expected).abs();
                    // Two forces a rounding apart (the prediction made one step earlier is the
                    // force itself while nothing new happens) cannot be told apart: the misfits
                    // then differ by noise, which once made a master that holds f_mean look as
                    // if it held f_next (`model::tests`).
                    let separation = (self.last_next - self.last_force).abs() / m;
                    let noise = 1e-9 * (dv.abs() / h1 + self.last_force.abs() / m + expected.abs());
                    if separation > noise {
                        let (if_next, if_mean) = (misfit(self.last_next), misfit(self.last_force));
                        let largest = self.last_next.abs().max(self.last_force.abs()) / m;
                        let margin = (if_next - if_mean).abs();
                        let clear = (
                            margin > doubt,
                            margin > OVERTURN * (doubt + DISAGREEMENT * largest),
                        );
                        told = Some((if_next < if_mean, clear));
                    }
                }
                _ => {}
            }
            if let Some((holds_next, (settles, overturns))) = told {
                if !self.holds_next_settled || overturns {
                    self.master_holds_next = Some(holds_next);
                    self.holds_next_settled |= settles;
                }
            }
        }
        // A step whose force is the same under both readings and not zero answers with the mass
        // on its own; kept to settle which force the master held when a contact window cannot.
        if mass.is_none()
            && self.master_holds_next.is_none()
            && self.last_force == self.last_next
            && self.last_force != 0.0
            && self.a_ext_count > 0
        {
            let expected = self.a_ext(Extrapolation::Linear, self.last.time, h1);
            let answered = dv - expected * h1;
            let estimate = -self.last_force * h1 / answered;
            if estimate.is_finite() && estimate > 0.0 {
                self.step_estimate = estimate;
            }
        }
        // The force the master held, where it is known which one it was (two forces a rounding
        // apart are the same answer).
        let applied = match self.master_holds_next {
            Some(true) => Some(self.last_next),
            Some(false) => Some(self.last_force),
            None => ((self.last_next - self.last_force).abs()
                <= 1e-9 * self.last_force.abs().max(self.last_next.abs()))
            .then_some(self.last_force),
        };
        // The port's energy follows from the master's own displacement: a held force's work on
        // the bodies is exact whatever moved them. Where it is not known yet which force was
        // held, the step's own f_mean is the best reading.
        if holds_before.is_none() && self.master_holds_next == Some(true) {
            // Told only now that the master holds f_next: the port received what f_next did.
            self.e_port = self.e_port_if_next;
        }
        self.last_held = applied.unwrap_or(self.last_force);
        self.e_port += self.last_held * (now.s - self.last.s);
        self.e_port_if_next += self.last_next * (now.s - self.last.s);
        if let (Some(m), Some(applied)) = (mass, applied) {
            // The model owes the master what a force other than the assumed one did.
            let extra = (applied - self.assumed_held) / m;
            self.owed_s += 0.5 * extra * h1 * h1;
            self.owed_v += extra * h1;
        }
        let from_force = match applied {
            Some(0.0) => Some(0.0),
            Some(force) => mass.map(|m| force / m),
            None => None,
        };
        // Before this step's mean joins them: a contact's first step measures the external
        // acceleration only through the mass it is to test.
        let a_ext_before_step = self.a_ext_before_contact();
        let known_before_step = self.a_ext_count > 0;
        let trend_before_step = self.a_ext_trend();
        let mut learned_mean = false;
        if let Some(force_acceleration) = from_force {
            let mean = dv / h1 + force_acceleration;
            if applied == Some(0.0) && mean.is_finite() {
                self.a_free = mean;
            }
            if mean.is_finite() {
                learned_mean = true;
                // How far the linear extrapolation of the two before missed it: what a probe's
                // answer read through that extrapolation must stand out of.
                self.a_ext_miss = if self.a_ext_count == 2 {
                    (mean - self.a_ext(Extrapolation::Linear, self.last.time, h1)).abs()
                } else {
                    0.0
                };
                self.a_ext_means = [mean, self.a_ext_means[0]];
                self.a_ext_times = [self.last.time + 0.5 * h1, self.a_ext_times[0]];
                self.a_ext_count = (self.a_ext_count + 1).min(2);
            }
        }
        if !self.mass_confirmed && mass.is_some() && self.a_ext_count == 2 {
            // A body pushed by changing forces (springs, a drive) cannot test the mass in use:
            // its answers take the external acceleration as it was before. That mass is then
            // trusted from the start, as only a steady one (a lone body, gravity) can be doubted.
            let scale = self.a_ext_means[0].abs() + now.v.abs() / h1;
            if self.a_ext_trend() > 1e-6 * scale {
                self.mass_confirmed = true;
            }
        }
        if self.last_contact_impulse != 0.0 && !self.episode.open {
            // A master already inside the contact at the step's start met it in the step before,
            // over which it held no force (the motion extrapolated without the acceleration
            // that took it there): the contact started there.
            let met_unanswered = distance_outside(ends, self.last.s) < 0.0
                && self.before_last.time < self.last.time
                && distance_outside(ends, self.before_last.s) >= 0.0
                && self.last_held_before == 0.0;
            // An unforced step's own mean is the external acceleration through it, and so is
            // that of a step whose force changed the velocity by a hundredth of what the external
            // acceleration did, whatever the mass's error, where nothing was measured before (a
            // contact met at the end of the first step: taken as 0 instead, gravity's part of
            // the next answer was read as the contact's, a 0.5 kg ball told 0.82 kg, and a
            // Jacobi master threw it at 3.3 m/s from 0.6).
            let own_mean_is_external = learned_mean
                && (applied == Some(0.0)
                    || (!known_before_step
                        && (from_force.unwrap_or(f64::INFINITY) * h1).abs()
                            <= 0.01 * (self.a_ext_means[0] * h1).abs()));
            self.episode = Episode {
                open: true,
                start: if met_unanswered {
                    self.before_last
                } else {
                    self.last
                },
                a_ext: if own_mean_is_external {
                    self.a_ext_means[0]
                } else {
                    a_ext_before_step
                },
                a_ext_known: known_before_step || own_mean_is_external,
                ..Episode::default()
            };
        }
        // A step that held a probe did not deliver the contact from the master's motion: the
        // contact is still unresolved after it.
        if self.last_contact_impulse != 0.0 && !self.probe_pending {
            self.episode.contact_steps += 1;
        }
        if self.episode.open {
            // Every force the master held inside the window counts, corrections included; which
            // of the two it held may only be told at the window's end.
            self.episode.impulse_if_mean += self.last_force * h1;
            self.episode.impulse_if_next += self.last_next * h1;
            self.episode.dissipated += self.last_dissipated;
        }
        // Every force the coupling made the master hold answers with the mass: the contact's,
        // and the corrections after it.
        let coupled = !self.ignore_answers
            && (self.last_contact_impulse != 0.0 || self.episode.open || self.owed_s != 0.0);
        let largest_held = self.last_force.abs().max(self.last_next.abs());
        if coupled && applied.is_none() && self.asks(largest_held, h1, mass, now) {
            // The master answered, but which force it held is not known yet: nothing contradicts
            // the mass in use.
            self.trust_mass_in_use(mass);
        }
        if self.probe_pending && mass.is_none() {
            self.probe_pending =
                self.learn_from_probe(&mut learned, applied, dv, h1, a_ext_before_step, now);
        } else if mass.is_none() {
            // Every force held without a mass tells how heavy the bodies are at least.
            self.raise_mass_floor(now, dv, h1, f64::INFINITY);
        }
        if let (true, Some(force)) = (coupled, applied) {
            // The external acceleration the answer is read against, the steps since it was
            // measured (it has drifted by the trend that many times since: a correction step well
            // after a contact's start is read against the acceleration before the contact), and
            // whether it was measured at all.
            let (a_before, age, a_known) = if self.episode.open {
                let steps_since = ((now.time - self.episode.start.time) / h1).round();
                (
                    self.episode.a_ext,
                    steps_since.max(1.0),
                    self.episode.a_ext_known,
                )
            } else {
                (a_ext_before_step, 1.0, known_before_step)
            };
            let answer = Answer {
                force,
                a_before,
                trend: trend_before_step,
                age,
                a_known,
                dv,
                h: h1,
            };
            self.learn_from_answer(&mut learned, answer, now, mass);
        }
        if self.last_contact_impulse == 0.0 && self.episode.open {
            self.episode.open = false;
            self.disagreement_reported = false;
            let duration = now.time - self.episode.start.time;
            let answered = now.v - self.episode.start.v - self.episode.a_ext * duration;
            if self.master_holds_next.is_none()
                && self.step_estimate > 0.0
                && self.episode.impulse_if_next != self.episode.impulse_if_mean
            {
                // The reading whose window estimate agrees with the single step's.
                let misfit = |impulse: f64| (-impulse / answered / self.step_estimate - 1.0).abs();
                self.master_holds_next = Some(
                    misfit(self.episode.impulse_if_next) < misfit(self.episode.impulse_if_mean),
                );
            }
            let impulse = match self.master_holds_next {
                Some(true) => Some(self.episode.impulse_if_next),
                Some(false) => Some(self.episode.impulse_if_mean),
                None => (self.episode.impulse_if_next == self.episode.impulse_if_mean)
                    .then_some(self.episode.impulse_if_mean),
            };
            // Only a clear answer counts: the velocity change must stand out of the rounding.
            let clear = answered.abs() > 1e-6 * (now.v.abs() + self.episode.start.v.abs());
            let estimate = impulse.map(|impulse| -impulse / answered);
            if let Some(estimate) = estimate.filter(|e| clear && e.is_finite() && *e > 0.0) {
                learned.new_estimate = Some(estimate);
                self.last_estimate = estimate;
                // A master that holds f_next gets the extrapolated impulse a step late whatever the
                // step, so for it the estimate is adopted from any contact; for one that holds
                // f_mean only from a contact that the steps could not resolve (over more steps the
                // extrapolated impulse is already accurate).
                let unresolved = self.episode.contact_steps <= MAX_STEPS_OF_AN_UNRESOLVED_CONTACT
                    || self.master_holds_next == Some(true);
                if unresolved {
                    self.candidate = Candidate {
                        estimate,
                        a_ext_before: self.episode.a_ext,
                        duration,
                        answered,
                    };
                }
            }
        }
        // The estimate takes the external acceleration as steady through the contact: it is
        // adopted once a free step after the contact agrees with the one before, to 1 % of the
        // contact's answer (another contact on the same body, a spring that moves with it or a
        // driven part would make it wrong, and the dynamic step worse than the extrapolated one).
        if self.candidate.estimate > 0.0 && learned_mean {
            let Candidate {
                estimate,
                a_ext_before,
                duration,
                answered,
            } = self.candidate;
            // The fallback where no contact step's answer stood out on its own.
            let steady =
                (self.a_ext_means[0] - a_ext_before).abs() * duration <= 0.01 * answered.abs();
            if steady && mass.is_none() && self.mass_estimate == 0.0 && !self.ignore_answers {
                self.replay_pending = true;
                self.mass_estimate = estimate;
                self.mass_confirmed = true;
            }
            self.candidate = Candidate::default();
        }
        let returned = -(self.e_port + self.initial_energy);
        if returned <= 1e-9 * self.e_port.abs() && now.v.is_finite() {
            self.passive_speed = self.passive_speed.max(now.v.abs());
        }
        self.before_last = self.last;
        self.last_held_before = self.last_held;
        self.last = now;
        learned
    }

    /// What one step's answer says of the mass: the force the master held over it against the
    /// velocity change it caused, the external acceleration taken as it was before the contact
    /// (or the step). Published as `m_eff_estimate`; where a mass is in use and the answer stands
    /// out clearly, adopted beyond [`STEADY_ADOPTION`] or [`DISAGREEMENT`] (warned beyond the
    /// latter), and the contact is then replayed with it. Without a mass the estimate waits for
    /// the contact's end (`Candidate`): a master that prescribes the motion answers no force, and
    /// one step cannot tell.
    fn learn_from_answer(
        &mut self,
        learned: &mut Learned,
        answer: Answer,
        now: Observed,
        mass: Option<f64>,
    ) {
        let Answer {
            force,
            mut a_before,
            trend,
            age,
            a_known,
            dv,
            h: h1,
        } = answer;
        if !self.asks(force, h1, mass, now) {
            return;
        }
        if a_known {
            self.unknown_answer = (0.0, 0.0);
        } else {
            // Taken as 0, the external acceleration is a second unknown: one answer cannot tell
            // it from the mass (gravity's part of a first step's answer, read as the contact's,
            // told 2.7 kg for a 0.5 kg ball, and the contact threw it at 5.5 m/s from 1). Two
            // answers to different forces tell both, the acceleration taken as the same; until
            // then one answer is taken with the acceleration as 0 only within the mass errors a
            // user makes (a factor of 2), beyond which it waits.
            let (first_force, first_rate) = self.unknown_answer;
            let rate = dv / h1;
            let distinct = (force - first_force).abs() > 0.1 * force.abs().max(first_force.abs());
            let mass_told = -(force - first_force) / (rate - first_rate);
            if first_force != 0.0 && distinct && mass_told > 0.0 && mass_told.is_finite() {
                self.unknown_answer = (0.0, 0.0);
                a_before = rate + force / mass_told;
                if self.episode.open {
                    self.episode.a_ext = a_before;
                    self.episode.a_ext_known = true;
                }
            } else {
                self.unknown_answer = (force, rate);
                let alone = -force / rate;
                let plausible = mass.is_none_or(|m| {
                    (1.0 / UNKNOWN_ACCELERATION_RANGE..=UNKNOWN_ACCELERATION_RANGE)
                        .contains(&(alone / m))
                });
                if !plausible {
                    return;
                }
            }
        }
        let rounding = self.rounding(now, ANSWER_ROUNDING);
        let answered = dv - a_before * h1;
        let estimate = -force * h1 / answered;
        if !(answered.abs() > rounding && estimate.is_finite() && estimate > 0.0) {
            // No mass can be read from it (a body pushed by springs or a drive during the
            // contact): the mass in use stays trusted.
            self.trust_mass_in_use(mass);
            return;
        }
        // The estimate takes the external acceleration as it was before: an answer counts where
        // it stands well out of what that acceleration changed by since it was measured (a
        // spring behind the body, a drive), as far as the two steps before tell (`trend`, per
        // step, times the steps since). Counted over the last step only, a correction five steps
        // into a second contact of a body with another behind it on a spring read 0.61 kg for
        // 1 kg, the given mass was replaced, and the bodies lost 6 % of their energy.
        // Within the step, an external acceleration that changes (linearly, as a spring's does)
        // bends the master's position off the parabola its velocities span, by a twelfth of the
        // change times h^2: what it changed by over the step follows from the positions.
        let bend = bend_off_parabola(self.last, now);
        let change_within = 12.0 * bend.abs() / h1;
        let variation = trend * age * h1 + change_within;
        let unclear = rounding + 10.0 * variation;
        let stands_out = answered.abs() > unclear + 0.1 * (a_before * h1).abs();
        // An answer that does not stand out tells no mass: a driven body held 7e-16 N (a
        // correction's rounding residue) answered with its drive's change, and m_eff_estimate
        // read 0.0008 kg for 30 steps.
        if stands_out {
            self.last_estimate = estimate;
        }
        let Some(m) = mass else {
            return;
        };
        // An external acceleration seen constant (a lone body, gravity) makes the answer exact:
        // then even a small disagreement is the mass's.
        let steady = self.a_ext_count == 2 && variation <= 1e-6 * answered.abs();
        let adoption = if steady {
            STEADY_ADOPTION
        } else {
            DISAGREEMENT
        };
        // A mass in use is doubted only on an answer that also stands out of the external
        // acceleration itself, and never by more than a factor of four in one answer.
        if stands_out && !(0.25..=4.0).contains(&(estimate / m)) {
            return;
        }
        // An answer that cannot tell (a body pushed by springs or a drive during the contact)
        // leaves the mass in use trusted, as one that agrees confirms it.
        self.trust_mass_in_use(mass);
        if !stands_out {
            return;
        }
        let disagreement = (estimate / m - 1.0).abs();
        if disagreement > adoption {
            // The step's external acceleration was measured through the wrong mass: the estimate
            // took it as before the contact.
            if self.a_ext_count > 0 {
                self.a_ext_means[0] = a_before;
            }
            if disagreement > DISAGREEMENT && !self.disagreement_reported {
                learned.disagreement = Some((estimate, m));
                self.disagreement_reported = true;
            }
            self.mass_estimate = estimate;
            self.replay_pending = true;
        }
    }

    /// The master has answered a force the coupling made: the mass in use (if any) is trusted
    /// from now on, unless the answer adopts another. A correction that waited for the answer
    /// catches up in two steps instead of three.
    fn trust_mass_in_use(&mut self, mass: Option<f64>) {
        if mass.is_none() || self.mass_confirmed {
            return;
        }
        if self.correction.pace == Pace::ThreeStep {
            self.correction.pace = Pace::DeadBeat;
        }
        self.mass_confirmed = true;
    }

    /// Before the first step: where the master moved its bodies since initialization by one
    /// step (it stepped them first), that step is taken as one the master held no force over,
    /// from the initial motion, and tells the external acceleration. A contact the motion met in
    /// it opens the contact episode there, to be replayed with the mass at once (without one, as
    /// soon as a probe's answer tells it), so that the impulse the master missed is delivered in
    /// the following steps.
    pub fn begin_after_unseen_step<L: ContactLaw>(
        &mut self,
        law: &L,
        initial: Observed,
        now: Observed,
        h: f64,
        limits: SubstepLimits,
    ) {
        let moved = initial.s != now.s || initial.v != now.v;
        // One step's motion, not start values the master replaced before stepping: the position
        // moved by about the mean of the two velocities times the step (exactly so under a
        // constant acceleration; a force that changes within the step bends it by a fraction of
        // the velocity change times the step).
        let mean_motion = 0.5 * (initial.v + now.v) * h;
        let slack = 0.25 * (now.v - initial.v).abs() * h
            + 1e-9 * (now.s.abs().max(initial.s.abs()) + mean_motion.abs());
        let plausible = (now.s - initial.s - mean_motion).abs() <= slack;
        if self.last_h != 0.0 || !moved || !plausible {
            return;
        }
        // A step like any other, over which the master held no force: its velocity change is
        // the external acceleration's, which the answer to the first probe needs (taken as 0,
        // gravity's change of a ball's speed over the step was read as the answer to a probe
        // 1e-5 of the contact's, the mass came out negative, and the next step delivered the
        // contact along the motion from a step's fall deep in the floor: 1 kg thrown at 251 m/s
        // from a 5 cm drop).
        self.last = Observed {
            time: now.time - h,
            ..initial
        };
        self.last_h = h;
        self.last_force = 0.0;
        self.last_next = 0.0;
        self.assumed_held = 0.0;
        if let Some(impulse) = contact_over_unheld_step(law, initial, now, h, limits) {
            self.last_contact_impulse = impulse;
            self.replay_pending = true;
        }
    }

    /// At a step start, with a mass: a master inside the contact range that the model's last step
    /// did not bring into contact, over which nothing was held (the model missed it: in the first
    /// step no external acceleration is known yet, so a body falling under gravity from rest was
    /// taken as standing still). That step is taken as one the master held no force over, as
    /// after an unseen step: its contact opens the episode at its start, replayed at once with
    /// the external acceleration the step has just shown, and the impulse the master missed is
    /// delivered in the following steps. Integrated from where the master is instead, the contact
    /// started deep in the stop: a 1 kg ball dropped 5 cm onto c = 1e4 N/m at steps of ten contact
    /// durations was thrown at 51 m/s.
    pub fn begin_after_missed_contact<L: ContactLaw>(
        &mut self,
        law: &L,
        now: Observed,
        limits: SubstepLimits,
    ) {
        let ends = law.contact_ends();
        let h = now.time - self.last.time;
        let missed = self.last_h > 0.0
            && h > 0.0
            && self.last_contact_impulse == 0.0
            && self.last_force == 0.0
            && self.last_next == 0.0
            && !self.episode.open
            && !self.replay_pending
            && distance_outside(ends, now.s) < 0.0
            && distance_outside(ends, self.last.s) >= 0.0;
        if !missed {
            return;
        }
        if let Some(impulse) = contact_over_unheld_step(law, self.last, now, h, limits) {
            self.last_contact_impulse = impulse;
            self.replay_pending = true;
        }
    }

    /// After a contact given through a wrong mass, whose velocity the correction restores: once
    /// the master and the model are both clear of the contact (or the master is, and the model
    /// rests in it for good), the model takes the master's position. The offset the wrong mass
    /// left is the master's motion, which the FMU does not steer toward its own; inside the
    /// contact range the model's position decides the contact force, so it is kept there.
    ///
    /// A master that is not taken back to the model's position (it holds `f_next`) and is still
    /// in the contact range, heading in, while the model is clear of it, meets the contact again
    /// with the model at the contact's edge: the rest of the offset is penetration that no force
    /// of the contact stored. Kept whole, the stop lay that much further in: a body a second body
    /// pushed back in went on into it without any force, 760 times the initial energy came out.
    pub fn forgive_position<L: ContactLaw>(&mut self, law: &L, master: Motion, mass: f64) {
        let ends = law.contact_ends();
        let master_outside = distance_outside(ends, master.s);
        let model_outside = distance_outside(ends, master.s + self.owed_s);
        // A model resting in a one-sided contact, its motion and spring too weak to climb out
        // against the external acceleration, would hold the master's bodies where they are by a
        // contact they are clear of (a ball thrown up by a contact through twice its mass was
        // held 9 cm above the floor by the force of a model resting on it, and rose).
        let model_v = master.v + self.owed_v;
        let depth = -model_outside;
        let model_rests = ends.0.is_none()
            && model_outside < 0.0
            && master.a < 0.0
            && 0.5 * model_v * model_v + stored_spring_energy(law, depth) / mass
                < -master.a * depth;
        if self.correction.pace == Pace::VelocityFirst
            && self.owed_s != 0.0
            && master_outside > 0.0
            && (model_outside > 0.0 || model_rests)
        {
            self.owed_s = 0.0;
            self.correction.count = 0;
        }
        if ends.0.is_none()
            && self.master_holds_next == Some(true)
            && master_outside < 0.0
            && model_outside > 0.0
            && master.v + self.owed_v <= 0.0
        {
            self.owed_s -= model_outside;
        }
    }

    /// The model starts no deeper in a one-sided contact than the energy it can account for:
    /// what the port has received and the contact has not dissipated, and what the master's
    /// bodies still have to give (their kinetic energy above the model's, which the correction
    /// takes from them). A model deeper than that got there along a motion no force of the contact
    /// answered (a probe's step, a first step integrated without the acceleration that took the
    /// body in), and integrated from there it threw the bodies out with spring energy nothing
    /// stored: a 3.8 kg ball met in its first step at 30 contact durations, 6 m into the floor,
    /// left at 380 m/s. Such a start is taken back towards the contact's edge, to the depth whose
    /// spring energy is accounted for.
    pub fn fund_the_model_start<L: ContactLaw>(&mut self, law: &L, master: Motion, mass: f64) {
        let (lower, upper) = law.contact_ends();
        let start = master.s + self.owed_s;
        let depth = upper - start;
        // Not under a master one step behind: it holds the f_next planned from the start as it
        // was, and a start moved after that leaves the step's account at odds with the force it
        // holds (in the random sweep that turned bounded runs into blow-ups).
        if lower.is_some() || depth <= 0.0 || self.master_holds_next == Some(true) {
            return;
        }
        let model_v = master.v + self.owed_v;
        let to_give = 0.5 * mass * (master.v * master.v - model_v * model_v);
        let paid = (self.e_port + self.initial_energy - self.model_loss).max(0.0);
        let funded = (paid + to_give).max(0.0);
        // Twice the accounted energy is let pass: the mean force a master holds over a contact's
        // step does not do the model's work exactly, and such a start is the model's own motion.
        if stored_spring_energy(law, depth) <= UNFUNDED_MARGIN * funded {
            return;
        }
        // The stored energy grows with the depth, convex for a spring that stiffens: Newton's
        // steps from the deep side come down to the funded depth without overshooting it.
        let mut funded_depth = if funded > 0.0 { depth } else { 0.0 };
        for _ in 0..MAX_FUNDING_ITERATIONS {
            if funded_depth == 0.0 {
                break;
            }
            let excess = stored_spring_energy(law, funded_depth) - funded;
            let force = law.evaluate(upper - funded_depth, 0.0).f_c.abs();
            if excess <= 1e-9 * funded || force <= 0.0 {
                break;
            }
            funded_depth = (funded_depth - excess / force).max(0.0);
        }
        self.owed_s = upper - funded_depth - master.s;
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
    /// force that is not 0 without one): a smaller one, a free step's rounding residue (1e-15 N),
    /// asks the master nothing, and its answer neither confirms a mass nor tells one.
    fn asks(&self, force: f64, h: f64, mass: Option<f64>, now: Observed) -> bool {
        mass.map_or(force != 0.0, |m| {
            (force * h / m).abs() > self.rounding(now, ANSWER_ROUNDING)
        })
    }

    /// How much the external acceleration changed between the last two steps it is known for.
    fn a_ext_trend(&self) -> f64 {
        if self.a_ext_count == 2 {
            (self.a_ext_means[0] - self.a_ext_means[1]).abs()
        } else {
            0.0
        }
    }

    /// The external acceleration of the free step before a contact: the newest mean, which the
    /// contact's step could not give.
    fn a_ext_before_contact(&self) -> f64 {
        if self.a_ext_count > 0 {
            self.a_ext_means[0]
        } else {
            0.0
        }
    }

    /// The mean external relative acceleration over `[start, start + h]`.
    pub fn a_ext(&self, extrapolation: Extrapolation, start: f64, h: f64) -> f64 {
        match (extrapolation, self.a_ext_count) {
            (Extrapolation::None, _) | (_, 0) => 0.0,
            (Extrapolation::Constant, _) | (_, 1) => self.a_ext_means[0],
            (Extrapolation::Linear, _) => {
                let [m1, m2] = self.a_ext_means;
                let [t1, t2] = self.a_ext_times;
                let slope = (m1 - m2) / (t1 - t2);
                let a = m1 + slope * (start + 0.5 * h - t1);
                if a.is_finite() {
                    a
                } else {
                    m1
                }
            }
        }
    }

    /// One step of the coupled model from the master's motion `master` over `[0, h]` with the
    /// mass `mass` and external acceleration `a_ext`: the force the master should hold
    /// (contact impulse over h plus the correction, plus the passivity controller's force
    /// `passivity`), the model's step, and what stays owed.
    pub fn plan<L: ContactLaw>(
        owed: (f64, f64),
        correction: Correction,
        law: &L,
        master: Motion,
        dynamics: Dynamics,
        h: f64,
        passivity: f64,
    ) -> Plan {
        let Dynamics { mass, a_ext, .. } = dynamics;
        let fuse = correction.fuse;
        let start = Motion {
            s: master.s + owed.0,
            v: master.v + owed.1,
            a: a_ext,
        };
        let step = integrate_dynamics(law, start, dynamics, h);
        let impulse = step.integral.impulse;
        // Where the model ends against where a held force of impulse/h would have taken it;
        // without contact in the step the two agree (up to rounding, which is not an offset).
        let in_contact = step.integral.substeps > 0;
        let shape = if in_contact {
            let held = Motion {
                a: a_ext - impulse / (mass * h),
                ..start
            };
            step.end.s - held.at(h).s
        } else {
            0.0
        };
        // A contact due within the next two steps would meet a three-step correction half done
        // (the bodies' positions then carry the offset into it): plan the two-step one instead.
        let end = step.end;
        let free = Motion {
            s: end.s - law.s_rel0(),
            v: end.v,
            a: a_ext,
        };
        // Still in contact at the end, the next step plans anew anyway.
        let span = ContactSpan::of(law);
        let contact_soon = span.outside(free.s) >= 0.0 && entry_time(free, span, 2.0 * h).is_some();
        // While the mass is in doubt: the bodies' speed, and what the contact's own impulse in
        // this step changes it by, bound the shift (`Correction::next`).
        let speed = start.v.abs().max(master.v.abs());
        let contact_change = (impulse / mass).abs();
        let cap = (1.5 * speed - contact_change).max(0.0) * h;
        // A master inside the contact range that its velocity will not take out of it (a ball
        // the first steps let through the floor), or any master while the model is in contact
        // (a resting contact), is taken back to the model's position.
        let depth = -span.outside(master.s - law.s_rel0());
        let leaves = end.v > 0.0 && (a_ext >= 0.0 || end.v * end.v >= 2.0 * depth * -a_ext);
        let one_sided = law.contact_ends().0.is_none();
        // The model in contact: where the master is decides the contact force it answers with.
        let model_in_contact = span.outside(start.s - law.s_rel0()) < 0.0;
        let stuck = correction.recover && one_sided && depth > 0.0 && (!leaves || model_in_contact);
        // Held to the model's energy only where the model ends the step clear of the contact.
        let bound_to_model_energy = correction.energy_bounded && span.outside(free.s) >= 0.0;
        let (shift, correction) = correction.next(
            owed,
            shape,
            h,
            Situation {
                in_contact,
                contact_soon,
                stuck,
                cap,
            },
        );
        let (shift, correction) = if bound_to_model_energy {
            energy_bounded_shift(
                shift,
                correction,
                master,
                step.end,
                impulse / mass,
                a_ext,
                h,
            )
        } else {
            (shift, correction)
        };
        let force = impulse / h - mass * shift / (h * h);
        // The passivity controller acts between contacts only: in one, the contact's own force
        // decides what the port receives.
        let passivity = if in_contact { 0.0 } else { passivity };
        let held = force + passivity;
        let fused = fuse.apply(held, master.v, mass, h);
        let (force, passivity, correction) = if fused == held {
            (force, passivity, correction)
        } else {
            // Cut: planned anew from where the master then is.
            let anew = Correction {
                pace: correction.pace,
                ..Correction::default()
            };
            (fused, 0.0, anew)
        };
        let master_end = held_over(master, a_ext - force / mass, h);
        Plan {
            // The passivity controller's force acts on the master alone: the model does not
            // owe it back.
            force: force + passivity,
            passivity,
            step,
            owed: (step.end.s - master_end.s, step.end.v - master_end.v),
            correction,
        }
    }
}

/// The largest part of the shift `shift` that leaves the master's bodies, at the step's end, with
/// no more mechanical energy than the model's (per unit of mass: the kinetic energy and the
/// potential of the external acceleration `a_ext`), or no more than they would have without it.
/// A correction through an estimated mass takes the master toward the model, never above the
/// model's energy: a ball whose position lags behind the model's is not thrown faster than its
/// rebound to catch up. Cut, the plan is made anew at the next step: the offset is caught up as
/// fast as the energy allows (under gravity, as the lag in height pays for). Forgiving the rest
/// instead (`Pace::VelocityFirst`) left more balls resting in the floor, and a prescribed motion
/// (`tests/memcheck.rs`'s workload) 4.5 times slower, its model wandering deep into the stop.
fn energy_bounded_shift(
    shift: f64,
    correction: Correction,
    master: Motion,
    model_end: Motion,
    velocity_change: f64,
    a_ext: f64,
    h: f64,
) -> (f64, Correction) {
    let unshifted = held_over(master, a_ext - velocity_change / h, h);
    let energy = |s: f64, v: f64| 0.5 * v * v - a_ext * s;
    let model_energy = energy(model_end.s, model_end.v);
    let unshifted_energy = energy(unshifted.s, unshifted.v);
    let unshifted_excess = unshifted_energy - model_energy;
    // A shift w moves the end by w/2 and its velocity by w/h: the excess is a*w^2 + b*w + c.
    let a = 0.5 / (h * h);
    let b = unshifted.v / h - 0.5 * a_ext;
    let excess = |w: f64| (a * w + b) * w + unshifted_excess;
    let allowed = unshifted_excess.max(0.0);
    // Rounding of the excess itself is no excess: a shift within it passes whole (cut at every
    // step instead, the demo's plans were made anew each step and its bodies left the MSL tube).
    let scale = model_energy.abs() + unshifted_energy.abs();
    let rounding = 1e-12 * scale;
    // NaN (a motion that is not finite): passed on whole, the step's own test refuses it.
    let over = excess(shift);
    if shift == 0.0 || over.is_nan() || over <= allowed + rounding {
        return (shift, correction);
    }
    // The excess is convex in w and within bounds at 0: the bound is met up to the root on the
    // shift's side.
    let c = unshifted_excess - allowed;
    let root = (b * b - 4.0 * a * c).max(0.0).sqrt();
    let bounded = if shift > 0.0 {
        (-b + root) / (2.0 * a)
    } else {
        (-b - root) / (2.0 * a)
    };
    let kept = Correction {
        pace: correction.pace,
        robust: correction.robust,
        ..Correction::default()
    };
    // A hair short of the root: at the root itself rounding let a ball bouncing for many steps
    // gain 1e-11 of its energy per flight (tests/contact_dynamics.rs).
    let bounded = (1.0 - 1e-9) * bounded;
    (bounded.clamp(shift.min(0.0), shift.max(0.0)), kept)
}

/// The impulse of the contact that the master's motion from `from` to `now` (a step of `h` over
/// which it held no force, so uniformly accelerated) met along the way, if it met one: what a
/// step the FMU did not see, or saw and missed, owes the master.
fn contact_over_unheld_step<L: ContactLaw>(
    law: &L,
    from: Observed,
    now: Observed,
    h: f64,
    limits: SubstepLimits,
) -> Option<f64> {
    let motion = Motion {
        s: from.s,
        v: from.v,
        a: (now.v - from.v) / h,
    };
    let integral = integrate_step(law, motion, h, limits);
    (integral.substeps > 0 && integral.impulse.is_finite()).then_some(integral.impulse)
}

/// Where the master's relative motion is after `h` under a held force, i.e. a constant
/// acceleration.
pub fn held_over(master: Motion, acceleration: f64, h: f64) -> Motion {
    Motion {
        a: acceleration,
        ..master
    }
    .at(h)
}

/// What [`Coupling::plan`] decided for one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The mean force to hold over the step.
    pub force: f64,
    /// The passivity controller's part of it.
    pub passivity: f64,
    pub step: DynamicStep,
    /// Model minus master at the step's end, if the master holds `force`.
    pub owed: (f64, f64),
    /// The correction plan after this step (its `expected` offsets for the caller to set).
    pub correction: Correction,
}

/// The model's motion over `[0, duration]` from the master's motion at a contact's start, with a
/// mass now known: what the first contact should have been.
pub fn replay<L: ContactLaw>(
    law: &L,
    episode: &Episode,
    dynamics: Dynamics,
    duration: f64,
) -> DynamicStep {
    // A contact starts at its edge: a master already deep in it at the episode's start was
    // there without the model (an offset a wrong mass or a probed contact left), and a replay
    // from there would return spring energy no force of the contact stored.
    let ends = law.contact_ends();
    let depth = -distance_outside(ends, episode.start.s);
    let s = if ends.0.is_none() && depth > 0.0 {
        episode.start.s + depth
    } else {
        episode.start.s
    };
    let start = Motion {
        s,
        v: episode.start.v,
        a: episode.a_ext,
    };
    integrate_dynamics(
        law,
        start,
        Dynamics {
            a_ext: episode.a_ext,
            ..dynamics
        },
        duration,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::GapLaw;

    #[test]
    fn a_settled_contact_returns_no_more_than_its_margin_of_what_it_dissipated() {
        // Three contacts' worth received (3 J), the last one dissipating 1 J, then settled: a
        // body approaching at 2 m/s may be given back at most SETTLED_MARGIN J beyond what the
        // coming step's force receives, whatever the earlier contacts took.
        let (mass, h, v) = (2.0, 1e-3, 2.0);
        let mut coupling = Coupling {
            e_port: 3.0,
            e_port_if_next: 3.0,
            episode: Episode {
                dissipated: 1.0,
                ..Episode::default()
            },
            last: Observed {
                time: 0.0,
                s: 0.0,
                v,
            },
            ..Coupling::default()
        };
        let work = |force: f64| force * (v * h - 0.5 * force * h * h / mass);
        // The admissible forces are those whose work is at least minus what may be returned.
        let returned = |coupling: &Coupling| {
            let (low, high) = coupling.port(mass).admissible(h);
            (-work(low), -work(high))
        };
        let (low, high) = returned(&coupling);
        assert!(
            (low - 3.0).abs() < 1e-9 && (high - 3.0).abs() < 1e-9,
            "{low} {high}"
        );
        coupling.settle_port();
        let (low, high) = returned(&coupling);
        assert!((low - SETTLED_MARGIN).abs() < 1e-9, "{low}");
        assert!((high - SETTLED_MARGIN).abs() < 1e-9, "{high}");
        let low = coupling.port(mass).admissible(h).0;
        // Settling again changes nothing; a port that has given energy away stays owed.
        coupling.settle_port();
        assert_eq!(coupling.port(mass).admissible(h).0, low);
        coupling.e_port -= 2.0;
        coupling.settle_port();
        assert!(coupling.port(mass).received < -1.0);
    }

    #[test]
    fn a_position_offset_is_removed_in_three_steps_without_net_impulse() {
        // Far from contact the law gives no force: only the correction acts.
        let law = GapLaw {
            s_rel0: -1.0,
            ..GapLaw::default()
        };
        let dynamics = Dynamics {
            mass: 2.0,
            a_ext: 0.0,
            tolerance: 1e-9,
        };
        let h = 0.01;
        let mut master = Motion {
            s: 0.0,
            v: 0.5,
            a: 0.0,
        };
        let mut owed = (1e-3, 0.0);
        let mut correction = Correction::default();
        let mut impulse = 0.0;
        let mut largest_offset: f64 = 0.0;
        for _ in 0..3 {
            let plan = Coupling::plan(owed, correction, &law, master, dynamics, h, 0.0);
            impulse += plan.force * h;
            let a = -plan.force / dynamics.mass;
            master = Motion {
                s: master.s + h * (master.v + 0.5 * a * h),
                v: master.v + a * h,
                a: 0.0,
            };
            owed = plan.owed;
            correction = Correction {
                expected: owed,
                ..plan.correction
            };
            largest_offset = largest_offset.max(owed.0.abs());
        }
        // In between, the offset is at most a quarter of the original one.
        assert!(largest_offset <= 0.25e-3 * (1.0 + 1e-9), "{largest_offset}");
        assert!(owed.0.abs() < 1e-15 && owed.1.abs() < 1e-12, "{owed:?}");
        // Against the 0.2 N.s each of the two steps gives.
        assert!(impulse.abs() < 1e-12, "{impulse}");
        // The master now moves exactly as the model: 1 mm ahead of where it was headed.
        assert!((master.s - (1e-3 + 0.5 * 3.0 * h)).abs() < 1e-14);
        assert!((master.v - 0.5).abs() < 1e-13);
    }

    #[test]
    fn a_replay_starts_the_contact_at_its_edge_and_releases_no_spring_energy_it_did_not_store() {
        // A master 5 cm deep in a 1e6 N/m stop at rest at the episode's start: no force of the
        // contact put it there. From the edge at rest, under no external force, nothing moves;
        // from the depth the spring alone would throw 1 kg out at 50 m/s.
        let law = GapLaw {
            c: 1e6,
            d: 0.0,
            ..GapLaw::default()
        };
        let episode = Episode {
            open: true,
            start: Observed {
                time: 0.0,
                s: -0.05,
                v: 0.0,
            },
            ..Episode::default()
        };
        let dynamics = Dynamics {
            mass: 1.0,
            a_ext: 0.0,
            tolerance: 1e-9,
        };
        let replayed = replay(&law, &episode, dynamics, 0.01);
        assert_eq!(replayed.end.s, 0.0);
        assert_eq!(replayed.end.v, 0.0);
        // Met at 1 m/s from the edge, the undamped contact returns the body at 1 m/s.
        let moving = Episode {
            start: Observed {
                v: -1.0,
                ..episode.start
            },
            ..episode
        };
        let replayed = replay(&law, &moving, dynamics, 0.01);
        assert!((replayed.end.v - 1.0).abs() < 1e-6, "{:?}", replayed.end);
    }

    #[test]
    fn a_model_start_deeper_than_the_port_paid_for_is_taken_back_to_the_funded_depth() {
        // A linear stop of 1e6 N/m: 0.5 J of spring energy at 1 mm.
        let law = GapLaw {
            c: 1e6,
            d: 0.0,
            ..GapLaw::default()
        };
        let master = Motion {
            s: -0.05,
            v: -1.0,
            a: 0.0,
        };
        let deep = |e_port: f64, owed_v: f64| {
            let mut coupling = Coupling {
                e_port,
                owed_v,
                ..Coupling::default()
            };
            coupling.fund_the_model_start(&law, master, 2.0);
            master.s + coupling.owed_s
        };
        // Nothing paid, nothing to give (the model moves as the master): at the edge.
        assert!(deep(0.0, 0.0).abs() < 1e-15, "{}", deep(0.0, 0.0));
        // 0.5 J received: 1 mm deep, to Newton's tolerance.
        assert!((deep(0.5, 0.0) + 1e-3).abs() < 1e-9, "{}", deep(0.5, 0.0));
        // The master still to give 2 kg's kinetic energy above the model's (1 m/s against 0.5):
        // 0.75 J more, 1.581 mm.
        let expected = -(2.0 * 1.25 / 1e6_f64).sqrt();
        assert!(
            (deep(0.5, 0.5) - expected).abs() < 1e-9,
            "{}",
            deep(0.5, 0.5)
        );
        // A start whose spring energy (1,250 J at 5 cm) the port paid for stays where it is.
        assert_eq!(deep(1250.0, 0.0), -0.05);
    }

    #[test]
    fn a_shift_through_an_estimated_mass_gives_the_master_no_more_energy_than_the_model() {
        // A ball under gravity 2 mm below the model, both rising at 0.8 m/s after a bounce, 5 ms
        // steps: the three-step plan's first shift (1.5 times the offset) would throw it up at
        // 1.4 m/s.
        let (g, h) = (9.81, 5e-3);
        let master = Motion {
            s: 0.0,
            v: 0.8,
            a: -g,
        };
        let model_end = Motion {
            s: 0.002 + 0.8 * h - 0.5 * g * h * h,
            v: 0.8 - g * h,
            a: -g,
        };
        let planned = 1.5 * 0.002;
        let (shift, after) = energy_bounded_shift(
            planned,
            Correction::default(),
            master,
            model_end,
            0.0,
            -g,
            h,
        );
        // Per kilogram: the kinetic energy and g times the height, at the end of the step under
        // the held shift (a velocity change of shift/h, a position change of shift/2).
        let energy = |s: f64, v: f64| 0.5 * v * v + g * s;
        let free_end = (master.s + master.v * h - 0.5 * g * h * h, master.v - g * h);
        let shifted = energy(free_end.0 + 0.5 * shift, free_end.1 + shift / h);
        let model = energy(model_end.s, model_end.v);
        assert!(shift > 0.0 && shift < planned, "{shift}");
        assert!(
            shifted <= model && model - shifted < 1e-9 * model,
            "{shifted} against {model}"
        );
        // What the ball may gain is g times its 2 mm lag, 0.0196 J/kg: at 0.751 m/s, a velocity
        // u more with u^2/2 + (v + g*h/2)*u = g*lag, 24.9 mm/s.
        let v_end = master.v - g * h;
        let reach = v_end + 0.5 * g * h;
        let u = -reach + (reach * reach + 2.0 * g * 0.002).sqrt();
        assert!((shift / h - u).abs() < 1e-9, "{} against {u}", shift / h);
        // Planned anew at the next step, at the same pace.
        assert_eq!((after.count, after.pace), (0, Pace::ThreeStep));
        // A shift that takes energy from the master (a ball above the model) passes whole.
        let above = Motion { s: 0.004, ..master };
        let slowing = -1.5 * 0.002;
        let (kept, plan) =
            energy_bounded_shift(slowing, Correction::default(), above, model_end, 0.0, -g, h);
        assert_eq!((kept, plan), (slowing, Correction::default()));
    }

    /// A coupling that has read one answer: the master's relative motion left `v0` at time 0 and
    /// changed by the answer's `dv` over its step, at a constant acceleration (the position
    /// follows from the two velocities).
    fn after_one_answer(v0: f64, answer: Answer, mass: Option<f64>) -> Coupling {
        let Answer { dv, h, .. } = answer;
        let mut coupling = Coupling {
            last: Observed {
                time: 0.0,
                s: 0.0,
                v: v0,
            },
            ..Coupling::default()
        };
        let now = Observed {
            time: h,
            s: (v0 + 0.5 * dv) * h,
            v: v0 + dv,
        };
        coupling.learn_from_answer(&mut Learned::default(), answer, now, mass);
        coupling
    }

    #[test]
    fn an_answer_read_against_an_acceleration_measured_steps_ago_allows_for_its_drift() {
        // 1 kg with a spring behind it whose push grows by 1 m/s^2 per 5 ms step, held a 22 N
        // correction five steps after the contact's start. Read against the acceleration before
        // the contact, the answer says 22/17 kg; the push drifted by 5 m/s^2 since, which is
        // all the answer's shortfall, and the given 1 kg stays. Measured one step ago, the same
        // reading would be a mass 29 % off, doubted and replaced.
        let h = 0.005;
        let answer_after = |age: f64| {
            let (a_before, trend, force) = (-20.0, 1.0, -22.0);
            let a_now = a_before - 5.0;
            let answer = Answer {
                force,
                a_before,
                trend,
                age,
                a_known: true,
                dv: (a_now - force / 1.0) * h,
                h,
            };
            after_one_answer(0.5, answer, Some(1.0))
        };
        let five_steps_on = answer_after(5.0);
        assert_eq!(five_steps_on.mass_estimate, 0.0);
        assert!(!five_steps_on.replay_pending);
        let one_step_on = answer_after(1.0);
        assert!((one_step_on.mass_estimate - 22.0 / 17.0).abs() < 1e-9);
        assert!(one_step_on.replay_pending);
    }

    #[test]
    fn two_answers_through_an_unknown_acceleration_tell_the_mass_and_the_acceleration() {
        // A 0.5 kg ball under 9.81 m/s^2 nothing had measured, given m_eff = 0.75 kg, meets the
        // stop late in the first step: the step held 6 N, the next 1,279 N. Read with the
        // acceleration as 0, the first answer says 2.7 kg: beyond a user's error of the mass,
        // it waits. The second, to a force 200 times larger, tells both: 0.5 kg and -9.81 m/s^2.
        let (mass, gravity, h) = (0.5, -9.81, 2.5e-3);
        let mut coupling = Coupling {
            episode: Episode {
                open: true,
                ..Episode::default()
            },
            ..Coupling::default()
        };
        let (mut s, mut v) = (0.0, -1.0);
        let mut answer_to = |coupling: &mut Coupling, force: f64, time: f64| {
            let dv = (gravity - force / mass) * h;
            coupling.last = Observed {
                time: time - h,
                s,
                v,
            };
            s += (v + 0.5 * dv) * h;
            v += dv;
            let now = Observed { time, s, v };
            let answer = Answer {
                force,
                a_before: 0.0,
                trend: 0.0,
                age: 1.0,
                a_known: false,
                dv,
                h,
            };
            coupling.learn_from_answer(&mut Learned::default(), answer, now, Some(0.75));
        };
        answer_to(&mut coupling, -6.0, h);
        assert_eq!(coupling.mass_estimate, 0.0);
        assert!(!coupling.replay_pending);
        answer_to(&mut coupling, -1279.0, 2.0 * h);
        assert!(
            (coupling.mass_estimate / mass - 1.0).abs() < 1e-9,
            "{}",
            coupling.mass_estimate
        );
        assert!((coupling.episode.a_ext / gravity - 1.0).abs() < 1e-9);
        assert!(coupling.episode.a_ext_known);
        assert!(coupling.replay_pending);
    }

    #[test]
    fn a_master_clear_of_a_contact_its_model_rests_in_for_good_is_not_held_by_it() {
        // A ball a contact through a wrong mass threw up: the master is 15 cm above a 5e3 N/m
        // floor under 9.81 m/s^2, the model 0.98 mm deep in it (its weight's static deflection
        // for 0.5 kg) with the master's velocity. Resting there, the model would hold the ball
        // up with its weight's force: its position gives way to the master's. Moving out at
        // 1 m/s, it would leave the floor on its own: kept until it has.
        let law = GapLaw {
            c: 5e3,
            d: 0.0,
            ..GapLaw::default()
        };
        let (mass, depth) = (0.5, 0.5 * 9.81 / 5e3);
        let forgiven = |v: f64| {
            let mut coupling = Coupling {
                owed_s: -0.15 - depth,
                correction: Correction {
                    pace: Pace::VelocityFirst,
                    ..Correction::default()
                },
                ..Coupling::default()
            };
            let master = Motion {
                s: 0.15,
                v,
                a: -9.81,
            };
            coupling.forgive_position(&law, master, mass);
            coupling.owed_s == 0.0
        };
        assert!(forgiven(0.01));
        assert!(!forgiven(1.0));
    }

    #[test]
    fn an_answer_within_a_drives_change_tells_no_mass() {
        // A 1 kg body on a drive whose acceleration changes by 2 m/s^2 per 10 ms step, held a
        // force: the estimate is published where the answer stands out of that change, never
        // from one it drowns in (a correction's rounding residue once read 0.0008 kg).
        let h = 0.01;
        let ask = |force: f64| {
            // The drive's acceleration grows linearly: 1 m/s^2 over the step before, 3 over
            // this one's end, so its mean over the step is 2 against the 1 taken before.
            let (a_before, trend, a_mean) = (1.0, 2.0, 2.0);
            let answer = Answer {
                force,
                a_before,
                trend,
                age: 1.0,
                a_known: true,
                dv: (a_mean - force / 1.0) * h,
                h,
            };
            after_one_answer(0.1, answer, None).last_estimate
        };
        // Pushes of 7e-16 N and 1 mN change the velocity by far less than the drive's change.
        assert_eq!(ask(-7e-16), 0.0);
        assert_eq!(ask(-1e-3), 0.0);
        // 500 N stands out: the estimate is the mass up to the drive's change over the step
        // (-F*h/(dv - a_before*h) = 500/(500 + 1)).
        let told = ask(-500.0);
        assert!((told - 500.0 / 501.0).abs() < 1e-9, "{told}");
    }
}
