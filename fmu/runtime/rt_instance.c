/*
 * rt_instance.c -- the instance of the runtime's core (rt_core.h): allocation, defaults and
 * release, logging, the allowed-state check every API function begins with, and the life
 * cycle common to Model Exchange and Co-Simulation (setup, initialization, terminate, reset).
 *
 * Contract: rt_instantiate makes an instance with the face's logger adapter and the
 * importer's memory functions; everything is freed by rt_free_instance.  The core logs
 * through rt_logf (runtime messages) and rt_log (model_api.h, generated code), both ending
 * in rt_emit, which hands the finished message to the face's adapter (RtCtx.logSink).
 *
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
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_impl.h"

#ifdef MDL_HAS_HOOKS
void *rt_model_data(RtCtx *ctx)
{
    return ctx ? RT_HOOKED(ctx)->data : NULL;
}
#endif

static const char *const rt_log_categories[RT_LOG_NCAT] = {
    "logEvents", "logStatusWarning", "logStatusDiscard", "logStatusError", "logAll"
};

/* the core's own names, for a face that installs none */
static const RtFaceNames rt_neutral_names = {
    "FMI", "the end of initialization", "the start of the experiment",
    {"instantiated", "initializationMode", "eventMode", "continuousTimeMode", "stepComplete",
     "stepInProgress", "stepFailed", "stepCanceled", "terminated", "error", "fatal"}
};

/* the name of state s in the face's words */
const char *rt_state_name(const RtCtx *c, RtState s)
{
    int k;
    for (k = 0; k < 11; k++)
        if (s == (RtState)(1 << k)) return c->names->stateNames[k];
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
static int delivered(const RtCtx *c, int status, int cat)
{
    if (!c->logSink) return 0;
    if (status >= RT_STATUS_DISCARD) return 1;
    return c->loggingOn && ((c->logMask >> cat) & 1u || (c->logMask >> RT_LOG_ALL) & 1u);
}

void rt_emit(RtCtx *c, int status, int cat)
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
    c->logSink(c, status, rt_log_categories[cat], c->msg2);
}

static int status_category(int status, int cat)
{
    switch (status) {
    case RT_STATUS_WARNING: return RT_LOG_WARNING;
    case RT_STATUS_DISCARD: return RT_LOG_DISCARD;
    case RT_STATUS_ERROR:
    case RT_STATUS_FATAL: return RT_LOG_ERROR;
    default: return cat;
    }
}

/* runtime-internal log */
void rt_logf(RtCtx *c, int status, int cat, const char *fmt, ...)
{
    va_list ap;
    cat = status_category(status, cat);
    if (!delivered(c, status, cat)) return;   /* not formatted either (an event: ~1 us) */
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    rt_emit(c, status, cat);
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
    if (status < RT_STATUS_OK || status > RT_STATUS_FATAL) status = RT_STATUS_ERROR;
    if (ctx->quiet > 0 && status >= RT_STATUS_WARNING) {
        /* during solver trial evaluations: keep only the last message; it is
           reported if the step finally fails */
        memcpy(ctx->deferred, ctx->msg, sizeof ctx->deferred);
        return;
    }
    cat = category_index(category);
    if (cat < 0) cat = RT_LOG_ALL;
    rt_emit(ctx, (int)status, status_category((int)status, cat));
}

/* ------------------------------------------------------------------------- */
/* entry/exit helpers                                                         */

int rt_enter(RtCtx *c, const char *fn, unsigned int mask)
{
    if (!c || c->magic != RT_CTX_MAGIC) return 0;
    if (!(c->state & mask)) {
        if (c->terminateRequested && (c->state & (RT_STEP_FAILED | RT_TERMINATED)))
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR,
                 "%s: not allowed in state %s (the model requested termination at t=%.17g)",
                 fn, rt_state_name(c, c->state), c->lastSuccessfulTime);
        else
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: not allowed in state %s", fn,
                 rt_state_name(c, c->state));
        return 0;
    }
    return 1;
}

int rt_require_type(RtCtx *c, const char *fn, int t)
{
    if (c->type == t) return 1;
    rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: only available for %s instances", fn,
         t == RT_TYPE_ME ? "Model Exchange" : "Co-Simulation");
    return 0;
}

void *rt_calloc(RtCtx *c, size_t n, size_t sz)
{
    return c->allocateMemory(n, sz);
}
void rt_free(RtCtx *c, void *p)
{
    if (p) c->freeMemory(p);
}

static void *default_calloc(size_t a, size_t b) { return calloc(a, b); }
static void default_free(void *p) { free(p); }

