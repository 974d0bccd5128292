/*
 * rt_auto.c -- solver method 0 ("auto"): LSODA-style automatic switching between the
 * explicit DOPRI5 (rt_dopri5.c) and the L-stable Rosenbrock RODAS4 (rt_rodas4.c).
 * The design (stiffness tests, thresholds, hysteresis, what is kept in the FMU state)
 * is documented in rt_ode.h.
 *
 * Work layout (multiples of n): DOPRI5's 12 | RODAS4's 12 | power iteration 2 = 26,
 * plus RODAS4's matrices (J, LU, pivots); see rt_ode_new().
 */
#include <math.h>
#include <string.h>
#include "rt_ode.h"
#include "rt_linalg.h"

#define POWER_IT 12          /* power iterations per estimate                             */
#define POWER_SKIP 4         /* ... the growth of the first ones is ignored               */

double rt_ode_spectral_radius(int n, const double *J, double *v, double *w)
{
    double logsum = 0.0;
    int it, i, j;
    /* fixed, generic start vector: deterministic (bit-identical restarts) and with
       components along every eigenvector in practice */
    for (i = 0; i < n; i++) v[i] = 1.0 + 0.5 * sin(1.0 + 2.0 * i);
    for (it = 0; it < POWER_IT; it++) {
        double nv = 0.0, nw = 0.0;
        for (i = 0; i < n; i++) { w[i] = 0.0; nv = fmax(nv, fabs(v[i])); }
        for (j = 0; j < n; j++) {
            const double vj = v[j];
            const double *col = J + (size_t)j * (size_t)n;
            if (vj != 0.0) for (i = 0; i < n; i++) w[i] += col[i] * vj;
        }
        for (i = 0; i < n; i++) nw = fmax(nw, fabs(w[i]));
        if (!(nw > 0.0) || !isfinite(nw) || !(nv > 0.0)) {
            /* J v = 0 (nilpotent / zero matrix: rho = 0) or overflow (rho huge) */
            return isfinite(nw) ? 0.0 : INFINITY;
        }
        if (it >= POWER_SKIP) logsum += log(nw / nv);
        for (i = 0; i < n; i++) v[i] = w[i] / nw;
    }
    return exp(logsum / (POWER_IT - POWER_SKIP));
}

double rt_ode_spectral_radius_sparse(int n, const int *colind, const int *row,
                                     const double *J, double *v, double *w)
{
    double logsum = 0.0;
    int it, i, j, k;
    for (i = 0; i < n; i++) v[i] = 1.0 + 0.5 * sin(1.0 + 2.0 * i);
    for (it = 0; it < POWER_IT; it++) {
        double nv = 0.0, nw = 0.0;
        for (i = 0; i < n; i++) { w[i] = 0.0; nv = fmax(nv, fabs(v[i])); }
        for (j = 0; j < n; j++) {
            const double vj = v[j];
            if (vj != 0.0) for (k = colind[j]; k < colind[j + 1]; k++) w[row[k]] += J[k] * vj;
        }
        for (i = 0; i < n; i++) nw = fmax(nw, fabs(w[i]));
        if (!(nw > 0.0) || !isfinite(nw) || !(nv > 0.0))
            return isfinite(nw) ? 0.0 : INFINITY;
        if (it >= POWER_SKIP) logsum += log(nw / nv);
        for (i = 0; i < n; i++) v[i] = w[i] / nw;
    }
    return exp(logsum / (POWER_IT - POWER_SKIP));
}

static void use(RtOde *s, const RtOdeMethod *m)
{
    s->sub = m;
    s->n_stiff = s->n_nonstiff = s->n_easy = 0;
}

void rt_ode_auto_reset(RtOde *s)
{
    if (s->method->id != RT_ODE_AUTO) return;
    use(s, &rt_ode_dopri5);
    s->last_sub = s->sub;
    s->stiff_hlam = 0.0;
    s->backoff = 0;
}

double rt_ode_auto_kappa(const RtOde *s)
{
    const double n = (double)s->n;
    const double cf = s->cost_f > 0 ? s->cost_f : 20.0 * n + 50.0;
    const double cj = s->cost_jac > 0 ? s->cost_jac : n * cf;
    const double dopri = 6.0 * cf + 50.0 * n;
    double rodas = 7.0 * cf + cj + 2.0 * n * n * n / 3.0 + 36.0 * n * n;
    if (s->band) {   /* banded LU: factor n kl (kl+ku), six solves of n (2kl+ku+1) */
        const double kl = (double)s->band->kl, ku = (double)s->band->ku;
        rodas = 7.0 * cf + (s->cost_jac > 0 ? s->cost_jac : s->sp_ncolor * cf) +
                2.0 * n * kl * (kl + ku) + 12.0 * n * (2.0 * kl + ku + 1.0) + 2.0 * s->sp_nnz;
    }
    return rodas / dopri;
}

