//! The co-simulation master of `Modelica.Mechanics.Translational.Examples.ElastoGap` (MSL 4.1) for
//! the FMI 3.0 FMU (`ElastoGap3.fmu`): the example of [`super::cosim`], with the two ElastoGaps as
//! two FMI 3.0 co-simulation instances that may return early from `fmi3DoStep` at the contact's
//! start and end, and take the switch in event mode.
//!
//! Gauss–Seidel, holding `f_mean` over the step actually taken, as [`Coupling::MeanForce`]: FMI 3.0
//! has no `fmi2SetRealInputDerivatives`, so the FMU estimates mass2's acceleration itself. One
//! communication step from `t`, towards the next point `k*h` of the grid:
//!
//! 1. Inputs at `t` (mass2's position and velocity), outputs read: a row of the result.
//! 2. Each gap's FMU state is kept (`fmi3GetFMUState`, into the same state each step).
//! 3. The gaps are stepped one after the other, the second only up to where the first stopped:
//!    elastoGap1 from `t` to the grid point; if it returns early, at a contact switch, elastoGap2
//!    is asked only up to that instant. If the second returns earlier still, the first, which went
//!    past that instant, is set back to its state at `t` (`fmi3SetFMUState`) and taken again to
//!    it. Stepping one after the other costs nothing when the first returns early (the second's
//!    step is merely shorter); going back is needed only where both switch in one step, which
//!    in this example never happens (mass2 touches elastoGap1 below -0.5 m, elastoGap2 above
//!    +0.5 m), so the states are a guard, counted in [`Fmi3Run::retaken`].
//! 4. Where a gap's step ended at a switch with event mode used, the master runs its event mode
//!    (`fmi3EnterEventMode`, `fmi3UpdateDiscreteStates` until no more updates are needed,
//!    `fmi3EnterStepMode`), reading `contact` before and after.
//! 5. mass2 moves to the step's end under the `f_mean` of both gaps (constant force over the step,
//!    exact for it), mass1 by RK4 substeps (no FMU touches it). The end is the next row's time:
//!    a communication point at every early return, after which the grid resumes.
//!
//! Without early return the same master takes the FMI 2.0 steps of [`super::cosim::run_demo`]
//! with [`Coupling::MeanForce`], call for call.

use std::sync::Arc;

use fmi_sys::fmi3::fmi3FMUState;

use super::cosim::{
    mass1_rk4, Coupling, DemoOptions, DemoRun, GapOutputs, Row, GAP_C, GAP_D, GAP_N, GAP_S_REL0,
    MASS, WALL_LEFT, WALL_RIGHT, X1_START, X2_START,
};
use super::fmi3::{vr, CsOptions, Fmu3, Instance3, StepOutcome};
use super::Status;

/// How the FMI 3.0 run is made.
#[derive(Clone, Debug)]
pub struct Fmi3Options {
    /// Step, stop time, mass1's substeps, `m_eff` and `forceLaw` (the coupling is always
    /// Gauss–Seidel holding `f_mean`).
    pub demo: DemoOptions,
    /// `earlyReturnAllowed` of `fmi3InstantiateCoSimulation`.
    pub early_return: bool,
    /// `eventModeUsed` of `fmi3InstantiateCoSimulation`.
    pub event_mode: bool,
}

impl Default for Fmi3Options {
    fn default() -> Self {
        Fmi3Options {
            demo: DemoOptions {
                coupling: Coupling::MeanForce,
                ..DemoOptions::default()
            },
            early_return: true,
            event_mode: true,
        }
    }
}

/// One step of a gap that returned early: where, and what the gap said there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EarlyReturn {
    /// `lastSuccessfulTime`, the communication point the master got there.
    pub time: f64,
    /// 1: elastoGap1, 2: elastoGap2.
    pub gap: usize,
    /// The gap's `s_rel` at the return, before the master sets new inputs: `s_rel0` up to the
    /// switch location's tolerance.
    pub s_rel: f64,
    /// `contact` before the event mode (the value before the switch).
    pub contact_before: bool,
    /// `contact` after `fmi3UpdateDiscreteStates` (with event mode used).
    pub contact_after: Option<bool>,
}

