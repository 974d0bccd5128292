/*
 * ct_eval.c -- the container's evaluation (container.h): the model_api.h functions that
 * compute the right-hand side (mdl_deriv, mdl_eval, mdl_initialize, mdl_zc, mdl_jac,
 * mdl_set_start) by calling the components' fmi2 functions through pointers, and the
 * helpers the event code shares (value transfer, the action list, states in/out, leaving
 * event mode, the recovery snapshots).
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <string.h>

#include "container.h"

/* ------------------------------------------------------------------------- */
/* value transfer: runs of one type become one fmi2Set* / fmi2Get* call, or in
   continuous time one call of the component's fast entry points (ct_fast.h)   */

static int run_length(const CtVal *vals, int n)
{
    int j = 1;
    while (j < n && vals[j].type == vals[0].type) j++;
    return j;
}

/* the fast path can take the call: its values have a fast path (need, from the tables
   d->actNeed and d->outNeed: the component has fast entry points and the values are Real ones
   they take) and the components are in continuous time (the container's phase is theirs) */
static int fast_here(const CtData *d, int need)
{
    return need != CT_FAST_NEED_SLOW && d->phase == CT_PH_CT;
}

/* memcmp(a, b, n doubles) == 0, inline for a few states (no library call), memcmp for many */
static int same_bits(const double *a, const double *b, int n)
{
    int i;
    if (n > 8) return memcmp(a, b, (size_t)n * sizeof(double)) == 0;
    for (i = 0; i < n; i++) {
        unsigned long long x, y;
        memcpy(&x, a + i, sizeof x);
        memcpy(&y, b + i, sizeof y);
        if (x != y) return 0;
    }
    return 1;
}

/* what the container knows a component has: time t; states x (its X slice) */
static void have_time(CtComp *k, double t)
{
    k->timeSet = 1;
    k->tSet = t;
}

static void have_states(CtData *d, CtComp *k, const double *x)
{
    memcpy(d->xSet + k->info->xoff, x, (size_t)k->info->nx * sizeof(double));
    k->xValid = 1;
}

/* ct_call_end for the fast entry points, without a call when all is well */
static int fast_end(CtData *d, CtComp *k, const char *fn, double t0, int rc, double t)
{
    if (rc == 0 && !d->timing) return 0;
    return ct_call_end(d, k, fn, t0, (fmi2Status)rc, t);
}

int ct_set_values(CtData *d, CtComp *k, const CtVal *vals, int n, const double *v, double t)
{
    int i = 0;
    while (i < n) {
        const int m = run_length(vals + i, n - i);
        const int type = vals[i].type;
        const char *fn;
        fmi2Status st;
        double t0;
        int q;
        for (q = 0; q < m; q++) {
            const double x = v[vals[i + q].slot];
            d->vrbuf[q] = vals[i + q].vr;
            if (type == MT_REAL) d->rbuf[q] = x;
            else if (type == MT_INTEGER) d->ibuf[q] = (fmi2Integer)floor(x + 0.5);
            else d->bbuf[q] = x != 0.0 ? fmi2True : fmi2False;
        }
        t0 = ct_call_begin(d);
        if (type == MT_REAL) {
            fn = "fmi2SetReal";
            st = k->f.setReal(k->inst, d->vrbuf, (size_t)m, d->rbuf);
        } else if (type == MT_INTEGER) {
            fn = "fmi2SetInteger";
            st = k->f.setInteger(k->inst, d->vrbuf, (size_t)m, d->ibuf);
        } else {
            fn = "fmi2SetBoolean";
            st = k->f.setBoolean(k->inst, d->vrbuf, (size_t)m, d->bbuf);
        }
        if (ct_call_end(d, k, fn, t0, st, t)) return 1;
        i += m;
    }
    return 0;
}

