//! Without a mass, which force a master held told by three answers in a row: under constant
//! external forces (a lone body, gravity), a step's velocity change is a line in the force held
//! over it, `dv/h = a - F/m`, whatever the mass and the acceleration. Only the reading the master
//! follows puts three answers on one line.

use super::probe::{PROBE_ROUNDING, SILENCE_CLARITY};
use super::{Coupling, Observed};

/// The readings of which force the master held over a step, by their column in an answer.
#[derive(Clone, Copy)]
enum Reading {
    /// The step's own `f_mean`.
    Mean = 1,
    /// The `f_mean` handed out a step before (a master one step late).
    Late = 2,
    /// The `f_next` read before the step.
    Next = 3,
}

/// The last three answers: each the velocity change over the step's length (m/s^2) and the force
/// (N) each [`Reading`] held over it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ThreeAnswers {
    pub(super) answers: [[f64; 4]; 3],
    /// How many answers are kept, up to 3.
    pub(super) count: u32,
}

impl ThreeAnswers {
    fn push(&mut self, answer: [f64; 4]) {
        self.answers = [self.answers[1], self.answers[2], answer];
        self.count = (self.count + 1).min(3);
    }

    /// The least-squares line of the three answers against `reading`'s forces: the largest
    /// residual (m/s^2) and the slope (`-1/m`; 0 where the forces are all one).
    fn line(&self, reading: Reading) -> (f64, f64) {
        let column = reading as usize;
        let mean = |index: usize| self.answers.iter().map(|a| a[index]).sum::<f64>() / 3.0;
        let (x_mean, y_mean) = (mean(column), mean(0));
        let (mut sxx, mut sxy) = (0.0, 0.0);
        for answer in &self.answers {
            let dx = answer[column] - x_mean;
            sxx += dx * dx;
            sxy += dx * (answer[0] - y_mean);
        }
        let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        let residual = self.answers.iter().fold(0.0_f64, |worst, a| {
            let off = a[0] - (y_mean + slope * (a[column] - x_mean));
            worst.max(off.abs())
        });
        (residual, slope)
    }
}

impl Coupling {
    /// Without a mass: keeps the step's answer, and tells whether the last three put the master
    /// one step late. The late reading's line must hold them within [`SILENCE_CLARITY`] times the
    /// velocities' rounding, with a positive mass, and every other reading's line miss by
    /// `SILENCE_CLARITY` times more. A contact in the run's first step leaves the first answer
    /// silent under both the late reading and an `f_next` of nothing read before it; the probes
    /// after it are each held a step late, and a lone body read as in time can be taken for a
    /// heavier one and thrown out with many times its energy.
    pub(super) fn tell_a_late_mean_by_three_answers(
        &mut self,
        now: Observed,
        h1: f64,
        dv: f64,
    ) -> bool {
        let next = if self.f_next_read {
            self.next_held()
        } else {
            0.0
        };
        let answer = [dv / h1, self.last_force, self.mean_before_last, next];
        self.last_answers.push(answer);
        // Three answers come after the run's first step, which `on_a_grid` lets pass alone.
        if self.last_answers.count < 3 || !self.on_a_grid(h1) {
            return false;
        }
        let rounding = self.rounding(now, PROBE_ROUNDING) / h1;
        let (late, slope) = self.last_answers.line(Reading::Late);
        let mean = self.last_answers.line(Reading::Mean).0;
        let next = if self.f_next_read {
            self.last_answers.line(Reading::Next).0
        } else {
            f64::INFINITY
        };
        let on_the_line = slope < 0.0 && late <= SILENCE_CLARITY * rounding;
        on_the_line && mean.min(next) > SILENCE_CLARITY * late.max(rounding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lone body of `mass` under gravity answering `held`, with `handed` the step's own f_mean
    /// and `before` the one handed out a step earlier.
    fn answers(held: [f64; 3], handed: [f64; 3], before: [f64; 3], mass: f64) -> ThreeAnswers {
        let a = -9.81;
        let mut three = ThreeAnswers::default();
        for k in 0..3 {
            three.push([a - held[k] / mass, handed[k], before[k], 0.0]);
        }
        three
    }

    #[test]
    fn only_the_reading_the_master_follows_puts_three_answers_on_a_line() {
        // Probes handed out twice each; a master one step late held each a step after.
        let (p, m) = (1e-3, 0.3);
        let late = answers([p, p, 2.0 * p], [p, 2.0 * p, 2.0 * p], [p, p, 2.0 * p], m);
        let (residual, slope) = late.line(Reading::Late);
        assert!(residual < 1e-12, "{residual}");
        assert!((slope + 1.0 / m).abs() < 1e-9 * (1.0 / m), "{slope}");
        assert!(late.line(Reading::Mean).0 > 1e-3);
        // Held in time, the same forces put the step's own f_mean on the line instead.
        let in_time = answers(
            [p, 2.0 * p, 4.0 * p],
            [p, 2.0 * p, 4.0 * p],
            [0.0, p, 2.0 * p],
            m,
        );
        assert!(in_time.line(Reading::Mean).0 < 1e-12);
        assert!(in_time.line(Reading::Late).0 > 1e-3);
    }
}
