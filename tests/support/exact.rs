//! Exact (high-accuracy) solutions of one body against the ElastoGap contact, computed without the
//! crate's code: classical RK4 on the body's ODE with the contact start and end located by
//! bisection, so that each stretch the integrator crosses has a continuous right-hand side.
//!
//! The body is at flange_b, flange_a is fixed at 0, so `s_rel = x`; it feels `-f` from the gap
//! (`f <= 0` in contact, which is `x < s_rel0`) and `external(t, x, v)` from everything else.

/// One classical RK4 step of `dy/dt = f(t, y)` from `(t, y)` over `h`: exact for a polynomial
/// motion of degree 4 or less, so for a body under a force held constant over the step. `f` may
/// call an FMU (a Model Exchange instance's right-hand side), hence `FnMut`.
pub fn rk4_step<const N: usize>(
    mut f: impl FnMut(f64, [f64; N]) -> [f64; N],
    t: f64,
    y: [f64; N],
    h: f64,
) -> [f64; N] {
    let shifted = |k: &[f64; N], by: f64| -> [f64; N] { std::array::from_fn(|i| y[i] + by * k[i]) };
    let k1 = f(t, y);
    let k2 = f(t + 0.5 * h, shifted(&k1, 0.5 * h));
    let k3 = f(t + 0.5 * h, shifted(&k2, 0.5 * h));
    let k4 = f(t + h, shifted(&k3, h));
    std::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
}

/// One body, its surroundings and the contact law (n = 1, the MSL ElastoGap).
pub struct Body<'a> {
    pub mass: f64,
    pub c: f64,
    pub d: f64,
    pub s_rel0: f64,
    pub external: &'a dyn Fn(f64, f64, f64) -> f64,
}

/// The gap force `f` (the body feels `-f`) and the power it dissipates, in contact.
pub fn gap_force(c: f64, d: f64, s: f64, v: f64) -> (f64, f64) {
    let f_c = c * s;
    let f_d = (d * v).max(-f_c.abs()).min(f_c.abs());
    (f_c + f_d, f_d * v)
}

/// A located contact, from its start to its end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactEvent {
    pub start: f64,
    pub end: Option<f64>,
    /// The body's velocity when the contact started.
    pub v_in: f64,
    pub v_out: Option<f64>,
}

/// The integrator's state: time, position, velocity, dissipated energy and the contact mode.
pub struct Exact<'a> {
    pub body: Body<'a>,
    pub t: f64,
    pub x: f64,
    pub v: f64,
    pub dissipated: f64,
    pub in_contact: bool,
    /// RK4 step in free flight and in contact.
    pub dt_free: f64,
    pub dt_contact: f64,
    pub events: Vec<ContactEvent>,
    /// A second body tied to this one by a spring ([`Exact::with_partner`]), and its state.
    pub partner: Option<Partner>,
    pub partner_x: f64,
    pub partner_v: f64,
    /// The lowest position the body reached so far (at the integrator's steps and events).
    pub lowest: f64,
}

/// A second body behind the contacting one, tied to it by a linear spring: the spring pushes the
/// two apart with `stiffness * (rest_length - (partner_x - x))`.
#[derive(Clone, Copy, Debug)]
pub struct Partner {
    pub mass: f64,
    pub stiffness: f64,
    pub rest_length: f64,
}

impl Partner {
    /// The force the spring puts on the partner (the contacting body feels its opposite).
    pub fn force_on_partner(&self, x: f64, partner_x: f64) -> f64 {
        self.stiffness * (self.rest_length - (partner_x - x))
    }
}

/// A master's plant `dy/dt` at `y = [x, v, partner_x, partner_v]`: the contacting body of `mass`
/// feels `force` (the gap's and every other force on it) and the spring to its partner, if any.
pub fn plant_rates(mass: f64, partner: Option<Partner>, y: [f64; 4], force: f64) -> [f64; 4] {
    let on_partner = partner.map_or(0.0, |p| p.force_on_partner(y[0], y[2]));
    let partner_accel = partner.map_or(0.0, |p| on_partner / p.mass);
    [y[1], (force - on_partner) / mass, y[3], partner_accel]
}

