/*
 * rt_cs.c -- Co-Simulation stepping in the runtime's core (rt_core.h): the embedded solver
 * (rt_ode.h) on the model's right-hand side, event detection and location on its dense
 * output, the check of communication points inside a step, the handling of failures
 * (discard at the last accepted point) and the work budget of a step.
 *
 * Contract: rt_cs_do_step integrates from c->time to the end of the communication step with
 * every event in it handled, and returns RT_STATUS_OK, RT_STATUS_DISCARD (with the message,
 * the instance in stepFailed, lastSuccessfulTime valid) or RT_STATUS_ERROR (rejected
 * arguments or solver method: nothing changed).
 *
 *  - CS time: fmi2DoStep integrates to currentCommunicationPoint +
 *    communicationStepSize and then sets the time to exactly that value (the master's
 *    grid, t0 + n*h if the master computes it that way); the time is never
 *    accumulated from solver step sizes.  The communication point must equal the
 *    FMU time within 1e-9*max(1,|t|).
 *  - CS events: after every accepted solver step the event indicators are evaluated
 *    at the step end, and at every communication point inside a step (cs_check_point: a
 *    sign change and back within one long step is otherwise invisible; ME importers check
 *    at their output points too); on a sign change (z_old != 0, z_old*z_new <= 0) the earliest
 *    root over all indicators is bracketed on the solver's dense output with an
 *    Illinois-modified regula falsi (bisection fallback), to a time tolerance of
 *    1e-12*max(1,|t|).  The state is set to the interpolant at the right end of the
 *    final bracket, i.e. just AFTER the root (indicator already changed sign); the
 *    event iteration runs there (copy pre, mdl_event until no MDL_EV_CHANGED, max
 *    100 passes; an iteration that cycles searches the relations' configurations, see
 *    "configuration search") and the solver restarts from the event point with fresh
 *    step-size history.  Events up to the communication point are handled before returning; one
 *    located beyond it, in a step reaching past it, by the fmi2DoStep that contains it.
 *    A non-converging event iteration -> fmi2Discard with a message.
 *  - terminate(): fmi2DoStep returns fmi2Discard at the event time, with
 *    fmi2GetBooleanStatus(fmi2Terminated) = fmi2True and fmi2GetRealStatus(
 *    fmi2LastSuccessfulTime) = that time (this is what the FMI 2.0 standard specifies
 *    and what FMPy, FMI Library and OMSimulator check); the instance is then in
 *    stepFailed and a further fmi2DoStep is an error.  ME: terminateSimulation is
 *    reported by fmi2NewDiscreteStates / fmi2CompletedIntegratorStep.
 *  - Solver failures (step-size underflow, NaN that does not go away with smaller steps,
 *    model errors) -> fmi2Discard, time = last accepted point, fmi2LastSuccessfulTime
 *    valid, message naming the time and cause.
 *  - Work budget of one fmi2DoStep (tunable parameters, checked per doStep):
 *    solver.maxSteps (v[OFF_SOLVER_MAXSTEPS], Integer >= 1, default 1e6): more solver
 *    steps -> fmi2Discard at the last accepted point (deterministic); a step whose span
 *    divided by solver.hmax (if set) already exceeds it is refused up front with
 *    fmi2Discard before anything is integrated.  solver.maxStepTime
 *    (v[OFF_SOLVER_MAXSTEPTIME], seconds of wall-clock time, default 0 = no limit, so that
 *    results never depend on the machine's load): checked with clock_gettime(
 *    CLOCK_MONOTONIC) every 256 solver steps, exceeded -> fmi2Discard at the last
 *    accepted point.  The messages name the budget, the parameter and the time reached.
 *  - Solver settings v[OFF_SOLVER_*]: method 0 = auto (Adams or Dormand-Prince 5(4),
 *    whichever needs fewer evaluations on the same span, RODAS4 where the problem is stiff,
 *    LSODA-style, see rt_ode.h; the switches are logged at logAll), 1 = Dormand-Prince 5(4),
 *    2 = RODAS4, 3 = Adams
 *    (variable order 1-12, Nordsieck PECE, rt_adams.c; its history is part of the FMU
 *    state).  rtol <= 0: the
 *    fmi2SetupExperiment tolerance if defined, else the model's DefaultExperiment
 *    tolerance (DEFAULT_TOLERANCE; 1e-6 when the model declares none).  atol <= 0: 1e-3*rtol.
 *    The absolute tolerance of state i is atol*mdl_x_nominal[i] (Modelica nominal;
 *    non-positive or non-finite nominals are taken as 1), the same nominals are
 *    returned by fmi2GetNominalsOfContinuousStates.
 *    hmax <= 0: a step is at most RT_AHEAD communication steps long.
 *  - CS steps reach past communication points (see cs_integrate): the values at a
 *    communication point inside a solver step come from the step's dense output, and the
 *    next fmi2DoStep continues the step unless an input or parameter was set in between
 *    (then the solver restarts from the interpolated state).  The state delivered at a
 *    communication point is always copied from the solver's record of its last accepted
 *    step (the end point, or the dense output inside it), never assumed to be in v
 *    already: v holds the step end only right after the step (a continued step that ends
 *    exactly on the next point found v still at the point delivered before: issue 15).
 *    The solver's stages evaluate derivatives only (mdl_deriv); outputs are evaluated
 *    when read.
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L   /* clock_gettime (the exporter defines it on its command line) */
#endif
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rt_impl.h"

/* instruction counts of the generated derivative and Jacobian functions (config.h of
   exported models; 0 = unknown, the auto method then assumes a default) */
