//! The mass and the external acceleration told together by the master's last few answers.
//!
//! Each step whose held force is known gives one equation for the master's mean relative
//! acceleration over it: `dv/h = a_ext - F/m`. One answer read against an external acceleration
//! measured before (through the mass in use) cannot tell a wrong mass from the acceleration it
//! polluted: a Jacobi master holding forces through a mass below the body's, under gravity, can
//! have its acceleration read far off gravity's and its mass far below the body's, and throw the
//! body out at many times its speed. Fitted jointly over several steps, the mass is what the
//! forces' variation explains, and the external acceleration the rest: a line in time (gravity, a
//! drive, a second body's smooth motion) plus a term in the master's position (a spring behind the
//! body, whose force follows the body as the contact moves it, and would otherwise pass for
//! inertia: without it, a light body with a heavier one behind it on a stiff spring would be
//! fitted at many times its mass). The fit's own residual says whether that model held over the
//! window.

/// The answers kept: four unknowns and two more to judge the fit by.
pub const WINDOW: usize = 6;

/// The unknowns: the external acceleration's value, slope in time and stiffness in position, and
/// the inverse mass.
const UNKNOWNS: usize = 4;

/// The largest relative standard error of the fitted inverse mass for the fit to count.
const TRUSTED_SPREAD: f64 = 0.02;

/// The master's last answers, newest first: the middle instant of each step (s), the mean
/// relative position over it (m), the mean acceleration over it `dv/h` (m/s^2) and the force it
/// held (N).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AnswerWindow {
    pub times: [f64; WINDOW],
    pub positions: [f64; WINDOW],
    pub rates: [f64; WINDOW],
    pub forces: [f64; WINDOW],
    pub count: usize,
}

/// What the window tells: the effective mass (kg), and the external acceleration over the
/// window's steps read through it (m/s^2, newest first, at the window's times).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassFit {
    pub mass: f64,
    pub a_ext: [f64; WINDOW],
    pub times: [f64; WINDOW],
}

impl MassFit {
    /// The external acceleration over the window's step nearest to `time`.
    pub fn a_ext_near(&self, time: f64) -> f64 {
        let nearest = (0..WINDOW)
            .min_by(|&a, &b| {
                (self.times[a] - time)
                    .abs()
                    .total_cmp(&(self.times[b] - time).abs())
            })
            .unwrap_or(0);
        self.a_ext[nearest]
    }
}

type Column = [f64; WINDOW];

fn dot(a: &Column, b: &Column) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `value` less its projections on the orthogonal `basis` vectors.
fn unexplained(value: &Column, basis: &[Column]) -> Column {
    let mut rest = *value;
    for direction in basis {
        let norm = dot(direction, direction);
        if norm > 0.0 {
            let share = dot(&rest, direction) / norm;
            for (r, d) in rest.iter_mut().zip(direction) {
                *r -= share * d;
            }
        }
    }
    rest
}

impl AnswerWindow {
    pub fn push(&mut self, time: f64, position: f64, rate: f64, force: f64) {
        if !(time.is_finite() && position.is_finite() && rate.is_finite() && force.is_finite()) {
            return;
        }
        self.times.copy_within(0..WINDOW - 1, 1);
        self.positions.copy_within(0..WINDOW - 1, 1);
        self.rates.copy_within(0..WINDOW - 1, 1);
        self.forces.copy_within(0..WINDOW - 1, 1);
        (self.times[0], self.positions[0]) = (time, position);
        (self.rates[0], self.forces[0]) = (rate, force);
        self.count = (self.count + 1).min(WINDOW);
    }

    pub fn clear(&mut self) {
        *self = AnswerWindow::default();
    }

