//! The tests' one expectation of the force: the MSL 4.1 law
//! (`Modelica.Mechanics.Translational.Components.ElastoGap`) written out from its definition,
//! independently of the FMU's source, so that a slip in `src/` cannot hide in the reference too.
//!
//! `s_rel = flange_b.s - flange_a.s`, `v_rel = flange_b.v - flange_a.v`, contact while
//! `s_rel < s_rel0`; in contact `f_c = -F*|(s_rel - s_rel0)/s_ref|^n` with `F = f_ref`, or
//! `c*s_ref` when `f_ref = 0`, `f_d = min(max(d*v_rel, f_c), -f_c)`, `f = f_c + f_d` (the force at
//! flange_b; `f <= 0` pushes the flanges apart, never together), `lossPower = f_d*v_rel >= 0`.
//!
//! Besides the law at a point: the spring's work, and a high-accuracy quadrature of the force and
//! the loss power along a motion, for the checks of the step integrals.

/// The law's parameters, named as the FMU's parameters are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Law {
    pub c: f64,
    pub d: f64,
    pub s_rel0: f64,
    pub n: f64,
    pub s_ref: f64,
    pub f_ref: f64,
}

/// The law at one point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Forces {
    pub contact: bool,
    pub f_c: f64,
    pub f_d: f64,
    pub f: f64,
    pub loss_power: f64,
}

impl Law {
    /// The parameter settings of an instance with this law.
    pub fn settings(&self) -> [(&'static str, f64); 6] {
        [
            ("c", self.c),
            ("d", self.d),
            ("s_rel0", self.s_rel0),
            ("n", self.n),
            ("s_ref", self.s_ref),
            ("f_ref", self.f_ref),
        ]
    }

    /// `F`: the spring force at the compression `s_ref`.
    pub fn reference_force(&self) -> f64 {
        if self.f_ref == 0.0 {
            self.c * self.s_ref
        } else {
            self.f_ref
        }
    }

    /// `|f_c|` at compression `x >= 0`.
    pub fn spring(&self, x: f64) -> f64 {
        self.reference_force() * (x / self.s_ref).abs().powf(self.n)
    }

    pub fn forces(&self, s_rel: f64, v_rel: f64) -> Forces {
        // A NaN s_rel fails the comparison: no contact, as in the FMU.
        let contact = s_rel < self.s_rel0;
        if !contact {
            return Forces {
                contact,
                f_c: 0.0,
                f_d: 0.0,
                f: 0.0,
                loss_power: 0.0,
            };
        }
        let f_c = -self.spring(self.s_rel0 - s_rel);
        let f_d = (self.d * v_rel).max(f_c).min(-f_c);
        Forces {
            contact,
            f_c,
            f_d,
            f: f_c + f_d,
            loss_power: f_d * v_rel,
        }
    }

    /// Integral of [`Law::spring`] from compression 0 to `x`.
    pub fn spring_work(&self, x: f64) -> f64 {
        self.spring_work_over(0.0, x)
    }

    /// Integral of [`Law::spring`] from compression `a >= 0` to `a + span`, without the
    /// cancellation of `spring_work(a + span) - spring_work(a)` when `span` is much smaller than
    /// `a`: `(a + span)^m - a^m = a^m * expm1(m * ln1p(span/a))`.
    pub fn spring_work_over(&self, a: f64, span: f64) -> f64 {
        let m = self.n + 1.0;
        let difference = if a > 0.0 {
            (a / self.s_ref).powf(m) * (m * (span / a).ln_1p()).exp_m1()
        } else {
            (span / self.s_ref).powf(m)
        };
        self.reference_force() * self.s_ref / m * difference
    }
}

// ---------------------------------------------------------------------------------------------
// A high-accuracy quadrature along a motion
// ---------------------------------------------------------------------------------------------

/// Five-point Gauss–Legendre rule on `[a, b]` for the pair (f, lossPower) of `g`.
fn gauss5(g: &dyn Fn(f64) -> (f64, f64), a: f64, b: f64) -> (f64, f64) {
    const X: [f64; 5] = [
        -0.906_179_845_938_664,
        -0.538_469_310_105_683_1,
        0.0,
        0.538_469_310_105_683_1,
        0.906_179_845_938_664,
    ];
    const W: [f64; 5] = [
        0.236_926_885_056_189_1,
        0.478_628_670_499_366_5,
        0.568_888_888_888_888_9,
        0.478_628_670_499_366_5,
        0.236_926_885_056_189_1,
    ];
    let (mid, half) = (0.5 * (a + b), 0.5 * (b - a));
    let mut sum = (0.0, 0.0);
    for (x, w) in X.iter().zip(W) {
        let (p, q) = g(mid + half * x);
        sum.0 += w * p;
        sum.1 += w * q;
    }
    (sum.0 * half, sum.1 * half)
}

/// Adaptive bisection on the five-point rule: a piece is accepted when its halves agree with it to
/// the absolute `tol`, or when it has become too short for its nodes to be distinct (`min_width`).
fn adaptive(
    g: &dyn Fn(f64) -> (f64, f64),
    a: f64,
    b: f64,
    whole: (f64, f64),
    tol: (f64, f64),
    min_width: f64,
) -> (f64, f64) {
    let m = 0.5 * (a + b);
    let left = gauss5(g, a, m);
    let right = gauss5(g, m, b);
    let both = (left.0 + right.0, left.1 + right.1);
    if b - a <= min_width
        || ((both.0 - whole.0).abs() <= tol.0 && (both.1 - whole.1).abs() <= tol.1)
    {
        return both;
    }
    let l = adaptive(g, a, m, left, tol, min_width);
    let r = adaptive(g, m, b, right, tol, min_width);
    (l.0 + r.0, l.1 + r.1)
}

/// (integral of f, integral of lossPower) over `[0, h]` along the relative motion
/// `s(t) = s0 + v0 t + a t^2/2`, to about 1e-12 relative: adaptive Gauss–Legendre, which refines
/// only around the kinks (contact start and end, damper bound switching).
pub fn reference_integral(law: &Law, s0: f64, v0: f64, a: f64, h: f64) -> (f64, f64) {
    let g = |t: f64| {
        let forces = law.forces(s0 + v0 * t + 0.5 * a * t * t, v0 + a * t);
        (forces.f, forces.loss_power)
    };
    let pieces = 64;
    let width = h / f64::from(pieces);
    let coarse: Vec<(f64, f64)> = (0..pieces)
        .map(|k| gauss5(&g, f64::from(k) * width, f64::from(k + 1) * width))
        .collect();
    let scale = coarse
        .iter()
        .fold((0.0f64, 0.0f64), |s, p| (s.0 + p.0.abs(), s.1 + p.1.abs()));
    // Each accepted piece is good to 1e-15 of the whole; a few hundred pieces at most.
    let tol = (1e-15 * scale.0, 1e-15 * scale.1);
    let mut total = (0.0, 0.0);
    for (k, piece) in coarse.iter().enumerate() {
        let (a0, b0) = (k as f64 * width, (k + 1) as f64 * width);
        let p = adaptive(&g, a0, b0, *piece, tol, 1e-12 * h);
        total.0 += p.0;
        total.1 += p.1;
    }
    total
}

/// `actual` within `relative` of `expected` (absolutely, where `expected` is 0).
#[track_caller]
pub fn assert_close(actual: f64, expected: f64, relative: f64, what: &str) {
    let error = (actual - expected).abs();
    assert!(
        error <= relative * expected.abs().max(f64::MIN_POSITIVE),
        "{what}: {actual:e} vs {expected:e} (relative error {:e} > {relative:e})",
        error / expected.abs()
    );
}
