/*
 * test_solvers.c -- unit tests of the embedded solver layer (rt_ode.h, rt_linalg.h)
 * without any FMI machinery: convergence order, tolerance proportionality, dense
 * output accuracy, stiff stability, NaN rejection and step-size underflow, LU.
 *
 * Prints one "PASS name ..." / "FAIL name ..." line per check and a final
 * "RESULT passed=N failed=M" line parsed by run_tests.sh.
 */
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "rt_ode.h"
#include "rt_linalg.h"

static int n_pass = 0, n_fail = 0;
static void check(int ok, const char *name, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("%s %s %s\n", ok ? "PASS" : "FAIL", name, buf);
    if (ok) n_pass++; else n_fail++;
}

/* ---- problems ---- */
static int f_decay(void *u, double t, const double *x, double *dx)
{
    (void)u; (void)t;
    dx[0] = -x[0];
    return 0;
}
/* x1' = x2, x2' = -x1 + cos(t)*0 ... a non-autonomous test: x' = cos(t) x */
static int f_nonauto(void *u, double t, const double *x, double *dx)
{
    (void)u;
    dx[0] = cos(t) * x[0];
    return 0;
}
/* stiff linear: x1' = -x1 + x2... with eigenvalues -1 and -1e5 */
static int f_stiff(void *u, double t, const double *x, double *dx)
{
    (void)u; (void)t;
    dx[0] = -1.0 * x[0];
    dx[1] = 1e5 * (x[0] - x[1]);   /* x2 follows x1 quickly */
    return 0;
}
typedef struct { double mu; long calls; } Vdp;
static int f_vdp(void *u, double t, const double *x, double *dx)
{
    Vdp *p = (Vdp *)u;
    (void)t;
    p->calls++;
    dx[0] = x[1];
    dx[1] = p->mu * (1 - x[0] * x[0]) * x[1] - x[0];
    return 0;
}
static int j_vdp(void *u, double t, const double *x, const double *fx, double *J)
{
    Vdp *p = (Vdp *)u;
    (void)t; (void)fx;
    J[0] = 0; J[1] = -2 * p->mu * x[0] * x[1] - 1;
    J[2] = 1; J[3] = p->mu * (1 - x[0] * x[0]);
    return 0;
}
/* NaN region: derivative is NaN for t > 0.5 */
static int f_nan(void *u, double t, const double *x, double *dx)
{
    (void)u;
    dx[0] = t > 0.5 ? NAN : -x[0];
    return 0;
}
static int f_fail(void *u, double t, const double *x, double *dx)
{
    (void)u;
    dx[0] = -x[0];
    return t > 0.5 ? 1 : 0;
}
/* NaN only for large steps: emulates a model that is undefined far from the trajectory */
static int f_nanfar(void *u, double t, const double *x, double *dx)
{
    (void)u; (void)t;
    dx[0] = x[0] < 0.2 ? NAN : -x[0];
    return 0;
}

static double run(const RtOdeMethod *m, rt_rhs_fn f, rt_jac_fn jac, void *u, int n,
                  const double *x0, double t0, double t1, double rtol, double atol,
                  double *xend, RtOde **keep, int *rc_out)
{
    RtOde *s = rt_ode_new(m, n, f, jac, u, NULL, NULL);
    int rc = RT_ODE_OK;
    s->rtol = rtol; s->atol = atol;
    rt_ode_restart(s, t0, x0, 0.0);
    while (s->t < t1) {
        rc = rt_ode_step(s, t1);
        if (rc != RT_ODE_OK) break;
    }
    memcpy(xend, s->x, (size_t)n * sizeof(double));
    if (rc_out) *rc_out = rc;
    if (keep) *keep = s; else rt_ode_free(s);
    return s ? 0.0 : 0.0;
}

/* fixed step runs to measure the order: hmax = h, tolerance huge */
static double fixed_step_err(const RtOdeMethod *m, rt_rhs_fn f, double h, double exact)
{
    double x0 = 1.0, xe;
    RtOde *s = rt_ode_new(m, 1, f, NULL, NULL, NULL, NULL);
    s->rtol = 1e3; s->atol = 1e3; s->hmax = h;
    rt_ode_restart(s, 0.0, &x0, h);
    while (s->t < 1.0) if (rt_ode_step(s, 1.0) != RT_ODE_OK) break;
    xe = s->x[0];
    rt_ode_free(s);
    return fabs(xe - exact);
}

static void test_order(const RtOdeMethod *m, int expected, const char *tag)
{
    double e1 = fixed_step_err(m, f_decay, 0.1, exp(-1.0));
    double e2 = fixed_step_err(m, f_decay, 0.05, exp(-1.0));
    double p = log(e1 / e2) / log(2.0);
    char name[64];
    snprintf(name, sizeof name, "order_%s", tag);
    check(fabs(p - expected) < 0.35, name, "observed order %.2f (expected %d), err(h=0.1)=%.3g",
          p, expected, e1);
    e1 = fixed_step_err(m, f_nonauto, 0.1, exp(sin(1.0)));
    e2 = fixed_step_err(m, f_nonauto, 0.05, exp(sin(1.0)));
    p = log(e1 / e2) / log(2.0);
    snprintf(name, sizeof name, "order_nonautonomous_%s", tag);
    check(fabs(p - expected) < 0.4, name, "observed order %.2f (expected %d)", p, expected);
}

/* Prothero-Robinson with a moderately stiff constant lambda: x' = -50 (x - sin t) + cos t,
   x(0) = 1: x = sin t + e^(-50 t) */
static int f_pr50(void *u, double t, const double *x, double *dx)
{
    (void)u;
    dx[0] = -50.0 * (x[0] - sin(t)) + cos(t);
    return 0;
}

static void test_order_pr_rodas4(void)
{
    const double ex = sin(1.0) + exp(-50.0);
    const double e1 = fixed_step_err(&rt_ode_rodas4, f_pr50, 0.01, ex);
    const double e2 = fixed_step_err(&rt_ode_rodas4, f_pr50, 0.005, ex);
    const double p = log(e1 / e2) / log(2.0);
    check(fabs(p - 4.0) < 0.5, "order rodas4_prothero_robinson",
          "= %.2f (lambda = -50, h = 0.01 / 0.005; expected 4)", p);
}

static void test_tolerance(const RtOdeMethod *m, const char *tag)
{
    double rt[3] = {1e-4, 1e-7, 1e-10};
    double err[3];
    long nfev[3];
    int k;
    char name[64];
    for (k = 0; k < 3; k++) {
        double x0 = 1.0, xe;
        RtOde *s;
        run(m, f_decay, NULL, NULL, 1, &x0, 0.0, 5.0, rt[k], rt[k] * 1e-3, &xe, &s, NULL);
        err[k] = fabs(xe - exp(-5.0)) / exp(-5.0);
        nfev[k] = s->nfev;
        rt_ode_free(s);
    }
    snprintf(name, sizeof name, "tolerance_%s", tag);
    check(err[0] < 50 * rt[0] && err[1] < 50 * rt[1] && err[2] < 50 * rt[2] &&
          err[2] < err[1] && err[1] < err[0], name,
          "rel err at t=5: %.2e (rtol 1e-4, nfev %ld), %.2e (1e-7, nfev %ld), %.2e (1e-10, nfev %ld)",
          err[0], nfev[0], err[1], nfev[1], err[2], nfev[2]);
}

