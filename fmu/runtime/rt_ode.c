/*
 * rt_ode.c -- registry and shared helpers of the embedded ODE solvers (rt_ode.h).
 *
 * Error norm: weighted RMS, w_i = atol*nominal_i + rtol*max(|x_old_i|, |x_new_i|)
 * (nominal_i = s->atol_scale[i], the state's nominal magnitude, default 1), a step is
 * accepted when the norm of the embedded error estimate is <= 1 (Hairer-Wanner).
 * Initial step: the standard heuristic of Hairer/Norsett/Wanner (Solving ODEs I,
 * II.4): h0 = 0.01*|x|/|f|, refined with one explicit Euler step to estimate the
 * second derivative, so the first step is neither absurdly small nor large.
 * Finite-difference Jacobian: forward differences, one column per state, with
 * increment sqrt(eps)*max(|x_j|, 1e-5*nominal_j) (machine-number exact: xj+d-xj).
 * A user Jacobian that returns -1 or contains NaN/Inf is replaced by differences.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "rt_ode.h"
#include "rt_linalg.h"

#define RT_EPS 2.220446049250313e-16

const RtOdeMethod *rt_ode_method(int id)
{
    switch (id) {
    case RT_ODE_AUTO:   return &rt_ode_auto;
    case RT_ODE_DOPRI5: return &rt_ode_dopri5;
    case RT_ODE_RODAS4: return &rt_ode_rodas4;
    case RT_ODE_ADAMS:  return &rt_ode_adams;
    default:            return NULL;
    }
}

static void *default_calloc(size_t a, size_t b) { return calloc(a, b); }
static void default_free(void *p) { free(p); }

/* greedy column groups for differences: columns of one group share no row */
static int color_columns(RtOde *s)
{
    const int n = s->n, *colind = s->sp_colind, *row = s->sp_row;
    int *rstart = (int *)s->mem_calloc((size_t)n + 1, sizeof(int));
    int *rcols = (int *)s->mem_calloc((size_t)(s->sp_nnz > 0 ? s->sp_nnz : 1), sizeof(int));
    int *fill = (int *)s->mem_calloc((size_t)n + 1, sizeof(int));
    int *mark = (int *)s->mem_calloc((size_t)n + 1, sizeof(int));
    int i, j, k, q, rc = -1;
    s->sp_color = (int *)s->mem_calloc((size_t)n, sizeof(int));
    if (!rstart || !rcols || !fill || !mark || !s->sp_color) goto done;
    for (k = 0; k < s->sp_nnz; k++) rstart[row[k] + 1]++;
    for (i = 0; i < n; i++) rstart[i + 1] += rstart[i];
    for (j = 0; j < n; j++)
        for (k = colind[j]; k < colind[j + 1]; k++) rcols[rstart[row[k]] + fill[row[k]]++] = j;
    for (i = 0; i < n; i++) mark[i] = -1;
    s->sp_ncolor = 0;
    for (j = 0; j < n; j++) {
        int c = 0;
        for (k = colind[j]; k < colind[j + 1]; k++)   /* colours of earlier columns sharing a row */
            for (q = rstart[row[k]]; q < rstart[row[k] + 1]; q++)
                if (rcols[q] < j) mark[s->sp_color[rcols[q]]] = j;
        while (mark[c] == j) c++;
        s->sp_color[j] = c;
        if (c + 1 > s->sp_ncolor) s->sp_ncolor = c + 1;
    }
    rc = 0;
done:
    if (rstart) s->mem_free(rstart);
    if (rcols) s->mem_free(rcols);
    if (fill) s->mem_free(fill);
    if (mark) s->mem_free(mark);
    return rc;
}

RtOde *rt_ode_new(const RtOdeMethod *m, int n, rt_rhs_fn f, rt_jac_fn jac, void *user,
                  void *(*mem_calloc)(size_t, size_t), void (*mem_free)(void *))
{
    return rt_ode_new_sparse(m, n, f, jac, NULL, NULL, NULL, user, mem_calloc, mem_free);
}