impl<'a> Exact<'a> {
    pub fn new(body: Body<'a>, x: f64, v: f64, dt_free: f64, dt_contact: f64) -> Exact<'a> {
        let in_contact = x < body.s_rel0;
        Exact {
            body,
            t: 0.0,
            x,
            v,
            dissipated: 0.0,
            in_contact,
            dt_free,
            dt_contact,
            events: Vec::new(),
            partner: None,
            partner_x: 0.0,
            partner_v: 0.0,
            lowest: x,
        }
    }

    /// Ties a second body at `partner_x`, moving at `partner_v`, to the contacting one.
    pub fn with_partner(self, partner: Partner, partner_x: f64, partner_v: f64) -> Exact<'a> {
        Exact {
            partner: Some(partner),
            partner_x,
            partner_v,
            ..self
        }
    }

    /// The state as integrated: position, velocity, dissipated energy, the partner's position
    /// and velocity.
    fn state(&self) -> [f64; 5] {
        [
            self.x,
            self.v,
            self.dissipated,
            self.partner_x,
            self.partner_v,
        ]
    }

    fn set_state(&mut self, y: [f64; 5]) {
        [
            self.x,
            self.v,
            self.dissipated,
            self.partner_x,
            self.partner_v,
        ] = y;
        self.lowest = self.lowest.min(self.x);
    }

    fn rhs(&self, t: f64, y: [f64; 5], contact: bool) -> [f64; 5] {
        let b = &self.body;
        let (f, loss) = if contact {
            gap_force(b.c, b.d, y[0] - b.s_rel0, y[1])
        } else {
            (0.0, 0.0)
        };
        let (spring, partner_accel) = match self.partner {
            Some(p) => {
                let on_partner = p.force_on_partner(y[0], y[3]);
                (-on_partner, on_partner / p.mass)
            }
            None => (0.0, 0.0),
        };
        [
            y[1],
            ((b.external)(t, y[0], y[1]) + spring - f) / b.mass,
            loss,
            y[4],
            partner_accel,
        ]
    }

    fn rk4(&self, t: f64, y: [f64; 5], h: f64, contact: bool) -> [f64; 5] {
        rk4_step(|t, y| self.rhs(t, y, contact), t, y, h)
    }

    /// Whether a state lies on the other side of the contact boundary than the current mode.
    fn crossed(&self, y: [f64; 5]) -> bool {
        let inside = y[0] < self.body.s_rel0;
        inside != self.in_contact
    }

    /// Integrates to `target`, stopping at every contact start and end to switch the law.
    pub fn advance_to(&mut self, target: f64) {
        while self.t < target {
            let dt = if self.in_contact {
                self.dt_contact
            } else {
                self.dt_free
            }
            .min(target - self.t);
            let y = self.state();
            let y1 = self.rk4(self.t, y, dt, self.in_contact);
            if !self.crossed(y1) {
                self.set_state(y1);
                self.t += dt;
                if target - self.t < 1e-15 * target.abs().max(1.0) {
                    self.t = target;
                }
                continue;
            }
            // Bisection on the step length for the crossing instant.
            let (mut lo, mut hi) = (0.0, dt);
            for _ in 0..80 {
                let mid = 0.5 * (lo + hi);
                if self.crossed(self.rk4(self.t, y, mid, self.in_contact)) {
                    hi = mid;
                } else {
                    lo = mid;
                }
                if hi - lo <= f64::EPSILON * (self.t.abs() + dt) {
                    break;
                }
            }
            self.set_state(self.rk4(self.t, y, hi, self.in_contact));
            self.t += hi;
            self.in_contact = !self.in_contact;
            if self.in_contact {
                self.events.push(ContactEvent {
                    start: self.t,
                    end: None,
                    v_in: self.v,
                    v_out: None,
                });
            } else if let Some(last) = self.events.last_mut() {
                last.end = Some(self.t);
                last.v_out = Some(self.v);
            }
        }
    }

    /// Positions and velocities at the given (increasing) instants.
    pub fn sample(&mut self, times: &[f64]) -> Vec<(f64, f64)> {
        times
            .iter()
            .map(|&t| {
                self.advance_to(t);
                (self.x, self.v)
            })
            .collect()
    }
}