static void test_dense(const RtOdeMethod *m, const char *tag)
{
    double x0 = 1.0, out, maxerr = 0;
    int k;
    char name[64];
    RtOde *s = rt_ode_new(m, 1, f_decay, NULL, NULL, NULL, NULL);
    s->rtol = 1e-8; s->atol = 1e-12;
    rt_ode_restart(s, 0.0, &x0, 0.0);
    while (s->t < 3.0) {
        if (rt_ode_step(s, 3.0) != RT_ODE_OK) break;
        for (k = 0; k <= 10; k++) {
            double tt = s->t_old + (s->t - s->t_old) * k / 10.0;
            double e;
            rt_ode_dense(s, tt, &out);
            e = fabs(out - exp(-tt)) / exp(-tt);
            if (e > maxerr) maxerr = e;
        }
    }
    snprintf(name, sizeof name, "dense_output_%s", tag);
    check(maxerr < 1e-6, name, "max rel interpolation error %.2e over %ld steps (rtol 1e-8)",
          maxerr, s->naccept);
    rt_ode_free(s);
}

static void test_stiff_linear(void)
{
    double x0[2] = {1.0, 0.0}, xe[2];
    RtOde *s;
    int rc;
    /* exact: x1 = e^-t; x2 = 1e5/(1e5-1) (e^-t - e^-1e5 t) */
    double ex1 = exp(-2.0), ex2 = 1e5 / (1e5 - 1) * (exp(-2.0) - 0.0);
    run(&rt_ode_rodas4, f_stiff, NULL, NULL, 2, x0, 0.0, 2.0, 1e-6, 1e-9, xe, &s, &rc);
    check(rc == 0 && fabs(xe[0] - ex1) < 1e-6 * ex1 * 10 && fabs(xe[1] - ex2) < 1e-5 * ex2 &&
          s->naccept < 200, "stiff_linear_rodas4",
          "x=(%.10g,%.10g) exact=(%.10g,%.10g) steps=%ld rejected=%ld nfev=%ld njev=%ld nlu=%ld",
          xe[0], xe[1], ex1, ex2, s->naccept, s->nreject, s->nfev, s->njev, s->nlu);
    rt_ode_free(s);
}

static void test_vdp(void)
{
    /* Van der Pol x'' - mu (1-x^2) x' + x = 0, mu=1000, x(0)=(2,0), t in [0, 3000].
     * Reference: scipy.integrate.solve_ivp(method='Radau', rtol=atol=1e-12) gives
     * x(3000) = (-1.5106069367598571, 0.0011783800006900187) (LSODA agrees to 1e-9). */
    Vdp p = {1000.0, 0};
    double x0[2] = {2.0, 0.0}, xe[2];
    const double xr[2] = {-1.5106069367598571, 0.0011783800006900187};
    RtOde *s;
    int rc;
    run(&rt_ode_rodas4, f_vdp, j_vdp, &p, 2, x0, 0.0, 3000.0, 1e-11, 1e-11, xe, &s, &rc);
    check(rc == 0 && fabs(xe[0] - xr[0]) < 1e-8, "vdp1000_rodas4_tight",
          "rtol=1e-11: x1(3000)=%.14g ref=%.14g |err|=%.2e steps=%ld", xe[0], xr[0],
          fabs(xe[0] - xr[0]), s->naccept);
    rt_ode_free(s);
    run(&rt_ode_rodas4, f_vdp, j_vdp, &p, 2, x0, 0.0, 3000.0, 1e-6, 1e-6, xe, &s, &rc);
    check(rc == 0 && fabs(xe[0] - xr[0]) < 1e-4 && s->naccept < 2000, "vdp1000_rodas4_exactjac",
          "rtol=1e-6: x1(3000)=%.10g ref=%.10g |err|=%.2e steps=%ld rej=%ld nfev=%ld njev=%ld nlu=%ld",
          xe[0], xr[0], fabs(xe[0] - xr[0]), s->naccept, s->nreject, s->nfev, s->njev, s->nlu);
    rt_ode_free(s);
    run(&rt_ode_rodas4, f_vdp, NULL, &p, 2, x0, 0.0, 3000.0, 1e-6, 1e-6, xe, &s, &rc);
    check(rc == 0 && fabs(xe[0] - xr[0]) < 1e-4 && s->naccept < 2000, "vdp1000_rodas4_fdjac",
          "rtol=1e-6: x1(3000)=%.10g |err|=%.2e steps=%ld nfev=%ld", xe[0],
          fabs(xe[0] - xr[0]), s->naccept, s->nfev);
    rt_ode_free(s);
}

static void test_failures(const RtOdeMethod *m, const char *tag)
{
    double x0 = 1.0, xe;
    RtOde *s;
    int rc;
    char name[64];
    run(m, f_nan, NULL, NULL, 1, &x0, 0.0, 1.0, 1e-6, 1e-9, &xe, &s, &rc);
    snprintf(name, sizeof name, "nan_gives_hmin_%s", tag);
    check(rc == RT_ODE_HMIN && fabs(s->t - 0.5) < 1e-6 && fabs(xe - exp(-s->t)) < 1e-5, name,
          "rc=%d stopped at t=%.15g msg='%s'", rc, s->t, s->msg);
    rt_ode_free(s);
    run(m, f_fail, NULL, NULL, 1, &x0, 0.0, 1.0, 1e-6, 1e-9, &xe, &s, &rc);
    snprintf(name, sizeof name, "rc_gives_hmin_%s", tag);
    check(rc == RT_ODE_HMIN && fabs(s->t - 0.5) < 1e-6, name, "rc=%d t=%.15g", rc, s->t);
    rt_ode_free(s);
    /* NaN far away: must be survived by shrinking, reaching the end */
    run(m, f_nanfar, NULL, NULL, 1, &x0, 0.0, 1.0, 1e-6, 1e-9, &xe, &s, &rc);
    snprintf(name, sizeof name, "nan_far_recovers_%s", tag);
    check(rc == RT_ODE_OK && s->t == 1.0 && fabs(xe - exp(-1.0)) < 1e-5, name,
          "rc=%d x(1)=%.10g rejected=%ld", rc, xe, s->nreject);
    rt_ode_free(s);
}

static int j_nan(void *u, double t, const double *x, const double *fx, double *J)
{
    (void)u; (void)t; (void)x; (void)fx;
    J[0] = NAN;
    return 0;
}

/* tiny state (wear-depth like, 1e-9): the nominal must scale atol */
static void test_nominal_and_jac_fallback(void)
{
    const double x0 = 1e-9, scale = 1e-9;
    double e_plain, e_nom, xe;
    RtOde *s;
    int rc;
    s = rt_ode_new(&rt_ode_dopri5, 1, f_decay, NULL, NULL, NULL, NULL);
    s->rtol = 1e-6; s->atol = 1e-9;
    rt_ode_restart(s, 0.0, &x0, 0.0);
    while (s->t < 5.0 && rt_ode_step(s, 5.0) == RT_ODE_OK) {}
    e_plain = fabs(s->x[0] - x0 * exp(-5.0)) / (x0 * exp(-5.0));
    rt_ode_restart(s, 0.0, &x0, 0.0);
    s->atol_scale = &scale;
    while (s->t < 5.0 && rt_ode_step(s, 5.0) == RT_ODE_OK) {}
    e_nom = fabs(s->x[0] - x0 * exp(-5.0)) / (x0 * exp(-5.0));
    check(e_nom < 1e-5 && e_nom < 0.01 * e_plain, "nominal_scales_atol",
          "x0=1e-9, rtol=1e-6, atol=1e-9: rel err %.2e without nominal, %.2e with nominal 1e-9",
          e_plain, e_nom);
    rt_ode_free(s);
    {
        const double one = 1.0;
        run(&rt_ode_rodas4, f_decay, j_nan, NULL, 1, &one, 0.0, 1.0, 1e-6, 1e-9, &xe, &s, &rc);
        check(rc == 0 && fabs(xe - exp(-1.0)) < 1e-5, "nan_jacobian_falls_back_to_fd",
              "x(1)=%.10g nfev=%ld", xe, s->nfev);
        rt_ode_free(s);
    }
}

