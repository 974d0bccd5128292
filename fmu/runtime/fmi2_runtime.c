/*
 * fmi2_runtime.c -- the FMI 2.0 API (Model Exchange AND Co-Simulation) of every
 * wearcosim FMU, implemented once on top of the generated config.h + model.c
 * (contract: model_api.h).  Never edited per model.
 *
 * Build (one shared library exporting both ME and CS entry points):
 *   gcc -shared -fPIC -O2 -I fmu/runtime -I fmu/runtime/include -I <dir of config.h>
 *       model.c fmu/runtime/[all .c files] -lm -o <MODEL_IDENTIFIER>.so
 * Every .c file of fmu/runtime is model independent except this file and rt_newton.c, which
 * include config.h.  Define FMI2_FUNCTION_PREFIX (e.g. -DFMI2_FUNCTION_PREFIX=M_) only
 * for source-code/static-library use; shared-library FMUs must not define it.
 *
 * Design (in the spirit of the Modelica Association Reference-FMUs):
 *  - Each FMI function starts with RT_BEGIN(name, mask): NULL/stale-handle check and
 *    a test of the instance state against the function's allowed-state mask
 *    (misuse -> "fmi2X: not allowed in state Y", fmi2Error).  Each has ONE exit
 *    path (label END).
 *  - Rejected calls (wrong state, bad arguments, a value outside min/max or NaN/Inf)
 *    return fmi2Error and leave the instance UNCHANGED and in its state, so a tool
 *    may go on (the FMI standard allows it to treat the instance as broken).  Only
 *    failures of the model itself (mdl_* error codes, event iteration not converging)
 *    move the instance to the error state (ME) or give fmi2Discard (CS doStep).
 *  - Set functions validate ALL values first, then write: no partial update.
 *  - Get and set accept only value references of modelDescription.xml's
 *    ScalarVariables (slots of v with a name and a kind other than MK_INTERNAL):
 *    internal slots (pre values, relation memories, when flags, Newton unknowns) and
 *    references >= NV are refused with fmi2Error naming the value reference.
 *  - Lazy evaluation: setting inputs/parameters, the time or states only marks the
 *    instance dirty; mdl_eval runs before the next get that needs consistent values.
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
 *  - CS input derivatives (canInterpolateInputs, orders 1 and 2): the inputs follow the
 *    polynomial of fmi2SetRealInputDerivatives through the step that starts where it was set,
 *    consumed by it ("input derivatives"); output derivatives (maxOutputDerivativeOrder 1):
 *    dy/dt at the communication point from the model's directional derivatives along
 *    (dx/dt, du/dt) and a difference in t, or a difference along the trajectory ("output
 *    derivatives"); fmi2GetDirectionalDerivative from the generated Jacobian (mdl_dd) or the
 *    model's own directional derivatives (mdl_ddir, the container).
 *  - Logging categories: logEvents, logStatusWarning, logStatusDiscard,
 *    logStatusError, logAll.  Messages with status Discard/Error/Fatal are always
 *    passed to the logger; OK/Warning messages only when debug logging is on for their
 *    category (or logAll).  '%' and '#' in messages are escaped for the importer.
 *  - Memory: allocateMemory/freeMemory of the callbacks (calloc/free if the importer
 *    gives NULL); everything is freed by fmi2FreeInstance.
 *  - Models with state outside v (config.h defines MDL_HAS_HOOKS: the strong-coupling
 *    container, fmu/container/): the mdl_hook_* functions of model_api.h are called at
 *    instantiation, reset, terminate, fmi2SetDebugLogging and free, the FMU state carries
 *    the model's bytes after the runtime's block, and the event location evaluates the model
 *    before each mdl_zc (model_api.h H1-H3).  Everything for them is inside
 *    #ifdef MDL_HAS_HOOKS: other models compile to the same code as without it.
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L   /* clock_gettime (the exporter defines it on its command line) */
#endif
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
/* instruction counts of the generated derivative and Jacobian functions (config.h of
   exported models; 0 = unknown, the auto method then assumes a default) */
#ifndef MDL_COST_DERIV
#define MDL_COST_DERIV 0
#endif
#ifndef MDL_COST_JAC
#define MDL_COST_JAC 0
#endif
#include "model_api.h"
#include "fmi2Functions.h"
#include "rt_ctx.h"
#include "rt_linalg.h"
#include "rt_ode.h"

/* ------------------------------------------------------------------------- */
/* limits                                                                     */
#define RT_MAX_EVENT_ITER 100          /* passes of one event iteration          */
#define RT_MAX_STEPS 1000000L          /* solver.maxSteps when invalid (default)  */
#define RT_WALL_CHECK 256              /* solver steps between clock readings     */
#define RT_MAX_ME_PASSES 1000          /* ME: NewDiscreteStates calls per event  */
#define RT_ROOT_MAXIT 200
/* the running CS solver in an FMU state (live_write): header, zOld and z, the solver */
#define RT_LIVE_HDR 4
#define RT_LIVE_LEN ((size_t)RT_LIVE_HDR + 2 * (size_t)N_Z + rt_ode_live_len(N_X))
/* event chattering / Zeno (see the header comment; RT_EV_HIST in rt_ctx.h) */
#define RT_CHATTER_N 100               /* (2) more than this many events ...      */
#define RT_CHATTER_SPAN 1e-8           /*     ... within this * max(1,|t|)         */
#define RT_ZENO_W 16                   /* (1) events per window                   */
#define RT_ZENO_RATIO 0.9              /*     window at most this x the previous  */
#define RT_ZENO_RUN (2 * RT_ZENO_W)    /*     ... on more consecutive events       */
#define RT_ZENO_REMAIN 1e-4            /*     remaining time / duration of the run */
#define RT_BAND_EPS 1e-8               /* (3) trial time step * max(1,|t|)        */
#define RT_BAND_RTOL 1e-6              /*     |z| > |z_event| * (1 + this)         */
#define RT_TYPE_STRING 3               /* check_vrs: String (no MT_* slot has it)  */
#define RT_WHY_LEN 768                 /* buffer of a chattering message          */
#if RT_EV_HIST <= RT_CHATTER_N || RT_EV_HIST <= 2 * RT_ZENO_W
#error "RT_EV_HIST too small"
#endif

#define NARR(n) ((size_t)((n) > 0 ? (n) : 1))

#ifdef MDL_HAS_HOOKS
/* model_api.h hooks: the instance carries the model's data pointer after the RtCtx (rt_ctx.h
   is model independent), and the size of the model's part of the FMU state being written */
typedef struct {
    RtCtx rt;                       /* first member: an RtCtx * is an RtCtxHooked * */
    void *data;                     /* mdl_hook_instantiate's *data */
    size_t stateExtra;              /* bytes of the model's part (mdl_hook_state_size) */
} RtCtxHooked;
#define RT_HOOKED(c) ((RtCtxHooked *)(c))
#define RT_CTX_SIZE sizeof(RtCtxHooked)
void *rt_model_data(RtCtx *ctx)
{
    return ctx ? RT_HOOKED(ctx)->data : NULL;
}
/* indicators come from the model's evaluation (model_api.h H2) */
#define RT_ZC_NEEDS_EVAL 1
#else
#define RT_CTX_SIZE sizeof(RtCtx)
#define RT_ZC_NEEDS_EVAL (N_W > 0)
#endif

/* ------------------------------------------------------------------------- */
/* allowed-state masks                                                        */
#define S_ANY_ALIVE (RT_INSTANTIATED | RT_INIT_MODE | RT_EVENT_MODE | RT_CT_MODE | \
                     RT_STEP_COMPLETE | RT_STEP_FAILED | RT_STEP_CANCELED | \
                     RT_TERMINATED | RT_ERROR)
#define M_SetDebugLogging S_ANY_ALIVE
#define M_SetupExperiment RT_INSTANTIATED
#define M_EnterInitializationMode RT_INSTANTIATED
#define M_ExitInitializationMode RT_INIT_MODE
#define M_Terminate (RT_EVENT_MODE | RT_CT_MODE | RT_STEP_COMPLETE | RT_STEP_FAILED)
#define M_Reset S_ANY_ALIVE
/* gets are also accepted in 'instantiated' (they return start values): several
   importers read parameters before initialization */
#define M_Get S_ANY_ALIVE
#define M_Set (RT_INSTANTIATED | RT_INIT_MODE | RT_EVENT_MODE | RT_CT_MODE | RT_STEP_COMPLETE)
#define M_FMUstate S_ANY_ALIVE
#define M_GetDirectionalDerivative (RT_INIT_MODE | RT_EVENT_MODE | RT_CT_MODE | \
                                    RT_STEP_COMPLETE | RT_STEP_FAILED | RT_STEP_CANCELED | \
                                    RT_TERMINATED | RT_ERROR)
#define M_EnterEventMode (RT_EVENT_MODE | RT_CT_MODE)
#define M_NewDiscreteStates RT_EVENT_MODE
#define M_EnterContinuousTimeMode RT_EVENT_MODE
#define M_CompletedIntegratorStep RT_CT_MODE
#define M_SetTime (RT_EVENT_MODE | RT_CT_MODE)
#define M_SetContinuousStates RT_CT_MODE
#define M_GetDerivatives (RT_INIT_MODE | RT_EVENT_MODE | RT_CT_MODE | RT_TERMINATED | RT_ERROR)
#define M_GetEventIndicators M_GetDerivatives
#define M_GetContinuousStates M_GetDerivatives
#define M_GetNominals (RT_INSTANTIATED | M_GetDerivatives)
#define M_SetRealInputDerivatives (RT_INSTANTIATED | RT_INIT_MODE | RT_STEP_COMPLETE)
#define M_GetRealOutputDerivatives (RT_STEP_COMPLETE | RT_STEP_FAILED | RT_STEP_CANCELED | \
                                    RT_TERMINATED | RT_ERROR)
#define M_DoStep RT_STEP_COMPLETE
#define M_CancelStep RT_STEP_IN_PROGRESS
#define M_GetStatus (RT_STEP_COMPLETE | RT_STEP_IN_PROGRESS | RT_STEP_FAILED | \
                     RT_STEP_CANCELED | RT_TERMINATED | RT_ERROR)

static const char *const rt_log_categories[RT_LOG_NCAT] = {
    "logEvents", "logStatusWarning", "logStatusDiscard", "logStatusError", "logAll"
};

static const char *state_name(RtState s)
{
    switch (s) {
    case RT_INSTANTIATED: return "instantiated";
    case RT_INIT_MODE: return "initializationMode";
    case RT_EVENT_MODE: return "eventMode";
    case RT_CT_MODE: return "continuousTimeMode";
    case RT_STEP_COMPLETE: return "stepComplete";
    case RT_STEP_IN_PROGRESS: return "stepInProgress";
    case RT_STEP_FAILED: return "stepFailed";
    case RT_STEP_CANCELED: return "stepCanceled";
    case RT_TERMINATED: return "terminated";
    case RT_ERROR: return "error";
    case RT_FATAL: return "fatal";
    }
    return "unknown";
}

/* ------------------------------------------------------------------------- */
/* logging                                                                    */

static int category_index(const char *cat)
{
    int i;
    if (!cat) return RT_LOG_ALL;
    for (i = 0; i < RT_LOG_NCAT; i++)
        if (strcmp(cat, rt_log_categories[i]) == 0) return i;
    return -1;
}

/* core: status, category index, already formatted text in c->msg */
/* whether a message of this status and category reaches the logger: errors and discards
   always, the rest when logging is on for its category */
static int delivered(const RtCtx *c, fmi2Status status, int cat)
{
    if (!c->cb.logger) return 0;
    if (status >= fmi2Discard) return 1;
    return c->loggingOn && ((c->logMask >> cat) & 1u || (c->logMask >> RT_LOG_ALL) & 1u);
}

static void emit(RtCtx *c, fmi2Status status, int cat)
{
    const char *src = c->msg;
    char *dst = c->msg2;
    size_t k = 0;
    if (!delivered(c, status, cat)) return;
    /* escape '%' (importers treat the message as a format) and '#' (variable refs) */
    while (*src && k + 3 < sizeof c->msg2) {
        if (*src == '%' || *src == '#') dst[k++] = *src;
        dst[k++] = *src++;
    }
    dst[k] = '\0';
    c->cb.logger(c->cb.componentEnvironment, c->instanceName, status,
                 rt_log_categories[cat], c->msg2);
}

static int status_category(fmi2Status status, int cat)
{
    switch (status) {
    case fmi2Warning: return RT_LOG_WARNING;
    case fmi2Discard: return RT_LOG_DISCARD;
    case fmi2Error:
    case fmi2Fatal: return RT_LOG_ERROR;
    default: return cat;
    }
}

/* runtime-internal log */
static void rlog(RtCtx *c, fmi2Status status, int cat, const char *fmt, ...)
{
    va_list ap;
    cat = status_category(status, cat);
    if (!delivered(c, status, cat)) return;   /* not formatted either (an event: ~1 us) */
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    emit(c, status, cat);
}

/* model_api.h: log from generated code (and rt_newton) */
void rt_log(RtCtx *ctx, int status, const char *category, const char *fmt, ...)
{
    va_list ap;
    int cat;
    if (!ctx || ctx->magic != RT_CTX_MAGIC || !fmt) return;
    va_start(ap, fmt);
    vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
    va_end(ap);
    if (status < fmi2OK || status > fmi2Fatal) status = fmi2Error;
    if (ctx->quiet > 0 && status >= fmi2Warning) {
        /* during solver trial evaluations: keep only the last message; it is
           reported if the step finally fails */
        memcpy(ctx->deferred, ctx->msg, sizeof ctx->deferred);
        return;
    }
    cat = category_index(category);
    if (cat < 0) cat = RT_LOG_ALL;
    emit(ctx, (fmi2Status)status, status_category((fmi2Status)status, cat));
}

/* ------------------------------------------------------------------------- */
/* entry/exit helpers                                                         */

static int rt_enter(RtCtx *c, const char *fn, unsigned int mask)
{
    if (!c || c->magic != RT_CTX_MAGIC) return 0;
    if (!(c->state & mask)) {
        if (c->terminateRequested && (c->state & (RT_STEP_FAILED | RT_TERMINATED)))
            rlog(c, fmi2Error, RT_LOG_ERROR,
                 "%s: not allowed in state %s (the model requested termination at t=%.17g)",
                 fn, state_name(c->state), c->lastSuccessfulTime);
        else
            rlog(c, fmi2Error, RT_LOG_ERROR, "%s: not allowed in state %s", fn,
                 state_name(c->state));
        return 0;
    }
    return 1;
}

#define RT_BEGIN(fname, mask)                                          \
    RtCtx *c = (RtCtx *)comp;                                          \
    const char *const FN = fname;                                      \
    fmi2Status status = fmi2OK;                                        \
    if (!rt_enter(c, FN, (mask))) { status = fmi2Error; goto END; }

#define FAIL(...) do { rlog(c, fmi2Error, RT_LOG_ERROR, __VA_ARGS__); status = fmi2Error; goto END; } while (0)

static int require_type(RtCtx *c, const char *fn, fmi2Type t)
{
    if (c->type == t) return 1;
    rlog(c, fmi2Error, RT_LOG_ERROR, "%s: only available for %s instances", fn,
         t == fmi2ModelExchange ? "Model Exchange" : "Co-Simulation");
    return 0;
}

static void *rt_calloc(RtCtx *c, size_t n, size_t sz)
{
    return c->cb.allocateMemory(n, sz);
}
static void rt_free(RtCtx *c, void *p)
{
    if (p) c->cb.freeMemory(p);
}

static void *default_calloc(size_t a, size_t b) { return calloc(a, b); }
static void default_free(void *p) { free(p); }

static const char *var_name(fmi2ValueReference vr)
{
    return mdl_var[vr].name ? mdl_var[vr].name : "(internal)";
}

/* ------------------------------------------------------------------------- */
/* model evaluation helpers                                                   */

/* the parts evaluated on their own and the kept Jacobian no longer hold (v was replaced) */
static void forget_parts(RtCtx *c)
{
    c->have = 0;
    c->ddValid = 0;
}

