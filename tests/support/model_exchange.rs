//! A Model Exchange master of `Modelica.Mechanics.Translational.Examples.ElastoGap`: the two
//! ElastoGaps are two Model Exchange instances of the packaged FMU, and one adaptive Dormand–Prince
//! 5(4) integrator advances the whole system (both masses and the FMUs' `E_loss` states). The
//! FMUs' event indicators are watched after every accepted step; a sign change is located by
//! bisection on the step length to 1e-13 s, both FMUs go through Event Mode there, and the
//! integration restarts from the event, as a variable-step tool (Dymola, OpenModelica) does.
//!
//! The result comes as a [`DemoRun`] so that it is compared, written and plotted like a
//! co-simulation run.

use std::sync::Arc;

use fmi_sys::fmi2;

use super::cosim::{
    check, mass1_acceleration, Coupling, DemoOptions, DemoRun, GapOutputs, Row, GAP_C, GAP_D,
    GAP_N, GAP_S_REL0, MASS, WALL_LEFT, WALL_RIGHT, X1_START, X2_START,
};
use super::fmu::Fmu;
use super::instance::{Instance, InstantiateOptions};
use super::model_description::VarType;

/// Relative and absolute error tolerances of the integrator.
pub const RELATIVE_TOLERANCE: f64 = 1e-10;
pub const ABSOLUTE_TOLERANCE: f64 = 1e-12;
/// How closely an event time is located (s).
pub const EVENT_TIME_RESOLUTION: f64 = 1e-13;

/// What the integration cost and met.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntegrationStats {
    pub accepted_steps: usize,
    pub rejected_steps: usize,
    pub events: usize,
    pub right_hand_sides: usize,
}

/// One ElastoGap instantiated for Model Exchange.
struct MeGap {
    instance: Instance,
    inputs: [u32; 4],
    outputs: [u32; 5],
    contact: u32,
    indicators: usize,
}

impl MeGap {
    fn new(fmu: &Arc<Fmu>, name: &str, stop_time: f64, force_law: i32) -> Result<MeGap, String> {
        let md = &fmu.model_description;
        let real = |n: &str| md.vr(n, VarType::Real);
        let options = InstantiateOptions {
            fmu_type: fmi2::fmi2Type_fmi2ModelExchange,
            ..InstantiateOptions::named(name)
        };
        let mut instance = Instance::instantiate(fmu, &options).map_err(|f| {
            format!(
                "fmi2Instantiate({name}, fmi2ModelExchange) failed: {:?}",
                f.logs
            )
        })?;
        for (p, value) in [
            ("c", GAP_C),
            ("d", GAP_D),
            ("s_rel0", GAP_S_REL0),
            ("n", GAP_N),
        ] {
            let s = instance.set_real(&[real(p)], &[value]);
            check(s, &format!("fmi2SetReal({p})"), &instance)?;
        }
        let s = instance.set_by_name("forceLaw", f64::from(force_law));
        check(s, "fmi2SetInteger(forceLaw)", &instance)?;
        let s = instance.setup_experiment(Some(RELATIVE_TOLERANCE), 0.0, Some(stop_time));
        check(s, "fmi2SetupExperiment", &instance)?;
        let s = instance.enter_initialization_mode();
        check(s, "fmi2EnterInitializationMode", &instance)?;
        Ok(MeGap {
            inputs: super::INPUTS.map(real),
            outputs: ["f", "s_rel", "v_rel", "f_mean", "E_loss"].map(real),
            contact: md.vr("contact", VarType::Boolean),
            indicators: md.number_of_event_indicators,
            instance,
        })
    }

    fn set_inputs(&mut self, a: (f64, f64), b: (f64, f64)) -> Result<(), String> {
        let s = self.instance.set_real(&self.inputs, &[a.0, a.1, b.0, b.1]);
        check(s, "fmi2SetReal(flange inputs)", &self.instance)
    }

    /// Time, continuous state and inputs of one point of the trajectory.
    fn set_point(
        &mut self,
        t: f64,
        e_loss: f64,
        a: (f64, f64),
        b: (f64, f64),
    ) -> Result<(), String> {
        let s = self.instance.set_time(t);
        check(s, "fmi2SetTime", &self.instance)?;
        // E_loss; the stiction deformation stays 0 (no friction in the example).
        let s = self.instance.set_continuous_states(&[e_loss, 0.0, 0.0]);
        check(s, "fmi2SetContinuousStates", &self.instance)?;
        self.set_inputs(a, b)
    }

    /// The force at flange_b and der(E_loss) at the point set last.
    fn force_and_derivative(&mut self) -> Result<(f64, f64), String> {
        let (s, f) = self.instance.get_real(&self.outputs[..1]);
        check(s, "fmi2GetReal(f)", &self.instance)?;
        let (s, dx) = self.instance.get_derivatives(3);
        check(s, "fmi2GetDerivatives", &self.instance)?;
        Ok((f[0], dx[0]))
    }