#ifndef MDL_COST_DERIV
#define MDL_COST_DERIV 0
#endif
#ifndef MDL_COST_JAC
#define MDL_COST_JAC 0
#endif

/* ------------------------------------------------------------------------- */
/* Co-Simulation: solver callbacks                                            */

static int cs_rhs(void *user, double t, const double *x, double *dx)
{
    RtCtx *c = (RtCtx *)user;
    int rc;
    memcpy(c->v + OFF_X, x, (size_t)N_X * sizeof(double));
    rt_u_at(c, c->v, t);                    /* (inputs with derivatives) */
    rc = mdl_deriv(c->v, t, c->zf, c);   /* outputs are evaluated when read */
    if (rc == 0) rt_zshift(c, c->zf);
    c->rhsT = t;
    /* terminate() signalled by a (trial) evaluation: treated like a failure so that
       the solver shrinks the step onto the first time it is signalled */
    c->rhsTerminate = rc == MDL_TERMINATE;
    if (rc == MDL_TERMINATE) return 1;
    if (rc < 0) return rc;
    if (rc > 0) return 1;
    memcpy(dx, c->v + OFF_DX, (size_t)N_X * sizeof(double));
    return 0;
}

static int crossing(const double *a, const double *b);

/* the auto method's probes: the last evaluation (cs_rhs: its indicators in zf) lies beyond a
   state event, a sign change since the accepted point (zOld) */
static int cs_probe_cut(void *user)
{
    RtCtx *c = (RtCtx *)user;
    return N_Z > 0 && crossing(c->zOld, c->zf);
}

static int cs_jac(void *user, double t, const double *x, const double *fx, double *J)
{
#if HAS_JACOBIAN
    RtCtx *c = (RtCtx *)user;
    int rc;
    (void)fx;
    if (c->rhsT != t || memcmp(c->v + OFF_X, x, (size_t)N_X * sizeof(double)) != 0) {
        double *dx = c->xe;   /* scratch: values not needed */
        rc = cs_rhs(c, t, x, dx);
        if (rc != 0) return rc;
    }
    rt_u_at(c, c->v, t);
    rc = mdl_jac(c->v, t, J, c);
    if (rc == MDL_TERMINATE) return 1;
    if (rc == -1) return -1;
    if (rc < 0) return rc;
    return rc > 0 ? 1 : 0;
#else
    (void)user; (void)t; (void)x; (void)fx; (void)J;
    return -1;
#endif
}

#if HAS_JACOBIAN && defined(MDL_JAC_NNZ)
/* the structural nonzeros only (generated models: sparse RODAS4 when the band pays) */
static int cs_jacnz(void *user, double t, const double *x, const double *fx, double *J)
{
    RtCtx *c = (RtCtx *)user;
    int rc;
    (void)fx;
    if (c->rhsT != t || memcmp(c->v + OFF_X, x, (size_t)N_X * sizeof(double)) != 0) {
        double *dx = c->xe;
        rc = cs_rhs(c, t, x, dx);
        if (rc != 0) return rc;
    }
    rt_u_at(c, c->v, t);
    rc = mdl_jac_nz(c->v, t, J, c);
    if (rc == MDL_TERMINATE) return 1;
    if (rc == -1) return -1;
    if (rc < 0) return rc;
    return rc > 0 ? 1 : 0;
}
#endif

static void cs_settings(RtCtx *c)
{
    RtOde *s = c->ode;
    double rtol = c->v[OFF_SOLVER_RTOL], atol = c->v[OFF_SOLVER_ATOL];
    double hmax = c->v[OFF_SOLVER_HMAX];
    /* no solver.rtol: the importer's tolerance, else the model's DefaultExperiment tolerance
     * (importers such as libcosim and ecos call fmi2SetupExperiment without one) */
    if (!(rtol > 0) || !isfinite(rtol)) rtol = c->toleranceDefined ? c->tolerance : DEFAULT_TOLERANCE;
    if (!(atol > 0) || !isfinite(atol)) atol = 1e-3 * rtol;
    s->rtol = rtol;
    s->atol = atol;
    s->atol_scale = c->xNominal;
    s->hmax = (hmax > 0 && isfinite(hmax)) ? hmax : 0.0;
    s->cost_f = MDL_COST_DERIV;     /* the auto method's cost model (rt_ode.h) */
    s->cost_jac = HAS_JACOBIAN ? MDL_COST_JAC : 0;
#ifdef MDL_COST_JAC_NZ
    if (s->band) s->cost_jac = HAS_JACOBIAN ? MDL_COST_JAC_NZ : 0;   /* nonzeros only */
#endif
}

/* make sure c->ode exists for the selected method; 0 ok */
static int cs_solver(RtCtx *c, const char *fn)
{
    const double mv = c->v[OFF_SOLVER_METHOD];
    const int id = (int)floor(mv + 0.5);
    const RtOdeMethod *m = (mv == (double)id) ? rt_ode_method(id) : NULL;
    if (!m) {
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: solver method %g is invalid (0 = auto, "
             "1 = Dormand-Prince 5(4), 2 = RODAS4, 3 = Adams)", fn, mv);
        return 1;
    }
    if (!c->ode || c->ode->method != m) {
        RtOde *s;
        if (N_X == 0) { c->odeMethod = id; return 0; }
#if HAS_JACOBIAN && defined(MDL_JAC_NNZ)
        s = rt_ode_new_sparse(m, N_X, cs_rhs, cs_jac, cs_jacnz, mdl_jac_colind, mdl_jac_row, c,
                              c->allocateMemory, c->freeMemory);
#else
        s = rt_ode_new(m, N_X, cs_rhs, HAS_JACOBIAN ? cs_jac : NULL, c,
                       c->allocateMemory, c->freeMemory);
#endif
        if (!s) {
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: out of memory", fn);
            return 1;
        }
        s->probe_cut = cs_probe_cut;
#if defined(MDL_DERIV_CHECKS_FINITE) && MDL_DERIV_CHECKS_FINITE
        s->f_checks_finite = 1;   /* cs_rhs: mdl_deriv refuses NaN/Inf, naming the variable */
#endif
        if (c->ode) rt_ode_free(c->ode);
        c->ode = s;
        c->odeRestart = 1;   /* (a pending odeResume of a restored FMU state still applies) */
        rt_logf(c, RT_STATUS_OK, RT_LOG_ALL, "%s: using solver %s", fn, m->name);
    }
    c->odeMethod = id;
    cs_settings(c);
    return 0;
}