/* the values of v no longer follow from x, u, p, t: the next read evaluates */
static void invalidate(RtCtx *c)
{
    c->dirty = 1;
    forget_parts(c);
}

/* (re)compute everything the current state needs; 0 ok, else model error code */
static int ensure_eval(RtCtx *c)
{
    int rc = 0;
    if (!c->dirty && !c->stale) return 0;
    c->ddValid = 0;     /* initialization may change states and discrete values */
    switch (c->state) {
    case RT_INIT_MODE:
        rc = mdl_calc_params(c->v, c);
        if (rc == 0) rc = mdl_initialize(c->v, c->time, c);
        break;
    case RT_EVENT_MODE:
    case RT_CT_MODE:
    case RT_STEP_COMPLETE:
        rc = mdl_eval(c->v, c->time, c);
        break;
    default:
        return 0;   /* instantiated / failed / terminated: report stored values */
    }
    if (rc == MDL_TERMINATE) { c->terminateRequested = 1; rc = 0; }
    if (rc == 0) c->dirty = c->stale = 0;
    return rc;
}

/* ------------------------------------------------------------------------- */
/* input derivatives (Co-Simulation, canInterpolateInputs = true)             */
/* FMI 2.0 (4.2.1) lets the master give, with the value of a continuous Real input at a
 * communication point tc, its time derivatives there (fmi2SetRealInputDerivatives; "inputs and
 * their derivatives are set with respect to the beginning of a communication time step"), so
 * that the slave can interpolate the input over the step that begins at tc.  Here:
 *  - orders 1 and 2, for inputs of type Real (causality input; every Real input of a generated
 *    model is continuous); another order, or another variable (an Integer or Boolean input, a
 *    parameter, an output), is refused with fmi2Error naming it, and nothing is set;
 *  - allowed where fmi2SetReal may set an input in Co-Simulation: instantiated, initialization
 *    mode, stepComplete (FMI 2.0 4.2.4); the derivatives set before the first step belong to it;
 *  - the fmi2DoStep from tc moves each input with a derivative along
 *        u(tau) = u(tc) + du (tau - tc) + d2u (tau - tc)^2 / 2,
 *    u(tc) its value at the start of the step, at every evaluation inside the step: the solver's
 *    stages and Jacobians, the event indicators (also while an event is located on the dense
 *    output), the event iteration at an event inside the step, and the end of the step;
 *  - after a successful fmi2DoStep the input has the polynomial's value at the end of the step
 *    (what the model used there, so the outputs read afterwards agree with the input read; FMI
 *    3.0 asks the same of an importer's input approximation: u_approx(t_i+1) = u(t_i+1)), and
 *    the derivatives are consumed (0): they describe the step that began where they were set.
 *    A master that sets nothing at the next point holds the input at that value; one that
 *    wants the ramp to go on sets the derivatives again (as FMPy's set_input_derivatives does
 *    at every point).  fmi2SetReal of the input keeps its derivatives (both describe the input
 *    at the same point, set in either order); fmi2Reset clears them; fmi2SetFMUstate restores
 *    those of the state (pending ones and the polynomial of the step in progress);
 *  - a polynomial that differs from the last step's continued to this point (a derivative set,
 *    or one consumed and not set again) restarts the solver, as a changed input value does; the
 *    same polynomial continued (same value, slope and curvature here) does not, so a ramp whose
 *    slope the master sets again at every point lets the solver's steps reach over the
 *    communication points as they do with constant inputs.
 * FMI 2.0 itself says neither when derivatives expire nor which value the input has after the
 * step; the rules above are the reading of "with respect to the beginning of a communication
 * time step" in which a step's inputs depend on what was set at its start only.
 * Without derivatives set (uPon == 0) none of this touches v: runs are bit-identical to a
 * runtime without it. */

/* the inputs of the step's polynomial at time t into v (nothing when it moves none) */
static void u_at(const RtCtx *c, double *v, double t)
{
#if N_U > 0
    int i;
    double dt;
    if (!c->uPon) return;
    dt = t - c->uPt;
    for (i = 0; i < N_U; i++) {
        const double *p = c->uP + 3 * i;
        if (p[1] != 0.0 || p[2] != 0.0) v[OFF_U + i] = p[0] + dt * (p[1] + 0.5 * dt * p[2]);
    }
#else
    (void)c; (void)v; (void)t;
#endif
}

/* the rate of input i at the current point (output derivatives): the first derivative set for
   the next step when some were set since the last step, else the slope of the last step's
   polynomial at its end (0 for an input held constant) */
static double u_rate(const RtCtx *c, int i)
{
    if (c->uDset) return c->uD1[i];
    if (c->uPon) return c->uP[3 * i + 1] + (c->time - c->uPt) * c->uP[3 * i + 2];
    return 0.0;
}

/* The polynomial of the step that starts at c->time: the inputs' values now and the derivatives
   set at this point; the solver restarts unless it is the last step's polynomial continued. */
static void u_begin_step(RtCtx *c)
{
#if N_U > 0
    int i, same = 1, on = 0;
    const double dt = c->time - c->uPt;
    for (i = 0; i < N_U; i++) {
        double *p = c->uP + 3 * i;
        const double a0 = c->v[OFF_U + i], a1 = c->uD1[i], a2 = c->uD2[i];
        if (c->uPon && (p[1] != 0.0 || p[2] != 0.0)) {
            if (a0 != p[0] + dt * (p[1] + 0.5 * dt * p[2]) || a1 != p[1] + dt * p[2] || a2 != p[2])
                same = 0;
        } else if (a1 != 0.0 || a2 != 0.0) {
            same = 0;
        }
        p[0] = a0;
        p[1] = a1;
        p[2] = a2;
        if (a1 != 0.0 || a2 != 0.0) on = 1;
    }
    c->uPt = c->time;
    c->uPon = on;
    if (!same) {
        c->odeRestart = 1;   /* the right-hand side changed, as with a new input value */
        c->odeResume = 0;
        if (c->stale) invalidate(c);   /* the restart's indicators from a whole evaluation */
    }
#else
    (void)c;
#endif
}

/* After a successful fmi2DoStep to c->time: the inputs at the step's end (v is evaluated again
   before a read if one moved), the derivatives consumed. */
static void u_end_step(RtCtx *c)
{
#if N_U > 0
    if (c->uPon) {   /* (some input moves) */
        double *w = c->vScratch;
        memcpy(w + OFF_U, c->v + OFF_U, (size_t)N_U * sizeof(double));
        u_at(c, c->v, c->time);
        if (memcmp(w + OFF_U, c->v + OFF_U, (size_t)N_U * sizeof(double)) != 0) {
            c->stale = 1;
            forget_parts(c);
        }
    }
    memset(c->uD1, 0, (size_t)N_U * sizeof(double));
    memset(c->uD2, 0, (size_t)N_U * sizeof(double));
#endif
    c->uDset = 0;
}

/* ------------------------------------------------------------------------- */
/* evaluation in parts (model_api.h): ME continuous-time mode only, where an importer that
   couples FMUs reads outputs, sets inputs and then asks for derivatives at every
   right-hand side; the whole mdl_eval stays the path everywhere else */
#ifndef MDL_HAS_OUT
#define MDL_HAS_OUT 0
#endif
#ifndef N_DALG          /* hand-written models: every discrete variable is a state of events */
#define N_DALG 0
#endif
#if N_W == 0 && !defined(MDL_HAS_HOOKS)
#define RT_PARTS 1
#else
#define RT_PARTS 0
#endif
enum { RT_HAVE_DX = 1, RT_HAVE_Z = 2, RT_HAVE_OUT = 4, RT_HAVE_CHEAP = 8 };

static int by_parts(const RtCtx *c)
{
    /* ME: v was invalidated (new x, u or t); CS after a step: v holds the delivered x with
       everything else stale (cs_x_at), so a master reading its outputs at every
       communication point pays for the outputs, not for all variables */
    return RT_PARTS && ((c->dirty && !c->stale && c->state == RT_CT_MODE) ||
                        (c->stale && !c->dirty && c->state == RT_STEP_COMPLETE));
}

#ifndef MDL_HAS_OUT_CHEAP
#define MDL_HAS_OUT_CHEAP 0
#endif

/* make part (RT_HAVE_DX: dx and z by mdl_deriv; RT_HAVE_OUT: the outputs and z by
   mdl_out; RT_HAVE_CHEAP: the cheap outputs by mdl_out_cheap, which all outputs include)
   current; 0 ok, else the model's error code */
static void zshift(const RtCtx *c, double *z);   /* (configuration search, below) */

static int eval_part(RtCtx *c, int part)
{
    int rc = 0;
    if (c->have & (part == RT_HAVE_CHEAP ? RT_HAVE_CHEAP | RT_HAVE_OUT : part)) return 0;
    if (part == RT_HAVE_CHEAP) {
#if MDL_HAS_OUT && MDL_HAS_OUT_CHEAP
        rc = mdl_out_cheap(c->v, c->time, c);
#endif
        if (rc == 0) c->have |= RT_HAVE_CHEAP;
        return rc;
    }
    if (part == RT_HAVE_OUT) {
#if MDL_HAS_OUT
        rc = mdl_out(c->v, c->time, c->zPart, c);
#endif
    } else {
        rc = mdl_deriv(c->v, c->time, c->zPart, c);
    }
    if (rc == MDL_TERMINATE) { c->terminateRequested = 1; rc = 0; }
    if (rc == 0) zshift(c, c->zPart);
    if (rc == 0) c->have |= part | RT_HAVE_Z;
    return rc;
}

#ifndef MDL_HAS_DDIR
#define MDL_HAS_DDIR 0
#endif
#if MDL_HAS_OUT || defined(N_OUTLIST)
/* index of key in the ascending a[0..n-1], -1 if absent */
static int sorted_index(const int *a, int n, int key)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (a[mid] == key) return mid;
        if (a[mid] < key) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}
#endif

#if MDL_HAS_OUT
/* index of vr in mdl_out_slot (ascending), -1 if it is not an output mdl_out computes */
static int out_index(fmi2ValueReference vr)
{
    return sorted_index(mdl_out_slot, N_OUT, (int)vr);
}

/* 1 if output o (an index into mdl_out_slot) is one of those mdl_out_cheap computes */
static int out_is_cheap(int o)
{
#if MDL_HAS_OUT_CHEAP
    return sorted_index(mdl_out_cheap_idx, N_OUT_CHEAP, o) >= 0;
#else
    (void)o;
    return 0;
#endif
}
#endif

#ifndef MDL_HAS_DD
#define MDL_HAS_DD 0
#endif
#if MDL_HAS_DD && MDL_HAS_DDIR
#error "MDL_HAS_DD and MDL_HAS_DDIR exclude each other"
#endif
#if MDL_HAS_DDIR && !defined(N_OUTLIST)
#error "MDL_HAS_DDIR needs N_OUTLIST (model_api.h)"
#endif

/* vr lies in the slice [off, off + n) of v */
static int in_slice(fmi2ValueReference vr, long off, long n)
{
    return (long)vr >= off && (long)vr < off + n;
}

/* slot of column j of d(dx, outputs)/d(x, u) (the states, then the inputs) */
static int dd_col_slot(int j)
{
    return j < N_X ? OFF_X + j : OFF_U + j - N_X;
}

/* 1 if vr is an output of the model's list (MDL_HAS_OUT: mdl_out_slot; N_OUTLIST:
   mdl_outlist), 0 if not, -1 if the model has no list */
static int is_listed_output(fmi2ValueReference vr)
{
#if MDL_HAS_OUT
    return out_index(vr) >= 0;
#elif defined(N_OUTLIST)
    return sorted_index(mdl_outlist, N_OUTLIST, (int)vr) >= 0;
#else
    (void)vr;
    return -1;
#endif
}

#if MDL_HAS_DD || MDL_HAS_DDIR
/* what unknown vr of a directional derivative is: DD_ROW (a state derivative or an output: its
   value in ddOut[vr]), DD_STATE (a state: its own seed, also in ddOut[vr]), DD_ZERO (a discrete
   variable: derivative 0), -1 not an unknown */
enum { DD_ROW = 1, DD_STATE = -2, DD_ZERO = -3 };
static int dd_unknown(fmi2ValueReference vr)
{
    if (in_slice(vr, OFF_DX, N_X)) return DD_ROW;
    if (in_slice(vr, OFF_X, N_X)) return DD_STATE;
    if (in_slice(vr, OFF_D + N_DALG, N_D - N_DALG)) return DD_ZERO;
    return is_listed_output(vr) > 0 ? DD_ROW : -1;
}

/* a known of a directional derivative: a state or an input */
static int dd_known(fmi2ValueReference vr)
{
    return in_slice(vr, OFF_X, N_X) || in_slice(vr, OFF_U, N_U);
}
#endif

#if MDL_HAS_DD
/* row of d(dx, outputs)/d(x, u) of a state derivative or output slot, -1 none */
static int dd_row(fmi2ValueReference vr)
{
    if (in_slice(vr, OFF_DX, N_X)) return (int)vr - OFF_DX;
    return out_index(vr) >= 0 ? N_X + out_index(vr) : -1;
}


/* out[0 .. N_X+N_OUT-1] = central difference of (dx, outputs) along the seeds c->ddSeed (by
   slot: the states and inputs), evaluated on a copy of v (the instance's values stay as they
   are): for rows where the generated Jacobian has a non-finite entry (a point without
   derivative) */
static int dd_differences(RtCtx *c, double *out)
{
    const int m = N_X + N_OUT;
    const double *seed = c->ddSeed;
    double *w = c->vScratch, *fp = c->ddAcc + 2 * NARR(m), h = INFINITY;
    int j, side, k, rc = 0;
    for (j = 0; j < N_X + N_U; j++) {   /* each known moves by at most sqrt(eps)*max(|x|, 1e-6) */
        const double x = fabs(c->v[dd_col_slot(j)]), s = fabs(seed[dd_col_slot(j)]);
        if (s > 0 && 1.4901161193847656e-08 * (x > 1e-6 ? x : 1e-6) / s < h)
            h = 1.4901161193847656e-08 * (x > 1e-6 ? x : 1e-6) / s;
    }
    if (!isfinite(h)) {            /* a zero seed: a zero derivative */
        memset(out, 0, (size_t)NARR(m) * sizeof(double));
        return 0;
    }
    c->quiet++;
    for (side = 0; side < 2 && rc == 0; side++) {
        double *f = side == 0 ? fp : out;
        memcpy(w, c->v, (size_t)NV * sizeof(double));
        for (j = 0; j < N_X + N_U; j++) w[dd_col_slot(j)] += (side == 0 ? h : -h) * seed[dd_col_slot(j)];
        rc = mdl_deriv(w, c->time, NULL, c);
#if MDL_HAS_OUT
        if (rc == 0) rc = mdl_out(w, c->time, NULL, c);
#endif
        if (rc == MDL_TERMINATE) rc = 0;
        for (k = 0; k < N_X; k++) f[k] = w[OFF_DX + k];
        for (k = 0; k < N_OUT; k++) f[N_X + k] = w[mdl_out_slot[k]];
    }
    c->quiet--;
    for (k = 0; k < m; k++) out[k] = (fp[k] - out[k]) / (2 * h);
    return rc;
}
#endif

#if MDL_HAS_DD || MDL_HAS_DDIR
/* the seeds of a directional derivative: 0 (dd_core reads the states' and inputs' slots) */
static void dd_seed_clear(RtCtx *c)
{
    memset(c->ddSeed, 0, (size_t)NV * sizeof(double));
}

/* The directional derivative at the current point (t, v) along the seeds c->ddSeed (by slot:
 * the states and inputs, dd_seed_clear elsewhere) into c->ddOut (by slot): the state
 * derivatives, the outputs, and the states themselves (their seeds).  mdl_dd: d(dx, outputs)/d(x, u) from the
 * generated sparse Jacobian (d(dx)/dx from the solver's, mdl_jac_nz; kept while the point
 * stays), rows with a non-finite entry by central differences when one of the unknowns
 * want[0 .. nwant-1] is such a row; mdl_ddir: the model's own.  0 ok, else the model's code
 * (-1: mdl_ddir has none now). */
