/*
 * fmi2_face.c -- the FMI 2.0 API (Model Exchange AND Co-Simulation) of every wearcosim FMU:
 * a thin face over the runtime's version-free core (rt_core.h), which implements everything
 * once on top of the generated config.h + model.c (contract: model_api.h).  Never edited per
 * model.
 *
 * Build (one shared library exporting both ME and CS entry points):
 *   gcc -shared -fPIC -O2 -I fmu/runtime -I fmu/runtime/include -I <dir of config.h>
 *       model.c fmu/runtime/[all .c files] -lm -o <MODEL_IDENTIFIER>.so
 * This file and the solvers are model independent; the core's units (rt_impl.h lists them)
 * and rt_newton.c include config.h.  Define FMI2_FUNCTION_PREFIX (e.g.
 * -DFMI2_FUNCTION_PREFIX=M_) only for source-code/static-library use; shared-library FMUs
 * must not define it.
 *
 * The runtime's files by concern:
 *   fmi2_face.c   this face: the fmi2* functions, the FMI 2.0 state masks, the logger adapter
 *   rt_core.h     the core's API for a face (statuses, interface types, rt_* functions)
 *   rt_impl.h     what the core's units share (config.h, limits, internal functions)
 *   rt_instance.c instance, logging, entry checks, life cycle
 *   rt_eval.c     lazy evaluation (in parts), "input derivatives", get/set
 *   rt_deriv.c    directional derivatives, "output derivatives"
 *   rt_events.c   event iteration, "configuration search", "chattering" and Zeno guards
 *   rt_state.c    FMU state: snapshot, serialisation, checksum
 *   rt_me.c       Model Exchange
 *   rt_cs.c       Co-Simulation stepping (cs_integrate)
 *   rt_ode*, rt_dopri5.c, rt_rodas4.c, rt_adams.c, rt_auto.c, rt_linalg.c, rt_newton.c: solvers
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
 *  - Each function here is the allowed-state check (RT_BEGIN, with the FMI 2.0 masks M_*),
 *    the checks particular to the FMI 2.0 signatures (out-pointers, the interface type of
 *    the function), one call into the core with the function's name for its messages, and
 *    the core's status as fmi2Status (the same numbering).  The core logs through
 *    fmi2_logger, the adapter installed at fmi2Instantiate, which calls the importer's
 *    fmi2CallbackLogger (the message already escaped by the core).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmi2Functions.h"
#include "rt_core.h"

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

#define RT_BEGIN(fname, mask)                                          \
    RtCtx *c = (RtCtx *)comp;                                          \
    const char *const FN = fname;                                      \
    fmi2Status status = fmi2OK;                                        \
    if (!rt_enter(c, FN, (mask))) { status = fmi2Error; goto END; }

#define FAIL(...) do { rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, __VA_ARGS__); status = fmi2Error; goto END; } while (0)

/* the core's status as fmi2Status (the same numbering) */
static fmi2Status st2(int s)
{
    switch (s) {
    case RT_STATUS_OK: return fmi2OK;
    case RT_STATUS_WARNING: return fmi2Warning;
    case RT_STATUS_DISCARD: return fmi2Discard;
    case RT_STATUS_ERROR: return fmi2Error;
    default: return fmi2Fatal;
    }
}

/* the core's logger adapter: the importer's fmi2CallbackLogger, stored type-erased */
static void fmi2_logger(const RtCtx *c, int status, const char *category, const char *message)
{
    ((fmi2CallbackLogger)c->logTarget)(c->logEnv, c->instanceName, st2(status), category,
                                       message);
}

/* what the core's messages call this face's functions and states (rt_ctx.h RtFaceNames) */
static const RtFaceNames fmi2_names = {
    "FMI 2.0", "fmi2ExitInitializationMode", "fmi2SetupExperiment",
    {"instantiated", "initializationMode", "eventMode", "continuousTimeMode", "stepComplete",
     "stepInProgress", "stepFailed", "stepCanceled", "terminated", "error", "fatal"}
};