    /// The sides of the event indicators (`z > 0`) at the point set last.
    fn sides(&mut self) -> Result<Vec<bool>, String> {
        let (s, z) = self.instance.get_event_indicators(self.indicators);
        check(s, "fmi2GetEventIndicators", &self.instance)?;
        Ok(z.iter().map(|z| *z > 0.0).collect())
    }

    fn outputs(&mut self) -> Result<GapOutputs, String> {
        GapOutputs::read(&mut self.instance, &self.outputs, self.contact)
    }

    /// One pass of Event Mode: the event needs no iteration (the FMU says so, checked here).
    fn handle_event(&mut self, enter: bool) -> Result<(), String> {
        if enter {
            let s = self.instance.enter_event_mode();
            check(s, "fmi2EnterEventMode", &self.instance)?;
        }
        let (s, info) = self.instance.new_discrete_states();
        check(s, "fmi2NewDiscreteStates", &self.instance)?;
        if info.newDiscreteStatesNeeded != 0
            || info.terminateSimulation != 0
            || info.valuesOfContinuousStatesChanged != 0
            || info.nominalsOfContinuousStatesChanged != 0
            || info.nextEventTimeDefined != 0
        {
            return Err(format!(
                "{}: unexpected event info {info:?}",
                self.instance.name()
            ));
        }
        let s = self.instance.enter_continuous_time_mode();
        check(s, "fmi2EnterContinuousTimeMode", &self.instance)
    }
}

/// The system state: mass1, mass2 (position, velocity) and the two gaps' `E_loss`.
type State = [f64; 6];

struct System {
    gaps: [MeGap; 2],
    stats: IntegrationStats,
}

impl System {
    fn set_point(&mut self, t: f64, y: &State) -> Result<(), String> {
        let mass2 = (y[2], y[3]);
        self.gaps[0].set_point(t, y[4], (WALL_LEFT, 0.0), mass2)?;
        self.gaps[1].set_point(t, y[5], mass2, (WALL_RIGHT, 0.0))
    }

    fn rhs(&mut self, t: f64, y: &State) -> Result<State, String> {
        self.stats.right_hand_sides += 1;
        self.set_point(t, y)?;
        let (f1, de1) = self.gaps[0].force_and_derivative()?;
        let (f2, de2) = self.gaps[1].force_and_derivative()?;
        Ok([
            y[1],
            mass1_acceleration(y[0], y[1]),
            y[3],
            (-f1 + f2) / MASS,
            de1,
            de2,
        ])
    }

    fn sides(&mut self, t: f64, y: &State) -> Result<Vec<bool>, String> {
        self.set_point(t, y)?;
        let mut sides = self.gaps[0].sides()?;
        sides.extend(self.gaps[1].sides()?);
        Ok(sides)
    }

