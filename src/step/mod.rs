//! Integration of a contact law over a communication step, in two modes:
//! - [`kinematic`]: along the relative motion extrapolated from the inputs (the flanges are moved
//!   by the master whatever the force does);
//! - [`dynamic`]: the relative motion answers the contact force through an effective mass, so the
//!   step is exact for a body against a housing at any step size.
//!
//! Pure Rust: no FFI, no allocation, nothing about FMI.

mod adaptive;
mod affine;
pub mod dynamic;
pub mod kinematic;
pub mod plane;
mod roots;

pub use dynamic::{integrate_dynamics, DynamicStep};
pub use kinematic::integrate_step;
pub use plane::{integrate_plane_stretch, PlaneDynamics, PlaneMotion, PlaneStretch};
pub(crate) use roots::range_crossings;

/// Contact transitions an integral keeps for the event log.
pub const MAX_TRANSITIONS: usize = 4;

/// Relative motion over a step: `s(tau) = s + v*tau + a*tau^2/2`, `v(tau) = v + a*tau`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    pub s: f64,
    pub v: f64,
    pub a: f64,
}

impl Motion {
    pub fn at(&self, tau: f64) -> Motion {
        Motion {
            s: self.s + tau * (self.v + 0.5 * self.a * tau),
            v: self.v + self.a * tau,
            a: self.a,
        }
    }
}

/// A law's contact range in the integrators' coordinate `x = s_rel - s_rel0`, with contact
/// decided on `s_rel = s_rel0 + x` itself as the law decides it: a tiny `x` can round away
/// (`s_rel0 + x == s_rel0`), so the integrators ask this rather than compare `x`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ContactSpan {
    origin: f64,
    ends: (Option<f64>, f64),
}

impl ContactSpan {
    pub(crate) fn of<L: crate::laws::ContactLaw>(law: &L) -> Self {
        ContactSpan {
            origin: law.s_rel0(),
            ends: law.contact_ends(),
        }
    }

    /// How far `s_rel0 + x` is outside contact: negative inside, NaN for NaN.
    #[inline(always)]
    pub(crate) fn outside(&self, x: f64) -> f64 {
        crate::laws::distance_outside(self.ends, self.origin + x)
    }

    /// [`ContactSpan::outside`] and its rate along a motion at velocity `v`.
    pub(crate) fn outside_and_rate(&self, x: f64, v: f64) -> (f64, f64) {
        crate::laws::distance_outside_and_rate(self.ends, self.origin + x, v)
    }

    /// The ends as values of `x` (the upper one exactly 0 for a law in contact below `s_rel0`).
    pub(crate) fn ends_in_x(&self) -> (Option<f64>, f64) {
        (
            self.ends.0.map(|lower| lower - self.origin),
            self.ends.1 - self.origin,
        )
    }
}

/// How finely a step is cut while in contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubstepLimits {
    /// Longest piece.
    pub max_size: f64,
    /// Most pieces per contact phase.
    pub max_count: u32,
    /// Relative accuracy of the impulse and the dissipated energy for laws that are not
    /// piecewise affine; their pieces are bisected until it is met.
    pub tolerance: f64,
}

impl SubstepLimits {
    /// The nominal substep length for a step of length `h`.
    pub(crate) fn nominal(&self, h: f64) -> f64 {
        let wanted = (h / self.max_size).ceil();
        let count = if wanted.is_finite() {
            wanted.clamp(1.0, f64::from(self.max_count.max(1)))
        } else {
            f64::from(self.max_count.max(1))
        };
        h / count
    }
}

/// The two newest states a root search evaluated, by the time they belong to: the end of its
/// final bracket is one of them, so the state there is looked up rather than evaluated again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Evaluated<T> {
    newest_first: [(f64, T); 2],
}

impl<T: Copy> Evaluated<T> {
    pub(crate) fn new(tau: f64, value: T) -> Self {
        Evaluated {
            newest_first: [(tau, value); 2],
        }
    }

    /// Keeps `value`, evaluated at `tau`, and returns it.
    pub(crate) fn keep(&mut self, tau: f64, value: T) -> T {
        self.newest_first = [(tau, value), self.newest_first[0]];
        value
    }

    pub(crate) fn at(&self, tau: f64) -> Option<T> {
        self.newest_first
            .iter()
            .find(|(seen, _)| *seen == tau)
            .map(|(_, value)| *value)
    }
}

/// A contact start or end located inside a step, `tau` after the step's start.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Transition {
    pub tau: f64,
    pub entering: bool,
}

/// What one communication step produced.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepIntegral {
    /// Integral of f over the step (N.s).
    pub impulse: f64,
    /// Integral of lossPower over the step (J), `>= 0`.
    pub dissipated: f64,
    /// The first contact transitions in time order (a quadratic motion crosses `s_rel0` at most
    /// twice; the dynamic step may bounce more often): their instants and directions, kept apart
    /// so that an empty integral is a few wide stores (every step starts one).
    transition_times: [f64; MAX_TRANSITIONS],
    transitions_entering: [bool; MAX_TRANSITIONS],
    pub transition_count: usize,
    /// The relative velocity at the last touch-down inside the step: laws whose parameters
    /// depend on the impact speed keep it for the rest of the contact.
    pub touchdown_v_rel: Option<f64>,
    /// Quadrature pieces evaluated (0 when the step had no contact).
    pub substeps: u32,
}

impl StepIntegral {
    /// Empty again. The transitions past the count are never read, so they are left as they are.
    pub(crate) fn clear(&mut self) {
        self.impulse = 0.0;
        self.dissipated = 0.0;
        self.transition_count = 0;
        self.touchdown_v_rel = None;
        self.substeps = 0;
    }

    /// Adds one piece's impulse and dissipated energy.
    #[inline(always)]
    pub(crate) fn add_piece(&mut self, impulse: f64, dissipated: f64) {
        self.impulse += impulse;
        self.dissipated += dissipated;
        self.substeps += 1;
    }

    /// Records a transition at relative velocity `v_rel`; beyond the capacity only the count of
    /// the rest is lost.
    pub(crate) fn record(&mut self, tau: f64, entering: bool, v_rel: f64) {
        if entering {
            self.touchdown_v_rel = Some(v_rel);
        }
        if self.transition_count < MAX_TRANSITIONS {
            self.transition_times[self.transition_count] = tau;
            self.transitions_entering[self.transition_count] = entering;
            self.transition_count += 1;
        }
    }

    /// The transitions kept, in time order.
    pub fn transitions(&self) -> impl Iterator<Item = Transition> + '_ {
        let count = self.transition_count.min(MAX_TRANSITIONS);
        self.transition_times[..count]
            .iter()
            .zip(&self.transitions_entering[..count])
            .map(|(&tau, &entering)| Transition { tau, entering })
    }

    /// A contact that started and ended inside the step: its start and end.
    pub fn contact_within(&self) -> Option<(f64, f64)> {
        let entering = self.transitions_entering;
        (self.transition_count == 2 && entering[0] && !entering[1])
            .then(|| (self.transition_times[0], self.transition_times[1]))
    }
}
