/*
 * The baseline for benches/fmi_abi.rs: one co-simulation step of the MSL ElastoGap as a plain C FMU
 * would compute it, doing the same work as the Rust FMU so that the timing compares
 * implementations, not algorithms:
 *
 *   - the force law f_c = -f_ref*|(s_rel - s_rel0)/s_ref|^n (f_ref = c*s_ref when 0), damper
 *     f_d = min(max(d*v_rel, f_c), -f_c), contact while s_rel < s_rel0, with the same fast paths
 *     for n = 1 and n = 2;
 *   - the relative motion extrapolated quadratically over the step, its acceleration supplied or
 *     estimated from the velocity history (mean acceleration over the coming step);
 *   - contact start and end located as roots of the quadratic, contact phases cut into equal
 *     substeps, each integrated with 3-point Gauss-Legendre and split where the damper bound
 *     switches (sign samples at the substep's start, middle and end and where v_rel = 0, Illinois
 *     root finding); the sample at the middle is the middle Gauss point and the one at a
 *     substep's end serves the next substep too, so a substep costs 3 full law evaluations and
 *     one spring force, as in the Rust FMU;
 *   - the step's bookkeeping: mean force, dissipated energy, history, end-of-step outputs and the
 *     check that they are finite.
 *
 * Compiled by the benchmark at run time with `cc -O2 -shared -fPIC` and loaded like an FMU binary.
 * The small hot helpers are `static inline`, as a C author would mark them: at -O2 GCC otherwise
 * keeps the force law out of line and spills around every call.
 */

#include <math.h>
#include <stdlib.h>

typedef struct {
    double c, d, s_rel0, n, s_ref, f_ref;
} gap_law;

typedef struct {
    int contact;
    double f_c, f_d, f, loss_power;
} gap_forces;

typedef struct {
    double s, v, a;
} gap_motion;

typedef struct {
    gap_law law;
    int use_heat_port;
    double max_substep_size;
    int max_substep_count;

    double s_a, v_a, s_b, v_b;
    int has_a_a, has_a_b;
    double a_a, a_b;

    int history_len;
    double history_time[2], history_v_a[2], history_v_b[2];

    double time, last_step_size;
    int has_end_of_step;
    gap_motion end_of_step;
    double f_mean, e_loss, q_flow_mean;
    gap_forces outputs;
} baseline_instance;

static const double gauss_nodes[3] = {0.5 - 0.3872983346207417, 0.5, 0.5 + 0.3872983346207417};
static const double gauss_weights[3] = {5.0 / 18.0, 8.0 / 18.0, 5.0 / 18.0};

static inline int law_in_contact(const gap_law *law, double s_rel)
{
    return !(s_rel >= law->s_rel0 || isnan(s_rel));
}

static inline double law_spring_force(const gap_law *law, double s_rel)
{
    double compression = (law->s_rel0 - s_rel) / law->s_ref, power;
    double f_ref = law->f_ref == 0.0 ? law->c * law->s_ref : law->f_ref;
    if (law->n == 1.0)
        power = compression;
    else if (law->n == 2.0)
        power = compression * compression;
    else
        power = pow(compression, law->n - 1.0) * compression;
    return -f_ref * power;
}

static inline void law_evaluate(const gap_law *law, double s_rel, double v_rel, gap_forces *out)
{
    double linear;
    if (!law_in_contact(law, s_rel)) {
        out->contact = 0;
        out->f_c = out->f_d = out->f = out->loss_power = 0.0;
        return;
    }
    out->contact = 1;
    out->f_c = law_spring_force(law, s_rel);
    linear = law->d * v_rel;
    if (linear > -out->f_c)
        out->f_d = -out->f_c;
    else if (linear < out->f_c)
        out->f_d = out->f_c;
    else
        out->f_d = linear;
    out->f = out->f_c + out->f_d;
    out->loss_power = out->f_d * v_rel;
}

