/*
 * ct_load.c -- the container's component instances (container.h): loading the component
 * binaries from the container's resources (dlopen, one handle per component folder; the
 * binary rebuilt with the fast entry points, fast/<platform>/, when there is one),
 * instantiating them as Model Exchange, forwarding their log messages through rt_log with
 * the component's name, and the runtime hooks of model_api.h for instantiation, reset,
 * terminate, fmi2SetDebugLogging and free.  Also the timing/counting helpers.
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "container.h"

#if defined(_WIN32)
#error "the container loads its components with dlopen (POSIX); Windows is not supported"
#endif

#if defined(__APPLE__)
#define CT_PLATFORM "darwin"
#define CT_SHLIB ".dylib"
#else
#define CT_PLATFORM "linux"
#define CT_SHLIB ".so"
#endif

/* log categories of the runtime (rt_ctx.h order): the bits of CtCompInfo.logCats */
static const char *const ct_categories[] = {
    "logEvents", "logStatusWarning", "logStatusDiscard", "logStatusError", "logAll"
};
#define CT_NCAT 5

CtData *ct_data(RtCtx *ctx)
{
    return (CtData *)rt_model_data(ctx);
}

/* ------------------------------------------------------------------------- */
/* counting and timing                                                        */

double ct_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *status_name(fmi2Status st)
{
    switch (st) {
    case fmi2OK: return "fmi2OK";
    case fmi2Warning: return "fmi2Warning";
    case fmi2Discard: return "fmi2Discard";
    case fmi2Error: return "fmi2Error";
    case fmi2Fatal: return "fmi2Fatal";
    case fmi2Pending: return "fmi2Pending";
    }
    return "an unknown status";
}

int ct_call_end(CtData *d, CtComp *k, const char *fn, double t0, fmi2Status st, double t)
{
    if (d->timing) d->tComp += ct_now() - t0;
    if (st == fmi2OK || st == fmi2Warning) return 0;
    if (d->phase == CT_PH_CT && st >= fmi2Error) k->broken = 1;
    rt_log(d->ctx, 3, "logStatusError", "component %s: %s returned %s at t=%.17g%s%s",
           k->info->name, fn, status_name(st), t, k->lastMsg[0] ? ": " : "", k->lastMsg);
    k->lastMsg[0] = '\0';
    return 1;
}

/* the mdl_* entry points count their own time (nested calls once) */
void ct_timed_begin(CtData *d, const double *v)
{
    if (d->depth++ > 0) return;
    d->timing = v[CT_SLOT_TIMING] != 0.0;
    if (d->timing) d->tEntry = ct_now();
}

void ct_timed_end(CtData *d)
{
    if (--d->depth > 0) return;
    if (d->timing) d->tTotal += ct_now() - d->tEntry;
}

/* ------------------------------------------------------------------------- */
/* component log messages -> rt_log, "<component>: <message>"                  */

static void ct_logger(fmi2ComponentEnvironment env, fmi2String instanceName,
                      fmi2Status status, fmi2String category, fmi2String message, ...)
{
    CtComp *k = (CtComp *)env;
    char buf[CT_MSG];
    va_list ap;
    size_t i, j;
    (void)instanceName;
    if (!k || !k->d || !message) return;
    /* the message is a printf format (FMI 2.0): "%%" and arguments; "##" is a '#' */
    va_start(ap, message);
    vsnprintf(buf, sizeof buf, message, ap);
    va_end(ap);
    for (i = j = 0; buf[i]; i++, j++) {
        buf[j] = buf[i];
        if (buf[i] == '#' && buf[i + 1] == '#') i++;
    }
    buf[j] = '\0';
    if (status >= fmi2Warning) memcpy(k->lastMsg, buf, sizeof k->lastMsg);
    rt_log(k->d->ctx, (int)status, category ? category : "logAll", "%s: %s", k->info->name, buf);
}

static void *ct_calloc(size_t n, size_t sz) { return calloc(n, sz); }
static void ct_free(void *p) { free(p); }

