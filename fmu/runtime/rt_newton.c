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
 * Where this iteration fails (max 50 iterations, residual/Jacobian not evaluable or NaN,
 * singular J, line search stalled), two fallbacks follow (see "Fallbacks" below): a repair of
 * a start where the residual is not evaluable or the Jacobian singular, and a continuation of
 * the Newton homotopy from the start.  A loop the iteration solves never reaches them, so its
 * solution is what it was before they existed, to the bit.  When they fail too, 1 is returned
 * after logging the time and the cause; w is then reset to the start values so that a retry
 * (smaller solver step) starts sanely.
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

/* the dense Jacobian dr/dw at w (r = r(w) given) into Jn (rr: n doubles of scratch, for the
   forward differences where the model has no Jacobian): NULL, or why not */
static const char *jac_dense(double *v, double t, const double *r, double *Jn, double *rr)
{
    const int n = N_W;
    double *w = v + OFF_W;
    int i, j, rc = mdl_nl_jac(v, t, Jn);
    if (rc == -1) {
        for (j = 0; j < n; j++) {
            const double wj = w[j];
            double d = 1.4901161193847656e-08 * (fabs(wj) > 1e-6 ? fabs(wj) : 1e-6);
            w[j] = wj + d;
            d = w[j] - wj;
            rc = mdl_nl_res(v, t, rr);
            w[j] = wj;
            if (rc != 0 || !finite_vec(n, rr)) return "residual not evaluable for the difference Jacobian";
            for (i = 0; i < n; i++) Jn[i + j * n] = (rr[i] - r[i]) / d;
        }
    } else if (rc != 0) {
        return "Jacobian not evaluable";
    }
    return finite_vec(n * n, Jn) ? NULL : "Jacobian contains NaN/Inf";
}

/* the Newton direction dw = -J(w)^-1 r at the current w (r = r(w)): NULL, or why not */
static const char *direction(RtCtx *ctx, double *v, double t, const double *r, double *dw)
{
    const int n = N_W;
    double *J = ctx->nlJ, *r2 = ctx->nlR2;
    int *piv = ctx->nlPiv;
    int i;
#ifdef MDL_NL_NNZ
    if (ctx->nlBand) {   /* large sparse loop: the nonzeros, banded LU (rt_linalg.h) */
        const int rc = mdl_nl_jac_nz(v, t, J);
        if (rc != 0) return "Jacobian not evaluable";
        if (!finite_vec(MDL_NL_NNZ, J)) return "Jacobian contains NaN/Inf";
        rt_band_load(ctx->nlBand, mdl_nl_colind, mdl_nl_row, J, -1.0, 0.0);
        if (rt_band_factor(ctx->nlBand) != 0) return "singular Jacobian";
        for (i = 0; i < n; i++) dw[i] = -r[i];
        rt_band_solve(ctx->nlBand, dw);
        return NULL;
    }
#endif
    {
        const char *why = jac_dense(v, t, r, J, r2);
        if (why) return why;
    }
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

/* The damped Newton iteration from the current w, r = r(w) given: 0 when converged (w is the
   converged value), else 1 with the reason in *why and the iterations in *itp (w is wherever
   the iteration stopped). */
static int iterate(RtCtx *ctx, double *v, double t, const char **why, int *itp)
{
    const int n = N_W;
    double *w = v + OFF_W, *r = ctx->nlR, *r2 = ctx->nlR2, *dw = ctx->nlDw, *wb = ctx->nlWb;
    double fnorm = norm2(n, r);
    int it, i, rc;
    *why = "maximum number of iterations reached";
    for (it = 1; it <= NL_MAXIT; it++) {
        double lambda = 1.0, stepnorm = 0.0;
        *itp = it;
        if (fnorm == 0.0) return 0;           /* an exact root */
        *why = direction(ctx, v, t, r, dw);
        if (*why) return 1;
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
            if (lambda < 1.0 / 1024.0) {
                *why = "line search failed (no decrease of the residual)";
                return 1;
            }
        }
        memcpy(r, r2, (size_t)n * sizeof(double));
    }
    *itp = NL_MAXIT;
    return 1;
}