impl EarlyReturn {
    /// The contact starts here (it was open before).
    pub fn entering(&self) -> bool {
        !self.contact_before
    }
}

/// The run: its rows (a row at every communication point, early returns included).
#[derive(Clone, Debug)]
pub struct Fmi3Run {
    pub run: DemoRun,
    pub early_returns: Vec<EarlyReturn>,
    /// Steps in which the first gap was set back to its FMU state and taken again.
    pub retaken: usize,
}

/// One FMI 3.0 ElastoGap instance with its value references and its kept FMU state.
struct Gap3 {
    name: &'static str,
    instance: Instance3,
    inputs: [u32; 4],
    outputs: [u32; 5],
    contact: u32,
    state: fmi3FMUState,
}

/// `Ok` for fmi3OK; otherwise the call, the status and the instance's log.
fn check3(status: Status, call: &str, gap: &Gap3) -> Result<(), String> {
    if status == Status::Ok {
        Ok(())
    } else {
        Err(format!(
            "{call} on {} returned {status:?}; FMU log:\n{}",
            gap.name,
            gap.instance.log_text()
        ))
    }
}

impl Gap3 {
    fn new(fmu: &Arc<Fmu3>, name: &'static str, options: &Fmi3Options) -> Result<Gap3, String> {
        let cs = CsOptions {
            early_return_allowed: options.early_return,
            event_mode_used: options.event_mode,
            intermediate_update: false,
        };
        let instance = Instance3::co_simulation_named(fmu, name, cs)
            .ok_or_else(|| format!("fmi3InstantiateCoSimulation({name}) returned NULL"))?;
        let mut gap = Gap3 {
            name,
            instance,
            inputs: super::INPUTS.map(vr),
            outputs: ["f", "s_rel", "v_rel", "f_mean", "E_loss"].map(vr),
            contact: vr("contact"),
            state: std::ptr::null_mut(),
        };
        let o = &options.demo;
        let parameters = [
            ("c", GAP_C),
            ("d", GAP_D),
            ("s_rel0", GAP_S_REL0),
            ("n", GAP_N),
            ("m_eff", o.m_eff),
        ];
        for (p, value) in parameters {
            let s = gap.instance.set_f64(p, value);
            check3(s, &format!("fmi3SetFloat64({p})"), &gap)?;
        }
        let s = gap.instance.set_i64("forceLaw", i64::from(o.force_law));
        check3(s, "fmi3SetInt64(forceLaw)", &gap)?;
        let s = gap.instance.enter_initialization_mode(0.0);
        check3(s, "fmi3EnterInitializationMode", &gap)?;
        Ok(gap)
    }

    fn set_motion(&mut self, a: (f64, f64), b: (f64, f64)) -> Result<(), String> {
        let inputs = self.inputs;
        let s = self.instance.set_float64(&inputs, &[a.0, a.1, b.0, b.1]);
        check3(s, "fmi3SetFloat64(flange inputs)", self)
    }

    fn reals(&mut self, refs: &[u32], call: &str) -> Result<Vec<f64>, String> {
        let mut values = vec![f64::NAN; refs.len()];
        let s = self.instance.get_float64(refs, &mut values);
        check3(s, call, self)?;
        Ok(values)
    }

    fn contact(&mut self) -> Result<bool, String> {
        let mut value = [false];
        let s = self.instance.get_boolean(&[self.contact], &mut value);
        check3(s, "fmi3GetBoolean(contact)", self)?;
        Ok(value[0])
    }

    fn outputs(&mut self) -> Result<GapOutputs, String> {
        let refs = self.outputs;
        let v = self.reals(&refs, "fmi3GetFloat64(outputs)")?;
        Ok(GapOutputs {
            f: v[0],
            s_rel: v[1],
            v_rel: v[2],
            contact: self.contact()?,
            f_mean: v[3],
            e_loss: v[4],
        })
    }

    fn keep_state(&mut self) -> Result<(), String> {
        let mut state = self.state;
        let s = self.instance.get_fmu_state(&mut state);
        self.state = state;
        check3(s, "fmi3GetFMUState", self)
    }

