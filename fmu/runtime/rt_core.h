/*
 * rt_core.h -- the version-free core of the wearcosim FMI runtime: what a face (fmi2_face.c,
 * the FMI 2.0 API) calls.
 *
 * The core implements the instance (rt_instance.c), the evaluation and the access to values
 * (rt_eval.c), directional and output derivatives (rt_deriv.c), events (rt_events.c), the FMU
 * state (rt_state.c), Model Exchange (rt_me.c) and Co-Simulation stepping (rt_cs.c).  It
 * names no FMI version: statuses are the RT_STATUS_* below (the values of FMI's status
 * enumerations, so a face maps them one to one), value references are unsigned int, reals
 * double, integers and booleans int; the interface type is RT_TYPE_ME/RT_TYPE_CS.  A face
 * checks the handle and the instance state (rt_enter with its own masks of RtState bits),
 * checks what is particular to its version's signatures, calls one rt_* function and maps
 * the status.  Every core function that may log takes the calling API function's name fn,
 * which starts its messages ("fmi2DoStep: ...").  Messages reach the importer through the
 * face's adapter (RtCtx.logSink, installed by rt_instantiate).
 *
 * Contract of the rt_* API functions below: they return RT_STATUS_*; a rejected call
 * (bad argument, value out of range) returns RT_STATUS_ERROR with the instance unchanged;
 * failures of the model itself move it to RT_ERROR (ME) or give RT_STATUS_DISCARD (CS
 * step), as described in the units' header comments.
 *
 * This header is model independent (no config.h): the face includes it alone.  The core
 * units share rt_impl.h, which includes config.h.
 */
#ifndef WEARCOSIM_RT_CORE_H
#define WEARCOSIM_RT_CORE_H

#include <stddef.h>
#include "model_api.h"
#include "rt_ctx.h"

/* statuses of the core (the numbering of fmi2Status and fmi3Status) */
enum {
    RT_STATUS_OK = 0,
    RT_STATUS_WARNING = 1,
    RT_STATUS_DISCARD = 2,
    RT_STATUS_ERROR = 3,
    RT_STATUS_FATAL = 4
};

/* interface types of an instance (the numbering of fmi2Type) */
enum { RT_TYPE_ME = 0, RT_TYPE_CS = 1 };

/* ---- instance, logging, entry checks (rt_instance.c) ---------------------- */

/* the allowed-state test of an API function: 0 (logged) if c is not a live instance or its
   state is not in mask */
int rt_enter(RtCtx *c, const char *fn, unsigned int mask);
/* 1 if the instance is of interface type (RT_TYPE_*), else 0 (logged) */
int rt_require_type(RtCtx *c, const char *fn, int type);
/* a message of the runtime: status RT_STATUS_*, category RT_LOG_* (printf format) */
void rt_logf(RtCtx *c, int status, int cat, const char *fmt, ...);
/* a new instance, or NULL: *why is the reason without the function's name (bad arguments,
   out of memory) or NULL when the model refused and logged why itself (model_api.h H1).
   al/fr: the importer's memory functions (NULL: calloc/free); sink, target, env: the face's
   logger adapter and the importer's logger and environment (sink NULL: no logger); names:
   the face's names in the core's messages (rt_ctx.h; static storage; NULL: neutral words). */
RtCtx *rt_instantiate(const char *instanceName, int type, const char *guid,
                      const char *resourceLocation, int loggingOn,
                      void *(*al)(size_t, size_t), void (*fr)(void *),
                      RtLogSink sink, void (*target)(void), void *env,
                      const RtFaceNames *names, const char **why);
void rt_free_instance(RtCtx *c);
int rt_set_debug_logging(RtCtx *c, const char *fn, int loggingOn, size_t nCategories,
                         const char *const categories[]);
int rt_setup_experiment(RtCtx *c, const char *fn, int toleranceDefined, double tolerance,
                        double startTime, int stopTimeDefined, double stopTime);
int rt_enter_initialization_mode(RtCtx *c, const char *fn);
int rt_exit_initialization_mode(RtCtx *c, const char *fn);
int rt_terminate(RtCtx *c, const char *fn);
int rt_reset(RtCtx *c, const char *fn);

