/*
 * rt_dopri5.c -- explicit Dormand-Prince 5(4) for the CS solver layer (rt_ode.h).
 *
 * Method: the 7-stage FSAL pair of Dormand & Prince (1980), propagating the 5th-order
 * solution (local extrapolation), embedded 4th-order solution for the error estimate.
 * Coefficients are the published ones (Hairer/Norsett/Wanner, Solving ODEs I, Table
 * II.5.2).
 *
 * Step-size control: PI controller (Gustafsson 1988 in the form of Hairer-Wanner,
 * beta = 0.04):  h_new = h * 0.9 * err^-(0.2 - 0.75*beta) * err_old^beta, with the
 * factor limited to [0.2, 10]; after a rejection the step may not grow, and a
 * rejection itself uses the pure I controller h*max(0.2, 0.9*err^-0.2).  A NaN/Inf
 * or failing f-evaluation in any stage counts as a rejection with h *= 0.25.
 *
 * Dense output: Shampine's 4th-order continuous extension (same reference, II.6),
 * written as  x(t_old + th*h) = r1 + th*(r2 + (1-th)*(r3 + th*(r4 + (1-th)*r5)))
 * with r1 = x_old, r2 = x - x_old, r3 = h*f_old - r2, r4 = r2 - h*f_new - r3,
 * r5 = h*sum(d_i k_i).  It interpolates x_old, x and both end slopes.
 *
 * Work layout (multiples of n): k2..k7 (6), y (1), e (1), r2..r5 (4) = 12.
 */
#include <math.h>
#include <string.h>
#include <stdio.h>
#include "rt_ode.h"

/* nodes */
#define C2 (1.0 / 5.0)
#define C3 (3.0 / 10.0)
#define C4 (4.0 / 5.0)
#define C5 (8.0 / 9.0)
/* coupling */
#define A21 (1.0 / 5.0)
#define A31 (3.0 / 40.0)
#define A32 (9.0 / 40.0)
#define A41 (44.0 / 45.0)
#define A42 (-56.0 / 15.0)
#define A43 (32.0 / 9.0)
#define A51 (19372.0 / 6561.0)
#define A52 (-25360.0 / 2187.0)
#define A53 (64448.0 / 6561.0)
#define A54 (-212.0 / 729.0)
#define A61 (9017.0 / 3168.0)
#define A62 (-355.0 / 33.0)
#define A63 (46732.0 / 5247.0)
#define A64 (49.0 / 176.0)
#define A65 (-5103.0 / 18656.0)
/* 5th-order weights (= row 7, FSAL) */
#define B1 (35.0 / 384.0)
#define B3 (500.0 / 1113.0)
#define B4 (125.0 / 192.0)
#define B5 (-2187.0 / 6784.0)
#define B6 (11.0 / 84.0)
/* error weights b - bhat */
#define E1 (71.0 / 57600.0)
#define E3 (-71.0 / 16695.0)
#define E4 (71.0 / 1920.0)
#define E5 (-17253.0 / 339200.0)
#define E6 (22.0 / 525.0)
#define E7 (-1.0 / 40.0)
/* dense output */
#define D1 (-12715105075.0 / 11282082432.0)
#define D3 (87487479700.0 / 32700410799.0)
#define D4 (-10690763975.0 / 1880347072.0)
#define D5 (701980252875.0 / 199316789632.0)
#define D6 (-1453857185.0 / 822651844.0)
#define D7 (69997945.0 / 29380423.0)

#define BETA 0.04
#define EXPO1 (0.2 - 0.75 * BETA)
#define SAFE 0.9