/* ------------------------------------------------------------------------- */
/* common functions                                                           */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component comp, fmi2Boolean loggingOn,
                               size_t nCategories, const fmi2String categories[])
{
    RT_BEGIN("fmi2SetDebugLogging", M_SetDebugLogging)
    if (nCategories > 0 && !categories) FAIL("%s: categories is NULL", FN);
    status = st2(rt_set_debug_logging(c, FN, loggingOn ? 1 : 0, nCategories, categories));
END:
    return status;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType,
                              fmi2String fmuGUID, fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    RtCtx *c;
    const char *why = NULL;
    (void)visible;
    if (!functions) return NULL;   /* nobody to tell */
    c = rt_instantiate(instanceName, (int)fmuType, fmuGUID, fmuResourceLocation,
                       loggingOn ? 1 : 0, functions->allocateMemory, functions->freeMemory,
                       functions->logger ? fmi2_logger : NULL,
                       (void (*)(void))functions->logger, functions->componentEnvironment,
                       &fmi2_names, &why);
    if (!c && why && functions->logger) {
        char msg[256];
        snprintf(msg, sizeof msg, "fmi2Instantiate: %s", why);
        functions->logger(functions->componentEnvironment, instanceName ? instanceName : "?",
                          fmi2Error, "logStatusError", msg);
    }
    return (fmi2Component)c;
}

void fmi2FreeInstance(fmi2Component comp)
{
    rt_free_instance((RtCtx *)comp);
}

fmi2Status fmi2SetupExperiment(fmi2Component comp, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    RT_BEGIN("fmi2SetupExperiment", M_SetupExperiment)
    status = st2(rt_setup_experiment(c, FN, toleranceDefined ? 1 : 0, tolerance, startTime,
                                     stopTimeDefined ? 1 : 0, stopTime));
END:
    return status;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component comp)
{
    RT_BEGIN("fmi2EnterInitializationMode", M_EnterInitializationMode)
    status = st2(rt_enter_initialization_mode(c, FN));
END:
    return status;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component comp)
{
    RT_BEGIN("fmi2ExitInitializationMode", M_ExitInitializationMode)
    status = st2(rt_exit_initialization_mode(c, FN));
END:
    return status;
}

fmi2Status fmi2Terminate(fmi2Component comp)
{
    RT_BEGIN("fmi2Terminate", M_Terminate)
    status = st2(rt_terminate(c, FN));
END:
    return status;
}

fmi2Status fmi2Reset(fmi2Component comp)
{
    RT_BEGIN("fmi2Reset", M_Reset)
    status = st2(rt_reset(c, FN));
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* get / set: the core checks and evaluates, the face converts to its types     */

static double at_real(const void *values, size_t i) { return ((const fmi2Real *)values)[i]; }
static double at_integer(const void *values, size_t i)
{
    return (double)((const fmi2Integer *)values)[i];
}
static double at_boolean(const void *values, size_t i)
{
    return ((const fmi2Boolean *)values)[i] ? 1.0 : 0.0;
}

fmi2Status fmi2GetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
    size_t i;
    RT_BEGIN("fmi2GetReal", M_Get)
    status = st2(rt_get_begin(c, FN, vr, nvr, value, MT_REAL));
    if (status == fmi2OK)
        for (i = 0; i < nvr; i++) value[i] = c->v[vr[i]];
END:
    return status;
}

fmi2Status fmi2GetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{
    size_t i;
    RT_BEGIN("fmi2GetInteger", M_Get)
    status = st2(rt_get_begin(c, FN, vr, nvr, value, MT_INTEGER));
    if (status == fmi2OK)
        for (i = 0; i < nvr; i++) value[i] = (fmi2Integer)floor(c->v[vr[i]] + 0.5);
END:
    return status;
}

fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{
    size_t i;
    RT_BEGIN("fmi2GetBoolean", M_Get)
    status = st2(rt_get_begin(c, FN, vr, nvr, value, MT_BOOLEAN));
    if (status == fmi2OK)
        for (i = 0; i < nvr; i++) value[i] = c->v[vr[i]] != 0.0 ? fmi2True : fmi2False;
END:
    return status;
}

fmi2Status fmi2GetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{
    RT_BEGIN("fmi2GetString", M_Get)
    status = st2(rt_get_strings(c, FN, vr, nvr, value));
END:
    return status;
}

fmi2Status fmi2SetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    RT_BEGIN("fmi2SetReal", M_Set)
    status = st2(rt_set_values(c, FN, vr, nvr, value, MT_REAL, at_real));
END:
    return status;
}

fmi2Status fmi2SetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{
    RT_BEGIN("fmi2SetInteger", M_Set)
    status = st2(rt_set_values(c, FN, vr, nvr, value, MT_INTEGER, at_integer));
END:
    return status;
}

