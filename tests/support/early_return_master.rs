//! A co-simulation master that steps a plant (one body at flange_b, alone or with others) and the
//! gap on a grid of communication points, and lets the gap return early: the next step then
//! starts where the gap stopped, and the plant is integrated to that instant under the force held
//! so far. Gauss–Seidel (gap first, `f_mean` held over the step actually taken) and Jacobi (all
//! units at once over the step asked for, `f_next` read before it held; where the gap returns
//! early the plant's step is taken again to that instant, which this master can do as the plant
//! is its own). The same master steps the FMI 2.0 FMU, which never returns early, so that the two
//! are compared under one master.

use std::sync::Arc;

use super::exact::rk4_step;
use super::fmi3::{CsOptions, Fmu3, Instance3};
use super::masters::{Gap, Master, Plant, State};
use super::{ok, Fmu, Instance, Status, VarType};

/// A gap FMU instance the master drives, whichever standard.
pub trait GapUnit {
    fn set_body(&mut self, x: f64, v: f64);
    /// Steps from `t` by `h`; returns where the step ended (`t + h`, or earlier on an early
    /// return).
    fn step(&mut self, t: f64, h: f64) -> f64;
    fn output(&mut self, name: &str) -> f64;
}

impl GapUnit for Instance {
    fn set_body(&mut self, x: f64, v: f64) {
        ok(self.set_real_by_name("flange_b.s", x));
        ok(self.set_real_by_name("flange_b.v", v));
    }

    fn step(&mut self, t: f64, h: f64) -> f64 {
        ok(self.do_step(t, h, true));
        t + h
    }

    fn output(&mut self, name: &str) -> f64 {
        let (status, value) = self.get_real_by_name(name);
        ok(status);
        value
    }
}

/// An FMI 3.0 instance, with event mode used or not.
pub struct Fmi3Gap {
    pub instance: Instance3,
    pub event_mode: bool,
    /// Where the steps returned early, and whether `contact` changed in event mode there.
    pub early_returns: Vec<(f64, bool)>,
}

impl GapUnit for Fmi3Gap {
    fn set_body(&mut self, x: f64, v: f64) {
        assert_eq!(self.instance.set_f64("flange_b.s", x), Status::Ok);
        assert_eq!(self.instance.set_f64("flange_b.v", v), Status::Ok);
    }

    fn step(&mut self, t: f64, h: f64) -> f64 {
        let outcome = self.instance.do_step(t, h);
        assert_eq!(outcome.status, Status::Ok, "fmi3DoStep at t = {t}");
        if !outcome.early_return {
            return t + h;
        }
        let end = outcome.last_successful_time;
        let mut changed = false;
        if outcome.event_handling_needed {
            let before = self.instance.get_bool("contact");
            assert_eq!(self.instance.enter_event_mode(), Status::Ok);
            loop {
                let (status, again) = self.instance.update_discrete_states();
                assert_eq!(status, Status::Ok);
                if !again {
                    break;
                }
            }
            assert_eq!(self.instance.enter_step_mode(), Status::Ok);
            changed = self.instance.get_bool("contact") != before;
        }
        self.early_returns.push((end, changed));
        end
    }

    fn output(&mut self, name: &str) -> f64 {
        self.instance.get_f64(name)
    }
}

/// The end of a run: the plant's state, the gap's `E_loss`, the communication points taken, and
/// the plant's states at the grid's points (`k*h` from 0).
#[derive(Clone, Debug)]
pub struct RunEnd {
    pub state: State,
    pub e_loss: f64,
    pub steps: usize,
    pub on_grid: Vec<State>,
}

/// Runs the plant and the gap to `stop` on the grid `k*h`, `substeps` RK4 steps per grid step.
pub fn run(
    gap: &mut dyn GapUnit,
    plant: &Plant,
    master: Master,
    h: f64,
    stop: f64,
    substeps: usize,
) -> RunEnd {
    let advance = |t: f64, y: State, held: f64, length: f64| -> State {
        let pieces = ((substeps as f64 * length / h).ceil() as usize).max(1);
        let dt = length / pieces as f64;
        (0..pieces).fold(y, |y, i| {
            rk4_step(
                |t, y| (plant.derivative)(t, y, held),
                t + i as f64 * dt,
                y,
                dt,
            )
        })
    };
    let (mut t, mut y, mut steps) = (0.0, plant.initial, 0);
    let mut on_grid = vec![y];
    let grid = |t: f64| ((t / h + 1e-9).floor() + 1.0) * h;
    while t < stop - 1e-12 * stop {
        let length = grid(t).min(stop) - t;
        let (end, next) = match master {
            Master::GaussSeidel => {
                gap.set_body(y[0], y[1]);
                let end = gap.step(t, length);
                let held = gap.output("f_mean");
                (end, advance(t, y, held, end - t))
            }
            Master::Jacobi => {
                let held = gap.output("f_next");
                gap.set_body(y[0], y[1]);
                let end = gap.step(t, length);
                (end, advance(t, y, held, end - t))
            }
            other => panic!("{other:?}: this master runs Gauss-Seidel and Jacobi only"),
        };
        assert!(end > t, "a step from {t} ended at {end}");
        if end == t + length {
            on_grid.push(next);
        }
        t = end;
        y = next;
        steps += 1;
    }
    RunEnd {
        state: y,
        e_loss: gap.output("E_loss"),
        steps,
        on_grid,
    }
}

/// An FMI 2.0 instance of `fmu` with the gap's parameters, initialized with the body at `x0, v0`.
pub fn fmi2_gap(fmu: &Arc<Fmu>, gap: Gap, x0: f64, v0: f64) -> Instance {
    let mut inst = Instance::new(fmu, "gap2");
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
    for (name, value) in [
        ("c", gap.c),
        ("d", gap.d),
        ("m_eff", gap.m_eff),
        ("s_rel0", gap.s_rel0),
    ] {
        ok(inst.set_real_by_name(name, value));
    }
    let vr = |inst: &Instance, name| inst.vr(name, VarType::Real);
    let refs = [vr(&inst, "flange_b.s"), vr(&inst, "flange_b.v")];
    ok(inst.set_real(&refs, &[x0, v0]));
    ok(inst.exit_initialization_mode());
    inst
}

/// An FMI 3.0 co-simulation instance of `fmu`, as [`fmi2_gap`].
pub fn fmi3_gap(fmu: &Arc<Fmu3>, gap: Gap, x0: f64, v0: f64, options: CsOptions) -> Fmi3Gap {
    let mut instance = Instance3::co_simulation(fmu, options).expect("fmi3InstantiateCoSimulation");
    assert_eq!(instance.enter_initialization_mode(0.0), Status::Ok);
    for (name, value) in [
        ("c", gap.c),
        ("d", gap.d),
        ("m_eff", gap.m_eff),
        ("s_rel0", gap.s_rel0),
        ("flange_b.s", x0),
        ("flange_b.v", v0),
    ] {
        assert_eq!(instance.set_f64(name, value), Status::Ok, "{name}");
    }
    assert_eq!(instance.exit_initialization_mode(), Status::Ok);
    if options.event_mode_used {
        // With event mode the instance leaves initialization in Event Mode (FMI 3.0, 4.2; the
        // Reference FMUs' cs_event_mode example): the discrete states settle, then Step Mode.
        loop {
            let (status, again) = instance.update_discrete_states();
            assert_eq!(status, Status::Ok);
            if !again {
                break;
            }
        }
        assert_eq!(instance.enter_step_mode(), Status::Ok);
    }
    Fmi3Gap {
        instance,
        event_mode: options.event_mode_used,
        early_returns: Vec::new(),
    }
}