/* ------------------------------------------------------------------------------------------
 * Fallbacks, run only where the iteration above failed (so a loop it solves is solved exactly
 * as before, to the bit).
 *
 * (1) Start repair.  The exporter keeps every unknown of a nonlinear block as a Newton unknown
 *     (no tearing), residual k being the equation matched to unknown k (causalize.py), and
 *     starts them from their start values, mostly 0.  Such a start may leave a residual not
 *     evaluable (vt = k T/q = 0 under a division: MSL HeatingDiode) or the Jacobian singular
 *     (R_actual = 0 and i = 0 in v = R_actual i: MSL Resistor with a heat port).  A few
 *     nonlinear Gauss-Seidel sweeps along the matching -- each residual solved for its own
 *     unknown by a scalar secant-Newton step, the others held -- give the values that a tearing
 *     would compute from the start of the others, and Newton starts from there.
 * (2) Continuation.  Where Newton diverges or its line search stalls -- a piecewise-linear loop
 *     (an op-amp's output limited by if-expressions under noEvent, V0 = 15000: from a saturated
 *     start the Jacobian never sees the narrow linear region, MSL OpAmps with
 *     IdealizedOpAmpLimited), or a start far from the solution -- the Newton homotopy
 *         H(w, lambda) = r(w) - (1 - lambda) r(w0) = 0
 *     is followed from (w0, 0) to lambda = 1 by pseudo-arclength continuation (Euler predictor
 *     along the tangent of the path, Newton corrector on the bordered (n+1) system, step
 *     halved on failure and doubled after easy steps); the path may turn back in lambda (a
 *     Schmitt trigger's positive feedback folds it), so the arclength, not lambda, is the
 *     parameter, and a path that runs off (its residual part (1 - lambda) r(w0) or its
 *     distance from w0 beyond RT_HOM_FAR times the problem's scale) is followed in the other
 *     direction from w0.  At lambda = 1 the iteration above finishes from the path's point.
 *     The result then goes through canonical() like any other.
 * ------------------------------------------------------------------------------------------ */
#define RT_HOM_MAXN 400        /* larger loops: no continuation (its dense (n+1)^2 matrix)   */
#define RT_HOM_STEPS 2000      /* predictor-corrector steps per direction                     */
#define RT_HOM_FAR 1e4         /* a path this far (scaled) from its start has run off        */
#define RT_HOM_HMAX 100.0      /* largest step (scaled arclength)                             */
#define RT_HOM_HCORNER 1e-7    /* steps shrunk below this: a corner of the path               */
#define RT_REPAIR_SWEEPS 6
/* the parts of ctx->nlHom (n = N_W, m = n + 1) */
#define HOM_JN(H) (H)
#define HOM_A(H) ((H) + (size_t)N_W * N_W)
#define HOM_PIV(H) (HOM_A(H) + (size_t)(N_W + 1) * (N_W + 1))
#define HOM_Y(H) (HOM_PIV(H) + (N_W + 1))
#define HOM_R0(H) (HOM_Y(H) + 6 * (size_t)(N_W + 1))
#define HOM_RR(H) (HOM_R0(H) + N_W)
#define HOM_WS(H) (HOM_RR(H) + N_W)

/* work space of the fallbacks: 0 ok */
static int hom_space(RtCtx *ctx)
{
    const size_t n = N_W, m = n + 1;
    if (ctx->nlHom) return 0;
    if (!ctx->allocateMemory) return 1;
    /* Jn n*n, A m*m, piv m (as doubles), y, yp, dy, tg, tn, sc: m each, r0, rr, ws: n each
       (HOM_* below) */
    ctx->nlHom = (double *)ctx->allocateMemory(n * n + m * m + 7 * m + 3 * n, sizeof(double));
    return ctx->nlHom ? 0 : 1;
}

/* (1): 1 when the residual is evaluable and the Jacobian regular afterwards */
static int start_repair(RtCtx *ctx, double *v, double t)
{
    const int n = N_W;
    double *w = v + OFF_W, *r = ctx->nlR, *r2 = ctx->nlR2, *dw = ctx->nlDw;
    int sweep, k, j;
    for (sweep = 0; sweep < RT_REPAIR_SWEEPS; sweep++) {
        for (k = 0; k < n; k++) {
            for (j = 0; j < 8; j++) {
                double wk = w[k], d, step, dr;
                if (mdl_nl_res(v, t, r) != 0 || !isfinite(r[k])) break;
                if (r[k] == 0.0) break;
                d = 1.4901161193847656e-08 * (fabs(wk) > 1.0 ? fabs(wk) : 1.0);
                w[k] = wk + d;
                if (mdl_nl_res(v, t, r2) != 0 || !isfinite(r2[k])) { w[k] = wk; break; }
                w[k] = wk;
                dr = (r2[k] - r[k]) / d;
                if (!(dr != 0.0) || !isfinite(dr)) break;
                step = -r[k] / dr;
                w[k] = wk + step;
                if (fabs(step) <= 1e-12 * (1.0 + fabs(wk))) break;
            }
            if (!isfinite(w[k])) return 0;
        }
        if (mdl_nl_res(v, t, r) == 0 && finite_vec(n, r) && direction(ctx, v, t, r, dw) == NULL)
            return 1;
    }
    return 0;
}