/* Sign-change rule: a is the sign memory (last NONZERO value of each indicator, or 0
 * if it has never been nonzero), b the new values.  An indicator has crossed iff
 * a != 0 and b has the strictly opposite sign.  b == 0 means "not crossed yet":
 * z > 0 iff the relation is true, so at z == 0 mdl_event would not switch it; the
 * crossing is detected as soon as z becomes nonzero on the other side. */
static int crossing(const double *a, const double *b)
{
    int k;
    for (k = 0; k < N_Z; k++)
        if ((a[k] > 0.0 && b[k] < 0.0) || (a[k] < 0.0 && b[k] > 0.0)) return 1;
    return 0;
}

/* update the sign memory a with b (zeros keep the previous sign; NaN/Inf values
 * from a broken indicator are ignored instead of disabling it for good) */
static void zmemory(double *a, const double *b, int tiny)
{
    int k;
    for (k = 0; k < N_Z; k++) {
        if (!isfinite(b[k])) continue;
        if (b[k] != 0.0) a[k] = b[k];
        else if (tiny && a[k] != 0.0) a[k] = a[k] > 0 ? 1e-300 : -1e-300;
    }
}

/* Put the solution at t of the last accepted step into v (x only; outputs stale): the
 * step end itself, or its dense output inside the step. */
static void cs_x_at(RtCtx *c, double t)
{
    if (N_X > 0) {     /* without states: the inputs at t only */
        RtOde *s = c->ode;
        if (t == s->t) {
            memcpy(c->v + OFF_X, s->x, (size_t)N_X * sizeof(double));
        } else {
            rt_ode_dense(s, t, c->xe);
            memcpy(c->v + OFF_X, c->xe, (size_t)N_X * sizeof(double));
        }
    }
    rt_u_at(c, c->v, t);
    c->stale = 1;
    rt_forget_parts(c);
}

/* the event indicators on the interpolant at t into zout.  0 ok, else model error code */
static int eval_interp(RtCtx *c, double t, double *zout)
{
    int rc;
    cs_x_at(c, t);     /* no states: the indicators are functions of t, u and the discrete values */
    if (RT_ZC_NEEDS_EVAL) {        /* the indicators need x and the Newton unknowns w only
                                      (hooks: the model's evaluation, model_api.h H2) */
        rc = mdl_deriv(c->v, t, NULL, c);
        if (rc != 0) return rc;
    }
    rt_zc_eval(c, c->v, t, zout);
    return 0;
}

/* The indicators at the communication point t (cs_check_point) into c->zr.  An importer that
 * read outputs after the last fmi2DoStep (c->partsAhead) will read them after this one at the
 * same point: mdl_out (all outputs) or mdl_zc_cheap (the cheap ones) evaluates them with the
 * indicators in one call (they share the model's kinematics: on the hybrid mechanism 3
 * sine-cosine pairs and an atan2), and c->pointHave makes them current when t is delivered
 * (cs_integrate).  The values are those of mdl_zc and of the read's mdl_out or mdl_out_cheap
 * (the same expressions); only the work differs.  Outputs the model refuses (not finite) are
 * not made current, with no message: the read evaluates and reports them as before.  0 ok,
 * else model error code. */
static int eval_point(RtCtx *c, double t)
{
    /* (not while a trial evaluation's message waits for the step's end: the outputs' own
       message would replace it) */
    if (RT_ZC_NEEDS_EVAL || !(c->partsAhead & (RT_HAVE_OUT | RT_HAVE_CHEAP)) || c->deferred[0])
        return eval_interp(c, t, c->zr);
#if MDL_HAS_OUT
    if (c->partsAhead & RT_HAVE_OUT) {
        int rc;
        cs_x_at(c, t);
        c->quiet++;
        rc = mdl_out(c->v, t, c->zPart, c);
        c->quiet--;
        c->deferred[0] = '\0';
        if (rc != 0) return eval_interp(c, t, c->zr);
        rt_zshift(c, c->zPart);
        memcpy(c->zr, c->zPart, (size_t)N_Z * sizeof(double));
        c->pointHave = RT_HAVE_OUT | RT_HAVE_Z;
        return 0;
    }
#endif
#if MDL_HAS_ZC_CHEAP
    cs_x_at(c, t);
    if (mdl_zc_cheap(c->v, t, c->zr) == 0) c->pointHave = RT_HAVE_CHEAP;
    rt_zshift(c, c->zr);
    return 0;
#else
    return eval_interp(c, t, c->zr);
#endif
}

/* Locate the earliest root in (tl, tr] of the last accepted step, with the indicators'
 * values c->zl at tl and c->zr at tr (the caller fills them): the right end of the final
 * bracket is returned in *tev (the caller evaluates the model there when it handles the
 * event).  0 ok, else model error code. */
