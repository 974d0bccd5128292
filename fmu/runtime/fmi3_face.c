/*
 * fmi3_face.c -- the FMI 3.0 API (Model Exchange AND Co-Simulation) of a wearcosim FMU: a thin
 * face over the runtime's version-free core (rt_core.h), beside the FMI 2.0 face (fmi2_face.c)
 * over the same core.  An FMU carries one face: package.py compiles this file into FMI 3.0
 * FMUs only (and fmi2_face.c into FMI 2.0 FMUs only), so that a binary exports one FMI
 * version's symbols.
 *
 * Build: as fmi2_face.c says, with this file instead of fmi2_face.c, and with the generated
 * fmi3_table.h (wearcosim.export.md3.render_table_c) beside config.h: the table of the FMI 3.0
 * value references, wc3_vars[vr] = where the variable's elements are (slots of v, the String
 * values, the event indicators, or time), its first element and its element count.  This
 * file is never edited per model; through the table it depends on the model, as the core
 * does through config.h.  Define FMI3_FUNCTION_PREFIX only for source-code/static-library
 * use.
 *
 * How the face maps FMI 3.0 onto the core:
 *  - Value references: an FMI 3.0 value reference names a whole variable, an array of
 *    `count` elements in row-major order; fmi3Get/Set* expand the references into the core's
 *    slots (the FMI 2.0 value references of the elements) and check nValues against the
 *    elements' number.  The type of the function must be the variable's (Enumeration:
 *    fmi3Get/SetInt64).  time (value reference 0) and the event indicators (the array
 *    _eventIndicator) are read with fmi3GetFloat64 and cannot be set.  The core's messages
 *    name a variable by its name and its slot (vr=... there is the element's FMI 2.0 value
 *    reference).
 *  - States: the core's RtState bits, with this face's masks M_* below (FMI 3.0, 3.2 and
 *    4.2: the state machines of Model Exchange and Co-Simulation); misuse gives fmi3Error and
 *    the message "fmi3X: not allowed in state Y" with the FMI 3.0 names of the states
 *    (stepComplete is "stepMode"; after fmi3DoStep returned fmi3Discard the instance is in
 *    "stepDiscarded": only gets, the FMU state, fmi3Terminate and fmi3Reset are allowed).
 *  - Co-Simulation: eventModeUsed and earlyReturnAllowed go to the core (rt_cs.c "early
 *    return and event mode"): with earlyReturnAllowed fmi3DoStep ends at the first state
 *    event inside the step (earlyReturn, lastSuccessfulTime = the event time); with
 *    eventModeUsed as well it returns before handling it (eventHandlingNeeded) and the
 *    importer handles it in event mode (fmi3EnterEventMode, fmi3UpdateDiscreteStates,
 *    fmi3EnterStepMode).  After fmi3ExitInitializationMode the instance is in event mode
 *    when eventModeUsed, else in step mode.  The intermediate-update callback is accepted
 *    and never called (the description says providesIntermediateUpdate="false").
 *  - Refused (fmi3Error with a message): Scheduled Execution, configuration mode (the FMU
 *    has no structural parameters), clocks, the Float32/Int8/UInt8/Int16/UInt16/UInt32/UInt64
 *    and Binary types (no variable has them), adjoint derivatives, per-element variable
 *    dependencies (providesPerElementDependencies="false": the ModelStructure of
 *    modelDescription.xml has them by variable), fmi3EvaluateDiscreteStates.
 *  - Every function begins with RT_BEGIN (handle and state check) and has one exit (END);
 *    a rejected call leaves the instance unchanged, as in the FMI 2.0 face.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmi3Functions.h"
#include "rt_core.h"
#include "fmi3_table.h"

/* ------------------------------------------------------------------------- */
/* allowed-state masks (FMI 3.0)                                              */
#define S_ANY_ALIVE (RT_INSTANTIATED | RT_INIT_MODE | RT_EVENT_MODE | RT_CT_MODE | \
                     RT_STEP_COMPLETE | RT_STEP_FAILED | RT_STEP_CANCELED | \
                     RT_TERMINATED | RT_ERROR)
#define M_SetDebugLogging S_ANY_ALIVE
#define M_EnterInitializationMode RT_INSTANTIATED
#define M_ExitInitializationMode RT_INIT_MODE
#define M_EnterEventMode (RT_CT_MODE | RT_STEP_COMPLETE)
#define M_Terminate (RT_EVENT_MODE | RT_CT_MODE | RT_STEP_COMPLETE | RT_STEP_FAILED)
#define M_Reset S_ANY_ALIVE
/* gets are also accepted in 'instantiated' (start values), as in the FMI 2.0 face */
#define M_Get S_ANY_ALIVE
#define M_Set (RT_INSTANTIATED | RT_INIT_MODE | RT_EVENT_MODE | RT_CT_MODE | RT_STEP_COMPLETE)
#define M_FMUState S_ANY_ALIVE
#define M_GetDirectionalDerivative (RT_INIT_MODE | RT_EVENT_MODE | RT_CT_MODE | \
                                    RT_STEP_COMPLETE | RT_STEP_FAILED | RT_TERMINATED | RT_ERROR)
