/*
 * container.h -- the strong-coupling container: a hand-written model (model_api.h) whose
 * right-hand side is the Model-Exchange interfaces of N component FMUs, called through
 * function pointers (dlopen), compiled with the unchanged runtime (fmu/runtime) into one
 * FMU (ME + CS) that integrates all components as ONE ODE with one error-controlled solver.
 *
 * Generated per system by python/wearcosim/system/container.py: config.h (the model_api.h
 * macros + the CT_* macros below) and tables.c (the tables declared here).  Hand-written:
 *   ct_load.c   loading, instances, logging, reset/terminate/free hooks
 *   ct_eval.c   mdl_set_start, mdl_initialize, mdl_eval, mdl_deriv, mdl_zc, mdl_jac, ...:
 *               time, states and inputs in, outputs, derivatives and indicators out
 *   ct_event.c  mdl_event (the ME event protocol of all components), mdl_calc_params
 *   ct_state.c  the FMU-state hooks (the components' states inside the container's)
 *
 * Layout of v (model_api.h):
 *   X   the components' continuous states, concatenated (component k at CtCompInfo.xoff)
 *   DX  their derivatives (fmi2GetDerivatives into place)
 *   P   the components' parameters (forwarded with fmi2Set* before initialization, the
 *       tunable ones again after a change), their calculated parameters (read back), the
 *       six solver settings, _container.timing
 *   U   the system's inputs and the components' unconnected inputs
 *   Y   the components' outputs (those that are not states), the system's outputs, the
 *       diagnostics counters (_container.*)
 *   M/MPRE  one "memory" per event indicator: (z > 0) after the last event (informative:
 *       model_api.h H3)
 *   ZV  (internal) the indicators of the last evaluation, read by mdl_zc (H2)
 *   TNEXT (internal) per component with time events: its next event time (+inf: none);
 *       its indicator is tNext - t (a time event becomes a state event of the container)
 *
 * Fast entry points (ct_fast.h): a component whose binary the builder rebuilt with ct_fast.c
 * (resources/components/<folder>/fast/<platform>/, loaded instead of binaries/<platform>/)
 * takes the continuous-time calls below through them (time + states in one call, one call per
 * action, derivatives + indicators in one call); every other call, and any the fast path
 * refuses, goes through its fmi2 functions.
 *
 * Evaluation (mdl_deriv): per component fmi2SetTime and fmi2SetContinuousStates (skipped
 * when unchanged), then the ACTION LIST: fmi2Set* of inputs from v and fmi2Get* of outputs
 * into v, in a topological order of "input <- output" (connections) and "output <- input"
 * (the component's ModelStructure dependencies; undeclared = all inputs), computed and
 * checked free of loops by the builder; then fmi2GetDerivatives/fmi2GetEventIndicators per
 * component.  Integer/Boolean values move only in event and initialization mode.
 *
 * Component modes move together (CtData.phase): instantiated -> initializationMode (first
 * mdl_initialize) -> eventMode (mdl_event in initialization) -> continuousTimeMode (left
 * lazily, at the first evaluation at another (t, x) than the event's) -> eventMode (the next
 * mdl_event) ...  A component whose call fails in continuous-time mode is set back to its
 * state at the end of the last event (fmi2SetFMUstate of a snapshot; its discrete states
 * only change in events) before its next use, so a failed solver trial costs a smaller step,
 * not the simulation.
 */
#ifndef WEARCOSIM_CONTAINER_H
#define WEARCOSIM_CONTAINER_H

#include <stddef.h>

#include "config.h"
#include "model_api.h"
#include "fmi2FunctionTypes.h"
#include "ct_fast.h"

#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define WEARCOSIM_VIS_PUSHED_CONTAINER_H
#endif

#define NARR_CT(n) ((n) > 0 ? (n) : 1)