/* ---------------------------------------------------------------- auto method */

/* harmonic oscillator (non-stiff): x'' = -x */
static int f_osc(void *u, double t, const double *x, double *dx)
{
    (void)u; (void)t;
    dx[0] = x[1];
    dx[1] = -x[0];
    return 0;
}

static void test_auto_nonstiff(void)
{
    /* a non-stiff problem: auto stays with the explicit methods (no Jacobian, no LU; Adams
       on a smooth orbit), no less accurate and no more work than DOPRI5 alone */
    double x0[2] = {1.0, 0.0}, xe[2], xd[2];
    RtOde *s, *d;
    int rc, rcd;
    run(&rt_ode_auto, f_osc, NULL, NULL, 2, x0, 0.0, 20.0, 1e-8, 1e-11, xe, &s, &rc);
    run(&rt_ode_dopri5, f_osc, NULL, NULL, 2, x0, 0.0, 20.0, 1e-8, 1e-11, xd, &d, &rcd);
    check(rc == 0 && s->njev == 0 && s->nlu == 0 && s->sub == &rt_ode_adams &&
          s->nfev <= d->nfev && fabs(xe[0] - cos(20.0)) <= fabs(xd[0] - cos(20.0)) &&
          fabs(xe[0] - cos(20.0)) < 1e-6, "auto_nonstiff_explicit",
          "x(20)=%.12g (exact %.12g, DOPRI5 %.12g) nfev=%ld (DOPRI5 %ld) njev=%ld nswitch=%ld "
          "probes=%ld", xe[0], cos(20.0), xd[0], s->nfev, d->nfev, s->njev, s->nswitch,
          s->nprobe);
    rt_ode_free(s);
    rt_ode_free(d);
}

/* forced oscillator x'' = -x + |sin(40 t)|: kinks in the right-hand side 40/pi times per unit
   of time, without events -- a multistep method's history breaks at each, a one-step method
   steps over it */
static int f_kink(void *u, double t, const double *x, double *dx)
{
    (void)u;
    dx[0] = x[1];
    dx[1] = -x[0] + fabs(sin(40.0 * t));
    return 0;
}

static void test_auto_chooses_by_cost(void)
{
    /* the probes' choice, judged at equal accuracy (issue 36): on the kinked oscillator auto
       costs at most 1.5x the evaluations of the cheaper fixed explicit method (Dormand-Prince
       or Adams, on the rungs 1e-3..1e-12) among the runs whose error is at most auto's.
       An earlier version of this test required auto to move to Dormand-Prince here, on the
       premise that Adams needs 2-4x its evaluations at equal accuracy; measured with the
       present Adams it does not (Adams at rtol 1e-5: 7.5e-5 for 14 214 evaluations,
       Dormand-Prince 4.2e-5 for 24 512 at 1e-7), and auto at 1e-3 of the tolerance is ~100x
       more accurate than Dormand-Prince at it (rtol 1e-8: 3.8e-9 against 6.0e-7), which the
       probes now take into account (rt_auto.c, probe_cost).  Measured: auto 0.84x (1e-4),
       1.04x (1e-6), 1.24x (1e-8); 1.38x at 1e-6 with probes 100 steps apart, when it moved
       to Dormand-Prince part of the way. */
    const double rtols[3] = {1e-4, 1e-6, 1e-8};
    double x0[2] = {1.0, 0.0}, xr[2], xa[2], xd[2];
    double err[2][10];
    long nf[2][10];
    RtOde *r, *a, *d;
    int rc, k, j, i;
    run(&rt_ode_dopri5, f_kink, NULL, NULL, 2, x0, 0.0, 20.0, 1e-12, 1e-15, xr, &r, &rc);
    rt_ode_free(r);
    for (i = 0; i < 2; i++) {
        for (j = 0; j < 10; j++) {
            const double rt = pow(10.0, -3.0 - j);
            run(i ? &rt_ode_adams : &rt_ode_dopri5, f_kink, NULL, NULL, 2, x0, 0.0, 20.0, rt,
                1e-3 * rt, xd, &d, &rc);
            err[i][j] = rc == 0 ? fabs(xd[0] - xr[0]) : INFINITY;
            nf[i][j] = d->nfev;
            rt_ode_free(d);
        }
    }
    for (k = 0; k < 3; k++) {
        int rca;
        long best = -1;
        char name[64];
        run(&rt_ode_auto, f_kink, NULL, NULL, 2, x0, 0.0, 20.0, rtols[k], 1e-3 * rtols[k], xa, &a, &rca);
        for (i = 0; i < 2; i++)
            for (j = 0; j < 10; j++)
                if (err[i][j] <= fabs(xa[0] - xr[0]) && (best < 0 || nf[i][j] < best)) best = nf[i][j];
        snprintf(name, sizeof name, "auto_kinked_cost_at_equal_accuracy_rtol%.0e", rtols[k]);
        check(rca == 0 && best > 0 && a->nprobe >= 1 && a->nfev <= 1.5 * best && a->njev == 0,
              name, "nfev auto %ld (switches %ld, probes %ld, |err| %.2e), cheapest fixed explicit "
              "method at that error or below %ld (%.2fx)", a->nfev, a->nswitch, a->nprobe,
              fabs(xa[0] - xr[0]), best, best > 0 ? (double)a->nfev / best : 0.0);
        rt_ode_free(a);
    }
}

static void test_auto_vdp(void)
{
    /* auto on Van der Pol mu=1000 (see test_vdp): switches to RODAS4 and reaches its
       accuracy with at most ~1.3x its work (f-calls + Jacobian evaluations; with the
       difference Jacobian those are f-calls already) */
    const double xr0 = -1.5106069367598571;
    const double rtols[2] = {1e-6, 1e-8};
    int k, fd;
    for (fd = 0; fd < 2; fd++)
        for (k = 0; k < 2; k++) {
            Vdp p = {1000.0, 0}, q = {1000.0, 0};
            double x0[2] = {2.0, 0.0}, xa[2], xr[2];
            RtOde *a, *r;
            int rca, rcr;
            char name[64];
            double ea, er, wa, wr;
            run(&rt_ode_auto, f_vdp, fd ? NULL : j_vdp, &p, 2, x0, 0.0, 3000.0, rtols[k],
                rtols[k], xa, &a, &rca);
            run(&rt_ode_rodas4, f_vdp, fd ? NULL : j_vdp, &q, 2, x0, 0.0, 3000.0, rtols[k],
                rtols[k], xr, &r, &rcr);
            ea = fabs(xa[0] - xr0);
            er = fabs(xr[0] - xr0);
            wa = (double)(a->nfev + (fd ? 0 : a->njev));
            wr = (double)(r->nfev + (fd ? 0 : r->njev));
            snprintf(name, sizeof name, "auto_vdp1000_%s_rtol%.0e", fd ? "fdjac" : "exactjac",
                     rtols[k]);
            check(rca == 0 && rcr == 0 && a->nswitch >= 1 && a->njev > 0 &&
                  ea < 3 * er + 10 * rtols[k] && wa <= 1.3 * wr, name,
                  "|err| auto %.2e RODAS4 %.2e; work auto %.0f (nfev %ld njev %ld steps %ld "
                  "switches %ld) RODAS4 %.0f (nfev %ld njev %ld steps %ld) ratio %.2f",
                  ea, er, wa, a->nfev, a->njev, a->naccept, a->nswitch, wr, r->nfev, r->njev,
                  r->naccept, wa / wr);
            rt_ode_free(a);
            rt_ode_free(r);
        }
}