#define M_GetOutputDerivatives (RT_STEP_COMPLETE | RT_STEP_FAILED | RT_TERMINATED | RT_ERROR)
#define M_UpdateDiscreteStates RT_EVENT_MODE
#define M_EnterContinuousTimeMode RT_EVENT_MODE
#define M_CompletedIntegratorStep RT_CT_MODE
#define M_SetTime RT_CT_MODE
#define M_SetContinuousStates RT_CT_MODE
#define M_GetDerivatives (RT_INIT_MODE | RT_EVENT_MODE | RT_CT_MODE | RT_TERMINATED | RT_ERROR)
#define M_GetEventIndicators M_GetDerivatives
#define M_GetContinuousStates M_GetDerivatives
#define M_GetNominals (RT_INSTANTIATED | M_GetDerivatives)
#define M_GetNumbers S_ANY_ALIVE
#define M_DoStep RT_STEP_COMPLETE
#define M_EnterStepMode RT_EVENT_MODE
#define M_Refused S_ANY_ALIVE

#define RT_BEGIN(fname, mask)                                          \
    RtCtx *c = (RtCtx *)instance;                                      \
    const char *const FN = fname;                                      \
    fmi3Status status = fmi3OK;                                        \
    if (!rt_enter(c, FN, (mask))) { status = fmi3Error; goto END; }

#define FAIL(...) do { rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, __VA_ARGS__); status = fmi3Error; goto END; } while (0)

/* the core's status as fmi3Status (the same numbering) */
static fmi3Status st3(int s)
{
    switch (s) {
    case RT_STATUS_OK: return fmi3OK;
    case RT_STATUS_WARNING: return fmi3Warning;
    case RT_STATUS_DISCARD: return fmi3Discard;
    case RT_STATUS_ERROR: return fmi3Error;
    default: return fmi3Fatal;
    }
}

/* the core's logger adapter: the importer's fmi3LogMessageCallback, stored type-erased */
static void fmi3_logger(const RtCtx *c, int status, const char *category, const char *message)
{
    ((fmi3LogMessageCallback)c->logTarget)(c->logEnv, st3(status), category, message);
}

/* what the core's messages call this face's functions and states (rt_ctx.h RtFaceNames) */
static const RtFaceNames fmi3_names = {
    "FMI 3.0", "fmi3ExitInitializationMode", "fmi3EnterInitializationMode",
    {"instantiated", "initializationMode", "eventMode", "continuousTimeMode", "stepMode",
     "stepInProgress", "stepDiscarded", "stepCanceled", "terminated", "error", "fatal"}
};

/* set_values: the String variables (no MT_* type of model_api.h) */
#define MT_STRING_FACE (-1)

static const char *const type_name[6] = {"?", "Float64", "Int32", "Boolean", "Enumeration",
                                         "String"};

/* ------------------------------------------------------------------------- */
/* the face's scratch (RtCtx.faceData): the slots of the elements of a call, their values, the
   event indicators.  cap: the elements of all variables once; a call with more (a value
   reference repeated) gets a temporary block from the instance's memory functions. */
typedef struct {
    size_t cap;
    double *val;          /* cap */
    double *z;            /* N_EVENT_INDICATORS3 (at least 1) */
    unsigned int *slot;   /* cap */
} Face3;

typedef struct {
    unsigned int *slot;
    double *val;
    void *own;            /* a temporary block, or NULL */
} Buf;

static size_t all_elements(void)
{
    size_t i, n = 0;
    for (i = 0; i < N_VARS3; i++) n += wc3_vars[i].count;
    return n > 0 ? n : 1;
}

static int face_alloc(RtCtx *c)
{
    const size_t cap = all_elements();
    const size_t nz = N_EVENT_INDICATORS3 > 0 ? N_EVENT_INDICATORS3 : 1;
    const size_t head = (sizeof(Face3) + sizeof(double) - 1) / sizeof(double);
    double *block = (double *)c->allocateMemory(head + cap + nz + (cap * sizeof(unsigned int) +
                                                sizeof(double) - 1) / sizeof(double),
                                                sizeof(double));
    Face3 *f = (Face3 *)(void *)block;
    if (!block) return 0;
    f->cap = cap;
    f->val = block + head;
    f->z = f->val + cap;
    f->slot = (unsigned int *)(void *)(f->z + nz);
    c->faceData = block;
    return 1;
}

static int buf_get(RtCtx *c, const char *fn, size_t n, Buf *b)
{
    const Face3 *f = (const Face3 *)c->faceData;
    b->own = NULL;
    if (n <= f->cap) {
        b->slot = f->slot;
        b->val = f->val;
        return 1;
    }
    b->own = c->allocateMemory(n, sizeof(double) + sizeof(unsigned int));
    if (!b->own) {
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: out of memory", fn);
        return 0;
    }
    b->val = (double *)b->own;
    b->slot = (unsigned int *)(void *)(b->val + n);
    return 1;
}

static void buf_put(RtCtx *c, Buf *b)
{
    if (b->own) c->freeMemory(b->own);
    b->own = NULL;
}

/* The elements of the value references vr[0..nvr-1] of a call of fmi3{Get,Set}<type>
   (type: WC3_*), which has nValues values: every reference known and of that type, the
   elements' number nValues; set: none of them time or an event indicator.  *n: the elements.
   1 ok, else 0 (logged). */