/* ---- values (rt_eval.c) ----------------------------------------------------- */

/* checks the value references of a get of type MT_REAL/MT_INTEGER/MT_BOOLEAN (model_api.h) and makes
   what they need current; then c->v[vr[i]] holds the values (the face converts them to its
   types) */
int rt_get_begin(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                 const void *values, int type);
/* set: all checked before anything is written; at(values, i) reads value i as a double */
int rt_set_values(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                  const void *values, int type, double (*at)(const void *values, size_t i));
int rt_get_strings(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                   const char *values[]);
int rt_set_strings(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                   const char *const values[]);
int rt_set_input_derivatives(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                             const int order[], const double value[]);

/* ---- derivatives (rt_deriv.c) ---------------------------------------------- */

int rt_directional_derivative(RtCtx *c, const char *fn, const unsigned int unknown[],
                              size_t nUnknown, const unsigned int known[], size_t nKnown,
                              const double dvKnown[], double dvUnknown[]);
int rt_output_derivatives(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                          const int order[], double value[]);

/* ---- FMU state (rt_state.c) --------------------------------------------------- */

int rt_fmustate_get(RtCtx *c, const char *fn, void **state);
int rt_fmustate_set(RtCtx *c, const char *fn, const void *state);
int rt_fmustate_free(RtCtx *c, const char *fn, void **state);
int rt_fmustate_size(RtCtx *c, const char *fn, const void *state, size_t *size);
int rt_fmustate_serialize(RtCtx *c, const char *fn, const void *state, char *buf, size_t size);
int rt_fmustate_deserialize(RtCtx *c, const char *fn, const char *buf, size_t size,
                            void **state);

/* ---- Model Exchange (rt_me.c) ------------------------------------------------- */

/* what one pass of the event iteration leaves to the importer */
typedef struct {
    int newDiscreteStatesNeeded;
    int terminateSimulation;
    int valuesOfContinuousStatesChanged;
} RtEventInfo;

int rt_me_enter_event_mode(RtCtx *c);
int rt_me_new_discrete_states(RtCtx *c, const char *fn, RtEventInfo *info);
int rt_me_enter_continuous_time_mode(RtCtx *c);
int rt_me_completed_integrator_step(RtCtx *c, const char *fn, int *terminateSimulation);
int rt_me_set_time(RtCtx *c, const char *fn, double time);
int rt_me_set_states(RtCtx *c, const char *fn, const double x[], size_t nx);
int rt_me_get_derivatives(RtCtx *c, const char *fn, double dx[], size_t nx);
int rt_me_get_event_indicators(RtCtx *c, const char *fn, double z[], size_t nz);
int rt_me_get_states(RtCtx *c, const char *fn, double x[], size_t nx);
int rt_me_get_nominals(RtCtx *c, const char *fn, double nominal[], size_t nx);

/* ---- Co-Simulation (rt_cs.c) -------------------------------------------------- */

/* with c->csEarlyReturnAllowed / csEventModeUsed (set by the face before initialization), the
   step may end early: c->csReturnedEarly, c->csEventNeeded, c->lastSuccessfulTime tell how
   (rt_cs.c "early return and event mode") */
int rt_cs_do_step(RtCtx *c, const char *fn, double currentCommunicationPoint,
                  double communicationStepSize);
/* Co-Simulation event mode (FMI 3.0): enter it, one pass of the event iteration, leave it */
int rt_cs_enter_event_mode(RtCtx *c);
int rt_cs_update_discrete_states(RtCtx *c, const char *fn, RtEventInfo *info);
int rt_cs_enter_step_mode(RtCtx *c);

/* ---- values the FMI 3.0 face reads as variables (rt_eval.c) -------------------- */

/* the event indicators at the current point (nz == N_Z), evaluated if needed; no guard is
   applied (rt_me_get_event_indicators is Model Exchange's access with its band watch) */
int rt_get_indicators(RtCtx *c, const char *fn, double z[], size_t nz);
/* the model's number of continuous states and of event indicators */
size_t rt_n_states(void);
size_t rt_n_indicators(void);

#endif
