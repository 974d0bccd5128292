/*
 * rt_newton.c -- damped Newton solver for the model's nonlinear algebraic loops
 * (model_api.h: rt_newton), called by the generated mdl_eval.
 *
 * Unknowns: w = v[OFF_W .. OFF_W+N_W-1], start values = their current content (the
 * solution of the previous call, so Newton is warm-started along a trajectory).
 * Residuals r(w) = mdl_nl_res(v, t, r); Jacobian dr/dw = mdl_nl_jac, or forward
 * differences when it returns -1.
 *
 * Iteration: dw = -J^-1 r (dense LU with partial pivoting, rt_linalg.c; for a large loop
 * whose Jacobian is a narrow band after reordering, the banded LU of rt_linalg.h on the
 * nonzeros from mdl_nl_jac_nz, chosen once at instantiation), then a
 * backtracking line search on ||r||_2 (Armijo, lambda halved down to 2^-10).
 * Convergence test on the scaled full Newton step:
 *     max_i |dw_i| / (1e-10*|w_i| + 1e-13) <= 1
 * (a full step that small is taken and accepted: quadratic convergence makes the
 * remaining error negligible), or an exactly zero residual.  The converged solution is then
 * made independent of the start values (canonical(): rounded to a grid, one Newton step), so
 * that the model's outputs are a function of its inputs to the last bit.
 * Failure (max 50 iterations, residual/Jacobian not evaluable or NaN, singular J,
 * line search stalled) returns 1 after logging the time and the cause; w is then
 * reset to the start values so that a retry (smaller solver step) starts sanely.
 */
#include <math.h>
#include <string.h>
#include "config.h"
#include "model_api.h"
#include "rt_ctx.h"
#include "rt_linalg.h"

#define NL_MAXIT 50
#define NL_RTOL 1e-10
#define NL_ATOL 1e-13

#if N_W > 0
static double norm2(int n, const double *r)
{
    double s = 0;
    int i;
    for (i = 0; i < n; i++) s += r[i] * r[i];
    return sqrt(s);
}

static int finite_vec(int n, const double *r)
{
    int i;
    for (i = 0; i < n; i++) if (!isfinite(r[i])) return 0;
    return 1;
}

/* the Newton direction dw = -J(w)^-1 r at the current w (r = r(w)): NULL, or why not */
static const char *direction(RtCtx *ctx, double *v, double t, const double *r, double *dw)
{
    const int n = N_W;
    double *w = v + OFF_W, *J = ctx->nlJ, *r2 = ctx->nlR2;
    int *piv = ctx->nlPiv;
    int i, j, rc;
#ifdef MDL_NL_NNZ
    if (ctx->nlBand) {   /* large sparse loop: the nonzeros, banded LU (rt_linalg.h) */
        rc = mdl_nl_jac_nz(v, t, J);
        if (rc != 0) return "Jacobian not evaluable";
        if (!finite_vec(MDL_NL_NNZ, J)) return "Jacobian contains NaN/Inf";
        rt_band_load(ctx->nlBand, mdl_nl_colind, mdl_nl_row, J, -1.0, 0.0);
        if (rt_band_factor(ctx->nlBand) != 0) return "singular Jacobian";
        for (i = 0; i < n; i++) dw[i] = -r[i];
        rt_band_solve(ctx->nlBand, dw);
        return NULL;
    }
#endif
    rc = mdl_nl_jac(v, t, J);
    if (rc == -1) {
        for (j = 0; j < n; j++) {
            const double wj = w[j];
            double d = 1.4901161193847656e-08 * (fabs(wj) > 1e-6 ? fabs(wj) : 1e-6);
            w[j] = wj + d;
            d = w[j] - wj;
            rc = mdl_nl_res(v, t, r2);
            w[j] = wj;
            if (rc != 0 || !finite_vec(n, r2)) return "residual not evaluable for the difference Jacobian";
            for (i = 0; i < n; i++) J[i + j * n] = (r2[i] - r[i]) / d;
        }
    } else if (rc != 0) {
        return "Jacobian not evaluable";
    }
    if (!finite_vec(n * n, J)) return "Jacobian contains NaN/Inf";
    if (rt_lu_factor(n, J, piv) != 0) return "singular Jacobian";
    for (i = 0; i < n; i++) dw[i] = -r[i];
    rt_lu_solve(n, J, piv, dw);
    return NULL;
}

