/*
 * A co-simulation master in C that drives the packaged FMI 2.0 binary as an importer does: it loads
 * the library with dlopen, instantiates it, and on every step sets the body's position and
 * velocity (fmi2SetReal), steps (fmi2DoStep), reads the force it holds (fmi2GetReal) and moves the
 * body exactly under that force held over the step. It times each step with its set and get calls
 * and prints the mean nanoseconds per step for every configuration of the FMU a master uses and
 * every kind of step it takes.
 *
 *   master LIBRARY GUID RESOURCES_URI STEPS VR_S VR_V VR_F_MEAN VR_F_NEXT VR_C VR_D VR_M_EFF VR_HELD
 *
 * Configurations: heldForce None, Auto with m_eff 0 and 1 kg, FMean with 1 kg (a Gauss-Seidel
 * master holding f_mean), FNext with 1 kg (a Jacobi master holding the f_next it read after the
 * step before). A 1 kg body at flange_b (flange_a fixed at 0), the stop at s_rel0 = 0, steps of
 * 1 ms, STEPS steps per scenario:
 *   - "free": far from the stop, drifting away at 1 mm/s;
 *   - "resting": on the stop under gravity, pressed to its equilibrium;
 *   - "bouncing": dropped from 5 cm under gravity onto a stop that gives back nearly all (damping
 *     ratio 0.003), its steps told apart afterwards by the body's positions: "approach" (free, the
 *     next step in contact), "contact" (in contact at its start or end) and "flight" (the others).
 * Prints "configuration scenario ns_per_step steps" per line, the clock's own cost taken out; exits
 * non-zero where a call fails or the body's motion is not finite. MASTER_ONLY="configuration
 * scenario" runs that one alone (for a profiler).
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *Component;
typedef int Status;
typedef void (*Logger)(void *, const char *, Status, const char *, const char *, ...);
typedef struct {
    Logger logger;
    void *(*allocate)(size_t, size_t);
    void (*release)(void *);
    void *step_finished;
    void *environment;
} Callbacks;

typedef Component (*Instantiate)(const char *, int, const char *, const char *, const Callbacks *,
                                 int, int);
typedef void (*FreeInstance)(Component);
typedef Status (*Setup)(Component, int, double, double, int, double);
typedef Status (*Mode)(Component);
typedef Status (*SetReal)(Component, const unsigned *, size_t, const double *);
typedef Status (*GetReal)(Component, const unsigned *, size_t, double *);
typedef Status (*SetInteger)(Component, const unsigned *, size_t, const int *);
typedef Status (*DoStep)(Component, double, double, int);

static void quiet(void *env, const char *name, Status status, const char *category,
                  const char *message, ...) {
    (void)env, (void)name, (void)status, (void)category, (void)message;
}

static struct {
    Instantiate instantiate;
    FreeInstance free_instance;
    Setup setup;
    Mode enter, exit;
    SetReal set_real;
    GetReal get_real;
    SetInteger set_integer;
    DoStep do_step;
} fmi;

static const char *guid, *resources;
static unsigned vr_s, vr_v, vr_f_mean, vr_f_next, vr_c, vr_d, vr_m_eff, vr_held;

static void *symbol(void *library, const char *name) {
    void *pointer = dlsym(library, name);
    if (!pointer) {
        fprintf(stderr, "master: %s not exported\n", name);
        exit(2);
    }
    return pointer;
}

static void check(Status status, const char *call) {
    if (status != 0) {
        fprintf(stderr, "master: %s returned %d\n", call, status);
        exit(3);
    }
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

struct Configuration {
    const char *name;
    int held_force; /* 1 Auto, 2 FMean, 3 FNext, 4 None */
    double m_eff;
};

struct Scenario {
    const char *name;
    double x0, v0, gravity, zeta;
};

static const double H = 1e-3, MASS = 1.0, C = 1e5;

/* Runs one scenario under one configuration; fills per-step times and start positions. */
static void run(const struct Configuration *config, const struct Scenario *scenario, long steps,
                double *times, double *positions) {
    static const Callbacks callbacks = {quiet, calloc, free, NULL, NULL};
    Component c = fmi.instantiate("master", 1, guid, resources, &callbacks, 0, 0);
    if (!c) {
        fprintf(stderr, "master: fmi2Instantiate failed\n");
        exit(3);
    }
    check(fmi.setup(c, 0, 0.0, 0.0, 0, 0.0), "fmi2SetupExperiment");
    const double d = 2.0 * scenario->zeta * sqrt(C * MASS);
    const unsigned parameters[] = {vr_c, vr_d, vr_m_eff};
    const double values[] = {C, d, config->m_eff};
    check(fmi.set_real(c, parameters, 3, values), "fmi2SetReal");
    check(fmi.set_integer(c, &vr_held, 1, &config->held_force), "fmi2SetInteger");
    double x = scenario->x0, v = scenario->v0;
    const unsigned motion[] = {vr_s, vr_v};
    double state[] = {x, v};
    check(fmi.set_real(c, motion, 2, state), "fmi2SetReal");
    check(fmi.enter(c), "fmi2EnterInitializationMode");
    check(fmi.exit(c), "fmi2ExitInitializationMode");
    const int jacobi = config->held_force == 3;
    const unsigned held_vr = jacobi ? vr_f_next : vr_f_mean;
    double next = 0.0; /* the f_next a Jacobi master read after the step before */
    for (long k = 0; k < steps; k++) {
        double read;
        state[0] = x, state[1] = v;
        positions[k] = x;
        double started = now_ns();
        check(fmi.set_real(c, motion, 2, state), "fmi2SetReal");
        check(fmi.do_step(c, (double)k * H, H, 1), "fmi2DoStep");
        check(fmi.get_real(c, &held_vr, 1, &read), "fmi2GetReal");
        times[k] = now_ns() - started;
        double held = jacobi ? next : read;
        next = read;
        /* The body at flange_b feels -f. */
        double a = -scenario->gravity - held / MASS;
        x += H * (v + 0.5 * a * H);
        v += a * H;
        if (!isfinite(x) || !isfinite(v)) {
            fprintf(stderr, "master: %s %s: the body's motion is not finite at step %ld\n",
                    config->name, scenario->name, k);
            exit(4);
        }
    }
    positions[steps] = x;
    fmi.free_instance(c);
}