static inline gap_motion motion_at(gap_motion m, double tau)
{
    gap_motion p;
    p.s = m.s + tau * (m.v + 0.5 * m.a * tau);
    p.v = m.v + m.a * tau;
    p.a = m.a;
    return p;
}

/* Positive where the damper bound acts, negative where the damper is linear: |d*v_rel| + f_c. */
static inline double bound_indicator(const gap_law *law, gap_motion m, double tau)
{
    gap_motion p = motion_at(m, tau);
    double f_c = law_in_contact(law, p.s) ? law_spring_force(law, p.s) : 0.0;
    return fabs(law->d * p.v) + f_c;
}

/* 3-point Gauss-Legendre over [t0, t1], added to *impulse and *dissipated; the indicator at the
 * middle node (the middle of the interval) comes out of the same evaluation. */
static inline void quadrature(const gap_law *law, gap_motion m, double t0, double t1,
                              double *impulse, double *dissipated, double *middle,
                              double *middle_indicator)
{
    double length = t1 - t0, i = 0.0, e = 0.0;
    int k;
    for (k = 0; k < 3; k++) {
        double tau = t0 + gauss_nodes[k] * length;
        gap_motion p = motion_at(m, tau);
        gap_forces forces;
        law_evaluate(law, p.s, p.v, &forces);
        i += gauss_weights[k] * forces.f;
        e += gauss_weights[k] * forces.loss_power;
        if (k == 1) {
            *middle = tau;
            *middle_indicator = fabs(law->d * p.v) + forces.f_c;
        }
    }
    *impulse += i * length;
    *dissipated += e * length;
}

/* Illinois method on a bracket [t0, t1] of the bound indicator (rarely needed). */
static double bound_switch(const gap_law *law, gap_motion m, double t0, double g0, double t1,
                           double g1)
{
    double tolerance = 4.0 * 2.220446049250313e-16 * fmax(fmax(fabs(t1), fabs(t0)), 2.2250738585072014e-308);
    int last_side = 0, iteration;
    for (iteration = 0; iteration < 100; iteration++) {
        double t, gt;
        if (fabs(t1 - t0) <= tolerance)
            break;
        t = (t0 * g1 - t1 * g0) / (g1 - g0);
        if (!(t > fmin(t0, t1) && t < fmax(t0, t1)))
            t = 0.5 * (t0 + t1);
        gt = bound_indicator(law, m, t);
        if (gt == 0.0)
            return t;
        if ((gt > 0.0) == (g0 > 0.0)) {
            t0 = t;
            g0 = gt;
            if (last_side == -1)
                g1 *= 0.5;
            last_side = -1;
        } else {
            t1 = t;
            g1 = gt;
            if (last_side == 1)
                g0 *= 0.5;
            last_side = 1;
        }
    }
    return 0.5 * (t0 + t1);
}

static inline int switches(double ga, double gb)
{
    return (ga > 0.0) != (gb > 0.0) && ga != 0.0 && gb != 0.0;
}

/* One substep [t0, t1] in contact: g0 is the indicator at t0 (the previous substep's end); returns
 * the indicator at t1. Split where the damper bound switches (samples at the ends, the middle and
 * where v_rel = 0), which is rare, so the whole-substep quadrature is computed first. */