/* ---- tables (generated tables.c) ---- */
typedef struct {
    const char *name;        /* component name (messages, log prefix) */
    const char *folder;      /* resources/components/<folder>/ */
    const char *identifier;  /* modelIdentifier of its Model Exchange interface */
    const char *guid;
    int nx, xoff;            /* continuous states: v[OFF_X + xoff ..] */
    int nz, zoff;            /* event indicators: v[OFF_ZV + zoff ..] */
    int tev;                 /* its time-event indicator (index into z), -1: none */
    int outFirst, outN;      /* outputs read by mdl_eval: ct_out[outFirst ..] */
    int fwdFirst, fwdN;      /* values forwarded to it: ct_fwd[fwdFirst ..] */
    int calcFirst, calcN;    /* calculated parameters read back: ct_calc[calcFirst ..] */
    int dd;                  /* 1: its Model Exchange interface provides directional
                                derivatives (the container's Jacobian is built from them) */
    unsigned int logCats;    /* bit k: it declares log category k (rt_ctx.h order);
                                0: it declares none, categories are forwarded as given */
} CtCompInfo;

/* CtVal (one value moved between a slot of v and a component variable): ct_fast.h */

enum { CT_FWD_FIXED = 1, CT_FWD_TUNABLE = 2, CT_FWD_START = 4 };
enum { CT_SET = 0, CT_GET = 1 };

typedef struct {
    unsigned char op;        /* CT_SET: component inputs <- v; CT_GET: v <- component outputs */
    unsigned char type;      /* MT_* of all its values */
    unsigned char discrete;  /* 1: values of discrete variability (also Real): events only */
    unsigned char contig;    /* 1: its slots are consecutive (one memcmp finds "unchanged") */
    unsigned short comp;
    int first, n;            /* its values ct_act_val[first .. first+n-1] */
} CtAction;

typedef struct { int dst, src; } CtCopy;   /* system outputs: v[dst] = v[src] */

extern const CtCompInfo ct_comp[];
extern const CtAction ct_act[];
extern const CtVal ct_act_val[], ct_out[], ct_fwd[], ct_calc[];
extern const CtCopy ct_copy[];
/* per state (N_X, container order): the component's value references of the state and of its
   derivative (initialization mode reads them with fmi2GetReal: fmi2GetContinuousStates and
   fmi2GetDerivatives are not available there in every FMI 2.0 implementation) */
extern const unsigned int ct_state_vr[], ct_der_vr[];
extern const double ct_start[];
extern const double ct_fwd_start[];   /* per ct_fwd entry: the component's own start value (it
                                         is forwarded only when different; NaN: always) */
/* (and model_api.h's mdl_outlist: the container's Real output slots outside X) */
/* config.h: CT_NCOMP, CT_N_ACT, CT_N_ACTVAL, CT_N_OUT, CT_N_FWD, CT_N_CALC, CT_N_COPY,
   CT_MAXVALS (longest run of values in one call), OFF_ZV, OFF_TNEXT, CT_SLOT_TIMING,
   CT_SLOT_DIAG (first of the CT_N_DIAG diagnostics slots, order of enum below) */

enum { CT_DIAG_RHS = 0, CT_DIAG_EVENTS, CT_DIAG_PASSES, CT_DIAG_CALLS, CT_DIAG_TCOMP,
       CT_DIAG_TCONT, CT_N_DIAG_ };

