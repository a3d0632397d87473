//! A co-simulation step that stops at the contact's first switch (an early return, where a layer
//! offers it), and the switch taken in event mode.
//!
//! The step is taken whole first, as `do_step` takes it. Where it locates a switch inside (a
//! contact that starts or ends), the instance goes back to the step's start and steps again to
//! that instant, so that the master gets a communication point there. Going back is exact: the
//! step's start is a copy the caller keeps (no allocation), taken only where a switch can come (a
//! prescribed motion that crosses no contact end cannot meet one), and a step to the instant is
//! the same step cut short, its means (`f_mean`, `E_loss`, `E_port`) over the step actually taken. A step
//! with an effective mass plans over its own length, so the shorter step can locate the switch a
//! little earlier: it is cut again there, at most [`MAX_CUTS`] times.
//!
//! `f_next` is the mean force over the master's next step, which the master does not tell: after an
//! early return, a master on a grid of communication points goes on to the end of the step it
//! asked for, and then takes its regular steps again. So the step that stops predicts `f_next`
//! over the rest of the step asked for, and the step that resumes over the regular step
//! ([`ElastoGap::grid_step`]), not over their own lengths: a Jacobi master would hold a
//! prediction over a short step's contact over a long step, and gain energy from it.
//!
//! Through an effective mass the step does not stop where the contact ends. There the model still
//! owes the master the error of the force it held over the contact, which the step's own mean
//! repays over the rest of the step and nothing repays after it (no force acts out of contact):
//! stopped there, a lone body would leave with too much energy at steps of a tenth of the
//! contact's duration, where the whole step is exact. Along the motion (no mass) nothing is owed,
//! and the step stops at both.
//!
//! At the instant it stops, `contact` keeps its value before the switch, so that a master in
//! event mode reads the values before and after it: [`ElastoGap::take_switch`] gives the value
//! after, as does the next step.

use super::{ElastoGap, NonFiniteStep, StepReport};
use crate::laws::ContactLaw;
use crate::step::{range_crossings, Motion};

/// How often a step is cut shorter at a switch its shorter self located earlier.
pub const MAX_CUTS: usize = 3;

/// The share of the contact's duration within which a step that resumes after an early return
/// finds the touch-down it stopped at again: a new one comes a contact later at the earliest.
const TOUCH_DOWN_AGAIN: f64 = 1e-3;

/// The step's switch the master is told of, and where it stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Switch {
    /// Into the step (s): where it stopped.
    pub tau: f64,
    /// The contact starts there (or ends).
    pub entering: bool,
}

impl ElastoGap {
    /// Advances from `self.time` by `h`, or to the contact's first switch inside the step and no
    /// further; `start` is the caller's slot for the step's start (its contents are replaced).
    /// `Ok(None)`: the whole step, as [`Self::do_step`] takes it.
    pub fn do_step_to_switch(
        &mut self,
        h: f64,
        start: &mut ElastoGap,
        report: &mut StepReport,
    ) -> Result<Option<Switch>, NonFiniteStep> {
        let resuming = self.stopped_at_a_switch();
        if !resuming || self.co_simulation.grid_step <= 0.0 {
            self.co_simulation.grid_step = h;
        }
        if !resuming && self.no_switch_can_come(h) {
            self.do_step(h, report)?;
            return Ok(None);
        }
        start.clone_from(self);
        // A master that resumes after an early return goes on to its regular step after this one.
        self.co_simulation.next_step = resuming.then_some(self.co_simulation.grid_step);
        let whole = self.do_step(h, report);
        self.co_simulation.next_step = None;
        whole?;
        // A master told of a touch-down resumes with its bodies a hair short of it (they moved
        // under the force held, not the model's). One that holds `f_next` would hold the
        // prediction for the rest of the step over an instant, were the step to stop there
        // again; `f_mean` is the mean over the instant.
        let holds_next = self.co_simulation.coupling.master_holds_next() == Some(true);
        let again = if resuming && holds_next {
            TOUCH_DOWN_AGAIN * self.co_simulation.contact_time.duration
        } else {
            0.0
        };
        let Some(mut switch) = self.first_switch_inside(h, report, again) else {
            return Ok(None);
        };
        for _ in 0..MAX_CUTS {
            self.clone_from(start);
            *report = StepReport::default();
            // From the switch, the master goes on to the end of the step it asked for.
            self.co_simulation.next_step = Some(h - switch.tau);
            let cut = self.do_step(switch.tau, report);
            self.co_simulation.next_step = None;
            cut?;
            match self.first_switch_inside(switch.tau, report, again) {
                Some(earlier) => switch = earlier,
                None => break,
            }
        }
        self.co_simulation.contact_latch = Some(!switch.entering);
        Ok(Some(switch))
    }

    /// Whether the step can meet no switch, known before it is taken, so that its start need
    /// not be kept: along a prescribed motion the step integrates the inputs' motion extrapolated
    /// over it, and records a switch only where that motion crosses an end of the contact range.
    fn no_switch_can_come(&mut self, h: f64) -> bool {
        if !self.prescribed() {
            return false;
        }
        self.evaluate_inputs_now();
        let (s, v) = self.inputs.relative_at(self.time);
        let a = self.relative_acceleration(self.time, h);
        let (_, crossings) = range_crossings(Motion { s, v, a }, self.law().contact_ends(), h);
        crossings == 0
    }