static int check_refs(RtCtx *c, const char *fn, const fmi3ValueReference vr[], size_t nvr,
                      size_t nValues, const void *values, int type, int set, size_t *n)
{
    size_t i, total = 0;
    if ((nvr > 0 && !vr) || (nValues > 0 && !values)) {
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: NULL pointer argument", fn);
        return 0;
    }
    for (i = 0; i < nvr; i++) {
        const wc3_var *w;
        if (vr[i] >= (fmi3ValueReference)N_VARS3) {
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: value reference %u is not in the model "
                    "description (out of range 0..%d)", fn, (unsigned int)vr[i], N_VARS3 - 1);
            return 0;
        }
        w = &wc3_vars[vr[i]];
        if (w->type != type) {
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: the variable of value reference %u is "
                    "of type %s, not %s", fn, (unsigned int)vr[i],
                    type_name[w->type < 6 ? w->type : 0], type_name[type < 6 ? type : 0]);
            return 0;
        }
        if (set && w->where == WC3_IN_TIME) {
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: time (value reference %u) cannot be "
                    "set (Model Exchange: fmi3SetTime)", fn, (unsigned int)vr[i]);
            return 0;
        }
        if (set && w->where == WC3_IN_Z) {
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: the event indicators (value reference "
                    "%u) are computed by the model and cannot be set", fn, (unsigned int)vr[i]);
            return 0;
        }
        total += w->count;
    }
    if (total != nValues) {
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: nValues = %lu, but the %lu value "
                "references have %lu elements", fn, (unsigned long)nValues,
                (unsigned long)nvr, (unsigned long)total);
        return 0;
    }
    *n = total;
    return 1;
}

/* the slots (or String indices) of the elements in v (or mdl_str) of the references, in order;
   time and event indicators are skipped; returns their number */
static size_t slots_of(const fmi3ValueReference vr[], size_t nvr, unsigned int *slot,
                       int *hasTime, int *hasZ)
{
    size_t i, n = 0;
    unsigned int k;
    if (hasTime) *hasTime = 0;
    if (hasZ) *hasZ = 0;
    for (i = 0; i < nvr; i++) {
        const wc3_var *w = &wc3_vars[vr[i]];
        if (w->where == WC3_IN_TIME) { if (hasTime) *hasTime = 1; continue; }
        if (w->where == WC3_IN_Z) { if (hasZ) *hasZ = 1; continue; }
        for (k = 0; k < w->count; k++) slot[n++] = w->first + k;
    }
    return n;
}

/* A get of FMI 3.0 type `type` (core type mt): the values as doubles into out[0..n-1], in the
   order of the elements (time, v, event indicators). */
static int get_doubles(RtCtx *c, const char *fn, const fmi3ValueReference vr[], size_t nvr,
                       size_t nValues, const void *values, int type, int mt, Buf *b)
{
    size_t n = 0, ns, i, j = 0, e = 0;
    int hasTime, hasZ, st;
    if (!check_refs(c, fn, vr, nvr, nValues, values, type, 0, &n)) return RT_STATUS_ERROR;
    if (!buf_get(c, fn, n, b)) return RT_STATUS_ERROR;
    ns = slots_of(vr, nvr, b->slot, &hasTime, &hasZ);
    st = rt_get_begin(c, fn, b->slot, ns, values, mt);
    if (st != RT_STATUS_OK) return st;
    if (hasZ) {
        st = rt_get_indicators(c, fn, ((Face3 *)c->faceData)->z, rt_n_indicators());
        if (st != RT_STATUS_OK) return st;
    }
    /* values in the order of the references: b->val[e], reading the slots' values */
    for (i = 0; i < nvr; i++) {
        const wc3_var *w = &wc3_vars[vr[i]];
        unsigned int k;
        if (w->where == WC3_IN_TIME) b->val[e++] = c->time;
        else if (w->where == WC3_IN_Z)
            for (k = 0; k < w->count; k++) b->val[e++] = ((Face3 *)c->faceData)->z[w->first + k];
        else
            for (k = 0; k < w->count; k++) b->val[e++] = c->v[b->slot[j++]];
    }
    return RT_STATUS_OK;
}

/* ------------------------------------------------------------------------- */
/* common functions                                                           */

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn,
                               size_t nCategories, const fmi3String categories[])
{
    RT_BEGIN("fmi3SetDebugLogging", M_SetDebugLogging)
    if (nCategories > 0 && !categories) FAIL("%s: categories is NULL", FN);
    status = st3(rt_set_debug_logging(c, FN, loggingOn ? 1 : 0, nCategories, categories));
END:
    return status;
}

static fmi3Instance instantiate(const char *fn, fmi3String instanceName, int type,
                                fmi3String instantiationToken, fmi3String resourcePath,
                                fmi3Boolean loggingOn, fmi3InstanceEnvironment env,
                                fmi3LogMessageCallback logMessage)
{
    RtCtx *c;
    const char *why = NULL;
    c = rt_instantiate(instanceName, type, instantiationToken, resourcePath, loggingOn ? 1 : 0,
                       NULL, NULL, logMessage ? fmi3_logger : NULL, (void (*)(void))logMessage,
                       env, &fmi3_names, &why);
    if (c && !face_alloc(c)) {
        rt_free_instance(c);
        c = NULL;
        why = "out of memory";
    }
    if (!c && why && logMessage) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s: %s", fn, why);
        logMessage(env, fmi3Error, "logStatusError", msg);
    }
    return (fmi3Instance)c;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName,
                                          fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage)
{
    (void)visible;
    return instantiate("fmi3InstantiateModelExchange", instanceName, RT_TYPE_ME,
                       instantiationToken, resourcePath, loggingOn, instanceEnvironment,
                       logMessage);
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName,
                                         fmi3String instantiationToken,
                                         fmi3String resourcePath, fmi3Boolean visible,
                                         fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
                                         fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment instanceEnvironment,
                                         fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate)
{
    RtCtx *c;
    (void)visible;
    (void)requiredIntermediateVariables;
    (void)intermediateUpdate;        /* providesIntermediateUpdate="false": never called */
    if (nRequiredIntermediateVariables > 0) {
        /* no variable has intermediateUpdate="true" */
        if (logMessage)
            logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                       "fmi3InstantiateCoSimulation: no variable of this FMU can be read or set "
                       "during an intermediate update (requiredIntermediateVariables must be "
                       "empty)");
        return NULL;
    }
    c = (RtCtx *)instantiate("fmi3InstantiateCoSimulation", instanceName, RT_TYPE_CS,
                             instantiationToken, resourcePath, loggingOn, instanceEnvironment,
                             logMessage);
    if (c) {
        c->csEventModeUsed = eventModeUsed ? 1 : 0;
        c->csEarlyReturnAllowed = earlyReturnAllowed ? 1 : 0;
    }
    return (fmi3Instance)c;
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String instanceName,
                                               fmi3String instantiationToken,
                                               fmi3String resourcePath, fmi3Boolean visible,
                                               fmi3Boolean loggingOn,
                                               fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3LogMessageCallback logMessage,
                                               fmi3ClockUpdateCallback clockUpdate,
                                               fmi3LockPreemptionCallback lockPreemption,
                                               fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)instanceName; (void)instantiationToken; (void)resourcePath; (void)visible;
    (void)loggingOn; (void)clockUpdate; (void)lockPreemption; (void)unlockPreemption;
    if (logMessage)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "fmi3InstantiateScheduledExecution: this FMU supports Model Exchange and "
                   "Co-Simulation only (no ScheduledExecution in modelDescription.xml)");
    return NULL;
}