/* ------------------------------------------------------------------------- */
/* resource location                                                          */

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* "file:///a/b%20c/", "file:/a/b", "file://localhost/a/b" -> "/a/b c" (malloc'd), NULL if
   it is not a file URI */
static char *uri_to_path(const char *uri)
{
    const char *p;
    char *out, *q;
    if (strncmp(uri, "file:", 5) != 0) return NULL;
    p = uri + 5;
    if (p[0] == '/' && p[1] == '/') {          /* authority: empty or localhost */
        p += 2;
        if (strncmp(p, "localhost", 9) == 0) p += 9;
        if (*p != '/') return NULL;
    }
    out = (char *)malloc(strlen(p) + 1);
    if (!out) return NULL;
    for (q = out; *p; p++) {
        if (*p == '%' && hexval((unsigned char)p[1]) >= 0 && hexval((unsigned char)p[2]) >= 0) {
            *q++ = (char)(hexval((unsigned char)p[1]) * 16 + hexval((unsigned char)p[2]));
            p += 2;
        } else {
            *q++ = *p;
        }
    }
    *q = '\0';
    while (q > out + 1 && q[-1] == '/') *--q = '\0';
    return out;
}

static char *concat(const char *a, const char *b, const char *c, const char *e, const char *f)
{
    const size_t n = strlen(a) + strlen(b) + strlen(c) + strlen(e) + strlen(f) + 1;
    char *s = (char *)malloc(n);
    if (s) snprintf(s, n, "%s%s%s%s%s", a, b, c, e, f);
    return s;
}

/* <dir><sub><plat>/<ident><CT_SHLIB>: a component's shared library (NULL: out of memory) */
static char *lib_path(const char *dir, const char *sub, const char *plat, const char *ident)
{
    char *base = concat(dir, sub, plat, "/", ident), *lib;
    if (!base) return NULL;
    lib = concat(base, CT_SHLIB, "", "", "");
    free(base);
    return lib;
}

/* ------------------------------------------------------------------------- */
/* loading                                                                    */

#define LOAD(field, sym)                                                          \
    do {                                                                          \
        *(void **)(&k->f.field) = dlsym(k->lib, sym);                             \
        if (!k->f.field) { missing = sym; goto END; }                             \
    } while (0)

static int load_component(CtData *d, CtComp *k, int loggingOn)
{
    const CtCompInfo *ci = k->info;
    char plat[16];
    char *lib = NULL, *dir = NULL, *uri = NULL;
    const char *missing = NULL;
    int rc = 1;
    snprintf(plat, sizeof plat, "%s%d", CT_PLATFORM, (int)(8 * sizeof(void *)));
    dir = concat(d->resDir, "/components/", ci->folder, "", "");
    /* the binary rebuilt with the fast entry points (fast/<platform>/, ct_fast.h) when the
       builder made one, else the component's own (binaries/<platform>/) */
    lib = dir ? lib_path(dir, "/fast/", plat, ci->identifier) : NULL;
    if (lib && access(lib, F_OK) != 0) {
        free(lib);
        lib = lib_path(dir, "/binaries/", plat, ci->identifier);
    }
    uri = concat(d->resUri, "/components/", ci->folder, "/resources", "");
    if (!dir || !lib || !uri) {
        rt_log(d->ctx, 3, "logStatusError", "container: out of memory");
        goto END;
    }
    k->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!k->lib) {
        const char *e = dlerror();
        rt_log(d->ctx, 3, "logStatusError", "container: cannot load component %s from %s: %s",
               ci->name, lib, e ? e : "dlopen failed");
        goto END;
    }
    LOAD(instantiate, "fmi2Instantiate");
    LOAD(freeInstance, "fmi2FreeInstance");
    LOAD(setDebugLogging, "fmi2SetDebugLogging");
    LOAD(setupExperiment, "fmi2SetupExperiment");
    LOAD(enterInitializationMode, "fmi2EnterInitializationMode");
    LOAD(exitInitializationMode, "fmi2ExitInitializationMode");
    LOAD(terminate, "fmi2Terminate");
    LOAD(reset, "fmi2Reset");
    LOAD(getReal, "fmi2GetReal");
    LOAD(getInteger, "fmi2GetInteger");
    LOAD(getBoolean, "fmi2GetBoolean");
    LOAD(setReal, "fmi2SetReal");
    LOAD(setInteger, "fmi2SetInteger");
    LOAD(setBoolean, "fmi2SetBoolean");
    LOAD(getFMUstate, "fmi2GetFMUstate");
    LOAD(setFMUstate, "fmi2SetFMUstate");
    LOAD(freeFMUstate, "fmi2FreeFMUstate");
    LOAD(serializedFMUstateSize, "fmi2SerializedFMUstateSize");
    LOAD(serializeFMUstate, "fmi2SerializeFMUstate");
    LOAD(deSerializeFMUstate, "fmi2DeSerializeFMUstate");
    LOAD(enterEventMode, "fmi2EnterEventMode");
    LOAD(newDiscreteStates, "fmi2NewDiscreteStates");
    LOAD(enterContinuousTimeMode, "fmi2EnterContinuousTimeMode");
    LOAD(setTime, "fmi2SetTime");
    LOAD(setContinuousStates, "fmi2SetContinuousStates");
    LOAD(getDerivatives, "fmi2GetDerivatives");
    LOAD(getEventIndicators, "fmi2GetEventIndicators");
    LOAD(getContinuousStates, "fmi2GetContinuousStates");
    if (ci->dd) LOAD(getDirectionalDerivative, "fmi2GetDirectionalDerivative");
    {   /* the fast entry points, if the builder compiled them into this binary (ct_fast.h) */
        CtFastApiFn api;
        *(void **)(&api) = dlsym(k->lib, CT_FAST_SYMBOL);
        k->fast = api ? api() : NULL;
        if (k->fast && (k->fast->version != CT_FAST_VERSION || k->fast->sizeofVal != (int)sizeof(CtVal)))
            k->fast = NULL;
    }
    k->cb.logger = ct_logger;
    k->cb.allocateMemory = ct_calloc;
    k->cb.freeMemory = ct_free;
    k->cb.stepFinished = NULL;
    k->cb.componentEnvironment = k;
    k->inst = k->f.instantiate(ci->name, fmi2ModelExchange, ci->guid, uri, &k->cb, fmi2False,
                               loggingOn ? fmi2True : fmi2False);
    if (!k->inst) {
        rt_log(d->ctx, 3, "logStatusError", "container: component %s (%s) could not be "
               "instantiated%s%s", ci->name, lib, k->lastMsg[0] ? ": " : "", k->lastMsg);
        goto END;
    }
    rc = 0;
END:
    if (missing)
        rt_log(d->ctx, 3, "logStatusError", "container: component %s (%s) does not export %s",
               ci->name, lib, missing);
    free(dir);
    free(lib);
    free(uri);
    return rc;
}
#undef LOAD

