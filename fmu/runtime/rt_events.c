/*
 * rt_events.c -- state events in the runtime's core (rt_core.h), common to Model Exchange and
 * Co-Simulation: the event iteration with its cycle detection and configuration search, the
 * indicator offsets of held relations, and the chattering / Zeno guards with their event
 * history.
 *
 * Contract: rt_event_iteration runs one complete event iteration at c->time (CS, and the
 * initial one); ME runs it pass by pass (rt_ev_pass, rt_me.c).  Around an event the caller
 * calls rt_ev_begin before the first pass, rt_ev_record when the event is complete (tests
 * (1) and (2) below) and rt_band_setup after it (test (3)); rt_band_check watches the
 * indicators on the trajectory afterwards.  Every indicator the importer or the CS event
 * detection sees goes through rt_zshift (rt_zc_eval).
 *
 *  - Event chattering and Zeno behaviour (CS: fmi2Discard at the event, time and
 *    fmi2LastSuccessfulTime = the last event; ME: fmi2Error, instance in the error state).
 *    Every state event (CS: each located event; ME: each fmi2EnterEventMode whose
 *    fmi2NewDiscreteStates passes changed something) is recorded in a history of the
 *    last RT_EV_HIST event times, kept over communication steps and in the FMU state.
 *    Three tests, each message naming the time, the number of events so far and the
 *    event indicator (index k of fmi2GetEventIndicators; relation memory vr OFF_M+k):
 *    (1) Zeno accumulation: the span B of the last RT_ZENO_W = 16 events is at most
 *        RT_ZENO_RATIO = 0.9 times the span A of the 16 before, on more than 2*16
 *        consecutive events (at least three windows, each shorter than the one before),
 *        and the geometric extrapolation of the remaining time to the accumulation point,
 *        B*q/(1-q) with q = B/A, is below RT_ZENO_REMAIN = 1e-4 of the time since the
 *        run began.  Why: a Zeno point needs infinitely many events in finite time; the
 *        event times converge geometrically (a bouncing ball: intervals x e per impact),
 *        which no integrator can pass, while event-rich regular motion (gear meshes,
 *        rotor rub, clearance joints: q ~ 1 on average; a rattling contact that settles:
 *        its contact durations stop the shrinking after a window or two) never forms
 *        three consecutive geometrically shrinking windows that close to their limit.
 *        The test is scale free (no absolute time), independent of the communication
 *        step and of the tolerance, and the same in CS and ME.
 *    (2) Numerically simultaneous events: more than RT_CHATTER_N = 100 events within
 *        RT_CHATTER_SPAN*max(1,|t|) = 1e-8*max(1,|t|), i.e. on average less than 100 root
 *        tolerances apart (e.g. a sliding mode without hysteresis; this replaces the
 *        former count of consecutive events less than 1e-10*max(1,|t|) apart, which was
 *        reset at every fmi2DoStep and missed irregular spacing).
 *    (3) Re-arming failure, the cause of a ball ending far below its floor: the event
 *        point lies just after the indicator's root, i.e. inside the relation's
 *        hysteresis band (model_api.h, |z| ~ 2e-10 there).  After a state jump (reinit)
 *        the relation must leave the band on the other side before the when-condition
 *        can become true again; once a rebound is smaller than the band (the bouncing
 *        ball after ~50 impacts: v^2/2g < 2e-10 m) the indicator turns back without
 *        crossing, the relation stays true for good, the when-clause never fires again
 *        and the ball falls freely (172 m in 6 s) with fmi2OK.  So after an event with
 *        MDL_EV_REINIT every indicator whose relation switched in the event, whose state
 *        is still inside the band (|z| <= 2 x the band width, measured as the change of z
 *        when the memories are set back to their values before the event: 2h for the
 *        generated z = g +- h) and that moves back toward its surface (trial evaluation
 *        at t+eps along x + eps*dx, eps = 1e-8*max(1,|t|)) is watched with its value z_e
 *        right after the event (a jump that puts the state far from the surface is a
 *        legitimate restart elsewhere and is not watched);
 *        when it is next seen farther away than |z_e| (CS: at the end of an accepted
 *        step, which is then undone; ME: in fmi2GetEventIndicators in continuous-time
 *        mode and in fmi2CompletedIntegratorStep) without having crossed, the rebound
 *        stayed inside the band (or an importer stepped over two crossings): chattering.
 *        The watch ends at the next event, at a crossing, or when an input or parameter
 *        is set.
 *    ME cannot stop the importer's integrator: (1)-(3) and the limit of RT_MAX_ME_PASSES
 *    fmi2NewDiscreteStates passes per event give fmi2Error with the message; an importer
 *    that neither locates events nor calls fmi2GetEventIndicators sees only (1)/(2).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt_impl.h"

/* event chattering / Zeno (see the header comment; RT_EV_HIST in rt_ctx.h) */
#define RT_CHATTER_N 100               /* (2) more than this many events ...      */
#define RT_CHATTER_SPAN 1e-8           /*     ... within this * max(1,|t|)         */
#define RT_ZENO_W 16                   /* (1) events per window                   */
#define RT_ZENO_RATIO 0.9              /*     window at most this x the previous  */
#define RT_ZENO_RUN (2 * RT_ZENO_W)    /*     ... on more consecutive events       */
#define RT_ZENO_REMAIN 1e-4            /*     remaining time / duration of the run */
#define RT_BAND_EPS 1e-8               /* (3) trial time step * max(1,|t|)        */
#define RT_BAND_RTOL 1e-6              /*     |z| > |z_event| * (1 + this)         */
#if RT_EV_HIST <= RT_CHATTER_N || RT_EV_HIST <= 2 * RT_ZENO_W
#error "RT_EV_HIST too small"
#endif

