//! RecurDyn's stick–slip (Max Stiction Deformation): below the static threshold speed `v_s` the
//! contact sticks, and its friction is a spring on a tangential deformation `xi` that saturates at
//! static friction: `f_t = mu_s*|f|*xi/delta` with `|xi| <= delta` (`maxStictionDeformation`).
//! While sticking `dxi/dt = v_t`, except that on the circle `|xi| = delta` the part of `v_t` that
//! would take `xi` out is dropped (the contact slides there at static friction, and that part's
//! power is dissipated); while slipping (`|v_t| >= v_s`) the friction is the curve's along the slip
//! and `xi = delta*v_t/|v_t|`, so that sticking again starts from the force slipping had. Out of
//! contact `xi = 0`. A body under a tangential load below `mu_s*|f|` so creeps at most `delta`
//! and then holds.

use super::tangential::{dot, slip_speed, PlaneForce};
use super::Friction;

impl Friction {
    /// Whether the contact sticks at the slip `v_t`: a stiction deformation is set and the slip
    /// is below the static threshold.
    pub fn sticks(&self, v_t: [f64; 2]) -> bool {
        self.max_stiction_deformation > 0.0 && slip_speed(v_t) < self.v_s
    }

    /// The deformation a slip that ended at `v_t` leaves: `delta` along it.
    pub fn deformation_after_slip(&self, v_t: [f64; 2]) -> [f64; 2] {
        let speed = slip_speed(v_t);
        if speed == 0.0 || !speed.is_finite() {
            return [0.0; 2];
        }
        v_t.map(|v| self.max_stiction_deformation * v / speed)
    }

    /// The sticking force at normal force `f` and deformation `xi`, its magnitude bounded by
    /// `f_t_max` where set, with the power it dissipates at the slip `v_t`: none inside the
    /// circle (the deformation stores it), `f_t.v_t` on it where `v_t` points out.
    pub fn stick_force(&self, f: f64, xi: [f64; 2], v_t: [f64; 2]) -> PlaneForce {
        let delta = self.max_stiction_deformation;
        let normal = f.abs();
        // A deformation beyond a circle made smaller since (the parameter is tunable) lies on it.
        let xi = within_circle(xi, delta);
        let mut stiffness = self.mu_s / delta;
        let mut f_t = xi.map(|x| stiffness * normal * x);
        let magnitude = slip_speed(f_t);
        let bounded = self.f_t_max > 0.0 && magnitude > self.f_t_max;
        if bounded {
            f_t = f_t.map(|x| x * self.f_t_max / magnitude);
            stiffness = 0.0;
        }
        let outward = on_circle(xi, delta) && dot(xi, v_t) > 0.0;
        let by_normal = xi.map(|x| stiffness * x);
        let (loss_power, loss_by_normal, loss_by_velocity) = if outward {
            (dot(f_t, v_t), dot(by_normal, v_t), f_t)
        } else {
            (0.0, 0.0, [0.0; 2])
        };
        PlaneForce {
            f_t,
            by_normal,
            by_velocity: [[0.0; 2]; 2],
            loss_power,
            loss_by_normal,
            loss_by_velocity,
        }
    }

    /// The sticking force's slopes by the deformation, `d f_t[i] / d xi[j]` (the spring's
    /// stiffness `mu_s*|f|/delta`; where `f_t_max` bounds it, only the turning across `xi`).
    pub fn stick_force_by_deformation(&self, f: f64, xi: [f64; 2]) -> [[f64; 2]; 2] {
        let stiffness = self.mu_s * f.abs() / self.max_stiction_deformation;
        let radius = slip_speed(xi);
        if self.f_t_max > 0.0 && stiffness * radius > self.f_t_max {
            let n = xi.map(|x| x / radius);
            let across = self.f_t_max / radius;
            return std::array::from_fn(|i| {
                std::array::from_fn(|j| across * (f64::from(u8::from(i == j)) - n[i] * n[j]))
            });
        }
        [[stiffness, 0.0], [0.0, stiffness]]
    }
}

/// Where the slip `v` pushes a deformation `xi` that lies on its circle (`on_circle`, as the
/// caller knows it) out of it: the circle's normal there, the slip's outward part along it and
/// the radius. None inside the circle or where the slip points in.
pub fn pushed_out(xi: [f64; 2], v: [f64; 2], on_circle: bool) -> Option<([f64; 2], f64, f64)> {
    let radius = slip_speed(xi);
    if !(on_circle && radius > 0.0) {
        return None;
    }
    let n = xi.map(|x| x / radius);
    let outward = dot(v, n);
    (outward > 0.0).then_some((n, outward, radius))
}

/// The deformation's rate while sticking: the slip `v`, less its outward part where it pushes
/// the deformation out of the circle (`pushed`, from [`pushed_out`]).
pub fn deformation_rate(v: [f64; 2], pushed: Option<([f64; 2], f64, f64)>) -> [f64; 2] {
    match pushed {
        Some((n, outward, _)) => [v[0] - outward * n[0], v[1] - outward * n[1]],
        None => v,
    }
}