int ct_get_values(CtData *d, CtComp *k, const CtVal *vals, int n, double *v, double t, int need)
{
    int i = 0;
    if (n > 0 && fast_here(d, need)) {
        /* (a list with a need is of one type: an action, or the Real outputs) */
        const double t0 = ct_call_begin(d);
        const int rc = k->fast->get(k->inst, need, vals, n, v);
        if (rc != CT_FAST_SLOW) return fast_end(d, k, "fmi2GetReal", t0, rc, t);
    }
    while (i < n) {
        const int m = run_length(vals + i, n - i);
        const int type = vals[i].type;
        const char *fn;
        fmi2Status st;
        double t0;
        int q;
        for (q = 0; q < m; q++) d->vrbuf[q] = vals[i + q].vr;
        t0 = ct_call_begin(d);
        if (type == MT_REAL) {
            fn = "fmi2GetReal";
            st = k->f.getReal(k->inst, d->vrbuf, (size_t)m, d->rbuf);
        } else if (type == MT_INTEGER) {
            fn = "fmi2GetInteger";
            st = k->f.getInteger(k->inst, d->vrbuf, (size_t)m, d->ibuf);
        } else {
            fn = "fmi2GetBoolean";
            st = k->f.getBoolean(k->inst, d->vrbuf, (size_t)m, d->bbuf);
        }
        if (ct_call_end(d, k, fn, t0, st, t)) return 1;
        for (q = 0; q < m; q++) {
            double x;
            if (type == MT_REAL) x = d->rbuf[q];
            else if (type == MT_INTEGER) x = (double)d->ibuf[q];
            else x = d->bbuf[q] ? 1.0 : 0.0;
            v[vals[i + q].slot] = x;
        }
        i += m;
    }
    return 0;
}

/* the fast path's set of action a: all its values in one call (the component writes them when
   one differs from its own, ct_fast.h; a run in one copy); if it refuses one, fmi2SetReal of
   them all (which says which) */
static int fast_set(CtData *d, CtComp *k, int a, const double *v, double t)
{
    const CtAction *A = &ct_act[a];
    const CtVal *vals = ct_act_val + A->first;
    const double t0 = ct_call_begin(d);
    const int rc = d->actRun[a] ? k->fast->setRun(k->inst, vals[0].vr, A->n, v + vals[0].slot)
                                : k->fast->set(k->inst, vals, A->n, v);
    if (rc != CT_FAST_SLOW) return fast_end(d, k, "fmi2SetReal", t0, rc, t);
    return ct_set_values(d, k, vals, A->n, v, t);
}

/* SET action a: when a value differs from what the component has (lastSet, then updated), the
   fast path sets the whole action (continuous time, not CT_MARK; the component itself compares
   each value with its own and changes nothing when all are equal), the fmi2 path the values that
   changed (collected in d->changed); with CT_MARK the component needs another event pass */
static int set_action(CtData *d, int a, const double *v, double t, int flags)
{
    const CtAction *A = &ct_act[a];
    CtComp *k = &d->comp[A->comp];
    const CtVal *vals = ct_act_val + A->first;
    double *last = d->lastSet + A->first;
    int i, m = 0;
    if (A->contig && A->n > 0 && memcmp(v + vals[0].slot, last, (size_t)A->n * sizeof(double)) == 0)
        return 0;                  /* nothing changed (e.g. a wear profile within a cycle) */
    if (!(flags & CT_MARK) && fast_here(d, d->actNeed[a])) {
        for (i = 0; i < A->n; i++) last[i] = v[vals[i].slot];
        return fast_set(d, k, a, v, t);
    }
    for (i = 0; i < A->n; i++) {
        const double x = v[vals[i].slot];
        if (x == last[i]) continue;
        last[i] = x;
        d->changed[m++] = vals[i];
    }
    if (m == 0) return 0;
    if (flags & CT_MARK) k->need = 1;
    return ct_set_values(d, k, d->changed, m, v, t);
}

/* GET action a: its values into v (a run of the fast path in one copy) */
static int get_action(CtData *d, int a, double *v, double t)
{
    const CtAction *A = &ct_act[a];
    CtComp *k = &d->comp[A->comp];
    const CtVal *vals = ct_act_val + A->first;
    if (d->actRun[a] && fast_here(d, d->actNeed[a])) {
        const double t0 = ct_call_begin(d);
        const int rc = k->fast->getRun(k->inst, d->actNeed[a], vals[0].vr, A->n, v + vals[0].slot);
        if (rc != CT_FAST_SLOW) return fast_end(d, k, "fmi2GetReal", t0, rc, t);
    }
    return ct_get_values(d, k, vals, A->n, v, t, d->actNeed[a]);
}

