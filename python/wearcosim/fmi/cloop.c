/*
 * cloop.c -- the communication-step loop of wearcosim's FMPy runner, in C.
 *
 * Runner.step_record(n, vrs) advances n communication steps on the grid t0 + k*h and reads
 * the Reals vrs after each.  Through ctypes every call costs ~1-2 us of Python; a wear cycle
 * of the hybrid mechanism is 500 steps of a few us of FMU work each, so the loop itself runs
 * here: it calls the FMU's own fmi2DoStep / fmi2GetReal through the function pointers the
 * runner resolved from the FMU's shared library (any FMI 2.0 Co-Simulation FMU, nothing
 * wearcosim-specific).  The FMU's logger callback still reaches Python.
 *
 * Compiled on first use by wearcosim.fmi.cloop (cached by content hash); when no C compiler is
 * available the runner keeps its ctypes loop, with identical results.
 */
#include <stddef.h>

typedef int (*do_step_fn)(void *c, double t, double h, int noSetPrior);
typedef int (*get_real_fn)(void *c, const unsigned int *vr, size_t nvr, double *value);

/* Steps k0 .. k0+n-1: step j goes from t0 + (k0+j)*h to t0 + (k0+j+1)*h (anchored, never
 * accumulated).  out[j*nvr ...] = the Reals after step j, tout[j] = its end time.
 * Returns 0, or the failing status with *failed_at = j and *which = 0 (fmi2DoStep) / 1
 * (fmi2GetReal).  Statuses fmi2OK and fmi2Warning (0, 1) continue. */
int wc_step_record(void *do_step, void *get_real, void *comp, double t0, double h, long k0,
                   long n, const unsigned int *vr, size_t nvr, double *out, double *tout,
                   long *failed_at, int *which)
{
    const do_step_fn step = (do_step_fn)do_step;
    const get_real_fn get = (get_real_fn)get_real;
    long j;
    for (j = 0; j < n; j++) {
        const double t = t0 + (double)(k0 + j) * h;
        const double t1 = t0 + (double)(k0 + j + 1) * h;
        int st = step(comp, t, t1 - t, 1);
        if (st > 1) { *failed_at = j; *which = 0; return st; }
        st = get(comp, vr, nvr, out + (size_t)j * nvr);
        if (st > 1) { *failed_at = j; *which = 1; return st; }
        tout[j] = t1;
    }
    return 0;
}

/*
 * wc_phi -- one evaluation of the co-simulation master's implicit coupling step
 * (wearcosim.system.ijcsa): every unit restored to its saved FMU state (when `restore`), then,
 * in the order seq[], its Real inputs given from their values at t (y0[src]) to those at
 * t + dt (out[src]: candidate values, or outputs of units evaluated before), linearly through
 * fmi2SetRealInputDerivatives (order 1) when the unit interpolates inputs, else as their mean
 * held (a unit with `given` takes the polynomial y0 + d1*s + d2*s^2/2 of its sources instead,
 * orders 1 and 2, the mean of that held); fmi2DoStep; the end values set when an output has
 * direct feedthrough; the outputs
 * read into out[dst].  held[] receives the means of the two ends (the master's energy estimate
 * measures the consistency of the exchanged end values; the refinement check, the rest).  One ctypes
 * call instead of ~6 per unit.  Returns 0, or the failing status with *failed = index of the
 * unit in units[] * 8 + the call (0 SetFMUstate, 1 SetReal, 2 SetRealInputDerivatives,
 * 3 DoStep, 4 SetReal of the end values, 5 GetReal, 6 the discrete outputs, read into their
 * buffers after the step).  Statuses OK and Warning continue.
 */
typedef int (*set_state_fn)(void *c, void *state);
typedef int (*set_real_fn)(void *c, const unsigned int *vr, size_t nvr, const double *value);
typedef int (*set_der_fn)(void *c, const unsigned int *vr, size_t nvr, const int *order, const double *value);

typedef struct {
    void *comp;
    void *set_state, *set_real, *set_der, *do_step, *get_real;
    void *state;                 /* the saved fmi2FMUstate */
    int interp, feedthrough;
    long n_in, n_out, held_off;
    const unsigned int *in_vr;
    const long *in_src;          /* table index of each input */
    const unsigned int *out_vr;
    const long *out_dst;         /* table index of each output */
    double *scratch;             /* 3 * n_in doubles */
    double *out_buf;             /* n_out doubles */
    const int *ones;             /* n_in ones (derivative orders) */
    const int *twos;             /* n_in twos */
    int given;                   /* the inputs' polynomial is d1, d2 (else the line y0 -> out) */
    int order2;                  /* the unit takes second derivatives */
    void *get_state, *get_int, *get_bool;
    long n_dreal, n_dint, n_dbool;     /* discrete outputs, read after each step */
    const unsigned int *dreal_vr, *dint_vr, *dbool_vr;
    double *dreal_buf;
    int *dint_buf, *dbool_buf;
} wc_unit;

