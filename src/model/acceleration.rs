//! The flanges' acceleration over a step: the master's input derivatives where it supplied them
//! (they define the input polynomial over the step), else an estimate from the velocities at the
//! last step starts (`accelerationEstimate`). The estimate is linear in the velocities, so the
//! relative acceleration is estimated once from the relative velocities when nothing is supplied.

use super::{ElastoGap, Inputs};

/// How the acceleration of a flange over a step is obtained; the parameter `accelerationEstimate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccelerationEstimate {
    /// Zero unless supplied: the motion is extrapolated with the velocity alone.
    None = 0,
    /// The mean acceleration of the previous step (first-order backward difference).
    FirstOrder = 1,
    /// The second-order backward difference of the velocity at the step start.
    SecondOrder = 2,
    /// The mean acceleration over the coming step, extrapolated linearly from the mean
    /// accelerations of the last two steps. A master that holds the FMU's `f_mean` over a step
    /// moves the flange with exactly a constant acceleration over it, so this is the acceleration
    /// the FMU should integrate along; it is the most accurate of the estimates (see
    /// `examples/convergence.rs`).
    MidStepExtrapolation = 3,
}

impl AccelerationEstimate {
    pub fn from_parameter(value: i32) -> Self {
        match value {
            0 => AccelerationEstimate::None,
            1 => AccelerationEstimate::FirstOrder,
            2 => AccelerationEstimate::SecondOrder,
            _ => AccelerationEstimate::MidStepExtrapolation,
        }
    }
}

/// The velocity inputs at the starts of the last two steps, newest first.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VelocityHistory {
    pub len: usize,
    pub time: [f64; 2],
    pub v_a: [f64; 2],
    pub v_b: [f64; 2],
}

impl VelocityHistory {
    pub(super) fn push(&mut self, time: f64, inputs: &Inputs) {
        self.time[1] = self.time[0];
        self.v_a[1] = self.v_a[0];
        self.v_b[1] = self.v_b[0];
        self.time[0] = time;
        self.v_a[0] = inputs.v_a;
        self.v_b[0] = inputs.v_b;
        self.len = (self.len + 1).min(2);
    }

    /// The acceleration to extrapolate one flange's motion with over the step `[time, time + h]`,
    /// from its velocity `now`, its past velocities `past` (newest first) and the acceleration the
    /// master supplied, if any. Variable step sizes are taken into account; with too short a
    /// history the estimate falls back to a lower order.
    fn acceleration(
        &self,
        mode: AccelerationEstimate,
        time: f64,
        h: f64,
        now: f64,
        past: [f64; 2],
        supplied: Option<f64>,
    ) -> f64 {
        // Mean accelerations of the last two steps and the step sizes they belong to; computed
        // only where used, since a supplied acceleration needs none of these divisions.
        let h1 = || time - self.time[0];
        let h2 = || self.time[0] - self.time[1];
        let mean1 = || (now - past[0]) / h1();
        let mean2 = || (past[0] - past[1]) / h2();
        match (mode, supplied, self.len) {
            // A derivative the master supplies defines its input polynomial over the step: used
            // as given, whatever the estimate.
            (_, Some(a), _) => a,
            (AccelerationEstimate::None, None, _) | (_, None, 0) => 0.0,
            (AccelerationEstimate::FirstOrder, None, _) | (_, None, 1) => mean1(),
            (AccelerationEstimate::SecondOrder, None, _) => {
                let (h1, h2) = (h1(), h2());
                (2.0 * h1 + h2) / (h1 * (h1 + h2)) * now - (h1 + h2) / (h1 * h2) * past[0]
                    + h1 / (h2 * (h1 + h2)) * past[1]
            }
            (AccelerationEstimate::MidStepExtrapolation, None, _) => {
                let (h1, h2, mean1) = (h1(), h2(), mean1());
                // The step ratio does not wait for the means: the three divisions run side by
                // side instead of two in a row.
                let ratio = (h + h1) / (h1 + h2);
                mean1 + (mean1 - mean2()) * ratio
            }
        }
    }
}

/// Accelerations the master supplied through input derivatives for the next step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SuppliedAccelerations {
    pub a: Option<f64>,
    pub b: Option<f64>,
}

impl ElastoGap {
    /// The relative acceleration used over the step `[time, time + h]`.
    #[inline(always)]
    pub fn relative_acceleration(&self, time: f64, h: f64) -> f64 {
        let mode = AccelerationEstimate::from_parameter(self.parameters.acceleration_estimate);
        let history = &self.history;
        if self.supplied.a.is_none() && self.supplied.b.is_none() {
            // Every estimate is linear in the velocities: one on the relative velocity costs
            // half the divisions of two.
            let now = self.inputs.v_b - self.inputs.v_a;
            let past = [0, 1].map(|k| history.v_b[k] - history.v_a[k]);
            return history.acceleration(mode, time, h, now, past, None);
        }
        let a_a =
            history.acceleration(mode, time, h, self.inputs.v_a, history.v_a, self.supplied.a);
        let a_b =
            history.acceleration(mode, time, h, self.inputs.v_b, history.v_b, self.supplied.b);
        a_b - a_a
    }
}