/* the count of each component's leading Real outputs (Real first: builder), once */
static void count_real_outputs(CtData *d)
{
    int i;
    for (i = 0; i < CT_NCOMP; i++) {
        const CtVal *vals = ct_out + ct_comp[i].outFirst;
        int m = 0;
        while (m < ct_comp[i].outN && vals[m].type == MT_REAL) m++;
        d->outReal[i] = m;
    }
}

/* 1 if the value references and the slots of vals both ascend by one (a run, ct_fast.h) */
static int is_run(const CtVal *vals, int n)
{
    int i;
    for (i = 1; i < n; i++)
        if (vals[i].vr != vals[0].vr + (unsigned int)i || vals[i].slot != vals[0].slot + i) return 0;
    return n > 0;
}

/* what each read of the action list and of the Real outputs needs (CtFastApi.need), and which
   actions are runs, once (after count_real_outputs) */
static void fast_needs(CtData *d)
{
    int a, i;
    for (a = 0; a < CT_N_ACT; a++) {
        const CtAction *A = &ct_act[a];
        const CtComp *k = &d->comp[A->comp];
        if (!k->fast || A->type != MT_REAL || A->discrete)
            d->actNeed[a] = CT_FAST_NEED_SLOW;
        else if (A->op == CT_GET)
            d->actNeed[a] = k->fast->need(ct_act_val + A->first, A->n);
        else
            d->actNeed[a] = k->fast->settable(ct_act_val + A->first, A->n);
        d->actRun[a] = d->actNeed[a] != CT_FAST_NEED_SLOW && is_run(ct_act_val + A->first, A->n);
    }
    for (i = 0; i < CT_NCOMP; i++) {
        const CtComp *k = &d->comp[i];
        const int m = d->outReal[i];
        d->outNeed[i] = k->fast && m > 0 ? k->fast->need(ct_out + k->info->outFirst, m) : CT_FAST_NEED_SLOW;
    }
}

static void reset_data(CtData *d)
{
    int i;
    d->phase = CT_PH_INSTANTIATED;
    d->tEv = 0.0;
    d->fwdPending = 0;
    for (i = 0; i < CT_N_FWD; i++) d->lastFwd[i] = ct_fwd_start[i];   /* what it has */
    for (i = 0; i < CT_N_ACTVAL; i++) d->lastSet[i] = NAN;
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        k->need = 0;
        k->broken = 0;
        k->timeSet = 0;
        k->xValid = 0;
        k->snapValid = 0;
        k->lastMsg[0] = '\0';
    }
    d->nRhs = d->nEvents = d->nPasses = d->nCalls = d->tComp = d->tTotal = 0.0;
    d->depth = 0;
}

