/*
 * rt_auto.c -- solver method 0 ("auto"): LSODA-style automatic switching between the
 * explicit methods DOPRI5 (rt_dopri5.c) and Adams (rt_adams.c), chosen by their measured
 * cost on the same interval, and the L-stable Rosenbrock RODAS4 (rt_rodas4.c) where the
 * problem is stiff.  The design (cost probes, stiffness tests, thresholds, hysteresis,
 * what is kept in the FMU state) is documented in rt_ode.h.
 *
 * Work layout (multiples of n): DOPRI5's 12 | RODAS4's 12 | power iteration 2 | Adams'
 * RT_ADAMS_NWORK (30), plus RODAS4's matrices (J, LU, pivots) and the probe's snapshot
 * (pr_save); see rt_ode_new().
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
    s->dp_back = 0;
    s->pr_cand = 0;   /* a pending probe's span compared the method left */
    s->pr_vote = 0;
}

void rt_ode_auto_reset(RtOde *s)
{
    if (s->method->id != RT_ODE_AUTO) return;
    use(s, &rt_ode_adams);
    s->last_sub = s->sub;
    s->stiff_hlam = 0.0;
    s->backoff = 0;
    s->pr_level = 0;
    s->pr_count = PROBE_FIRST;
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

/* stiff steps needed for a switch at the current back-off level: Adams' to DOPRI5, and
   DOPRI5's to RODAS4 times kappa / 2 where that is above 1 (at most the count of the last
   level): RODAS4 stays at least EASY_COUNT steps once it is there, each kappa DOPRI5 steps'
   worth, so the evidence asked for grows with what a look costs (the 61-state rotor,
   kappa ~ 8: four looks of 15 steps at contact phases that RODAS4 found not stiff cost 9 %
   of its run when 15 stiff steps sent it there) */
static int stiff_needed(const RtOde *s, const RtOdeMethod *m)
{
    const int most = STIFF_COUNT << STIFF_BACKOFF_MAX;
    int k = STIFF_COUNT << s->backoff;
    if (m == &rt_ode_dopri5) {
        const double w = 0.5 * rt_ode_auto_kappa(s);
        if (w > 1.0) k = w * k < most ? (int)(w * k) : most;
    }
    return k;
}

int rt_ode_auto_save(const RtOde *s, int *count)
{
    *count = 0;
    if (s->method->id != RT_ODE_AUTO) return 0;
    *count = s->pr_count;
    return (s->sub == &rt_ode_rodas4 ? 1 : 0) | (s->n_stiff << AUTO_CODE_STIFF_SHIFT) |
           (s->n_nonstiff << AUTO_CODE_NONSTIFF_SHIFT) | (s->n_easy << AUTO_CODE_EASY_SHIFT) |
           (s->backoff << AUTO_CODE_BACKOFF_SHIFT) |
           ((s->sub == &rt_ode_dopri5 ? 1 : 0) << AUTO_CODE_DOPRI5_SHIFT) |
           (s->pr_level << AUTO_CODE_LEVEL_SHIFT) | (s->dp_back << AUTO_CODE_BACK_SHIFT) |
           (s->pr_vote << AUTO_CODE_VOTE_SHIFT);
}

void rt_ode_auto_load(RtOde *s, int code, int count)
{
    int ns, nn, ne, bo, lv;
    if (s->method->id != RT_ODE_AUTO) return;
    rt_ode_auto_reset(s);
    ns = (code >> AUTO_CODE_STIFF_SHIFT) & 1023;
    nn = (code >> AUTO_CODE_NONSTIFF_SHIFT) & 7;
    ne = (code >> AUTO_CODE_EASY_SHIFT) & 15;
    bo = (code >> AUTO_CODE_BACKOFF_SHIFT) & 7;
    lv = (code >> AUTO_CODE_LEVEL_SHIFT) & 7;
    if (code < 0 || code >= AUTO_CODE_LIMIT || bo > STIFF_BACKOFF_MAX ||
        ns >= STIFF_COUNT << STIFF_BACKOFF_MAX || nn >= STIFF_FORGET || ne >= EASY_COUNT ||
        lv > PROBE_LEVEL_MAX || ((code & 1) && (code >> AUTO_CODE_DOPRI5_SHIFT) & 1) ||
        count < 0 || count > (PROBE_EVERY << lv))
        return;
    s->sub = (code & 1) ? &rt_ode_rodas4 :
             ((code >> AUTO_CODE_DOPRI5_SHIFT) & 1) ? &rt_ode_dopri5 : &rt_ode_adams;
    s->backoff = bo;
    if (ns >= stiff_needed(s, s->sub)) {   /* (a count it would have switched at) */
        rt_ode_auto_reset(s);
        return;
    }
    s->n_stiff = ns;
    s->n_nonstiff = nn;
    s->n_easy = ne;
    s->backoff = bo;
    s->pr_level = lv;
    s->pr_count = count;
    s->dp_back = s->sub == &rt_ode_dopri5 ? (code >> AUTO_CODE_BACK_SHIFT) & 1 : 0;
    s->pr_vote = s->sub != &rt_ode_rodas4 ? (code >> AUTO_CODE_VOTE_SHIFT) & 1 : 0;
}

/* Adams from the current point: after a DOPRI5 step, from its continuous extension (order
   4, the derivatives of the polynomial through the step, a step ADAMS_WARM_H times
   DOPRI5's) instead of afresh -- a fresh start climbs through orders 2, 3, ... with small
   steps, which costs it the first ~20 steps; else (after a restart or RODAS4) afresh */
static void adams_start(RtOde *s)
{
    if (s->last_sub == &rt_ode_dopri5 && s->t > s->t_old && s->fsal_valid) {
        double *c = s->pr_save + RT_ODE_PROBE_HDR + 3 * (size_t)RT_ODE_N(s);
        const double hd = s->t - s->t_old;
        rt_dopri5_taylor(s, c);
        rt_adams_warm(s, c, 4, hd, hd * ADAMS_WARM_H);
    } else {
        s->aq = 0;
    }
}

/* hand over to m after an accepted step: keep h, drop the controller history */
static void switch_to(RtOde *s, const RtOdeMethod *m, const char *why)
{
    use(s, m);
    s->sw_why = why;
    s->nswitch++;
    s->first_step = 1;
    s->err_old = 1e-4;
    s->jac_valid = 0;
    if (m == &rt_ode_adams) adams_start(s);
}

/* one step of sub-method m; Adams at ADAMS_TOL of the tolerances (its error at a given
   tolerance is several times Dormand-Prince's: the accuracy auto gives stays at least
   Dormand-Prince's, rt_ode.h) */
static int sub_step(RtOde *s, const RtOdeMethod *m, double t_bound)
{
    if (m == &rt_ode_adams) {
        const double rtol = s->rtol, atol = s->atol;
        int rc;
        s->rtol = rtol * ADAMS_TOL;
        s->atol = atol * ADAMS_TOL;
        rc = m->step(s, t_bound);
        s->rtol = rtol;
        s->atol = atol;
        return rc;
    }
    return m->step(s, t_bound);
}

/* A step's evaluations as the probes count them: an accuracy-limited Adams step's
   (h rho < ADAMS_CALM, the estimate its own step left in stiff_hlam) at ADAMS_EQUAL.  Auto
   runs Adams at ADAMS_TOL = 1e-3 of the tolerances so that it is never less accurate than
   Dormand-Prince at them; where Adams' step is set by accuracy this makes it ~100x more
   accurate (dry mechanisms: Adams at 1e-3 of rtol 1e-5 / 1e-7 ends 8e-6 / 1.2e-5 of the
   orbit's range from the reference, Dormand-Prince at rtol 1e-3 / 1.9e-3), and Adams at that
   accuracy would need about half the evaluations (h ~ tol^(1/(q+1)), q ~ 5: 100^(1/6) ~ 2).
   Counted in full, Adams lost comparisons it wins at equal accuracy (hybrid mechanism: 1.4x
   the evaluations of Adams alone at rtol 1e-8, with 80x the orbit error).  Where Adams' step
   is set by stability (h rho >= ADAMS_CALM: the rotor, a lubricated film) the tolerance moves
   its cost little and its evaluations count in full. */
static double probe_cost(const RtOde *s, const RtOdeMethod *m, long nfev)
{
    return (double)nfev * (m == &rt_ode_adams && s->stiff_hlam < ADAMS_CALM ? ADAMS_EQUAL : 1.0);
}

/* the next probe further off (a probe that kept the method, or one an event cut short) */
static void probe_later(RtOde *s)
{
    if (s->pr_level < PROBE_LEVEL_MAX) s->pr_level++;
    s->pr_count = PROBE_EVERY << s->pr_level;
}

/* The probe: from the current accepted point, the other explicit method starts as it would
   after a switch (Adams from DOPRI5's last step), takes PROBE_WARM_* steps to settle,
   then PROBE_STEPS_* more whose cost and span [pr_t0, pr_tend] are kept; then the solver is
   put back exactly as it was (the statistics excepted: they count the work).  The stepping
   method's cost over the same span is measured as it goes on (pr_cost_main), and decide()
   compares the two: the methods' costs per unit of time where both have settled, on the
   same stretch of the trajectory (a contact phase and free flight differ more than the
   methods do).  The cost is right-hand-side evaluations: the per-step work of both methods is
   small beside them (hybrid mechanism, Adams: the model 58 % of a run, Adams' prediction,
   correction and error norm 13 %), and counting evaluations, not the model's instruction
   counts (cost_f), lets two builds of the same equations (a monolithic model and its
   composition) decide alike. */
static void probe(RtOde *s, double t_bound)
{
    const int n = RT_ODE_N(s);
    const size_t nb = (size_t)n * sizeof(double);
    const RtOdeMethod *cand = s->sub == &rt_ode_adams ? &rt_ode_dopri5 : &rt_ode_adams;
    const int nwarm = cand == &rt_ode_adams ? PROBE_WARM_ADAMS : PROBE_WARM_DOPRI5;
    const int nsteps = nwarm + (cand == &rt_ode_adams ? PROBE_STEPS_ADAMS : PROBE_STEPS_DOPRI5);
    double *xs = s->pr_save + RT_ODE_PROBE_HDR;
    double cost = 0.0, t0 = s->t, t_end;
    long nfev, njev, nstep, naccept, nreject, nlu;
    int rc = RT_ODE_OK, k, cut = 0;
    memcpy(s->pr_save, s, sizeof *s);
    memcpy(xs, s->x, nb);
    memcpy(xs + n, s->x_old, nb);
    memcpy(xs + 2 * n, s->fx, nb);
    s->sub = cand;
    s->h = 0.0;
    s->first_step = 1;
    s->err_old = 1e-4;
    s->last_rejected = 0;
    if (cand == &rt_ode_adams) adams_start(s);
    if (s->t_probe > t_bound) t_bound = s->t_probe;   /* speculative: may look further */
    for (k = 0; k < nsteps && s->t < t_bound; k++) {
        const long nf = s->nfev;
        rc = sub_step(s, cand, t_bound);
        if (rc != RT_ODE_OK) break;
        if (s->probe_cut && s->probe_cut(s->user)) {   /* an event within the span: the
                                                          stepping method stops there */
            cut = 1;
            break;
        }
        if (k == nwarm - 1) t0 = s->t;
        else if (k >= nwarm) cost += probe_cost(s, cand, s->nfev - nf);
    }
    t_end = s->t;
    nfev = s->nfev; njev = s->njev; nstep = s->nstep; naccept = s->naccept;
    nreject = s->nreject; nlu = s->nlu;
    memcpy(s, s->pr_save, sizeof *s);
    memcpy(s->x, xs, nb);
    memcpy(s->x_old, xs + n, nb);
    memcpy(s->fx, xs + 2 * n, nb);
    s->nfev = nfev; s->njev = njev; s->nstep = nstep; s->naccept = naccept;
    s->nreject = nreject; s->nlu = nlu;
    s->nprobe++;
    if (cut) {
        probe_later(s);   /* as a span an event cut short (rt_ode_auto_span_cut) */
    } else if (rc == RT_ODE_OK && k >= nwarm + PROBE_STEPS_MIN && t_end > t0) {
        s->pr_cand = cand->id;
        s->pr_t0 = t0;
        s->pr_tend = t_end;
        s->pr_cost_cand = cost;
        s->pr_cost_main = 0.0;
    } else {
        s->pr_count = PROBE_FIRST;   /* failed, or t_bound too close: again later */
    }
}

/* compare the probed method's cost cand with the stepping method's main over the same
   span: the cheaper one goes on (at once if it costs less than half, else at the second
   finding in a row) */
static void decide(RtOde *s, double cand, double main)
{
    const RtOdeMethod *m = rt_ode_method(s->pr_cand);
    s->pr_cand = 0;
    if (cand < PROBE_SURE * main) {
        switch_to(s, m, "less than half the cost on the same span");
    } else if (cand < PROBE_GAIN * main) {
        if (s->pr_vote) switch_to(s, m, "cheaper on the same span, twice in a row");
        else s->pr_vote = 1;
    } else {
        s->pr_vote = 0;
        probe_later(s);
        return;
    }
    s->pr_count = PROBE_EVERY << s->pr_level;
}

void rt_ode_auto_span_cut(RtOde *s, double t)
{
    /* a restart (event) at t inside a probe's span: the comparison over [pr_t0, t], the
       probed method's cost taken as uniform over its span, the stepping method's as summed
       up to its last step (scaled back to t); too short a part (< 1/4) is dropped, and the
       next probe waits as after a probe that kept the method (pr_level up): Adams settles
       some steps after an event, and a probe then, at the next probe count, ended in the
       next event of a contact phase (hybrid mechanism, rtol 1e-5: 17 of 21 probes dropped,
       ~2 300 evaluations, 22 % of the run, when the next probe came PROBE_FIRST steps
       later) */
    const double span = s->pr_tend - s->pr_t0;
    const double done = (t < s->pr_tend ? t : s->pr_tend) - s->pr_t0;
    const double reach = (s->t < s->pr_tend ? s->t : s->pr_tend) - s->pr_t0;
    if (s->method->id != RT_ODE_AUTO || !s->pr_cand) return;
    if (span > 0.0 && done >= 0.25 * span && reach > 0.0) {
        decide(s, s->pr_cost_cand * done / span,
               s->pr_cost_main * (done < reach ? done / reach : 1.0));
    } else {
        s->pr_cand = 0;
        probe_later(s);
    }
}

static int auto_step(RtOde *s, double t_bound)
{
    const RtOdeMethod *m;
    long nacc, nf;
    int rc;
    if (s->pr_count <= 0 && s->sub != &rt_ode_rodas4 && !s->dp_back && !s->pr_cand &&
        s->t < t_bound && s->stiff_hlam < PROBE_CALM &&
        !(s->sub == &rt_ode_adams && (s->aq == 0 || s->aramp)))
        /* (not while Adams is still starting: it is compared where it has settled) */
        probe(s, t_bound);
    m = s->sub;
    nacc = s->naccept;
    nf = s->nfev;
    rc = sub_step(s, m, t_bound);
    if (rc == RT_ODE_HMIN && m == &rt_ode_adams) {
        /* Adams runs at ADAMS_TOL of the tolerances: across a jump of the right-hand side
           that no event reports (noEvent), its order-1 step needs h |jump| below that
           tolerance, which can be below hmin (rtol 1e-9: 1e-12 and atol 1e-15, a jump of 1
           at t ~ 0.3).  DOPRI5 at the user's tolerance passes it: hand over from the last
           accepted point (Adams comes back when DOPRI5 finds the problem easy, dp_back) */
        switch_to(s, &rt_ode_dopri5, "Adams step size underflow at 1e-3 of the tolerance "
                  "(a discontinuity without an event)");
        s->dp_back = 1;
        s->h = 0.0;
        s->msg[0] = '\0';
        m = s->sub;
        nacc = s->naccept;
        nf = s->nfev;
        rc = sub_step(s, m, t_bound);
    }
    if (rc != RT_ODE_OK || s->naccept == nacc) return rc;   /* failed or nothing to do */
    s->last_sub = m;
    if (s->pr_cand) {   /* a probe's span pending: this method's cost over it (the part of
                           the step inside the span) */
        const double a = s->t_old > s->pr_t0 ? s->t_old : s->pr_t0;
        const double b = s->t < s->pr_tend ? s->t : s->pr_tend;
        if (b > a) s->pr_cost_main += probe_cost(s, m, s->nfev - nf) * (b - a) /
                                      (s->t - s->t_old);
        if (s->t >= s->pr_tend) decide(s, s->pr_cost_cand, s->pr_cost_main);
    }
    if (m == &rt_ode_dopri5 || m == &rt_ode_adams) {
        /* DOPRI5: h|lambda| against its boundary 3.3; Adams: h rho against 0.9 of 2, the
           largest boundary of its orders (rt_adams.c) */
        const int stiff = s->stiff_hlam > (m == &rt_ode_dopri5 ? STIFF_HLAM : ADAMS_STIFF);
        if (stiff) {
            s->n_nonstiff = 0;
            if (++s->n_stiff >= stiff_needed(s, m)) {
                if (m == &rt_ode_dopri5) {
                    switch_to(s, &rt_ode_rodas4, "stiff: h*|lambda| > 3.25 on 15 steps");
                } else {   /* to DOPRI5, whose own test goes on to RODAS4 if the problem is
                              stiff; if it does not find it stiff, back to Adams (dp_back) */
                    switch_to(s, &rt_ode_dopri5, "Adams stability-limited on 15 steps");
                    s->dp_back = 1;
                }
            }
        } else if (s->n_stiff > 0 && ++s->n_nonstiff >= STIFF_FORGET) {
            s->n_stiff = s->n_nonstiff = 0;
        }
        if (s->sub == m && m == &rt_ode_dopri5 && s->dp_back) {   /* back to Adams? */
            if (stiff) {
                s->n_easy = 0;
            } else if (++s->n_easy >= EASY_COUNT) {
                switch_to(s, &rt_ode_adams, "not stiff for DOPRI5 on 15 steps");
                if (s->backoff < STIFF_BACKOFF_MAX) s->backoff++;
            }
        }
        if (s->sub == m && s->n_stiff == 0 && !s->pr_cand && s->pr_count > 0) s->pr_count--;
    } else {
        const int n = RT_ODE_N(s);
        double *v = s->wk[RT_ODE_AUTO], *w = v + n;
        const double kappa = rt_ode_auto_kappa(s);
        const double easy = 2.0 * kappa > EASY_HRHO ? 2.0 * kappa : EASY_HRHO;
        const double rho = s->band ? rt_ode_spectral_radius_sparse(n, s->sp_colind, s->sp_row, s->J, v, w)
                                   : rt_ode_spectral_radius(n, s->J, v, w);
        if (s->h_last * rho < easy) {
            if (++s->n_easy >= EASY_COUNT) {
                switch_to(s, &rt_ode_dopri5, "non-stiff: h*rho(J) < max(2, 2 kappa) on 15 steps");
                if (s->backoff < STIFF_BACKOFF_MAX) s->backoff++;
            }
        } else {
            s->n_easy = 0;
            if (s->h_last * rho > STIFF_SURE * easy) s->backoff = 0;   /* (rt_ode.h) */
        }
    }
    return rc;
}

static void auto_dense(const RtOde *s, double t, double *out)
{
    s->last_sub->dense(s, t, out);
}

const RtOdeMethod rt_ode_auto = {
    "auto (Dormand-Prince 5(4) / Adams by cost, RODAS4 where stiff)", RT_ODE_AUTO, 5, 4,
    12 + 12 + 2 + RT_ADAMS_NWORK, 1, auto_step, auto_dense
};