/* The action list (topological order, builder-checked): inputs <- v, outputs -> v.
 * Without CT_ALLTYPES only Real values move (continuous time: discrete values only change
 * in events).  With CT_MARK a component whose input value changed needs another event pass.
 * Only the inputs whose value differs from what the component has (lastSet) are set: a
 * wear profile connected to a joint stays the same over a whole cycle, its kinematics change
 * at every right-hand side. */
int ct_propagate(CtData *d, double *v, double t, int flags)
{
    int a;
    for (a = 0; a < CT_N_ACT; a++) {
        const CtAction *A = &ct_act[a];
        int rc;
        if (A->discrete && !(flags & CT_ALLTYPES)) continue;
        if (A->op == CT_SET) rc = set_action(d, a, v, t, flags);
        else rc = get_action(d, a, v, t);
        if (rc) return 1;
    }
    return 0;
}

/* Parameters and start values (CtVal.kind in kinds) whose value differs from what the
 * component has (its own start value until forwarded; NaN: unknown, always forwarded). */
int ct_forward(CtData *d, const double *v, unsigned int kinds, double t)
{
    int i, j;
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        for (j = k->info->fwdFirst; j < k->info->fwdFirst + k->info->fwdN; j++) {
            const double x = v[ct_fwd[j].slot];
            if (!(ct_fwd[j].kind & kinds)) continue;
            if (x == d->lastFwd[j]) continue;
            if (ct_set_values(d, k, &ct_fwd[j], 1, v, t)) return 1;
            d->lastFwd[j] = x;
        }
    }
    return 0;
}

/* the component's continuous states -> v (its X slice), remembered as what it has */
int ct_read_states(CtData *d, CtComp *k, double *v, double t)
{
    const CtCompInfo *ci = k->info;
    double t0;
    fmi2Status st;
    int j;
    if (ci->nx == 0) return 0;
    t0 = ct_call_begin(d);
    if (d->phase == CT_PH_INIT) {     /* by value reference (container.h: ct_state_vr) */
        st = k->f.getReal(k->inst, ct_state_vr + ci->xoff, (size_t)ci->nx, v + OFF_X + ci->xoff);
        if (ct_call_end(d, k, "fmi2GetReal", t0, st, t)) return 1;
    } else {
        st = k->f.getContinuousStates(k->inst, v + OFF_X + ci->xoff, (size_t)ci->nx);
        if (ct_call_end(d, k, "fmi2GetContinuousStates", t0, st, t)) return 1;
    }
    have_states(d, k, v + OFF_X + ci->xoff);
    /* start values of states are not forwarded again (mdl_initialize is idempotent, G4) */
    for (j = ci->fwdFirst; j < ci->fwdFirst + ci->fwdN; j++) {
        const int s = ct_fwd[j].slot;
        if (s >= OFF_X + ci->xoff && s < OFF_X + ci->xoff + ci->nx) d->lastFwd[j] = v[s];
    }
    return 0;
}

/* the component's inputs are no longer known to be lastSet (its FMU state was set back):
   the next propagation sets them all */
void ct_forget_inputs(CtData *d, const CtComp *k)
{
    int a, i;
    for (a = 0; a < CT_N_ACT; a++)
        if (ct_act[a].op == CT_SET && &d->comp[ct_act[a].comp] == k)
            for (i = 0; i < ct_act[a].n; i++) d->lastSet[ct_act[a].first + i] = NAN;
}

/* set a component that failed in continuous time back to its state after the last event */
int ct_restore(CtData *d, CtComp *k, double t)
{
    double t0;
    fmi2Status st;
    if (!k->broken) return 0;
    if (!k->snapValid) {
        rt_log(d->ctx, 3, "logStatusError", "component %s failed earlier and has no state "
               "to be set back to (t=%.17g)", k->info->name, t);
        return 1;
    }
    t0 = ct_call_begin(d);
    st = k->f.setFMUstate(k->inst, k->snap);
    k->broken = 0;
    if (ct_call_end(d, k, "fmi2SetFMUstate", t0, st, t)) {
        k->broken = 1;
        return 1;
    }
    k->timeSet = 0;
    k->xValid = 0;
    ct_forget_inputs(d, k);
    rt_log(d->ctx, 0, "logAll", "component %s set back to its state after the last event "
           "(a call had failed at a solver trial point), t=%.17g", k->info->name, t);
    return 0;
}

