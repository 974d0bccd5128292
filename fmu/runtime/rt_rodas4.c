/*
 * rt_rodas4.c -- implicit (linearly implicit) Rosenbrock method RODAS4 for the CS
 * solver layer (rt_ode.h).
 *
 * Why RODAS4 rather than Radau IIA:
 *  - L-stable and stiffly accurate (the last stage is the solution), so very stiff
 *    contact/penalty dynamics are damped instead of ringing, like Radau IIA(5).
 *  - Linearly implicit: each step is 6 linear solves with ONE LU of
 *    (I/(gamma*h) - J); there is no Newton iteration that can fail to converge, no
 *    convergence-rate heuristics, no complex 2x2 block arithmetic.  The only ways
 *    a step fails are the error test, a singular matrix or a failing/NaN model
 *    evaluation, and all three simply shrink h.  This makes the implementation small
 *    and predictable, which matters more inside an FMU than peak efficiency.
 *  - Embedded 3rd-order error estimate (the difference of stages 5/6) and a
 *    3rd-order dense output that needs no extra f-evaluations -> events are
 *    located on an interpolant of the same quality as with Radau.
 *  Price: the Jacobian must be accurate (Rosenbrock order conditions use the exact
 *  J), so it is re-evaluated at every step (mdl_jac, or n forward differences when
 *  mdl_jac returns -1), and the method is 4th order only.  For the small state
 *  vectors of wearcosim models that is cheap.
 *
 * Method (Hairer & Wanner, Solving ODEs II, Sect. IV.7, "RODAS", coefficient set of
 * order 4 with gamma = 1/4), in the transformed formulation: with
 * M = I/(gamma*h) - J and Y_i = x + sum_j a_ij k_j,
 *     M k_i = f(t + c_i h, Y_i) + sum_j (c_ij / h) k_j + gamma_i h df/dt,
 * x_new = Y_6 + k_6, and k_6 itself is the local error estimate.
 * df/dt is obtained by one forward difference in t per step (non-autonomous
 * models, e.g. explicit `time` in equations); an evaluation failure there just
 * sets it to 0.
 * Step control: the predictive (Gustafsson) controller recommended for RODAS:
 *     fac = clamp(err^(1/4)/0.9, 1/6, 5),
 *     fac_pred = (h_last/h) * (err^2/err_last)^(1/4) / 0.9 (clamped the same way),
 *     h_new = h / max(fac, fac_pred);  no growth right after a rejection.
 * Dense output: x(t_old + s h) = (1-s) x_old + s (x_new + (1-s) (w1 + s w2)),
 * w1 = sum d2j k_j, w2 = sum d3j k_j.
 *
 * Work layout (multiples of n): k1..k6 (6), y (1), fy (1), ft (1), tmp (1),
 * w1, w2 (2) = 12.  Matrices s->J, s->LU, pivots s->piv.
 */
#include <math.h>
#include <string.h>
#include <stdio.h>
#include "rt_ode.h"
#include "rt_linalg.h"

#define GAMMA 0.25
#define C2 0.386
#define C3 0.21
#define C4 0.63
#define G1 0.25
#define G2 (-0.1043)
#define G3 0.1035
#define G4 (-0.3620000000000023e-01)
static const double A21 = 0.1544000000000000e+01;
static const double A31 = 0.9466785280815826e+00, A32 = 0.2557011698983284e+00;
static const double A41 = 0.3314825187068521e+01, A42 = 0.2896124015972201e+01,
                    A43 = 0.9986419139977817e+00;
static const double A51 = 0.1221224509226641e+01, A52 = 0.6019134481288629e+01,
                    A53 = 0.1253708332932087e+02, A54 = -0.6878860361058950e+00;
static const double C21 = -0.5668800000000000e+01;
static const double C31 = -0.2430093356833875e+01, C32 = -0.2063599157091915e+00;
static const double C41 = -0.1073529058151375e+00, C42 = -0.9594562251023355e+01,
                    C43 = -0.2047028614809616e+02;
static const double C51 = 0.7496443313967647e+01, C52 = -0.1024680431464352e+02,
                    C53 = -0.3399990352819905e+02, C54 = 0.1170890893206160e+02;
static const double C61 = 0.8083246795921522e+01, C62 = -0.7981132988064893e+01,
                    C63 = -0.3152159432874371e+02, C64 = 0.1631930543123136e+02,
                    C65 = -0.6058818238834054e+01;