/* What a step's timing adds of its own: two clock reads, subtracted from every mean. */
static double clock_overhead;

static void report(const char *config, const char *scenario, double sum, long count) {
    if (count > 0)
        printf("%s %s %.1f %ld\n", config, scenario, sum / (double)count - clock_overhead, count);
}

int main(int argc, char **argv) {
    if (argc != 13) {
        fprintf(stderr, "usage: master LIBRARY GUID RESOURCES_URI STEPS VR_S VR_V VR_F_MEAN "
                        "VR_F_NEXT VR_C VR_D VR_M_EFF VR_HELD\n");
        return 1;
    }
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "master: %s\n", dlerror());
        return 2;
    }
    guid = argv[2], resources = argv[3];
    long steps = atol(argv[4]);
    unsigned *vrs[] = {&vr_s, &vr_v, &vr_f_mean, &vr_f_next, &vr_c, &vr_d, &vr_m_eff, &vr_held};
    for (int k = 0; k < 8; k++)
        *vrs[k] = (unsigned)atol(argv[5 + k]);
    fmi.instantiate = (Instantiate)symbol(library, "fmi2Instantiate");
    fmi.free_instance = (FreeInstance)symbol(library, "fmi2FreeInstance");
    fmi.setup = (Setup)symbol(library, "fmi2SetupExperiment");
    fmi.enter = (Mode)symbol(library, "fmi2EnterInitializationMode");
    fmi.exit = (Mode)symbol(library, "fmi2ExitInitializationMode");
    fmi.set_real = (SetReal)symbol(library, "fmi2SetReal");
    fmi.get_real = (GetReal)symbol(library, "fmi2GetReal");
    fmi.set_integer = (SetInteger)symbol(library, "fmi2SetInteger");
    fmi.do_step = (DoStep)symbol(library, "fmi2DoStep");

    const struct Configuration configurations[] = {
        {"None", 4, 0.0}, {"Auto_m0", 1, 0.0}, {"Auto_m1", 1, 1.0},
        {"FMean_m1", 2, 1.0}, {"FNext_m1", 3, 1.0},
    };
    const double g = 9.81;
    const struct Scenario scenarios[] = {
        {"free", 1.0, 1e-3, 0.0, 0.1},
        {"resting", -MASS * g / C, 0.0, g, 0.1},
        {"bouncing", 0.05, 0.0, g, 0.003},
    };
    double overhead = 0.0;
    for (int k = 0; k < 100000; k++) {
        double started = now_ns();
        overhead += now_ns() - started;
    }
    clock_overhead = overhead / 100000.0;
    double *times = malloc(sizeof(double) * (size_t)steps);
    double *positions = malloc(sizeof(double) * (size_t)(steps + 1));
    if (!times || !positions)
        return 5;
    for (size_t i = 0; i < sizeof configurations / sizeof *configurations; i++) {
        for (size_t j = 0; j < sizeof scenarios / sizeof *scenarios; j++) {
            const struct Configuration *config = &configurations[i];
            const struct Scenario *scenario = &scenarios[j];
            const char *only = getenv("MASTER_ONLY");
            char name[64];
            snprintf(name, sizeof name, "%s %s", config->name, scenario->name);
            if (only && strcmp(only, name) != 0)
                continue;
            run(config, scenario, steps, times, positions);
            if (strcmp(scenario->name, "bouncing") != 0) {
                double sum = 0.0;
                for (long k = 0; k < steps; k++)
                    sum += times[k];
                report(config->name, scenario->name, sum, steps);
                continue;
            }
            double sums[3] = {0.0, 0.0, 0.0};
            long counts[3] = {0, 0, 0};
            for (long k = 0; k < steps; k++) {
                int in_contact = positions[k] < 0.0 || positions[k + 1] < 0.0;
                int before = !in_contact && k + 2 <= steps && positions[k + 2] < 0.0;
                int kind = in_contact ? 1 : before ? 2 : 0;
                sums[kind] += times[k];
                counts[kind]++;
            }
            report(config->name, "flight", sums[0], counts[0]);
            report(config->name, "contact", sums[1], counts[1]);
            report(config->name, "approach", sums[2], counts[2]);
        }
    }
    free(times);
    free(positions);
    return 0;
}