/* the recovery snapshots: each component's state as it enters continuous time */
void ct_snapshot(CtData *d)
{
    int i;
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        const double t0 = ct_call_begin(d);
        const fmi2Status st = k->f.getFMUstate(k->inst, &k->snap);
        k->snapValid = !ct_call_end(d, k, "fmi2GetFMUstate", t0, st, d->tEv);
    }
}

/* component k to time t and (newX) its states x in one call of its fast entry point: 0, 1
   (failed), CT_FAST_SLOW (refused, nothing changed) */
static int place_fast(CtData *d, CtComp *k, double t, const double *x, int newX)
{
    const double t0 = ct_call_begin(d);
    const int rc = k->fast->place(k->inst, t, newX ? x : NULL, (size_t)k->info->nx);
    if (rc == CT_FAST_SLOW) return rc;
    if (fast_end(d, k, "fmi2SetContinuousStates", t0, rc, t)) return 1;
    have_time(k, t);
    if (newX) have_states(d, k, x);
    return 0;
}

/* component k to time t (newT: fmi2SetTime) and its states x (newX: fmi2SetContinuousStates) */
static int place_fmi(CtData *d, CtComp *k, double t, const double *x, int newT, int newX)
{
    double t0;
    fmi2Status st;
    if (newT) {
        t0 = ct_call_begin(d);
        st = k->f.setTime(k->inst, t);
        if (ct_call_end(d, k, "fmi2SetTime", t0, st, t)) return 1;
        have_time(k, t);
    }
    if (newX) {
        k->xValid = 0;
        t0 = ct_call_begin(d);
        st = k->f.setContinuousStates(k->inst, x, (size_t)k->info->nx);
        if (ct_call_end(d, k, "fmi2SetContinuousStates", t0, st, t)) return 1;
        have_states(d, k, x);
    }
    return 0;
}

/* continuous time: every component at (t, x) (calls skipped when it has them already; time and
   states in one call of its fast entry point if it has one, through the fmi2 functions if not
   or if refused) */
int ct_states_in(CtData *d, const double *v, double t)
{
    int i;
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        const CtCompInfo *ci = k->info;
        const double *x = v + OFF_X + ci->xoff;
        int newT, newX, rc;
        if (k->broken && ct_restore(d, k, t)) return 1;
        newX = ci->nx > 0 && (!k->xValid || !same_bits(d->xSet + ci->xoff, x, ci->nx));
        if (!newX && k->timeSet && k->tSet == t) continue;        /* it has both */
        newT = !k->timeSet || k->tSet != t;
        rc = k->fast ? place_fast(d, k, t, x, newX) : CT_FAST_SLOW;
        if (rc == CT_FAST_SLOW) rc = place_fmi(d, k, t, x, newT, newX);
        if (rc) return 1;
    }
    return 0;
}

int ct_all_modes(CtData *d, int change, int need, double t)
{
    int i;
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        const char *fn;
        fmi2Status st;
        const double t0 = ct_call_begin(d);
        if (change == CT_ENTER_EVENT) {
            fn = "fmi2EnterEventMode";
            st = k->f.enterEventMode(k->inst);
        } else if (change == CT_ENTER_CT) {
            fn = "fmi2EnterContinuousTimeMode";
            st = k->f.enterContinuousTimeMode(k->inst);
        } else {
            fn = "fmi2ExitInitializationMode";
            st = k->f.exitInitializationMode(k->inst);
        }
        if (ct_call_end(d, k, fn, t0, st, t)) return 1;
        k->need = need;
    }
    return 0;
}

/* Leave event mode (lazily, container.h): discrete values that were set since the last pass
 * are passed on, every component enters continuous-time mode, snapshots are taken. */
int ct_leave_event(CtData *d, double *v, double t)
{
    if (ct_propagate(d, v, d->tEv, CT_ALLTYPES)) return 1;
    if (ct_all_modes(d, CT_ENTER_CT, 0, t)) return 1;
    d->phase = CT_PH_CT;
    ct_snapshot(d);
    return 0;
}

