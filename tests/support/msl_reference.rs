//! A high-accuracy solution of `Modelica.Mechanics.Translational.Examples.ElastoGap` computed without
//! the FMU: the MSL ElastoGap law of [`super::gap_law`], classical RK4 with small steps, and every
//! switch of the force law (contact start/end, damper clamp on/off) located exactly so that RK4
//! keeps its fourth order. `tests/demo_accuracy.rs` checks it by step halving, mass1 against its closed form
//! and against the MSL reference result.

use super::cosim;
use super::gap_law::Law;

// The example's data, written out here on purpose instead of taken from the master.
pub const M: f64 = 1.0;
pub const SD_C: f64 = 10.0;
pub const SD_D: f64 = 1.5;
pub const SD_S_REL0: f64 = 1.0;
pub const GAP_C: f64 = 10.0;
pub const GAP_D: f64 = 1.5;
pub const GAP_S_REL0: f64 = 1.5;
pub const GAP_N: f64 = 1.0;
pub const GAP_S_REF: f64 = 1.0;
pub const LEFT: f64 = -2.0;
pub const RIGHT: f64 = 2.0;

/// The example's two `ElastoGap`s.
const GAP: Law = Law {
    c: GAP_C,
    d: GAP_D,
    s_rel0: GAP_S_REL0,
    n: GAP_N,
    s_ref: GAP_S_REF,
    f_ref: 0.0,
};

/// `SpringDamper` force at flange_b.
pub fn spring_damper(s_rel: f64, v_rel: f64) -> f64 {
    SD_C * (s_rel - SD_S_REL0) + SD_D * v_rel
}

/// State: [x1, v1, x2, v2].
pub type State = [f64; 4];

pub fn derivative(y: &State) -> State {
    let [x1, v1, x2, v2] = *y;
    // mass1: springDamper1 (-2 m -> mass1), springDamper2 (mass1 -> +2 m).
    let f_sd1 = spring_damper(x1 - LEFT, v1);
    let f_sd2 = spring_damper(RIGHT - x1, -v1);
    // mass2: elastoGap1 (-2 m -> mass2), elastoGap2 (mass2 -> +2 m).
    let f_g1 = GAP.forces(x2 - LEFT, v2).f;
    let f_g2 = GAP.forces(RIGHT - x2, -v2).f;
    [v1, (-f_sd1 + f_sd2) / M, v2, (-f_g1 + f_g2) / M]
}

/// Functions whose sign changes where the force law switches branch.
pub fn switches(y: &State) -> [f64; 4] {
    let x2 = y[2];
    let v2 = y[3];
    let (s1, v_rel1) = (x2 - LEFT, v2);
    let (s2, v_rel2) = (RIGHT - x2, -v2);
    let f_c1 = GAP.forces(s1, v_rel1).f_c;
    let f_c2 = GAP.forces(s2, v_rel2).f_c;
    [
        s1 - GAP_S_REL0,
        s2 - GAP_S_REL0,
        // damper clamp |d*v_rel| = |f_c| (no sign change outside contact, where f_c = 0)
        (GAP_D * v_rel1).abs() - f_c1.abs(),
        (GAP_D * v_rel2).abs() - f_c2.abs(),
    ]
}

pub fn rk4(y: &State, h: f64) -> State {
    let add = |a: &State, k: &State, s: f64| -> State { [0, 1, 2, 3].map(|i| a[i] + s * k[i]) };
    let k1 = derivative(y);
    let k2 = derivative(&add(y, &k1, 0.5 * h));
    let k3 = derivative(&add(y, &k2, 0.5 * h));
    let k4 = derivative(&add(y, &k3, h));
    [0, 1, 2, 3].map(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
}

pub fn side(g: [f64; 4]) -> [bool; 4] {
    g.map(|x| x > 0.0)
}

/// One RK4 step of at most `h` that stops just past the first switch inside it, if any.
/// Returns the new state and the step taken.
pub fn step_to_switch(y: &State, h: f64) -> (State, f64) {
    let before = side(switches(y));
    let full = rk4(y, h);
    if side(switches(&full)) == before {
        return (full, h);
    }
    let (mut lo, mut hi) = (0.0, h);
    while hi - lo > 1e-15 * (1.0 + h) {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if side(switches(&rk4(y, mid))) == before {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (rk4(y, hi), hi)
}

/// The states at `times` (ascending, from 0) with RK4 steps of at most `h`.
pub fn solve(h: f64, times: &[f64]) -> (Vec<State>, usize) {
    let mut y: State = [2.0, 0.0, 2.0, 0.0];
    let mut t = 0.0;
    let mut out = Vec::with_capacity(times.len());
    let mut switches_located = 0;
    for &target in times {
        while target - t > 1e-13 {
            let (next, taken) = step_to_switch(&y, h.min(target - t));
            if taken < h.min(target - t) {
                switches_located += 1;
            }
            y = next;
            t += taken;
        }
        out.push(y);
    }
    (out, switches_located)
}

/// The comparison signals from a state.
pub fn comparison(y: &State) -> [f64; 4] {
    [y[3], RIGHT - y[2], y[1], RIGHT - y[0]]
}

/// mass1 in closed form: x'' = -(2c/m) x - (2d/m) x', x(0) = 2, x'(0) = 0.
pub fn mass1_exact(t: f64) -> (f64, f64) {
    let alpha = SD_D / M;
    let omega = (2.0 * SD_C / M - alpha * alpha).sqrt();
    let (a, b) = (2.0, alpha * 2.0 / omega);
    let e = (-alpha * t).exp();
    let (s, c) = (omega * t).sin_cos();
    (e * (a * c + b * s), -e * (alpha * b + omega * a) * s)
}

pub fn output_times(step: f64) -> Vec<f64> {
    let n = (cosim::STOP_TIME / step).round() as usize;
    (0..=n).map(|k| k as f64 * step).collect()
}

pub fn max_abs_diff(a: &[State], b: &[State]) -> [f64; 4] {
    let mut worst = [0.0f64; 4];
    for (ya, yb) in a.iter().zip(b) {
        for (j, (p, q)) in comparison(ya).iter().zip(comparison(yb)).enumerate() {
            worst[j] = worst[j].max((p - q).abs());
        }
    }
    worst
}

pub fn max4(x: [f64; 4]) -> f64 {
    x.iter().cloned().fold(0.0, f64::max)
}

/// The comparison signals of the high-accuracy solution at `times`.
pub fn comparison_at(times: &[f64]) -> Vec<[f64; 4]> {
    solve(1e-4, times).0.iter().map(comparison).collect()
}

/// The MSL reference result (Dymola) of the example, where the steering repository's `shared/` sits
/// beside the clone; `None` on a user's clone, which has none.
pub fn shared_reference_csv() -> Option<std::path::PathBuf> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/msl/ElastoGap/ElastoGap.csv");
    if path.is_file() {
        Some(path)
    } else {
        println!("{} not found: MSL comparison skipped", path.display());
        None
    }
}
