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