/* derivatives (unless CT_ZC_ONLY), indicators and (CT_OUTPUTS) the outputs into v, after the
   action list (what: CT_OUTPUTS, CT_ZC_ONLY or 0) */
int ct_finish(CtData *d, double *v, double t, int what)
{
    const int outputs = what & CT_OUTPUTS;
    int i;
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        const CtCompInfo *ci = k->info;
        /* the derivatives this evaluation reads: none when it only wants the indicators */
        const int nx = (what & CT_ZC_ONLY) ? 0 : ci->nx;
        double t0;
        fmi2Status st;
        if (k->fast && d->phase == CT_PH_CT && (nx > 0 || ci->nz > 0)) {
            int rc;
            t0 = ct_call_begin(d);
            rc = k->fast->dz(k->inst, v + OFF_DX + ci->xoff, (size_t)nx, v + OFF_ZV + ci->zoff,
                             (size_t)ci->nz);
            if (rc == CT_FAST_SLOW) goto SLOW;
            if (fast_end(d, k, nx > 0 ? "fmi2GetDerivatives" : "fmi2GetEventIndicators", t0, rc, t))
                return 1;
            goto OUTPUTS;
        }
SLOW:
        if (nx > 0 && d->phase == CT_PH_INIT) {   /* by value reference (ct_der_vr) */
            t0 = ct_call_begin(d);
            st = k->f.getReal(k->inst, ct_der_vr + ci->xoff, (size_t)ci->nx, v + OFF_DX + ci->xoff);
            if (ct_call_end(d, k, "fmi2GetReal", t0, st, t)) return 1;
        } else if (nx > 0) {
            t0 = ct_call_begin(d);
            st = k->f.getDerivatives(k->inst, v + OFF_DX + ci->xoff, (size_t)ci->nx);
            if (ct_call_end(d, k, "fmi2GetDerivatives", t0, st, t)) return 1;
        }
        if (ci->nz > 0 && d->phase != CT_PH_INIT) {   /* (none in initialization mode) */
            t0 = ct_call_begin(d);
            st = k->f.getEventIndicators(k->inst, v + OFF_ZV + ci->zoff, (size_t)ci->nz);
            if (ct_call_end(d, k, "fmi2GetEventIndicators", t0, st, t)) return 1;
        }
OUTPUTS:
        /* config.h MDL_DERIV_CHECKS_FINITE: the container's mdl_deriv refuses a NaN/Inf
           derivative (so the solver does not test all N_X again): a component whose own
           mdl_deriv does (fast path, generated model) has done it, the others are tested here,
           in the phases the solver evaluates in */
        if (nx > 0 && (d->phase == CT_PH_CT || d->phase == CT_PH_EVENT) &&
            !(k->fast && k->fast->checksFinite)) {
            const double *dx = v + OFF_DX + ci->xoff;
            int j;
            for (j = 0; j < ci->nx; j++)
                if (!isfinite(dx[j])) {
                    rt_log(d->ctx, 2, "logStatusDiscard", "component %s: the derivative of its "
                           "state %d (vr=%u) is not finite at t=%.17g", ci->name, j + 1,
                           ct_state_vr[ci->xoff + j], t);
                    return 1;
                }
        }
        if (outputs && ci->outN > 0) {
            const CtVal *vals = ct_out + ci->outFirst;
            /* continuous time: the Real ones (first, d->outReal), the discrete ones wait */
            const int n = d->phase == CT_PH_CT ? d->outReal[i] : ci->outN;
            if (n > 0 && ct_get_values(d, k, vals, n, v, t,
                                       d->phase == CT_PH_CT ? d->outNeed[i] : CT_FAST_NEED_SLOW))
                return 1;
        }
    }
    if (outputs) {
        for (i = 0; i < CT_N_COPY; i++) v[ct_copy[i].dst] = v[ct_copy[i].src];
        v[CT_SLOT_DIAG + CT_DIAG_RHS] = d->nRhs;
        v[CT_SLOT_DIAG + CT_DIAG_EVENTS] = d->nEvents;
        v[CT_SLOT_DIAG + CT_DIAG_PASSES] = d->nPasses;
        v[CT_SLOT_DIAG + CT_DIAG_CALLS] = d->nCalls;
        v[CT_SLOT_DIAG + CT_DIAG_TCOMP] = d->tComp;
        v[CT_SLOT_DIAG + CT_DIAG_TCONT] = d->tTotal - d->tComp;
    }
    return 0;
}