    /// One Dormand–Prince 5(4) step: the fifth-order solution and the scaled error norm.
    fn step(&mut self, t: f64, y: &State, h: f64) -> Result<(State, f64), String> {
        const C: [f64; 7] = [0.0, 0.2, 0.3, 0.8, 8.0 / 9.0, 1.0, 1.0];
        const A: [[f64; 6]; 7] = [
            [0.0; 6],
            [0.2, 0.0, 0.0, 0.0, 0.0, 0.0],
            [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
            [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
            [
                19372.0 / 6561.0,
                -25360.0 / 2187.0,
                64448.0 / 6561.0,
                -212.0 / 729.0,
                0.0,
                0.0,
            ],
            [
                9017.0 / 3168.0,
                -355.0 / 33.0,
                46732.0 / 5247.0,
                49.0 / 176.0,
                -5103.0 / 18656.0,
                0.0,
            ],
            [
                35.0 / 384.0,
                0.0,
                500.0 / 1113.0,
                125.0 / 192.0,
                -2187.0 / 6784.0,
                11.0 / 84.0,
            ],
        ];
        // Fifth-order weights minus the embedded fourth-order ones.
        const E: [f64; 7] = [
            71.0 / 57600.0,
            0.0,
            -71.0 / 16695.0,
            71.0 / 1920.0,
            -17253.0 / 339200.0,
            22.0 / 525.0,
            -1.0 / 40.0,
        ];
        let mut k = [[0.0; 6]; 7];
        for stage in 0..7 {
            let mut point = *y;
            for (j, a) in A[stage].iter().enumerate().take(stage) {
                for i in 0..6 {
                    point[i] += h * a * k[j][i];
                }
            }
            k[stage] = self.rhs(t + C[stage] * h, &point)?;
        }
        // The last stage is evaluated at the fifth-order solution itself.
        let mut next = *y;
        for (j, a) in A[6].iter().enumerate() {
            for i in 0..6 {
                next[i] += h * a * k[j][i];
            }
        }
        let mut norm: f64 = 0.0;
        for i in 0..6 {
            let error: f64 = (0..7).map(|j| h * E[j] * k[j][i]).sum();
            let scale = ABSOLUTE_TOLERANCE + RELATIVE_TOLERANCE * y[i].abs().max(next[i].abs());
            norm = norm.max((error / scale).abs());
        }
        Ok((next, norm))
    }

    fn completed_step(&mut self, t: f64, y: &State) -> Result<(), String> {
        self.set_point(t, y)?;
        for gap in &mut self.gaps {
            let (s, enter_event_mode, terminate) = gap.instance.completed_integrator_step(true);
            check(s, "fmi2CompletedIntegratorStep", &gap.instance)?;
            if enter_event_mode || terminate {
                return Err(format!(
                    "{}: fmi2CompletedIntegratorStep asked for an event ({enter_event_mode}) or the end ({terminate})",
                    gap.instance.name()
                ));
            }
        }
        Ok(())
    }

    fn row(&mut self, t: f64, y: &State) -> Result<Row, String> {
        self.set_point(t, y)?;
        Ok(Row {
            time: t,
            x1: y[0],
            v1: y[1],
            x2: y[2],
            v2: y[3],
            gap1: self.gaps[0].outputs()?,
            gap2: self.gaps[1].outputs()?,
        })
    }
}

/// Runs the example with Model Exchange, recording every `options.step` (the output interval).
pub fn run(fmu: &Arc<Fmu>, options: &DemoOptions) -> Result<(DemoRun, IntegrationStats), String> {
    let output_step = options.step;
    let stop = options.stop_time;
    if !(output_step > 0.0 && output_step.is_finite()) {
        return Err(format!("output interval must be > 0, got {output_step}"));
    }
    let outputs = ((stop / output_step) - 1e-9).ceil().max(1.0) as usize;
    let output_time = |k: usize| {
        if k >= outputs {
            stop
        } else {
            k as f64 * output_step
        }
    };

    let mut system = System {
        gaps: [
            MeGap::new(fmu, "elastoGap1", stop, options.force_law)?,
            MeGap::new(fmu, "elastoGap2", stop, options.force_law)?,
        ],
        stats: IntegrationStats::default(),
    };
    let mut t = 0.0;
    let mut y: State = [X1_START, 0.0, X2_START, 0.0, 0.0, 0.0];
    system.gaps[0].set_inputs((WALL_LEFT, 0.0), (y[2], y[3]))?;
    system.gaps[1].set_inputs((y[2], y[3]), (WALL_RIGHT, 0.0))?;
    for gap in &mut system.gaps {
        let s = gap.instance.exit_initialization_mode();
        check(s, "fmi2ExitInitializationMode", &gap.instance)?;
        gap.handle_event(false)?;
    }
    for (k, gap) in system.gaps.iter_mut().enumerate() {
        let (s, x) = gap.instance.get_continuous_states(3);
        check(s, "fmi2GetContinuousStates", &gap.instance)?;
        y[4 + k] = x[0];
    }

    let mut rows = vec![system.row(t, &y)?];
    let mut sides = system.sides(t, &y)?;
    let mut h: f64 = 1e-3;
    for k in 1..=outputs {
        let target = output_time(k);
        while target - t > 1e-12 * target.max(1.0) {
            let h_try = h.min(target - t);
            let (next, error) = system.step(t, &y, h_try)?;
            let factor = (0.9 * error.max(1e-10).powf(-0.2)).clamp(0.2, 5.0);
            if error > 1.0 {
                system.stats.rejected_steps += 1;
                h = h_try * factor;
                continue;
            }
            system.stats.accepted_steps += 1;
            let sides_after = system.sides(t + h_try, &next)?;
            if sides_after == sides {
                t += h_try;
                y = next;
                if target - t <= 1e-12 * target.max(1.0) {
                    t = target;
                }
            } else {
                // Locate the first sign change: `lo` keeps the old sides, `hi` has changed them.
                let (mut lo, mut hi) = (0.0, h_try);
                let mut at_hi = next;
                while hi - lo > EVENT_TIME_RESOLUTION {
                    let mid = 0.5 * (lo + hi);
                    let (point, _) = system.step(t, &y, mid)?;
                    if system.sides(t + mid, &point)? == sides {
                        lo = mid;
                    } else {
                        hi = mid;
                        at_hi = point;
                    }
                }
                t += hi;
                y = at_hi;
                system.set_point(t, &y)?;
                for gap in &mut system.gaps {
                    gap.handle_event(true)?;
                }
                system.stats.events += 1;
            }
            system.completed_step(t, &y)?;
            sides = system.sides(t, &y)?;
            h = h_try * factor;
        }
        rows.push(system.row(t, &y)?);
    }
    for gap in &mut system.gaps {
        let s = gap.instance.terminate();
        check(s, "fmi2Terminate", &gap.instance)?;
    }
    let run = DemoRun {
        options: DemoOptions {
            coupling: Coupling::ModelExchange,
            ..options.clone()
        },
        rows,
        m_eff_estimates: [0.0; 2],
    };
    Ok((run, system.stats))
}