static void set_defaults(RtCtx *c)
{
    mdl_set_start(c->v);
    c->time = DEFAULT_START_TIME;
    c->tStart = DEFAULT_START_TIME;
    c->tStop = DEFAULT_STOP_TIME;
    c->stopDefined = 0;
    c->tolerance = DEFAULT_TOLERANCE;
    c->toleranceDefined = 0;
    rt_invalidate(c);
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
    c->uDnz = 0;
    c->partsRead = c->partsAhead = c->pointHave = c->pointAt = 0;
    memset(c->uS, 0, 2 * NARR(N_U) * sizeof(double));
    c->uXt = 0.0;
    c->uXon = 0;
    if (c->ode) {
        rt_ode_reset_stats(c->ode);
        rt_ode_auto_reset(c->ode);
    }
}

static void free_instance(RtCtx *c)
{
    void (*fr)(void *) = c->freeMemory;
#ifdef MDL_HAS_HOOKS
    mdl_hook_free(c);
    RT_HOOKED(c)->data = NULL;
#endif
    if (c->ode) rt_ode_free(c->ode);
    c->magic = 0;
    if (c->faceData) fr(c->faceData);
    if (c->instanceName) fr(c->instanceName);
    if (c->v) fr(c->v);
    if (c->z) fr(c->z);
    if (c->zOld) fr(c->zOld);
    if (c->zl) fr(c->zl);
    if (c->zr) fr(c->zr);
    if (c->zm) fr(c->zm);
    if (c->zf) fr(c->zf);
    if (c->zPart) fr(c->zPart);
    if (c->partOf) fr(c->partOf);
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
    if (c->uS) fr(c->uS);
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

/* ------------------------------------------------------------------------- */
/* life cycle                                                                 */

int rt_set_debug_logging(RtCtx *c, const char *fn, int loggingOn, size_t nCategories,
                         const char *const categories[])
{
    size_t i;
    unsigned int mask;
    int status = RT_STATUS_OK;
    mask = c->logMask;
    if (nCategories == 0) {
        mask = loggingOn ? (1u << RT_LOG_NCAT) - 1u : 0u;
    } else {
        for (i = 0; i < nCategories; i++) {
            int k = categories[i] ? category_index(categories[i]) : -1;
            if (k < 0)
                FAIL("%s: unknown log category '%s' (known: logEvents, logStatusWarning, "
                     "logStatusDiscard, logStatusError, logAll)", fn,
                     categories[i] ? categories[i] : "(null)");
            if (loggingOn) mask |= 1u << k;
            else mask &= ~(1u << k);
        }
    }
    c->logMask = mask;
    /* FMI 2.0: with categories, loggingOn switches only those; the others keep their state */
    c->loggingOn = mask != 0u;
#ifdef MDL_HAS_HOOKS
    mdl_hook_debug_logging(c, loggingOn ? 1 : 0, nCategories, categories);
#endif
END:
    return status;
}
RtCtx *rt_instantiate(const char *instanceName, int type, const char *guid,
                      const char *resourceLocation, int loggingOn,
                      void *(*alloc)(size_t, size_t), void (*release)(void *),
                      RtLogSink sink, void (*target)(void), void *env,
                      const RtFaceNames *names, const char **why)
{
    RtCtx *c = NULL;
    void *(*al)(size_t, size_t);
    void (*fr)(void *);
    size_t len;
    (void)resourceLocation;

    *why = NULL;
    if (alloc && release) {
        al = alloc;
        fr = release;
    } else {                       /* non-conforming importer: use a consistent pair */
        al = default_calloc;
        fr = default_free;
    }
    if (!instanceName || !*instanceName) *why = "missing instance name";
    else if (!guid || strcmp(guid, MODEL_GUID) != 0)
        *why = "GUID does not match this FMU (expected " MODEL_GUID ")";
    else if (type != RT_TYPE_ME && type != RT_TYPE_CS)
        *why = "unknown fmuType";
    if (*why) return NULL;

    c = (RtCtx *)al(1, RT_CTX_SIZE);
    if (!c) goto oom;
    c->names = names ? names : &rt_neutral_names;
    c->logSink = sink;
    c->logTarget = target;
    c->logEnv = env;
    c->allocateMemory = al;
    c->freeMemory = fr;
    c->magic = RT_CTX_MAGIC;
    c->type = type;
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
    c->uS = (double *)al(2 * NARR(N_U), sizeof(double));
    if (!c->uD1 || !c->uD2 || !c->uP || !c->uS) goto oom;
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
    c->partOf = (signed char *)al(NARR(NV), 1);
    if (!c->partOf) goto oom;
    {
        int i;
        for (i = 0; i < NV; i++) c->partOf[i] = (signed char)rt_part_of((unsigned int)i);
    }
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
    c->nlBand = rt_band_new(N_W, mdl_nl_colind, mdl_nl_row, 0, al, release);
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
    if (mdl_hook_instantiate(c, instanceName, resourceLocation,
                             type == RT_TYPE_CS ? 1 : 0, loggingOn ? 1 : 0,
                             &RT_HOOKED(c)->data) != 0) {
        free_instance(c);          /* the model logged why */
        return NULL;
    }
#endif
    return c;
oom:
    *why = "out of memory";
    if (c) free_instance(c);
    return NULL;
}

/* allowed in every state (also error/fatal) so that nothing leaks */
void rt_free_instance(RtCtx *c)
{
    if (!c || c->magic != RT_CTX_MAGIC) return;
    free_instance(c);
}

int rt_setup_experiment(RtCtx *c, const char *fn, int toleranceDefined, double tolerance,
                        double startTime, int stopTimeDefined, double stopTime)
{
    int status = RT_STATUS_OK;
    if (!isfinite(startTime)) FAIL("%s: startTime = %g is not finite", fn, startTime);
    if (toleranceDefined && !(tolerance > 0 && isfinite(tolerance)))
        FAIL("%s: tolerance = %g must be > 0", fn, tolerance);
    if (stopTimeDefined && !(stopTime >= startTime))
        FAIL("%s: stopTime = %g < startTime = %g", fn, stopTime, startTime);
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

int rt_enter_initialization_mode(RtCtx *c, const char *fn)
{
    int rc;
    int status = RT_STATUS_OK;
    c->time = c->tStart;
    c->state = RT_INIT_MODE;
    rt_invalidate(c);
    rc = rt_ensure_eval(c);
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: initialization failed at t=%.17g (model code %d)", fn, c->time, rc);
    }
END:
    return status;
}

int rt_exit_initialization_mode(RtCtx *c, const char *fn)
{
    int rc, flags = 0;
    int status = RT_STATUS_OK;
    rc = rt_ensure_eval(c);
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: initialization failed at t=%.17g (model code %d)", fn, c->time, rc);
    }
    rc = rt_event_iteration(c, 1, &flags);
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: initial event iteration failed at t=%.17g", fn, c->time);
    }
    if (flags & MDL_EV_TERMINATE) {
        c->terminateRequested = 1;
        rt_logf(c, RT_STATUS_WARNING, RT_LOG_EVENTS, "%s: the model called terminate() during "
             "initialization at t=%.17g", fn, c->time);
    }
    c->lastSuccessfulTime = c->time;
    rt_u_initialized(c);
    c->odeRestart = 1;
    c->odeResume = 0;
    c->csEventPending = 0;
    c->meEventPasses = 0;
    c->meEvFlags = 0;
    rt_ev_begin(c);
    c->state = c->type == RT_TYPE_ME ? RT_EVENT_MODE : RT_STEP_COMPLETE;