static int at_event(const CtData *d, const double *v, double t)
{
    int i;
    if (t != d->tEv) return 0;
    for (i = 0; i < CT_NCOMP; i++)
        if (d->comp[i].info->nx > 0 && !d->comp[i].xValid) return 0;
    return N_X == 0 || memcmp(d->xSet, v + OFF_X, (size_t)N_X * sizeof(double)) == 0;
}

/* every component at (t, v): time and states (continuous time), then the action list */
static int ct_place(CtData *d, double *v, double t)
{
    int flags = CT_ALLTYPES;
    if (d->phase == CT_PH_EVENT && !at_event(d, v, t) && ct_leave_event(d, v, t)) return 1;
    if (d->phase == CT_PH_CT) {
        if (ct_states_in(d, v, t)) return 1;
        flags = 0;
    } else if (d->phase != CT_PH_EVENT && d->phase != CT_PH_INIT) {
        rt_log(d->ctx, 3, "logStatusError", "container: no evaluation possible before the "
               "initialization or after fmi2Terminate (t=%.17g)", t);
        return 1;
    }
    return ct_propagate(d, v, t, flags);
}

/* the right-hand side at (t, v) (what: as ct_finish) */
static int ct_eval(CtData *d, double *v, double t, int what)
{
    d->nRhs += 1.0;
    if (ct_place(d, v, t)) return 1;
    return ct_finish(d, v, t, what);
}

/* ------------------------------------------------------------------------- */
/* model_api.h                                                                */

void mdl_set_start(double *v)
{
    memcpy(v, ct_start, (size_t)NV * sizeof(double));
}

int mdl_eval(double *v, double t, RtCtx *ctx)
{
    CtData *d = ct_data(ctx);
    int rc;
    ct_timed_begin(d, v);
    rc = ct_eval(d, v, t, CT_OUTPUTS);
    ct_timed_end(d);
    return rc;
}

/* z == NULL: the runtime wants the indicators for mdl_zc only (model_api.h H2): in continuous
   time each component's derivatives are left unread, so a component without indicators (the
   mechanism's body, the rotor) is not evaluated beyond the outputs the exchange needs */
int mdl_deriv(double *v, double t, double *z, RtCtx *ctx)
{
    CtData *d = ct_data(ctx);
    int rc;
    ct_timed_begin(d, v);
    rc = ct_eval(d, v, t, z || d->phase != CT_PH_CT ? 0 : CT_ZC_ONLY);
    if (rc == 0 && z) mdl_zc(v, t, z);
    ct_timed_end(d);
    return rc;
}

/* the indicators stored by the last evaluation (model_api.h H2); a component's time event
   is the indicator tNext - t (+1 while it has none) */
void mdl_zc(const double *v, double t, double *z)
{
    int i;
    for (i = 0; i < N_Z; i++) z[i] = v[OFF_ZV + i];
    for (i = 0; i < CT_NCOMP; i++) {
        const double tn = v[OFF_TNEXT + i];
        if (ct_comp[i].tev >= 0) z[ct_comp[i].tev] = isfinite(tn) ? tn - t : 1.0;
    }
}

/* out = d(unknowns)/d(knowns) * seeds for component ci: the unknowns d->ddUnknown[0 .. nu-1]
   (set by the caller), the knowns its states and the Real inputs the action list sets, the
   seeds their entries of d->dv; a call only when some seed is not zero */