void fmi3FreeInstance(fmi3Instance instance)
{
    rt_free_instance((RtCtx *)instance);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    RT_BEGIN("fmi3EnterInitializationMode", M_EnterInitializationMode)
    status = st3(rt_setup_experiment(c, FN, toleranceDefined ? 1 : 0, tolerance, startTime,
                                     stopTimeDefined ? 1 : 0, stopTime));
    if (status != fmi3OK) goto END;
    status = st3(rt_enter_initialization_mode(c, FN));
END:
    return status;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    RT_BEGIN("fmi3ExitInitializationMode", M_ExitInitializationMode)
    status = st3(rt_exit_initialization_mode(c, FN));
    /* Co-Simulation with eventModeUsed: event mode follows initialization (FMI 3.0, 4.2) */
    if (status == fmi3OK && c->type == RT_TYPE_CS && c->csEventModeUsed)
        status = st3(rt_cs_enter_event_mode(c));
END:
    return status;
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance)
{
    RT_BEGIN("fmi3EnterEventMode", M_EnterEventMode)
    if (c->type == RT_TYPE_CS) {
        if (!c->csEventModeUsed)
            FAIL("%s: this Co-Simulation instance was instantiated with eventModeUsed = false",
                 FN);
        status = st3(rt_cs_enter_event_mode(c));
    } else {
        status = st3(rt_me_enter_event_mode(c));
    }
END:
    return status;
}

fmi3Status fmi3Terminate(fmi3Instance instance)
{
    RT_BEGIN("fmi3Terminate", M_Terminate)
    status = st3(rt_terminate(c, FN));
END:
    return status;
}

fmi3Status fmi3Reset(fmi3Instance instance)
{
    RT_BEGIN("fmi3Reset", M_Reset)
    status = st3(rt_reset(c, FN));
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* get / set                                                                  */

static double at_float64(const void *values, size_t i) { return ((const fmi3Float64 *)values)[i]; }
static double at_int32(const void *values, size_t i)
{
    return (double)((const fmi3Int32 *)values)[i];
}
static double at_int64(const void *values, size_t i)
{
    return (double)((const fmi3Int64 *)values)[i];
}
static double at_boolean(const void *values, size_t i)
{
    return ((const fmi3Boolean *)values)[i] ? 1.0 : 0.0;
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, fmi3Float64 values[], size_t nValues)
{
    Buf b = {NULL, NULL, NULL};
    size_t i;
    RT_BEGIN("fmi3GetFloat64", M_Get)
    status = st3(get_doubles(c, FN, valueReferences, nValueReferences, nValues, values,
                             WC3_FLOAT64, MT_REAL, &b));
    if (status == fmi3OK)
        for (i = 0; i < nValues; i++) values[i] = b.val[i];
    buf_put(c, &b);
END:
    return status;
}

fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, fmi3Int32 values[], size_t nValues)
{
    Buf b = {NULL, NULL, NULL};
    size_t i;
    RT_BEGIN("fmi3GetInt32", M_Get)
    status = st3(get_doubles(c, FN, valueReferences, nValueReferences, nValues, values,
                             WC3_INT32, MT_INTEGER, &b));
    if (status == fmi3OK)
        for (i = 0; i < nValues; i++) values[i] = (fmi3Int32)floor(b.val[i] + 0.5);
    buf_put(c, &b);
END:
    return status;
}

fmi3Status fmi3GetInt64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, fmi3Int64 values[], size_t nValues)
{
    Buf b = {NULL, NULL, NULL};
    size_t i;
    RT_BEGIN("fmi3GetInt64", M_Get)
    /* the Int64 variables of this FMU are its enumerations */
    status = st3(get_doubles(c, FN, valueReferences, nValueReferences, nValues, values,
                             WC3_ENUMERATION, MT_INTEGER, &b));
    if (status == fmi3OK)
        for (i = 0; i < nValues; i++) values[i] = (fmi3Int64)floor(b.val[i] + 0.5);
    buf_put(c, &b);
END:
    return status;
}

fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, fmi3Boolean values[], size_t nValues)
{
    Buf b = {NULL, NULL, NULL};
    size_t i;
    RT_BEGIN("fmi3GetBoolean", M_Get)
    status = st3(get_doubles(c, FN, valueReferences, nValueReferences, nValues, values,
                             WC3_BOOLEAN, MT_BOOLEAN, &b));
    if (status == fmi3OK)
        for (i = 0; i < nValues; i++) values[i] = b.val[i] != 0.0 ? fmi3True : fmi3False;
    buf_put(c, &b);
END:
    return status;
}

fmi3Status fmi3GetString(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, fmi3String values[], size_t nValues)
{
    Buf b = {NULL, NULL, NULL};
    size_t n = 0, ns;
    RT_BEGIN("fmi3GetString", M_Get)
    if (!check_refs(c, FN, valueReferences, nValueReferences, nValues, values, WC3_STRING, 0,
                    &n) || !buf_get(c, FN, n, &b)) {
        status = fmi3Error;
        goto END;
    }
    ns = slots_of(valueReferences, nValueReferences, b.slot, NULL, NULL);
    status = st3(rt_get_strings(c, FN, b.slot, ns, values));
END:
    if (b.own) buf_put(c, &b);
    return status;
}

/* a set of FMI 3.0 type `type` (core type mt) */
static int set_values(RtCtx *c, const char *fn, const fmi3ValueReference vr[], size_t nvr,
                      const void *values, size_t nValues, int type, int mt,
                      double (*at)(const void *, size_t))
{
    Buf b = {NULL, NULL, NULL};
    size_t n = 0, ns;
    int st;
    if (!check_refs(c, fn, vr, nvr, nValues, values, type, 1, &n)) return RT_STATUS_ERROR;
    if (!buf_get(c, fn, n, &b)) return RT_STATUS_ERROR;
    ns = slots_of(vr, nvr, b.slot, NULL, NULL);   /* == n: no time, no indicators */
    st = mt == MT_STRING_FACE ? rt_set_strings(c, fn, b.slot, ns, (const char *const *)values)
                              : rt_set_values(c, fn, b.slot, ns, values, mt, at);
    buf_put(c, &b);
    return st;
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, const fmi3Float64 values[], size_t nValues)
{
    RT_BEGIN("fmi3SetFloat64", M_Set)
    status = st3(set_values(c, FN, valueReferences, nValueReferences, values, nValues,
                            WC3_FLOAT64, MT_REAL, at_float64));
END:
    return status;
}

fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, const fmi3Int32 values[], size_t nValues)
{
    RT_BEGIN("fmi3SetInt32", M_Set)
    status = st3(set_values(c, FN, valueReferences, nValueReferences, values, nValues,
                            WC3_INT32, MT_INTEGER, at_int32));
END:
    return status;
}

fmi3Status fmi3SetInt64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, const fmi3Int64 values[], size_t nValues)
{
    RT_BEGIN("fmi3SetInt64", M_Set)
    status = st3(set_values(c, FN, valueReferences, nValueReferences, values, nValues,
                            WC3_ENUMERATION, MT_INTEGER, at_int64));
END:
    return status;
}

fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, const fmi3Boolean values[], size_t nValues)
{
    RT_BEGIN("fmi3SetBoolean", M_Set)
    status = st3(set_values(c, FN, valueReferences, nValueReferences, values, nValues,
                            WC3_BOOLEAN, MT_BOOLEAN, at_boolean));
END:
    return status;
}

fmi3Status fmi3SetString(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, const fmi3String values[], size_t nValues)
{
    RT_BEGIN("fmi3SetString", M_Set)
    status = st3(set_values(c, FN, valueReferences, nValueReferences, values, nValues,
                            WC3_STRING, MT_STRING_FACE, NULL));
END:
    return status;
}

