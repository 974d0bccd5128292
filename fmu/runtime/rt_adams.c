/*
 * rt_adams.c -- solver method 3: variable-order (1..12), variable-step Adams method in
 * Nordsieck form for the CS solver layer (rt_ode.h).
 *
 * Representation.  After an accepted step to t_n with step size h the history is the
 * Nordsieck array z_j = h^j/j! * p^(j)(t_n), j = 0..q, of a polynomial p of degree q
 * (z_0 = x_n, z_1 = h f(t_n, x_n)); column j of the buffer holds the n components of z_j.
 * The polynomial over the last step is also the dense output (sigma = (t - t_n)/h in
 * [-1, 0]):  x(t) = sum_j z_j sigma^j.
 *
 * One step of order q (PECE):
 *   P  zp = z * Pascal: the Taylor shift of p to t_n + h (p(s+1); additions only);
 *   E  fp = f(t_n + h, zp_0);
 *   C  y = zp_0 + l_0 * D,  D = h*fp - zp_1;
 *   E  f_new = f(t_n + h, y)     (the last call is at the new point: G1),
 *      D' = h*f_new - zp_1,  z_new = (y, zp_1 + l_1 D', ..., zp_q + l_q D').
 * The correction polynomial l(s) = sum l_j s^j is fixed by l'(0) = 1 (z_1 becomes h f),
 * l'(-i) = 0 for i = 1..q-1 (the slopes of the q-1 previous steps are kept) and l(-1) = 0
 * (the previous value is kept): l'(s) = prod_{i=1..q-1} (1 + s/i), l(s) = the integral of
 * l' from -1.  With the predicted slope (C) this is the (q-1)-step Adams-Moulton
 * corrector of order q, applied once; the history takes the slope at the corrected
 * point (the second E), so the polynomial interpolates the derivative values the
 * method has actually evaluated.  PECE and not PEC: G1 needs the evaluation at the new
 * point anyway, so both cost two evaluations per step, and with the history built from
 * the predicted slope (PEC, the second evaluation only for G1) the hybrid mechanism took
 * 9683 evaluations and 440 rejections for an orbit error of 8.1e-5 at rtol 1e-7, against
 * 7433, 231 and 5.5e-5 with PECE (slider-crank: 13883 against 9943 evaluations).
 * Iterating the corrector further (PECEC...) does not pay for a non-stiff problem: the
 * order and the principal error are already those of the corrector.
 *
 * Error estimate (Milne's device in Nordsieck form).  The top column changes by
 * l_q D' in a step, i.e. h^(q+1) x^(q+1) ~ q! l_q D', and the local error of the
 * order-q corrector is |g_q| h^(q+1) x^(q+1) with g_q the Adams-Moulton error constants
 * (g_0 = 1, sum_{i=0..k} g_{k-i}/(i+1) = 0: -1/2, -1/12, -1/24, -19/720, ...):
 *     err_q = |g_q| q! l_q ||D'||   (weighted RMS norm of rt_ode.c, accepted when <= 1).
 *
 * Step size and order (the classic nonstiff strategy): the array is scaled to a new h by
 * z_j *= r^j (at the start of the next step, r = h_new/h, also when the step is merely
 * shortened by hmax or t_bound).  A change of h or q is considered only after q+1 steps
 * at the same h and q (the rescaled array is a good history only when steps are not
 * changed often); then the step sizes the orders q-1, q, q+1 would allow are compared:
 *     q-1: est = |g_{q-1}| q! ||z_q||                     r = 1/(1.3 est^(1/q))
 *     q  : est = err_q                                   r = 1/(1.2 est^(1/(q+1)))
 *     q+1: est = |g_{q+1}| q! l_q ||D' - D'_prev||         r = 1/(1.4 est^(1/(q+2)))
 * (D'_prev: D' of the step before, same h and q; its change estimates h^(q+2) x^(q+2)).
 * The largest r, each capped at 10, wins (ties: keep q); r < 1.1 changes nothing (the
 * next look is 3 steps later), otherwise h *= r and, for q+1, the new column
 * z_{q+1} = l_q D'/(q+1) is added.  Between these decisions h only shrinks: when the
 * error, extrapolated with its growth since the last step (err/err_prev at equal h,
 * at most 4x), exceeds 0.5, h *= r of order q (not below 0.5) at once -- in a contact
 * phase the error grows from step to step, and waiting for the rejection costs two
 * evaluations per rejected attempt.
 * Rejected step: h *= r of orders q, q-1 (order lowered if that allows more), r limited
 * to [0.2, 0.9]; the third consecutive rejection drops to order 1 with h *= 0.1.  A
 * failing or non-finite evaluation: h *= 0.25 (G2).  The accepted array is never
 * touched by an attempt (the prediction goes to the second buffer, G5).
 *
 * Start (and after rt_ode_restart, i.e. at every event): order 2 with
 *     h0 = sqrt(0.1 / ||x''||),  z_2 = h0^2/2 x'',
 * x'' ~ (f(t + d, x + d f) - f)/d from one explicit Euler trial step (as in
 * rt_ode_initial_h, d = 0.01 ||x||/||f||; evaluated again with d = h0 when d > 4 h0, so
 * that the difference quotient belongs to the step), i.e. the step an order-1 method
 * would take with a tenth of the tolerance, taken with order 2; never more than a given
 * hint.  The order-2 start is exact for polynomials of degree 2 (a constant acceleration)
 * and skips the order-1 steps; if the trial evaluation fails, the start is at order 1.
 * While starting (until the first decision that is not an order increase, or a
 * rejection) the decision is taken after every second step instead of q+1, so the method
 * is back at its working order within a few steps (Kepler problem at rtol 1e-9: order 5
 * after 13 steps, 29 evaluations).  This matters: the hybrid mechanism's 39 contact
 * events restart the method 39 times (with an order-1 start it took ~12% more
 * evaluations for the same orbit error).
 *
 * Tuned on the hybrid mechanism and the slider-crank CS FMUs (docs/fmus.md); one
 * corrector iteration (PECE) is the cheapest form that keeps G1: every step costs two
 * evaluations, ~2.2 per step with rejections and restarts.
 *
 * Work: prediction q(q+1)/2 n additions, correction and error norm O(q n), no
 * allocation (G4).  Layout (multiples of n): two Nordsieck buffers of 13 columns,
 * D'_prev, D', y, f = 30.
 *
 * History for the FMU state: rt_ode_hist_save() packs q, the order of the last step,
 * the wait counter, the start flag, the last error, h of the array, the array and
 * D'_prev into rt_ode_hist_len(n) doubles; rt_ode_hist_load() after rt_ode_restart()
 * continues bit for bit.  Saved at a
 * time t inside the last step (a CS step reaching past a communication point), the
 * array is Taylor-shifted to t (same polynomial, expressed at t).
 */