typedef int (*get_state_fn)(void *c, void **state);
typedef int (*get_int_fn)(void *c, const unsigned int *vr, size_t nvr, int *value);

int wc_phi(const wc_unit *units, long n_units, const long *seq, long n_seq, int restore,
           double t, double dt, const double *y0, double *out, double *held, const double *d1,
           const double *d2, long *failed)
{
    long i, j;
    int st;
    if (restore)
        for (i = 0; i < n_units; i++) {
            const wc_unit *u = &units[i];
            st = ((set_state_fn)u->set_state)(u->comp, u->state);
            if (st > 1) { *failed = i * 8 + 0; return st; }
        }
    for (j = 0; j < n_seq; j++) {
        const long k = seq[j];
        const wc_unit *u = &units[k];
        double *a = u->scratch, *d = u->scratch + u->n_in;
        if (u->n_in > 0) {
            double *e = u->scratch + 2 * u->n_in;      /* second derivatives */
            for (i = 0; i < u->n_in; i++) {
                const long q = u->in_src[i];
                const double y = y0[q], z = out[q];
                const double g1 = (u->given && d1) ? d1[q] : (z - y) / dt;
                const double g2 = (u->given && d2) ? d2[q] : 0.0;
                const double mean = y + g1 * dt / 2 + g2 * dt * dt / 6;
                if (u->interp) { a[i] = y; d[i] = g1; e[i] = g2; }
                else a[i] = mean;
                if (held) held[u->held_off + i] = 0.5 * (y + z);   /* the energy estimate's exchange */
            }
            st = ((set_real_fn)u->set_real)(u->comp, u->in_vr, (size_t)u->n_in, a);
            if (st > 1) { *failed = k * 8 + 1; return st; }
            if (u->interp) {
                st = ((set_der_fn)u->set_der)(u->comp, u->in_vr, (size_t)u->n_in, u->ones, d);
                if (st > 1) { *failed = k * 8 + 2; return st; }
                if (u->order2) {
                    st = ((set_der_fn)u->set_der)(u->comp, u->in_vr, (size_t)u->n_in, u->twos, e);
                    if (st > 1) { *failed = k * 8 + 2; return st; }
                }
            }
        }
        st = ((do_step_fn)u->do_step)(u->comp, t, dt, 0);
        if (st > 1) { *failed = k * 8 + 3; return st; }
        if (u->n_in > 0 && u->feedthrough) {
            for (i = 0; i < u->n_in; i++) a[i] = out[u->in_src[i]];
            st = ((set_real_fn)u->set_real)(u->comp, u->in_vr, (size_t)u->n_in, a);
            if (st > 1) { *failed = k * 8 + 4; return st; }
        }
        if (u->n_out > 0) {
            st = ((get_real_fn)u->get_real)(u->comp, u->out_vr, (size_t)u->n_out, u->out_buf);
            if (st > 1) { *failed = k * 8 + 5; return st; }
            for (i = 0; i < u->n_out; i++) out[u->out_dst[i]] = u->out_buf[i];
        }
        if (u->n_dreal > 0) {
            st = ((get_real_fn)u->get_real)(u->comp, u->dreal_vr, (size_t)u->n_dreal, u->dreal_buf);
            if (st > 1) { *failed = k * 8 + 6; return st; }
        }
        if (u->n_dint > 0) {
            st = ((get_int_fn)u->get_int)(u->comp, u->dint_vr, (size_t)u->n_dint, u->dint_buf);
            if (st > 1) { *failed = k * 8 + 6; return st; }
        }
        if (u->n_dbool > 0) {            /* fmi2Boolean is an int */
            st = ((get_int_fn)u->get_bool)(u->comp, u->dbool_vr, (size_t)u->n_dbool, u->dbool_buf);
            if (st > 1) { *failed = k * 8 + 6; return st; }
        }
    }
    return 0;
}

/* wc_save -- fmi2GetFMUstate of every unit into its `state` (allocated by the FMU on the first
 * call, updated in place after).  Returns 0, or the failing status with *failed = the unit. */
int wc_save(wc_unit *units, long n_units, long *failed)
{
    long i;
    for (i = 0; i < n_units; i++) {
        wc_unit *u = &units[i];
        const int st = ((get_state_fn)u->get_state)(u->comp, &u->state);
        if (st > 1) { *failed = i; return st; }
    }
    return 0;
}