/* the types no variable of this FMU has */
#define NO_SUCH_TYPE(fname, tname, ctype, qual, mask)                                        \
    fmi3Status fname(fmi3Instance instance, const fmi3ValueReference valueReferences[],      \
                     size_t nValueReferences, qual ctype values[], size_t nValues)          \
    {                                                                                        \
        RT_BEGIN(#fname, mask)                                                               \
        (void)valueReferences; (void)values; (void)nValues;                                  \
        if (nValueReferences > 0)                                                            \
            FAIL("%s: this FMU has no " tname " variables", FN);                             \
    END:                                                                                     \
        return status;                                                                       \
    }
NO_SUCH_TYPE(fmi3GetFloat32, "Float32", fmi3Float32, , M_Get)
NO_SUCH_TYPE(fmi3GetInt8, "Int8", fmi3Int8, , M_Get)
NO_SUCH_TYPE(fmi3GetUInt8, "UInt8", fmi3UInt8, , M_Get)
NO_SUCH_TYPE(fmi3GetInt16, "Int16", fmi3Int16, , M_Get)
NO_SUCH_TYPE(fmi3GetUInt16, "UInt16", fmi3UInt16, , M_Get)
NO_SUCH_TYPE(fmi3GetUInt32, "UInt32", fmi3UInt32, , M_Get)
NO_SUCH_TYPE(fmi3GetUInt64, "UInt64", fmi3UInt64, , M_Get)
NO_SUCH_TYPE(fmi3SetFloat32, "Float32", fmi3Float32, const, M_Set)
NO_SUCH_TYPE(fmi3SetInt8, "Int8", fmi3Int8, const, M_Set)
NO_SUCH_TYPE(fmi3SetUInt8, "UInt8", fmi3UInt8, const, M_Set)
NO_SUCH_TYPE(fmi3SetInt16, "Int16", fmi3Int16, const, M_Set)
NO_SUCH_TYPE(fmi3SetUInt16, "UInt16", fmi3UInt16, const, M_Set)
NO_SUCH_TYPE(fmi3SetUInt32, "UInt32", fmi3UInt32, const, M_Set)
NO_SUCH_TYPE(fmi3SetUInt64, "UInt64", fmi3UInt64, const, M_Set)

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, size_t valueSizes[], fmi3Binary values[],
                         size_t nValues)
{
    RT_BEGIN("fmi3GetBinary", M_Get)
    (void)valueReferences; (void)valueSizes; (void)values; (void)nValues;
    if (nValueReferences > 0) FAIL("%s: this FMU has no Binary variables", FN);
END:
    return status;
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues)
{
    RT_BEGIN("fmi3SetBinary", M_Set)
    (void)valueReferences; (void)valueSizes; (void)values; (void)nValues;
    if (nValueReferences > 0) FAIL("%s: this FMU has no Binary variables", FN);
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* refused: clocks, configuration mode, adjoints, per-element dependencies     */

#define REFUSED(fname, why, params, unused)                                                  \
    fmi3Status fname params                                                                  \
    {                                                                                        \
        RT_BEGIN(#fname, M_Refused)                                                          \
        unused                                                                               \
        FAIL("%s: " why, FN);                                                                \
    END:                                                                                     \
        return status;                                                                       \
    }
#define NO_CLOCKS "this FMU has no clocks"

REFUSED(fmi3GetClock, NO_CLOCKS,
        (fmi3Instance instance, const fmi3ValueReference valueReferences[],
         size_t nValueReferences, fmi3Clock values[]),
        (void)valueReferences; (void)nValueReferences; (void)values;)
REFUSED(fmi3SetClock, NO_CLOCKS,
        (fmi3Instance instance, const fmi3ValueReference valueReferences[],
         size_t nValueReferences, const fmi3Clock values[]),
        (void)valueReferences; (void)nValueReferences; (void)values;)
REFUSED(fmi3GetIntervalDecimal, NO_CLOCKS,
        (fmi3Instance instance, const fmi3ValueReference valueReferences[],
         size_t nValueReferences, fmi3Float64 intervals[], fmi3IntervalQualifier qualifiers[]),
        (void)valueReferences; (void)nValueReferences; (void)intervals; (void)qualifiers;)
REFUSED(fmi3GetIntervalFraction, NO_CLOCKS,
        (fmi3Instance instance, const fmi3ValueReference valueReferences[],
         size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[],
         fmi3IntervalQualifier qualifiers[]),
        (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions;
        (void)qualifiers;)
REFUSED(fmi3GetShiftDecimal, NO_CLOCKS,
        (fmi3Instance instance, const fmi3ValueReference valueReferences[],
         size_t nValueReferences, fmi3Float64 shifts[]),
        (void)valueReferences; (void)nValueReferences; (void)shifts;)
REFUSED(fmi3GetShiftFraction, NO_CLOCKS,
        (fmi3Instance instance, const fmi3ValueReference valueReferences[],
         size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[]),
        (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions;)
REFUSED(fmi3SetIntervalDecimal, NO_CLOCKS,
        (fmi3Instance instance, const fmi3ValueReference valueReferences[],
         size_t nValueReferences, const fmi3Float64 intervals[]),
        (void)valueReferences; (void)nValueReferences; (void)intervals;)
REFUSED(fmi3SetIntervalFraction, NO_CLOCKS,
        (fmi3Instance instance, const fmi3ValueReference valueReferences[],
         size_t nValueReferences, const fmi3UInt64 counters[], const fmi3UInt64 resolutions[]),
        (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions;)
REFUSED(fmi3SetShiftDecimal, NO_CLOCKS,
        (fmi3Instance instance, const fmi3ValueReference valueReferences[],
         size_t nValueReferences, const fmi3Float64 shifts[]),
        (void)valueReferences; (void)nValueReferences; (void)shifts;)
REFUSED(fmi3SetShiftFraction, NO_CLOCKS,
        (fmi3Instance instance, const fmi3ValueReference valueReferences[],
         size_t nValueReferences, const fmi3UInt64 counters[], const fmi3UInt64 resolutions[]),
        (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions;)
REFUSED(fmi3ActivateModelPartition, "this FMU does not support Scheduled Execution",
        (fmi3Instance instance, fmi3ValueReference clockReference, fmi3Float64 activationTime),
        (void)clockReference; (void)activationTime;)
REFUSED(fmi3EvaluateDiscreteStates, "this FMU has no clocked partitions to evaluate (its "
        "discrete states are updated in event mode by fmi3UpdateDiscreteStates)",
        (fmi3Instance instance), )
REFUSED(fmi3EnterConfigurationMode, "this FMU has no structural parameters (no configuration "
        "mode)", (fmi3Instance instance), )
REFUSED(fmi3ExitConfigurationMode, "this FMU has no structural parameters (no configuration "
        "mode)", (fmi3Instance instance), )
REFUSED(fmi3GetAdjointDerivative, "not provided (providesAdjointDerivatives=\"false\"; "
        "fmi3GetDirectionalDerivative is)",
        (fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
         const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[],
         size_t nSeed, fmi3Float64 sensitivity[], size_t nSensitivity),
        (void)unknowns; (void)nUnknowns; (void)knowns; (void)nKnowns; (void)seed; (void)nSeed;
        (void)sensitivity; (void)nSensitivity;)
REFUSED(fmi3GetNumberOfVariableDependencies, "not provided (providesPerElementDependencies="
        "\"false\": the dependencies are in the ModelStructure of modelDescription.xml)",
        (fmi3Instance instance, fmi3ValueReference valueReference, size_t *nDependencies),
        (void)valueReference; (void)nDependencies;)
REFUSED(fmi3GetVariableDependencies, "not provided (providesPerElementDependencies="
        "\"false\": the dependencies are in the ModelStructure of modelDescription.xml)",
        (fmi3Instance instance, fmi3ValueReference dependent, size_t elementIndicesOfDependent[],
         fmi3ValueReference independents[], size_t elementIndicesOfIndependents[],
         fmi3DependencyKind dependencyKinds[], size_t nDependencies),
        (void)dependent; (void)elementIndicesOfDependent; (void)independents;
        (void)elementIndicesOfIndependents; (void)dependencyKinds; (void)nDependencies;)

/* ------------------------------------------------------------------------- */
/* FMU state (rt_state.c)                                                      */

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    RT_BEGIN("fmi3GetFMUState", M_FMUState)
    status = st3(rt_fmustate_get(c, FN, FMUState));
END:
    return status;
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    RT_BEGIN("fmi3SetFMUState", M_FMUState)
    status = st3(rt_fmustate_set(c, FN, FMUState));
END:
    return status;
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    RT_BEGIN("fmi3FreeFMUState", M_FMUState)
    status = st3(rt_fmustate_free(c, FN, FMUState));
END:
    return status;
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState,
                                      size_t *size)
{
    RT_BEGIN("fmi3SerializedFMUStateSize", M_FMUState)
    status = st3(rt_fmustate_size(c, FN, FMUState, size));
END:
    return status;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                 fmi3Byte serializedState[], size_t size)
{
    RT_BEGIN("fmi3SerializeFMUState", M_FMUState)
    status = st3(rt_fmustate_serialize(c, FN, FMUState, (char *)serializedState, size));
END:
    return status;
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[],
                                   size_t size, fmi3FMUState *FMUState)
{
    RT_BEGIN("fmi3DeserializeFMUState", M_FMUState)
    status = st3(rt_fmustate_deserialize(c, FN, (const char *)serializedState, size,
                                         FMUState));
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* derivatives (rt_deriv.c)                                                    */

/* the slots of the Float64 variables of the references (no time, no indicators): 1 ok */
static int float_slots(RtCtx *c, const char *fn, const char *what,
                       const fmi3ValueReference vr[], size_t nvr, size_t nExpected,
                       unsigned int *slot)
{
    size_t i, n = 0;
    unsigned int k;
    if (nvr > 0 && !vr) {
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: NULL pointer argument", fn);
        return 0;
    }
    for (i = 0; i < nvr; i++) {
        const wc3_var *w;
        if (vr[i] >= (fmi3ValueReference)N_VARS3 || wc3_vars[vr[i]].type != WC3_FLOAT64 ||
            wc3_vars[vr[i]].where != WC3_IN_V) {
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: %s value reference %u is not a "
                    "Float64 variable of the model (time and the event indicators are not "
                    "differentiated here)", fn, what, (unsigned int)vr[i]);
            return 0;
        }
        w = &wc3_vars[vr[i]];
        if (n + w->count > nExpected) { n += w->count; continue; }
        for (k = 0; k < w->count; k++) slot[n++] = w->first + k;
    }
    if (n != nExpected) {
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: the %s have %lu elements, %lu values "
                "given", fn, what, (unsigned long)n, (unsigned long)nExpected);
        return 0;
    }
    return 1;
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance,
                                        const fmi3ValueReference unknowns[], size_t nUnknowns,
                                        const fmi3ValueReference knowns[], size_t nKnowns,
                                        const fmi3Float64 seed[], size_t nSeed,
                                        fmi3Float64 sensitivity[], size_t nSensitivity)
{
    unsigned int *slots = NULL;
    RT_BEGIN("fmi3GetDirectionalDerivative", M_GetDirectionalDerivative)
    slots = (unsigned int *)c->allocateMemory(nSeed + nSensitivity + 1, sizeof(unsigned int));
    if (!slots) FAIL("%s: out of memory", FN);
    if (!float_slots(c, FN, "unknowns", unknowns, nUnknowns, nSensitivity, slots) ||
        !float_slots(c, FN, "knowns", knowns, nKnowns, nSeed, slots + nSensitivity)) {
        status = fmi3Error;
        goto END;
    }
    status = st3(rt_directional_derivative(c, FN, slots, nSensitivity, slots + nSensitivity,
                                           nSeed, seed, sensitivity));
END:
    if (slots) c->freeMemory(slots);
    return status;
}

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int32 orders[],
                                    fmi3Float64 values[], size_t nValues)
{
    unsigned int *slots = NULL;
    int *ord = NULL;
    size_t i, e = 0;
    RT_BEGIN("fmi3GetOutputDerivatives", M_GetOutputDerivatives)
    if (!rt_require_type(c, FN, RT_TYPE_CS)) { status = fmi3Error; goto END; }
    if (nValueReferences > 0 && !orders) FAIL("%s: NULL pointer argument", FN);
    slots = (unsigned int *)c->allocateMemory(nValues + 1, sizeof(unsigned int));
    ord = (int *)c->allocateMemory(nValues + 1, sizeof(int));
    if (!slots || !ord) FAIL("%s: out of memory", FN);
    if (!float_slots(c, FN, "outputs", valueReferences, nValueReferences, nValues, slots)) {
        status = fmi3Error;
        goto END;
    }
    for (i = 0; i < nValueReferences; i++) {     /* one order per variable, for its elements */
        unsigned int k;
        for (k = 0; k < wc3_vars[valueReferences[i]].count; k++) ord[e++] = (int)orders[i];
    }
    status = st3(rt_output_derivatives(c, FN, slots, nValues, ord, values));
END:
    if (slots) c->freeMemory(slots);
    if (ord) c->freeMemory(ord);
    return status;
}

/* ------------------------------------------------------------------------- */
/* event mode: Model Exchange and Co-Simulation                                */

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance,
                                    fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation,
                                    fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged,
                                    fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime)
{
    RtEventInfo info;
    RT_BEGIN("fmi3UpdateDiscreteStates", M_UpdateDiscreteStates)
    if (!discreteStatesNeedUpdate || !terminateSimulation ||
        !nominalsOfContinuousStatesChanged || !valuesOfContinuousStatesChanged ||
        !nextEventTimeDefined || !nextEventTime)
        FAIL("%s: NULL pointer argument", FN);
    status = st3(c->type == RT_TYPE_CS ? rt_cs_update_discrete_states(c, FN, &info)
                                       : rt_me_new_discrete_states(c, FN, &info));
    if (status != fmi3OK) goto END;
    *discreteStatesNeedUpdate = info.newDiscreteStatesNeeded ? fmi3True : fmi3False;
    *terminateSimulation = info.terminateSimulation ? fmi3True : fmi3False;
    *nominalsOfContinuousStatesChanged = fmi3False;
    *valuesOfContinuousStatesChanged = info.valuesOfContinuousStatesChanged ? fmi3True
                                                                            : fmi3False;
    *nextEventTimeDefined = fmi3False;
    *nextEventTime = 0.0;
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* Model Exchange (rt_me.c)                                                    */

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance)
{
    RT_BEGIN("fmi3EnterContinuousTimeMode", M_EnterContinuousTimeMode)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi3Error; goto END; }
    status = st3(rt_me_enter_continuous_time_mode(c));
END:
    return status;
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                       fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode,
                                       fmi3Boolean *terminateSimulation)
{
    int terminate = 0;
    RT_BEGIN("fmi3CompletedIntegratorStep", M_CompletedIntegratorStep)
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi3Error; goto END; }
    if (!enterEventMode || !terminateSimulation) FAIL("%s: NULL pointer argument", FN);
    status = st3(rt_me_completed_integrator_step(c, FN, &terminate));
    if (status != fmi3OK) goto END;
    *enterEventMode = fmi3False;
    *terminateSimulation = terminate ? fmi3True : fmi3False;
END:
    return status;
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    RT_BEGIN("fmi3SetTime", M_SetTime)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi3Error; goto END; }
    status = st3(rt_me_set_time(c, FN, time));