/* ---- instance data (ct_load.c allocates it at instantiation) ---- */
typedef struct {
    fmi2InstantiateTYPE *instantiate;
    fmi2FreeInstanceTYPE *freeInstance;
    fmi2SetDebugLoggingTYPE *setDebugLogging;
    fmi2SetupExperimentTYPE *setupExperiment;
    fmi2EnterInitializationModeTYPE *enterInitializationMode;
    fmi2ExitInitializationModeTYPE *exitInitializationMode;
    fmi2TerminateTYPE *terminate;
    fmi2ResetTYPE *reset;
    fmi2GetRealTYPE *getReal;
    fmi2GetIntegerTYPE *getInteger;
    fmi2GetBooleanTYPE *getBoolean;
    fmi2SetRealTYPE *setReal;
    fmi2SetIntegerTYPE *setInteger;
    fmi2SetBooleanTYPE *setBoolean;
    fmi2GetFMUstateTYPE *getFMUstate;
    fmi2SetFMUstateTYPE *setFMUstate;
    fmi2FreeFMUstateTYPE *freeFMUstate;
    fmi2SerializedFMUstateSizeTYPE *serializedFMUstateSize;
    fmi2SerializeFMUstateTYPE *serializeFMUstate;
    fmi2DeSerializeFMUstateTYPE *deSerializeFMUstate;
    fmi2EnterEventModeTYPE *enterEventMode;
    fmi2NewDiscreteStatesTYPE *newDiscreteStates;
    fmi2EnterContinuousTimeModeTYPE *enterContinuousTimeMode;
    fmi2SetTimeTYPE *setTime;
    fmi2SetContinuousStatesTYPE *setContinuousStates;
    fmi2GetDerivativesTYPE *getDerivatives;
    fmi2GetEventIndicatorsTYPE *getEventIndicators;
    fmi2GetContinuousStatesTYPE *getContinuousStates;
    fmi2GetDirectionalDerivativeTYPE *getDirectionalDerivative;
} CtFmi;

#define CT_MSG 512

typedef struct CtData CtData;

typedef struct {
    CtData *d;
    const CtCompInfo *info;
    void *lib;                   /* dlopen handle */
    CtFmi f;
    const CtFastApi *fast;       /* its fast entry points (ct_fast.h; compiled into its binary
                                    by the builder when it carries its sources), NULL: none */
    fmi2Component inst;
    fmi2CallbackFunctions cb;    /* componentEnvironment = this record */
    fmi2FMUstate scratch;        /* FMU-state hooks: the snapshot being saved/restored */
    size_t scratchSize;          /* its serialized size */
    fmi2FMUstate snap;           /* its state when the last event ended (recovery) */
    int snapValid;
    int need;                    /* event iteration: needs another fmi2NewDiscreteStates */
    int broken;                  /* a call failed in continuous time: restore snap first */
    int timeSet;                 /* tSet is the time it has */
    double tSet;
    int xValid;                  /* CtData.xSet holds the states it has */
    char lastMsg[CT_MSG];        /* its last message with status >= warning */
} CtComp;

enum { CT_PH_INSTANTIATED = 0, CT_PH_INIT, CT_PH_EVENT, CT_PH_CT, CT_PH_TERMINATED };