    fn restore_state(&mut self) -> Result<(), String> {
        let s = self.instance.set_fmu_state(self.state);
        check3(s, "fmi3SetFMUState", self)
    }

    /// `fmi3DoStep` from `t` to `end`; returns where it ended.
    fn step_to(&mut self, t: f64, end: f64, may_go_back: bool) -> Result<StepOutcome, String> {
        let outcome = self.instance.do_step_with(t, end - t, !may_go_back);
        check3(
            outcome.status,
            &format!("fmi3DoStep(t={t}, h={})", end - t),
            self,
        )?;
        if outcome.terminate {
            return Err(format!(
                "{}: fmi3DoStep asked to terminate at t={t}",
                self.name
            ));
        }
        Ok(outcome)
    }

    /// The event mode after a step that ended at a switch; `contact` after it.
    fn handle_event(&mut self) -> Result<bool, String> {
        let s = self.instance.enter_event_mode();
        check3(s, "fmi3EnterEventMode", self)?;
        self.settle_and_step_mode()
    }

    /// In Event Mode: `fmi3UpdateDiscreteStates` until no more updates are needed, then
    /// `fmi3EnterStepMode`; `contact` after.
    fn settle_and_step_mode(&mut self) -> Result<bool, String> {
        for _ in 0..10 {
            let (s, again) = self.instance.update_discrete_states();
            check3(s, "fmi3UpdateDiscreteStates", self)?;
            if !again {
                let s = self.instance.enter_step_mode();
                check3(s, "fmi3EnterStepMode", self)?;
                return self.contact();
            }
        }
        Err(format!(
            "{}: fmi3UpdateDiscreteStates still asks for updates after 10 calls",
            self.name
        ))
    }
}

impl Drop for Gap3 {
    fn drop(&mut self) {
        let mut state = self.state;
        self.instance.free_fmu_state(&mut state);
    }
}

/// Where the gaps' steps from `t` end together: each gap asked up to the earliest early return
/// so far, the ones that went past it set back and taken again. Returns the end, the outcome of
/// each gap's last step, and whether a gap was taken again.
fn step_gaps(
    gaps: &mut [Gap3; 2],
    t: f64,
    target: f64,
    may_go_back: bool,
) -> Result<(f64, [StepOutcome; 2], bool), String> {
    let mut end = target;
    let mut ended: [Option<(f64, StepOutcome)>; 2] = [None, None];
    let mut retaken = false;
    // Each pass either settles or moves `end` earlier; a gap ends at most at its first switch.
    for _ in 0..8 {
        let mut moved = false;
        for (i, gap) in gaps.iter_mut().enumerate() {
            if let Some((reached, _)) = ended[i] {
                if reached == end {
                    continue;
                }
                // It went past `end`: back to the step's start.
                gap.restore_state()?;
                retaken = true;
            }
            let outcome = gap.step_to(t, end, may_go_back)?;
            let reached = if outcome.early_return {
                outcome.last_successful_time
            } else {
                end
            };
            if !(reached > t && reached <= end) {
                return Err(format!(
                    "{}: fmi3DoStep from {t} to {end} returned early at {reached}",
                    gap.name
                ));
            }
            ended[i] = Some((reached, outcome));
            if reached < end {
                end = reached;
                moved = true;
            }
        }
        if !moved && ended.iter().all(|e| e.is_some_and(|(r, _)| r == end)) {
            return Ok((end, ended.map(|e| e.unwrap().1), retaken));
        }
    }
    Err(format!("the gaps' steps from {t} do not settle on one end"))
}