static int locate_root(RtCtx *c, double tl, double tr, double *tev)
{
    const double ttol = 1e-12 * (fabs(tr) > 1.0 ? fabs(tr) : 1.0);
    double wl = 1.0, wr = 1.0;
    int lastSide = 0, sinceHalf = 0, it, k, rc;
    double width = tr - tl;
    c->quiet++;
    for (it = 0; it < RT_ROOT_MAXIT && tr - tl > ttol; it++) {
        double tm = tr;
        /* earliest secant root among the indicators that change sign in [tl, tr] */
        for (k = 0; k < N_Z; k++) {
            if ((c->zl[k] > 0.0 && c->zr[k] < 0.0) || (c->zl[k] < 0.0 && c->zr[k] > 0.0)) {
                const double a = c->zl[k] * wl, b = c->zr[k] * wr;
                const double tk = (a != b) ? tl + (tr - tl) * (a / (a - b)) : 0.5 * (tl + tr);
                if (tk < tm) tm = tk;
            }
        }
        if (sinceHalf >= 3) { tm = 0.5 * (tl + tr); sinceHalf = 0; }
        if (tm < tl + 0.5 * ttol) tm = tl + 0.5 * ttol;
        if (tm > tr - 0.5 * ttol) tm = tr - 0.5 * ttol;
        rc = eval_interp(c, tm, c->zm);
        if (rc != 0) { c->quiet--; return rc; }
        if (crossing(c->zl, c->zm)) {           /* root in [tl, tm] */
            tr = tm;
            memcpy(c->zr, c->zm, (size_t)N_Z * sizeof(double));
            wr = 1.0;
            if (lastSide == -1) wl *= 0.5;        /* left end kept twice: Illinois */
            lastSide = -1;
        } else {                                  /* root in (tm, tr] */
            tl = tm;
            zmemory(c->zl, c->zm, 1);   /* an exact zero at tm: keep the sign */
            wl = 1.0;
            if (lastSide == 1) wr *= 0.5;
            lastSide = 1;
        }
        if (tr - tl <= 0.5 * width) { width = tr - tl; sinceHalf = 0; }
        else sinceHalf++;
    }
    c->quiet--;
    *tev = tr;
    return 0;
}

/* the earliest root in (t_old, t] of the last accepted step (zOld at t_old, z at t) */
static int locate_event(RtCtx *c, double *tev)
{
    memcpy(c->zl, c->zOld, (size_t)N_Z * sizeof(double));
    memcpy(c->zr, c->z, (size_t)N_Z * sizeof(double));
    return locate_root(c, c->ode->t_old, c->ode->t, tev);
}

/* after a failure: put the last accepted point (or, with use_old, the start of the
 * last accepted step) back into v */
static void cs_restore_accepted(RtCtx *c, int use_old)
{
    if (c->ode && N_X > 0) {
        memcpy(c->v + OFF_X, use_old ? c->ode->x_old : c->ode->x,
               (size_t)N_X * sizeof(double));
        c->time = use_old ? c->ode->t_old : c->ode->t;
    }
    rt_u_at(c, c->v, c->time);
    c->quiet++;
    c->dirty = mdl_eval(c->v, c->time, c) != 0;
    rt_forget_parts(c);
    c->stale = 0;
    c->quiet--;
}

static int cs_discard(RtCtx *c, const char *fn, const char *fmt, ...)
{
    va_list ap;
    size_t k;
    va_start(ap, fmt);
    k = (size_t)snprintf(c->msg, sizeof c->msg, "%s: ", fn);
    if (k < sizeof c->msg) vsnprintf(c->msg + k, sizeof c->msg - k, fmt, ap);
    va_end(ap);
    k = strlen(c->msg);
    if (c->deferred[0] && k + 32 < sizeof c->msg)
        snprintf(c->msg + k, sizeof c->msg - k, " [last model message: %.*s]",
                 (int)(sizeof c->msg - k - 25), c->deferred);
    rt_emit(c, RT_STATUS_DISCARD, RT_LOG_DISCARD);
    c->deferred[0] = '\0';
    c->lastSuccessfulTime = c->time;
    c->odeRestart = 1;
    c->odeResume = 0;
    c->state = RT_STEP_FAILED;
    return RT_STATUS_DISCARD;
}

/* handle the state event located at tev (v is evaluated there): event iteration,
 * chattering tests (1)-(2), solver restart, band watch (3).  Returns fmi2OK or the
 * fmi2Discard of a failure. */
static int cs_event(RtCtx *c, const char *fn, double tev)
{
    int rc, flags;
    char why[RT_WHY_LEN];
    c->time = tev;
    c->nEvents++;
    rt_ev_begin(c);
    rc = rt_event_iteration(c, 0, &flags);
    if (rc != 0) {
        rt_invalidate(c);
        return cs_discard(c, fn, "event handling failed at t=%.17g", tev);
    }
    c->stale = 0;
    rt_logf(c, RT_STATUS_OK, RT_LOG_EVENTS, "%s: state event at t=%.17g%s", fn, tev,
         (flags & MDL_EV_REINIT) ? " (states reinitialized)" : "");
    if (flags & MDL_EV_TERMINATE) {
        c->terminateRequested = 1;
        return cs_discard(c, fn, "the model called terminate() at t=%.17g", tev);
    }
    if (rt_ev_record(c, tev, why, sizeof why)) return cs_discard(c, fn, "%s", why);
    if (N_X > 0) rt_ode_restart(c->ode, tev, c->v + OFF_X, 0.0);
    c->ahead = 0;
    rt_zc_eval(c, c->v, c->time, c->z);
    zmemory(c->zOld, c->z, 0);
    rt_band_setup(c, flags & MDL_EV_REINIT);
    return RT_STATUS_OK;
}