#include <math.h>
#include <string.h>
#include <stdio.h>
#include "rt_ode.h"

#define QMAX RT_ADAMS_QMAX
#define BIAS_DN 1.3         /* safety factors of the step ratios of orders q-1, q, q+1  */
#define BIAS_SAME 1.2
#define BIAS_UP 1.4
#define RMAX 10.0           /* growth per decision                                     */
#define RMIN_KEEP 1.1       /* a ratio below this changes nothing                      */
#define START_FRAC 0.1      /* start: h^2/2 ||x''|| = this fraction of the tolerance     */
#define EARLY_ERR 0.5       /* between decisions: predicted error above this shrinks h */
#define HIST_HDR RT_ODE_HIST_HDR

#define ZCOLS (QMAX + 1)

/* corrector coefficients l_0..l_q and error constants of orders q-1, q, q+1; computed once
   per order and object (their O(q^2) divisions took ~7 % of the Adams step on the
   slider-crank, where the order changes every few steps), then copied from s->atab */
static void set_coeffs(RtOde *s, int q)
{
    double p[QMAX + 1], g[QMAX + 2], fact = 1.0, *tab = s->atab[q - 1];
    int i, j, k;
    if (s->atab_have & (1u << q)) {
        memcpy(s->al, tab, (size_t)(q + 1) * sizeof(double));
        memcpy(s->aerr, tab + q + 1, 3 * sizeof(double));
        s->alq = q;
        return;
    }
    for (j = 0; j <= QMAX; j++) p[j] = 0.0;
    p[0] = 1.0;
    for (i = 1; i <= q - 1; i++)          /* p *= (1 + s/i) */
        for (j = i; j >= 1; j--) p[j] += p[j - 1] / i;
    s->al[0] = 0.0;
    for (j = 1; j <= q; j++) {
        s->al[j] = p[j - 1] / j;
        s->al[0] += (j & 1) ? s->al[j] : -s->al[j];   /* l(-1) = 0 */
    }
    g[0] = 1.0;
    for (k = 1; k <= q + 1; k++) {
        double sum = 0.0;
        for (i = 1; i <= k; i++) sum += g[k - i] / (i + 1);
        g[k] = -sum;
    }
    for (j = 2; j <= q; j++) fact *= j;
    s->aerr[0] = q > 1 ? fabs(g[q - 1]) * fact : 0.0;
    s->aerr[1] = fabs(g[q]) * fact * s->al[q];
    s->aerr[2] = fabs(g[q + 1]) * fact * s->al[q];
    s->alq = q;
    memcpy(tab, s->al, (size_t)(q + 1) * sizeof(double));
    memcpy(tab + q + 1, s->aerr, 3 * sizeof(double));
    s->atab_have |= 1u << q;
}