END:
    return status;
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    RT_BEGIN("fmi3SetContinuousStates", M_SetContinuousStates)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi3Error; goto END; }
    status = st3(rt_me_set_states(c, FN, continuousStates, nContinuousStates));
END:
    return status;
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates)
{
    RT_BEGIN("fmi3GetContinuousStateDerivatives", M_GetDerivatives)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi3Error; goto END; }
    status = st3(rt_me_get_derivatives(c, FN, derivatives, nContinuousStates));
END:
    return status;
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                  size_t nEventIndicators)
{
    RT_BEGIN("fmi3GetEventIndicators", M_GetEventIndicators)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi3Error; goto END; }
    status = st3(rt_me_get_event_indicators(c, FN, eventIndicators, nEventIndicators));
END:
    return status;
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    RT_BEGIN("fmi3GetContinuousStates", M_GetContinuousStates)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi3Error; goto END; }
    status = st3(rt_me_get_states(c, FN, continuousStates, nContinuousStates));
END:
    return status;
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t nContinuousStates)
{
    RT_BEGIN("fmi3GetNominalsOfContinuousStates", M_GetNominals)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi3Error; goto END; }
    status = st3(rt_me_get_nominals(c, FN, nominals, nContinuousStates));
END:
    return status;
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
    RT_BEGIN("fmi3GetNumberOfEventIndicators", M_GetNumbers)
    if (!nEventIndicators) FAIL("%s: NULL pointer argument", FN);
    *nEventIndicators = rt_n_indicators();