    /// The least-squares fit of `rate = a0 + a1*t + k*s - force/m` over a full window, where the
    /// forces varied independently of the rest and the residual leaves the inverse mass within
    /// [`TRUSTED_SPREAD`]; `None` otherwise.
    pub fn fit(&self) -> Option<MassFit> {
        if self.count < WINDOW {
            return None;
        }
        let n = WINDOW as f64;
        let t_mid = self.times.iter().sum::<f64>() / n;
        let s_mid = self.positions.iter().sum::<f64>() / n;
        // An orthogonal basis of what the external acceleration may be over the window.
        let constant = [1.0; WINDOW];
        let time = unexplained(&self.times.map(|t| t - t_mid), &[constant]);
        let position = unexplained(&self.positions.map(|s| s - s_mid), &[constant, time]);
        let basis = [constant, time, position];
        let force_rest = unexplained(&self.forces, &basis);
        let rate_rest = unexplained(&self.rates, &basis);
        let force_norm = dot(&force_rest, &force_rest);
        if force_norm.is_nan() || force_norm <= 0.0 {
            return None;
        }
        let inverse_mass = -dot(&rate_rest, &force_rest) / force_norm;
        let residual: f64 = rate_rest
            .iter()
            .zip(&force_rest)
            .map(|(r, f)| (r + inverse_mass * f).powi(2))
            .sum();
        // Rounding in the rates sets a floor under any residual: forces that varied too little
        // to stand out of it tell no mass, however well they fit.
        let scale = self.rates.iter().map(|r| r.abs()).fold(0.0, f64::max)
            + inverse_mass.abs() * self.forces.iter().map(|f| f.abs()).fold(0.0, f64::max);
        let variance = (residual / (n - UNKNOWNS as f64)).max((1e-9 * scale).powi(2));
        let spread = (variance / force_norm).sqrt();
        let trusted = inverse_mass > 0.0 && spread <= TRUSTED_SPREAD * inverse_mass;
        let mass = 1.0 / inverse_mass;
        (trusted && mass.is_finite()).then(|| MassFit {
            mass,
            a_ext: std::array::from_fn(|k| self.rates[k] + inverse_mass * self.forces[k]),
            times: self.times,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers at steps of 1 s, newest last in `forces`, of a body of `mass` under `a_ext(t, s)`
    /// moving along `position(t)`.
    fn window(
        forces: &[f64],
        a_ext: impl Fn(f64, f64) -> f64,
        position: impl Fn(f64) -> f64,
        mass: f64,
    ) -> AnswerWindow {
        let mut window = AnswerWindow::default();
        for (k, &force) in forces.iter().enumerate() {
            let time = k as f64 + 0.5;
            let s = position(time);
            window.push(time, s, a_ext(time, s) - force / mass, force);
        }
        window
    }

    const FORCES: [f64; 6] = [0.0, 30.0, 80.0, 20.0, -10.0, 45.0];

    #[test]
    fn forces_varying_through_a_linear_external_acceleration_tell_both_exactly() {
        let gravity_and_drive = |t: f64, _: f64| -9.81 + 2.0 * t;
        let fit = window(&FORCES, gravity_and_drive, |t| 0.1 * t * t, 2.97)
            .fit()
            .unwrap();
        assert!((fit.mass / 2.97 - 1.0).abs() < 1e-12, "{fit:?}");
        assert!(
            (fit.a_ext_near(5.4) - (-9.81 + 11.0)).abs() < 1e-10,
            "{fit:?}"
        );
    }

    #[test]
    fn a_spring_behind_the_body_is_not_taken_for_its_inertia() {
        // The spring's force follows the body's position, which the forces moved.
        let position = |t: f64| 0.02 * (t * 1.3).sin() + 0.01 * t;
        let spring = |t: f64, s: f64| -500.0 * s + 3.0 * t;
        let fit = window(&FORCES, spring, position, 0.17).fit().unwrap();
        assert!((fit.mass / 0.17 - 1.0).abs() < 1e-9, "{fit:?}");
    }

    #[test]
    fn forces_that_follow_the_rest_tell_no_mass() {
        let along_time: Vec<f64> = (0..6).map(|k| 10.0 * k as f64).collect();
        assert_eq!(window(&along_time, |_, _| -9.81, |t| t, 1.0).fit(), None);
        let along_position: Vec<f64> = (0..6)
            .map(|k| 7.0 * ((k as f64 + 0.5) * 0.9).cos())
            .collect();
        let position = |t: f64| (t * 0.9).cos();
        assert_eq!(
            window(&along_position, |_, _| -9.81, position, 1.0).fit(),
            None
        );
    }

    #[test]
    fn forces_that_hardly_vary_tell_no_mass() {
        let steady = [100.0, 100.0, 100.0 + 1e-9, 100.0, 100.0, 100.0];
        assert_eq!(window(&steady, |_, _| -9.81, |t| t, 3.0).fit(), None);
    }

    #[test]
    fn an_external_acceleration_far_from_the_model_is_not_trusted() {
        let oscillating = |t: f64, _: f64| 40.0 * (2.0 * t).sin();
        assert_eq!(window(&FORCES, oscillating, |t| 0.01 * t, 1.0).fit(), None);
    }

    #[test]
    fn five_answers_are_not_enough() {
        assert_eq!(window(&FORCES[..5], |_, _| 0.0, |t| t, 1.0).fit(), None);
    }
}