struct CtData {
    RtCtx *ctx;
    CtComp comp[NARR_CT(CT_NCOMP)];
    int phase;                   /* CT_PH_*: the mode of all components */
    double tEv;                  /* eventMode: its time */
    int fwdPending;              /* a tunable parameter changed in continuous time: forward
                                    at the next event */
    double xSet[NARR_CT(N_X)];   /* the states the components have (valid per xValid) */
    double lastFwd[NARR_CT(CT_N_FWD)];     /* the value the component has (NaN: unknown) */
    double lastSet[NARR_CT(CT_N_ACTVAL)];  /* value last set per action value, what the
                                              component has (NaN: never set, or unknown) */
    CtVal changed[NARR_CT(CT_MAXVALS)];    /* the values of one action that changed */
    /* CtFastApi.need of each GET action's values (settable of each SET action's) and need of
       each component's Real outputs (ct_out, the Real ones first), computed once at
       instantiation; CT_FAST_NEED_SLOW: no fast path */
    int actNeed[NARR_CT(CT_N_ACT)];
    int outNeed[NARR_CT(CT_NCOMP)];
    /* 1: the action's values are a run (ct_fast.h: value references and slots ascend by one) of
       a component with fast entry points, moved by CtFastApi.setRun/getRun */
    unsigned char actRun[NARR_CT(CT_N_ACT)];
    /* per component, the count of its leading Real outputs (ct_out: the builder puts the Real
       ones first): those read in continuous time, counted once at instantiation */
    int outReal[NARR_CT(CT_NCOMP)];
    /* mdl_jac, mdl_ddir: directional derivatives through the action list (CT_MAXDD: the most
       knowns or unknowns of one component's call) */
    double dv[NARR_CT(NV)];
    fmi2ValueReference ddKnown[NARR_CT(CT_MAXDD)], ddUnknown[NARR_CT(CT_MAXDD)];
    double ddSeed[NARR_CT(CT_MAXDD)], ddOut[NARR_CT(CT_MAXDD)];
    /* call buffers */
    fmi2ValueReference vrbuf[NARR_CT(CT_MAXVALS)];
    double rbuf[NARR_CT(CT_MAXVALS)];
    fmi2Integer ibuf[NARR_CT(CT_MAXVALS)];
    fmi2Boolean bbuf[NARR_CT(CT_MAXVALS)];
    /* diagnostics (not part of the FMU state: work done stays done) */
    int timing;                  /* v[CT_SLOT_TIMING] at the entry of the current mdl_* call */
    int depth;                   /* nesting of timed mdl_* calls */
    double tEntry;
    double nRhs, nEvents, nPasses, nCalls, tComp, tTotal;
    char *resDir;                /* the container's resources folder (a path) */
    char *resUri;                /* ... as a URI without a trailing '/' */
};

/* ---- ct_load.c ---- */
CtData *ct_data(RtCtx *ctx);
double ct_now(void);
/* before a component call (fmi2 or fast entry point): counted, and timed when timing is on */
static inline double ct_call_begin(CtData *d)
{
    d->nCalls += 1.0;
    return d->timing ? ct_now() : 0.0;
}
/* after a component call: 0 ok, 1 failed (logged; in continuous time marks it broken) */
int ct_call_end(CtData *d, CtComp *k, const char *fn, double t0, fmi2Status st, double t);
void ct_timed_begin(CtData *d, const double *v);
void ct_timed_end(CtData *d);

/* ---- ct_eval.c ---- */
#define CT_ALLTYPES 1            /* also Integer/Boolean values (event/initialization mode) */
#define CT_MARK 2                /* SET: mark a component whose input value changed (need) */
int ct_set_values(CtData *d, CtComp *k, const CtVal *vals, int n, const double *v, double t);
/* need: CtFastApi.need of vals (d->actNeed, d->outNeed), CT_FAST_NEED_SLOW if unknown */
int ct_get_values(CtData *d, CtComp *k, const CtVal *vals, int n, double *v, double t, int need);
int ct_propagate(CtData *d, double *v, double t, int flags);
int ct_forward(CtData *d, const double *v, unsigned int kinds, double t);
int ct_read_states(CtData *d, CtComp *k, double *v, double t);
int ct_states_in(CtData *d, const double *v, double t);
/* ct_finish's what: the outputs as well; the indicators without the derivatives */
enum { CT_OUTPUTS = 1, CT_ZC_ONLY = 2 };
int ct_finish(CtData *d, double *v, double t, int what);
int ct_leave_event(CtData *d, double *v, double t);
/* every component through one mode change; need: the value of each component's `need` after it */
enum { CT_ENTER_EVENT, CT_ENTER_CT, CT_EXIT_INIT };
int ct_all_modes(CtData *d, int change, int need, double t);
void ct_forget_inputs(CtData *d, const CtComp *k);
int ct_restore(CtData *d, CtComp *k, double t);
void ct_snapshot(CtData *d);

#ifdef WEARCOSIM_VIS_PUSHED_CONTAINER_H
#pragma GCC visibility pop
#undef WEARCOSIM_VIS_PUSHED_CONTAINER_H
#endif

#endif