/* Solve the bordered system [J r0; b^T] x = rhs (m = n+1) at w = y[0..n-1]; r = r(w) given.
   0 ok (x in rhs). */
static int bordered(double *v, double t, double *H, const double *r, const double *r0,
                    const double *b, double *rhs)
{
    const int n = N_W, m = N_W + 1;
    double *Jn = HOM_JN(H), *A = HOM_A(H), *rr = HOM_RR(H);
    int *piv = (int *)(void *)HOM_PIV(H);
    int i, j;
    if (jac_dense(v, t, r, Jn, rr)) return 1;   /* (why: not needed here) */
    for (j = 0; j < n; j++) {
        for (i = 0; i < n; i++) A[i + (size_t)j * m] = Jn[i + (size_t)j * n];
        A[n + (size_t)j * m] = b[j];
    }
    for (i = 0; i < n; i++) A[i + (size_t)n * m] = r0[i];
    A[n + (size_t)n * m] = b[n];
    if (rt_lu_factor(m, A, piv) != 0) return 1;
    rt_lu_solve(m, A, piv, rhs);
    return !finite_vec(m, rhs);
}

/* scaled norm of a (w, lambda) vector */
static double snorm(const double *x, const double *sc)
{
    double s = 0.0;
    int i;
    for (i = 0; i <= N_W; i++) s += (x[i] / sc[i]) * (x[i] / sc[i]);
    return sqrt(s);
}

/* the unit tangent tn at y (r = r(w) given), oriented along tp (or +lambda when tp is NULL):
   0 ok */
static int tangent(double *v, double t, double *H, const double *r, const double *r0,
                   const double *tp, const double *sc, double *tn)
{
    const int m = N_W + 1;
    double b[RT_HOM_MAXN + 1], nn, dot = 0.0;
    int i;
    for (i = 0; i < m; i++) {
        b[i] = tp ? tp[i] / (sc[i] * sc[i]) : (i == m - 1 ? 1.0 : 0.0);
        tn[i] = i == m - 1 ? 1.0 : 0.0;
    }
    if (bordered(v, t, H, r, r0, b, tn)) return 1;
    nn = snorm(tn, sc);
    if (!(nn > 0.0) || !isfinite(nn)) return 1;
    for (i = 0; i < m; i++) tn[i] /= nn;
    if (tp) {
        for (i = 0; i < m; i++) dot += tn[i] * tp[i] / (sc[i] * sc[i]);
        if (dot < 0.0) for (i = 0; i < m; i++) tn[i] = -tn[i];
    }
    return 0;
}

/* The corrector: Newton on H(y) = 0 from the predicted yp, on the hyperplane through yp
   normal to d (or at lambda = 1 when toend).  0 when converged (y in dy; w and r = r(w) are
   those of dy), with the iterations in *itsp. */