static int dopri5_step(RtOde *s, double t_bound)
{
    const int n = RT_ODE_N(s);
    double *k1 = s->fx;
    double *k2 = s->wk[RT_ODE_DOPRI5], *k3 = k2 + n, *k4 = k3 + n, *k5 = k4 + n, *k6 = k5 + n,
           *k7 = k6 + n, *y = k7 + n, *e = y + n;
    double *r2 = e + n, *r3 = r2 + n, *r4 = r3 + n, *r5 = r4 + n;
    const double *x = s->x;
    int rc, i;

    rc = rt_ode_ensure_fsal(s);
    if (rc != RT_ODE_OK) return rc;
    if (!(s->t < t_bound)) return RT_ODE_OK;   /* nothing to do */
    if (!(s->h > 0)) s->h = rt_ode_initial_h(s, t_bound, k2, k3);

    for (;;) {
        int last;
        double h = rt_ode_clamp_h(s, s->h, t_bound, &last);
        const double t = s->t;
        const double t_new = last ? t_bound : t + h;
        double err;
        const char *why = NULL;

        s->nstep++;
#define STAGE(kout, tt)                                                  \
        rc = rt_ode_call_f(s, (tt), y, (kout));                          \
        if (rc < 0) goto abort_;                                         \
        if (rc > 0) { why = "model evaluation failed or returned NaN/Inf in a stage"; goto reject_; }

        for (i = 0; i < n; i++) y[i] = x[i] + h * A21 * k1[i];
        STAGE(k2, t + C2 * h)
        for (i = 0; i < n; i++) y[i] = x[i] + h * (A31 * k1[i] + A32 * k2[i]);
        STAGE(k3, t + C3 * h)
        for (i = 0; i < n; i++) y[i] = x[i] + h * (A41 * k1[i] + A42 * k2[i] + A43 * k3[i]);
        STAGE(k4, t + C4 * h)
        for (i = 0; i < n; i++)
            y[i] = x[i] + h * (A51 * k1[i] + A52 * k2[i] + A53 * k3[i] + A54 * k4[i]);
        STAGE(k5, t + C5 * h)
        for (i = 0; i < n; i++)
            y[i] = x[i] + h * (A61 * k1[i] + A62 * k2[i] + A63 * k3[i] + A64 * k4[i] +
                               A65 * k5[i]);
        STAGE(k6, t_new)
        for (i = 0; i < n; i++)
            y[i] = x[i] + h * (B1 * k1[i] + B3 * k3[i] + B4 * k4[i] + B5 * k5[i] + B6 * k6[i]);
        if (!rt_ode_all_finite(n, y)) {
            why = "NaN/Inf in the new state";
            goto reject_;
        }
        STAGE(k7, t_new)   /* FSAL: last f call is at the accepted point (G1) */
#undef STAGE
        for (i = 0; i < n; i++)
            e[i] = h * (E1 * k1[i] + E3 * k3[i] + E4 * k4[i] + E5 * k5[i] + E6 * k6[i] +
                        E7 * k7[i]);
        err = rt_ode_err_norm(s, e, x, y);

        if (err <= 1.0) {
            /* accept: dense output coefficients first (they need x_old = x, k1) */
            double fac, hnew;
            for (i = 0; i < n; i++) {
                const double dy = y[i] - x[i];
                r2[i] = dy;
                r3[i] = h * k1[i] - dy;
                r4[i] = dy - h * k7[i] - r3[i];
                r5[i] = h * (D1 * k1[i] + D3 * k3[i] + D4 * k4[i] + D5 * k5[i] +
                             D6 * k6[i] + D7 * k7[i]);
            }
            if (s->method->id == RT_ODE_AUTO) {
                /* stiffness estimate h*|lambda| = h*||k7 - k6|| / ||x_new - Y6|| (Hairer's
                   DOPRI5); x_new - Y6 from the coefficients (Y6 is overwritten) */
                double num = 0.0, den = 0.0;
                for (i = 0; i < n; i++) {
                    const double dk = k7[i] - k6[i];
                    const double dy = h * ((B1 - A61) * k1[i] - A62 * k2[i] +
                                           (B3 - A63) * k3[i] + (B4 - A64) * k4[i] +
                                           (B5 - A65) * k5[i] + B6 * k6[i]);
                    num += dk * dk;
                    den += dy * dy;
                }
                s->stiff_hlam = den > 0.0 ? h * sqrt(num / den) : 0.0;
            }
            memcpy(s->x_old, s->x, (size_t)n * sizeof(double));
            memcpy(s->x, y, (size_t)n * sizeof(double));
            memcpy(s->fx, k7, (size_t)n * sizeof(double));
            s->t_old = t;
            s->t = t_new;
            s->h_last = t_new - t;
            /* PI controller */
            {
                double fac11 = pow(err > 1e-10 ? err : 1e-10, EXPO1);
                fac = fac11 / pow(s->err_old, BETA) / SAFE;
                if (fac < 0.1) fac = 0.1;      /* growth <= 10 */
                if (fac > 5.0) fac = 5.0;      /* shrink <= 5 (cannot happen for err<=1) */
                hnew = h / fac;
            }
            if (s->last_rejected && hnew > h) hnew = h;
            s->err_old = err > 1e-4 ? err : 1e-4;
            s->h = hnew;
            s->naccept++;
            s->last_rejected = 0;
            s->first_step = 0;
            return RT_ODE_OK;
        } else {
            double fac = isfinite(err) ? SAFE * pow(err, -0.2) : 0.25;
            if (fac < 0.2) fac = 0.2;
            rc = rt_ode_reject(s, h * fac, "error test failed repeatedly");
            if (rc != RT_ODE_OK) return rc;
            continue;
        }
    reject_:
        rc = rt_ode_reject(s, h * 0.25, why);
        if (rc != RT_ODE_OK) return rc;
        continue;
    abort_:
        return rt_ode_abort(s, t);
    }
}

static void dopri5_dense(const RtOde *s, double t, double *out)
{
    const int n = RT_ODE_N(s);
    const double *r2 = s->wk[RT_ODE_DOPRI5] + 8 * n, *r3 = r2 + n, *r4 = r3 + n, *r5 = r4 + n;
    const double th = (t - s->t_old) / (s->t - s->t_old), th1 = 1.0 - th;
    int i;
    for (i = 0; i < n; i++)
        out[i] = s->x_old[i] + th * (r2[i] + th1 * (r3[i] + th * (r4[i] + th1 * r5[i])));
}

void rt_dopri5_taylor(const RtOde *s, double *c)
{
    /* the continuous extension in powers of th: r1 + th (r2 + r3) + th^2 (r4 + r5 - r3)
       - th^3 (r4 + 2 r5) + th^4 r5, Taylor-shifted to th = 1 (c_j = P^(j)(1) / j!) */
    const int n = RT_ODE_N(s);
    const double *r2 = s->wk[RT_ODE_DOPRI5] + 8 * n, *r3 = r2 + n, *r4 = r3 + n, *r5 = r4 + n;
    int i;
    for (i = 0; i < n; i++) {
        const double a0 = s->x_old[i], a1 = r2[i] + r3[i], a2 = r4[i] + r5[i] - r3[i];
        const double a3 = -(r4[i] + 2.0 * r5[i]), a4 = r5[i];
        c[i] = a0 + a1 + a2 + a3 + a4;
        c[n + i] = a1 + 2.0 * a2 + 3.0 * a3 + 4.0 * a4;
        c[2 * n + i] = a2 + 3.0 * a3 + 6.0 * a4;
        c[3 * n + i] = a3 + 4.0 * a4;
        c[4 * n + i] = a4;
    }
}

const RtOdeMethod rt_ode_dopri5 = {
    "Dormand-Prince 5(4)", RT_ODE_DOPRI5, 5, 4, 12, 0, dopri5_step, dopri5_dense
};
