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
#include <math.h>

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
 * wc_step_record3 -- the same loop for an FMI 3.0 Co-Simulation FMU: fmi3DoStep (its event,
 * terminate, early-return and last-successful-time outputs), then one fmi3GetFloat64 of the
 * nvr value references (whole arrays: nvalues values into buf), of which out[j*m + i] =
 * buf[gather[i]] (the requested elements).  Returns 0, or the failing status with
 * *failed_at = j and *which = 0 (fmi3DoStep) / 1 (fmi3GetFloat64); a step that sets
 * terminateSimulation returns 2 (as fmi3Discard) with *which = 0.  *last = the last
 * lastSuccessfulTime reported.
 */
typedef int (*do_step3_fn)(void *c, double t, double h, _Bool noSetPrior, _Bool *eventHandlingNeeded,
                           _Bool *terminateSimulation, _Bool *earlyReturn, double *lastSuccessfulTime);
typedef int (*get_float64_fn)(void *c, const unsigned int *vr, size_t nvr, double *values, size_t nvalues);

int wc_step_record3(void *do_step, void *get_float64, void *comp, double t0, double h, long k0,
                    long n, const unsigned int *vr, size_t nvr, size_t nvalues, double *buf,
                    const long long *gather, size_t m, double *out, double *tout,
                    long *failed_at, int *which, double *last)
{
    const do_step3_fn step = (do_step3_fn)do_step;
    const get_float64_fn get = (get_float64_fn)get_float64;
    long j;
    size_t i;
    for (j = 0; j < n; j++) {
        const double t = t0 + (double)(k0 + j) * h;
        const double t1 = t0 + (double)(k0 + j + 1) * h;
        _Bool ev = 0, term = 0, early = 0;
        int st = step(comp, t, t1 - t, 1, &ev, &term, &early, last);
        if (st > 1) { *failed_at = j; *which = 0; return st; }
        if (term) { *failed_at = j; *which = 0; return 2; }
        st = get(comp, vr, nvr, buf, nvalues);
        if (st > 1) { *failed_at = j; *which = 1; return st; }
        for (i = 0; i < m; i++)
            out[(size_t)j * m + i] = buf[gather[i]];
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

/*
 * wc_advance -- the whole Newton iteration of one implicit coupling step
 * (wearcosim.system.ijcsa.Implicit.advance, which states the method; this is the same
 * sequence of evaluations, Broyden updates and differenced Jacobians, without a ctypes call
 * and a dozen small numpy operations per evaluation).
 *
 * z[k] receives the prediction from the history (Implicit.predict) and holds the last candidate
 * on return; nw->scale the residual's scale, nw->err the step's error estimate
 * (Implicit.error) when it converged.  out[n]
 * receives the exchanged values at t + dt of the last evaluation (the components are left in
 * its state); held[] the means the energy estimate reads.  d1, d2 are the master's tables of
 * the inputs' polynomial (zero outside the unknowns; d2 used at order 2 only).
 *
 * Returns 0: converged; 1: Newton stalled and its best iterate (within the tolerance) was
 * evaluated again and taken; 2: not converged (nw->residual, nw->worst: the table index of
 * the largest residual, -1 when not finite); 3: an FMI call failed (nw->failed as wc_phi's,
 * nw->status, nw->z_fail the candidate: the caller repeats that evaluation to report it).
 */
typedef struct {
    long n, k;                   /* the exchange table's length, the unknowns' count */
    const long *zi;              /* the unknowns' table indices */
    long max_iter;
    double kappa, slow, jac_range;
    double *scale;               /* k: the residual's scale (set here) */
    double *jac;                 /* k*k, row-major: d Phi_z / d z */
    int jac_ok;
    double jac_dt;
    double *work;                /* 8*k + k*k + n doubles */
    double *z_fail;              /* k */
    long evaluations, restores, iterations, jacobians, fd_evaluations, stalled, not_converged;
    double residual;
    long worst, failed;
    int status;
    /* the accepted history (oldest first, the last one the step's start), for the prediction
     * and the error estimate of Implicit.predict / Implicit.error */
    long n_hist;
    double hist_t[4];
    const double *hist_y[4];
    int order;
    double rtol;
    const double *runmax, *atol;     /* n: the exchanged values' largest magnitude so far, atol */
    double err;                      /* the error estimate of the step taken, over its tolerance */
    double t1;                       /* the step's end on the master's grid (t + dt up to rounding) */
} wc_newton;

/* Implicit.predict: the unknowns at t1 extrapolated through the last (up to three) points. */
static void nw_predict(const wc_newton *nw, double t1, double *z)
{
    const long k = nw->k, m = nw->n_hist < 3 ? nw->n_hist : 3, o = nw->n_hist - m;
    long i, j, q;
    for (i = 0; i < k; i++) z[i] = 0.0;
    for (j = 0; j < m; j++) {
        double w = 1.0;
        for (q = 0; q < m; q++)
            if (q != j) w *= (t1 - nw->hist_t[o + q]) / (nw->hist_t[o + j] - nw->hist_t[o + q]);
        for (i = 0; i < k; i++) z[i] += w * nw->hist_y[o + j][nw->zi[i]];
    }
}

/* Implicit.error: the difference at mid-step between the inputs' polynomial and the one of
 * the next order through one more accepted point, over rtol*max(runmax, |new|) + atol. */
static double nw_error(const wc_newton *nw, double dt, const double *y0, const double *out)
{
    const long k = nw->k;
    double ts[5];
    const double *ys[5];
    long m, o, i, j, q;
    double worst = 0.0;
    const double t1 = nw->hist_t[nw->n_hist - 1] + dt;
    if (k == 0) return 0.0;
    m = nw->order + 1;
    if (nw->n_hist < m) m = 2;
    if (nw->n_hist < m) m = nw->n_hist;
    o = nw->n_hist - m;
    for (j = 0; j < m; j++) { ts[j] = nw->hist_t[o + j]; ys[j] = nw->hist_y[o + j]; }
    ts[m] = t1; ys[m] = out; m++;
    for (i = 0; i < k; i++) {
        const long c = nw->zi[i];
        double e, sc, r;
        if (m < 3) e = fabs(out[c] - y0[c]) / 2.0;
        else {
            const double tm = t1 - dt / 2;
            double w = 1.0, acc = 0.0;
            for (j = 1; j < m; j++) w *= tm - ts[j];
            for (j = 0; j < m; j++) {
                double den = 1.0;
                for (q = 0; q < m; q++) if (q != j) den *= ts[j] - ts[q];
                acc = j == 0 ? ys[j][c] * (w / den) : acc + ys[j][c] * (w / den);
            }
            e = fabs(acc);
        }
        sc = nw->rtol * (nw->runmax[c] > fabs(out[c]) ? nw->runmax[c] : fabs(out[c])) + nw->atol[c];
        r = e == 0 ? 0.0 : e / sc;
        if (!(r <= worst)) worst = r;
    }
    return worst;
}

static int nw_eval(const wc_unit *units, long n_units, const long *seq, long n_seq, wc_newton *nw,
                   int *dirty, double t, double dt, const double *y0, const double *z, double *out,
                   double *held, double *d1, double *d2)
{
    long i;
    int st;
    const long k = nw->k;
    /* quadratic through the previous accepted point (Implicit.coefficients) when the order and
       the history allow it */
    const int quad = nw->order >= 2 && nw->n_hist >= 2;
    const double tp = quad ? nw->hist_t[nw->n_hist - 2] : 0.0;
    const double *yp = quad ? nw->hist_y[nw->n_hist - 2] : NULL;
    for (i = 0; i < nw->n; i++) out[i] = y0[i];
    for (i = 0; i < k; i++) {
        const long q = nw->zi[i];
        const double D1 = z[i] - y0[q];
        out[q] = z[i];
        if (!quad) d1[q] = D1 / dt;
        else {
            const double hp = t - tp, D0 = yp[q] - y0[q];
            const double b = (D1 / dt + D0 / hp) / (dt + hp);
            d1[q] = D1 / dt - b * dt;
            d2[q] = 2.0 * b;
        }
    }
    st = wc_phi(units, n_units, seq, n_seq, *dirty, t, dt, y0, out, held, d1,
                quad ? d2 : NULL, &nw->failed);
    nw->evaluations++;
    if (*dirty) nw->restores++;
    *dirty = 1;
    if (st) {
        for (i = 0; i < k; i++) nw->z_fail[i] = z[i];
        nw->status = st;
    }
    return st;
}

/* (I - J) x = r by Gaussian elimination with partial pivoting; A (k*k) is overwritten.
 * Returns 1 when singular. */
static int nw_solve(double *A, double *x, long k)
{
    long i, j, c;
    for (c = 0; c < k; c++) {
        long p = c;
        double big = fabs(A[c * k + c]);
        for (i = c + 1; i < k; i++)
            if (fabs(A[i * k + c]) > big) { big = fabs(A[i * k + c]); p = i; }
        if (!(big > 0.0)) return 1;
        if (p != c) {
            double s;
            for (j = 0; j < k; j++) { s = A[c * k + j]; A[c * k + j] = A[p * k + j]; A[p * k + j] = s; }
            s = x[c]; x[c] = x[p]; x[p] = s;
        }
        for (i = c + 1; i < k; i++) {
            const double f = A[i * k + c] / A[c * k + c];
            if (f == 0.0) continue;
            for (j = c; j < k; j++) A[i * k + j] -= f * A[c * k + j];
            x[i] -= f * x[c];
        }
    }
    for (i = k - 1; i >= 0; i--) {
        double s = x[i];
        for (j = i + 1; j < k; j++) s -= A[i * k + j] * x[j];
        x[i] = s / A[i * k + i];
    }
    for (i = 0; i < k; i++) if (!isfinite(x[i])) return 1;
    return 0;
}

int wc_advance(const wc_unit *units, long n_units, const long *seq, long n_seq, wc_newton *nw,
               double t, double dt, const double *y0, double *z, double *out, double *held,
               double *d1, double *d2)
{
    const long k = nw->k;
    double *r = nw->work, *zprev = r + k, *rlast = zprev + k, *best = rlast + k,
           *zp = best + k, *f1 = zp + k, *dz = f1 + k, *tmp = dz + k, *A = tmp + k,
           *fd = A + k * k;
    double rprev = INFINITY, rn = INFINITY, best_rn = INFINITY;
    int dirty = 0, fresh = 0, have_best = 0;
    long it, i, j;
    double *scale = nw->scale;
    nw_predict(nw, nw->t1, z);
    for (i = 0; i < k; i++) {
        const long q = nw->zi[i];
        const double a = fabs(y0[q]);
        scale[i] = nw->rtol * (nw->runmax[q] > a ? nw->runmax[q] : a) + nw->atol[q];
        if (!(scale[i] > 0)) scale[i] = 1.0;
    }
    if (nw->jac_ok) {
        const double q = dt / nw->jac_dt;
        if (!(1.0 / nw->jac_range <= q && q <= nw->jac_range)) nw->jac_ok = 0;
    }
    for (it = 0; it < nw->max_iter; it++) {
        if (nw_eval(units, n_units, seq, n_seq, nw, &dirty, t, dt, y0, z, out, held, d1, d2)) return 3;
        rn = 0.0;
        for (i = 0; i < k; i++) {
            const double a = fabs(out[nw->zi[i]] - z[i]) / nw->scale[i];
            r[i] = out[nw->zi[i]] - z[i];
            if (!(a <= rn)) rn = a;             /* NaN propagates */
        }
        if (rn <= nw->kappa) {
            nw->iterations += it + 1;
            nw->err = nw_error(nw, dt, y0, out);
            return 0;
        }
        if (rn <= 1.0 && (!have_best || rn < best_rn)) {
            best_rn = rn; have_best = 1;
            for (i = 0; i < k; i++) best[i] = z[i];
        }
        if (it > 0 && rn > nw->slow * rprev) {
            if (fresh) break;
            nw->jac_ok = 0;
        } else if (it > 0 && nw->jac_ok) {
            /* Broyden's update from the last two evaluations */
            double nz = 0.0;
            for (i = 0; i < k; i++) { dz[i] = z[i] - zprev[i]; nz += dz[i] * dz[i]; }
            if (nz > 0) {
                for (i = 0; i < k; i++) {
                    double jd = 0.0;
                    for (j = 0; j < k; j++) jd += nw->jac[i * k + j] * dz[j];
                    tmp[i] = ((r[i] + z[i]) - (rlast[i] + zprev[i])) - jd;
                }
                for (i = 0; i < k; i++)
                    for (j = 0; j < k; j++) nw->jac[i * k + j] += tmp[i] * dz[j] / nz;
            }
        }
        if (!nw->jac_ok) {
            /* d Phi_z / d z by differences of whole evaluations */
            for (i = 0; i < k; i++) f1[i] = out[nw->zi[i]];
            for (j = 0; j < k; j++) {
                double d = 1e-7 * fabs(z[j]);
                if (d < 1e-2 * nw->scale[j]) d = 1e-2 * nw->scale[j];
                for (i = 0; i < k; i++) zp[i] = z[i];
                zp[j] += d;
                if (nw_eval(units, n_units, seq, n_seq, nw, &dirty, t, dt, y0, zp, fd, NULL, d1, d2)) return 3;
                for (i = 0; i < k; i++) nw->jac[i * k + j] = (fd[nw->zi[i]] - f1[i]) / d;
            }
            nw->jacobians++;
            nw->fd_evaluations += k;
            nw->jac_dt = dt;
            nw->jac_ok = 1;
            fresh = 1;
        }
        rprev = rn;
        for (i = 0; i < k; i++) { zprev[i] = z[i]; rlast[i] = r[i]; tmp[i] = r[i]; }
        for (i = 0; i < k; i++)
            for (j = 0; j < k; j++) A[i * k + j] = (i == j ? 1.0 : 0.0) - nw->jac[i * k + j];
        if (nw_solve(A, tmp, k)) break;
        for (i = 0; i < k; i++) z[i] += tmp[i];
    }
    nw->jac_ok = 0;
    if (have_best) {
        for (i = 0; i < k; i++) z[i] = best[i];
        if (nw_eval(units, n_units, seq, n_seq, nw, &dirty, t, dt, y0, z, out, held, d1, d2)) return 3;
        nw->stalled++;
        nw->err = nw_error(nw, dt, y0, out);
        return 1;
    }
    nw->not_converged++;
    nw->residual = rn;
    nw->worst = -1;
    if (isfinite(rn)) {
        double w = -1.0;
        for (i = 0; i < k; i++) {
            const double a = fabs(r[i]) / nw->scale[i];
            if (a > w) { w = a; nw->worst = nw->zi[i]; }
        }
    }
    return 2;
}