    /// The first switch of the step that lies inside it, more than a rounding from either end (a
    /// step that starts at a switch, after an early return, locates it again at its start): a
    /// touch-down, or along the motion also a contact's end. A touch-down within `again` (s) of
    /// the start is the one the master was told of.
    fn first_switch_inside(&self, h: f64, report: &StepReport, again: f64) -> Option<Switch> {
        let rounding = 1e-9 * h + 8.0 * f64::EPSILON * self.time.abs();
        report
            .integral
            .transitions()
            .filter(|t| t.entering || !report.dynamic)
            .filter(|t| !(t.entering && t.tau <= again))
            .find(|t| t.tau > rounding && t.tau < h - rounding)
            .map(|t| Switch {
                tau: t.tau,
                entering: t.entering,
            })
    }

    /// Whether the last step returned early at a switch and `contact` still reads its value
    /// before it.
    pub fn stopped_at_a_switch(&self) -> bool {
        self.co_simulation.contact_latch.is_some()
    }

    /// Co-simulation in event mode: the switch the last step stopped at takes effect (`contact`
    /// reads its value after the switch). Returns whether `contact` changed.
    pub fn take_switch(&mut self) -> bool {
        match self.co_simulation.contact_latch {
            Some(before) => {
                self.co_simulation.contact_latch = Some(!before);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ElastoGap, Interface, StepReport};
    use crate::variables::Var;

    /// A gap with c = 1e4, d = 20, the body at flange_b `gap` above the stop at `speed` toward it.
    fn approaching(gap: f64, speed: f64, m_eff: f64) -> ElastoGap {
        let mut model = ElastoGap::new(Interface::CoSimulation, 0.0);
        model.set_value(Var::C, 1e4);
        model.set_value(Var::D, 20.0);
        model.set_value(Var::MEff, m_eff);
        model.set_value(Var::FlangeBS, gap);
        model.set_value(Var::FlangeBV, -speed);
        model.begin_run();
        model
    }

    /// Along the master's motion (no mass) the touch-down is where the extrapolated motion
    /// crosses the stop: at `gap/speed` for a constant speed, to the rounding of the time.
    #[test]
    fn a_step_along_the_motion_stops_at_the_touch_down() {
        for (gap, speed, h) in [(0.004, 1.0, 0.01), (1e-3, 0.3, 0.02), (0.02, 2.5, 0.05)] {
            let mut model = approaching(gap, speed, 0.0);
            let mut start = model.clone();
            let mut report = StepReport::default();
            let switch = model
                .do_step_to_switch(h, &mut start, &mut report)
                .expect("a finite step")
                .expect("the contact starts inside the step");
            let exact = gap / speed;
            assert!(switch.entering);
            assert!(
                (switch.tau - exact).abs() <= 1e-15,
                "{} against {exact}",
                switch.tau
            );
            assert_eq!(model.time, switch.tau);
            // Before the switch: no contact, no impulse; `contact` still false there.
            assert_eq!(report.integral.impulse, 0.0);
            assert_eq!(model.read(Var::Contact), 0.0);
            assert!(model.take_switch());
            assert_eq!(model.read(Var::Contact), 1.0);
            // The next step starts on the switch and goes on into the contact.
            model.set_value(Var::FlangeBS, 0.0);
            model.set_value(Var::FlangeBV, -speed);
            let mut report = StepReport::default();
            let next = model.do_step_to_switch(1e-3, &mut start, &mut report);
            assert_eq!(next, Ok(None), "no second switch within a short step");
            assert!(report.integral.impulse < 0.0, "the contact pushes back");
            assert_eq!(model.read(Var::Contact), 1.0);
        }
    }

    /// Without a switch inside, the step is `do_step`'s, bit for bit.
    #[test]
    fn a_step_without_a_switch_is_the_plain_step() {
        for m_eff in [0.0, 1.0] {
            let mut plain = approaching(0.5, 1.0, m_eff);
            let mut stopping = plain.clone();
            let mut start = plain.clone();
            let (mut a, mut b) = (StepReport::default(), StepReport::default());
            plain.do_step(0.01, &mut a).unwrap();
            let switch = stopping.do_step_to_switch(0.01, &mut start, &mut b);
            assert_eq!(switch, Ok(None));
            // The step asked for is remembered as the master's regular one; all else is the same.
            assert_eq!(stopping.co_simulation.grid_step, 0.01);
            stopping.co_simulation.grid_step = plain.co_simulation.grid_step;
            assert_eq!(plain, stopping);
            assert_eq!(stopping.co_simulation.contact_latch, None);
        }
    }

    /// Through the body's mass the step stops at the touch-down, and then takes the whole contact
    /// in one step, its end inside: the impulse is the body's momentum change (1 kg from -1 m/s
    /// to the rebound), which the contact alone gives.
    #[test]
    fn a_step_through_the_mass_stops_at_the_touch_down_only() {
        let mut model = approaching(0.002, 1.0, 1.0);
        let mut start = model.clone();
        let mut report = StepReport::default();
        let touch = model
            .do_step_to_switch(0.1, &mut start, &mut report)
            .unwrap()
            .expect("touch-down inside the step");
        assert!(touch.entering);
        assert!((touch.tau - 0.002).abs() <= 1e-12, "{}", touch.tau);
        let mut report = StepReport::default();
        model.set_value(Var::FlangeBS, 0.0);
        model.set_value(Var::FlangeBV, -1.0);
        let end = model.do_step_to_switch(0.1, &mut start, &mut report);
        assert_eq!(
            end,
            Ok(None),
            "no stop at the contact's end through the mass"
        );
        let (_, contact_end) = report.integral.contact_within().expect("the whole contact");
        let duration = std::f64::consts::PI * (1.0f64 / 1e4).sqrt();
        // Damping shortens the half period a little: within 10 % of the undamped one.
        assert!(
            (contact_end / duration - 1.0).abs() < 0.1,
            "{contact_end} against {duration}"
        );
        let impulse = -report.integral.impulse;
        assert!(impulse > 1.0 && impulse < 2.0, "impulse {impulse}");
    }
}