/* The converged solution, made independent of where the iteration started: rounded to
   NL_GRID (2^-26 of max(|w|, 1e-3)) and one Newton step taken from there.  Two calls at
   the same (t, x) that started from different values (the previous call's solution: ME
   importers evaluate along trial states, difference quotients, root finding) converge to
   values a few ulps apart, almost always on the same grid point, and then do the same
   arithmetic: the derivatives are a function of (t, x) to the last bit.  Without this, a
   difference-quotient Jacobian of the importer (CVODE perturbs a state of 0 by ~1e-31)
   divides that ulp noise by the increment, and the state whose column is garbage is
   never corrected (FMPy's CVODE drifted 4 % on a lag state fed by a loop, fuzzer seed
   11929).  From the grid point the step's error is O(2^-52): as accurate as the converged
   value.  Any failure keeps the converged value wc. */
static void canonical(RtCtx *ctx, double *v, double t, const double *wc)
{
    const int n = N_W;
    double *w = v + OFF_W, *r = ctx->nlR, *dw = ctx->nlDw;
    int i, e;
    for (i = 0; i < n; i++) {
        const double a = fabs(wc[i]) > 1e-3 ? fabs(wc[i]) : 1e-3;
        const double q = ldexp(1.0, (frexp(a, &e), e) - 26);   /* a power of two */
        w[i] = isfinite(wc[i]) ? nearbyint(wc[i] / q) * q : wc[i];
    }
    if (mdl_nl_res(v, t, r) == 0 && finite_vec(n, r) && direction(ctx, v, t, r, dw) == NULL) {
        for (i = 0; i < n; i++) w[i] += dw[i];
        if (finite_vec(n, w)) return;
    }
    memcpy(w, wc, (size_t)n * sizeof(double));
}
#endif

int rt_newton(RtCtx *ctx, double *v, double t)
{
#if N_W > 0
    const int n = N_W;
    double *w = v + OFF_W;
    double *r, *r2, *dw, *wb, *w0;
    double fnorm;
    int it, i, rc;
    const char *why = "maximum number of iterations reached";

    if (!ctx || !ctx->nlR) return 1;
    r = ctx->nlR; r2 = ctx->nlR2; dw = ctx->nlDw; wb = ctx->nlWb;
    w0 = ctx->nlW0;

    memcpy(w0, w, (size_t)n * sizeof(double));
    rc = mdl_nl_res(v, t, r);
    if (rc != 0 || !finite_vec(n, r)) { why = "residual not evaluable at the start values"; it = 0; goto fail; }
    fnorm = norm2(n, r);

    for (it = 1; it <= NL_MAXIT; it++) {
        double lambda = 1.0, stepnorm = 0.0;
        if (fnorm == 0.0) {                   /* an exact root: the same grid step */
            memcpy(wb, w, (size_t)n * sizeof(double));
            canonical(ctx, v, t, wb);
            return 0;
        }
        why = direction(ctx, v, t, r, dw);
        if (why) goto fail;
        for (i = 0; i < n; i++) {
            double sc = fabs(dw[i]) / (NL_RTOL * fabs(w[i]) + NL_ATOL);
            if (sc > stepnorm) stepnorm = sc;
        }
        memcpy(wb, w, (size_t)n * sizeof(double));
        if (stepnorm <= 1.0) {                /* converged: take the tiny full step */
            for (i = 0; i < n; i++) w[i] = wb[i] + dw[i];
            rc = mdl_nl_res(v, t, r2);
            if (!(rc == 0 && finite_vec(n, r2)))
                memcpy(w, wb, (size_t)n * sizeof(double));   /* wb was converged anyway */
            memcpy(wb, w, (size_t)n * sizeof(double));
            canonical(ctx, v, t, wb);
            return 0;
        }
        for (;;) {                            /* backtracking line search */
            double f2;
            for (i = 0; i < n; i++) w[i] = wb[i] + lambda * dw[i];
            rc = mdl_nl_res(v, t, r2);
            if (rc == 0 && finite_vec(n, r2)) {
                f2 = norm2(n, r2);
                if (f2 <= (1.0 - 1e-4 * lambda) * fnorm) { fnorm = f2; break; }
            }
            lambda *= 0.5;
            if (lambda < 1.0 / 1024.0) { why = "line search failed (no decrease of the residual)"; goto fail; }
        }
        memcpy(r, r2, (size_t)n * sizeof(double));
    }
fail:
    memcpy(w, w0, (size_t)n * sizeof(double));
    rt_log(ctx, 3 /* fmi2Error */, "logStatusError",
           "rt_newton: nonlinear loop (%d unknowns) not solved at t=%.17g: %s (iteration %d)",
           n, t, why, it);
    return 1;
#else
    (void)ctx; (void)v; (void)t;
    return 0;
#endif
}