int mdl_hook_instantiate(RtCtx *ctx, const char *instanceName, const char *resourceLocation,
                         int type, int loggingOn, void **data)
{
    CtData *d;
    int i;
    (void)instanceName;
    (void)type;
    d = (CtData *)calloc(1, sizeof(CtData));
    *data = d;
    if (!d) {
        rt_log(ctx, 3, "logStatusError", "container: out of memory");
        return 1;
    }
    d->ctx = ctx;
    for (i = 0; i < CT_NCOMP; i++) {
        d->comp[i].d = d;
        d->comp[i].info = &ct_comp[i];
    }
    reset_data(d);
    if (!resourceLocation || !(d->resDir = uri_to_path(resourceLocation))) {
        rt_log(ctx, 3, "logStatusError", "container: the resource location '%s' is not a "
               "file URI: the component FMUs are in the container's resources/components/",
               resourceLocation ? resourceLocation : "(null)");
        return 1;
    }
    d->resUri = concat(resourceLocation, "", "", "", "");
    if (!d->resUri) {
        rt_log(ctx, 3, "logStatusError", "container: out of memory");
        return 1;
    }
    {
        size_t n = strlen(d->resUri);
        while (n > 0 && d->resUri[n - 1] == '/') d->resUri[--n] = '\0';
    }
    for (i = 0; i < CT_NCOMP; i++)
        if (load_component(d, &d->comp[i], loggingOn) != 0) return 1;
    count_real_outputs(d);
    fast_needs(d);
    return 0;
}

void mdl_hook_free(RtCtx *ctx)
{
    CtData *d = ct_data(ctx);
    int i;
    if (!d) return;
    for (i = CT_NCOMP - 1; i >= 0; i--) {
        CtComp *k = &d->comp[i];
        if (k->inst) {
            if (k->scratch) k->f.freeFMUstate(k->inst, &k->scratch);
            if (k->snap) k->f.freeFMUstate(k->inst, &k->snap);
            k->f.freeInstance(k->inst);
            k->inst = NULL;
        }
        if (k->lib) dlclose(k->lib);
        k->lib = NULL;
    }
    free(d->resDir);
    free(d->resUri);
    free(d);
}

int mdl_hook_reset(RtCtx *ctx)
{
    CtData *d = ct_data(ctx);
    int i, rc = 0;
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        const double t0 = ct_call_begin(d);
        const fmi2Status st = k->f.reset(k->inst);
        if (ct_call_end(d, k, "fmi2Reset", t0, st, 0.0)) rc = 1;
    }
    reset_data(d);
    return rc;
}

void mdl_hook_terminate(RtCtx *ctx)
{
    CtData *d = ct_data(ctx);
    int i;
    if (d->phase == CT_PH_EVENT || d->phase == CT_PH_CT) {
        for (i = 0; i < CT_NCOMP; i++) {
            CtComp *k = &d->comp[i];
            const double t0 = ct_call_begin(d);
            const fmi2Status st = k->f.terminate(k->inst);
            (void)ct_call_end(d, k, "fmi2Terminate", t0, st, d->tEv);
        }
    }
    d->phase = CT_PH_TERMINATED;
    rt_log(ctx, 0, "logAll", "container: %d components, %.0f right-hand sides, %.0f events "
           "(%.0f passes), %.0f component calls; time in the components %.6g s, in the "
           "container's evaluation outside them %.6g s (_container.timing = %s)", CT_NCOMP,
           d->nRhs, d->nEvents, d->nPasses, d->nCalls, d->tComp, d->tTotal - d->tComp,
           d->timing ? "true" : "false");
}

void mdl_hook_debug_logging(RtCtx *ctx, int loggingOn, size_t nCategories,
                            const char *const categories[])
{
    CtData *d = ct_data(ctx);
    const char *sel[CT_NCAT];
    int i;
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        size_t j, n = 0;
        double t0;
        fmi2Status st;
        if (nCategories == 0 || k->info->logCats == 0) {
            t0 = ct_call_begin(d);
            st = k->f.setDebugLogging(k->inst, loggingOn ? fmi2True : fmi2False, nCategories,
                                      (const fmi2String *)categories);
        } else {
            for (j = 0; j < nCategories && n < CT_NCAT; j++) {
                int c;
                for (c = 0; c < CT_NCAT; c++)
                    if (categories[j] && strcmp(categories[j], ct_categories[c]) == 0 &&
                        ((k->info->logCats >> c) & 1u))
                        sel[n++] = ct_categories[c];
            }
            if (n == 0) continue;
            t0 = ct_call_begin(d);
            st = k->f.setDebugLogging(k->inst, loggingOn ? fmi2True : fmi2False, n,
                                      (const fmi2String *)sel);
        }
        (void)ct_call_end(d, k, "fmi2SetDebugLogging", t0, st, 0.0);
    }
}