/* Early return and event mode (FMI 3.0 Co-Simulation; the FMI 2.0 face leaves both options 0).
 * With csEarlyReturnAllowed, a step ends at the first state event located before its end
 * (more than 1e-13 relative before it: an event at the end is handled as always), and
 * lastSuccessfulTime is the event time (the right end of the final bracket, within 1e-12
 * relative of the root, as the event is located without early return).  With
 * csEventModeUsed as well, the event is not handled here: the step ends with v evaluated
 * just after the root (the relations not yet switched), csEventNeeded set, and the importer
 * handles it in event mode (rt_cs_enter_event_mode, rt_cs_update_discrete_states, whose
 * passes are those of Model Exchange, rt_cs_enter_step_mode); an importer that steps on
 * without event mode gets it handled at the start of its next step (csEventPending), as after
 * a change of inputs.  Without csEventModeUsed the event is handled here (cs_event) and the
 * step ends after it.  Events inside a step that may not end early are handled here whatever
 * csEventModeUsed says: the importer cannot handle an event at a time it never sees. */
static int cs_early(const RtCtx *c, double tev, double tEnd)
{
    return c->csEarlyReturnAllowed &&
           tEnd - tev > 1e-13 * (fabs(tEnd) > 1.0 ? fabs(tEnd) : 1.0);
}

/* end the step at the event tev (v evaluated there); handled: cs_event ran */
static int cs_return_early(RtCtx *c, const char *fn, double tev, int handled)
{
    c->time = tev;
    c->lastSuccessfulTime = tev;
    c->csReturnedEarly = 1;
    c->ahead = 0;
    c->aheadEvent = 0;
    if (!handled) {
        c->stale = 0;              /* mdl_eval ran at tev */
        c->dirty = 0;
        c->csEventNeeded = 1;
        c->csEventPending = 1;     /* (the importer's event mode clears it) */
        c->odeRestart = 1;         /* the solver restarts from tev after the event */
        c->odeResume = 0;
    }
    rt_logf(c, RT_STATUS_OK, RT_LOG_EVENTS, "%s: returned early at the state event t=%.17g%s", fn, tev,
            handled ? "" : " (for the importer's event mode)");
    return RT_STATUS_OK;
}

/* A communication point tEnd strictly inside the last accepted step, whose end points have
 * the same signs (zOld): the indicators there as well.  An indicator that changes sign and
 * back within one step is invisible at its ends (sin(phi) < -0.7 while phi runs through 3
 * rad in a step that a linear phi lets grow to RT_AHEAD communication steps); an importer
 * of the ME FMU checks the indicators at every output point, so CS does no less: a sign
 * change at tEnd is an event, located in (tl, tEnd] with tl the later of the step's start
 * and tBegin (this fmi2DoStep's start, checked before).  1: an event before tEnd, now
 * c->aheadTev; 0: none; < 0: model error (the last accepted point is put back). */
static int cs_check_point(RtCtx *c, double tBegin, double tEnd)
{
    RtOde *s = c->ode;
    const double tl = s->t_old > tBegin ? s->t_old : tBegin;
    double tev = tEnd;
    int rc;
    c->pointHave = 0;
    c->pointAt = 0;
    if (N_Z == 0 || !(s->t > tEnd)) return 0;
    rc = eval_point(c, tEnd);
    if (rc == 0 && !crossing(c->zOld, c->zr)) {
        c->pointAt = 1;    /* v holds tEnd's x and u (cs_x_at), to be delivered */
        return 0;
    }
    c->pointHave = 0;
    if (rc == 0) {   /* the values at tl for the secant (signs as in zOld: a zero keeps the
                        sign; zm is locate_root's scratch afterwards) */
        memcpy(c->zl, c->zOld, (size_t)N_Z * sizeof(double));
        rc = eval_interp(c, tl, c->zm);
        if (rc == 0) {
            zmemory(c->zl, c->zm, 1);
            rc = locate_root(c, tl, tEnd, &tev);
        }
    }
    if (rc != 0) {
        cs_restore_accepted(c, 1);
        return rc < 0 ? rc : -1;
    }
    c->aheadEvent = 1;
    c->aheadTev = tev;
    return 1;
}

/* wall-clock seconds (monotonic where available) */
static double rt_wall_time(void)
{
#if defined(_WIN32)
    /* the Windows C library's clock() is the wall-clock time since the process started (not
     * the CPU time ISO C describes; milliseconds); timespec_get is C11, undeclared in C99 */
    return (double)clock() / CLOCKS_PER_SEC;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}

/* solver.maxSteps: solver steps allowed in one fmi2DoStep */
static long cs_max_steps(const RtCtx *c)
{
    const double m = c->v[OFF_SOLVER_MAXSTEPS];
    return (m >= 1.0 && m <= 2147483647.0) ? (long)m : RT_MAX_STEPS;
}

/* solver.maxStepTime: wall-clock seconds allowed for one fmi2DoStep, 0 = no limit */
static double cs_wall_budget(const RtCtx *c)
{
    const double b = c->v[OFF_SOLVER_MAXSTEPTIME];
    return (b > 0.0 && isfinite(b)) ? b : 0.0;
}

