//! The classic stick–slip oscillator, its reference with every switch located, and the masters
//! that co-simulate it through the FMU (the classic example's acceptance and the sweep beyond it).
//!
//! A block of mass `mass` is pressed on the contact with `normal` newtons and pulled through a
//! spring `pull` (N/m) whose far end moves at `belt` (m/s) along the direction `angle` of the
//! contact's tangential plane. Adams friction with stick–slip: held by stiction while the spring
//! loads, the block breaks away at static friction, slips at the lower dynamic one, overshoots
//! and sticks again.

use fmi_sys::fmi2;

use super::exact::rk4_step;
use super::laws::adams_step;
use super::{Fmu, Instance, InstantiateOptions, Status, VarType};

/// The normal spring the block is pressed into (N/m); the depth gives `normal`.
pub const C: f64 = 1e4;

/// An instance of `fmu_type` with `parameters` set, initialized.
pub fn ready(
    fmu: &std::sync::Arc<Fmu>,
    fmu_type: fmi2::fmi2Type,
    parameters: &[(&str, f64)],
) -> Instance {
    let options = InstantiateOptions {
        fmu_type,
        ..InstantiateOptions::named("friction")
    };
    let mut gap = Instance::instantiate(fmu, &options).expect("fmi2Instantiate");
    assert_eq!(gap.setup_experiment(None, 0.0, None), Status::Ok);
    assert_eq!(gap.enter_initialization_mode(), Status::Ok);
    for &(name, value) in parameters {
        assert_eq!(gap.set_by_name(name, value), Status::Ok, "{name}");
    }
    assert_eq!(
        gap.exit_initialization_mode(),
        Status::Ok,
        "{:?}",
        gap.logs()
    );
    gap
}

/// A co-simulation instance with `parameters`, logging its coupling and status warnings, pressed
/// into the contact with `normal` newtons.
pub fn pressed(fmu: &std::sync::Arc<Fmu>, parameters: &[(&str, f64)], normal: f64) -> Instance {
    let mut gap = ready(fmu, fmi2::fmi2Type_fmi2CoSimulation, parameters);
    assert_eq!(
        gap.set_debug_logging(true, &["logCoupling", "logStatusWarning"]),
        Status::Ok
    );
    assert_eq!(gap.set_real_by_name("flange_b.s", -normal / C), Status::Ok);
    gap
}

#[derive(Clone, Copy, Debug)]
pub struct Oscillator {
    pub mass: f64,
    pub pull: f64,
    pub belt: f64,
    pub normal: f64,
    pub mu_s: f64,
    pub mu_d: f64,
    pub delta: f64,
    pub v_s: f64,
    pub v_d: f64,
    /// The pull's direction in the tangential plane (rad from x).
    pub angle: f64,
    /// The block is guided along the pull's line (a rail), not free in the plane.
    pub guided: bool,
}

/// The classic example: 1 kg, 20 N, 100 N/m, 0.1 m/s, mu 0.5 and 0.3, delta 1e-4 m, thresholds
/// 0.05 and 0.2 m/s wide enough that the block's oscillation on the stiction spring after it
/// sticks again stays below `v_s` (sqrt(mu_s*|f|*delta/m) = 0.03 m/s against 0.05). Period
/// 1.37 s.
pub const OSCILLATOR: Oscillator = Oscillator {
    mass: 1.0,
    pull: 100.0,
    belt: 0.1,
    normal: 20.0,
    mu_s: 0.5,
    mu_d: 0.3,
    delta: 1e-4,
    v_s: 0.05,
    v_d: 0.2,
    angle: 0.0,
    guided: false,
};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Stick,
    Slip,
}

/// How a master orders the block and the gap within a communication step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Order {
    /// The gap steps first, given the block's slip; the block then under the force it gave.
    GapFirst,
    /// The block steps first, under the force the gap gave last; the gap then steps from the
    /// block's newest slip.
    BodiesFirst,
    /// Both at once from the same instant: the block under the force the gap gave last.
    Jacobi,
}

/// What a co-simulation gave.
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// The slip onsets (the first communication point at or above `v_s` after one below) and
    /// the pull there.
    pub onsets: Vec<(f64, f64)>,
    /// The least the master's own sum of the work its block did on the contact reached (J):
    /// the force it held times the block's displacement, over every step.
    pub least_port_energy: f64,
    /// When it did (s).
    pub least_at: f64,
    /// The largest friction force across the pull's direction (N).
    pub largest_across: f64,
    /// The FMU's messages under logCoupling and logStatusWarning.
    pub messages: Vec<String>,
}