static const double D21 = 0.1012623508344586e+02, D22 = -0.7487995877610167e+01,
                    D23 = -0.3480091861555747e+02, D24 = -0.7992771707568823e+01,
                    D25 = 0.1025137723295662e+01;
static const double D31 = -0.6762803392801253e+00, D32 = 0.6087714651680015e+01,
                    D33 = 0.1643084320892478e+02, D34 = 0.2476722511418386e+02,
                    D35 = -0.6594389125716872e+01;

#define SAFE 0.9
#define FACMIN (1.0 / 6.0)   /* as factor h/h_new: growth <= 6 */
#define FACMAX 5.0           /* shrink <= 5 */

static double clampd(double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : v); }

static int rodas4_step(RtOde *s, double t_bound)
{
    const int n = RT_ODE_N(s);
    double *k1 = s->wk[RT_ODE_RODAS4], *k2 = k1 + n, *k3 = k2 + n, *k4 = k3 + n, *k5 = k4 + n,
           *k6 = k5 + n, *y = k6 + n, *fy = y + n, *ft = fy + n, *tmp = ft + n,
           *w1 = tmp + n, *w2 = w1 + n;
    const double *x = s->x, *f0 = s->fx;
    int rc, i, j;

    rc = rt_ode_ensure_fsal(s);
    if (rc != RT_ODE_OK) return rc;
    if (!(s->t < t_bound)) return RT_ODE_OK;
    if (!(s->h > 0)) s->h = rt_ode_initial_h(s, t_bound, y, fy);

    for (;;) {
        int last;
        double h = rt_ode_clamp_h(s, s->h, t_bound, &last);
        const double t = s->t;
        const double t_new = last ? t_bound : t + h;
        const char *why = NULL;
        double err;

        s->nstep++;

        /* Jacobian and df/dt at the accepted point, once per point */
        if (!s->jac_valid) {
            rc = rt_ode_jacobian(s, t, x, f0, y, fy);
            if (rc < 0) goto abort_;
            if (rc > 0) {
                snprintf(s->msg, sizeof s->msg,
                         "Jacobian cannot be evaluated (error or NaN/Inf) at t=%.17g", t);
                return RT_ODE_HMIN;
            }
            {
                const double dt = 1.4901161193847656e-08 * (fabs(t) > 1e-5 ? fabs(t) : 1e-5);
                rc = rt_ode_call_f(s, t + dt, x, ft);
                if (rc < 0) goto abort_;
                if (rc > 0) memset(ft, 0, (size_t)n * sizeof(double));
                else {
                    const double ddt = (t + dt) - t;
                    for (i = 0; i < n; i++) ft[i] = (ft[i] - f0[i]) / ddt;
                }
            }
            s->jac_valid = 1;
        }

        /* iteration matrix M = I/(gamma h) - J, factorised */
        {
            const double d = 1.0 / (GAMMA * h);
            int bad;
            s->nlu++;
            if (s->band) {   /* sparse Jacobian: banded LU (rt_linalg.h) */
                rt_band_load(s->band, s->sp_colind, s->sp_row, s->J, 1.0, d);
                bad = rt_band_factor(s->band);
            } else {
                for (j = 0; j < n * n; j++) s->LU[j] = -s->J[j];
                for (j = 0; j < n; j++) s->LU[j + j * n] += d;
                bad = rt_lu_factor(n, s->LU, s->piv);
            }
            if (bad != 0) {
                why = "singular iteration matrix";
                goto reject_;
            }
        }

#define SOLVE(k) (s->band ? rt_band_solve(s->band, (k)) : rt_lu_solve(n, s->LU, s->piv, (k)))
#define EVAL(tt)                                                         \
        rc = rt_ode_call_f(s, (tt), y, fy);                              \
        if (rc < 0) goto abort_;                                         \
        if (rc > 0) { why = "model evaluation failed or returned NaN/Inf in a stage"; goto reject_; }

        /* stage 1 */
        for (i = 0; i < n; i++) k1[i] = f0[i] + h * G1 * ft[i];
        SOLVE(k1);
        /* stage 2 */
        for (i = 0; i < n; i++) y[i] = x[i] + A21 * k1[i];
        EVAL(t + C2 * h)
        for (i = 0; i < n; i++) k2[i] = fy[i] + h * G2 * ft[i] + C21 * k1[i] / h;
        SOLVE(k2);
        /* stage 3 */
        for (i = 0; i < n; i++) y[i] = x[i] + A31 * k1[i] + A32 * k2[i];
        EVAL(t + C3 * h)
        for (i = 0; i < n; i++)
            k3[i] = fy[i] + h * G3 * ft[i] + (C31 * k1[i] + C32 * k2[i]) / h;
        SOLVE(k3);
        /* stage 4 */
        for (i = 0; i < n; i++) y[i] = x[i] + A41 * k1[i] + A42 * k2[i] + A43 * k3[i];
        EVAL(t + C4 * h)
        for (i = 0; i < n; i++)
            k4[i] = fy[i] + h * G4 * ft[i] + (C41 * k1[i] + C42 * k2[i] + C43 * k3[i]) / h;
        SOLVE(k4);
        /* stage 5 (c5 = 1) */
        for (i = 0; i < n; i++)
            y[i] = x[i] + A51 * k1[i] + A52 * k2[i] + A53 * k3[i] + A54 * k4[i];
        EVAL(t_new)
        for (i = 0; i < n; i++)
            k5[i] = fy[i] + (C51 * k1[i] + C52 * k2[i] + C53 * k3[i] + C54 * k4[i]) / h;
        SOLVE(k5);
        /* stage 6 (c6 = 1), k6 = error estimate */
        for (i = 0; i < n; i++) y[i] += k5[i];
        EVAL(t_new)
        for (i = 0; i < n; i++)
            k6[i] = fy[i] + (C61 * k1[i] + C62 * k2[i] + C63 * k3[i] + C64 * k4[i] +
                             C65 * k5[i]) / h;
        SOLVE(k6);
        for (i = 0; i < n; i++) y[i] += k6[i];      /* y = x_new */
        if (!rt_ode_all_finite(n, y)) { why = "NaN/Inf in the new state"; goto reject_; }

        err = rt_ode_err_norm(s, k6, x, y);
        if (err <= 1.0) {
            double fac, hnew;
            /* f at the new point: needed by the next step, and guarantees G1 */
            rc = rt_ode_call_f(s, t_new, y, fy);
            if (rc < 0) goto abort_;
            if (rc > 0) { why = "model evaluation failed or returned NaN/Inf at the step end"; goto reject_; }
#undef EVAL
            for (i = 0; i < n; i++) {
                w1[i] = D21 * k1[i] + D22 * k2[i] + D23 * k3[i] + D24 * k4[i] + D25 * k5[i];
                w2[i] = D31 * k1[i] + D32 * k2[i] + D33 * k3[i] + D34 * k4[i] + D35 * k5[i];
            }
            memcpy(s->x_old, s->x, (size_t)n * sizeof(double));
            memcpy(s->x, y, (size_t)n * sizeof(double));
            memcpy(s->fx, fy, (size_t)n * sizeof(double));
            s->t_old = t;
            s->t = t_new;
            s->jac_valid = 0;
            /* predictive controller */
            {
                const double e = err > 1e-10 ? err : 1e-10;
                fac = clampd(pow(e, 0.25) / SAFE, FACMIN, FACMAX);
                if (!s->first_step && s->h_last > 0) {
                    double fp = (s->h_last / h) * pow(e * e / s->err_old, 0.25) / SAFE;
                    fp = clampd(fp, FACMIN, FACMAX);
                    if (fp > fac) fac = fp;
                }
                hnew = h / fac;
            }
            if (s->last_rejected && hnew > h) hnew = h;
            s->h_last = t_new - t;
            s->err_old = err > 1e-2 ? err : 1e-2;
            s->h = hnew;
            s->naccept++;
            s->last_rejected = 0;
            s->first_step = 0;
            return RT_ODE_OK;
        } else {
            double fac = isfinite(err) ? clampd(pow(err, 0.25) / SAFE, FACMIN, FACMAX) : 4.0;
            rc = rt_ode_reject(s, h / fac, "error test failed repeatedly");
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

static void rodas4_dense(const RtOde *s, double t, double *out)
{
    const int n = RT_ODE_N(s);
    const double *w1 = s->wk[RT_ODE_RODAS4] + 10 * n, *w2 = w1 + n;
    const double th = (t - s->t_old) / (s->t - s->t_old), th1 = 1.0 - th;
    int i;
    for (i = 0; i < n; i++)
        out[i] = th1 * s->x_old[i] + th * (s->x[i] + th1 * (w1[i] + th * w2[i]));
}

const RtOdeMethod rt_ode_rodas4 = {
    "Rosenbrock RODAS4", RT_ODE_RODAS4, 4, 3, 12, 1, rodas4_step, rodas4_dense
};