/* Prothero-Robinson x' = lambda(t) (x - sin t) + cos t, x(0) = 0, exact x = sin t, with
 * lambda(t) = -(0.1 + 1e5 cos(pi t/10)^16): stiff near t = 0 and t = 10, non-stiff in
 * about [3, 7] (|lambda| < 20) */
static double pr_lambda(double t)
{
    double c = cos(3.14159265358979323846 * t / 10.0);
    c *= c; c *= c; c *= c; c *= c;
    return -(0.1 + 1e5 * c);
}
static int f_pr(void *u, double t, const double *x, double *dx)
{
    (void)u;
    dx[0] = pr_lambda(t) * (x[0] - sin(t)) + cos(t);
    return 0;
}
static int j_pr(void *u, double t, const double *x, const double *fx, double *J)
{
    (void)u; (void)x; (void)fx;
    J[0] = pr_lambda(t);
    return 0;
}

static void test_auto_switch_both_ways(void)
{
    /* Adams while non-stiff; stability-limited near t = 0 and t = 10: Adams -> DOPRI5 ->
       RODAS4; non-stiff in between: RODAS4 -> DOPRI5 (-> Adams when the probe finds it
       cheaper); dense output accurate to the tolerance whichever method took the step */
    double x0 = 0.0, out, maxdense = 0.0;
    double tsw[16];
    int sub[16];
    int nsw = 0, rc = RT_ODE_OK, k, first_rodas = -1, last_rodas = -1, back = -1, order_ok = 1;
    long nsw_seen = 0;
    RtOde *s = rt_ode_new(&rt_ode_auto, 1, f_pr, j_pr, NULL, NULL, NULL);
    s->rtol = 1e-6; s->atol = 1e-9;
    rt_ode_restart(s, 0.0, &x0, 0.0);
    while (s->t < 10.0) {
        rc = rt_ode_step(s, 10.0);
        if (rc != RT_ODE_OK) break;
        /* dense output of every step, whichever method took it */
        for (k = 1; k < 8; k++) {
            const double tt = s->t_old + (s->t - s->t_old) * k / 8.0;
            rt_ode_dense(s, tt, &out);
            if (fabs(out - sin(tt)) > maxdense) maxdense = fabs(out - sin(tt));
        }
        if (s->nswitch != nsw_seen) {
            if (nsw < 16) { tsw[nsw] = s->t; sub[nsw++] = s->sub->id; }
            nsw_seen = s->nswitch;
        }
    }
    for (k = 0; k < nsw; k++) {
        /* RODAS4 is entered from DOPRI5 only (Adams hands a stiff problem to DOPRI5 first) */
        if (sub[k] == RT_ODE_RODAS4 && (k == 0 || sub[k - 1] != RT_ODE_DOPRI5)) order_ok = 0;
        if (sub[k] == RT_ODE_RODAS4) { if (first_rodas < 0) first_rodas = k; last_rodas = k; }
        if (k > 0 && sub[k - 1] == RT_ODE_RODAS4 && back < 0) back = k;
    }
    check(rc == 0 && nsw >= 3 && nsw <= 8 && order_ok && sub[0] == RT_ODE_DOPRI5 &&
          first_rodas >= 0 && tsw[first_rodas] < 1.0 && back > first_rodas &&
          sub[back] == RT_ODE_DOPRI5 && tsw[back] > 2.0 && tsw[back] < 7.5 &&
          last_rodas > back && tsw[last_rodas] < 9.5 && s->sub == &rt_ode_rodas4 &&
          fabs(s->x[0] - sin(10.0)) < 1e-5 && maxdense < 1e-5, "auto_switches_both_ways",
          "%d switches: to %d at t=%.3g, %d at %.3g, %d at %.3g, %d at %.3g, %d at %.3g, "
          "%d at %.3g; x(10)-sin(10)=%.2e, dense max err %.2e, steps=%ld nfev=%ld njev=%ld",
          nsw, nsw > 0 ? sub[0] : -1, nsw > 0 ? tsw[0] : -1, nsw > 1 ? sub[1] : -1,
          nsw > 1 ? tsw[1] : -1, nsw > 2 ? sub[2] : -1, nsw > 2 ? tsw[2] : -1,
          nsw > 3 ? sub[3] : -1, nsw > 3 ? tsw[3] : -1, nsw > 4 ? sub[4] : -1,
          nsw > 4 ? tsw[4] : -1, nsw > 5 ? sub[5] : -1, nsw > 5 ? tsw[5] : -1,
          s->x[0] - sin(10.0), maxdense, s->naccept, s->nfev, s->njev);
    rt_ode_free(s);
}

/* "save, restore, continue" in the solver layer: t, x, h, controller history and the
 * auto code reproduce the uninterrupted run bit for bit (what rt_state.c does) */
static void test_auto_save_restore(void)
{
    double x0 = 0.0;
    const double tsave[3] = {0.1, 1.0, 7.0};
    double ts[3];
    int k, ok = 1, codes[3];
    for (k = 0; k < 3; k++) {
        RtOde *s = rt_ode_new(&rt_ode_auto, 1, f_pr, j_pr, NULL, NULL, NULL);
        RtOde *r = rt_ode_new(&rt_ode_auto, 1, f_pr, j_pr, NULL, NULL, NULL);
        double xs, h, hl, eo;
        int fs, lr, code, cnt;
        s->rtol = r->rtol = 1e-6; s->atol = r->atol = 1e-9;
        rt_ode_restart(s, 0.0, &x0, 0.0);
        /* save at the first step end after tsave[k] in the wanted situation */
        while (s->t < 10.0 && rt_ode_step(s, 10.0) == RT_ODE_OK) {
            if (s->t < tsave[k] || s->pr_cand) continue;   /* (a probe's span pending ends
                                                             at a restart) */
            if (k == 0 && s->sub == &rt_ode_rodas4) break;
            if (k == 1 && s->sub == &rt_ode_rodas4 && s->n_easy > 0) break;
            if (k == 2 && s->sub == &rt_ode_dopri5 && s->n_stiff > 0) break;
        }
        ts[k] = s->t;
        xs = s->x[0]; h = s->h; hl = s->h_last; eo = s->err_old;
        fs = s->first_step; lr = s->last_rejected;
        codes[k] = code = rt_ode_auto_save(s, &cnt);
        while (s->t < 10.0) rt_ode_step(s, 10.0);
        /* restored copy in a fresh object that has been used before (must be overwritten) */
        rt_ode_restart(r, 0.0, &x0, 0.0);
        while (r->t < 9.0) rt_ode_step(r, 9.0);
        rt_ode_restart(r, ts[k], &xs, h);
        r->h_last = hl; r->err_old = eo; r->first_step = fs; r->last_rejected = lr;
        rt_ode_auto_load(r, code, cnt);
        while (r->t < 10.0) rt_ode_step(r, 10.0);
        if (memcmp(&r->x[0], &s->x[0], sizeof(double)) != 0 || r->sub != s->sub ||
            r->n_stiff != s->n_stiff || r->n_easy != s->n_easy)
            ok = 0;
        rt_ode_free(s);
        rt_ode_free(r);
    }
    /* saved in RODAS4 mode, in RODAS4 mode with n_easy > 0, in DOPRI5 mode with n_stiff > 0 */
    check(ok && codes[0] == 1 && (codes[1] & 1) == 1 &&
          ((codes[1] >> AUTO_CODE_EASY_SHIFT) & 15) > 0 && (codes[2] & 1) == 0 &&
          ((codes[2] >> AUTO_CODE_STIFF_SHIFT) & 1023) > 0, "auto_save_restore_bit_identical",
          "identical=%d, auto codes at t=%.4g, %.4g, %.4g: %d %d %d", ok, ts[0], ts[1], ts[2],
          codes[0], codes[1], codes[2]);
    {
        RtOde *s = rt_ode_new(&rt_ode_auto, 1, f_pr, j_pr, NULL, NULL, NULL);
        const int code = 1 | (3 << AUTO_CODE_STIFF_SHIFT) | (2 << AUTO_CODE_BACKOFF_SHIFT);
        int k2, cnt;
        rt_ode_auto_load(s, code, 0);
        k = rt_ode_auto_save(s, &cnt);
        /* 40 stiff steps are possible at back-off 2 (60 needed), not at back-off 1 (30) */
        rt_ode_auto_load(s, (40 << AUTO_CODE_STIFF_SHIFT) | (2 << AUTO_CODE_BACKOFF_SHIFT), 5);
        k2 = rt_ode_auto_save(s, &cnt);
        ok = cnt == 5;
        rt_ode_auto_load(s, (40 << AUTO_CODE_STIFF_SHIFT) | (1 << AUTO_CODE_BACKOFF_SHIFT), 5);
        ok = ok && rt_ode_auto_save(s, &cnt) == 0 && cnt == PROBE_FIRST;
        /* DOPRI5 (back to Adams when stable) with its probe level; DOPRI5 and RODAS4 at
           once, a count beyond the level's */
        rt_ode_auto_load(s, (1 << AUTO_CODE_DOPRI5_SHIFT) | (2 << AUTO_CODE_LEVEL_SHIFT) |
                         (1 << AUTO_CODE_BACK_SHIFT), PROBE_EVERY << 2);
        ok = ok && s->sub == &rt_ode_dopri5 && s->pr_level == 2 && s->pr_count == PROBE_EVERY << 2 &&
             s->dp_back == 1;
        rt_ode_auto_load(s, 1 | (1 << AUTO_CODE_DOPRI5_SHIFT), 0);
        ok = ok && rt_ode_auto_save(s, &cnt) == 0;
        rt_ode_auto_load(s, 2 << AUTO_CODE_LEVEL_SHIFT, (PROBE_EVERY << 2) + 1);
        ok = ok && rt_ode_auto_save(s, &cnt) == 0;
        rt_ode_auto_load(s, AUTO_CODE_LIMIT, 0);   /* invalid -> initial */
        check(k == code && s->backoff == 0 && k2 == ((40 << AUTO_CODE_STIFF_SHIFT) |
              (2 << AUTO_CODE_BACKOFF_SHIFT)) && ok && rt_ode_auto_save(s, &cnt) == 0 &&
              s->sub == &rt_ode_adams, "auto_code_roundtrip_and_invalid", "code %d %d", k, k2);
        rt_ode_free(s);
    }
}