RtOde *rt_ode_new_sparse(const RtOdeMethod *m, int n, rt_rhs_fn f, rt_jac_fn jac,
                         rt_jac_fn jacnz, const int *colind, const int *row, void *user,
                         void *(*mem_calloc)(size_t, size_t), void (*mem_free)(void *))
{
    RtOde *s;
    size_t nn = (size_t)n;
    if (!m || n < 1 || !f) return NULL;
#if defined(RT_ODE_FIXED_N) && RT_ODE_FIXED_N > 0
    if (n != RT_ODE_FIXED_N) return NULL;   /* compiled for another size (rt_ode.h) */
#endif
    if (!mem_calloc || !mem_free) { mem_calloc = default_calloc; mem_free = default_free; }
    s = (RtOde *)mem_calloc(1, sizeof(RtOde));
    if (!s) return NULL;
    if (m->usejac && colind && row)
        s->band = rt_band_new(n, colind, row, 0, mem_calloc, mem_free);
    s->mem_calloc = mem_calloc;
    s->mem_free = mem_free;
    s->method = m;
    s->n = n;
    s->f = f;
    s->jac = jac;
    s->user = user;
    s->rtol = 1e-6;
    s->atol = 1e-9;
    s->x = (double *)mem_calloc(nn, sizeof(double));
    s->x_old = (double *)mem_calloc(nn, sizeof(double));
    s->fx = (double *)mem_calloc(nn, sizeof(double));
    s->work = (double *)mem_calloc(m->nwork * nn, sizeof(double));
    if (s->band) {
        s->sp_colind = colind;
        s->sp_row = row;
        s->sp_nnz = colind[n];
        s->jacnz = jacnz;
        s->J = (double *)mem_calloc((size_t)(s->sp_nnz > 0 ? s->sp_nnz : 1), sizeof(double));
        if (!s->J || color_columns(s) != 0) { rt_ode_free(s); return NULL; }
    } else if (m->usejac) {
        s->J = (double *)mem_calloc(nn * nn, sizeof(double));
        s->LU = (double *)mem_calloc(nn * nn, sizeof(double));
        s->piv = (int *)mem_calloc(nn, sizeof(int));
    }
    if (!s->x || !s->x_old || !s->fx || !s->work ||
        (m->usejac && !s->band && (!s->J || !s->LU || !s->piv))) {
        rt_ode_free(s);
        return NULL;
    }
    {
        int k;
        for (k = 0; k < RT_ODE_NMETHODS; k++) s->wk[k] = s->work;
        if (m->id == RT_ODE_AUTO) {   /* rt_auto.c: [DOPRI5 12n | RODAS4 12n | power it. 2n |
                                         Adams RT_ADAMS_NWORK n], and the probe's snapshot */
            s->wk[RT_ODE_RODAS4] = s->work + rt_ode_dopri5.nwork * nn;
            s->wk[RT_ODE_AUTO] = s->wk[RT_ODE_RODAS4] + rt_ode_rodas4.nwork * nn;
            s->wk[RT_ODE_ADAMS] = s->wk[RT_ODE_AUTO] + 2 * nn;
            s->pr_save = (double *)mem_calloc(RT_ODE_PROBE_HDR + 8 * nn, sizeof(double));
            if (!s->pr_save) { rt_ode_free(s); return NULL; }
        }
    }
    s->sub = s->last_sub = m->id == RT_ODE_AUTO ? &rt_ode_adams : m;
    s->first_step = 1;
    s->pr_count = PROBE_FIRST;
    return s;
}

void rt_ode_free(RtOde *s)
{
    void (*fr)(void *);
    if (!s) return;
    fr = s->mem_free;
    if (s->x) fr(s->x);
    if (s->x_old) fr(s->x_old);
    if (s->fx) fr(s->fx);
    if (s->work) fr(s->work);
    if (s->J) fr(s->J);
    if (s->LU) fr(s->LU);
    if (s->piv) fr(s->piv);
    if (s->sp_color) fr(s->sp_color);
    if (s->pr_save) fr(s->pr_save);
    rt_band_free(s->band);
    fr(s);
}