static int dd_core(RtCtx *c, const fmi2ValueReference want[], size_t nwant)
{
    const double *seed = c->ddSeed;
    double *out = c->ddOut;
    int k, rc = 0;
#if MDL_HAS_DD
    const int m = N_X + N_OUT;
    double *acc = c->ddAcc, *bad = c->ddAcc + NARR(m);   /* bad[r] != 0: row r differences */
    int j, p, nbad = 0;
    size_t i;
    if (!c->ddValid) {      /* d(dx)/dx from the solver's Jacobian, the rest from mdl_dd */
        (void)mdl_dd(c->v, c->time, c->ddJ, c);
#if N_X > 0
        (void)mdl_jac_nz(c->v, c->time, c->ddJx, c);   /* -1 if some entry is not finite:
                                                          handled entry by entry below */
#endif
        c->ddValid = 1;
    }
    memset(acc, 0, 2 * NARR(m) * sizeof(double));
    for (j = 0; j < N_X + N_U; j++) {
        const double sj = seed[dd_col_slot(j)];
        if (sj == 0.0) continue;
        for (p = mdl_dd_colind[j]; p < mdl_dd_colind[j + 1]; p++) {
            if (isfinite(c->ddJ[p])) acc[mdl_dd_row[p]] += c->ddJ[p] * sj;
            else bad[mdl_dd_row[p]] = 1.0;
        }
#if N_X > 0
        if (j < N_X)
            for (p = mdl_jac_colind[j]; p < mdl_jac_colind[j + 1]; p++) {
                if (isfinite(c->ddJx[p])) acc[mdl_jac_row[p]] += c->ddJx[p] * sj;
                else bad[mdl_jac_row[p]] = 1.0;
            }
#endif
    }
    for (i = 0; i < nwant; i++) {
        const int r = dd_row(want[i]);
        if (r >= 0 && bad[r] != 0.0) nbad++;
    }
    if (nbad > 0) {            /* the rows asked for that have no exact value */
        double *fd = c->ddAcc + 3 * NARR(m);
        rc = dd_differences(c, fd);
        for (p = 0; p < m; p++)
            if (bad[p] != 0.0) acc[p] = fd[p];
    }
    for (k = 0; k < N_X; k++) out[OFF_DX + k] = acc[k];   /* (the other slots: not read) */
    for (k = 0; k < N_OUT; k++) out[mdl_out_slot[k]] = acc[N_X + k];
#else
    (void)want; (void)nwant;
    memcpy(out, seed, (size_t)NV * sizeof(double));
    rc = mdl_ddir(c->v, c->time, out, c);
    if (rc == MDL_TERMINATE) rc = 0;
#endif
    for (k = 0; k < N_X; k++) out[OFF_X + k] = seed[OFF_X + k];
    return rc;
}
#endif

/* the parts a get of these variables needs (RT_HAVE_*; outputs: RT_HAVE_CHEAP while all
   asked are cheap ones, the kinematics a master plots rather than the contact forces), -1: a
   whole evaluation */
static int parts_for(const fmi2ValueReference vr[], size_t nvr)
{
    size_t i;
    int need = 0;
    for (i = 0; i < nvr; i++) {
        const int k = mdl_var[vr[i]].kind;
        if (k == MK_STATE || k == MK_INPUT || k == MK_PARAM_FIXED || k == MK_PARAM_TUNABLE ||
            k == MK_CALC_PARAM || (k == MK_DISCRETE && vr[i] >= (fmi2ValueReference)(OFF_D + N_DALG)))
            continue;
        if (k == MK_DERIV) { need |= RT_HAVE_DX; continue; }
#if MDL_HAS_OUT
        {
            const int o = out_index(vr[i]);
            if (o >= 0) {
                need |= out_is_cheap(o) ? RT_HAVE_CHEAP : RT_HAVE_OUT;
                continue;
            }
        }
#endif
        return -1;
    }
    return (need & RT_HAVE_OUT) ? need & ~RT_HAVE_CHEAP : need;
}

static void copy_pre(RtCtx *c)
{
    double *v = c->v;
#if N_D > 0
    memcpy(v + OFF_DPRE, v + OFF_D, (size_t)N_D * sizeof(double));
#endif
#if N_M > 0
    memcpy(v + OFF_MPRE, v + OFF_M, (size_t)N_M * sizeof(double));
#endif
#if N_C > 0
    memcpy(v + OFF_CPRE, v + OFF_C, (size_t)N_C * sizeof(double));
#endif
    (void)v;
}

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
static void zshift(const RtCtx *c, double *z)
{
    int k;
    if (c->nOff == 0 || !z) return;
    for (k = 0; k < N_Z; k++) z[k] -= c->zOff[k];
}

static void zc_eval(RtCtx *c, const double *v, double t, double *z)
{
    mdl_zc(v, t, z);
    zshift(c, z);
}

/* At the end of an event iteration.  A relation held against the sign of its indicator by a
 * configuration search (rt_event_hold; |g| <= RT_HOLD_BAND h) would leave an indicator whose
 * sign contradicts its memory: an importer (and the CS event detection) would take its next
 * move toward the consistent sign for a crossing, and its move away for none -- the relation
 * would stay held however far g goes.  Its indicator is shifted instead, by the constant that
 * makes it +-h here (z - zOff), so that it crosses when g has moved by about 2h further
 * against the memory: hysteresis centred on the point where the relation was held.  The
 * offsets hold until the next event; every other event iteration clears them. */
static void hold_offsets(RtCtx *c)
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
        rlog(c, fmi2OK, RT_LOG_EVENTS, "event at t=%.17g: %d relations held at their "
             "switching surfaces (indicators shifted until the next event)", c->time, c->nOff);
#else
    (void)c;
#endif
}