/* ------------------------------------------------------------------------- */
/* configuration search                                                       */
/* The event iteration is a fixed-point iteration on the relation memories: a pass solves the
 * model with the memories of the pass before and evaluates the relations on that solution.
 * Several relations that switch at once and act on each other (ideal diodes of a bridge that
 * commutate together, MSL Electrical.Analog.Examples.Rectifier) can make it cycle: each
 * configuration's solution contradicts it, the next one too, and back.  The model is a mixed
 * system whose discrete unknowns are the memories; what Modelica asks for is a configuration
 * that its own solution reproduces (MLS 8.6: the relations are part of the equations at an
 * event).  So when a pass brings back a state (x, m, c, d) seen at an earlier pass of the same
 * iteration, the iteration cannot converge by itself, and the configurations are searched: of
 * the relations that switched in this iteration and of those nearest to their switching
 * surfaces (RT_SEARCH_REL in all), from the memories when the iteration began, with one
 * relation switched, then two, ... (at most RT_SEARCH_MAX configurations), each solved
 * (mdl_eval) and its relations evaluated on its solution (one pass of mdl_event, with that
 * configuration as the pre values); the first configuration that comes back unchanged is
 * taken, and the iteration goes on from there (when-clauses, further passes).  Often none
 * comes back exactly: two diodes of a bridge that turn on together while the source inductance
 * still carries only the leakage current sit at their kinks, where current and voltage vanish,
 * and the sign of each is rounding noise amplified by 1/Goff (1e-10 against the hysteresis
 * width of 1e-10).  So during the search and for the rest of that iteration, a relation within
 * RT_HOLD_BAND hysteresis widths of its surface keeps its memory (rt_event_hold, called by
 * mdl_event), and at the end its indicator is shifted to agree with the memory
 * (hold_offsets).  An iteration that never repeats a state is left as it was (and so is every
 * event that converges by itself: nothing of this runs there, and the indicators are the
 * model's own). */
#define RT_SEARCH_REL 24               /* relations searched at most              */
#define RT_SEARCH_MAX 16384            /* configurations tried at most            */
#define RT_SEARCH_PER_EVENT 4          /* searches in one event iteration         */

/* relations within RT_HOLD_BAND hysteresis widths of their switching surfaces keep their
   memories after a configuration search (rt_event_hold) */
#define RT_HOLD_BAND 8.0

#if N_M > 0
/* the indicator k of v with the memory of relation k switched (vHold, zB: scratch) */
static double z_flipped(RtCtx *c, const double *v, double t, int k)
{
    memcpy(c->vHold, v, (size_t)NV * sizeof(double));
    c->vHold[OFF_M + k] = v[OFF_M + k] != 0.0 ? 0.0 : 1.0;
    mdl_zc(c->vHold, t, c->zB);
    return c->zB[k];
}
#endif