fmi2Status fmi2SetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{
    RT_BEGIN("fmi2SetBoolean", M_Set)
    status = st2(rt_set_values(c, FN, vr, nvr, value, MT_BOOLEAN, at_boolean));
END:
    return status;
}

fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{
    RT_BEGIN("fmi2SetString", M_Set)
    status = st2(rt_set_strings(c, FN, vr, nvr, value));
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* FMU state (rt_state.c)                                                      */

fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate *FMUstate)
{
    RT_BEGIN("fmi2GetFMUstate", M_FMUstate)
    status = st2(rt_fmustate_get(c, FN, FMUstate));
END:
    return status;
}

fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate FMUstate)
{
    RT_BEGIN("fmi2SetFMUstate", M_FMUstate)
    status = st2(rt_fmustate_set(c, FN, FMUstate));
END:
    return status;
}

fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate *FMUstate)
{
    RT_BEGIN("fmi2FreeFMUstate", M_FMUstate)
    status = st2(rt_fmustate_free(c, FN, FMUstate));
END:
    return status;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate FMUstate,
                                      size_t *size)
{
    RT_BEGIN("fmi2SerializedFMUstateSize", M_FMUstate)
    status = st2(rt_fmustate_size(c, FN, FMUstate, size));
END:
    return status;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate FMUstate,
                                 fmi2Byte serializedState[], size_t size)
{
    RT_BEGIN("fmi2SerializeFMUstate", M_FMUstate)
    status = st2(rt_fmustate_serialize(c, FN, FMUstate, serializedState, size));
END:
    return status;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte serializedState[],
                                   size_t size, fmi2FMUstate *FMUstate)
{
    RT_BEGIN("fmi2DeSerializeFMUstate", M_FMUstate)
    status = st2(rt_fmustate_deserialize(c, FN, serializedState, size, FMUstate));
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
    status = st2(rt_directional_derivative(c, FN, vUnknown_ref, nUnknown, vKnown_ref, nKnown,
                                           dvKnown, dvUnknown));
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* Model Exchange (rt_me.c)                                                    */

fmi2Status fmi2EnterEventMode(fmi2Component comp)
{
    RT_BEGIN("fmi2EnterEventMode", M_EnterEventMode)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi2Error; goto END; }
    status = st2(rt_me_enter_event_mode(c));
END:
    return status;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component comp, fmi2EventInfo *eventInfo)
{
    RtEventInfo info;
    RT_BEGIN("fmi2NewDiscreteStates", M_NewDiscreteStates)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi2Error; goto END; }
    if (!eventInfo) FAIL("%s: eventInfo is NULL", FN);
    status = st2(rt_me_new_discrete_states(c, FN, &info));
    if (status != fmi2OK) goto END;
    eventInfo->newDiscreteStatesNeeded = info.newDiscreteStatesNeeded ? fmi2True : fmi2False;
    eventInfo->terminateSimulation = info.terminateSimulation ? fmi2True : fmi2False;
    eventInfo->nominalsOfContinuousStatesChanged = fmi2False;
    eventInfo->valuesOfContinuousStatesChanged =
        info.valuesOfContinuousStatesChanged ? fmi2True : fmi2False;
    eventInfo->nextEventTimeDefined = fmi2False;
    eventInfo->nextEventTime = 0.0;
END:
    return status;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component comp)
{
    RT_BEGIN("fmi2EnterContinuousTimeMode", M_EnterContinuousTimeMode)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi2Error; goto END; }
    status = st2(rt_me_enter_continuous_time_mode(c));
END:
    return status;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component comp,
                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode,
                                       fmi2Boolean *terminateSimulation)
{
    int terminate = 0;
    RT_BEGIN("fmi2CompletedIntegratorStep", M_CompletedIntegratorStep)
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi2Error; goto END; }
    if (!enterEventMode || !terminateSimulation) FAIL("%s: NULL pointer argument", FN);
    status = st2(rt_me_completed_integrator_step(c, FN, &terminate));
    if (status != fmi2OK) goto END;
    *enterEventMode = fmi2False;
    *terminateSimulation = terminate ? fmi2True : fmi2False;
END:
    return status;
}