/* ---- Adams (rt_adams.c) and measured orders of all methods ---- */

/* Kepler two-body problem, eccentricity 0.6: x = (q1, q2, p1, p2), period 2 pi */
static int f_kepler(void *u, double t, const double *x, double *dx)
{
    const double r2 = x[0] * x[0] + x[1] * x[1], r3 = r2 * sqrt(r2);
    (void)t;
    if (u) ((Vdp *)u)->calls++;
    dx[0] = x[2];
    dx[1] = x[3];
    dx[2] = -x[0] / r3;
    dx[3] = -x[1] / r3;
    return 0;
}
#define KEPLER_E 0.6
static void kepler_x0(double *x0)
{
    x0[0] = 1.0 - KEPLER_E; x0[1] = 0.0;
    x0[2] = 0.0; x0[3] = sqrt((1.0 + KEPLER_E) / (1.0 - KEPLER_E));
}
/* error at t = 2 pi k (one full period: back at x0) */
static double kepler_err(const double *x)
{
    double x0[4], e = 0.0;
    int i;
    kepler_x0(x0);
    for (i = 0; i < 4; i++) e = fmax(e, fabs(x[i] - x0[i]));
    return e;
}

/* fixed order q, fixed step h on the oscillator over [0, 2 pi] from the exact Nordsieck
   array (z_j = h^j/j! x^(j)(0)): global error ~ h^q */
static double adams_fixed_err(int q, double h)
{
    const double T = 2.0 * 3.14159265358979323846;
    double x0[2] = {1.0, 0.0}, e;
    double *hist;
    RtOde *s = rt_ode_new(&rt_ode_adams, 2, f_osc, NULL, NULL, NULL, NULL);
    int j;
    double fact = 1.0, hj = 1.0;
    hist = (double *)calloc(rt_ode_hist_len(2), sizeof(double));
    s->rtol = 1e3; s->atol = 1e3; s->hmax = h;
    s->adams_qfix = 1;
    rt_ode_restart(s, 0.0, x0, h);
    hist[0] = 1.0; hist[1] = q; hist[2] = q; hist[3] = q + 1; hist[4] = h;
    for (j = 0; j <= q; j++) {   /* x = cos t, v = -sin t: derivatives at 0 */
        static const double c[4] = {1.0, 0.0, -1.0, 0.0};
        if (j > 0) { fact *= j; hj *= h; }
        hist[RT_ODE_HIST_HDR + 2 * j] = hj / fact * c[j % 4];
        hist[RT_ODE_HIST_HDR + 2 * j + 1] = hj / fact * c[(j + 1) % 4];
    }
    if (!rt_ode_hist_load(s, hist)) { free(hist); rt_ode_free(s); return -1.0; }
    while (s->t < T) if (rt_ode_step(s, T) != RT_ODE_OK) break;
    e = fmax(fabs(s->x[0] - 1.0), fabs(s->x[1]));
    free(hist);
    rt_ode_free(s);
    return e;
}

static void test_adams_fixed_orders(void)
{
    int q, ok = 1;
    char buf[400];
    size_t k = 0;
    for (q = 1; q <= 8; q++) {
        const double h1 = q <= 4 ? 0.02 : q <= 6 ? 0.05 : 0.1, h2 = h1 / 2;
        const double e1 = adams_fixed_err(q, h1), e2 = adams_fixed_err(q, h2);
        const double p = log(e1 / e2) / log(2.0);
        if (!(fabs(p - q) < 0.35)) ok = 0;
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%sq=%d: %.2f", q > 1 ? ", " : "", q, p);
    }
    check(ok, "order adams_fixed", "measured orders %s", buf);
}

/* measured order of a variable-step method: error vs number of steps when the tolerance
   is lowered (err ~ N^-p), Kepler over one period */
static void test_order_vs_tol(const RtOdeMethod *m, double expected, const char *tag)
{
    double x0[4], xe[4], e[2], ns[2], p;
    const double rt[2] = {1e-7, 1e-10};
    int k;
    char name[64];
    kepler_x0(x0);
    for (k = 0; k < 2; k++) {
        RtOde *s;
        run(m, f_kepler, NULL, NULL, 4, x0, 0.0, 2.0 * 3.14159265358979323846, rt[k],
            rt[k], xe, &s, NULL);
        e[k] = kepler_err(xe);
        ns[k] = (double)s->naccept;
        rt_ode_free(s);
    }
    p = log(e[0] / e[1]) / log(ns[1] / ns[0]);
    snprintf(name, sizeof name, "order %s", tag);
    check(fabs(p - expected) < 0.6, name, "= %.2f (Kepler e=0.6, err %.2e / %.2e with %.0f / "
          "%.0f steps, expected %.0f)", p, e[0], e[1], ns[0], ns[1], expected);
}