static void cycle_reset(RtCtx *c)
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
            copy_pre(c);
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
                    rlog(c, fmi2OK, RT_LOG_EVENTS, "event iteration at t=%.17g: it cycled (%d "
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
    rlog(c, fmi2Error, RT_LOG_ERROR, "event iteration at t=%.17g cycles (%d relations switched), "
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
static int ev_pass(RtCtx *c, int initial, int *flags)
{
    int rc;
    *flags = 0;
    copy_pre(c);
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
static int event_iteration(RtCtx *c, int initial, int *flags_out)
{
    int k;
    *flags_out = 0;
    cycle_reset(c);
    for (k = 0; k < RT_MAX_EVENT_ITER; k++) {
        int flags = 0;
        int rc = ev_pass(c, initial, &flags);
        if (rc == 2) return 2;
        if (rc != 0) return 1;
        *flags_out |= flags & (MDL_EV_REINIT | MDL_EV_TERMINATE);
        if (!(flags & MDL_EV_CHANGED)) {
            c->dirty = 0;
            hold_offsets(c);
            return 0;
        }
    }
    rlog(c, fmi2Error, RT_LOG_ERROR,
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
static void ev_begin(RtCtx *c)
{
    if (N_Z > 0) memcpy(c->mEv, c->v + OFF_M, (size_t)N_Z * sizeof(double));
}

/* Record the state event just handled at t (event iteration done) and apply tests (1)
 * and (2).  Returns 0, or 1 with the reason in buf (CS: fmi2Discard, ME: fmi2Error). */
static int ev_record(RtCtx *c, double t, char *buf, size_t n)
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

static void band_clear(RtCtx *c)
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
static void band_setup(RtCtx *c, int reinit)
{
    double *vs = c->vScratch;
    double eps;
    int k, i, rc, any = 0;
    band_clear(c);
    if (!reinit || N_X == 0) return;
    for (k = 0; k < N_Z; k++)
        if (c->v[OFF_M + k] != c->mEv[k]) any = 1;
    if (!any) return;
    eps = RT_BAND_EPS * (fabs(c->time) > 1.0 ? fabs(c->time) : 1.0);
    zc_eval(c, c->v, c->time, c->zl);
    memcpy(vs, c->v, (size_t)NV * sizeof(double));
    memcpy(vs + OFF_M, c->mEv, (size_t)N_Z * sizeof(double));
    zc_eval(c, vs, c->time, c->zm);              /* the memories of before the event */
    memcpy(vs, c->v, (size_t)NV * sizeof(double));
    for (i = 0; i < N_X; i++) vs[OFF_X + i] += eps * c->v[OFF_DX + i];
    u_at(c, vs, c->time + eps);
    c->quiet++;
    rc = mdl_deriv(vs, c->time + eps, c->zr, c);
    c->quiet--;
    zshift(c, c->zr);
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
static int band_check(RtCtx *c, const double *z)
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

static void band_message(const RtCtx *c, int k, double t, double zk, char *buf, size_t n)
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

/* ------------------------------------------------------------------------- */
/* common functions                                                           */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component comp, fmi2Boolean loggingOn,
                               size_t nCategories, const fmi2String categories[])
{
    size_t i;
    unsigned int mask;
    RT_BEGIN("fmi2SetDebugLogging", M_SetDebugLogging)
    if (nCategories > 0 && !categories) FAIL("%s: categories is NULL", FN);
    mask = c->logMask;
    if (nCategories == 0) {
        mask = loggingOn ? (1u << RT_LOG_NCAT) - 1u : 0u;
    } else {
        for (i = 0; i < nCategories; i++) {
            int k = categories[i] ? category_index(categories[i]) : -1;
            if (k < 0)
                FAIL("%s: unknown log category '%s' (known: logEvents, logStatusWarning, "
                     "logStatusDiscard, logStatusError, logAll)", FN,
                     categories[i] ? categories[i] : "(null)");
            if (loggingOn) mask |= 1u << k;
            else mask &= ~(1u << k);
        }
    }
    c->logMask = mask;
    /* FMI 2.0: with categories, loggingOn switches only those; the others keep their state */
    c->loggingOn = mask != 0u;
#ifdef MDL_HAS_HOOKS
    mdl_hook_debug_logging(c, loggingOn ? 1 : 0, nCategories, (const char *const *)categories);
#endif
END:
    return status;
}

static void set_defaults(RtCtx *c)
{
    mdl_set_start(c->v);
    c->time = DEFAULT_START_TIME;
    c->tStart = DEFAULT_START_TIME;
    c->tStop = DEFAULT_STOP_TIME;
    c->stopDefined = 0;
    c->tolerance = DEFAULT_TOLERANCE;
    c->toleranceDefined = 0;
    invalidate(c);
    c->terminateRequested = 0;
    c->lastSuccessfulTime = c->time;
    c->meEventPasses = 0;
    c->odeRestart = 1;
    c->odeResume = 0;
    c->csEventPending = 0;
    c->hHint = 0.0;
    c->nEvents = 0;
    c->quiet = 0;
    c->deferred[0] = '\0';
    c->resumeAuto = -1;          /* (drops a pending auto-method state) */
    memset(c->evHist, 0, sizeof c->evHist);
    c->evHead = 0;
    c->evN = 0;
    c->evTotal = 0;
    c->zenoRun = 0;
    c->zenoT0 = 0.0;
    c->tBand = 0.0;
    c->meEvFlags = 0;
    memset(c->mEv, 0, NARR(N_Z) * sizeof(double));
    memset(c->zBand, 0, NARR(N_Z) * sizeof(double));
    memset(c->zOff, 0, NARR(N_Z) * sizeof(double));
    c->nOff = 0;
    c->evHold = 0;
    memset(c->uD1, 0, NARR(N_U) * sizeof(double));
    memset(c->uD2, 0, NARR(N_U) * sizeof(double));
    memset(c->uP, 0, 3 * NARR(N_U) * sizeof(double));
    c->uPt = 0.0;
    c->uPon = 0;
    c->uDset = 0;
    if (c->ode) {
        rt_ode_reset_stats(c->ode);
        rt_ode_auto_reset(c->ode);
    }
}

static void free_instance(RtCtx *c)
{
    void (*fr)(void *) = c->cb.freeMemory;
#ifdef MDL_HAS_HOOKS
    mdl_hook_free(c);
    RT_HOOKED(c)->data = NULL;
#endif
    if (c->ode) rt_ode_free(c->ode);
    c->magic = 0;
    if (c->instanceName) fr(c->instanceName);
    if (c->v) fr(c->v);
    if (c->z) fr(c->z);
    if (c->zOld) fr(c->zOld);
    if (c->zl) fr(c->zl);
    if (c->zr) fr(c->zr);
    if (c->zm) fr(c->zm);
    if (c->zf) fr(c->zf);
    if (c->zPart) fr(c->zPart);
#if MDL_HAS_DD
    if (c->ddJ) fr(c->ddJ);
    if (c->ddAcc) fr(c->ddAcc);
    if (c->ddJx) fr(c->ddJx);
#endif
    if (c->ddSeed) fr(c->ddSeed);
    if (c->ddOut) fr(c->ddOut);
    if (c->uD1) fr(c->uD1);
    if (c->uD2) fr(c->uD2);
    if (c->uP) fr(c->uP);
    if (c->xe) fr(c->xe);
    if (c->liveBuf) fr(c->liveBuf);
    if (c->xNominal) fr(c->xNominal);
    if (c->mEv) fr(c->mEv);
    if (c->zBand) fr(c->zBand);
    if (c->vScratch) fr(c->vScratch);
    if (c->mRef) fr(c->mRef);
    if (c->mFlip) fr(c->mFlip);
    if (c->vHold) fr(c->vHold);
    if (c->zA) fr(c->zA);
    if (c->zB) fr(c->zB);
    if (c->zOff) fr(c->zOff);
    if (c->nlR) fr(c->nlR);
    if (c->nlR2) fr(c->nlR2);
    if (c->nlJ) fr(c->nlJ);
    if (c->nlDw) fr(c->nlDw);
    if (c->nlWb) fr(c->nlWb);
    if (c->nlW0) fr(c->nlW0);
    if (c->nlPiv) fr(c->nlPiv);
    if (c->nlHom) fr(c->nlHom);
    rt_band_free(c->nlBand);
    fr(c);
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType,
                              fmi2String fmuGUID, fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    RtCtx *c = NULL;
    void *(*al)(size_t, size_t);
    void (*fr)(void *);
    const char *err = NULL;
    size_t len;
    (void)fmuResourceLocation;
    (void)visible;

    if (!functions) return NULL;   /* nobody to tell */
    if (functions->allocateMemory && functions->freeMemory) {
        al = functions->allocateMemory;
        fr = functions->freeMemory;
    } else {                       /* non-conforming importer: use a consistent pair */
        al = default_calloc;
        fr = default_free;
    }
    if (!instanceName || !*instanceName) err = "fmi2Instantiate: missing instance name";
    else if (!fmuGUID || strcmp(fmuGUID, MODEL_GUID) != 0)
        err = "fmi2Instantiate: GUID does not match this FMU (expected " MODEL_GUID ")";
    else if (fmuType != fmi2ModelExchange && fmuType != fmi2CoSimulation)
        err = "fmi2Instantiate: unknown fmuType";
    if (err) {
        if (functions->logger)
            functions->logger(functions->componentEnvironment,
                              instanceName ? instanceName : "?", fmi2Error,
                              "logStatusError", err);
        return NULL;
    }

    c = (RtCtx *)al(1, RT_CTX_SIZE);
    if (!c) goto oom;
    c->cb = *functions;
    c->cb.allocateMemory = al;
    c->cb.freeMemory = fr;
    c->magic = RT_CTX_MAGIC;
    c->type = fmuType;
    c->loggingOn = loggingOn ? 1 : 0;
    c->logMask = loggingOn ? (1u << RT_LOG_NCAT) - 1u : 0u;
    c->state = RT_INSTANTIATED;
    c->odeMethod = -1;
    len = strlen(instanceName);
    c->instanceName = (char *)al(len + 1, 1);
    c->v = (double *)al(NARR(NV), sizeof(double));
    c->z = (double *)al(NARR(N_Z), sizeof(double));
    c->zOld = (double *)al(NARR(N_Z), sizeof(double));
    c->zl = (double *)al(NARR(N_Z), sizeof(double));
    c->zr = (double *)al(NARR(N_Z), sizeof(double));
    c->zm = (double *)al(NARR(N_Z), sizeof(double));
    c->zf = (double *)al(NARR(N_Z), sizeof(double));
    c->zPart = (double *)al(NARR(N_Z), sizeof(double));
#if MDL_HAS_DD
    c->ddJ = (double *)al(NARR(MDL_DD_NNZ), sizeof(double));
    c->ddAcc = (double *)al(4 * NARR(N_X + N_OUT), sizeof(double));  /* exact, bad, f+, f-/out */
    c->ddJx = (double *)al(NARR(MDL_JAC_NNZ), sizeof(double));
    if (!c->ddJ || !c->ddAcc || !c->ddJx) goto oom;
#endif
    c->ddSeed = (double *)al(NARR(NV), sizeof(double));   /* (also the output derivatives') */
    c->ddOut = (double *)al(NARR(NV), sizeof(double));
    if (!c->ddSeed || !c->ddOut) goto oom;
    c->uD1 = (double *)al(NARR(N_U), sizeof(double));
    c->uD2 = (double *)al(NARR(N_U), sizeof(double));
    c->uP = (double *)al(3 * NARR(N_U), sizeof(double));
    if (!c->uD1 || !c->uD2 || !c->uP) goto oom;
    c->xe = (double *)al(NARR(N_X), sizeof(double));
    c->liveBuf = (double *)al(RT_LIVE_LEN, sizeof(double));
    c->xNominal = (double *)al(NARR(N_X), sizeof(double));
    c->mEv = (double *)al(NARR(N_Z), sizeof(double));
    c->zBand = (double *)al(NARR(N_Z), sizeof(double));
    c->vScratch = (double *)al(NARR(NV), sizeof(double));
    c->mRef = (double *)al(NARR(N_M), sizeof(double));
    c->mFlip = (unsigned char *)al(NARR(N_M), 1);
    c->vHold = (double *)al(NARR(N_M > 0 ? NV : 0), sizeof(double));
    c->zA = (double *)al(NARR(N_Z), sizeof(double));
    c->zB = (double *)al(NARR(N_Z), sizeof(double));
    c->zOff = (double *)al(NARR(N_Z), sizeof(double));
    if (!c->instanceName || !c->v || !c->z || !c->zOld || !c->zl || !c->zr || !c->zm ||
        !c->zf || !c->zPart || !c->xe || !c->xNominal || !c->mEv || !c->zBand || !c->vScratch ||
        !c->mRef || !c->mFlip || !c->vHold || !c->zA || !c->zB || !c->zOff ||
        !c->liveBuf)
        goto oom;
    memcpy(c->instanceName, instanceName, len + 1);
    {
        int i;
        for (i = 0; i < N_X; i++) {
            const double nom = mdl_x_nominal[i];
            c->xNominal[i] = (isfinite(nom) && nom > 0.0) ? nom : 1.0;
        }
    }
#if N_W > 0
    c->nlR = (double *)al(N_W, sizeof(double));
    c->nlR2 = (double *)al(N_W, sizeof(double));
#ifdef MDL_NL_NNZ
    /* a large loop with a narrow band after reordering: sparse Newton (rt_newton.c) */
    c->nlBand = rt_band_new(N_W, mdl_nl_colind, mdl_nl_row, 0, al, functions->freeMemory);
    c->nlJ = c->nlBand ? (double *)al(MDL_NL_NNZ > 0 ? MDL_NL_NNZ : 1, sizeof(double))
                       : (double *)al((size_t)N_W * N_W, sizeof(double));
#else
    c->nlJ = (double *)al((size_t)N_W * N_W, sizeof(double));
#endif
    c->nlDw = (double *)al(N_W, sizeof(double));
    c->nlWb = (double *)al(N_W, sizeof(double));
    c->nlW0 = (double *)al(N_W, sizeof(double));
    c->nlPiv = (int *)al(N_W, sizeof(int));
    if (!c->nlR || !c->nlR2 || !c->nlJ || !c->nlDw || !c->nlWb || !c->nlW0 || !c->nlPiv)
        goto oom;
#endif
    set_defaults(c);
#ifdef MDL_HAS_HOOKS
    if (mdl_hook_instantiate(c, instanceName, fmuResourceLocation,
                             fmuType == fmi2CoSimulation ? 1 : 0, loggingOn ? 1 : 0,
                             &RT_HOOKED(c)->data) != 0) {
        free_instance(c);          /* the model logged why */
        return NULL;
    }
#endif
    return (fmi2Component)c;
oom:
    if (functions->logger)
        functions->logger(functions->componentEnvironment, instanceName, fmi2Error,
                          "logStatusError", "fmi2Instantiate: out of memory");
    if (c) free_instance(c);
    return NULL;
}

void fmi2FreeInstance(fmi2Component comp)
{
    RtCtx *c = (RtCtx *)comp;
    /* allowed in every state (also error/fatal) so that nothing leaks */
    if (!c || c->magic != RT_CTX_MAGIC) return;
    free_instance(c);
}

fmi2Status fmi2SetupExperiment(fmi2Component comp, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    RT_BEGIN("fmi2SetupExperiment", M_SetupExperiment)
    if (!isfinite(startTime)) FAIL("%s: startTime = %g is not finite", FN, startTime);
    if (toleranceDefined && !(tolerance > 0 && isfinite(tolerance)))
        FAIL("%s: tolerance = %g must be > 0", FN, tolerance);
    if (stopTimeDefined && !(stopTime >= startTime))
        FAIL("%s: stopTime = %g < startTime = %g", FN, stopTime, startTime);
    c->toleranceDefined = toleranceDefined ? 1 : 0;
    if (toleranceDefined) c->tolerance = tolerance;
    c->tStart = startTime;
    c->stopDefined = stopTimeDefined ? 1 : 0;
    if (stopTimeDefined) c->tStop = stopTime;
    c->time = startTime;
    c->lastSuccessfulTime = startTime;
END:
    return status;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component comp)
{
    int rc;
    RT_BEGIN("fmi2EnterInitializationMode", M_EnterInitializationMode)
    c->time = c->tStart;
    c->state = RT_INIT_MODE;
    invalidate(c);
    rc = ensure_eval(c);
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: initialization failed at t=%.17g (model code %d)", FN, c->time, rc);
    }
END:
    return status;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component comp)
{
    int rc, flags = 0;
    RT_BEGIN("fmi2ExitInitializationMode", M_ExitInitializationMode)
    rc = ensure_eval(c);
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: initialization failed at t=%.17g (model code %d)", FN, c->time, rc);
    }
    rc = event_iteration(c, 1, &flags);
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: initial event iteration failed at t=%.17g", FN, c->time);
    }
    if (flags & MDL_EV_TERMINATE) {
        c->terminateRequested = 1;
        rlog(c, fmi2Warning, RT_LOG_EVENTS, "%s: the model called terminate() during "
             "initialization at t=%.17g", FN, c->time);
    }
    c->lastSuccessfulTime = c->time;
    c->odeRestart = 1;
    c->odeResume = 0;
    c->csEventPending = 0;
    c->meEventPasses = 0;
    c->meEvFlags = 0;
    ev_begin(c);
    c->state = c->type == fmi2ModelExchange ? RT_EVENT_MODE : RT_STEP_COMPLETE;
END:
    return status;
}

fmi2Status fmi2Terminate(fmi2Component comp)
{
    RT_BEGIN("fmi2Terminate", M_Terminate)
    /* the values after a step are read in terminated too (FMI 2.0 4.2.4): evaluate what the
       solver left stale (y, and dx when steps reached past the communication point) while the
       model can still be evaluated */
    if (c->stale && c->state == RT_STEP_COMPLETE && ensure_eval(c) != 0)
        rlog(c, fmi2Warning, RT_LOG_WARNING, "%s: the model cannot be evaluated at t=%.17g; "
             "values read after fmi2Terminate are those of an earlier evaluation", FN, c->time);
    if (c->ode)
        rlog(c, fmi2OK, RT_LOG_ALL,
             "fmi2Terminate: t=%.17g solver %s: steps=%ld accepted=%ld rejected=%ld "
             "nfev=%ld njev=%ld nlu=%ld nswitch=%ld events=%ld (last steps: %s)", c->time,
             c->ode->method->name, c->ode->nstep, c->ode->naccept, c->ode->nreject,
             c->ode->nfev, c->ode->njev, c->ode->nlu, c->ode->nswitch, c->nEvents,
             c->ode->last_sub ? c->ode->last_sub->name : c->ode->sub->name);
#ifdef MDL_HAS_HOOKS
    mdl_hook_terminate(c);
#endif
    c->state = RT_TERMINATED;
END:
    return status;
}

fmi2Status fmi2Reset(fmi2Component comp)
{
    RT_BEGIN("fmi2Reset", M_Reset)
    set_defaults(c);
    c->state = RT_INSTANTIATED;
#ifdef MDL_HAS_HOOKS
    if (mdl_hook_reset(c) != 0) {
        c->state = RT_ERROR;
        FAIL("%s: the model could not be reset", FN);
    }
#endif
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* get / set                                                                  */

static int check_vrs(RtCtx *c, const char *fn, const fmi2ValueReference vr[], size_t nvr,
                     const void *values, int type)
{
    size_t i;
    if (nvr > 0 && (!vr || !values)) {
        rlog(c, fmi2Error, RT_LOG_ERROR, "%s: NULL pointer argument", fn);
        return 0;
    }
    for (i = 0; i < nvr; i++) {
        if (vr[i] >= (fmi2ValueReference)NV) {
            rlog(c, fmi2Error, RT_LOG_ERROR, "%s: value reference %u is not in the model "
                 "description (out of range 0..%d)", fn, vr[i], NV - 1);
            return 0;
        }
        /* internal slots (pre values, relation memories, when flags, Newton unknowns) have
           no ScalarVariable in modelDescription.xml: unknown to the importer */
        if (mdl_var[vr[i]].kind == MK_INTERNAL || !mdl_var[vr[i]].name) {
            rlog(c, fmi2Error, RT_LOG_ERROR, "%s: value reference %u is not in the model "
                 "description (an internal variable of the FMU)", fn, vr[i]);
            return 0;
        }
        if (mdl_var[vr[i]].type != type) {
            static const char *const tn[4] = {"Real", "Integer", "Boolean", "String"};
            rlog(c, fmi2Error, RT_LOG_ERROR,
                 "%s: variable %s (vr=%u) is of type %s, not %s", fn, var_name(vr[i]),
                 vr[i], tn[mdl_var[vr[i]].type < 3 ? mdl_var[vr[i]].type : 0],
                 tn[type >= 0 && type < 4 ? type : 0]);
            return 0;
        }
    }
    return 1;
}

static fmi2Status get_values(RtCtx *c, const char *fn, const fmi2ValueReference vr[],
                             size_t nvr, void *values, int type)
{
    size_t i;
    int rc, need;
    if (!check_vrs(c, fn, vr, nvr, values, type)) return fmi2Error;
    need = by_parts(c) ? parts_for(vr, nvr) : -1;
    if (need < 0) rc = ensure_eval(c);
    else {
        rc = (need & (RT_HAVE_OUT | RT_HAVE_CHEAP)) ? eval_part(c, need & (RT_HAVE_OUT | RT_HAVE_CHEAP)) : 0;
        if (rc == 0 && (need & RT_HAVE_DX)) rc = eval_part(c, RT_HAVE_DX);
    }
    if (rc != 0) {
        rlog(c, fmi2Error, RT_LOG_ERROR, "%s: model evaluation failed at t=%.17g (code %d)",
             fn, c->time, rc);
        c->state = RT_ERROR;
        return fmi2Error;
    }
    for (i = 0; i < nvr; i++) {
        const double x = c->v[vr[i]];
        switch (type) {
        case MT_REAL: ((fmi2Real *)values)[i] = x; break;
        case MT_INTEGER: ((fmi2Integer *)values)[i] = (fmi2Integer)floor(x + 0.5); break;
        default: ((fmi2Boolean *)values)[i] = x != 0.0 ? fmi2True : fmi2False; break;
        }
    }
    return fmi2OK;
}

/* may variable vr be set in the current state? */
static int settable(RtCtx *c, const char *fn, fmi2ValueReference vr)
{
    const int kind = mdl_var[vr].kind;
    unsigned int allowed = 0;
    const char *rule = "";
    switch (kind) {
    case MK_PARAM_FIXED:
        allowed = RT_INSTANTIATED | RT_INIT_MODE;
        rule = "fixed parameters can only be set before fmi2ExitInitializationMode";
        break;
    case MK_PARAM_TUNABLE:
        allowed = RT_INSTANTIATED | RT_INIT_MODE | RT_EVENT_MODE | RT_STEP_COMPLETE;
        rule = "tunable parameters can be set before initialization, in event mode (ME) "
               "or between communication steps (CS)";
        break;
    case MK_INPUT:
        allowed = RT_INSTANTIATED | RT_INIT_MODE | RT_EVENT_MODE | RT_CT_MODE |
                  RT_STEP_COMPLETE;
        break;
    case MK_STATE:
    case MK_DISCRETE:
        allowed = RT_INSTANTIATED | RT_INIT_MODE;
        rule = "start values of states and discrete variables can only be set before "
               "fmi2ExitInitializationMode";
        break;
    default:
        rlog(c, fmi2Error, RT_LOG_ERROR, "%s: variable %s (vr=%u) cannot be set "
             "(it is computed by the model)", fn, var_name(vr), vr);
        return 0;
    }
    if (!(c->state & allowed)) {
        rlog(c, fmi2Error, RT_LOG_ERROR, "%s: variable %s (vr=%u) cannot be set in state %s: %s",
             fn, var_name(vr), vr, state_name(c->state), rule);
        return 0;
    }
    return 1;
}

static fmi2Status set_values(RtCtx *c, const char *fn, const fmi2ValueReference vr[],
                             size_t nvr, const void *values, int type)
{
    size_t i;
    int paramChanged = 0, anyChanged = 0;
    if (!check_vrs(c, fn, vr, nvr, values, type)) return fmi2Error;
    /* 1. validate everything */
    for (i = 0; i < nvr; i++) {
        const MdlVar *mv = &mdl_var[vr[i]];
        double x;
        if (!settable(c, fn, vr[i])) return fmi2Error;
        if (type == MT_REAL) {
            x = ((const fmi2Real *)values)[i];
            if (!isfinite(x)) {
                rlog(c, fmi2Error, RT_LOG_ERROR, "%s: %s (vr=%u) = %g is not a finite number",
                     fn, var_name(vr[i]), vr[i], x);
                return fmi2Error;
            }
        } else if (type == MT_INTEGER) {
            x = (double)((const fmi2Integer *)values)[i];
        } else {
            continue;   /* Boolean: any value means true/false */
        }
        if (x < mv->min || x > mv->max) {
            rlog(c, fmi2Error, RT_LOG_ERROR,
                 "%s: %s (vr=%u) = %.17g is outside its range [%g, %g]", fn,
                 var_name(vr[i]), vr[i], x, mv->min, mv->max);
            return fmi2Error;
        }
    }
    /* 2. write */
    for (i = 0; i < nvr; i++) {
        double x;
        const int kind = mdl_var[vr[i]].kind;
        if (type == MT_REAL) x = ((const fmi2Real *)values)[i];
        else if (type == MT_INTEGER) x = (double)((const fmi2Integer *)values)[i];
        else x = ((const fmi2Boolean *)values)[i] ? 1.0 : 0.0;
        if (c->v[vr[i]] != x) {
            anyChanged = 1;
            if (kind == MK_PARAM_FIXED || kind == MK_PARAM_TUNABLE) paramChanged = 1;
        }
        c->v[vr[i]] = x;
    }
    if (!anyChanged) return fmi2OK;
    /* 3. consequences */
    invalidate(c);
    band_clear(c);   /* the indicators may jump: a band watch (test 3) no longer applies */
    if (paramChanged && (c->state & (RT_EVENT_MODE | RT_CT_MODE | RT_STEP_COMPLETE))) {
        int rc = mdl_calc_params(c->v, c);
        if (rc != 0) {
            rlog(c, fmi2Error, RT_LOG_ERROR,
                 "%s: calculated parameters cannot be computed from the new values (code %d)",
                 fn, rc);
            c->state = RT_ERROR;
            return fmi2Error;
        }
    }
    if (c->state == RT_STEP_COMPLETE) {
        c->csEventPending = 1;   /* relations may depend on inputs/parameters */
        c->odeRestart = 1;       /* the right-hand side changed: no FSAL reuse */
        c->odeResume = 0;
    }
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
    RT_BEGIN("fmi2GetReal", M_Get)
    status = get_values(c, FN, vr, nvr, value, MT_REAL);
END:
    return status;
}

fmi2Status fmi2GetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{
    RT_BEGIN("fmi2GetInteger", M_Get)
    status = get_values(c, FN, vr, nvr, value, MT_INTEGER);
END:
    return status;
}

fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{
    RT_BEGIN("fmi2GetBoolean", M_Get)
    status = get_values(c, FN, vr, nvr, value, MT_BOOLEAN);
END:
    return status;
}

#if defined(N_STR) && N_STR > 0
extern const char *const mdl_str[];   /* model.c: the N_STR String values */
/* value references of String variables: 0..N_STR-1 (FMI 2.0: unique per base type) */
static int str_vrs(RtCtx *c, const char *fn, const fmi2ValueReference vr[], size_t nvr, const void *values)
{
    size_t i;
    if (nvr > 0 && (!vr || !values)) {
        rlog(c, fmi2Error, RT_LOG_ERROR, "%s: NULL pointer argument", fn);
        return 0;
    }
    for (i = 0; i < nvr; i++)
        if (vr[i] >= (fmi2ValueReference)N_STR) {
            rlog(c, fmi2Error, RT_LOG_ERROR, "%s: value reference %u is not a String variable of the "
                 "model description (out of range 0..%d)", fn, vr[i], N_STR - 1);
            return 0;
        }
    return 1;
}
#endif

fmi2Status fmi2GetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{
    RT_BEGIN("fmi2GetString", M_Get)
#if defined(N_STR) && N_STR > 0
    /* the String parameters and constants: fixed values (model.c's mdl_str) */
    if (str_vrs(c, FN, vr, nvr, value)) {
        size_t i;
        for (i = 0; i < nvr; i++) value[i] = mdl_str[vr[i]];
    } else status = fmi2Error;
#else
    /* this FMU has no String variables: every value reference is refused, with the
       reason for the first one (unknown, or of another type) */
    if (nvr > 0) {
        if (check_vrs(c, FN, vr, nvr, value, RT_TYPE_STRING))   /* (cannot pass) */
            rlog(c, fmi2Error, RT_LOG_ERROR, "%s: this FMU has no String variables", FN);
        status = fmi2Error;
    }
#endif
END:
    return status;
}

fmi2Status fmi2SetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    RT_BEGIN("fmi2SetReal", M_Set)
    status = set_values(c, FN, vr, nvr, value, MT_REAL);
END:
    return status;
}

fmi2Status fmi2SetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{
    RT_BEGIN("fmi2SetInteger", M_Set)
    status = set_values(c, FN, vr, nvr, value, MT_INTEGER);
END:
    return status;
}

fmi2Status fmi2SetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{
    RT_BEGIN("fmi2SetBoolean", M_Set)
    status = set_values(c, FN, vr, nvr, value, MT_BOOLEAN);
END:
    return status;
}

fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{
    RT_BEGIN("fmi2SetString", M_Set)
#if defined(N_STR) && N_STR > 0
    /* the String parameters are kept out of the equations: a set to their own value only */
    if (str_vrs(c, FN, vr, nvr, value)) {
        size_t i;
        for (i = 0; i < nvr; i++)
            if (!value[i] || strcmp(value[i], mdl_str[vr[i]]) != 0)
                FAIL("%s: String variable (vr=%u) cannot be changed from \"%s\": this FMU keeps String "
                     "parameters out of its equations", FN, vr[i], mdl_str[vr[i]]);
    } else status = fmi2Error;
#else
    /* this FMU has no String variables: every value reference is refused, with the
       reason for the first one (unknown, or of another type) */
    if (nvr > 0) {
        if (check_vrs(c, FN, vr, nvr, value, RT_TYPE_STRING))   /* (cannot pass) */
            rlog(c, fmi2Error, RT_LOG_ERROR, "%s: this FMU has no String variables", FN);
        status = fmi2Error;
    }
#endif
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* FMU state: one contiguous byte block, which is also the serialized form     */

#define RT_STATE_MAGIC "WCSFMUS"   /* + NUL = 8 bytes */
#define RT_STATE_VERSION 10u   /* 3: odeAuto (was padding); 4: auto code with back-off (rt_ode.h);
                                 5: chattering history + 2*N_Z doubles after v;
                                 6: multistep history (rt_ode_hist_len(N_X) doubles) after those;
                                 7: the running solver (RT_LIVE_LEN doubles) instead of it and
                                    of the controller history in the header;
                                 8: auto with Adams: odeProbe, the code's Adams and level bits,
                                    the probe's fields in the solver's record;
                                 9: the indicator offsets of held relations (N_Z doubles after
                                    the 2*N_Z of version 5);
                                 10: the input derivatives (RT_UDER_LEN doubles before the
                                    running solver) */
/* the input derivatives in an FMU state (version 10): uD1, uD2 (N_U each), the polynomial uP
   (3*N_U), uPt, uPon, uDset */
#define RT_UDER_LEN (5 * (size_t)N_U + 3)

typedef struct {
    char magic[8];
    unsigned int version;
    unsigned int totalSize;
    unsigned int nv;
    unsigned int guidLen;
    int fmuType;
    int state;
    int stopDefined, toleranceDefined, terminateRequested, dirty, csEventPending;
    unsigned int checksum;   /* FNV-1a over the whole block with this field = 0 */
    double time, lastSuccessfulTime, tStart, tStop, tolerance, hHint;
    /* auto method (rt_auto.c): current sub-method and stiffness counters,
       rt_ode_auto_save() code (0 = initial); saved whether or not the solver is running (a
       restart keeps them; the running solver's record has them too) */
    int odeAuto;
    /* event chattering / Zeno tests (version 5): event history, run, ME event flags;
       the N_Z memories at the event start (mEv) and band watches (zBand) follow v */
    int evHead, evN, zenoRun, meEvFlags;
    /* auto method: accepted explicit steps to its next cost probe (rt_ode_auto_save; version
       8, in what was padding) */
    int odeProbe;
    double evTotal, zenoT0, tBand;
    double evHist[RT_EV_HIST];
} RtStateHeader;

/* The block's checksum: FNV-1a over its 64-bit words (the checksum field taken as 0, a tail
   of fewer than 8 bytes zero-padded) in four interleaved lanes (word k goes to lane k mod 4),
   combined and folded to 32 bits.  Version 7: byte by byte the check was most of the cost of
   an fmi2GetFMUstate / fmi2FreeFMUstate pair (each checks the block): the hybrid mechanism's
   Co-Simulation run with a state taken and freed at each of 2000 points took 21 ms against
   1.5 ms without; 4 lanes of words: 3.4 ms. */
#define FNV64_PRIME 1099511628211ull
static void fnv_lanes(unsigned long long *l, size_t *k, const unsigned char *p, size_t n)
{
    size_t i = 0;
    unsigned long long w;
    for (; i < n && (*k & 3u); i += 8, (*k)++) {
        w = 0;
        memcpy(&w, p + i, n - i < 8 ? n - i : 8);
        l[*k & 3u] = (l[*k & 3u] ^ w) * FNV64_PRIME;
    }
    for (; i + 32 <= n; i += 32, *k += 4) {
        unsigned long long w0, w1, w2, w3;
        memcpy(&w0, p + i, 8);
        memcpy(&w1, p + i + 8, 8);
        memcpy(&w2, p + i + 16, 8);
        memcpy(&w3, p + i + 24, 8);
        l[0] = (l[0] ^ w0) * FNV64_PRIME;
        l[1] = (l[1] ^ w1) * FNV64_PRIME;
        l[2] = (l[2] ^ w2) * FNV64_PRIME;
        l[3] = (l[3] ^ w3) * FNV64_PRIME;
    }
    for (; i < n; i += 8, (*k)++) {
        w = 0;
        memcpy(&w, p + i, n - i < 8 ? n - i : 8);
        l[*k & 3u] = (l[*k & 3u] ^ w) * FNV64_PRIME;
    }
}

static unsigned int state_checksum(const unsigned char *buf, size_t n)
{
    RtStateHeader h;   /* (its size is a multiple of 8: it holds doubles) */
    unsigned long long l[4] = { 14695981039346656037ull, 14695981039346656037ull ^ 1u,
                                14695981039346656037ull ^ 2u, 14695981039346656037ull ^ 3u };
    unsigned long long x;
    size_t k = 0;
    const size_t nh = sizeof h < n ? sizeof h : n;
    memcpy(&h, buf, nh);
    memset(&h.checksum, 0, sizeof h.checksum);
    fnv_lanes(l, &k, (const unsigned char *)&h, nh);
    fnv_lanes(l, &k, buf + nh, n - nh);
    x = ((((l[0] ^ l[1]) * FNV64_PRIME) ^ l[2]) * FNV64_PRIME ^ l[3]) * FNV64_PRIME;
    return (unsigned int)(x ^ (x >> 32));
}

static size_t state_guid_space(void)
{
    return (sizeof(MODEL_GUID) + 7u) & ~(size_t)7u;
}

static size_t state_size(void)
{
    return sizeof(RtStateHeader) + state_guid_space() +
           ((size_t)(NV + 3 * N_Z) + RT_LIVE_LEN + RT_UDER_LEN) * sizeof(double);
}

/* byte offsets in an FMU state: the input derivatives after v and the 3*N_Z event doubles, the
   running solver last (a block's end: tests find it there) */
static size_t state_uder_offset(void)
{
    return sizeof(RtStateHeader) + state_guid_space() + (size_t)(NV + 3 * N_Z) * sizeof(double);
}

static size_t state_live_offset(void)
{
    return state_uder_offset() + RT_UDER_LEN * sizeof(double);
}

static void uder_write(const RtCtx *c, unsigned char *buf)
{
    double *p = (double *)(void *)(buf + state_uder_offset());
    memcpy(p, c->uD1, (size_t)N_U * sizeof(double));
    memcpy(p + N_U, c->uD2, (size_t)N_U * sizeof(double));
    memcpy(p + 2 * N_U, c->uP, 3 * (size_t)N_U * sizeof(double));
    p[5 * N_U] = c->uPt;
    p[5 * N_U + 1] = c->uPon;
    p[5 * N_U + 2] = c->uDset;
}

/* 1 if the input derivatives of a block are valid */
static int uder_check(const unsigned char *buf)
{
    double p[RT_UDER_LEN];
    memcpy(p, buf + state_uder_offset(), sizeof p);
    return rt_ode_all_finite((int)RT_UDER_LEN, p) && (p[5 * N_U + 1] == 0.0 || p[5 * N_U + 1] == 1.0) &&
           (p[5 * N_U + 2] == 0.0 || p[5 * N_U + 2] == 1.0);
}

static void uder_read(RtCtx *c, const unsigned char *buf)
{
    const double *p = (const double *)(const void *)(buf + state_uder_offset());
    memcpy(c->uD1, p, (size_t)N_U * sizeof(double));
    memcpy(c->uD2, p + N_U, (size_t)N_U * sizeof(double));
    memcpy(c->uP, p + 2 * N_U, 3 * (size_t)N_U * sizeof(double));
    c->uPt = p[5 * N_U];
    c->uPon = p[5 * N_U + 1] != 0.0;
    c->uDset = p[5 * N_U + 2] != 0.0;
}

/* The running CS solver in an FMU state (version 7), RT_LIVE_LEN doubles: 0 = 1 when
 * present, 1 c->ahead, 2 c->aheadEvent, 3 c->aheadTev, then the event indicators zOld and z
 * (N_Z each: at the start and the end of the step in progress) and the solver
 * (rt_ode_live_save).  Saved whenever the solver is running, so that an FMU state taken in
 * the middle of a solver step (one reaching past the communication point) changes nothing:
 * "save, continue", "save, restore, continue" and "continue" are bit-identical.  (Before,
 * fmi2GetFMUstate cut such a step at the communication point and restarted the solver there,
 * which changed the continuing run: a master saving every step, for a rollback, also
 * limited every solver step to one communication step.) */
static void live_write(const RtCtx *c, double *p)
{
    memset(p, 0, RT_LIVE_LEN * sizeof(double));
    if (N_X == 0) return;
    if (c->ode && !c->odeRestart) {
        p[0] = 1.0;
        p[1] = c->ahead;
        p[2] = c->aheadEvent;
        p[3] = c->aheadTev;
        if (N_Z > 0) {
            memcpy(p + RT_LIVE_HDR, c->zOld, (size_t)N_Z * sizeof(double));
            memcpy(p + RT_LIVE_HDR + N_Z, c->z, (size_t)N_Z * sizeof(double));
        }
        rt_ode_live_save(c->ode, p + RT_LIVE_HDR + 2 * N_Z);
    } else if (c->odeResume) {   /* restored, not stepped yet */
        memcpy(p, c->liveBuf, RT_LIVE_LEN * sizeof(double));
    }
}

/* load the running solver of a restored state into s (of the method it was saved with):
   1 done, 0 not possible (another method, or an invalid record) */
static int live_load(RtCtx *c, RtOde *s)
{
    const double *p = c->liveBuf, *q = p + RT_LIVE_HDR + 2 * N_Z;   /* q: rt_ode_live_save */
    const double tol = 1e-9 * (fabs(c->time) > 1.0 ? fabs(c->time) : 1.0);
    if (p[0] != 1.0 || (p[1] != 0.0 && p[1] != 1.0) || (p[2] != 0.0 && p[2] != 1.0) ||
        !isfinite(p[3]) || !rt_ode_all_finite(2 * N_Z, p + RT_LIVE_HDR))
        return 0;
    /* the step covers the saved time (ahead), or ends there: else a restart */
    if (p[1] != 0.0 ? !(q[4] <= c->time + tol && c->time <= q[3] + tol)
                    : !(fabs(q[3] - c->time) <= tol))
        return 0;
    if (!rt_ode_live_load(s, q)) return 0;
    c->ahead = p[1] != 0.0;
    c->aheadEvent = p[2] != 0.0;
    c->aheadTev = p[3];
    if (N_Z > 0) {
        memcpy(c->zOld, p + RT_LIVE_HDR, (size_t)N_Z * sizeof(double));
        memcpy(c->z, p + RT_LIVE_HDR + N_Z, (size_t)N_Z * sizeof(double));
    }
    return 1;
}

/* Sizes of FMU-state blocks.  STATE_TOTAL(c): of the block state_write writes;
 * STATE_SIZE_OF(b): of a block already checked (state_check); STATE_MEM: the size bound
 * given to state_check for a block in memory (a block this FMU allocated);
 * STATE_SIZE_BAD(h): the header's totalSize is impossible.  With hooks (model_api.h H1) the
 * runtime's part (state_size()) is followed by the model's bytes, so a block's size is its
 * header's totalSize; otherwise every block has state_size() bytes. */
#ifdef MDL_HAS_HOOKS
static size_t state_block_size(const void *buf)
{
    RtStateHeader h;
    memcpy(&h, buf, sizeof h);
    return h.totalSize;
}
#define STATE_TOTAL(c) (state_size() + RT_HOOKED(c)->stateExtra)
#define STATE_SIZE_OF(b) state_block_size(b)
#define STATE_MEM (~(size_t)0)
#define STATE_SIZE_BAD(h) ((h).totalSize < state_size() || ((h).totalSize - state_size()) % 8u != 0)
#else
#define STATE_TOTAL(c) state_size()
#define STATE_SIZE_OF(b) state_size()
#define STATE_MEM state_size()
#define STATE_SIZE_BAD(h) ((h).totalSize != state_size())
#endif

static void state_write(const RtCtx *c, unsigned char *buf)
{
    RtStateHeader h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, RT_STATE_MAGIC, 8);
    h.version = RT_STATE_VERSION;
    h.totalSize = (unsigned int)STATE_TOTAL(c);
    h.nv = (unsigned int)NV;
    h.guidLen = (unsigned int)(sizeof(MODEL_GUID) - 1);
    h.fmuType = (int)c->type;
    h.state = (int)c->state;
    h.stopDefined = c->stopDefined;
    h.toleranceDefined = c->toleranceDefined;
    h.terminateRequested = c->terminateRequested;
    h.dirty = c->dirty;
    h.csEventPending = c->csEventPending;
    h.time = c->time;
    h.lastSuccessfulTime = c->lastSuccessfulTime;
    h.tStart = c->tStart;
    h.tStop = c->tStop;
    h.tolerance = c->tolerance;
    h.hHint = c->ode && !c->odeRestart ? c->ode->h : c->hHint;
    if (c->resumeAuto >= 0) {
        h.odeAuto = c->resumeAuto;
        h.odeProbe = c->resumeProbe;
    } else if (c->ode) {
        h.odeAuto = rt_ode_auto_save(c->ode, &h.odeProbe);
    } else {
        h.odeProbe = PROBE_FIRST;   /* (the initial state, as a new solver has it) */
    }
    h.evHead = c->evHead;
    h.evN = c->evN;
    h.zenoRun = c->zenoRun;
    h.meEvFlags = c->meEvFlags;
    h.evTotal = (double)c->evTotal;
    h.zenoT0 = c->zenoT0;
    h.tBand = c->tBand;
    memcpy(h.evHist, c->evHist, sizeof h.evHist);
    memcpy(buf, &h, sizeof h);
    memset(buf + sizeof h, 0, state_guid_space());
    memcpy(buf + sizeof h, MODEL_GUID, sizeof(MODEL_GUID) - 1);
    memcpy(buf + sizeof h + state_guid_space(), c->v, (size_t)NV * sizeof(double));
    if (N_Z > 0) {
        unsigned char *p = buf + sizeof h + state_guid_space() + (size_t)NV * sizeof(double);
        memcpy(p, c->mEv, (size_t)N_Z * sizeof(double));
        memcpy(p + (size_t)N_Z * sizeof(double), c->zBand, (size_t)N_Z * sizeof(double));
        memcpy(p + 2 * (size_t)N_Z * sizeof(double), c->zOff, (size_t)N_Z * sizeof(double));
    }
    live_write(c, (double *)(void *)(buf + state_live_offset()));
    uder_write(c, buf);
    h.checksum = state_checksum(buf, STATE_TOTAL(c));   /* (with the model's part, H1) */
    memcpy(buf, &h, sizeof h);
}

/* validate a block; returns NULL if fine, else a reason */
static const char *state_check(const RtCtx *c, const unsigned char *buf, size_t size)
{
    RtStateHeader h;
    const unsigned int okStates = RT_INSTANTIATED | RT_INIT_MODE | RT_EVENT_MODE |
                                  RT_CT_MODE | RT_STEP_COMPLETE | RT_STEP_FAILED |
                                  RT_STEP_CANCELED | RT_TERMINATED | RT_ERROR;
    if (!buf) return "NULL state";
    if (size < sizeof h) return "data too short";
    /* look at the magic first: a foreign pointer is read as little as possible */
    if (memcmp(buf, RT_STATE_MAGIC, 8) != 0) return "not a wearcosim FMU state";
    memcpy(&h, buf, sizeof h);
    if (h.version != RT_STATE_VERSION) return "unsupported state version";
    if (STATE_SIZE_BAD(h) || size < h.totalSize) return "size mismatch";
    if (h.nv != (unsigned int)NV || h.guidLen != sizeof(MODEL_GUID) - 1 ||
        memcmp(buf + sizeof h, MODEL_GUID, sizeof(MODEL_GUID) - 1) != 0)
        return "state belongs to a different FMU (GUID mismatch)";
    if (h.fmuType != (int)c->type) return "state of a different FMU type (ME/CS)";
    if (h.checksum != state_checksum(buf, h.totalSize)) return "checksum mismatch (corrupt data)";
    if (!(h.state & okStates) || (h.state & (h.state - 1))) return "corrupt instance state";
    if (h.evHead < 0 || h.evHead >= RT_EV_HIST || h.evN < 0 || h.evN > RT_EV_HIST ||
        h.zenoRun < 0)
        return "corrupt event history";
    if (!uder_check(buf)) return "corrupt input derivatives";
#ifdef MDL_HAS_HOOKS
    if (mdl_hook_state_check((RtCtx *)c, buf + state_size(), h.totalSize - state_size()) != 0)
        return "the model's part is invalid";
#endif
    return NULL;
}

static void state_read(RtCtx *c, const unsigned char *buf)
{
    RtStateHeader h;
    memcpy(&h, buf, sizeof h);
    c->state = (RtState)h.state;
    c->stopDefined = h.stopDefined;
    c->toleranceDefined = h.toleranceDefined;
    c->terminateRequested = h.terminateRequested;
    c->dirty = h.dirty;
    forget_parts(c);
    c->stale = 0;
    c->csEventPending = h.csEventPending;
    c->time = h.time;
    c->lastSuccessfulTime = h.lastSuccessfulTime;
    c->tStart = h.tStart;
    c->tStop = h.tStop;
    c->tolerance = h.tolerance;
    c->hHint = h.hHint;
    memcpy(c->v, buf + sizeof h + state_guid_space(), (size_t)NV * sizeof(double));
    if (N_Z > 0) {
        const unsigned char *p = buf + sizeof h + state_guid_space() + (size_t)NV * sizeof(double);
        memcpy(c->mEv, p, (size_t)N_Z * sizeof(double));
        memcpy(c->zBand, p + (size_t)N_Z * sizeof(double), (size_t)N_Z * sizeof(double));
        memcpy(c->zOff, p + 2 * (size_t)N_Z * sizeof(double), (size_t)N_Z * sizeof(double));
    }
    c->nOff = 0;
    {
        int k;
        for (k = 0; k < N_Z; k++) if (c->zOff[k] != 0.0) c->nOff++;
    }
    memcpy(c->liveBuf, buf + state_live_offset(), RT_LIVE_LEN * sizeof(double));
    uder_read(c, buf);
    c->evHead = h.evHead;
    c->evN = h.evN;
    c->zenoRun = h.zenoRun;
    c->meEvFlags = h.meEvFlags;
    c->evTotal = (long)h.evTotal;
    c->zenoT0 = h.zenoT0;
    c->tBand = h.tBand;
    memcpy(c->evHist, h.evHist, sizeof c->evHist);
    c->odeRestart = 1;
    c->odeResume = c->liveBuf[0] == 1.0;
    c->resumeAuto = h.odeAuto & (AUTO_CODE_LIMIT - 1);
    c->resumeProbe = h.odeProbe;
    c->meEventPasses = 0;
}

fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate *FMUstate)
{
    unsigned char *buf;
    RT_BEGIN("fmi2GetFMUstate", M_FMUstate)
    if (!FMUstate) FAIL("%s: FMUstate is NULL", FN);
    buf = (unsigned char *)*FMUstate;
    if (buf && state_check(c, buf, STATE_MEM) != NULL)
        FAIL("%s: *FMUstate is not a state previously returned by this FMU", FN);
    /* a saved v is complete: evaluate outputs the solver left stale (deterministic and
       leaves x unchanged, so continuing is the same with or without this call) */
    if (c->stale && ensure_eval(c) != 0)
        FAIL("%s: model evaluation failed at t=%.17g", FN, c->time);
#ifdef MDL_HAS_HOOKS
    if (mdl_hook_state_size(c, &RT_HOOKED(c)->stateExtra) != 0 ||
        RT_HOOKED(c)->stateExtra % 8u != 0)
        FAIL("%s: the model's state cannot be saved at t=%.17g", FN, c->time);
    if (buf && STATE_SIZE_OF(buf) != STATE_TOTAL(c)) {   /* another size: a new block */
        memset(buf, 0, 8);
        rt_free(c, buf);
        *FMUstate = buf = NULL;
    }
#endif
    if (!buf) {
        buf = (unsigned char *)rt_calloc(c, STATE_TOTAL(c), 1);
        if (!buf) FAIL("%s: out of memory", FN);
    }
#ifdef MDL_HAS_HOOKS
    if (mdl_hook_state_write(c, buf + state_size(), RT_HOOKED(c)->stateExtra) != 0) {
        memset(buf, 0, 8);
        rt_free(c, buf);
        *FMUstate = NULL;
        FAIL("%s: the model's state cannot be saved at t=%.17g", FN, c->time);
    }
#endif
    state_write(c, buf);
    *FMUstate = buf;
END:
    return status;
}

fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate FMUstate)
{
    const char *why;
    RT_BEGIN("fmi2SetFMUstate", M_FMUstate)
    why = state_check(c, (const unsigned char *)FMUstate, STATE_MEM);
    if (why) FAIL("%s: invalid FMU state: %s", FN, why);
#ifdef MDL_HAS_HOOKS
    if (mdl_hook_state_read(c, (const unsigned char *)FMUstate + state_size(),
                            STATE_SIZE_OF(FMUstate) - state_size()) != 0)
        FAIL("%s: the model's part of the FMU state cannot be restored", FN);
#endif
    state_read(c, (const unsigned char *)FMUstate);
END:
    return status;
}

fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate *FMUstate)
{
    RT_BEGIN("fmi2FreeFMUstate", M_FMUstate)
    if (!FMUstate || !*FMUstate) goto END;
    if (state_check(c, (const unsigned char *)*FMUstate, STATE_MEM) != NULL)
        FAIL("%s: not a state of this FMU", FN);
    memset(*FMUstate, 0, 8);   /* kill the magic: catches double free */
    rt_free(c, *FMUstate);
    *FMUstate = NULL;
END:
    return status;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate FMUstate,
                                      size_t *size)
{
    const char *why;
    RT_BEGIN("fmi2SerializedFMUstateSize", M_FMUstate)
    if (!size) FAIL("%s: size is NULL", FN);
    why = state_check(c, (const unsigned char *)FMUstate, STATE_MEM);
    if (why) FAIL("%s: invalid FMU state: %s", FN, why);
    *size = STATE_SIZE_OF(FMUstate);
END:
    return status;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate FMUstate,
                                 fmi2Byte serializedState[], size_t size)
{
    const char *why;
    RT_BEGIN("fmi2SerializeFMUstate", M_FMUstate)
    why = state_check(c, (const unsigned char *)FMUstate, STATE_MEM);
    if (why) FAIL("%s: invalid FMU state: %s", FN, why);
    if (!serializedState || size < STATE_SIZE_OF(FMUstate))
        FAIL("%s: buffer too small (%lu < %lu bytes)", FN, (unsigned long)size,
             (unsigned long)STATE_SIZE_OF(FMUstate));
    memcpy(serializedState, FMUstate, STATE_SIZE_OF(FMUstate));
END:
    return status;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte serializedState[],
                                   size_t size, fmi2FMUstate *FMUstate)
{
    const char *why;
    unsigned char *buf;
    RT_BEGIN("fmi2DeSerializeFMUstate", M_FMUstate)
    if (!FMUstate) FAIL("%s: FMUstate is NULL", FN);
    why = state_check(c, (const unsigned char *)serializedState, size);
    if (why) FAIL("%s: invalid serialized state: %s", FN, why);
    buf = (unsigned char *)*FMUstate;
    if (buf && state_check(c, buf, STATE_MEM) != NULL)
        FAIL("%s: *FMUstate is not NULL and not a state of this FMU", FN);
#ifdef MDL_HAS_HOOKS
    if (buf && STATE_SIZE_OF(buf) != STATE_SIZE_OF(serializedState)) {   /* another size */
        memset(buf, 0, 8);
        rt_free(c, buf);
        *FMUstate = buf = NULL;
    }
#endif
    if (!buf) buf = (unsigned char *)rt_calloc(c, STATE_SIZE_OF(serializedState), 1);
    if (!buf) FAIL("%s: out of memory", FN);
    memcpy(buf, serializedState, STATE_SIZE_OF(serializedState));
    *FMUstate = buf;
END:
    return status;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component comp,
                                        const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[], size_t nKnown,
                                        const fmi2Real dvKnown[], fmi2Real dvUnknown[])
{
    RT_BEGIN("fmi2GetDirectionalDerivative", M_GetDirectionalDerivative)
#if MDL_HAS_DD || MDL_HAS_DDIR
    {
        /* dvUnknown = J[unknowns, knowns] * dvKnown, J = d(dx, outputs)/d(x, u) at the current
           point (dd_core) */
        size_t i;
        int rc;
        if ((nUnknown > 0 && (!vUnknown_ref || !dvUnknown)) || (nKnown > 0 && (!vKnown_ref || !dvKnown)))
            FAIL("%s: NULL pointer argument", FN);
        for (i = 0; i < nUnknown; i++)
            if (dd_unknown(vUnknown_ref[i]) == -1)
                FAIL("%s: unknown %s (vr=%u) is neither a state derivative nor an output", FN,
                     vUnknown_ref[i] < (fmi2ValueReference)NV ? var_name(vUnknown_ref[i]) : "?",
                     vUnknown_ref[i]);
        for (i = 0; i < nKnown; i++) {
            if (!dd_known(vKnown_ref[i]))
                FAIL("%s: known %s (vr=%u) is neither a state nor an input", FN,
                     vKnown_ref[i] < (fmi2ValueReference)NV ? var_name(vKnown_ref[i]) : "?",
                     vKnown_ref[i]);
            if (!isfinite(dvKnown[i])) FAIL("%s: seed %lu is not finite", FN, (unsigned long)i);
        }
        if (c->state == RT_INIT_MODE && (rc = ensure_eval(c)) != 0)
            FAIL("%s: initialization failed at t=%.17g (model code %d)", FN, c->time, rc);
        dd_seed_clear(c);
        for (i = 0; i < nKnown; i++) c->ddSeed[vKnown_ref[i]] += dvKnown[i];
        if ((rc = dd_core(c, vUnknown_ref, nUnknown)) != 0)
            FAIL(MDL_HAS_DD ? "%s: the model cannot be evaluated near t=%.17g for differences (code %d)"
                            : "%s: the directional derivatives cannot be computed at t=%.17g (code %d)",
                 FN, c->time, rc);
        for (i = 0; i < nUnknown; i++)
            dvUnknown[i] = dd_unknown(vUnknown_ref[i]) == DD_ZERO ? 0.0 : c->ddOut[vUnknown_ref[i]];
    }
#else
    (void)vUnknown_ref; (void)nUnknown; (void)vKnown_ref; (void)nKnown; (void)dvKnown;
    (void)dvUnknown;
    FAIL("%s: not supported (providesDirectionalDerivative=false)", FN);
#endif
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* Model Exchange                                                             */

fmi2Status fmi2EnterEventMode(fmi2Component comp)
{
    RT_BEGIN("fmi2EnterEventMode", M_EnterEventMode)
    if (!require_type(c, FN, fmi2ModelExchange)) { status = fmi2Error; goto END; }
    c->state = RT_EVENT_MODE;
    c->meEventPasses = 0;
    c->meEvFlags = 0;
    ev_begin(c);
END:
    return status;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component comp, fmi2EventInfo *eventInfo)
{
    int rc, flags = 0;
    RT_BEGIN("fmi2NewDiscreteStates", M_NewDiscreteStates)
    if (!require_type(c, FN, fmi2ModelExchange)) { status = fmi2Error; goto END; }
    if (!eventInfo) FAIL("%s: eventInfo is NULL", FN);
    rc = ensure_eval(c);
    if (rc == 0) {
        if (c->meEventPasses == 0) cycle_reset(c);
        rc = ev_pass(c, 0, &flags);
    }
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: event handling failed at t=%.17g (model code %d)", FN, c->time, rc);
    }
    c->dirty = 0;   /* mdl_event ends with a consistent evaluation */
    if (flags & MDL_EV_TERMINATE) c->terminateRequested = 1;
    c->meEvFlags |= flags;
    if (flags & MDL_EV_CHANGED) {
        if (++c->meEventPasses > RT_MAX_ME_PASSES) {
            c->state = RT_ERROR;
            FAIL("%s: event iteration does not converge at t=%.17g (%d passes)", FN,
                 c->time, RT_MAX_ME_PASSES);
        }
    } else {
        c->meEventPasses = 0;
        hold_offsets(c);
        if (c->meEvFlags & (MDL_EV_CHANGED | MDL_EV_REINIT)) {
            /* the event is complete: chattering tests, band watch (3) */
            char why[RT_WHY_LEN];
            if (ev_record(c, c->time, why, sizeof why)) {
                c->state = RT_ERROR;
                FAIL("%s: %s", FN, why);
            }
            band_setup(c, c->meEvFlags & MDL_EV_REINIT);
        }
        c->meEvFlags = 0;          /* a further call in this event mode starts afresh */
        ev_begin(c);
    }
    c->nEvents++;
    eventInfo->newDiscreteStatesNeeded = (flags & MDL_EV_CHANGED) ? fmi2True : fmi2False;
    eventInfo->terminateSimulation = c->terminateRequested ? fmi2True : fmi2False;
    eventInfo->nominalsOfContinuousStatesChanged = fmi2False;
    eventInfo->valuesOfContinuousStatesChanged = (flags & MDL_EV_REINIT) ? fmi2True : fmi2False;
    eventInfo->nextEventTimeDefined = fmi2False;
    eventInfo->nextEventTime = 0.0;
    if (flags & (MDL_EV_REINIT | MDL_EV_TERMINATE))
        rlog(c, fmi2OK, RT_LOG_EVENTS, "%s: t=%.17g%s%s", FN, c->time,
             (flags & MDL_EV_REINIT) ? " states reinitialized" : "",
             (flags & MDL_EV_TERMINATE) ? " terminate() called" : "");
END:
    return status;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component comp)
{
    RT_BEGIN("fmi2EnterContinuousTimeMode", M_EnterContinuousTimeMode)
    if (!require_type(c, FN, fmi2ModelExchange)) { status = fmi2Error; goto END; }
    c->state = RT_CT_MODE;
END:
    return status;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component comp,
                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode,
                                       fmi2Boolean *terminateSimulation)
{
    RT_BEGIN("fmi2CompletedIntegratorStep", M_CompletedIntegratorStep)
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!require_type(c, FN, fmi2ModelExchange)) { status = fmi2Error; goto END; }
    if (!enterEventMode || !terminateSimulation) FAIL("%s: NULL pointer argument", FN);
    if (N_Z > 0) {                                  /* test (3), only while a watch is on */
        int k, on = 0;
        for (k = 0; k < N_Z; k++)
            if (c->zBand[k] != 0.0) on = 1;
        if (on) {
            const int rc = ensure_eval(c);
            if (rc != 0) {
                c->state = RT_ERROR;
                FAIL("%s: model evaluation failed at t=%.17g (code %d)", FN, c->time, rc);
            }
            zc_eval(c, c->v, c->time, c->z);
            k = band_check(c, c->z);
            if (k >= 0) {
                char why[RT_WHY_LEN];
                band_message(c, k, c->time, c->z[k], why, sizeof why);
                c->state = RT_ERROR;
                FAIL("%s: %s", FN, why);
            }
        }
    }
    *enterEventMode = fmi2False;
    *terminateSimulation = c->terminateRequested ? fmi2True : fmi2False;