/// `xi` brought back onto the circle of radius `delta` if it lies beyond it.
pub fn within_circle(xi: [f64; 2], delta: f64) -> [f64; 2] {
    let radius = slip_speed(xi);
    if radius > delta {
        xi.map(|x| x * delta / radius)
    } else {
        xi
    }
}

/// Whether `xi` lies on the circle `|xi| = delta` (to rounding).
pub fn on_circle(xi: [f64; 2], delta: f64) -> bool {
    slip_speed(xi) >= delta * (1.0 - 1e-12)
}

/// The deformation after a time `t` of the slip `v` held, from `xi`, kept in the disc of radius
/// `delta`: a straight line `xi + v*t` inside; on the circle, where `v` points out, the angle
/// `phi` between `xi` and `v` closes as `tan(phi/2) = tan(phi0/2)*exp(-|v|*t/delta)` (the
/// tangential part of `v` turns `xi`, `delta*dphi/dt = -|v|*sin(phi)`).
pub fn advance(xi: [f64; 2], v: [f64; 2], t: f64, delta: f64) -> [f64; 2] {
    let speed = slip_speed(v);
    if speed == 0.0 || t <= 0.0 || delta <= 0.0 {
        return xi;
    }
    // Inside (or back inside): the straight line up to the circle.
    let start = within_circle(xi, delta);
    let along = dot(start, v);
    let outward_on_circle = on_circle(start, delta) && along > 0.0;
    let (position, remaining) = if outward_on_circle {
        (start, t)
    } else {
        // |start + v*tau|^2 = delta^2, the root ahead.
        let a = speed * speed;
        let c = start[0] * start[0] + start[1] * start[1] - delta * delta;
        let discriminant = (along * along - a * c).max(0.0);
        let hit = (-along + discriminant.sqrt()) / a;
        if t <= hit {
            return [start[0] + v[0] * t, start[1] + v[1] * t];
        }
        let at_hit = [start[0] + v[0] * hit, start[1] + v[1] * hit];
        let length = slip_speed(at_hit);
        (at_hit.map(|x| x * delta / length), t - hit)
    };
    // On the circle: the angle from the slip's direction closes exponentially.
    let direction = [v[0] / speed, v[1] / speed];
    let normal = [-direction[1], direction[0]];
    let cos = dot(position, direction) / delta;
    let sin = dot(position, normal) / delta;
    let phi = sin.atan2(cos);
    let closed = 2.0 * ((0.5 * phi).tan() * (-speed * remaining / delta).exp()).atan();
    let (s, c) = closed.sin_cos();
    [
        delta * (c * direction[0] + s * normal[0]),
        delta * (c * direction[1] + s * normal[1]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same motion by explicit small steps of the projected rate (first order: 200,000
    /// steps leave an error well inside the test's tolerance).
    fn by_small_steps(mut xi: [f64; 2], v: [f64; 2], t: f64, delta: f64) -> [f64; 2] {
        let steps = 200_000;
        let dt = t / steps as f64;
        for _ in 0..steps {
            let mut rate = v;
            let radius = slip_speed(xi);
            if radius >= delta * (1.0 - 1e-9) {
                let n = [xi[0] / radius, xi[1] / radius];
                let out = v[0] * n[0] + v[1] * n[1];
                if out > 0.0 {
                    rate = [v[0] - out * n[0], v[1] - out * n[1]];
                }
            }
            xi = [xi[0] + rate[0] * dt, xi[1] + rate[1] * dt];
            let radius = slip_speed(xi);
            if radius > delta {
                xi = xi.map(|x| x * delta / radius);
            }
        }
        xi
    }

    #[test]
    fn the_deformation_follows_the_slip_and_turns_on_the_circle() {
        let delta = 1e-3;
        for (xi, v, t) in [
            ([0.0, 0.0], [2e-3, 0.0], 0.3),
            ([0.0, 0.0], [1e-3, 1e-3], 2.0),
            ([0.0, 9e-4], [3e-3, -1e-3], 0.9),
            ([-1e-3, 0.0], [1e-3, 0.0], 0.5),
            ([6e-4, 8e-4], [1e-3, -2e-3], 0.4),
        ] {
            let closed = advance(xi, v, t, delta);
            let stepped = by_small_steps(xi, v, t, delta);
            let error = slip_speed([closed[0] - stepped[0], closed[1] - stepped[1]]);
            assert!(
                error <= 1e-5 * delta,
                "from {xi:?} at {v:?} for {t}: {closed:?} against {stepped:?}"
            );
            assert!(slip_speed(closed) <= delta * (1.0 + 1e-12));
        }
    }

    #[test]
    fn inside_the_circle_the_deformation_is_the_slips_path() {
        let xi = advance([1e-4, -2e-4], [1e-3, 5e-4], 0.2, 1e-3);
        assert!((xi[0] - 3e-4).abs() < 1e-18 && (xi[1] + 1e-4).abs() < 1e-18);
    }
}