void rt_event_hold(RtCtx *c, const double *v, double t, double *m)
{
#if N_M > 0
    int k, any = 0;
    if (!c || !c->evHold) return;
    for (k = 0; k < N_M; k++) if (m[k] != v[OFF_M + k]) any = 1;
    if (!any) return;
    mdl_zc(v, t, c->zA);
    for (k = 0; k < N_M; k++) {
        if (m[k] != v[OFF_M + k]) {
            /* z = g +- h with the memory and with it switched: g and the half-width h */
            const double za = c->zA[k], zb = z_flipped(c, v, t, k);
            const double g = 0.5 * (za + zb), h = 0.5 * fabs(za - zb);
            if (fabs(g) <= RT_HOLD_BAND * h) m[k] = v[OFF_M + k];
        }
    }
#else
    (void)c; (void)v; (void)t; (void)m;
#endif
}

/* The indicators the runtime and the importer see: those of the model, less the offsets of
   hold_offsets (none normally: then nothing is touched). */
void rt_zshift(const RtCtx *c, double *z)
{
    int k;
    if (c->nOff == 0 || !z) return;
    for (k = 0; k < N_Z; k++) z[k] -= c->zOff[k];
}

void rt_zc_eval(RtCtx *c, const double *v, double t, double *z)
{
    mdl_zc(v, t, z);
    rt_zshift(c, z);
}

/* At the end of an event iteration.  A relation held against the sign of its indicator by a
 * configuration search (rt_event_hold; |g| <= RT_HOLD_BAND h) would leave an indicator whose
 * sign contradicts its memory: an importer (and the CS event detection) would take its next
 * move toward the consistent sign for a crossing, and its move away for none -- the relation
 * would stay held however far g goes.  Its indicator is shifted instead, by the constant that
 * makes it +-h here (z - zOff), so that it crosses when g has moved by about 2h further
 * against the memory: hysteresis centred on the point where the relation was held.  The
 * offsets hold until the next event; every other event iteration clears them. */
void rt_hold_offsets(RtCtx *c)
{
#if N_M > 0
    int k;
    if (c->nOff > 0) memset(c->zOff, 0, (size_t)N_Z * sizeof(double));
    c->nOff = 0;
    if (!c->evHold) return;
    mdl_zc(c->v, c->time, c->zA);
    for (k = 0; k < N_M; k++) {
        const int mem = c->v[OFF_M + k] != 0.0;
        const double za = c->zA[k];
        if ((za > 0.0) != mem && isfinite(za)) {
            const double h = 0.5 * fabs(za - z_flipped(c, c->v, c->time, k));
            c->zOff[k] = za - (mem ? h : -h);
            c->nOff++;
        }
    }
    if (c->nOff > 0)
        rt_logf(c, RT_STATUS_OK, RT_LOG_EVENTS, "event at t=%.17g: %d relations held at their "
             "switching surfaces (indicators shifted until the next event)", c->time, c->nOff);
#else
    (void)c;
#endif
}

void rt_cycle_reset(RtCtx *c)
{
    c->evPasses = 0;
    c->evSearches = 0;
    c->evHold = 0;
#if N_M > 0
    memcpy(c->mRef, c->v + OFF_M, (size_t)N_M * sizeof(double));
    memset(c->mFlip, 0, (size_t)N_M);
#endif
}

