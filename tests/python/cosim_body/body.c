/* Body: a co-simulation FMU (FMI 2.0) of the mechanical system on the other side of the ElastoGap in
 * tests/python/test_cofmupy.py. cofmupy couples FMUs only, so the body the gap acts on is an FMU too.
 *
 * Body 1 (mass m, position s, velocity v) sits at the gap's flange_b and feels -f_flange, the force
 * the master holds over the step (the gap's f_mean or f_next). Optional, each off at 0:
 *   - a spring k1 from body 1 to a fixed anchor: force -k1*(s - s_anchor);
 *   - a second body of mass m2 behind it (at s + L12 when the spring is relaxed) on a spring k12:
 *     force k12*((s2 - s) - L12) on body 1 and its opposite on body 2;
 *   - a driving force F0*sin(omega*t) on body 1.
 * Over a step the held force is constant. A lone body (no spring, no drive) is integrated exactly;
 * otherwise with classical RK4 in substeps of at most h_sub, with the drive evaluated at the
 * substep's stages. Start: s0, v0; body 2 at s0 + L12 with v0 (spring relaxed, moving together).
 * Without body 2 (m2 = 0) its outputs s2, v2 follow body 1: s + L12, v.
 *
 * Only what an FMI 2.0 master needs for co-simulation is implemented; the optional functions exist
 * (importers resolve them all) and return fmi2Error.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

#define GUID "{8c4e7a51-0f3b-4d52-9a1e-6b0d2c3f1a77}"

/* Value references, as in modelDescription.xml. */
enum {
    VR_M, VR_S0, VR_V0, VR_M2, VR_K12, VR_L12, VR_K1, VR_S_ANCHOR, VR_F0, VR_OMEGA, VR_H_SUB,
    N_PARAMETERS,
    VR_F_FLANGE = 20,
    VR_S = 30, VR_V, VR_S2, VR_V2,
};

typedef struct {
    double p[N_PARAMETERS];
    double f_flange;
    double t, s, v, s2, v2;
} Body;

static void reset_state(Body *b) {
    b->s = b->p[VR_S0];
    b->v = b->p[VR_V0];
    b->s2 = b->p[VR_S0] + b->p[VR_L12];
    b->v2 = b->p[VR_V0];
}

/* Accelerations of body 1 and body 2 at time t in state x = (s, v, s2, v2). */
static void accelerations(const Body *b, double t, const double x[4], double *a1, double *a2) {
    const double *p = b->p;
    double force = -b->f_flange - p[VR_K1] * (x[0] - p[VR_S_ANCHOR]) + p[VR_F0] * sin(p[VR_OMEGA] * t);
    *a2 = 0.0;
    if (p[VR_M2] > 0.0) {
        double spring = p[VR_K12] * ((x[2] - x[0]) - p[VR_L12]);
        force += spring;
        *a2 = -spring / p[VR_M2];
    }
    *a1 = force / p[VR_M];
}

static void rk4(Body *b, double t, double h) {
    double x[4] = {b->s, b->v, b->s2, b->v2}, k[4][4], y[4];
    static const double stage[4] = {0.0, 0.5, 0.5, 1.0};
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) y[j] = i == 0 ? x[j] : x[j] + stage[i] * h * k[i - 1][j];
        double a1, a2;
        accelerations(b, t + stage[i] * h, y, &a1, &a2);
        k[i][0] = y[1];
        k[i][1] = a1;
        k[i][2] = y[3];
        k[i][3] = a2;
    }
    for (int j = 0; j < 4; j++) x[j] += h / 6.0 * (k[0][j] + 2.0 * k[1][j] + 2.0 * k[2][j] + k[3][j]);
    b->s = x[0];
    b->v = x[1];
    b->s2 = x[2];
    b->v2 = x[3];
}

static void advance(Body *b, double t, double h) {
    const double *p = b->p;
    if (p[VR_K1] == 0.0 && p[VR_M2] <= 0.0 && p[VR_F0] == 0.0) {
        /* Constant force: exact. */
        double a = -b->f_flange / p[VR_M];
        b->s += h * (b->v + 0.5 * a * h);
        b->v += a * h;
        b->s2 = b->s + p[VR_L12];
        b->v2 = b->v;
        return;
    }
    int n = (int)ceil(h / p[VR_H_SUB]);
    if (n < 1) n = 1;
    for (int i = 0; i < n; i++) rk4(b, t + i * h / n, h / n);
    if (p[VR_M2] <= 0.0) {
        /* No body 2: s2, v2 follow body 1. */
        b->s2 = b->s + p[VR_L12];
        b->v2 = b->v;
    }
}