/* stiff DOPRI5 steps needed for a switch to RODAS4 at the current back-off level */
static int stiff_needed(const RtOde *s)
{
    return STIFF_COUNT << s->backoff;
}

int rt_ode_auto_save(const RtOde *s)
{
    if (s->method->id != RT_ODE_AUTO) return 0;
    return (s->sub == &rt_ode_rodas4 ? 1 : 0) | (s->n_stiff << AUTO_CODE_STIFF_SHIFT) |
           (s->n_nonstiff << AUTO_CODE_NONSTIFF_SHIFT) | (s->n_easy << AUTO_CODE_EASY_SHIFT) |
           (s->backoff << AUTO_CODE_BACKOFF_SHIFT);
}

void rt_ode_auto_load(RtOde *s, int code)
{
    int ns, nn, ne, bo;
    if (s->method->id != RT_ODE_AUTO) return;
    rt_ode_auto_reset(s);
    ns = (code >> AUTO_CODE_STIFF_SHIFT) & 1023;
    nn = (code >> AUTO_CODE_NONSTIFF_SHIFT) & 7;
    ne = (code >> AUTO_CODE_EASY_SHIFT) & 15;
    bo = (code >> AUTO_CODE_BACKOFF_SHIFT) & 7;
    if (code < 0 || code >= AUTO_CODE_LIMIT || bo > STIFF_BACKOFF_MAX ||
        ns >= (STIFF_COUNT << bo) || nn >= STIFF_FORGET || ne >= EASY_COUNT)
        return;
    s->sub = (code & 1) ? &rt_ode_rodas4 : &rt_ode_dopri5;
    s->n_stiff = ns;
    s->n_nonstiff = nn;
    s->n_easy = ne;
    s->backoff = bo;
}

/* hand over to m after an accepted step: keep h, drop the controller history */
static void switch_to(RtOde *s, const RtOdeMethod *m)
{
    use(s, m);
    s->nswitch++;
    s->first_step = 1;
    s->err_old = 1e-4;
    s->jac_valid = 0;
}

static int auto_step(RtOde *s, double t_bound)
{
    const RtOdeMethod *m = s->sub;
    const long nacc = s->naccept;
    const int rc = m->step(s, t_bound);
    if (rc != RT_ODE_OK || s->naccept == nacc) return rc;   /* failed or nothing to do */
    s->last_sub = m;
    if (m == &rt_ode_dopri5) {
        if (s->stiff_hlam > STIFF_HLAM) {
            s->n_nonstiff = 0;
            if (++s->n_stiff >= stiff_needed(s)) switch_to(s, &rt_ode_rodas4);
        } else if (s->n_stiff > 0 && ++s->n_nonstiff >= STIFF_FORGET) {
            s->n_stiff = s->n_nonstiff = 0;
        }
    } else {
        const int n = RT_ODE_N(s);
        double *v = s->wk[RT_ODE_AUTO], *w = v + n;
        const double kappa = rt_ode_auto_kappa(s);
        const double easy = 2.0 * kappa > EASY_HRHO ? 2.0 * kappa : EASY_HRHO;
        const double rho = s->band ? rt_ode_spectral_radius_sparse(n, s->sp_colind, s->sp_row, s->J, v, w)
                                   : rt_ode_spectral_radius(n, s->J, v, w);
        if (s->h_last * rho < easy) {
            if (++s->n_easy >= EASY_COUNT) {
                switch_to(s, &rt_ode_dopri5);
                if (s->backoff < STIFF_BACKOFF_MAX) s->backoff++;
            }
        } else {
            s->n_easy = 0;
        }
    }
    return rc;
}

static void auto_dense(const RtOde *s, double t, double *out)
{
    s->last_sub->dense(s, t, out);
}

const RtOdeMethod rt_ode_auto = {
    "auto (Dormand-Prince 5(4) / RODAS4 stiffness switching)", RT_ODE_AUTO, 5, 4,
    12 + 12 + 2, 1, auto_step, auto_dense
};