void rt_ode_restart(RtOde *s, double t, const double *x, double h_hint)
{
    if (s->pr_cand) rt_ode_auto_span_cut(s, t);   /* auto: a probe's span ends here */
    memcpy(s->x, x, (size_t)s->n * sizeof(double));
    memcpy(s->x_old, x, (size_t)s->n * sizeof(double));
    s->t = s->t_old = t;
    s->fsal_valid = 0;
    s->jac_valid = 0;
    s->h = h_hint > 0.0 ? h_hint : 0.0;
    s->h_last = 0.0;
    s->err_old = 1e-4;
    s->first_step = 1;
    s->last_rejected = 0;
    s->aq = 0;              /* Adams: the history is not valid across a restart */
    s->msg[0] = '\0';
    s->abort_code = 0;
}

int rt_ode_step(RtOde *s, double t_bound) { return s->method->step(s, t_bound); }

/* largest work space of a method, in multiples of n */
static size_t live_nwork(void)
{
    const RtOdeMethod *m[] = { &rt_ode_auto, &rt_ode_dopri5, &rt_ode_rodas4, &rt_ode_adams };
    size_t k, w = 0;
    for (k = 0; k < sizeof m / sizeof m[0]; k++) if (m[k]->nwork > w) w = m[k]->nwork;
    return w;
}

size_t rt_ode_live_len(int n)
{
    return RT_ODE_LIVE_HDR + (3 + live_nwork()) * (size_t)(n > 0 ? n : 1);
}

/* The record's header: 0 valid (1), 1 method id, 2 n, 11 sub id, 12 last_sub id, and the
   scalar fields of LIVE_FIELDS at their indices (X(index, field, type)); then x, x_old, fx
   (n each) and the work space.  One list for save and load. */
#define LIVE_FIELDS \
    X(3, t, double) X(4, t_old, double) X(5, h, double) X(6, h_last, double) \
    X(7, err_old, double) X(8, first_step, int) X(9, last_rejected, int) \
    X(10, fsal_valid, int) X(13, stiff_hlam, double) X(14, n_stiff, int) \
    X(15, n_nonstiff, int) X(16, n_easy, int) X(17, backoff, int) X(18, aq, int) \
    X(19, aqd, int) X(20, await, int) X(21, aramp, int) X(22, acur, int) \
    X(23, ahz, double) X(24, aerrprev, double) X(25, pr_count, int) X(26, pr_level, int) \
    X(27, pr_cand, int) X(28, pr_t0, double) X(29, pr_tend, double) \
    X(30, pr_cost_cand, double) X(31, pr_cost_main, double) X(32, dp_back, int) \
    X(33, pr_vote, int)

void rt_ode_live_save(const RtOde *s, double *buf)
{
    const size_t nn = (size_t)s->n;
    memset(buf, 0, rt_ode_live_len(s->n) * sizeof(double));
    buf[0] = 1.0;
    buf[1] = s->method->id;
    buf[2] = s->n;
    buf[11] = s->sub->id;
    buf[12] = s->last_sub->id;
#define X(i, f, T) buf[i] = s->f;
    LIVE_FIELDS
#undef X
    buf += RT_ODE_LIVE_HDR;
    memcpy(buf, s->x, nn * sizeof(double));
    memcpy(buf + nn, s->x_old, nn * sizeof(double));
    memcpy(buf + 2 * nn, s->fx, nn * sizeof(double));
    memcpy(buf + 3 * nn, s->work, s->method->nwork * nn * sizeof(double));
}

static int is_int_in(double v, int lo, int hi)
{
    return v >= lo && v <= hi && v == (double)(int)v;
}