static double *real_slot(Body *b, fmi2ValueReference vr) {
    if (vr < N_PARAMETERS) return &b->p[vr];
    switch (vr) {
    case VR_F_FLANGE: return &b->f_flange;
    case VR_S: return &b->s;
    case VR_V: return &b->v;
    case VR_S2: return &b->s2;
    case VR_V2: return &b->v2;
    default: return NULL;
    }
}

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }
fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n, const fmi2String cat[]) {
    (void)c; (void)on; (void)n; (void)cat;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid, fmi2String resources,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean logging) {
    (void)name; (void)resources; (void)functions; (void)visible; (void)logging;
    if (type != fmi2CoSimulation || guid == NULL || strcmp(guid, GUID) != 0) return NULL;
    Body *b = calloc(1, sizeof(Body));
    if (b == NULL) return NULL;
    /* The start values of modelDescription.xml. */
    b->p[VR_M] = 1.0;
    b->p[VR_S0] = 0.01;
    b->p[VR_V0] = -1.0;
    b->p[VR_L12] = 0.1;
    b->p[VR_H_SUB] = 1e-5;
    reset_state(b);
    return b;
}

void fmi2FreeInstance(fmi2Component c) { free(c); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tolDefined, fmi2Real tol, fmi2Real start,
                               fmi2Boolean stopDefined, fmi2Real stop) {
    (void)tolDefined; (void)tol; (void)stopDefined; (void)stop;
    ((Body *)c)->t = start;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) { reset_state(c); return fmi2OK; }
fmi2Status fmi2ExitInitializationMode(fmi2Component c) { reset_state(c); return fmi2OK; }
fmi2Status fmi2Terminate(fmi2Component c) { (void)c; return fmi2OK; }
fmi2Status fmi2Reset(fmi2Component c) { (void)c; return fmi2Error; }

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Real value[]) {
    for (size_t i = 0; i < n; i++) {
        double *slot = real_slot(c, vr[i]);
        if (slot == NULL) return fmi2Error;
        value[i] = *slot;
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Real value[]) {
    for (size_t i = 0; i < n; i++) {
        /* Parameters and the input only: outputs are not settable. */
        if (vr[i] >= N_PARAMETERS && vr[i] != VR_F_FLANGE) return fmi2Error;
        *real_slot(c, vr[i]) = value[i];
    }
    return fmi2OK;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean noSetPrior) {
    (void)noSetPrior;
    Body *b = c;
    advance(b, t, h);
    b->t = t + h;
    return fmi2OK;
}

/* Not supported: every one of them exists because importers resolve them all. */
#define UNSUPPORTED return fmi2Error
fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Integer v[]) { (void)c; (void)vr; (void)n; (void)v; UNSUPPORTED; }
fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Boolean v[]) { (void)c; (void)vr; (void)n; (void)v; UNSUPPORTED; }
fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2String v[]) { (void)c; (void)vr; (void)n; (void)v; UNSUPPORTED; }
fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Integer v[]) { (void)c; (void)vr; (void)n; (void)v; UNSUPPORTED; }
fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Boolean v[]) { (void)c; (void)vr; (void)n; (void)v; UNSUPPORTED; }
fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2String v[]) { (void)c; (void)vr; (void)n; (void)v; UNSUPPORTED; }
fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *s) { (void)c; (void)s; UNSUPPORTED; }
fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate s) { (void)c; (void)s; UNSUPPORTED; }
fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *s) { (void)c; (void)s; UNSUPPORTED; }
fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate s, size_t *n) { (void)c; (void)s; (void)n; UNSUPPORTED; }
fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate s, fmi2Byte b[], size_t n) { (void)c; (void)s; (void)b; (void)n; UNSUPPORTED; }
fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte b[], size_t n, fmi2FMUstate *s) { (void)c; (void)b; (void)n; (void)s; UNSUPPORTED; }
fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference u[], size_t nu, const fmi2ValueReference z[], size_t nz, const fmi2Real dv[], fmi2Real dz[]) { (void)c; (void)u; (void)nu; (void)z; (void)nz; (void)dv; (void)dz; UNSUPPORTED; }
fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Integer o[], const fmi2Real v[]) { (void)c; (void)vr; (void)n; (void)o; (void)v; UNSUPPORTED; }
fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Integer o[], fmi2Real v[]) { (void)c; (void)vr; (void)n; (void)o; (void)v; UNSUPPORTED; }
fmi2Status fmi2CancelStep(fmi2Component c) { (void)c; UNSUPPORTED; }
fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind k, fmi2Status *v) { (void)c; (void)k; (void)v; UNSUPPORTED; }
fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind k, fmi2Real *v) { (void)c; (void)k; (void)v; UNSUPPORTED; }
fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind k, fmi2Integer *v) { (void)c; (void)k; (void)v; UNSUPPORTED; }
fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind k, fmi2Boolean *v) { (void)c; (void)k; (void)v; UNSUPPORTED; }
fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind k, fmi2String *v) { (void)c; (void)k; (void)v; UNSUPPORTED; }
