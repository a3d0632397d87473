//! Exact (high-accuracy) solutions of one body against the ElastoGap contact, computed without the
//! crate's code: classical RK4 on the body's ODE with the contact start and end located by
//! bisection, so that each stretch the integrator crosses has a continuous right-hand side.
//!
//! The body is at flange_b, flange_a is fixed at 0, so `s_rel = x`; it feels `-f` from the gap
//! (`f <= 0` in contact, which is `x < s_rel0`) and `external(t, x, v)` from everything else.

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
        }
    }

    fn rhs(&self, t: f64, y: [f64; 3], contact: bool) -> [f64; 3] {
        let b = &self.body;
        let (f, loss) = if contact {
            gap_force(b.c, b.d, y[0] - b.s_rel0, y[1])
        } else {
            (0.0, 0.0)
        };
        [y[1], ((b.external)(t, y[0], y[1]) - f) / b.mass, loss]
    }

    fn rk4(&self, t: f64, y: [f64; 3], h: f64, contact: bool) -> [f64; 3] {
        let k1 = self.rhs(t, y, contact);
        let k2 = self.rhs(
            t + 0.5 * h,
            std::array::from_fn(|i| y[i] + 0.5 * h * k1[i]),
            contact,
        );
        let k3 = self.rhs(
            t + 0.5 * h,
            std::array::from_fn(|i| y[i] + 0.5 * h * k2[i]),
            contact,
        );
        let k4 = self.rhs(t + h, std::array::from_fn(|i| y[i] + h * k3[i]), contact);
        std::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
    }

    /// Whether a state lies on the other side of the contact boundary than the current mode.
    fn crossed(&self, y: [f64; 3]) -> bool {
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
            let y = [self.x, self.v, self.dissipated];
            let y1 = self.rk4(self.t, y, dt, self.in_contact);
            if !self.crossed(y1) {
                [self.x, self.v, self.dissipated] = y1;
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
            [self.x, self.v, self.dissipated] = self.rk4(self.t, y, hi, self.in_contact);
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