/* Integrate from c->time to tEnd with event handling.
 *
 * Steps reach past communication points.  A solver step is never cut at tEnd: it may
 * end up to RT_AHEAD communication step sizes beyond it (the step size is limited by
 * RT_AHEAD communication step sizes, or by solver.hmax if set), and the values at tEnd
 * come from the step's dense output (c->ahead = 1).  The next fmi2DoStep continues that step if
 * nothing was set in between; any fmi2Set* of an input or parameter (c->dirty, or an
 * event pending) restarts the solver from the interpolated state at tEnd, as before.  An
 * event located beyond tEnd (c->aheadEvent) is handled by the fmi2DoStep whose interval
 * contains it.  Cutting every step at the grid costs a step per communication point when
 * the grid is finer than the solver's step (hybrid mechanism, 2000 points: 4760 steps
 * instead of 2805), and the truncated step also shrinks the next proposal.  Limiting the
 * step to one communication step still cost the Adams method 29 % more evaluations than
 * RT_AHEAD = 16 on that grid (7433 against 5778; on 200 points, where the limit hardly
 * binds, 5812). */
#define RT_AHEAD 16.0
static int cs_integrate(RtCtx *c, const char *fn, double tEnd)
{
    RtOde *s;
    long steps = 0;
    int rc, flags;
    double tBound;
    const double tBegin = c->time;
    const long maxSteps = cs_max_steps(c);
    const double wallBudget = cs_wall_budget(c);
    int st;

    c->deferred[0] = '\0';
    c->pointHave = 0;
    c->pointAt = 0;
    if (cs_solver(c, fn) != 0) return RT_STATUS_ERROR;
    s = c->ode;
    /* work budget known before integrating: solver.hmax forces (tEnd - t)/hmax steps */
    if (N_X > 0 && s->hmax > 0.0 && (tEnd - c->time) / s->hmax > (double)maxSteps)
        return cs_discard(c, fn, "work budget: a step of %.17g s from t=%.17g needs at "
                          "least %.3g solver steps with solver.hmax = %g s, more than "
                          "solver.maxSteps = %ld; refused before integrating (time still "
                          "t=%.17g).  Use shorter communication steps, or raise solver.hmax "
                          "or solver.maxSteps", tEnd - c->time, c->time,
                          (tEnd - c->time) / s->hmax, s->hmax, maxSteps, c->time);
    if (wallBudget > 0.0) c->wallStart = rt_wall_time();
    rt_u_begin_step(c);   /* the inputs' polynomial of this step (input derivatives) */

    /* inputs or parameters changed since the last step: event iteration first */
    if (c->csEventPending || c->dirty) {
        rc = rt_ensure_eval(c);
        if (rc == 0 && c->csEventPending) rc = rt_event_iteration(c, 0, &flags);
        else flags = 0;
        if (rc != 0)
            return cs_discard(c, fn, "model evaluation/event iteration failed at t=%.17g "
                              "after changing inputs or parameters", c->time);
        c->csEventPending = 0;
        if (flags & MDL_EV_TERMINATE) {
            c->terminateRequested = 1;
            return cs_discard(c, fn, "the model called terminate() at t=%.17g", c->time);
        }
        c->odeRestart = 1;
        c->odeResume = 0;
        rt_band_clear(c);
    }
    if (N_X == 0 && N_Z == 0) {   /* nothing continuous: just advance the time */
        c->time = tEnd;
        rt_u_at(c, c->v, tEnd);
        rt_invalidate(c);
        rc = rt_ensure_eval(c);
        if (rc != 0) return cs_discard(c, fn, "model evaluation failed at t=%.17g", tEnd);
        c->lastSuccessfulTime = tEnd;
        return RT_STATUS_OK;
    }
    if (c->odeRestart && s && c->odeResume && rt_live_load(c, s)) {
        /* a restored FMU state whose solver was running: go on with it, a step in progress
           included (its indicators and an event located in it came with it) */
        c->resumeAuto = -1;
        c->odeResume = 0;
        c->odeRestart = 0;
        c->rhsTerminate = 0;
    } else if (c->odeRestart) {
        if (s) {
            /* (a restored running solver that could not be loaded -- solver.method changed
               since, or an invalid record -- starts afresh here) */
            rt_ode_restart(s, c->time, c->v + OFF_X, c->hHint);
            if (c->resumeAuto >= 0) rt_ode_auto_load(s, c->resumeAuto, c->resumeProbe);
        }
        c->resumeAuto = -1;
        c->odeResume = 0;
        c->ahead = 0;
        if (N_Z > 0) rt_zc_eval(c, c->v, c->time, c->zOld);
        c->odeRestart = 0;
        c->rhsTerminate = 0;
    } else if (s && !c->ahead && s->t != c->time) {
        s->t = c->time;   /* snap to the master's grid (differences of a few ulps) */
    }
    /* how far a step may reach: RT_AHEAD communication steps beyond tEnd, not past the stop
       time */
    tBound = tEnd + RT_AHEAD * (tEnd - c->time);
    if (c->stopDefined && tBound > c->tStop) tBound = c->tStop;
    if (tBound < tEnd) tBound = tEnd;
    if (s && !(s->hmax > 0)) s->hmax = RT_AHEAD * (tEnd - c->time);   /* cs_settings resets it per step */
    if (s) s->t_probe = c->stopDefined ? c->tStop : INFINITY;   /* the auto method's probes */

    while (c->time < tEnd) {
        if (N_X > 0) {
            if (!c->ahead) {   /* a new step from (c->time, x) */
                if (wallBudget > 0.0 && steps > 0 && steps % RT_WALL_CHECK == 0) {
                    const double used = rt_wall_time() - c->wallStart;
                    if (used > wallBudget) {
                        cs_restore_accepted(c, 0);
                        return cs_discard(c, fn, "wall-clock budget exceeded: this step from "
                                          "t=%.17g to %.17g ran %.3g s, more than "
                                          "solver.maxStepTime = %g s; stopped at t=%.17g after "
                                          "%ld solver steps (raise solver.maxStepTime, 0 = no "
                                          "limit, or use shorter communication steps)",
                                          tBegin, tEnd, used, wallBudget, c->time, steps);
                    }
                }
                if (++steps > maxSteps) {
                    cs_restore_accepted(c, 0);
                    return cs_discard(c, fn, "work budget exceeded: too many solver steps "
                                      "(more than solver.maxSteps = %ld) in this step from "
                                      "t=%.17g to %.17g, stopped at t=%.17g (h=%.3g); the "
                                      "model is probably stiff for the chosen method or "
                                      "chattering (raise solver.maxSteps or use shorter "
                                      "communication steps)", maxSteps, tBegin, tEnd, c->time,
                                      s->h);
                }
                {
                    const long nsw = s->nswitch;
                    c->quiet++;
                    rc = rt_ode_step(s, tBound);
                    c->quiet--;
                    if (s->nswitch != nsw)
                        rt_logf(c, RT_STATUS_OK, RT_LOG_ALL, "%s: t=%.17g auto solver switched to %s "
                             "(%s) after %ld accepted steps, next h=%.3g", fn, s->t,
                             s->sub->name, s->sw_why ? s->sw_why : "", s->naccept, s->h);
                }
                if (rc == RT_ODE_HMIN && tBound > tEnd && s->t < tEnd) {
                    /* the model cannot be evaluated somewhere beyond tEnd and the steps
                       approached tEnd from below until they underflowed: this doStep must not
                       fail for that.  Land exactly on tEnd, as without steps reaching ahead. */
                    tBound = tEnd;
                    s->msg[0] = '\0';
                    continue;
                }
                if (rc != RT_ODE_OK) {
                    cs_restore_accepted(c, 0);
                    if (c->rhsTerminate || (rc == RT_ODE_ABORT && s->abort_code == MDL_TERMINATE)) {
                        c->terminateRequested = 1;
                        return cs_discard(c, fn, "the model called terminate() at t=%.17g",
                                          c->time);
                    }
                    return cs_discard(c, fn, "integration with %s failed at t=%.17g: %s",
                                      s->sub->name, c->time, s->msg);
                }
                c->stale = 1;      /* x, dx in v belong to the step end (G1); y is stale */
                c->hHint = s->h;
                c->ahead = 1;
                c->aheadEvent = 0;
                if (N_Z > 0) {
                    /* the indicators at the step end: from its last stage (G1) */
                    memcpy(c->z, c->zf, (size_t)N_Z * sizeof(double));
                    if (!crossing(c->zOld, c->z)) {
                        const int kb = rt_band_check(c, c->z);   /* test (3) */
                        if (kb >= 0) {
                            char why[RT_WHY_LEN];
                            rt_band_message(c, kb, s->t_old, c->z[kb], why, sizeof why);
                            cs_restore_accepted(c, 1);      /* undo the step */
                            return cs_discard(c, fn, "%s", why);
                        }
                        zmemory(c->zOld, c->z, 0);
                    } else {   /* locate it now, while zOld/z bracket this step */
                        double tev = s->t;
                        rc = locate_event(c, &tev);
                        if (rc != 0) {
                            cs_restore_accepted(c, 1);   /* the step end lies beyond the event */
                            return cs_discard(c, fn, "model evaluation failed while locating "
                                              "an event near t=%.17g", s->t);
                        }
                        c->aheadEvent = 1;
                        c->aheadTev = tev;
                    }
                }
            }
            /* the last accepted step [t_old, t] covers c->time */
            if (c->aheadEvent) {
                const double tev = c->aheadTev;
                if (tev > tEnd) {                       /* handled by a later fmi2DoStep */
                    rc = cs_check_point(c, tBegin, tEnd);   /* unless one comes earlier */
                    if (rc < 0) return cs_discard(c, fn, "model evaluation failed while "
                                                  "checking the event indicators at t=%.17g",
                                                  tEnd);
                    if (rc == 1) continue;
                    break;
                }
                /* the state just after the root (v may hold a communication point
                   delivered since the location) */
                cs_x_at(c, tev);
                rc = mdl_eval(c->v, tev, c);
                if (rc != 0) {
                    rt_invalidate(c);
                    return cs_discard(c, fn, "model evaluation failed at the event t=%.17g",
                                      tev);
                }
                if (cs_early(c, tev, tEnd) && c->csEventModeUsed)
                    return cs_return_early(c, fn, tev, 0);   /* the importer handles it */
                st = cs_event(c, fn, tev);
                if (st != RT_STATUS_OK) return st;
                if (tEnd - tev <= 1e-13 * (fabs(tEnd) > 1.0 ? fabs(tEnd) : 1.0)) break;
                if (cs_early(c, tev, tEnd)) return cs_return_early(c, fn, tev, 1);
                continue;
            }
            if (s->t >= tEnd) {                         /* tEnd lies in this step */
                rc = cs_check_point(c, tBegin, tEnd);
                if (rc < 0) return cs_discard(c, fn, "model evaluation failed while checking "
                                              "the event indicators at t=%.17g", tEnd);
                if (rc == 1) continue;                  /* an event before tEnd */
                break;
            }
            c->time = s->t;                             /* step consumed */
            c->ahead = 0;
        } else {
            /* no states, but indicators depending on time: the indicators at tEnd; a sign
               change is located in (t0, tEnd] as with states (the indicators are functions
               of time and the discrete values, evaluated at any t), and handled there */
            const double t0 = c->time;
            double tev = tEnd;
            c->time = tEnd;
            rt_u_at(c, c->v, tEnd);
            rc = mdl_eval(c->v, c->time, c);
            if (rc != 0) return cs_discard(c, fn, "model evaluation failed at t=%.17g", tEnd);
            if (N_Z == 0) continue;
            rt_zc_eval(c, c->v, c->time, c->z);
            if (!crossing(c->zOld, c->z)) {
                zmemory(c->zOld, c->z, 0);
                continue;
            }
            memcpy(c->zl, c->zOld, (size_t)N_Z * sizeof(double));
            memcpy(c->zr, c->z, (size_t)N_Z * sizeof(double));
            rc = locate_root(c, t0, tEnd, &tev);
            if (rc == 0) {
                rt_u_at(c, c->v, tev);
                rc = mdl_eval(c->v, tev, c);
            }
            if (rc != 0) return cs_discard(c, fn, "model evaluation failed while locating an event in "
                                           "(%.17g, %.17g]", t0, tEnd);
            if (cs_early(c, tev, tEnd) && c->csEventModeUsed) return cs_return_early(c, fn, tev, 0);
            st = cs_event(c, fn, tev);
            if (st != RT_STATUS_OK) return st;
            if (cs_early(c, tev, tEnd)) return cs_return_early(c, fn, tev, 1);
        }
    }
    /* Deliver exactly the master's communication point, always from the solver's record of
       the last accepted step (its end point s->x, or its dense output inside it), never from
       what v happens to hold: v holds the step end only right after rt_ode_step (G1).  A step
       continued from an earlier fmi2DoStep left v at the communication point delivered then
       (or at an event bracket), so a step ending exactly on tEnd must still be copied. */
    if (N_X > 0 && c->ahead) {
        if (!c->pointAt) cs_x_at(c, tEnd);   /* the step end itself if s->t == tEnd (else
                                                cs_check_point put tEnd there just now) */
        if (!(s->t > tEnd)) c->ahead = 0;   /* the step ends on tEnd: consumed */
        else c->have = c->pointHave;   /* what cs_check_point evaluated at tEnd (eval_point) */
    } else if (s) {
        s->t = tEnd;
    }
    c->time = tEnd;
    c->lastSuccessfulTime = tEnd;
    return RT_STATUS_OK;
}