/* Taylor shift of the Nordsieck columns z_0..z_q (n = nn values each) by sig steps of the
   array's step size (repeated Horner): the prediction (sig = 1) and the history moved to a
   communication point */
static void nordsieck_shift(double *z, int q, size_t nn, double sig)
{
    int k, j;
    size_t i;
    for (k = 0; k < q; k++)
        for (j = q - 1; j >= k; j--) {
            double *a = z + (size_t)j * nn;
            const double *b = a + nn;
            if (sig == 1.0) for (i = 0; i < nn; i++) a[i] += b[i];
            else for (i = 0; i < nn; i++) a[i] += sig * b[i];
        }
}

static double *zbuf(const RtOde *s, int which)
{
    return s->wk[RT_ODE_ADAMS] + (size_t)which * ZCOLS * (size_t)RT_ODE_N(s);
}

/* starting step (order-1 error a fraction START_FRAC of the tolerance) and the second
   derivative there: returns h; *d2ok = 1 if tmp2 = h^2/2 x'' (z_2 of an order-2 start),
   0 if it could not be evaluated (start at order 1).  tmp1, tmp2: n doubles; needs s->fx */
static double start_h(RtOde *s, double t_bound, double *tmp1, double *tmp2, int *d2ok)
{
    const int n = RT_ODE_N(s);
    double h0 = rt_ode_trial_h0(s, t_bound, tmp1, tmp2, d2ok), h, d2, c;   /* tmp2 ~ h0 x'' */
    int i;
    if (!*d2ok) {
        h = 0.01 * h0;
    } else {
        d2 = rt_ode_err_norm(s, tmp2, s->x, s->x) / h0;
        h = d2 > 0.0 ? sqrt(START_FRAC / d2) : 100.0 * h0;
        if (h > 100.0 * h0) h = 100.0 * h0;
    }
    h = rt_ode_clamp_start(s, t_bound, h);
    if (!(h > 0)) h = rt_ode_hmin(s, s->t) * 10;
    if (*d2ok && h0 > 4.0 * h) {   /* difference over a much longer step: again over h */
        for (i = 0; i < n; i++) tmp1[i] = s->x[i] + h * s->fx[i];
        if (rt_ode_call_f(s, s->t + h, tmp1, tmp2) != 0) *d2ok = 0;
        else { for (i = 0; i < n; i++) tmp2[i] -= s->fx[i]; h0 = h; }
    }
    if (*d2ok) {
        c = 0.5 * h * h / h0;
        for (i = 0; i < n; i++) tmp2[i] *= c;
        if (!rt_ode_all_finite(n, tmp2)) *d2ok = 0;
    }
    return h;
}