END:
    return status;
}

fmi2Status fmi2SetTime(fmi2Component comp, fmi2Real time)
{
    RT_BEGIN("fmi2SetTime", M_SetTime)
    if (!require_type(c, FN, fmi2ModelExchange)) { status = fmi2Error; goto END; }
    if (!isfinite(time)) FAIL("%s: time = %g is not finite", FN, time);
    if (time != c->time) { c->time = time; invalidate(c); }
END:
    return status;
}

fmi2Status fmi2SetContinuousStates(fmi2Component comp, const fmi2Real x[], size_t nx)
{
    size_t i;
    RT_BEGIN("fmi2SetContinuousStates", M_SetContinuousStates)
    if (!require_type(c, FN, fmi2ModelExchange)) { status = fmi2Error; goto END; }
    if (nx != (size_t)N_X) FAIL("%s: nx = %lu, expected %d", FN, (unsigned long)nx, N_X);
    if (nx > 0 && !x) FAIL("%s: x is NULL", FN);
    for (i = 0; i < nx; i++)
        if (!isfinite(x[i]))
            FAIL("%s: state %s (vr=%d) = %g is not a finite number at t=%.17g", FN,
                 var_name((fmi2ValueReference)(OFF_X + i)), (int)(OFF_X + i), x[i], c->time);
    for (i = 0; i < nx; i++) c->v[OFF_X + i] = x[i];
    invalidate(c);
END:
    return status;
}