static int correct(RtCtx *ctx, double *v, double t, const double *yp, const double *d, int toend,
                   double *dy, int *itsp)
{
    const int n = N_W, m = N_W + 1;
    double *w = v + OFF_W, *H = ctx->nlHom, *r = ctx->nlR, *r0 = HOM_R0(H);
    double *sc = HOM_Y(H) + 5 * (size_t)m;
    double rhs[RT_HOM_MAXN + 1], b[RT_HOM_MAXN + 1];
    int its, i;
    memcpy(dy, yp, (size_t)m * sizeof(double));
    for (its = 1; its <= 8; its++) {
        double big = 0.0;
        *itsp = its;
        memcpy(w, dy, (size_t)n * sizeof(double));
        if (mdl_nl_res(v, t, r) != 0 || !finite_vec(n, r)) return 1;
        for (i = 0; i < n; i++) rhs[i] = -(r[i] - (1.0 - dy[n]) * r0[i]);
        if (toend) {   /* lambda fixed at 1 */
            for (i = 0; i < n; i++) b[i] = 0.0;
            b[n] = 1.0;
            rhs[n] = 0.0;
        } else {
            double g = 0.0;
            for (i = 0; i < m; i++) {
                b[i] = d[i] / (sc[i] * sc[i]);
                g += b[i] * (dy[i] - yp[i]);
            }
            rhs[n] = -g;
        }
        if (bordered(v, t, H, r, r0, b, rhs)) return 1;
        for (i = 0; i < m; i++) {
            const double q = fabs(rhs[i]) / (1e-9 * fabs(dy[i]) + 1e-12 * sc[i]);
            dy[i] += rhs[i];
            if (q > big) big = q;
        }
        if (!finite_vec(m, dy)) return 1;
        if (big <= 1.0) {
            memcpy(w, dy, (size_t)n * sizeof(double));
            return mdl_nl_res(v, t, r) != 0 || !finite_vec(n, r);
        }
    }
    return 1;
}

/* scaled inner product of two (w, lambda) vectors */
static double sdot(const double *a, const double *b, const double *sc)
{
    double s = 0.0;
    int i;
    for (i = 0; i <= N_W; i++) s += a[i] * b[i] / (sc[i] * sc[i]);
    return s;
}

/* A corner of a piecewise-smooth path (an if-expression's kink under noEvent): the steps
   along the tangent tg from y have shrunk to hf without a corrector converging beyond it, so
   the path turns within about hf of y.  The tangent d of the region past the corner (the
   bordered system at y + 2 hf tg) gives the line the path follows there.  Of its two
   directions, the one that leads into that region is the one whose predicted point lies on
   the path (where the region's model holds, the corrector moves it by little more than y's
   distance from the corner), while the other lies in the region behind, and the corrector
   pulls it back onto the path there by a distance of the order of the step.  The line may run
   almost along the boundary of its region (an op-amp's linear region is 2e-3 V wide and 30 V
   long), so the step grows from 4 hf by factors of 4 until one direction's correction is
   below a quarter of the step and half the other's.  0: y, tg and *h are the new point, its
   tangent and the step (dy, tn: scratch). */
static int corner(RtCtx *ctx, double *v, double t, double *y, double *tg, double hf, double *h,
                  double *dy, double *tn)
{
    const int n = N_W, m = N_W + 1;
    double *w = v + OFF_W, *H = ctx->nlHom, *r = ctx->nlR, *r0 = HOM_R0(H);
    double *sc = HOM_Y(H) + 5 * (size_t)m;
    double d[RT_HOM_MAXN + 1], yp[RT_HOM_MAXN + 1], best[RT_HOM_MAXN + 1];
    double hs;
    int i, its;
    for (i = 0; i < m; i++) yp[i] = y[i] + 2.0 * hf * tg[i];
    memcpy(w, yp, (size_t)n * sizeof(double));
    if (mdl_nl_res(v, t, r) != 0 || !finite_vec(n, r) || tangent(v, t, H, r, r0, tg, sc, d)) return 1;
    for (hs = 4.0 * hf; hs <= RT_HOM_HMAX; hs *= 4.0) {
        double q[2];
        int sgn, pick;
        for (sgn = 0; sgn < 2; sgn++) {
            const double sd = sgn ? -hs : hs;
            q[sgn] = INFINITY;
            for (i = 0; i < m; i++) yp[i] = y[i] + sd * d[i];
            if (correct(ctx, v, t, yp, sgn ? tn : d, 0, dy, &its) == 0) {
                double e[RT_HOM_MAXN + 1];
                for (i = 0; i < m; i++) e[i] = dy[i] - yp[i];
                q[sgn] = snorm(e, sc) / hs;
                if (sgn == 0) memcpy(best, dy, (size_t)m * sizeof(double));
            }
            if (sgn == 0) for (i = 0; i < m; i++) tn[i] = -d[i];   /* (the other way's normal) */
        }
        pick = q[1] < q[0];
        if (!(q[pick] < 0.25 && q[pick] < 0.5 * q[!pick])) continue;
        if (pick) {   /* the other way: redo it (dy was overwritten by nothing else since) */
            for (i = 0; i < m; i++) d[i] = -d[i];
        } else {
            memcpy(dy, best, (size_t)m * sizeof(double));
        }
        memcpy(w, dy, (size_t)n * sizeof(double));
        if (mdl_nl_res(v, t, r) != 0 || !finite_vec(n, r) || tangent(v, t, H, r, r0, d, sc, tn)) return 1;
        memcpy(y, dy, (size_t)m * sizeof(double));
        memcpy(tg, tn, (size_t)m * sizeof(double));
        *h = hs;
        return 0;
    }
    return 1;
}