/// Runs the example from 0 to the stop time with two FMI 3.0 instances of `fmu`.
pub fn run_demo3(fmu: &Arc<Fmu3>, options: &Fmi3Options) -> Result<Fmi3Run, String> {
    let o = &options.demo;
    let h = o.step;
    if !(h > 0.0 && h.is_finite()) {
        return Err(format!("step must be > 0, got {h}"));
    }
    let stop = o.stop_time;
    // The grid of super::cosim::run_demo, so that without early return the times are its own.
    let steps = ((stop / h) - 1e-9).ceil().max(1.0) as usize;
    let time_at = |k: usize| if k >= steps { stop } else { k as f64 * h };
    // The first grid point after `t` (an early return more than a hair before it).
    let next_grid = |t: f64| time_at((t / h + 1e-9).floor() as usize + 1);

    let mut gaps = [
        Gap3::new(fmu, "elastoGap1", options)?,
        Gap3::new(fmu, "elastoGap2", options)?,
    ];
    let (mut x1, mut v1) = (X1_START, 0.0);
    let (mut x2, mut v2) = (X2_START, 0.0);
    let set_inputs = |gaps: &mut [Gap3; 2], x2: f64, v2: f64| -> Result<(), String> {
        gaps[0].set_motion((WALL_LEFT, 0.0), (x2, v2))?;
        gaps[1].set_motion((x2, v2), (WALL_RIGHT, 0.0))
    };
    set_inputs(&mut gaps, x2, v2)?;
    for gap in gaps.iter_mut() {
        let s = gap.instance.exit_initialization_mode();
        check3(s, "fmi3ExitInitializationMode", gap)?;
        if options.event_mode {
            // With event mode used, the instance leaves initialization in Event Mode (FMI 3.0,
            // 4.2; the Reference FMUs' cs_event_mode example).
            gap.settle_and_step_mode()?;
        }
    }

    let mut rows = Vec::with_capacity(steps + 1);
    let mut early_returns = Vec::new();
    let mut retaken = 0;
    let mut t = 0.0;
    loop {
        set_inputs(&mut gaps, x2, v2)?;
        let gap1 = gaps[0].outputs()?;
        let gap2 = gaps[1].outputs()?;
        rows.push(Row {
            time: t,
            x1,
            v1,
            x2,
            v2,
            gap1,
            gap2,
        });
        if t >= stop {
            break;
        }
        if options.early_return {
            for gap in gaps.iter_mut() {
                gap.keep_state()?;
            }
        }
        let (end, outcomes, again) = step_gaps(&mut gaps, t, next_grid(t), options.early_return)?;
        retaken += usize::from(again);

        // The force on mass2 over the step actually taken, read before any event mode.
        let f_mean = |gap: &mut Gap3| -> Result<f64, String> {
            let refs = [gap.outputs[3]];
            Ok(gap.reals(&refs, "fmi3GetFloat64(f_mean)")?[0])
        };
        let force = -f_mean(&mut gaps[0])? + f_mean(&mut gaps[1])?;
        for (i, (gap, outcome)) in gaps.iter_mut().zip(outcomes).enumerate() {
            if !outcome.early_return {
                continue;
            }
            let refs = [gap.outputs[1]];
            let s_rel = gap.reals(&refs, "fmi3GetFloat64(s_rel)")?[0];
            let contact_before = gap.contact()?;
            let contact_after = if outcome.event_handling_needed {
                Some(gap.handle_event()?)
            } else {
                None
            };
            early_returns.push(EarlyReturn {
                time: end,
                gap: i + 1,
                s_rel,
                contact_before,
                contact_after,
            });
        }

        let step = end - t;
        let a = force / MASS;
        x2 += v2 * step + 0.5 * a * step * step;
        v2 += a * step;
        let n = o.mass1_substeps.max(1);
        let sub = step / n as f64;
        for _ in 0..n {
            (x1, v1) = mass1_rk4(x1, v1, sub);
        }
        t = end;
    }

    let mut m_eff_estimates = [0.0; 2];
    for (gap, estimate) in gaps.iter_mut().zip(&mut m_eff_estimates) {
        let refs = [vr("m_eff_estimate")];
        *estimate = gap.reals(&refs, "fmi3GetFloat64(m_eff_estimate)")?[0];
    }
    for gap in gaps.iter_mut() {
        let s = gap.instance.terminate();
        check3(s, "fmi3Terminate", gap)?;
    }
    Ok(Fmi3Run {
        run: DemoRun {
            options: DemoOptions {
                coupling: Coupling::MeanForce,
                ..o.clone()
            },
            rows,
            m_eff_estimates,
        },
        early_returns,
        retaken,
    })
}
