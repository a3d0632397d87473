//! A master that reads both forces and leaves `heldForce` at Auto is told once, at the first step
//! where the port's bound cut a force only because its answers had not told which force it holds,
//! to say which with `heldForce`; a master told so, or one that reads only the force it holds, is
//! not. The warning is checked against the run it names: with `heldForce` set to the force the
//! master holds, the run is the same up to that step (no earlier cut went unreported), and in
//! most warned runs the force the master holds over it or the next one (`f_next`, held a step
//! later) is larger (the cut was the reading's, not the contact's; in the others the cut output
//! was the one this master does not hold).
//!
//! Seeded lone bodies and bodies under gravity, `m_eff` right (so that no probe makes the runs
//! differ before the cut), 0.05 to 20 kg, c = 1e4 to 1e7, damping ratio 0.02 to 0.5, 0.1 to 1.5
//! m/s, steps of 0.1 to 3 contact durations, under Gauss–Seidel (either order) and Jacobi.

mod support;

use std::f64::consts::PI;

use support::masters::{cosimulate_plant_run, Gap, Master, Plant, Reads, Run, Sample, State};
use support::random::Random;
use support::{Fmu, LogRecord, Status};

const SEED: u64 = 0x4e1d_f0ce_0004;
const SYSTEMS: usize = 40;
const STEPS: usize = 60;
/// Where the figures this test measures are stated.
const DOC: &str = "docs/coupling.md";

/// The text that names the remedy: `heldForce` and the codes of both forces.
const REMEDY: [&str; 3] = ["heldForce", "FMean (2)", "FNext (3)"];

struct System {
    mass: f64,
    c: f64,
    d: f64,
    v0: f64,
    gravity: f64,
    h: f64,
}

impl System {
    fn draw(random: &mut Random) -> System {
        let mass = random.log_uniform(0.05, 20.0);
        let c = random.log_uniform(1e4, 1e7);
        let zeta = random.log_uniform(0.02, 0.5);
        let t_c = PI * (mass / c).sqrt();
        System {
            mass,
            c,
            d: 2.0 * zeta * (c * mass).sqrt(),
            v0: random.log_uniform(0.1, 1.5),
            gravity: if random.unit() < 0.5 { 0.0 } else { 9.81 },
            h: t_c * random.log_uniform(0.1, 3.0),
        }
    }

    /// The run under `master` reading `reads`, with `heldForce` = `held` where given.
    fn run(
        &self,
        fmu: &std::sync::Arc<Fmu>,
        master: Master,
        reads: Reads,
        held: Option<f64>,
    ) -> (Vec<Sample>, Vec<LogRecord>) {
        let (mass, gravity) = (self.mass, self.gravity);
        let derivative = move |_t: f64, y: State, held: f64| -> State {
            [y[1], -held / mass - gravity, 0.0, 0.0]
        };
        let plant = Plant {
            // The touch-down a third into the second step.
            initial: [1.33 * self.v0 * self.h, -self.v0, 0.0, 0.0],
            derivative: &derivative,
        };
        let gap = Gap {
            c: self.c,
            d: self.d,
            m_eff: self.mass,
            s_rel0: 0.0,
        };
        let parameters: Vec<(&str, f64)> = held.map(|v| ("heldForce", v)).into_iter().collect();
        let run = Run {
            master,
            h: self.h,
            steps: STEPS,
            substeps: 1,
            reads,
        };
        let (samples, logs) = cosimulate_plant_run(fmu, gap, &parameters, &plant, run);
        (samples.expect("the run completes"), logs)
    }
}

/// The instants of the warnings that name `heldForce` with both codes.
fn warned_at(logs: &[LogRecord]) -> Vec<f64> {
    logs.iter()
        .filter(|r| r.status == Status::Warning && REMEDY.iter().all(|w| r.message.contains(w)))
        .map(|r| {
            let t = r.message.trim_start_matches("t = ");
            let end = t.find(':').expect("the warning names its instant");
            t[..end].parse().expect("an instant")
        })
        .collect()
}

#[test]
fn a_master_reading_both_forces_is_told_once_and_truly_to_name_the_one_it_holds() {
    let fmu = Fmu::load_default();
    let mut random = Random(SEED);
    let (mut warned_runs, mut runs, mut held_larger) = (0, 0, 0);
    for index in 0..SYSTEMS {
        let system = System::draw(&mut random);
        for master in [
            Master::GaussSeidel,
            Master::GaussSeidelBodyFirst,
            Master::Jacobi,
        ] {
            runs += 1;
            let context = format!(
                "#{index} m={:.3} c={:.2e} v0={:.2} g={} h={:.2e} under {}",
                system.mass,
                system.c,
                system.v0,
                system.gravity,
                system.h,
                master.label()
            );
            let told = if master == Master::Jacobi { 3.0 } else { 2.0 };
            // Told, or reading only the force it holds: nothing to say.
            for (reads, held) in [(Reads::Every, Some(told)), (Reads::Connected, None)] {
                let (_, logs) = system.run(&fmu, master, reads, held);
                assert!(
                    warned_at(&logs).is_empty(),
                    "{context}, {reads:?}, heldForce {held:?}: warned"
                );
            }
            let (auto, logs) = system.run(&fmu, master, Reads::Every, None);
            let at = warned_at(&logs);
            assert!(at.len() <= 1, "{context}: warned {} times", at.len());
            let Some(&t) = at.first() else {
                continue;
            };
            warned_runs += 1;
            // The step it names: the same run told the force it holds is the same up to there,
            // and holds a larger force over it.
            let (told_run, _) = system.run(&fmu, master, Reads::Every, Some(told));
            let k = auto
                .iter()
                .position(|s| (s.t - t).abs() <= 1e-9 * system.h.max(t))
                .unwrap_or_else(|| panic!("{context}: no communication point at {t}"));
            for j in 0..k {
                assert_eq!(
                    (auto[j].x, auto[j].v, auto[j].held),
                    (told_run[j].x, told_run[j].v, told_run[j].held),
                    "{context}: the runs part before the warned step, at point {j}"
                );
            }
            // Over that step (f_mean) or the next (f_next, held a step later by Jacobi), if the
            // force cut was the one this master holds (it may have been the other output).
            let end = (k + 2).min(auto.len());
            if (k..end).any(|j| told_run[j].held.abs() > auto[j].held.abs()) {
                held_larger += 1;
            }
        }
    }
    println!(
        "{warned_runs} of {runs} runs reading every output warned; in {held_larger} of them the \
         master told which force it holds held a larger one"
    );
    assert!(
        warned_runs > 0,
        "no run of {runs} was cut for want of a reading: the test checks nothing"
    );
    // Most cuts are of the force the master holds: told, it gets more.
    assert!(
        2 * held_larger > warned_runs,
        "only {held_larger} of {warned_runs} warned runs held a larger force when told"
    );
    let doc = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DOC);
    let text = std::fs::read_to_string(&doc).expect("docs/coupling.md");
    let said = format!(
        "of {runs} seeded runs reading every output with\n`m_eff` right, {warned_runs} warn, and in \
         {held_larger} of them"
    );
    assert!(text.contains(&said), "{DOC} does not say: {said:?}");
}