static inline double contact_piece(const gap_law *law, gap_motion m, double still, double t0,
                                   double g0, double t1, double *impulse, double *dissipated)
{
    double whole_impulse = 0.0, whole_dissipated = 0.0, mid = t0, g_mid = 0.0, g1;
    double times[4], values[4], start = t0, unused_mid, unused_g;
    int still_inside, count = 3, k;
    quadrature(law, m, t0, t1, &whole_impulse, &whole_dissipated, &mid, &g_mid);
    g1 = bound_indicator(law, m, t1);
    still_inside = still > t0 && still < t1 && still != mid;
    if (!still_inside && !switches(g0, g_mid) && !switches(g_mid, g1)) {
        *impulse += whole_impulse;
        *dissipated += whole_dissipated;
        return g1;
    }
    times[0] = t0;
    values[0] = g0;
    times[1] = mid;
    values[1] = g_mid;
    times[2] = t1;
    values[2] = g1;
    if (still_inside) {
        double g_still = bound_indicator(law, m, still);
        count = 4;
        times[3] = t1;
        values[3] = g1;
        if (still < mid) {
            times[2] = mid;
            values[2] = g_mid;
            times[1] = still;
            values[1] = g_still;
        } else {
            times[2] = still;
            values[2] = g_still;
        }
    }
    for (k = 1; k < count; k++) {
        if (switches(values[k - 1], values[k])) {
            double at = bound_switch(law, m, times[k - 1], values[k - 1], times[k], values[k]);
            quadrature(law, m, start, at, impulse, dissipated, &unused_mid, &unused_g);
            start = at;
        }
    }
    quadrature(law, m, start, t1, impulse, dissipated, &unused_mid, &unused_g);
    return g1;
}

/* Sign-changing roots of s(tau) - s_rel0 inside (0, h), ascending; returns how many. */
static int contact_crossings(gap_motion m, double s_rel0, double h, double roots_inside[2])
{
    double offset = m.s - s_rel0, half_a = 0.5 * m.a, roots[2] = {NAN, NAN};
    int count = 0, k;
    if (half_a == 0.0) {
        if (m.v != 0.0)
            roots[0] = -offset / m.v;
    } else {
        double discriminant = m.v * m.v - 4.0 * half_a * offset;
        if (discriminant > 0.0) {
            double q = -0.5 * (m.v + copysign(sqrt(discriminant), m.v));
            roots[0] = q / half_a;
            roots[1] = q != 0.0 ? offset / q : NAN;
        }
    }
    for (k = 0; k < 2; k++)
        if (roots[k] > 0.0 && roots[k] < h)
            roots_inside[count++] = roots[k];
    if (count == 2 && roots_inside[0] > roots_inside[1]) {
        double swap = roots_inside[0];
        roots_inside[0] = roots_inside[1];
        roots_inside[1] = swap;
    }
    return count;
}

/* Integral of f and lossPower over [0, h] along m; returns the number of substeps. */
int baseline_integrate(const gap_law *law, double s, double v, double a, double h,
                       double max_substep_size, int max_substep_count, double *impulse,
                       double *dissipated)
{
    gap_motion m = {s, v, a};
    double crossings[2], boundaries[4], wanted, nominal, max_count;
    double still = a != 0.0 ? -v / a : NAN;
    int crossing_count, segment, substeps = 0;
    max_count = (double)(max_substep_count > 1 ? max_substep_count : 1);
    wanted = ceil(h / max_substep_size);
    nominal = h / (isfinite(wanted) ? fmin(fmax(wanted, 1.0), max_count) : max_count);
    crossing_count = contact_crossings(m, law->s_rel0, h, crossings);
    boundaries[0] = 0.0;
    for (segment = 0; segment < crossing_count; segment++)
        boundaries[segment + 1] = crossings[segment];
    boundaries[crossing_count + 1] = h;
    *impulse = 0.0;
    *dissipated = 0.0;
    for (segment = 0; segment <= crossing_count; segment++) {
        double t0 = boundaries[segment], t1 = boundaries[segment + 1], pieces, length, from, g_from;
        int piece_count, k;
        if (t1 <= t0 || !(motion_at(m, 0.5 * (t0 + t1)).s < law->s_rel0))
            continue;
        pieces = fmin(fmax(ceil((t1 - t0) / nominal), 1.0), max_count);
        length = (t1 - t0) / pieces;
        piece_count = (int)pieces;
        from = t0;
        g_from = bound_indicator(law, m, t0);
        for (k = 1; k <= piece_count; k++) {
            double to = k == piece_count ? t1 : t0 + k * length;
            g_from = contact_piece(law, m, still, from, g_from, to, impulse, dissipated);
            from = to;
        }
        substeps += piece_count;
    }
    return substeps;
}