impl Oscillator {
    /// The stiction spring's angular frequency against the block (rad/s).
    pub fn stiction_omega(&self) -> f64 {
        (self.mu_s * self.normal / (self.delta * self.mass)).sqrt()
    }

    pub fn parameters<'a>(&self) -> Vec<(&'a str, f64)> {
        vec![
            ("c", C),
            ("d", 0.0),
            ("frictionLaw", 2.0),
            ("mu_s", self.mu_s),
            ("mu_d", self.mu_d),
            ("v_s", self.v_s),
            ("v_d", self.v_d),
            ("maxStictionDeformation", self.delta),
        ]
    }

    pub fn pull_at(&self, t: f64, x: f64) -> f64 {
        self.pull * (self.belt * t - x)
    }

    /// Slipping: Adams' curve beyond v_s.
    fn sliding_friction(&self, v: f64) -> f64 {
        let speed = v.abs();
        v.signum() * self.normal * adams_step(speed, self.v_s, self.mu_s, self.v_d, self.mu_d)
    }

    /// `[x, v, xi]'` in `mode`.
    fn rates(&self, t: f64, y: [f64; 3], mode: Mode) -> [f64; 3] {
        let [x, v, xi] = y;
        let (friction, xi_rate) = match mode {
            Mode::Stick => {
                let saturated = xi.abs() >= self.delta && v * xi > 0.0;
                (
                    self.mu_s * self.normal * xi / self.delta,
                    if saturated { 0.0 } else { v },
                )
            }
            Mode::Slip => (self.sliding_friction(v), 0.0),
        };
        [v, (self.pull_at(t, x) - friction) / self.mass, xi_rate]
    }

    /// The reference: RK4 at 1 µs with every switch located by bisection to 1e-13 s (sticking
    /// to slipping at |v| = v_s, back at |v| = v_s with xi = delta along v, the deformation
    /// reaching the circle). Returns the slip onsets and the pull at each.
    pub fn reference(&self, duration: f64) -> Vec<(f64, f64)> {
        let dt = 1e-6;
        let (mut t, mut y, mut mode) = (0.0, [0.0, 0.0, 0.0], Mode::Stick);
        let mut onsets = Vec::new();
        let step = |t: f64, y: [f64; 3], mode: Mode, dt: f64| {
            rk4_step(|t, y| self.rates(t, y, mode), t, y, dt)
        };
        // Whether a state has left `mode`'s domain (or, sticking, gone beyond the circle).
        let leaves = |y: [f64; 3], mode: Mode| match mode {
            Mode::Stick => y[1].abs() >= self.v_s || y[2].abs() > self.delta,
            Mode::Slip => y[1].abs() < self.v_s,
        };
        while t < duration {
            let next = step(t, y, mode, dt);
            if !leaves(next, mode) {
                (t, y) = (t + dt, next);
                continue;
            }
            let (mut inside, mut outside) = (0.0, dt);
            while outside - inside > 1e-13 {
                let middle = 0.5 * (inside + outside);
                if leaves(step(t, y, mode, middle), mode) {
                    outside = middle;
                } else {
                    inside = middle;
                }
            }
            let at = step(t, y, mode, outside);
            (t, y) = (t + outside, at);
            match mode {
                Mode::Stick if y[1].abs() >= self.v_s => {
                    onsets.push((t, self.pull_at(t, y[0])));
                    mode = Mode::Slip;
                }
                Mode::Stick => y[2] = self.delta.copysign(y[2]),
                Mode::Slip => {
                    y[2] = self.delta.copysign(y[1]);
                    mode = Mode::Stick;
                }
            }
        }
        onsets
    }

    /// Co-simulated through the FMU at steps `h` by a master ordering its units as `order`: the
    /// block, free in the plane or guided along the pull (RK4, ten substeps), under the pull and
    /// the friction the master holds. By symmetry it moves along the pull, as the reference does.
    pub fn cosimulate(
        &self,
        fmu: &std::sync::Arc<Fmu>,
        h: f64,
        duration: f64,
        order: Order,
    ) -> Run {
        self.cosimulate_with(fmu, h, duration, order, &[])
    }

    /// [`Self::cosimulate`] with `more` parameters set.
    pub fn cosimulate_with(
        &self,
        fmu: &std::sync::Arc<Fmu>,
        h: f64,
        duration: f64,
        order: Order,
        more: &[(&str, f64)],
    ) -> Run {
        let mut parameters = self.parameters();
        parameters.extend_from_slice(more);
        let mut gap = pressed(fmu, &parameters, self.normal);
        let md = &fmu.model_description;
        let slip_vrs = [md.vr("v_tx", VarType::Real), md.vr("v_ty", VarType::Real)];
        let force_vrs = [
            md.vr("f_tx_mean", VarType::Real),
            md.vr("f_ty_mean", VarType::Real),
        ];
        let (along, across) = (
            [self.angle.cos(), self.angle.sin()],
            [-self.angle.sin(), self.angle.cos()],
        );
        let mut run = Run::default();
        // The block is free in the plane: [x, y, v_x, v_y], the spring's far end moving along
        // `along` from the origin.
        let (mut t, mut y) = (0.0, [0.0; 4]);
        let mut held = [0.0; 2];
        let mut port = 0.0;
        let mut stuck = true;
        let block = |t: f64, y: [f64; 4], force: [f64; 2]| {
            let rates = |t: f64, y: [f64; 4]| {
                let anchor = [self.belt * t * along[0], self.belt * t * along[1]];
                [
                    y[2],
                    y[3],
                    (self.pull * (anchor[0] - y[0]) - force[0]) / self.mass,
                    (self.pull * (anchor[1] - y[1]) - force[1]) / self.mass,
                ]
            };
            let mut y = y;
            for k in 0..10 {
                y = rk4_step(rates, t + k as f64 * 0.1 * h, y, 0.1 * h);
            }
            if self.guided {
                // The rail takes the motion across its line.
                let position = y[0] * along[0] + y[1] * along[1];
                let speed = y[2] * along[0] + y[3] * along[1];
                y = [
                    position * along[0],
                    position * along[1],
                    speed * along[0],
                    speed * along[1],
                ];
            }
            y
        };
        let mut gap_step = |t: f64, slip: [f64; 2], run: &mut Run| {
            assert_eq!(gap.set_real(&slip_vrs, &slip), Status::Ok);
            assert_eq!(gap.do_step(t, h, true), Status::Ok, "{:?}", gap.logs());
            let (status, f) = gap.get_real(&force_vrs);
            assert_eq!(status, Status::Ok);
            let sideways = (f[0] * across[0] + f[1] * across[1]).abs();
            run.largest_across = run.largest_across.max(sideways);
            [f[0], f[1]]
        };
        while t < duration {
            let force = match order {
                Order::GapFirst => gap_step(t, [y[2], y[3]], &mut run),
                Order::BodiesFirst | Order::Jacobi => held,
            };
            let next = match order {
                Order::Jacobi => {
                    held = gap_step(t, [y[2], y[3]], &mut run);
                    block(t, y, force)
                }
                Order::GapFirst => block(t, y, force),
                Order::BodiesFirst => {
                    let next = block(t, y, force);
                    held = gap_step(t, [next[2], next[3]], &mut run);
                    next
                }
            };
            port += force[0] * (next[0] - y[0]) + force[1] * (next[1] - y[1]);
            if port < run.least_port_energy {
                (run.least_port_energy, run.least_at) = (port, t + h);
            }
            (y, t) = (next, t + h);
            let speed = y[2].hypot(y[3]);
            if stuck && speed >= self.v_s {
                let position = y[0] * along[0] + y[1] * along[1];
                run.onsets.push((t, self.pull_at(t, position)));
            }
            stuck = speed < self.v_s;
        }
        run.messages = gap
            .logs()
            .into_iter()
            .map(|record| record.message)
            .collect();
        run
    }

    /// As Model Exchange: the block and the FMU's continuous states (`E_loss` and the stiction
    /// deformation) advanced together by RK4 at `dt`, the FMU's event indicators watched after
    /// every step, a sign change located by bisection on the step to 1e-12 s and the FMU taken
    /// through Event Mode there. Returns the slip onsets (the stick–slip indicator rising
    /// through 0) and the pull at each.
    pub fn model_exchange(
        &self,
        fmu: &std::sync::Arc<Fmu>,
        dt: f64,
        duration: f64,
    ) -> Vec<(f64, f64)> {
        let mut gap = ready(fmu, fmi2::fmi2Type_fmi2ModelExchange, &self.parameters());
        let md = &fmu.model_description;
        let v_tx = md.vr("v_tx", VarType::Real);
        let f_tx = md.vr("f_tx", VarType::Real);
        let indicators = md.number_of_event_indicators;
        let stick_slip = 2;
        assert_eq!(
            gap.set_real_by_name("flange_b.s", -self.normal / C),
            Status::Ok
        );
        let event = |gap: &mut Instance| {
            let (status, info) = gap.new_discrete_states();
            assert_eq!(status, Status::Ok, "{:?}", gap.logs());
            assert_eq!(gap.enter_continuous_time_mode(), Status::Ok);
            info.valuesOfContinuousStatesChanged != 0
        };
        event(&mut gap);
        // y = [x, v, E_loss, xi_x, xi_y]
        let (status, states) = gap.get_continuous_states(3);
        assert_eq!(status, Status::Ok);
        let mut y = [0.0, 0.0, states[0], states[1], states[2]];
        let set = |gap: &mut Instance, t: f64, y: &[f64; 5]| {
            assert_eq!(gap.set_time(t), Status::Ok);
            assert_eq!(gap.set_continuous_states(&y[2..]), Status::Ok);
            assert_eq!(gap.set_real(&[v_tx], &[y[1]]), Status::Ok);
        };
        let rates = |gap: &mut Instance, t: f64, y: [f64; 5]| -> [f64; 5] {
            set(gap, t, &y);
            let (status, derivatives) = gap.get_derivatives(3);
            assert_eq!(status, Status::Ok);
            let (status, friction) = gap.get_real(&[f_tx]);
            assert_eq!(status, Status::Ok);
            let a = (self.pull_at(t, y[0]) - friction[0]) / self.mass;
            [y[1], a, derivatives[0], derivatives[1], derivatives[2]]
        };
        let step = |gap: &mut Instance, t: f64, y: [f64; 5], h: f64| {
            rk4_step(|t, y| rates(gap, t, y), t, y, h)
        };
        let read_indicators = |gap: &mut Instance, t: f64, y: &[f64; 5]| {
            set(gap, t, y);
            let (status, z) = gap.get_event_indicators(indicators);
            assert_eq!(status, Status::Ok);
            z
        };
        let crossed = |before: &[f64], after: &[f64]| {
            before
                .iter()
                .zip(after)
                .position(|(b, a)| (*b > 0.0) != (*a > 0.0))
        };
        let mut t = 0.0;
        let mut z = read_indicators(&mut gap, t, &y);
        let mut onsets = Vec::new();
        while t < duration {
            let next = step(&mut gap, t, y, dt);
            let z_next = read_indicators(&mut gap, t + dt, &next);
            if crossed(&z, &z_next).is_none() {
                (t, y, z) = (t + dt, next, z_next);
                let (status, _, _) = gap.completed_integrator_step(true);
                assert_eq!(status, Status::Ok);
                continue;
            }
            let (mut inside, mut outside) = (0.0, dt);
            while outside - inside > 1e-12 {
                let middle = 0.5 * (inside + outside);
                let at = step(&mut gap, t, y, middle);
                if crossed(&z, &read_indicators(&mut gap, t + middle, &at)).is_some() {
                    outside = middle;
                } else {
                    inside = middle;
                }
            }
            let at = step(&mut gap, t, y, outside);
            let z_at = read_indicators(&mut gap, t + outside, &at);
            let which = crossed(&z, &z_at);
            (t, y) = (t + outside, at);
            if which == Some(stick_slip) && z_at[stick_slip] > 0.0 {
                onsets.push((t, self.pull_at(t, y[0])));
            }
            set(&mut gap, t, &y);
            assert_eq!(gap.enter_event_mode(), Status::Ok);
            if event(&mut gap) {
                let (status, states) = gap.get_continuous_states(3);
                assert_eq!(status, Status::Ok);
                y[2..].copy_from_slice(&states);
            }
            z = read_indicators(&mut gap, t, &y);
        }
        onsets
    }
}

/// The largest onset time error as a share of the reference's period, and the largest relative
/// error of the pull at the onsets, over the onsets both have.
pub fn onset_errors(run: &[(f64, f64)], reference: &[(f64, f64)]) -> (f64, f64) {
    let period = reference[2].0 - reference[1].0;
    let worst = |measure: &dyn Fn(usize) -> f64| {
        (0..reference.len().min(run.len()))
            .map(measure)
            .fold(0.0, f64::max)
    };
    (
        worst(&|k| (run[k].0 - reference[k].0).abs() / period),
        worst(&|k| (run[k].1 - reference[k].1).abs() / reference[k].1.abs()),
    )
}

/// Asserts that `run` slipped as often as `reference` and each onset within 1 % of the period,
/// its pull within 1 %; `context` names the run.
pub fn assert_onsets_match(run: &Run, reference: &[(f64, f64)], context: &str) {
    let (timing, pull) = onset_errors(&run.onsets, reference);
    assert_eq!(run.onsets.len(), reference.len(), "{context}: {run:?}");
    assert!(
        timing <= 0.01 && pull <= 0.01,
        "{context}: {run:?} against {reference:?}"
    );
}