static int adams_step(RtOde *s, double t_bound)
{
    const int n = RT_ODE_N(s);
    const size_t nn = (size_t)n;
    double *dprev = zbuf(s, 2), *d = dprev + n, *y = d + n, *fp = y + n;
    const int qmax = QMAX;
    int rc, i, j, kfail = 0;

    if (s->aq == 0) {
        rc = rt_ode_ensure_fsal(s);
        if (rc != RT_ODE_OK) return rc;
    }
    if (!(s->t < t_bound)) return RT_ODE_OK;   /* nothing to do */
    if (s->aq == 0) {   /* start at order 2 (order 1 if x'' could not be estimated) */
        double *z = zbuf(s, s->acur);
        int d2ok;
        double h0 = start_h(s, t_bound, y, fp, &d2ok);
        if (s->h > 0 && s->h < h0) {   /* a smaller hint */
            const double c = (s->h / h0) * (s->h / h0);
            for (i = 0; i < n; i++) fp[i] *= c;
            h0 = s->h;
        }
        memcpy(z, s->x, nn * sizeof(double));
        for (i = 0; i < n; i++) z[n + i] = h0 * s->fx[i];
        if (d2ok) memcpy(z + 2 * nn, fp, nn * sizeof(double));
        s->ahz = h0;
        s->h = h0;
        s->aq = s->aqd = d2ok ? 2 : 1;
        s->await = 2;
        s->aramp = 1;
        s->aerrprev = 0.0;
    }

    for (;;) {
        int last;
        const double h = rt_ode_clamp_h(s, s->h, t_bound, &last);
        const double t = s->t;
        const double t_new = last ? t_bound : t + h;
        const int q = s->aq;
        const double r = h / s->ahz;
        const double *z = zbuf(s, s->acur);
        double *zp = zbuf(s, 1 - s->acur);
        const char *why = NULL;
        double err, l0;

        if (s->alq != q) set_coeffs(s, q);
        s->nstep++;
        /* P: rescale to h, then Taylor shift by one step */
        {
            double rj = 1.0;
            for (j = 0; j <= q; j++) {
                const double *a = z + (size_t)j * nn;
                double *b = zp + (size_t)j * nn;
                if (rj == 1.0) memcpy(b, a, nn * sizeof(double));
                else for (i = 0; i < n; i++) b[i] = a[i] * rj;
                rj *= r;
            }
        }
        nordsieck_shift(zp, q, nn, 1.0);
        /* E */
        rc = rt_ode_call_f(s, t_new, zp, fp);
        if (rc < 0) goto abort_;
        if (rc > 0) { why = "model evaluation failed or returned NaN/Inf"; goto reject_; }
        /* C */
        l0 = s->al[0];
        for (i = 0; i < n; i++) {   /* in place: the predicted z_0 is not needed again */
            d[i] = h * fp[i] - zp[n + i];
            zp[i] += l0 * d[i];
        }
        if (!rt_ode_all_finite(n, zp)) { why = "NaN/Inf in the new state"; goto reject_; }
        /* E (G1) */
        rc = rt_ode_call_f(s, t_new, zp, fp);
        if (rc < 0) goto abort_;
        if (rc > 0) { why = "model evaluation failed or returned NaN/Inf"; goto reject_; }
        if (s->method->id == RT_ODE_AUTO) {
            /* the auto method's stiffness test (rt_auto.c): the two evaluations differ by
               h J (y - y_pred) = h J l_0 D, so h rho ~ ||D' - D|| / (l_0 ||D||) (a Rayleigh
               quotient along the correction).  The stability boundaries of this PECE scheme
               on the negative real axis (largest x with the amplification matrix of
               y' = lambda y stable on [-x, 0]) are 2.0 at order 2, then 1.73, 1.28, 0.95,
               0.70, 0.52, 0.38, 0.28, 0.21, 0.16 and 0.12 at order 12: above 2 no order is
               stable */
            double num = 0.0, den = 0.0;
            for (i = 0; i < n; i++) {
                const double dn = h * fp[i] - zp[n + i], dd = dn - d[i];
                num += dd * dd;
                den += d[i] * d[i];
                d[i] = dn;
            }
            s->stiff_hlam = den > 0.0 ? sqrt(num / den) / fabs(l0) : 0.0;
        } else {
            for (i = 0; i < n; i++) d[i] = h * fp[i] - zp[n + i];
        }
        err = s->aerr[1] * rt_ode_err_norm(s, d, s->x, zp);

        if (err <= 1.0) {
            double rr = 1.0;
            int newq = q;
            for (j = 1; j <= q; j++) {
                const double lj = s->al[j];
                double *b = zp + (size_t)j * nn;
                for (i = 0; i < n; i++) b[i] += lj * d[i];
            }
            if (r != 1.0) {   /* D'_prev to the new scale (~ h^(q+1)) */
                double rq = r;   /* r^(q+1) by products: a libm pow cost 4 % of a run */
                for (j = 0; j < q; j++) rq *= r;
                for (i = 0; i < n; i++) dprev[i] *= rq;
            }
            memcpy(s->x_old, s->x, nn * sizeof(double));
            memcpy(s->x, zp, nn * sizeof(double));
            memcpy(s->fx, fp, nn * sizeof(double));
            s->fsal_valid = 1;
            s->t_old = t;
            s->t = t_new;
            s->h_last = t_new - t;
            s->acur = 1 - s->acur;
            s->ahz = h;
            s->aqd = q;
            s->h = h;
            s->naccept++;
            s->last_rejected = 0;
            s->first_step = 0;
            /* step size and order */
            if (s->adams_qfix) return RT_ODE_OK;
            s->await--;
            {   /* between decisions: an error near the limit that grows from step to step
                   (the step size it needs at the same h) shrinks h at once */
                const double eprev = s->aerrprev;
                double epred = err;
                /* (a growth is measured only between steps of the same h: after a rescale
                   the estimate does not follow h^(q+1) at once) */
                if (r == 1.0 && eprev > 0.0 && err > eprev) epred = err * fmin(err / eprev, 4.0);
                s->aerrprev = err;
                if (s->await > 1 && epred > EARLY_ERR) {
                    rr = 1.0 / (BIAS_SAME * pow(epred, 1.0 / (q + 1)) + 1e-6);
                    if (rr < 1.0) s->h = h * (rr > 0.5 ? rr : 0.5);
                }
            }
            if (s->await == 1 && q < qmax) {
                memcpy(dprev, d, nn * sizeof(double));
            } else if (s->await <= 0) {
                const double rsame = 1.0 / (BIAS_SAME * pow(err, 1.0 / (q + 1)) + 1e-6);
                double rup = 0.0, rdn = 0.0;
                rr = rsame;
                if (q > 1) {
                    const double edn = s->aerr[0] *
                        rt_ode_err_norm(s, zp + (size_t)q * nn, s->x_old, s->x);
                    rdn = 1.0 / (BIAS_DN * pow(edn, 1.0 / q) + 1e-6);
                }
                if (q < qmax) {
                    double eup;
                    for (i = 0; i < n; i++) fp[i] = d[i] - dprev[i];
                    eup = s->aerr[2] * rt_ode_err_norm(s, fp, s->x_old, s->x);
                    rup = 1.0 / (BIAS_UP * pow(eup, 1.0 / (q + 2)) + 1e-6);
                }
                {   /* compare the ratios as they would be applied (capped): while starting,
                       a tie at the cap goes to the higher order */
                    if (rr > RMAX) rr = RMAX;
                    if (rup > RMAX) rup = RMAX;
                    if (rdn > RMAX) rdn = RMAX;
                    if (rup > rr || (s->aramp && rup >= rr && rup > 0.0)) { rr = rup; newq = q + 1; }
                    if (rdn > rr) { rr = rdn; newq = q - 1; }
                }
                if (s->aramp && newq != q + 1) s->aramp = 0;
                if (rr < RMIN_KEEP) {
                    s->await = 3;
                } else {
                    if (newq == q + 1) {
                        double *b = zp + (size_t)(q + 1) * nn;
                        const double c = s->al[q] / (q + 1);
                        for (i = 0; i < n; i++) b[i] = c * d[i];
                    }
                    s->aq = newq;
                    s->h = h * rr;
                    s->await = s->aramp ? 2 : newq + 1;   /* starting: fast ramp */
                }
            }
            return RT_ODE_OK;
        } else {
            double rr;
            kfail++;
            s->aramp = 0;
            s->aerrprev = 0.0;
            if (kfail >= 3) {
                s->aq = 1;
                rr = 0.1;
            } else {
                rr = isfinite(err) ? 1.0 / (BIAS_SAME * pow(err, 1.0 / (q + 1)) + 1e-6) : 0.2;
                if (q > 1) {   /* top column of the prediction = z_q scaled to h */
                    const double edn = s->aerr[0] *
                        rt_ode_err_norm(s, zp + (size_t)q * nn, s->x, s->x);
                    const double rdn = 1.0 / (BIAS_DN * pow(edn, 1.0 / q) + 1e-6);
                    if (rdn > rr) { rr = rdn; s->aq = q - 1; }
                }
                if (rr > 0.9) rr = 0.9;
                if (rr < 0.2) rr = 0.2;
            }
            s->await = s->aq + 1;
            rc = rt_ode_reject(s, h * rr, "error test failed repeatedly");
            if (rc != RT_ODE_OK) return rc;
            continue;
        }
    reject_:
        s->aramp = 0;
        s->aerrprev = 0.0;
        s->await = s->aq + 1;
        rc = rt_ode_reject(s, h * 0.25, why);
        if (rc != RT_ODE_OK) return rc;
        continue;
    abort_:
        return rt_ode_abort(s, t);
    }
}