/* (2): 0 when w solves r(w) = 0 (not yet canonical); w0 = the start, r = r(w0) given */
static int continuation(RtCtx *ctx, double *v, double t, const double *w0, int *steps)
{
    const int n = N_W, m = N_W + 1;
    double *w = v + OFF_W, *H = ctx->nlHom, *r = ctx->nlR;
    double *y = HOM_Y(H), *yp = y + m, *dy = yp + m, *tg = dy + m, *tn = tg + m, *sc = tn + m,
           *r0 = HOM_R0(H);
    const char *why;
    int dir, i, it;
    *steps = 0;
    memcpy(r0, r, (size_t)n * sizeof(double));
    for (i = 0; i < n; i++) sc[i] = 1.0 + fabs(w0[i]);
    /* the scale of lambda: the path's first direction at 45 degrees between lambda and w.
       Where r(w0) is small (a start near a solution that has just vanished: a Schmitt trigger
       past its threshold), w hardly moves per unit of lambda, and the path climbs to lambda far
       below 0 before it turns; in units of lambda alone its steps would jump between the
       branches of the solution set */
    {
        double zn;
        sc[n] = 1.0;
        memcpy(w, w0, (size_t)n * sizeof(double));
        memcpy(r, r0, (size_t)n * sizeof(double));
        if (tangent(v, t, H, r, r0, NULL, sc, tg)) return 1;
        zn = 0.0;
        for (i = 0; i < n; i++) zn += (tg[i] / sc[i]) * (tg[i] / sc[i]);
        zn = sqrt(zn) / fabs(tg[n]);              /* |dw/dlambda|, scaled */
        if (zn > 0.0 && isfinite(zn)) sc[n] = 1.0 / zn;
    }
    for (dir = 0; dir < 2; dir++) {
        double h = 0.05;
        int k;
        memcpy(w, w0, (size_t)n * sizeof(double));
        memcpy(y, w0, (size_t)n * sizeof(double));
        y[n] = 0.0;
        memcpy(r, r0, (size_t)n * sizeof(double));
        if (tangent(v, t, H, r, r0, NULL, sc, tg)) return 1;
        if (dir == 1) for (i = 0; i < m; i++) tg[i] = -tg[i];
        for (k = 0; k < RT_HOM_STEPS; k++) {
            int its = 0, toend = 0, rc;
            (*steps)++;
            if (y[n] + h * tg[n] > 1.0 && tg[n] > 0.0) {   /* land on lambda = 1 */
                h = (1.0 - y[n]) / tg[n];
                toend = 1;
            }
            for (i = 0; i < m; i++) yp[i] = y[i] + h * tg[i];
            if (toend) yp[n] = 1.0;
            rc = correct(ctx, v, t, yp, tg, toend, dy, &its);
            if (rc == 0 && (toend || dy[n] >= 1.0)) {
                /* at lambda = 1 (or just past it): the iteration from here */
                if (iterate(ctx, v, t, &why, &it) == 0) return 0;
                h *= 0.25;
                if (h < 1e-12) break;
                continue;
            }
            if (rc == 0) {   /* a step that jumped: the corrector moved far, or the path bent */
                for (i = 0; i < m; i++) tn[i] = dy[i] - yp[i];
                if (snorm(tn, sc) > 0.5 * h) rc = 1;
            }
            if (rc == 0 && tangent(v, t, H, r, r0, tg, sc, tn) == 0 && sdot(tn, tg, sc) >= 0.8) {
                double far = 0.0;
                memcpy(y, dy, (size_t)m * sizeof(double));
                memcpy(tg, tn, (size_t)m * sizeof(double));
                /* ran off: the other direction */
                for (i = 0; i < n; i++) if (fabs(y[i] - w0[i]) / sc[i] > far) far = fabs(y[i] - w0[i]) / sc[i];
                if (far > RT_HOM_FAR || fabs(1.0 - y[n]) / sc[n] > RT_HOM_FAR) break;
                if (its <= 2 && h < RT_HOM_HMAX) h *= 2.0;
                else if (its >= 5) h *= 0.5;
                continue;
            }
            if (h < RT_HOM_HCORNER) {   /* a corner of the path: turn it, or give up this way */
                if (corner(ctx, v, t, y, tg, h, &h, dy, tn) == 0) continue;
                break;
            }
            h *= 0.5;
        }
    }
    return 1;
}