END:
    return status;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
    RT_BEGIN("fmi3GetNumberOfContinuousStates", M_GetNumbers)
    if (!nContinuousStates) FAIL("%s: NULL pointer argument", FN);
    *nContinuousStates = rt_n_states();
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* Co-Simulation (rt_cs.c)                                                     */

fmi3Status fmi3EnterStepMode(fmi3Instance instance)
{
    RT_BEGIN("fmi3EnterStepMode", M_EnterStepMode)
    if (!rt_require_type(c, FN, RT_TYPE_CS)) { status = fmi3Error; goto END; }
    status = st3(rt_cs_enter_step_mode(c));
END:
    return status;
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
    RT_BEGIN("fmi3DoStep", M_DoStep)
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!rt_require_type(c, FN, RT_TYPE_CS)) { status = fmi3Error; goto END; }
    if (!eventHandlingNeeded || !terminateSimulation || !earlyReturn || !lastSuccessfulTime)
        FAIL("%s: NULL pointer argument", FN);
    status = st3(rt_cs_do_step(c, FN, currentCommunicationPoint, communicationStepSize));
    if (status == fmi3Error) goto END;
    *eventHandlingNeeded = c->csEventNeeded ? fmi3True : fmi3False;
    *terminateSimulation = c->terminateRequested ? fmi3True : fmi3False;
    *earlyReturn = c->csReturnedEarly ? fmi3True : fmi3False;
    *lastSuccessfulTime = c->lastSuccessfulTime;
END:
    return status;
}