fmi2Status fmi2GetDerivatives(fmi2Component comp, fmi2Real derivatives[], size_t nx)
{
    size_t i;
    int rc;
    RT_BEGIN("fmi2GetDerivatives", M_GetDerivatives)
    if (!require_type(c, FN, fmi2ModelExchange)) { status = fmi2Error; goto END; }
    if (nx != (size_t)N_X) FAIL("%s: nx = %lu, expected %d", FN, (unsigned long)nx, N_X);
    if (nx > 0 && !derivatives) FAIL("%s: derivatives is NULL", FN);
    rc = by_parts(c) ? eval_part(c, RT_HAVE_DX) : ensure_eval(c);
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: model evaluation failed at t=%.17g (code %d)", FN, c->time, rc);
    }
    for (i = 0; i < nx; i++) derivatives[i] = c->v[OFF_DX + i];
END:
    return status;
}

fmi2Status fmi2GetEventIndicators(fmi2Component comp, fmi2Real eventIndicators[], size_t ni)
{
    int rc, parts;
    RT_BEGIN("fmi2GetEventIndicators", M_GetEventIndicators)
    if (!require_type(c, FN, fmi2ModelExchange)) { status = fmi2Error; goto END; }
    if (ni != (size_t)N_Z) FAIL("%s: ni = %lu, expected %d", FN, (unsigned long)ni, N_Z);
    if (ni > 0 && !eventIndicators) FAIL("%s: eventIndicators is NULL", FN);
    parts = by_parts(c);
    rc = !parts ? ensure_eval(c) : (c->have & RT_HAVE_Z) ? 0 : eval_part(c, RT_HAVE_DX);
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: model evaluation failed at t=%.17g (code %d)", FN, c->time, rc);
    }
    if (ni > 0 && parts) memcpy(eventIndicators, c->zPart, ni * sizeof(double));
    else if (ni > 0) zc_eval(c, c->v, c->time, eventIndicators);
    if (ni > 0 && c->state == RT_CT_MODE) {        /* test (3) on the importer's trajectory */
        const int k = band_check(c, eventIndicators);
        if (k >= 0) {
            char why[RT_WHY_LEN];
            band_message(c, k, c->time, eventIndicators[k], why, sizeof why);
            c->state = RT_ERROR;
            FAIL("%s: %s", FN, why);
        }
    }
END:
    return status;
}

fmi2Status fmi2GetContinuousStates(fmi2Component comp, fmi2Real x[], size_t nx)
{
    size_t i;
    RT_BEGIN("fmi2GetContinuousStates", M_GetContinuousStates)
    if (!require_type(c, FN, fmi2ModelExchange)) { status = fmi2Error; goto END; }
    if (nx != (size_t)N_X) FAIL("%s: nx = %lu, expected %d", FN, (unsigned long)nx, N_X);
    if (nx > 0 && !x) FAIL("%s: x is NULL", FN);
    for (i = 0; i < nx; i++) x[i] = c->v[OFF_X + i];
END:
    return status;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component comp, fmi2Real x_nominal[],
                                             size_t nx)
{
    size_t i;
    RT_BEGIN("fmi2GetNominalsOfContinuousStates", M_GetNominals)
    if (!require_type(c, FN, fmi2ModelExchange)) { status = fmi2Error; goto END; }
    if (nx != (size_t)N_X) FAIL("%s: nx = %lu, expected %d", FN, (unsigned long)nx, N_X);
    if (nx > 0 && !x_nominal) FAIL("%s: x_nominal is NULL", FN);
    for (i = 0; i < nx; i++) x_nominal[i] = c->xNominal[i];
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* Co-Simulation: solver callbacks                                            */

static int cs_rhs(void *user, double t, const double *x, double *dx)
{
    RtCtx *c = (RtCtx *)user;
    int rc;
    memcpy(c->v + OFF_X, x, (size_t)N_X * sizeof(double));
    u_at(c, c->v, t);                    /* (inputs with derivatives) */
    rc = mdl_deriv(c->v, t, c->zf, c);   /* outputs are evaluated when read */
    if (rc == 0) zshift(c, c->zf);
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
    u_at(c, c->v, t);
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
    u_at(c, c->v, t);
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
        rlog(c, fmi2Error, RT_LOG_ERROR, "%s: solver method %g is invalid (0 = auto, "
             "1 = Dormand-Prince 5(4), 2 = RODAS4, 3 = Adams)", fn, mv);
        return 1;
    }
    if (!c->ode || c->ode->method != m) {
        RtOde *s;
        if (N_X == 0) { c->odeMethod = id; return 0; }
#if HAS_JACOBIAN && defined(MDL_JAC_NNZ)
        s = rt_ode_new_sparse(m, N_X, cs_rhs, cs_jac, cs_jacnz, mdl_jac_colind, mdl_jac_row, c,
                              c->cb.allocateMemory, c->cb.freeMemory);
#else
        s = rt_ode_new(m, N_X, cs_rhs, HAS_JACOBIAN ? cs_jac : NULL, c,
                       c->cb.allocateMemory, c->cb.freeMemory);
#endif
        if (!s) {
            rlog(c, fmi2Error, RT_LOG_ERROR, "%s: out of memory", fn);
            return 1;
        }
#if defined(MDL_DERIV_CHECKS_FINITE) && MDL_DERIV_CHECKS_FINITE
        s->f_checks_finite = 1;   /* cs_rhs: mdl_deriv refuses NaN/Inf, naming the variable */
#endif
        if (c->ode) rt_ode_free(c->ode);
        c->ode = s;
        c->odeRestart = 1;   /* (a pending odeResume of a restored FMU state still applies) */
        rlog(c, fmi2OK, RT_LOG_ALL, "%s: using solver %s", fn, m->name);
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
    u_at(c, c->v, t);
    c->stale = 1;
    forget_parts(c);
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
    zc_eval(c, c->v, t, zout);
    return 0;
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
    u_at(c, c->v, c->time);
    c->quiet++;
    c->dirty = mdl_eval(c->v, c->time, c) != 0;
    forget_parts(c);
    c->stale = 0;
    c->quiet--;
}

static fmi2Status cs_discard(RtCtx *c, const char *fn, const char *fmt, ...)
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
    emit(c, fmi2Discard, RT_LOG_DISCARD);
    c->deferred[0] = '\0';
    c->lastSuccessfulTime = c->time;
    c->odeRestart = 1;
    c->odeResume = 0;
    c->state = RT_STEP_FAILED;
    return fmi2Discard;
}

/* handle the state event located at tev (v is evaluated there): event iteration,
 * chattering tests (1)-(2), solver restart, band watch (3).  Returns fmi2OK or the
 * fmi2Discard of a failure. */
static fmi2Status cs_event(RtCtx *c, const char *fn, double tev)
{
    int rc, flags;
    char why[RT_WHY_LEN];
    c->time = tev;
    c->nEvents++;
    ev_begin(c);
    rc = event_iteration(c, 0, &flags);
    if (rc != 0) {
        invalidate(c);
        return cs_discard(c, fn, "event handling failed at t=%.17g", tev);
    }
    c->stale = 0;
    rlog(c, fmi2OK, RT_LOG_EVENTS, "%s: state event at t=%.17g%s", fn, tev,
         (flags & MDL_EV_REINIT) ? " (states reinitialized)" : "");
    if (flags & MDL_EV_TERMINATE) {
        c->terminateRequested = 1;
        return cs_discard(c, fn, "the model called terminate() at t=%.17g", tev);
    }
    if (ev_record(c, tev, why, sizeof why)) return cs_discard(c, fn, "%s", why);
    if (N_X > 0) rt_ode_restart(c->ode, tev, c->v + OFF_X, 0.0);
    c->ahead = 0;
    zc_eval(c, c->v, c->time, c->z);
    zmemory(c->zOld, c->z, 0);
    band_setup(c, flags & MDL_EV_REINIT);
    return fmi2OK;
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
    if (N_Z == 0 || !(s->t > tEnd)) return 0;
    rc = eval_interp(c, tEnd, c->zr);
    if (rc == 0 && !crossing(c->zOld, c->zr)) return 0;
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
static fmi2Status cs_integrate(RtCtx *c, const char *fn, double tEnd)
{
    RtOde *s;
    long steps = 0;
    int rc, flags;
    double tBound;
    const double tBegin = c->time;
    const long maxSteps = cs_max_steps(c);
    const double wallBudget = cs_wall_budget(c);
    fmi2Status st;

    c->deferred[0] = '\0';
    if (cs_solver(c, fn) != 0) return fmi2Error;
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
    u_begin_step(c);   /* the inputs' polynomial of this step (input derivatives) */

    /* inputs or parameters changed since the last step: event iteration first */
    if (c->csEventPending || c->dirty) {
        rc = ensure_eval(c);
        if (rc == 0 && c->csEventPending) rc = event_iteration(c, 0, &flags);
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
        band_clear(c);
    }
    if (N_X == 0 && N_Z == 0) {   /* nothing continuous: just advance the time */
        c->time = tEnd;
        u_at(c, c->v, tEnd);
        invalidate(c);
        rc = ensure_eval(c);
        if (rc != 0) return cs_discard(c, fn, "model evaluation failed at t=%.17g", tEnd);
        c->lastSuccessfulTime = tEnd;
        return fmi2OK;
    }
    if (c->odeRestart && s && c->odeResume && live_load(c, s)) {
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
        if (N_Z > 0) zc_eval(c, c->v, c->time, c->zOld);
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
                        rlog(c, fmi2OK, RT_LOG_ALL, "%s: t=%.17g auto solver switched to %s "
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
                        const int kb = band_check(c, c->z);   /* test (3) */
                        if (kb >= 0) {
                            char why[RT_WHY_LEN];
                            band_message(c, kb, s->t_old, c->z[kb], why, sizeof why);
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
                    invalidate(c);
                    return cs_discard(c, fn, "model evaluation failed at the event t=%.17g",
                                      tev);
                }
                st = cs_event(c, fn, tev);
                if (st != fmi2OK) return st;
                if (tEnd - tev <= 1e-13 * (fabs(tEnd) > 1.0 ? fabs(tEnd) : 1.0)) break;
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
            u_at(c, c->v, tEnd);
            rc = mdl_eval(c->v, c->time, c);
            if (rc != 0) return cs_discard(c, fn, "model evaluation failed at t=%.17g", tEnd);
            if (N_Z == 0) continue;
            zc_eval(c, c->v, c->time, c->z);
            if (!crossing(c->zOld, c->z)) {
                zmemory(c->zOld, c->z, 0);
                continue;
            }
            memcpy(c->zl, c->zOld, (size_t)N_Z * sizeof(double));
            memcpy(c->zr, c->z, (size_t)N_Z * sizeof(double));
            rc = locate_root(c, t0, tEnd, &tev);
            if (rc == 0) {
                u_at(c, c->v, tev);
                rc = mdl_eval(c->v, tev, c);
            }
            if (rc != 0) return cs_discard(c, fn, "model evaluation failed while locating an event in "
                                           "(%.17g, %.17g]", t0, tEnd);
            st = cs_event(c, fn, tev);
            if (st != fmi2OK) return st;
        }
    }
    /* Deliver exactly the master's communication point, always from the solver's record of
       the last accepted step (its end point s->x, or its dense output inside it), never from
       what v happens to hold: v holds the step end only right after rt_ode_step (G1).  A step
       continued from an earlier fmi2DoStep left v at the communication point delivered then
       (or at an event bracket), so a step ending exactly on tEnd must still be copied. */
    if (N_X > 0 && c->ahead) {
        cs_x_at(c, tEnd);              /* the step end itself if s->t == tEnd */
        if (!(s->t > tEnd)) c->ahead = 0;   /* the step ends on tEnd: consumed */
    } else if (s) {
        s->t = tEnd;
    }
    c->time = tEnd;
    c->lastSuccessfulTime = tEnd;
    return fmi2OK;
}

/* ------------------------------------------------------------------------- */
/* Co-Simulation: API                                                         */

fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    double tol;
    RT_BEGIN("fmi2DoStep", M_DoStep)
    (void)noSetFMUStatePriorToCurrentPoint;
    c->ddValid = 0;                /* the step moves x and t */
    if (!require_type(c, FN, fmi2CoSimulation)) { status = fmi2Error; goto END; }
    if (!isfinite(currentCommunicationPoint) || !isfinite(communicationStepSize) ||
        communicationStepSize < 0)
        FAIL("%s: invalid arguments currentCommunicationPoint=%g communicationStepSize=%g",
             FN, currentCommunicationPoint, communicationStepSize);
    tol = 1e-9 * (fabs(c->time) > 1.0 ? fabs(c->time) : 1.0);
    if (fabs(currentCommunicationPoint - c->time) > tol)
        FAIL("%s: currentCommunicationPoint=%.17g does not match the FMU time %.17g", FN,
             currentCommunicationPoint, c->time);
    if (c->terminateRequested)
        FAIL("%s: the model requested termination at t=%.17g", FN, c->lastSuccessfulTime);
    if (c->stopDefined && currentCommunicationPoint + communicationStepSize >
                          c->tStop + 1e-9 * (fabs(c->tStop) > 1.0 ? fabs(c->tStop) : 1.0))
        FAIL("%s: step to t=%.17g goes beyond the stop time %.17g set in "
             "fmi2SetupExperiment", FN, currentCommunicationPoint + communicationStepSize,
             c->tStop);
    /* only an accepted call snaps the time to the master's grid (a rejected one leaves the
       instance unchanged) */
    c->time = currentCommunicationPoint;
    if (communicationStepSize == 0.0) goto END;
    status = cs_integrate(c, FN, currentCommunicationPoint + communicationStepSize);
    if (status == fmi2OK) u_end_step(c);   /* the input derivatives were this step's */
END:
    return status;
}