/* the variable-order method against DOPRI5 on a smooth problem: error per RHS count */
static void test_adams_vs_dopri5(void)
{
    double x0[4], xa[4], xd[4];
    const double rts[3] = {1e-6, 1e-8, 1e-10};
    int k;
    kepler_x0(x0);
    for (k = 0; k < 3; k++) {
        RtOde *a, *d;
        char name[64];
        double ea, ed, ed2;
        long nd2;
        int rca, rcd;
        run(&rt_ode_adams, f_kepler, NULL, NULL, 4, x0, 0.0, 6.0 * 3.14159265358979323846,
            rts[k], rts[k], xa, &a, &rca);
        run(&rt_ode_dopri5, f_kepler, NULL, NULL, 4, x0, 0.0, 6.0 * 3.14159265358979323846,
            rts[k], rts[k], xd, &d, &rcd);
        ea = kepler_err(xa);
        ed = kepler_err(xd);
        /* DOPRI5 with as many evaluations as Adams used: rtol scaled by the work ratio^5 */
        {
            RtOde *d2;
            const double rt2 = rts[k] * pow((double)d->nfev / (double)a->nfev, 5.0);
            run(&rt_ode_dopri5, f_kepler, NULL, NULL, 4, x0, 0.0, 6.0 * 3.14159265358979323846,
                rt2, rt2, xd, &d2, NULL);
            ed2 = kepler_err(xd);
            nd2 = d2->nfev;
            rt_ode_free(d2);
        }
        snprintf(name, sizeof name, "adams_vs_dopri5_kepler_rtol%.0e", rts[k]);
        /* tighter tolerances: Adams' error smaller than DOPRI5's with the same work */
        check(rca == 0 && rcd == 0 && (k == 0 || (ea < ed2 && a->nfev < d->nfev)), name,
              "Adams err %.2e nfev %ld steps %ld rej %ld; DOPRI5 err %.2e nfev %ld "
              "(DOPRI5 with ~ Adams' nfev: err %.2e, nfev %ld)", ea, a->nfev, a->naccept,
              a->nreject, ed, d->nfev, ed2, nd2);
        rt_ode_free(a);
        rt_ode_free(d);
    }
}

/* G3 and restart: steps towards a sequence of bounds end exactly on each; a restart
   drops the history (order 2 start) and gets going again cheaply */
static void test_adams_bounds_restart(void)
{
    double x0[4], xe[4];
    RtOde *s = rt_ode_new(&rt_ode_adams, 4, f_kepler, NULL, NULL, NULL, NULL);
    int k, exact = 1, rc = RT_ODE_OK, qmax_seen = 0;
    long nf0, nfev_restart;
    kepler_x0(x0);
    s->rtol = 1e-9; s->atol = 1e-9;
    rt_ode_restart(s, 0.0, x0, 0.0);
    for (k = 1; k <= 37 && rc == RT_ODE_OK; k++) {
        const double tb = k * (2.0 * 3.14159265358979323846 / 37.0);
        while (s->t < tb) {
            rc = rt_ode_step(s, tb);
            if (rc != RT_ODE_OK || s->t > tb) { exact = 0; break; }
            if (s->aq > qmax_seen) qmax_seen = s->aq;
        }
        if (s->t != tb) exact = 0;
    }
    memcpy(xe, s->x, sizeof xe);
    check(exact && rc == 0 && kepler_err(xe) < 1e-5 && qmax_seen >= 6, "adams_G3_bounds",
          "37 bounds hit exactly: %d, err after one period %.2e, highest order %d, nfev %ld",
          exact, kepler_err(xe), qmax_seen, s->nfev);
    /* restart at the current point: order 1 again, and the cost of getting going */
    nf0 = s->nfev;
    rt_ode_restart(s, s->t, s->x, 0.0);
    {
        const int q0 = s->aq;
        const double t0 = s->t;
        rc = rt_ode_step(s, t0 + 10.0);
        check(rc == 0 && q0 == 0 && s->aqd == 2, "adams_restart_order2",
              "order before the first step after restart %d (0: start), of that step %d",
              q0, s->aqd);
        {
            const long n0 = s->naccept - 1;
            while (rc == RT_ODE_OK && s->aq < 5 && s->naccept - n0 < 100)
                rc = rt_ode_step(s, t0 + 10.0);
            nfev_restart = s->nfev - nf0;
            check(rc == 0 && s->aq >= 5 && nfev_restart <= 50, "adams_restart_ramp",
                  "after restart (rtol 1e-9): order 5 reached at t+%.3g after %ld steps, "
                  "%ld RHS evaluations", s->t - t0, s->naccept - n0, nfev_restart);
        }
    }
    rt_ode_free(s);
}

/* FMU state at the solver level: history saved at a step end and loaded into another
   object after rt_ode_restart continues bit for bit; saved inside a step (a CS step
   reaching past a communication point), the shifted history continues accurately */
static void test_adams_save_restore(void)
{
    double x0[4], *hist = (double *)calloc(rt_ode_hist_len(4), sizeof(double));
    const double T = 2.0 * 3.14159265358979323846;
    int k, ok = 1, loaded = 1;
    double errmid = 0.0;
    kepler_x0(x0);
    for (k = 0; k < 3; k++) {
        RtOde *s = rt_ode_new(&rt_ode_adams, 4, f_kepler, NULL, NULL, NULL, NULL);
        RtOde *r = rt_ode_new(&rt_ode_adams, 4, f_kepler, NULL, NULL, NULL, NULL);
        double xs[4], ts, hs;
        int nst = 0;
        s->rtol = r->rtol = 1e-8; s->atol = r->atol = 1e-8;
        rt_ode_restart(s, 0.0, x0, 0.0);
        while (s->t < T && rt_ode_step(s, T) == RT_ODE_OK && ++nst < 5 + 40 * k) {}
        rt_ode_hist_save(s, s->t, hist);
        ts = s->t; hs = s->h;
        memcpy(xs, s->x, sizeof xs);
        while (s->t < T) rt_ode_step(s, T);
        /* a used object */
        rt_ode_restart(r, 0.0, x0, 0.0);
        while (r->t < 1.0) rt_ode_step(r, 1.0);
        rt_ode_restart(r, ts, xs, hs);
        if (!rt_ode_hist_load(r, hist)) loaded = 0;
        while (r->t < T) rt_ode_step(r, T);
        if (memcmp(r->x, s->x, sizeof xs) != 0) ok = 0;
        rt_ode_free(s);
        rt_ode_free(r);
    }
    check(ok && loaded, "adams_save_restore_bit_identical", "saved after 5, 45, 85 steps");
    {   /* inside a step: shift to the middle of the last step, continue */
        RtOde *s = rt_ode_new(&rt_ode_adams, 4, f_kepler, NULL, NULL, NULL, NULL);
        double xm[4], xref[4], dev = 0.0;
        int nst = 0, i;
        s->rtol = 1e-9; s->atol = 1e-9;
        run(&rt_ode_adams, f_kepler, NULL, NULL, 4, x0, 0.0, T, 1e-9, 1e-9, xref, NULL, NULL);
        rt_ode_restart(s, 0.0, x0, 0.0);
        while (rt_ode_step(s, T) == RT_ODE_OK && ++nst < 60) {}
        {
            const double tm = 0.5 * (s->t_old + s->t), hs = s->h;
            rt_ode_dense(s, tm, xm);
            rt_ode_hist_save(s, tm, hist);
            rt_ode_restart(s, tm, xm, hs);
            loaded = rt_ode_hist_load(s, hist);
            nst = (int)s->nfev;
            while (s->t < T) rt_ode_step(s, T);
            errmid = kepler_err(s->x);
            for (i = 0; i < 4; i++) dev = fmax(dev, fabs(s->x[i] - xref[i]));
        }
        check(loaded && dev < 1e-6 && errmid < 1e-5, "adams_save_inside_step",
              "history shifted to the middle of a step, continued: err after one period %.2e, "
              "%.2e from the uninterrupted run", errmid, dev);
        rt_ode_free(s);
    }
    {   /* one-step methods and an empty record: nothing to load */
        RtOde *s = rt_ode_new(&rt_ode_dopri5, 4, f_kepler, NULL, NULL, NULL, NULL);
        rt_ode_restart(s, 0.0, x0, 0.0);
        rt_ode_step(s, 1.0);
        rt_ode_hist_save(s, s->t, hist);
        check(hist[0] == 0.0 && !rt_ode_hist_load(s, hist), "hist_empty_for_one_step_methods", "");
        rt_ode_free(s);
    }
    free(hist);
}