/* ------------------------------------------------------------------------- */
/* Co-Simulation: a communication step                                        */

/* fmi2DoStep: the arguments checked against the instance (a rejected call leaves it
   unchanged), then cs_integrate */
int rt_cs_do_step(RtCtx *c, const char *fn, double currentCommunicationPoint,
                  double communicationStepSize)
{
    double tol;
    int status = RT_STATUS_OK;
    c->ddValid = 0;                /* the step moves x and t */
    c->csReturnedEarly = 0;
    c->csEventNeeded = 0;
    if (!isfinite(currentCommunicationPoint) || !isfinite(communicationStepSize) ||
        communicationStepSize < 0)
        FAIL("%s: invalid arguments currentCommunicationPoint=%g communicationStepSize=%g",
             fn, currentCommunicationPoint, communicationStepSize);
    tol = 1e-9 * (fabs(c->time) > 1.0 ? fabs(c->time) : 1.0);
    if (fabs(currentCommunicationPoint - c->time) > tol)
        FAIL("%s: currentCommunicationPoint=%.17g does not match the FMU time %.17g", fn,
             currentCommunicationPoint, c->time);
    if (c->terminateRequested)
        FAIL("%s: the model requested termination at t=%.17g", fn, c->lastSuccessfulTime);
    if (c->stopDefined && currentCommunicationPoint + communicationStepSize >
                          c->tStop + 1e-9 * (fabs(c->tStop) > 1.0 ? fabs(c->tStop) : 1.0))
        FAIL("%s: step to t=%.17g goes beyond the stop time %.17g set in "
             "%s", fn, currentCommunicationPoint + communicationStepSize,
             c->tStop, c->names->stopTimeSetter);
    /* only an accepted call snaps the time to the master's grid (a rejected one leaves the
       instance unchanged) */
    c->time = currentCommunicationPoint;
    c->partsAhead = c->partsRead;  /* (eval_point) */
    c->partsRead = 0;
    if (communicationStepSize == 0.0) goto END;
    status = cs_integrate(c, fn, currentCommunicationPoint + communicationStepSize);
    if (status == RT_STATUS_OK) rt_u_end_step(c);   /* the input derivatives were this step's */
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* Co-Simulation: event mode (FMI 3.0; see "early return and event mode")     */

/* from step mode (or after initialization): the importer handles an event at c->time */
int rt_cs_enter_event_mode(RtCtx *c)
{
    c->state = RT_EVENT_MODE;
    c->meEventPasses = 0;
    c->meEvFlags = 0;
    rt_ev_begin(c);
    return RT_STATUS_OK;
}

/* one pass of the event iteration: Model Exchange's (rt_me_new_discrete_states); the event
   is complete when no further pass is needed */
int rt_cs_update_discrete_states(RtCtx *c, const char *fn, RtEventInfo *info)
{
    const int st = rt_me_new_discrete_states(c, fn, info);
    if (st == RT_STATUS_OK && !info->newDiscreteStatesNeeded) c->csEventPending = 0;
    return st;
}

/* back to step mode: the solver restarts from the event point; inputs set in event mode after
   the last update (or an event not updated at all) are handled at the start of the next step */
int rt_cs_enter_step_mode(RtCtx *c)
{
    if (c->dirty) c->csEventPending = 1;
    c->state = RT_STEP_COMPLETE;
    c->odeRestart = 1;
    c->odeResume = 0;
    c->ahead = 0;
    c->aheadEvent = 0;
    c->lastSuccessfulTime = c->time;
    return RT_STATUS_OK;
}