fmi2Status fmi2CancelStep(fmi2Component comp)
{
    RT_BEGIN("fmi2CancelStep", M_CancelStep)
    /* unreachable: fmi2DoStep is synchronous, stepInProgress never happens */
END:
    return status;
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component comp, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[])
{
    size_t i;
    RT_BEGIN("fmi2SetRealInputDerivatives", M_SetRealInputDerivatives)
    /* semantics: "input derivatives" above */
    if (!require_type(c, FN, fmi2CoSimulation)) { status = fmi2Error; goto END; }
    if (nvr > 0 && (!vr || !order || !value)) FAIL("%s: NULL pointer argument", FN);
    for (i = 0; i < nvr; i++) {    /* all checked before anything is set */
        const fmi2ValueReference r = vr[i];
        if (r >= (fmi2ValueReference)NV || mdl_var[r].kind == MK_INTERNAL || !mdl_var[r].name)
            FAIL("%s: value reference %u is not in the model description", FN, r);
        if (mdl_var[r].kind != MK_INPUT)
            FAIL("%s: %s (vr=%u) is not an input: derivatives can only be set for continuous Real "
                 "inputs", FN, var_name(r), r);
        if (mdl_var[r].type != MT_REAL)
            FAIL("%s: %s (vr=%u) is %s input (variability discrete): derivatives can only be set "
                 "for continuous Real inputs", FN, var_name(r), r,
                 mdl_var[r].type == MT_INTEGER ? "an Integer" : "a Boolean");
        if (order[i] < 1)
            FAIL("%s: order %d for %s (vr=%u): the order of a derivative is at least 1 (FMI 2.0: "
                 "1 is the first derivative, 0 is not allowed)", FN, (int)order[i], var_name(r), r);
        if (order[i] > 2)
            FAIL("%s: order %d for %s (vr=%u): this FMU interpolates its inputs with derivatives "
                 "of order 1 and 2 only", FN, (int)order[i], var_name(r), r);
        if (!isfinite(value[i]))
            FAIL("%s: derivative of order %d of %s (vr=%u) = %g is not a finite number", FN,
                 (int)order[i], var_name(r), r, value[i]);
    }
    for (i = 0; i < nvr; i++) {
        double *d = order[i] == 1 ? c->uD1 : c->uD2;
        d[vr[i] - (fmi2ValueReference)OFF_U] = value[i];
    }
    if (nvr > 0) c->uDset = 1;
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* output derivatives (Co-Simulation, maxOutputDerivativeOrder = 1)           */
/* fmi2GetRealOutputDerivatives(order 1): dy/dt of an output at the current communication point,
 * the slope of the trajectory through it: y = h(t, x, u) with dx/dt = f(t, x, u) and du/dt the
 * input's rate (u_rate: the derivative set for the next step, else the slope with which the
 * last step's polynomial arrived; 0 for held inputs), so
 *     dy/dt = dh/dx f + dh/du du/dt + dh/dt.
 * With the model's directional derivatives (mdl_dd, exact where finite, as
 * fmi2GetDirectionalDerivative; mdl_ddir, the container's) the first two terms are ONE
 * directional derivative along (f, du/dt), and the explicit time dependence a central difference
 * in t at fixed x and u (exactly 0 for a model without one: the result is then exact up to
 * rounding).  Without them, one central difference along the trajectory, (t, x, u) +- h (1, f,
 * du/dt).  h = eps^(1/3) T, T the shortest time scale among max(|t|, 1), max(|x_i|, nominal_i) /
 * |f_i| and max(|u_j|, 1) / |du_j/dt| (second-order differences, rounding and truncation
 * balanced).  Every evaluation is on a copy of v: nothing of the instance changes (the
 * container's components are placed again by its next evaluation, model_api.h H1).  A state's
 * derivative is f itself; a discrete (when-assigned) Real output's is 0: it is constant
 * between events, and FMI 2.0 (4.2.1) returns 0 where the actual order is lower.  Orders other
 * than 1 are refused (0 is not allowed, maxOutputDerivativeOrder = 1), as are variables that are
 * not Real outputs. */
enum { OD_STATE = 1, OD_ZERO = 2, OD_OUT = 3, OD_NOT_REAL = -2 };
static int od_kind(fmi2ValueReference vr)
{
    if (in_slice(vr, OFF_X, N_X)) return OD_STATE;
    if (mdl_var[vr].type != MT_REAL) return OD_NOT_REAL;
    if (mdl_var[vr].kind == MK_DISCRETE) return OD_ZERO;
    if (mdl_var[vr].kind != MK_COMPUTED) return -1;
    /* (a model without a list of its outputs: any computed Real variable) */
    return is_listed_output(vr) != 0 ? OD_OUT : -1;
}

static double od_step(const RtCtx *c)
{
    const double tt = fabs(c->time) > 1.0 ? fabs(c->time) : 1.0;
    double T = tt;
    int i;
    for (i = 0; i < N_X + N_U; i++) {
        const int k = dd_col_slot(i);
        const double r = i < N_X ? fabs(c->v[OFF_DX + i]) : fabs(u_rate(c, i - N_X));
        const double a = fabs(c->v[k]), lo = i < N_X ? c->xNominal[i] : 1.0;
        const double sc = a > lo ? a : lo;
        if (r > 0.0 && isfinite(r) && sc / r < T) T = sc / r;
    }
    T *= 6.0554544523933395e-06;   /* eps^(1/3) */
    if (T < 1e-12 * tt) T = 1e-12 * tt;
    return (c->time + T) - c->time;   /* t +- h exact */
}

/* the model on a copy of v (c->vScratch) at t + hh, at x + hh f and u + hh du/dt (along) or at
   x and u; 0 ok, else the model's code */
static int od_eval(RtCtx *c, double hh, int along)
{
    double *w = c->vScratch;
    int k, rc;
    memcpy(w, c->v, (size_t)NV * sizeof(double));
    if (along) {
        for (k = 0; k < N_X; k++) w[OFF_X + k] += hh * c->v[OFF_DX + k];
        for (k = 0; k < N_U; k++)
            if (mdl_var[OFF_U + k].type == MT_REAL) w[OFF_U + k] += hh * u_rate(c, k);
    }
    c->quiet++;
#if MDL_HAS_OUT
    rc = mdl_out(w, c->time + hh, NULL, c);   /* (the outputs od_kind accepts) */
#else
    rc = mdl_eval(w, c->time + hh, c);
#endif
    c->quiet--;
    return rc == MDL_TERMINATE ? 0 : rc;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[])
{
    size_t i;
    int rc, nout = 0;
    RT_BEGIN("fmi2GetRealOutputDerivatives", M_GetRealOutputDerivatives)
    if (!require_type(c, FN, fmi2CoSimulation)) { status = fmi2Error; goto END; }
    if (nvr > 0 && (!vr || !order || !value)) FAIL("%s: NULL pointer argument", FN);
    for (i = 0; i < nvr; i++) {
        const fmi2ValueReference r = vr[i];
        int kind;
        if (r >= (fmi2ValueReference)NV || mdl_var[r].kind == MK_INTERNAL || !mdl_var[r].name)
            FAIL("%s: value reference %u is not in the model description", FN, r);
        kind = od_kind(r);
        if (kind == OD_NOT_REAL)
            FAIL("%s: %s (vr=%u) is of type %s: output derivatives exist for Real outputs only", FN,
                 var_name(r), r, mdl_var[r].type == MT_INTEGER ? "Integer" : "Boolean");
        if (kind < 0)
            FAIL("%s: %s (vr=%u) is not an output", FN, var_name(r), r);
        if (order[i] < 1)
            FAIL("%s: order %d for %s (vr=%u): the order of a derivative is at least 1 (FMI 2.0: "
                 "1 is the first derivative, 0 is not allowed)", FN, (int)order[i], var_name(r), r);
        if (order[i] > 1)
            FAIL("%s: order %d for %s (vr=%u) exceeds maxOutputDerivativeOrder = 1", FN,
                 (int)order[i], var_name(r), r);
        if (kind == OD_OUT) nout++;
    }
    /* the current point, consistent (stepComplete; elsewhere the values as they are: FMI 2.0
       4.2.4, usable for debugging only except after fmi2Terminate, which evaluated them) */
    if (c->state == RT_STEP_COMPLETE && (rc = ensure_eval(c)) != 0) {
        c->state = RT_ERROR;
        FAIL("%s: model evaluation failed at t=%.17g (code %d)", FN, c->time, rc);
    }
    if (nout > 0) {
        const double h = od_step(c);
        const double *w = c->vScratch;   /* od_eval's result */
        double *yp = c->ddSeed;          /* the outputs on the plus side, by slot */
#if MDL_HAS_DD || MDL_HAS_DDIR
        const int along = 0;             /* the time difference at fixed x and u */
        int k;
        dd_seed_clear(c);
        for (k = 0; k < N_X; k++) c->ddSeed[OFF_X + k] = c->v[OFF_DX + k];
        for (k = 0; k < N_U; k++)
            if (mdl_var[OFF_U + k].type == MT_REAL) c->ddSeed[OFF_U + k] = u_rate(c, k);
        if ((rc = dd_core(c, vr, nvr)) != 0) {   /* into ddOut; ddSeed is free afterwards */
            c->deferred[0] = '\0';
            FAIL("%s: the directional derivatives of the outputs cannot be computed at t=%.17g "
                 "(code %d)", FN, c->time, rc);
        }
#else
        const int along = 1;             /* the difference along the trajectory */
#endif
        rc = od_eval(c, h, along);
        for (i = 0; i < nvr; i++) if (od_kind(vr[i]) == OD_OUT) yp[vr[i]] = w[vr[i]];
        if (rc == 0) rc = od_eval(c, -h, along);
        if (rc != 0) {
            c->deferred[0] = '\0';
            FAIL("%s: the model cannot be evaluated near t=%.17g for differences (code %d)", FN,
                 c->time, rc);
        }
        for (i = 0; i < nvr; i++)
            if (od_kind(vr[i]) == OD_OUT)
                value[i] = (yp[vr[i]] - w[vr[i]]) / (2.0 * h) +
                           ((MDL_HAS_DD || MDL_HAS_DDIR) ? c->ddOut[vr[i]] : 0.0);
    }
    for (i = 0; i < nvr; i++) {
        const int kind = od_kind(vr[i]);
        if (kind == OD_STATE) value[i] = c->v[OFF_DX + (int)vr[i] - OFF_X];
        else if (kind == OD_ZERO) value[i] = 0.0;
    }
END:
    return status;
}

fmi2Status fmi2GetStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Status *value)
{
    RT_BEGIN("fmi2GetStatus", M_GetStatus)
    if (!require_type(c, FN, fmi2CoSimulation)) { status = fmi2Error; goto END; }
    if (!value) FAIL("%s: value is NULL", FN);
    if (s != fmi2DoStepStatus)
        FAIL("%s: status kind %d not available as fmi2Status", FN, (int)s);
    /* fmi2DoStep never returns fmi2Pending; the last step's result is final */
    *value = c->state == RT_STEP_FAILED ? fmi2Discard : fmi2OK;
END:
    return status;
}

fmi2Status fmi2GetRealStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Real *value)
{
    RT_BEGIN("fmi2GetRealStatus", M_GetStatus)
    if (!require_type(c, FN, fmi2CoSimulation)) { status = fmi2Error; goto END; }
    if (!value) FAIL("%s: value is NULL", FN);
    if (s != fmi2LastSuccessfulTime)
        FAIL("%s: only fmi2LastSuccessfulTime is available (kind %d requested)", FN, (int)s);
    *value = c->lastSuccessfulTime;
END:
    return status;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component comp, const fmi2StatusKind s,
                                fmi2Integer *value)
{
    RT_BEGIN("fmi2GetIntegerStatus", M_GetStatus)
    (void)value;
    if (!require_type(c, FN, fmi2CoSimulation)) { status = fmi2Error; goto END; }
    FAIL("%s: no Integer status available (kind %d requested)", FN, (int)s);
END:
    return status;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component comp, const fmi2StatusKind s,
                                fmi2Boolean *value)
{
    RT_BEGIN("fmi2GetBooleanStatus", M_GetStatus)
    if (!require_type(c, FN, fmi2CoSimulation)) { status = fmi2Error; goto END; }
    if (!value) FAIL("%s: value is NULL", FN);
    if (s != fmi2Terminated)
        FAIL("%s: only fmi2Terminated is available (kind %d requested)", FN, (int)s);
    *value = c->terminateRequested ? fmi2True : fmi2False;
END:
    return status;
}

fmi2Status fmi2GetStringStatus(fmi2Component comp, const fmi2StatusKind s,
                               fmi2String *value)
{
    RT_BEGIN("fmi2GetStringStatus", M_GetStatus)
    if (!require_type(c, FN, fmi2CoSimulation)) { status = fmi2Error; goto END; }
    if (!value) FAIL("%s: value is NULL", FN);
    if (s != fmi2PendingStatus)
        FAIL("%s: only fmi2PendingStatus is available (kind %d requested)", FN, (int)s);
    *value = "no step in progress (fmi2DoStep is synchronous)";
END:
    return status;
}