static int ct_dd(CtData *d, int ci, int nu, double *out, double t)
{
    CtComp *k = &d->comp[ci];
    const CtCompInfo *info = k->info;
    int a, i, nk = 0;
    double t0;
    fmi2Status st;
    /* only the knowns with a seed: the component's product skips zero seeds anyway
       (rt_deriv.c), so the result is the same, and a wear profile of 36 inputs with zero
       seeds costs nothing per column */
    for (i = 0; i < info->nx; i++) {
        const double sd = d->dv[OFF_X + info->xoff + i];
        if (sd == 0.0) continue;
        d->ddKnown[nk] = ct_state_vr[info->xoff + i];
        d->ddSeed[nk++] = sd;
    }
    for (a = 0; a < CT_N_ACT; a++) {
        const CtAction *A = &ct_act[a];
        if (A->op != CT_SET || A->comp != ci || A->type != MT_REAL || A->discrete) continue;
        for (i = 0; i < A->n; i++) {
            const double sd = d->dv[ct_act_val[A->first + i].slot];
            if (sd == 0.0) continue;
            d->ddKnown[nk] = ct_act_val[A->first + i].vr;
            d->ddSeed[nk++] = sd;
        }
    }
    if (nk == 0) {
        for (i = 0; i < nu; i++) out[i] = 0.0;
        return 0;
    }
    t0 = ct_call_begin(d);
    st = k->f.getDirectionalDerivative(k->inst, d->ddUnknown, (size_t)nu, d->ddKnown, (size_t)nk,
                                       d->ddSeed, out);
    return ct_call_end(d, k, "fmi2GetDirectionalDerivative", t0, st, t);
}


/* The seeds in d->dv carried through the action list: each continuous Real output a component
   gives to the exchange becomes its directional derivative with respect to its states and the
   Real inputs set before it (mdl_jac per state column, mdl_ddir along any seed).  0, or the
   failing component's code. */
static int ct_dd_actions(CtData *d, double t)
{
    int a, i, rc = 0;
    for (a = 0; a < CT_N_ACT && rc == 0; a++) {
        const CtAction *A = &ct_act[a];
        const CtVal *vals = ct_act_val + A->first;
        if (A->op != CT_GET || A->type != MT_REAL || A->discrete) continue;
        for (i = 0; i < A->n; i++) d->ddUnknown[i] = vals[i].vr;
        rc = ct_dd(d, A->comp, A->n, d->ddOut, t);
        for (i = 0; i < A->n && rc == 0; i++) d->dv[vals[i].slot] = d->ddOut[i];
    }
    return rc;
}

/* The container's Jacobian d(dx)/dx, column by column: a unit seed on one state goes through
   the action list as the right-hand side does (each output read becomes a directional
   derivative of that component with respect to its states and connected inputs), then each
   component's derivatives.  Only when every component provides directional derivatives
   (else -1: the runtime's finite differences); the components are at (t, x) (G3). */
int mdl_jac(double *v, double t, double *J, RtCtx *ctx)
{
    CtData *d = ct_data(ctx);
    int col, i, rc = 0;
    (void)v;
    if (!CT_ALL_DD || d->phase != CT_PH_CT || N_X == 0) return -1;
    ct_timed_begin(d, v);
    for (col = 0; col < N_X && rc == 0; col++) {
        memset(d->dv, 0, sizeof d->dv);
        d->dv[OFF_X + col] = 1.0;
        rc = ct_dd_actions(d, t);
        for (i = 0; i < CT_NCOMP && rc == 0; i++) {
            const CtCompInfo *ci = &ct_comp[i];
            if (ci->nx == 0) continue;
            memcpy(d->ddUnknown, ct_der_vr + ci->xoff, (size_t)ci->nx * sizeof(fmi2ValueReference));
            rc = ct_dd(d, i, ci->nx, J + (size_t)col * N_X + ci->xoff, t);
        }
    }
    ct_timed_end(d);
    return rc ? 1 : 0;
}

#if MDL_HAS_DDIR
/* model_api.h mdl_ddir (config.h: MDL_HAS_DDIR = CT_ALL_DD): the directional derivative along
   the seeds of dv (states and inputs) at (t, v), through the action list as mdl_jac does for one
   state -- each output read is the directional derivative of its component with respect to its
   states and the Real inputs the action list sets -- then each component's continuous Real
   outputs (ct_out; the discrete ones: 0) and derivatives, then the copies (system outputs,
   aliases of states).  In initialization, event and continuous-time mode alike (FMI 2.0 allows
   the components' fmi2GetDirectionalDerivative in all three); the components are placed at
   (t, v) first (their values at the point are written into v again, unchanged). */