static unsigned long long fnv_doubles(unsigned long long h, const double *a, int n)
{
    const unsigned char *p = (const unsigned char *)a;
    size_t i;
    for (i = 0; i < (size_t)n * sizeof(double); i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* after a pass: the relations that switched are marked; 1 if the state (x, m, c, d) is one
   of an earlier pass of this iteration (the fixed-point iteration cycles) */
static int cycle_seen(RtCtx *c)
{
    const double *v = c->v;
    unsigned long long h = 1469598103934665603ULL;
    int k, n, seen = 0;
#if N_M > 0
    for (k = 0; k < N_M; k++)
        if (v[OFF_M + k] != v[OFF_MPRE + k] || v[OFF_M + k] != c->mRef[k]) c->mFlip[k] = 1;
#endif
    h = fnv_doubles(h, v + OFF_X, N_X);
    h = fnv_doubles(h, v + OFF_M, N_M);
    h = fnv_doubles(h, v + OFF_C, N_C);
    h = fnv_doubles(h, v + OFF_D, N_D);
    n = c->evPasses < RT_CYCLE_HIST ? c->evPasses : RT_CYCLE_HIST;
    for (k = 0; k < n; k++) if (c->evPassHash[k] == h) seen = 1;
    c->evPassHash[c->evPasses % RT_CYCLE_HIST] = h;
    c->evPasses++;
    (void)v;
    return seen;
}

/* the search (see above) from the state after the last pass.  0: found, v holds the pass of
   that configuration and *flags its flags; 1: none of the configurations tried is
   consistent (v as before) */
static int config_search(RtCtx *c, int initial, int *flags)
{
#if N_M > 0
    double *v = c->v, *base = c->vScratch;
    int S[RT_SEARCH_REL], pick[RT_SEARCH_REL];
    double *z = c->zm;
    int ns = 0, nflip = 0, k, w, tried = 0;
    /* the relations searched: those that switched in this iteration, then the others nearest
       to their switching surfaces (smallest |indicator|), RT_SEARCH_REL in all */
    for (k = 0; k < N_M && ns < RT_SEARCH_REL; k++)
        if (c->mFlip[k]) S[ns++] = k;
    nflip = ns;
    if (nflip == 0) return 1;
    mdl_zc(v, c->time, z);
    while (ns < RT_SEARCH_REL && ns < N_M) {
        int best = -1;
        for (k = 0; k < N_M; k++) {
            int j, in = 0;
            for (j = 0; j < ns; j++) if (S[j] == k) in = 1;
            if (in) continue;
            if (best < 0 || fabs(z[k]) < fabs(z[best]) || (isnan(z[best]) && !isnan(z[k]))) best = k;
        }
        S[ns++] = best;
    }
    memcpy(base, v, (size_t)NV * sizeof(double));
    c->quiet++;
    c->evHold = 1;   /* for the rest of this iteration (rt_event_hold) */
    for (w = 0; w <= ns; w++) {
        /* the combinations of w of the ns relations, in lexicographic order */
        for (k = 0; k < w; k++) pick[k] = k;
        for (;;) {
            int j, fl = 0, rc, same = 1;
            if (++tried > RT_SEARCH_MAX) goto none;
            memcpy(v, base, (size_t)NV * sizeof(double));
            for (j = 0; j < ns; j++) v[OFF_M + S[j]] = c->mRef[S[j]];
            for (j = 0; j < w; j++) v[OFF_M + S[pick[j]]] = c->mRef[S[pick[j]]] != 0.0 ? 0.0 : 1.0;
            rt_copy_pre(c);
            rc = mdl_eval(v, c->time, c);
            if (rc == 0) {
                rc = mdl_event(v, c->time, initial, c, &fl);
                if (rc == MDL_TERMINATE) { fl |= MDL_EV_TERMINATE; rc = 0; }
            }
            if (rc == 0) {
                for (j = 0; j < N_M; j++) if (v[OFF_M + j] != v[OFF_MPRE + j]) same = 0;
                if (same) {
                    c->quiet--;
                    c->deferred[0] = '\0';
                    rt_logf(c, RT_STATUS_OK, RT_LOG_EVENTS, "event iteration at t=%.17g: it cycled (%d "
                         "relations switched); a consistent configuration found among %d "
                         "relations after %d trials (%d switched from the start of the "
                         "iteration)", c->time, nflip, ns, tried, w);
                    /* the memories of the configuration are new against those of the pass
                       that led here: the iteration goes on (when-clauses, a further pass) */
                    memcpy(v + OFF_MPRE, base + OFF_M, (size_t)N_M * sizeof(double));
                    *flags = fl | MDL_EV_CHANGED;
                    return 0;
                }
            }
            /* the next combination */
            for (j = w - 1; j >= 0 && pick[j] == ns - w + j; j--) {}
            if (j < 0) break;
            pick[j]++;
            for (j = j + 1; j < w; j++) pick[j] = pick[j - 1] + 1;
        }
    }
none:
    c->quiet--;
    memcpy(v, base, (size_t)NV * sizeof(double));
    rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "event iteration at t=%.17g cycles (%d relations switched), "
         "and no configuration of %d relations is consistent with its own solution (%d tried)",
         c->time, nflip, ns, tried > RT_SEARCH_MAX ? RT_SEARCH_MAX : tried);
    return 1;
#else
    (void)c; (void)initial; (void)flags;
    return 1;
#endif
}

/* One pass of the event iteration (pre values, mdl_event), with the configuration search
 * when the iteration cycles.  Returns 0 ok (*flags), 1 model error, 2 no consistent
 * configuration (logged). */
int rt_ev_pass(RtCtx *c, int initial, int *flags)
{
    int rc;
    *flags = 0;
    rt_copy_pre(c);
    c->ddValid = 0;
    rc = mdl_event(c->v, c->time, initial, c, flags);
    if (rc == MDL_TERMINATE) { *flags |= MDL_EV_TERMINATE; rc = 0; }
    if (rc != 0) return 1;
    if ((*flags & MDL_EV_CHANGED) && N_M > 0 && cycle_seen(c) &&
        c->evSearches < RT_SEARCH_PER_EVENT) {
        c->evSearches++;
        if (config_search(c, initial, flags) != 0) return 2;
    }
    return 0;
}

/* One complete event iteration at c->time.  flags_out: OR of MDL_EV_REINIT /
 * MDL_EV_TERMINATE seen.  Returns 0 ok, 1 model error, 2 no convergence. */
int rt_event_iteration(RtCtx *c, int initial, int *flags_out)
{
    int k;
    *flags_out = 0;
    rt_cycle_reset(c);
    for (k = 0; k < RT_MAX_EVENT_ITER; k++) {
        int flags = 0;
        int rc = rt_ev_pass(c, initial, &flags);
        if (rc == 2) return 2;
        if (rc != 0) return 1;
        *flags_out |= flags & (MDL_EV_REINIT | MDL_EV_TERMINATE);
        if (!(flags & MDL_EV_CHANGED)) {
            c->dirty = 0;
            rt_hold_offsets(c);
            return 0;
        }
    }
    rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR,
         "event iteration does not converge at t=%.17g (%d passes)", c->time,
         RT_MAX_EVENT_ITER);
    return 2;
}