void rt_adams_warm(RtOde *s, const double *c, int q, double hsrc, double h)
{
    const int n = RT_ODE_N(s);
    const size_t nn = (size_t)n;
    double *z = zbuf(s, s->acur), r = h / hsrc, rj = r;
    int i, j;
    memcpy(z, s->x, nn * sizeof(double));
    for (i = 0; i < n; i++) z[n + i] = h * s->fx[i];
    for (j = 2; j <= q; j++) {
        rj *= r;
        for (i = 0; i < n; i++) z[(size_t)j * nn + i] = rj * c[(size_t)j * nn + i];
    }
    memset(zbuf(s, 2), 0, nn * sizeof(double));   /* D'_prev */
    s->aq = s->aqd = q;
    s->ahz = h;
    s->h = h;
    s->await = 2;
    s->aramp = 1;
    s->aerrprev = 0.0;
}

static void adams_dense(const RtOde *s, double t, double *out)
{
    const int n = RT_ODE_N(s), q = s->aqd;
    const double *z = zbuf(s, s->acur);
    const double sig = (t - s->t) / s->ahz;
    int i, j;
    for (i = 0; i < n; i++) {
        double p = z[(size_t)q * n + i];
        for (j = q - 1; j >= 0; j--) p = p * sig + z[(size_t)j * n + i];
        out[i] = p;
    }
}