#if HAS_HOMOTOPY
/* ------------------------------------------------------------------------------------------
 * Homotopy (MLS 3.7.4.4: homotopy(actual, simplified) in the loops; config.h HAS_HOMOTOPY).
 * During initialisation (state RT_INIT_MODE) each solve first follows
 *     r(w, lambda) = 0,   homotopy() = simplified + lambda (actual - simplified),
 * from lambda = 0 (the simplified expressions) to lambda = 1 (the actual ones): the iteration
 * below at lambda = 0 from the current w, then natural-parameter steps in lambda (from the
 * last point, step doubled after an easy step, halved on failure), the last at lambda = 1;
 * the ordinary solve (iterate(), the fallbacks, canonical()) then starts from the path's
 * end, where it converges at once.  lambda reaches the generated residuals through the
 * initial() flag, init = 2 - lambda (mdl_nl_res_hom, symbolic.Evaluator.homotopy).  Where the
 * path cannot be followed (the simplified problem not solved, a fold of the path in lambda:
 * the steps shrink below RT_HH_MIN), w goes back to its start and the ordinary solve runs
 * from there, as without homotopy (a warning says so).
 * ------------------------------------------------------------------------------------------ */
#define RT_HH_FIRST 0.125      /* first step in lambda */
#define RT_HH_MAX 0.5          /* largest step         */
#define RT_HH_MIN 1e-6         /* smallest step        */
#define RT_HH_MAXIT 20         /* iterations per step  */

/* damped Newton on r(w, lambda) from the current w (J, piv: n*n and n of scratch): 0 when
   converged, with *its the iterations */
static int hom_iterate(RtCtx *ctx, double *v, double t, double lam, int maxit, double *J, int *piv,
                       int *its)
{
    const int n = N_W;
    const double init = 2.0 - lam;
    double *w = v + OFF_W, *r = ctx->nlR, *r2 = ctx->nlR2, *dw = ctx->nlDw, *wb = ctx->nlWb;
    double fnorm;
    int it, i;
    *its = 0;
    if (mdl_nl_res_hom(v, t, init, r) != 0 || !finite_vec(n, r)) return 1;
    fnorm = norm2(n, r);
    for (it = 1; it <= maxit; it++) {
        double step = 1.0, stepnorm = 0.0;
        *its = it;
        if (fnorm == 0.0) return 0;
        if (mdl_nl_jac_hom(v, t, init, J) != 0 || !finite_vec(n * n, J)) return 1;
        if (rt_lu_factor(n, J, piv) != 0) return 1;
        for (i = 0; i < n; i++) dw[i] = -r[i];
        rt_lu_solve(n, J, piv, dw);
        for (i = 0; i < n; i++) {
            const double sc = fabs(dw[i]) / (NL_RTOL * fabs(w[i]) + NL_ATOL);
            if (sc > stepnorm) stepnorm = sc;
        }
        memcpy(wb, w, (size_t)n * sizeof(double));
        if (stepnorm <= 1.0) {
            for (i = 0; i < n; i++) w[i] = wb[i] + dw[i];
            if (!finite_vec(n, w)) memcpy(w, wb, (size_t)n * sizeof(double));
            return 0;
        }
        for (;;) {
            for (i = 0; i < n; i++) w[i] = wb[i] + step * dw[i];
            if (mdl_nl_res_hom(v, t, init, r2) == 0 && finite_vec(n, r2)) {
                const double f2 = norm2(n, r2);
                if (f2 <= (1.0 - 1e-4 * step) * fnorm) { fnorm = f2; break; }
            }
            step *= 0.5;
            if (step < 1.0 / 1024.0) return 1;
        }
        memcpy(r, r2, (size_t)n * sizeof(double));
    }
    return 1;
}