int rt_ode_live_load(RtOde *s, const double *buf)
{
    const size_t nn = (size_t)s->n;
    const RtOdeMethod *sub, *last_sub;
    if (buf[0] != 1.0 || buf[1] != (double)s->method->id || buf[2] != (double)s->n) return 0;
    if (!isfinite(buf[3]) || !isfinite(buf[4]) || !(buf[4] <= buf[3]) || !(buf[5] >= 0.0) ||
        !isfinite(buf[5]) || !isfinite(buf[6]) || !isfinite(buf[7]) || !isfinite(buf[13]) ||
        !isfinite(buf[23]) || !isfinite(buf[24]) ||
        !is_int_in(buf[8], 0, 1) || !is_int_in(buf[9], 0, 1 << 30) || !is_int_in(buf[10], 0, 1) ||
        !is_int_in(buf[11], 0, RT_ODE_NMETHODS - 1) || !is_int_in(buf[12], 0, RT_ODE_NMETHODS - 1) ||
        /* the auto method's counters within what its steps leave (rt_ode_auto_load) */
        !is_int_in(buf[17], 0, STIFF_BACKOFF_MAX) ||
        !is_int_in(buf[14], 0, (STIFF_COUNT << (int)buf[17]) - 1) ||
        !is_int_in(buf[15], 0, STIFF_FORGET - 1) || !is_int_in(buf[16], 0, EASY_COUNT - 1) ||
        !is_int_in(buf[18], 0, RT_ADAMS_QMAX) || !is_int_in(buf[19], 0, RT_ADAMS_QMAX) ||
        !is_int_in(buf[20], -1, RT_ADAMS_QMAX + 3) || !is_int_in(buf[21], 0, 1) ||
        !is_int_in(buf[22], 0, 1) ||
        /* the auto method's probe: its schedule and a pending span */
        !is_int_in(buf[26], 0, PROBE_LEVEL_MAX) ||
        !is_int_in(buf[25], 0, PROBE_EVERY << (int)buf[26]) ||
        !(buf[27] == 0.0 || buf[27] == RT_ODE_DOPRI5 || buf[27] == RT_ODE_ADAMS) ||
        !isfinite(buf[28]) || !isfinite(buf[29]) || !(buf[28] <= buf[29]) ||
        !(buf[30] >= 0.0) || !isfinite(buf[30]) || !(buf[31] >= 0.0) || !isfinite(buf[31]) ||
        !is_int_in(buf[32], 0, 1) || !is_int_in(buf[33], 0, 1))
        return 0;
    sub = rt_ode_method((int)buf[11]);
    last_sub = rt_ode_method((int)buf[12]);
    if (s->method->id == RT_ODE_AUTO) {   /* the auto method steps with its sub-methods */
        if (sub == &rt_ode_auto || last_sub == &rt_ode_auto ||
            (buf[27] != 0.0 && (buf[27] == sub->id || sub == &rt_ode_rodas4))) return 0;
    } else if (sub != s->method || last_sub != s->method) {
        return 0;
    }
#define X(i, f, T) s->f = (T)buf[i];
    LIVE_FIELDS
#undef X
    s->jac_valid = 0;
    s->sub = sub;
    s->last_sub = last_sub;
    s->alq = 0;              /* Adams' coefficients: recomputed for the order */
    s->msg[0] = '\0';
    s->abort_code = 0;
    buf += RT_ODE_LIVE_HDR;
    memcpy(s->x, buf, nn * sizeof(double));
    memcpy(s->x_old, buf + nn, nn * sizeof(double));
    memcpy(s->fx, buf + 2 * nn, nn * sizeof(double));
    memcpy(s->work, buf + 3 * nn, s->method->nwork * nn * sizeof(double));
    return 1;
}

void rt_ode_dense(const RtOde *s, double t, double *out)
{
    if (s->t == s->t_old) { memcpy(out, s->x, (size_t)s->n * sizeof(double)); return; }
    if (t < s->t_old) t = s->t_old;
    if (t > s->t) t = s->t;
    s->method->dense(s, t, out);
}

void rt_ode_reset_stats(RtOde *s)
{
    s->nfev = s->njev = s->nstep = s->naccept = s->nreject = s->nlu = s->nswitch = 0;
}

double rt_ode_hmin(const RtOde *s, double t)
{
    double h = 1e-14 * (fabs(t) > 1.0 ? fabs(t) : 1.0);
    if (s->h_min_user > h) h = s->h_min_user;
    return h;
}

/* A double is not finite when its exponent bits are all set: then adding one unit of the
   lowest exponent bit to them carries into the sign bit, which no finite value's can reach.
   Integer operations only (and, add, or), which the compiler vectorises: on the rotor's 57
   states a third of the instructions of an isfinite per value. */