/* ------------------------------------------------------------------------- */
/* event chattering and Zeno behaviour (CS and ME; criteria in the header)    */

/* time of the i-th most recent recorded event (0 = the last one), i < c->evN */
static double ev_time(const RtCtx *c, int i)
{
    return c->evHist[(c->evHead - i + RT_EV_HIST) % RT_EV_HIST];
}

/* first indicator whose relation memory changed since the event began (c->mEv), -1 none */
static int ev_indicator(const RtCtx *c)
{
    int k;
    for (k = 0; k < N_Z; k++)
        if (c->v[OFF_M + k] != c->mEv[k]) return k;
    return -1;
}

/* The memories at the start of an event (before its first pass). */
void rt_ev_begin(RtCtx *c)
{
    if (N_Z > 0) memcpy(c->mEv, c->v + OFF_M, (size_t)N_Z * sizeof(double));
}

/* Record the state event just handled at t (event iteration done) and apply tests (1)
 * and (2).  Returns 0, or 1 with the reason in buf (CS: fmi2Discard, ME: fmi2Error). */
int rt_ev_record(RtCtx *c, double t, char *buf, size_t n)
{
    const int k = ev_indicator(c);
    if (c->evN > 0 && t < ev_time(c, 0)) {   /* the time went back (ME importer): forget */
        c->evN = 0;
        c->zenoRun = 0;
    }
    c->evHead = (c->evHead + 1) % RT_EV_HIST;
    c->evHist[c->evHead] = t;
    if (c->evN < RT_EV_HIST) c->evN++;
    c->evTotal++;
    if (c->evN > RT_CHATTER_N) {                                 /* (2) */
        const double span = t - ev_time(c, RT_CHATTER_N);
        if (span <= RT_CHATTER_SPAN * (fabs(t) > 1.0 ? fabs(t) : 1.0)) {
            snprintf(buf, n, "event chattering at t=%.17g: %d state events within %.3g s "
                     "(%ld events so far, the last one on event indicator %d): the events "
                     "do not advance the time, e.g. a sliding mode without hysteresis", t,
                     RT_CHATTER_N + 1, span, c->evTotal, k);
            return 1;
        }
    }
    if (c->evN > 2 * RT_ZENO_W) {                                /* (1) */
        const double t2 = ev_time(c, 2 * RT_ZENO_W), t1 = ev_time(c, RT_ZENO_W);
        const double a = t1 - t2, b = t - t1;
        if (a > 0.0 && b >= 0.0 && b <= RT_ZENO_RATIO * a) {
            const double q = b / a, rem = b * q / (1.0 - q);
            if (c->zenoRun == 0) c->zenoT0 = t2;
            c->zenoRun++;
            if (c->zenoRun > RT_ZENO_RUN && rem <= RT_ZENO_REMAIN * (t - c->zenoT0)) {
                snprintf(buf, n, "event chattering (Zeno behaviour) at t=%.17g: the %d state "
                         "events since t=%.17g come ever faster (the last %d within %.3g s, "
                         "the %d before within %.3g s) and accumulate at t* ~ %.17g, which "
                         "no finite number of events reaches (%ld events so far, the last "
                         "one on event indicator %d); the model needs a mode for what "
                         "happens at t* (e.g. a ball at rest)", t, c->zenoRun + 2 * RT_ZENO_W,
                         c->zenoT0, RT_ZENO_W, b, RT_ZENO_W, a, t + rem, c->evTotal, k);
                return 1;
            }
        } else {
            c->zenoRun = 0;
        }
    }
    return 0;
}