int mdl_ddir(double *v, double t, double *dv, RtCtx *ctx)
{
    CtData *d = ct_data(ctx);
    int i, j, m, rc;
    ct_timed_begin(d, v);
    rc = ct_place(d, v, t);
    if (rc == 0) memcpy(d->dv, dv, (size_t)NV * sizeof(double));
    if (rc == 0) rc = ct_dd_actions(d, t);
    for (i = 0; i < CT_NCOMP && rc == 0; i++) {
        const CtCompInfo *ci = &ct_comp[i];
        const CtVal *vals = ct_out + ci->outFirst;
        for (j = m = 0; j < ci->outN; j++)
            if (vals[j].type == MT_REAL && !vals[j].kind) d->ddUnknown[m++] = vals[j].vr;
        if (m > 0 && (rc = ct_dd(d, i, m, d->ddOut, t)) == 0)
            for (j = m = 0; j < ci->outN; j++)
                if (vals[j].type == MT_REAL && !vals[j].kind) d->dv[vals[j].slot] = d->ddOut[m++];
        if (ci->nx > 0 && rc == 0) {
            memcpy(d->ddUnknown, ct_der_vr + ci->xoff, (size_t)ci->nx * sizeof(fmi2ValueReference));
            rc = ct_dd(d, i, ci->nx, d->dv + OFF_DX + ci->xoff, t);
        }
    }
    if (rc == 0) {
        for (i = 0; i < CT_N_COPY; i++) d->dv[ct_copy[i].dst] = d->dv[ct_copy[i].src];
        memcpy(dv, d->dv, (size_t)NV * sizeof(double));
    }
    ct_timed_end(d);
    return rc ? 1 : 0;
}
#endif

int mdl_initialize(double *v, double t, RtCtx *ctx)
{
    CtData *d = ct_data(ctx);
    int i, rc = 1;
    ct_timed_begin(d, v);
    if (d->phase == CT_PH_INSTANTIATED) {
        for (i = 0; i < CT_NCOMP; i++) {
            CtComp *k = &d->comp[i];
            const double t0 = ct_call_begin(d);
            const fmi2Status st = k->f.setupExperiment(k->inst, fmi2False, 0.0, t, fmi2False, 0.0);
            if (ct_call_end(d, k, "fmi2SetupExperiment", t0, st, t)) goto END;
        }
        if (ct_forward(d, v, CT_FWD_FIXED | CT_FWD_TUNABLE | CT_FWD_START, t)) goto END;
        for (i = 0; i < CT_NCOMP; i++) {
            CtComp *k = &d->comp[i];
            const double t0 = ct_call_begin(d);
            const fmi2Status st = k->f.enterInitializationMode(k->inst);
            if (ct_call_end(d, k, "fmi2EnterInitializationMode", t0, st, t)) goto END;
        }
        d->phase = CT_PH_INIT;
    } else if (d->phase == CT_PH_INIT) {
        if (ct_forward(d, v, CT_FWD_FIXED | CT_FWD_TUNABLE | CT_FWD_START, t)) goto END;
    } else {
        rt_log(ctx, 3, "logStatusError", "container: initialization in a wrong phase (%d)",
               d->phase);
        goto END;
    }
    d->tEv = t;
    /* states (they may feed inputs), inputs, states again (initial equations may use the
       inputs), then everything else */
    for (i = 0; i < CT_NCOMP; i++)
        if (ct_read_states(d, &d->comp[i], v, t)) goto END;
    if (ct_propagate(d, v, t, CT_ALLTYPES)) goto END;
    for (i = 0; i < CT_NCOMP; i++)
        if (ct_read_states(d, &d->comp[i], v, t)) goto END;
    if (ct_propagate(d, v, t, CT_ALLTYPES)) goto END;
    if (ct_finish(d, v, t, CT_OUTPUTS)) goto END;
    for (i = 0; i < CT_NCOMP; i++) {
        const CtCompInfo *ci = &ct_comp[i];
        if (ci->calcN > 0 && ct_get_values(d, &d->comp[i], ct_calc + ci->calcFirst, ci->calcN, v, t,
                                           CT_FAST_NEED_SLOW))
            goto END;
    }
    rc = 0;
END:
    ct_timed_end(d);
    return rc;
}