END:
    return status;
}

int rt_terminate(RtCtx *c, const char *fn)
{
    /* the values after a step are read in terminated too (FMI 2.0 4.2.4): evaluate what the
       solver left stale (y, and dx when steps reached past the communication point) while the
       model can still be evaluated */
    if (c->stale && c->state == RT_STEP_COMPLETE && rt_ensure_eval(c) != 0)
        rt_logf(c, RT_STATUS_WARNING, RT_LOG_WARNING, "%s: the model cannot be evaluated at t=%.17g; "
             "values read after %s are those of an earlier evaluation", fn, c->time, fn);
    if (c->ode)
        rt_logf(c, RT_STATUS_OK, RT_LOG_ALL,
             "%s: t=%.17g solver %s: steps=%ld accepted=%ld rejected=%ld "
             "nfev=%ld njev=%ld nlu=%ld nswitch=%ld events=%ld (last steps: %s)", fn, c->time,
             c->ode->method->name, c->ode->nstep, c->ode->naccept, c->ode->nreject,
             c->ode->nfev, c->ode->njev, c->ode->nlu, c->ode->nswitch, c->nEvents,
             c->ode->last_sub ? c->ode->last_sub->name : c->ode->sub->name);
#ifdef MDL_HAS_HOOKS
    mdl_hook_terminate(c);
#endif
    c->state = RT_TERMINATED;
    return RT_STATUS_OK;
}

int rt_reset(RtCtx *c, const char *fn)
{
    set_defaults(c);
    c->state = RT_INSTANTIATED;
#ifdef MDL_HAS_HOOKS
    if (mdl_hook_reset(c) != 0) {
        c->state = RT_ERROR;
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: the model could not be reset", fn);
        return RT_STATUS_ERROR;
    }
#else
    (void)fn;
#endif
    return RT_STATUS_OK;
}