void rt_band_clear(RtCtx *c)
{
    if (N_Z > 0) memset(c->zBand, 0, (size_t)N_Z * sizeof(double));
}

/* Test (3), at the end of an event at c->time (v consistent there, dx = f(t, x)): after a
 * state jump, watch every indicator k whose relation switched in this event, whose state
 * still lies inside the relation's hysteresis band (|z_k| <= 2 * the band width, which is
 * |z_k - z_k with the memories of before the event| at the same x: 2h for the generated
 * z = g +- h, so |g| <= 3h) and that moves back toward its switching surface (one trial
 * evaluation of the indicators at t + eps, x + eps*dx).  All on a copy of v: the instance
 * is unchanged.  A jump that moved the state away from the surface (|g| >> h) is a
 * legitimate restart elsewhere and is not watched. */
void rt_band_setup(RtCtx *c, int reinit)
{
    double *vs = c->vScratch;
    double eps;
    int k, i, rc, any = 0;
    rt_band_clear(c);
    if (!reinit || N_X == 0) return;
    for (k = 0; k < N_Z; k++)
        if (c->v[OFF_M + k] != c->mEv[k]) any = 1;
    if (!any) return;
    eps = RT_BAND_EPS * (fabs(c->time) > 1.0 ? fabs(c->time) : 1.0);
    rt_zc_eval(c, c->v, c->time, c->zl);
    memcpy(vs, c->v, (size_t)NV * sizeof(double));
    memcpy(vs + OFF_M, c->mEv, (size_t)N_Z * sizeof(double));
    rt_zc_eval(c, vs, c->time, c->zm);              /* the memories of before the event */
    memcpy(vs, c->v, (size_t)NV * sizeof(double));
    for (i = 0; i < N_X; i++) vs[OFF_X + i] += eps * c->v[OFF_DX + i];
    rt_u_at(c, vs, c->time + eps);
    c->quiet++;
    rc = mdl_deriv(vs, c->time + eps, c->zr, c);
    c->quiet--;
    rt_zshift(c, c->zr);
    if (rc != 0) {                /* not evaluable there: no watch (nothing reported) */
        c->deferred[0] = '\0';
        return;
    }
    for (k = 0; k < N_Z; k++) {
        const double z0 = c->zl[k], z1 = c->zr[k], width = fabs(z0 - c->zm[k]);
        if (c->v[OFF_M + k] != c->mEv[k] && z0 != 0.0 && isfinite(z0) && isfinite(z1) &&
            fabs(z0) <= 2.0 * width && (z0 > 0.0) == (z1 > 0.0) && fabs(z1) < fabs(z0))
            c->zBand[k] = z0;
    }
    c->tBand = c->time;
}

/* Test (3): indicator values z at a later point of the trajectory.  Returns the watched
 * indicator that is farther from its surface than right after the event without having
 * crossed it, or -1 (a crossing ends the watch). */
int rt_band_check(RtCtx *c, const double *z)
{
    int k;
    for (k = 0; k < N_Z; k++) {
        const double b = c->zBand[k];
        if (b == 0.0 || !isfinite(z[k])) continue;
        if ((b > 0.0 && z[k] < 0.0) || (b < 0.0 && z[k] > 0.0)) c->zBand[k] = 0.0;
        else if (fabs(z[k]) > fabs(b) * (1.0 + RT_BAND_RTOL)) return k;
    }
    return -1;
}

void rt_band_message(const RtCtx *c, int k, double t, double zk, char *buf, size_t n)
{
    snprintf(buf, n, "event chattering (Zeno behaviour) at t=%.17g: after the event at "
             "t=%.17g, whose state jump (reinit) sent event indicator %d back toward its "
             "switching surface, the indicator turned away again without crossing it "
             "(|z| = %.3g > %.3g right after the event): the rebound stayed inside the "
             "relation's hysteresis band, so the relation cannot switch back and its "
             "when-clause can never fire again (e.g. a bouncing ball at its Zeno point "
             "would fall through the floor); %ld events so far", t, c->tBand, k, fabs(zk),
             fabs(c->zBand[k]), c->evTotal);
}