int rt_ode_all_finite(int n, const double *x)
{
    const unsigned long long expo = 0x7ff0000000000000ULL, low = 0x0010000000000000ULL;
    unsigned long long acc = 0;
    int i;
    for (i = 0; i < n; i++) {
        unsigned long long b;
        memcpy(&b, x + i, sizeof b);
        acc |= (b & expo) + low;
    }
    return !(acc >> 63);
}

double rt_ode_err_norm(const RtOde *s, const double *e, const double *a, const double *b)
{
    int i;
    double sum = 0.0;
    const int n = RT_ODE_N(s);
    for (i = 0; i < n; i++) {
        double aa = fabs(a[i]), bb = fabs(b[i]);
        double w = s->atol * (s->atol_scale ? s->atol_scale[i] : 1.0) +
                   s->rtol * (aa > bb ? aa : bb);
        double r = e[i] / w;
        sum += r * r;
    }
    sum = sqrt(sum / n);
    return isfinite(sum) ? sum : INFINITY;   /* NaN error -> reject */
}

int rt_ode_call_f(RtOde *s, double t, const double *x, double *dx)
{
    int rc;
    s->nfev++;
    rc = s->f(s->user, t, x, dx);
    if (rc < 0) { s->abort_code = rc; return rc; }
    if (rc > 0) return rc;
    return s->f_checks_finite || rt_ode_all_finite(RT_ODE_N(s), dx) ? 0 : 1;
}

double rt_ode_clamp_start(const RtOde *s, double t_bound, double h)
{
    const double span = fabs(t_bound - s->t);
    if (h > span) h = span;
    if (s->hmax > 0 && h > s->hmax) h = s->hmax;
    return h;
}