baseline_instance *baseline_instantiate(double c, double d, double s_rel0, double n, double s_ref,
                                        double f_ref, double max_substep_size,
                                        int max_substep_count, double start_time)
{
    baseline_instance *instance = calloc(1, sizeof *instance);
    if (!instance)
        return NULL;
    instance->law.c = c;
    instance->law.d = d;
    instance->law.s_rel0 = s_rel0;
    instance->law.n = n;
    instance->law.s_ref = s_ref;
    instance->law.f_ref = f_ref;
    instance->max_substep_size = max_substep_size;
    instance->max_substep_count = max_substep_count;
    instance->time = start_time;
    return instance;
}

void baseline_free(baseline_instance *instance) { free(instance); }

void baseline_set_inputs(baseline_instance *instance, double s_a, double v_a, double s_b,
                         double v_b)
{
    instance->s_a = s_a;
    instance->v_a = v_a;
    instance->s_b = s_b;
    instance->v_b = v_b;
    instance->has_end_of_step = 0;
}

void baseline_set_input_accelerations(baseline_instance *instance, double a_a, double a_b)
{
    instance->a_a = a_a;
    instance->a_b = a_b;
    instance->has_a_a = instance->has_a_b = 1;
}

static double flange_acceleration(const baseline_instance *instance, double time, double h,
                                  double now, const double past[2], int supplied,
                                  double acceleration)
{
    double h1 = time - instance->history_time[0];
    double h2 = instance->history_time[0] - instance->history_time[1];
    double mean1 = (now - past[0]) / h1, mean2 = (past[0] - past[1]) / h2;
    if (supplied)
        return acceleration;
    if (instance->history_len == 0)
        return 0.0;
    if (instance->history_len == 1)
        return mean1;
    return mean1 + (mean1 - mean2) * (h + h1) / (h1 + h2);
}

/* 0 on success, 1 when the call is refused or the result is not finite. */
int baseline_do_step(baseline_instance *instance, double current_time, double h)
{
    double time = instance->time, impulse, dissipated, slack;
    gap_motion start;
    if (!(h > 0.0 && isfinite(h)))
        return 1;
    slack = fmin(1e-10 * fmax(fabs(time), 1.0), 0.5 * fmax(instance->last_step_size, h));
    if (!isfinite(current_time) || fabs(current_time - time) > slack)
        return 1;
    time = current_time;
    start.s = instance->s_b - instance->s_a;
    start.v = instance->v_b - instance->v_a;
    start.a = flange_acceleration(instance, time, h, instance->v_b, instance->history_v_b,
                                  instance->has_a_b, instance->a_b) -
              flange_acceleration(instance, time, h, instance->v_a, instance->history_v_a,
                                  instance->has_a_a, instance->a_a);
    baseline_integrate(&instance->law, start.s, start.v, start.a, h, instance->max_substep_size,
                       instance->max_substep_count, &impulse, &dissipated);
    instance->end_of_step = motion_at(start, h);
    law_evaluate(&instance->law, instance->end_of_step.s, instance->end_of_step.v,
                 &instance->outputs);
    if (!(isfinite(impulse) && isfinite(dissipated) && isfinite(instance->outputs.f)))
        return 1;
    instance->has_end_of_step = 1;
    instance->f_mean = impulse / h;
    instance->e_loss += dissipated;
    instance->q_flow_mean = instance->use_heat_port ? -dissipated / h : 0.0;
    instance->history_time[1] = instance->history_time[0];
    instance->history_v_a[1] = instance->history_v_a[0];
    instance->history_v_b[1] = instance->history_v_b[0];
    instance->history_time[0] = time;
    instance->history_v_a[0] = instance->v_a;
    instance->history_v_b[0] = instance->v_b;
    if (instance->history_len < 2)
        instance->history_len++;
    instance->has_a_a = instance->has_a_b = 0;
    instance->time = time + h;
    instance->last_step_size = h;
    return 0;
}

double baseline_f_mean(const baseline_instance *instance) { return instance->f_mean; }