/* the path from lambda = 0 to 1 (see above): w at its end, or at its start when it fails */
static void homotopy_path(RtCtx *ctx, double *v, double t)
{
    const int n = N_W;
    double *w = v + OFF_W, *H, *ws, *wa, lam = 0.0, h = RT_HH_FIRST;
    int *piv, its, steps = 0;
    const char *why = NULL;
    if (n > RT_HOM_MAXN || hom_space(ctx) != 0) return;
    H = ctx->nlHom;
    ws = HOM_WS(H);                 /* the start */
    wa = HOM_RR(H);                 /* the last point of the path */
    piv = (int *)(void *)HOM_PIV(H);
    memcpy(ws, w, (size_t)n * sizeof(double));
    if (hom_iterate(ctx, v, t, 0.0, NL_MAXIT, HOM_JN(H), piv, &its) != 0) {
        why = "the simplified problem (lambda = 0) not solved";
        goto fail;
    }
    memcpy(wa, w, (size_t)n * sizeof(double));
    while (lam < 1.0) {
        const double ln = lam + h >= 1.0 ? 1.0 : lam + h;
        steps++;
        if (hom_iterate(ctx, v, t, ln, RT_HH_MAXIT, HOM_JN(H), piv, &its) == 0) {
            lam = ln;
            memcpy(wa, w, (size_t)n * sizeof(double));
            if (its <= 4 && h < RT_HH_MAX) h *= 2.0;
        } else {
            memcpy(w, wa, (size_t)n * sizeof(double));
            h *= 0.5;
            if (h < RT_HH_MIN) { why = "the steps in lambda shrank to nothing (a fold of the path?)"; goto fail; }
        }
    }
    rt_log(ctx, 0 /* fmi2OK */, "logAll", "rt_newton: homotopy at t=%.17g followed from lambda = 0 to 1 in %d steps",
           t, steps);
    return;
fail:
    memcpy(w, ws, (size_t)n * sizeof(double));
    rt_log(ctx, 1 /* fmi2Warning */, "logStatusWarning",
           "rt_newton: homotopy at t=%.17g not followed (%s, lambda = %g): the loop is solved from its start "
           "values with the actual expressions", t, why, lam);
}
#endif

int rt_newton(RtCtx *ctx, double *v, double t)
{
    const int n = N_W;
    double *w = v + OFF_W;
    double *r, *wb, *w0;
    int it = 0, rc, repaired = 0, steps = 0;
    const char *why = NULL;

    if (!ctx || !ctx->nlR) return 1;
    r = ctx->nlR; wb = ctx->nlWb; w0 = ctx->nlW0;
#if HAS_HOMOTOPY
    if (ctx->state == RT_INIT_MODE) homotopy_path(ctx, v, t);
#endif

    memcpy(w0, w, (size_t)n * sizeof(double));
    rc = mdl_nl_res(v, t, r);
    if (rc != 0 || !finite_vec(n, r)) {
        why = "residual not evaluable at the start values";
        if (hom_space(ctx) == 0 && start_repair(ctx, v, t)) repaired = 1;
        else goto fail;
        mdl_nl_res(v, t, r);
    }
    if (iterate(ctx, v, t, &why, &it) == 0) goto done;
    /* the fallbacks (see above) */
    if (!repaired && hom_space(ctx) == 0) {
        memcpy(w, w0, (size_t)n * sizeof(double));
        if (start_repair(ctx, v, t)) {
            repaired = 1;
            mdl_nl_res(v, t, r);
            if (iterate(ctx, v, t, &why, &it) == 0) goto done;
        }
    }
    if (n <= RT_HOM_MAXN && hom_space(ctx) == 0) {
        if (!repaired) memcpy(w, w0, (size_t)n * sizeof(double));
        if (mdl_nl_res(v, t, r) == 0 && finite_vec(n, r)) {
            double *ws = HOM_WS(ctx->nlHom);              /* the path's start */
            memcpy(ws, w, (size_t)n * sizeof(double));
            if (continuation(ctx, v, t, ws, &steps) == 0) goto done;
        }
    }
fail:
    memcpy(w, w0, (size_t)n * sizeof(double));
    rt_log(ctx, 3 /* fmi2Error */, "logStatusError",
           "rt_newton: nonlinear loop (%d unknowns) not solved at t=%.17g: %s (iteration %d)%s",
           n, t, why, it, steps ? "; the continuation from the start values failed too" : "");
    return 1;
done:
    memcpy(wb, w, (size_t)n * sizeof(double));
    canonical(ctx, v, t, wb);
    return 0;
}
#else
int rt_newton(RtCtx *ctx, double *v, double t)
{
    (void)ctx; (void)v; (void)t;
    return 0;
}
#endif