static void test_spectral_radius(void)
{
    /* [0 1; -1e6 -10]: eigenvalues -5 +- i*999.99, rho = 1000 (complex pair);
       diag(-3, 2, 0.5): rho 3 */
    double J1[4] = {0, -1e6, 1, -10}, J2[9] = {-3, 0, 0, 0, 2, 0, 0, 0, 0.5};
    double v[3], w[3];
    const double r1 = rt_ode_spectral_radius(2, J1, v, w);
    const double r2 = rt_ode_spectral_radius(3, J2, v, w);
    check(fabs(r1 / 1000.0 - 1) < 0.3 && fabs(r2 / 3.0 - 1) < 0.1, "spectral_radius_estimate",
          "rho %.4g (exact 1000, complex pair), %.4g (exact 3)", r1, r2);
}

static void test_lu(void)
{
    /* 4x4 needing pivoting (zero leading entry) */
    double A[16] = {0, 2, 1, 4, 1, 0, 3, 1, 2, 1, 0, 5, 3, 3, 1, 0}; /* column-major */
    double A0[16], b[4] = {1, 2, 3, 4}, x[4], r = 0;
    int piv[4], i, j, rc;
    double S[4] = {1, 2, 2, 4};  /* singular: columns dependent */
    int p2[2];
    memcpy(A0, A, sizeof A);
    memcpy(x, b, sizeof b);
    rc = rt_lu_factor(4, A, piv);
    rt_lu_solve(4, A, piv, x);
    for (i = 0; i < 4; i++) {
        double s = 0;
        for (j = 0; j < 4; j++) s += A0[i + j * 4] * x[j];
        r = fmax(r, fabs(s - b[i]));
    }
    check(rc == 0 && r < 1e-13, "lu_pivoting", "residual %.2e", r);
    check(rt_lu_factor(2, S, p2) != 0, "lu_singular_detected", "");
}

/* ---- sparse (RCM + banded) LU against the dense LU ---- */
static unsigned rng_state = 12345u;
static double rnd(void)   /* uniform in [0, 1) */
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (double)((rng_state >> 8) & 0xFFFFFFu) / 16777216.0;
}

/* dense column-major n x n -> CCS pattern + values (entries != 0) */
static int to_ccs(int n, const double *A, int *colind, int *row, double *val)
{
    int i, j, k = 0;
    for (j = 0; j < n; j++) {
        colind[j] = k;
        for (i = 0; i < n; i++)
            if (A[i + j * n] != 0.0) { row[k] = i; val[k] = A[i + j * n]; k++; }
    }
    colind[n] = k;
    return k;
}

/* One case: A = P B P^T with B banded (bandwidths bl, bu, random entries, zero diagonal
   where zero_diag: pivoting needed) and P a random permutation, so the band is only
   found by the reordering.  Compares rt_band_solve with rt_lu_solve. */
static void band_case(int n, int bl, int bu, int zero_diag, int force, const char *tag)
{
    double *B = calloc((size_t)n * n, sizeof(double)), *A = calloc((size_t)n * n, sizeof(double));
    double *LU = calloc((size_t)n * n, sizeof(double)), *val = calloc((size_t)n * n, sizeof(double));
    double *x1 = calloc(n, sizeof(double)), *x2 = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double));
    int *p = calloc(n, sizeof(int)), *piv = calloc(n, sizeof(int));
    int *colind = calloc(n + 1, sizeof(int)), *row = calloc((size_t)n * n, sizeof(int));
    int i, j, rc1, rc2;
    double err = 0, scale = 0, res = 0;
    RtBand *bd;
    for (i = 0; i < n; i++) p[i] = i;
    for (i = n - 1; i > 0; i--) { int k = (int)(rnd() * (i + 1)), t = p[i]; p[i] = p[k]; p[k] = t; }
    for (j = 0; j < n; j++)
        for (i = j - bu; i <= j + bl; i++)
            if (i >= 0 && i < n && rnd() < 0.7) B[i + j * n] = rnd() * 2 - 1;
    for (j = 0; j < n; j++) B[j + j * n] = zero_diag ? 0.0 : B[j + j * n] + 4.0;
    if (zero_diag)   /* regular, but only with row interchanges: dominant 2x2 anti-diagonal blocks */
        for (j = 0; j + 1 < n; j += 2) { B[j + 1 + j * n] = 4.0 + rnd(); B[j + (j + 1) * n] = 4.0 + rnd(); }
    for (j = 0; j < n; j++)
        for (i = 0; i < n; i++) A[p[i] + p[j] * n] = B[i + j * n];
    to_ccs(n, A, colind, row, val);
    for (i = 0; i < n; i++) b[i] = x1[i] = x2[i] = rnd() - 0.5;
    memcpy(LU, A, (size_t)n * n * sizeof(double));
    rc1 = rt_lu_factor(n, LU, piv);
    rt_lu_solve(n, LU, piv, x1);
    bd = rt_band_new(n, colind, row, force, NULL, NULL);
    if (!bd) { check(0, tag, "no band plan"); goto out; }
    rt_band_load(bd, colind, row, val, -1.0, 0.0);
    rc2 = rt_band_factor(bd);
    rt_band_solve(bd, x2);
    for (i = 0; i < n; i++) {
        double s = 0;
        for (j = 0; j < n; j++) s += A[i + j * n] * x2[j];
        res = fmax(res, fabs(s - b[i]));
        err = fmax(err, fabs(x1[i] - x2[i]));
        scale = fmax(scale, fabs(x1[i]));
    }
    check(rc1 == 0 && rc2 == 0 && err <= 1e-10 * (1 + scale) && res < 1e-10, tag,
          "n=%d kl=%d ku=%d |x_band-x_dense|=%.2e residual=%.2e", n, bd->kl, bd->ku, err, res);
    rt_band_free(bd);
out:
    free(B); free(A); free(LU); free(val); free(x1); free(x2); free(b); free(p); free(piv);
    free(colind); free(row);
}

static void test_band_lu(void)
{
    int k;
    for (k = 0; k < 5; k++) band_case(60 + 13 * k, 1 + k % 3, 2 - k % 2, 0, 0, "band_lu_random");
    for (k = 0; k < 5; k++) band_case(50 + 7 * k, 2, 1 + k % 2, 1, 0, "band_lu_pivoting");
    band_case(12, 11, 11, 0, 1, "band_lu_dense_pattern_forced");
    band_case(12, 11, 11, 1, 1, "band_lu_dense_pattern_pivoting");
    {   /* block-diagonal 2x2 blocks (oscillators): bandwidth 1 after reordering */
        int n = 200, i, colind[201], row[400], nnz = 0, j;
        RtBand *bd;
        for (j = 0; j < n; j++) {       /* states x_1..x_m, v_1..v_m: x_i' = v_i, v_i' = -k x_i - d v_i */
            colind[j] = nnz;
            if (j < n / 2) row[nnz++] = j + n / 2;          /* d v_j / d x_j */
            else { row[nnz++] = j - n / 2; row[nnz++] = j; }
        }
        colind[n] = nnz;
        bd = rt_band_new(n, colind, row, 0, NULL, NULL);
        check(bd && bd->kl <= 1 && bd->ku <= 1, "band_rcm_oscillators", "kl=%d ku=%d",
              bd ? bd->kl : -1, bd ? bd->ku : -1);
        rt_band_free(bd);
        (void)i;
    }
    {   /* arrow pattern: no narrow band -> NULL (dense LU used) */
        int n = 64, colind[65], row[64 * 3], nnz = 0, j;
        for (j = 0; j < n; j++) {
            colind[j] = nnz;
            if (j == 0) { int i; for (i = 0; i < n; i++) row[nnz++] = i; }
            else { row[nnz++] = 0; row[nnz++] = j; }
        }
        colind[n] = nnz;
        check(rt_band_new(n, colind, row, 0, NULL, NULL) == NULL, "band_refuses_arrow", "");
    }
    {   /* singular: detected */
        double A[4] = {1, 2, 2, 4}, val[4];
        int colind[3], row[4];
        RtBand *bd;
        to_ccs(2, A, colind, row, val);
        bd = rt_band_new(2, colind, row, 1, NULL, NULL);
        rt_band_load(bd, colind, row, val, -1.0, 0.0);
        check(rt_band_factor(bd) != 0, "band_singular_detected", "");
        rt_band_free(bd);
    }
}