double rt_ode_trial_h0(RtOde *s, double t_bound, double *tmp1, double *tmp2, int *ok)
{
    const int n = RT_ODE_N(s);
    const double d0 = rt_ode_err_norm(s, s->x, s->x, s->x), d1 = rt_ode_err_norm(s, s->fx, s->x, s->x);
    const double h0 = rt_ode_clamp_start(s, t_bound, (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1);
    int i;
    for (i = 0; i < n; i++) tmp1[i] = s->x[i] + h0 * s->fx[i];
    *ok = rt_ode_call_f(s, s->t + h0, tmp1, tmp2) == 0;
    if (*ok) for (i = 0; i < n; i++) tmp2[i] -= s->fx[i];
    return h0;
}

double rt_ode_initial_h(RtOde *s, double t_bound, double *tmp1, double *tmp2)
{
    int ok;
    const double h0 = rt_ode_trial_h0(s, t_bound, tmp1, tmp2, &ok);
    double h;
    if (!ok) {
        h = h0 * 0.01;       /* cannot evaluate there: be careful */
    } else {
        const double d1 = rt_ode_err_norm(s, s->fx, s->x, s->x);
        const double d2 = rt_ode_err_norm(s, tmp2, s->x, s->x) / h0;
        const double dm = d1 > d2 ? d1 : d2;
        const double h1 = dm <= 1e-15 ? (h0 * 1e-3 > 1e-6 ? h0 * 1e-3 : 1e-6)
                                      : pow(0.01 / dm, 1.0 / (s->sub->order + 1));
        h = 100 * h0 < h1 ? 100 * h0 : h1;
    }
    h = rt_ode_clamp_start(s, t_bound, h);
    if (!(h > 0)) h = rt_ode_hmin(s, s->t) * 10;
    return h;
}

int rt_ode_jacobian(RtOde *s, double t, const double *x, const double *fx,
                    double *tmp1, double *tmp2)
{
    const int n = RT_ODE_N(s);
    int i, j, rc;
    s->njev++;
    if (s->band) {   /* sparse: the nonzeros only; differences by column groups */
        const int *colind = s->sp_colind, *row = s->sp_row;
        int c, k;
        if (s->jacnz) {
            rc = s->jacnz(s->user, t, x, fx, s->J);
            if (rc == 0 && rt_ode_all_finite(s->sp_nnz, s->J)) return 0;
            if (rc != 0 && rc != -1) { if (rc < 0) s->abort_code = rc; return rc; }
        }
        memcpy(tmp1, x, (size_t)n * sizeof(double));
        for (c = 0; c < s->sp_ncolor; c++) {
            for (j = 0; j < n; j++)
                if (s->sp_color[j] == c) {
                    const double floor_j = 1e-5 * (s->atol_scale ? s->atol_scale[j] : 1.0);
                    tmp1[j] = x[j] + sqrt(RT_EPS) * (fabs(x[j]) > floor_j ? fabs(x[j]) : floor_j);
                }
            rc = rt_ode_call_f(s, t, tmp1, tmp2);
            for (j = 0; j < n; j++)
                if (s->sp_color[j] == c) {
                    const double d = tmp1[j] - x[j];   /* exactly representable increment */
                    tmp1[j] = x[j];
                    if (rc == 0)
                        for (k = colind[j]; k < colind[j + 1]; k++)
                            s->J[k] = (tmp2[row[k]] - fx[row[k]]) / d;
                }
            if (rc != 0) return rc;
        }
        return 0;
    }
    if (s->jac) {
        rc = s->jac(s->user, t, x, fx, s->J);
        /* a non-finite analytic Jacobian falls back to differences as well */
        if (rc == 0 && rt_ode_all_finite(n * n, s->J)) return 0;
        if (rc != 0 && rc != -1) { if (rc < 0) s->abort_code = rc; return rc; }
    }
    /* forward differences */
    memcpy(tmp1, x, (size_t)n * sizeof(double));
    for (j = 0; j < n; j++) {
        const double xj = x[j];
        const double floor_j = 1e-5 * (s->atol_scale ? s->atol_scale[j] : 1.0);
        double d = sqrt(RT_EPS) * (fabs(xj) > floor_j ? fabs(xj) : floor_j);
        tmp1[j] = xj + d;
        d = tmp1[j] - xj;          /* exactly representable increment */
        rc = rt_ode_call_f(s, t, tmp1, tmp2);
        tmp1[j] = xj;
        if (rc != 0) return rc;
        for (i = 0; i < n; i++) s->J[i + j * n] = (tmp2[i] - fx[i]) / d;
    }
    return 0;
}

double rt_ode_clamp_h(const RtOde *s, double h, double t_bound, int *last)
{
    const double rem = t_bound - s->t;
    if (s->hmax > 0 && h > s->hmax) h = s->hmax;
    *last = 0;
    if (h >= rem || rem - h < rt_ode_hmin(s, t_bound)) { h = rem; *last = 1; }
    return h;
}

int rt_ode_ensure_fsal(RtOde *s)
{
    int rc;
    if (s->fsal_valid) return RT_ODE_OK;
    rc = rt_ode_call_f(s, s->t, s->x, s->fx);
    if (rc < 0) {
        snprintf(s->msg, sizeof s->msg, "model evaluation aborted (code %d) at t=%.17g",
                 rc, s->t);
        return RT_ODE_ABORT;
    }
    if (rc > 0) {
        snprintf(s->msg, sizeof s->msg,
                 "derivatives cannot be evaluated (error or NaN/Inf) at the start point "
                 "t=%.17g", s->t);
        return RT_ODE_HMIN;
    }
    s->fsal_valid = 1;
    return RT_ODE_OK;
}

int rt_ode_abort(RtOde *s, double t)
{
    snprintf(s->msg, sizeof s->msg, "model evaluation aborted (code %d) near t=%.17g",
             s->abort_code, t);
    return RT_ODE_ABORT;
}

int rt_ode_reject(RtOde *s, double h_new, const char *why)
{
    const double hmin = rt_ode_hmin(s, s->t);
    s->nreject++;
    s->last_rejected = 1;
    if (!(h_new >= hmin)) {   /* also NaN */
        snprintf(s->msg, sizeof s->msg,
                 "step size underflow at t=%.17g (h=%.3g < hmin=%.3g): %s",
                 s->t, h_new, hmin, why);
        s->h = hmin;
        return RT_ODE_HMIN;
    }
    s->h = h_new;
    return RT_ODE_OK;
}