size_t rt_ode_hist_len(int n)
{
    return HIST_HDR + (size_t)(QMAX + 2) * (size_t)(n > 0 ? n : 1);
}

void rt_ode_hist_save(const RtOde *s, double t, double *buf)
{
    const int n = RT_ODE_N(s);
    const size_t nn = (size_t)n;
    const double *z;
    double *zs = buf + HIST_HDR;
    int m;
    memset(buf, 0, rt_ode_hist_len(n) * sizeof(double));
    if (s->sub != &rt_ode_adams || s->aq == 0) return;
    z = zbuf(s, s->acur);
    m = s->aq > s->aqd ? s->aq : s->aqd;
    buf[0] = 1.0;
    buf[1] = s->aq;
    buf[2] = s->aqd;
    buf[3] = s->await;
    buf[4] = s->ahz;
    buf[5] = s->aramp;
    buf[6] = s->aerrprev;
    memcpy(zs, z, (size_t)(m + 1) * nn * sizeof(double));
    memcpy(zs + (size_t)ZCOLS * nn, zbuf(s, 2), nn * sizeof(double));
    if (t != s->t) nordsieck_shift(zs, m, nn, (t - s->t) / s->ahz);   /* the polynomial at t */
}

int rt_ode_hist_load(RtOde *s, const double *buf)
{
    const int n = RT_ODE_N(s);
    const size_t nn = (size_t)n;
    int q, qd, wt, m;
    double hz;
    if (s->sub != &rt_ode_adams || buf[0] != 1.0) return 0;
    q = (int)buf[1];
    qd = (int)buf[2];
    wt = (int)buf[3];
    hz = buf[4];
    if (q < 1 || q > QMAX || qd < 1 || qd > QMAX || wt < 0 || wt > QMAX + 2 ||
        !(hz > 0) || !isfinite(hz) || !rt_ode_all_finite((int)((size_t)ZCOLS * nn + nn), buf + HIST_HDR))
        return 0;
    m = q > qd ? q : qd;
    s->aq = q;
    s->aqd = q;        /* the restart point: dense output = x there (t_old = t) */
    s->await = wt;
    s->ahz = hz;
    s->aramp = buf[5] != 0.0;
    s->aerrprev = buf[6] >= 0.0 && isfinite(buf[6]) ? buf[6] : 0.0;
    memcpy(zbuf(s, s->acur), buf + HIST_HDR, (size_t)(m + 1) * nn * sizeof(double));
    memcpy(zbuf(s, s->acur), s->x, nn * sizeof(double));   /* z_0 = the restart state */
    memcpy(zbuf(s, 2), buf + HIST_HDR + (size_t)ZCOLS * nn, nn * sizeof(double));
    return 1;
}

const RtOdeMethod rt_ode_adams = {
    "Adams (variable order 1-12, Nordsieck PECE)", RT_ODE_ADAMS, 1, 1, RT_ADAMS_NWORK, 0,
    adams_step, adams_dense
};