/* ---- RODAS4 / auto with a sparse (banded) Jacobian against the dense one ---- */
#define OSC_M 60            /* oscillators: states x_1..x_M, v_1..v_M */
static int osc_colind[2 * OSC_M + 1], osc_row[3 * OSC_M];
static double osc_k(int i) { return 1.0 + 1000.0 * i; }   /* stiff: |lambda| up to ~250 */
static int f_oscs(void *u, double t, const double *x, double *dx)
{
    int i;
    (void)u; (void)t;
    for (i = 0; i < OSC_M; i++) { dx[i] = x[OSC_M + i]; dx[OSC_M + i] = -osc_k(i) * x[i] - 0.4 * x[OSC_M + i]; }
    return 0;
}
static int j_oscs(void *u, double t, const double *x, const double *fx, double *J)
{
    const int n = 2 * OSC_M;
    int i;
    (void)u; (void)t; (void)x; (void)fx;
    memset(J, 0, (size_t)n * n * sizeof(double));
    for (i = 0; i < OSC_M; i++) {
        J[OSC_M + i + i * n] = -osc_k(i);
        J[i + (OSC_M + i) * n] = 1.0;
        J[OSC_M + i + (OSC_M + i) * n] = -0.4;
    }
    return 0;
}
static int jnz_oscs(void *u, double t, const double *x, const double *fx, double *J)
{
    int i;
    (void)u; (void)t; (void)x; (void)fx;
    for (i = 0; i < OSC_M; i++) {          /* column x_i: row v_i; column v_i: rows x_i, v_i */
        J[osc_colind[i]] = -osc_k(i);
        J[osc_colind[OSC_M + i]] = 1.0;
        J[osc_colind[OSC_M + i] + 1] = -0.4;
    }
    return 0;
}

static void test_sparse_rodas(void)
{
    const int n = 2 * OSC_M;
    const RtOdeMethod *ms[2] = {&rt_ode_rodas4, &rt_ode_auto};
    double x0[2 * OSC_M], xd[2 * OSC_M], xs[2 * OSC_M], xf[2 * OSC_M];
    int i, nnz = 0, mi;
    for (i = 0; i < n; i++) {
        osc_colind[i] = nnz;
        if (i < OSC_M) osc_row[nnz++] = OSC_M + i;
        else { osc_row[nnz++] = i - OSC_M; osc_row[nnz++] = i; }
    }
    osc_colind[n] = nnz;
    for (i = 0; i < n; i++) x0[i] = i < OSC_M ? 1.0 : 0.0;
    for (mi = 0; mi < 2; mi++) {
        RtOde *sd = rt_ode_new(ms[mi], n, f_oscs, j_oscs, NULL, NULL, NULL);
        RtOde *ss = rt_ode_new_sparse(ms[mi], n, f_oscs, j_oscs, jnz_oscs, osc_colind, osc_row, NULL, NULL, NULL);
        RtOde *sf = rt_ode_new_sparse(ms[mi], n, f_oscs, j_oscs, NULL, osc_colind, osc_row, NULL, NULL, NULL);
        RtOde *all[3] = {sd, ss, sf};
        double *out[3] = {xd, xs, xf}, e1 = 0, e2 = 0, ex = 0;
        int q, rc = 0;
        for (q = 0; q < 3; q++) {
            RtOde *s = all[q];
            s->rtol = 1e-8; s->atol = 1e-10;
            rt_ode_restart(s, 0.0, x0, 0.0);
            while (s->t < 1.0 && rc == 0) rc = rt_ode_step(s, 1.0);
            memcpy(out[q], s->x, sizeof xd);
        }
        for (i = 0; i < OSC_M; i++) {   /* closed form of x_i(1) */
            const double k = osc_k(i), a = 0.2, w = sqrt(k - a * a);
            const double xe = exp(-a) * (cos(w) + a / w * sin(w));
            e1 = fmax(e1, fabs(xs[i] - xd[i]));
            e2 = fmax(e2, fabs(xf[i] - xd[i]));
            ex = fmax(ex, fabs(xs[i] - xe));
        }
        check(rc == 0 && sd->band == NULL && ss->band != NULL && sf->band != NULL && ss->band->kl <= 1 &&
              sf->sp_ncolor <= 3 && e1 < 1e-7 && e2 < 1e-6 && ex < 1e-5,
              mi ? "sparse_auto_matches_dense" : "sparse_rodas4_matches_dense",
              "band kl=%d ku=%d colours=%d |sparse-dense|=%.2e |fd-dense|=%.2e |sparse-exact|=%.2e",
              ss->band ? ss->band->kl : -1, ss->band ? ss->band->ku : -1, sf->sp_ncolor, e1, e2, ex);
        rt_ode_free(sd); rt_ode_free(ss); rt_ode_free(sf);
    }
}

int main(void)
{
    test_sparse_rodas();
    test_lu();
    test_band_lu();
    test_nominal_and_jac_fallback();
    test_order(&rt_ode_dopri5, 5, "dopri5");
    test_order(&rt_ode_rodas4, 4, "rodas4");
    test_order_pr_rodas4();
    test_adams_fixed_orders();
    test_order_vs_tol(&rt_ode_dopri5, 5.0, "dopri5");
    test_tolerance(&rt_ode_dopri5, "dopri5");
    test_tolerance(&rt_ode_rodas4, "rodas4");
    test_dense(&rt_ode_dopri5, "dopri5");
    test_dense(&rt_ode_rodas4, "rodas4");
    test_stiff_linear();
    test_vdp();
    test_failures(&rt_ode_dopri5, "dopri5");
    test_failures(&rt_ode_rodas4, "rodas4");
    test_tolerance(&rt_ode_adams, "adams");
    test_dense(&rt_ode_adams, "adams");
    test_failures(&rt_ode_adams, "adams");
    test_adams_vs_dopri5();
    test_adams_bounds_restart();
    test_adams_save_restore();
    test_tolerance(&rt_ode_auto, "auto");
    test_dense(&rt_ode_auto, "auto");
    test_failures(&rt_ode_auto, "auto");
    check(rt_ode_method(RT_ODE_AUTO) == &rt_ode_auto && rt_ode_method(1) == &rt_ode_dopri5 &&
          rt_ode_method(2) == &rt_ode_rodas4 && rt_ode_method(3) == &rt_ode_adams &&
          rt_ode_method(4) == NULL && rt_ode_method(-1) == NULL, "method_registry", "");
    test_spectral_radius();
    test_auto_nonstiff();
    test_auto_chooses_by_cost();
    test_auto_vdp();
    test_auto_switch_both_ways();
    test_auto_save_restore();
    printf("RESULT passed=%d failed=%d\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