fmi2Status fmi2SetTime(fmi2Component comp, fmi2Real time)
{
    RT_BEGIN("fmi2SetTime", M_SetTime)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi2Error; goto END; }
    status = st2(rt_me_set_time(c, FN, time));
END:
    return status;
}

fmi2Status fmi2SetContinuousStates(fmi2Component comp, const fmi2Real x[], size_t nx)
{
    RT_BEGIN("fmi2SetContinuousStates", M_SetContinuousStates)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi2Error; goto END; }
    status = st2(rt_me_set_states(c, FN, x, nx));
END:
    return status;
}

fmi2Status fmi2GetDerivatives(fmi2Component comp, fmi2Real derivatives[], size_t nx)
{
    RT_BEGIN("fmi2GetDerivatives", M_GetDerivatives)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi2Error; goto END; }
    status = st2(rt_me_get_derivatives(c, FN, derivatives, nx));
END:
    return status;
}

fmi2Status fmi2GetEventIndicators(fmi2Component comp, fmi2Real eventIndicators[], size_t ni)
{
    RT_BEGIN("fmi2GetEventIndicators", M_GetEventIndicators)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi2Error; goto END; }
    status = st2(rt_me_get_event_indicators(c, FN, eventIndicators, ni));
END:
    return status;
}

fmi2Status fmi2GetContinuousStates(fmi2Component comp, fmi2Real x[], size_t nx)
{
    RT_BEGIN("fmi2GetContinuousStates", M_GetContinuousStates)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi2Error; goto END; }
    status = st2(rt_me_get_states(c, FN, x, nx));
END:
    return status;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component comp, fmi2Real x_nominal[],
                                             size_t nx)
{
    RT_BEGIN("fmi2GetNominalsOfContinuousStates", M_GetNominals)
    if (!rt_require_type(c, FN, RT_TYPE_ME)) { status = fmi2Error; goto END; }
    status = st2(rt_me_get_nominals(c, FN, x_nominal, nx));
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* Co-Simulation (rt_cs.c, rt_eval.c "input derivatives", rt_deriv.c "output derivatives") */

fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    RT_BEGIN("fmi2DoStep", M_DoStep)
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!rt_require_type(c, FN, RT_TYPE_CS)) { status = fmi2Error; goto END; }
    status = st2(rt_cs_do_step(c, FN, currentCommunicationPoint, communicationStepSize));
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
    RT_BEGIN("fmi2SetRealInputDerivatives", M_SetRealInputDerivatives)
    /* semantics: rt_eval.c "input derivatives" */
    if (!rt_require_type(c, FN, RT_TYPE_CS)) { status = fmi2Error; goto END; }
    status = st2(rt_set_input_derivatives(c, FN, vr, nvr, order, value));
END:
    return status;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[])
{
    RT_BEGIN("fmi2GetRealOutputDerivatives", M_GetRealOutputDerivatives)
    /* semantics: rt_deriv.c "output derivatives" */
    if (!rt_require_type(c, FN, RT_TYPE_CS)) { status = fmi2Error; goto END; }
    status = st2(rt_output_derivatives(c, FN, vr, nvr, order, value));
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* Co-Simulation status                                                       */

fmi2Status fmi2GetStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Status *value)
{
    RT_BEGIN("fmi2GetStatus", M_GetStatus)
    if (!rt_require_type(c, FN, RT_TYPE_CS)) { status = fmi2Error; goto END; }
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
    if (!rt_require_type(c, FN, RT_TYPE_CS)) { status = fmi2Error; goto END; }
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
    if (!rt_require_type(c, FN, RT_TYPE_CS)) { status = fmi2Error; goto END; }
    FAIL("%s: no Integer status available (kind %d requested)", FN, (int)s);
END:
    return status;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component comp, const fmi2StatusKind s,
                                fmi2Boolean *value)
{
    RT_BEGIN("fmi2GetBooleanStatus", M_GetStatus)
    if (!rt_require_type(c, FN, RT_TYPE_CS)) { status = fmi2Error; goto END; }
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
    if (!rt_require_type(c, FN, RT_TYPE_CS)) { status = fmi2Error; goto END; }
    if (!value) FAIL("%s: value is NULL", FN);
    if (s != fmi2PendingStatus)
        FAIL("%s: only fmi2PendingStatus is available (kind %d requested)", FN, (int)s);
    *value = "no step in progress (fmi2DoStep is synchronous)";
END:
    return status;
}
