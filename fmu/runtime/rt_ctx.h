/*
 * rt_ctx.h -- the FMU instance (struct RtCtx) of the wearcosim FMI runtime.
 *
 * RtCtx is the instance handle a face hands to the importer (fmi2_face.c: the fmi2Component)
 * AND the context pointer the generated code receives (model_api.h: rt_log, rt_newton).
 * Like the rest of the core (rt_core.h) it names no FMI version: the face installs the
 * importer's logger and memory functions here as plain function pointers.  Everything mutable lives
 * here (no global or static mutable data anywhere in the runtime), so any number of
 * instances of any number of FMUs can coexist in one process and on several threads
 * (one thread per instance at a time, as FMI requires).
 *
 * The struct is model independent: sizes come from config.h at run time through
 * the counts stored below, so files that do not include config.h (the solvers) never
 * need it.  Only the runtime's own files use this header; generated code only sees
 * the opaque RtCtx of model_api.h.
 */
#ifndef WEARCOSIM_RT_CTX_H
#define WEARCOSIM_RT_CTX_H

#include <stddef.h>
#include "rt_ode.h"

struct RtCtx;
/* the face's logger adapter (rt_core.h): hands one finished message (status RT_STATUS_*,
   category name) to the importer's logger, which the face stored in logTarget/logEnv */
typedef void (*RtLogSink)(const struct RtCtx *c, int status, const char *category,
                          const char *message);

/* what a face names in the core's messages: its API functions that the core's texts refer to,
   its version and its names of the instance states (rt_core.h; fmi2_face.c and fmi3_face.c
   install theirs at instantiation, so that each face's messages name its own functions) */
typedef struct {
    const char *version;            /* "FMI 2.0" */
    const char *exitInitialization; /* the function that ends initialization */
    const char *stopTimeSetter;     /* the function that sets the stop time */
    const char *stateNames[11];     /* by the bit index of RtState below */
} RtFaceNames;

/* instance states, one bit each so that every API function can test a mask (the faces' M_*) */
typedef enum {
    RT_INSTANTIATED = 1 << 0,
    RT_INIT_MODE = 1 << 1,
    RT_EVENT_MODE = 1 << 2,      /* ME */
    RT_CT_MODE = 1 << 3,         /* ME continuousTimeMode */
    RT_STEP_COMPLETE = 1 << 4,   /* CS */
    RT_STEP_IN_PROGRESS = 1 << 5,/* CS: never entered (fmi2DoStep is synchronous) */
    RT_STEP_FAILED = 1 << 6,     /* CS: after fmi2DoStep returned fmi2Discard */
    RT_STEP_CANCELED = 1 << 7,   /* CS: never entered */
    RT_TERMINATED = 1 << 8,
    RT_ERROR = 1 << 9,
    RT_FATAL = 1 << 10
} RtState;

/* log categories (bit index = position in rt_log_categories[]) */
#define RT_LOG_EVENTS 0
#define RT_LOG_WARNING 1
#define RT_LOG_DISCARD 2
#define RT_LOG_ERROR 3
#define RT_LOG_ALL 4
#define RT_LOG_NCAT 5

#define RT_MSG_LEN 1024

/* event history kept for the chattering / Zeno checks (rt_events.c): times of the last
   RT_EV_HIST state events (>= RT_CHATTER_N + 1 and >= 2 RT_ZENO_W + 1 there) */
#define RT_EV_HIST 128
/* event iteration passes remembered for the cycle test (rt_events.c) */
#define RT_CYCLE_HIST 16

struct RtCtx {
    unsigned int magic;             /* RT_CTX_MAGIC while alive: guards stale handles */
    char *instanceName;
    int type;                       /* RT_TYPE_ME or RT_TYPE_CS (rt_core.h) */
    const RtFaceNames *names;       /* the face's names (never NULL while alive) */
    RtLogSink logSink;              /* the face's logger adapter; NULL: the importer gave none */
    void (*logTarget)(void);        /* the importer's logger, type-erased (the face casts it
                                       back to its own type in logSink) */
    void *logEnv;                   /* the importer's environment pointer for it */
    void *faceData;                 /* the face's own data (allocated by it with allocateMemory;
                                       freed with the instance); NULL: none */
    void *(*allocateMemory)(size_t nobj, size_t size);   /* the importer's (or calloc/free) */
    void (*freeMemory)(void *obj);
    int loggingOn;
    unsigned int logMask;           /* enabled categories */
    RtState state;

    /* model data */
    double *v;                      /* NV values, value reference == index */
    double time;
    double tStart, tStop, tolerance;
    int stopDefined, toleranceDefined;
    int dirty;                      /* v (dx, y, w) not consistent with x, u, p, t */
    int stale;                      /* CS: only x, dx, w are current (the solver's stages
                                       evaluate derivatives alone, mdl_deriv); y and the
                                       discrete algebraics are evaluated before a read */
    int have;                       /* ME continuous-time mode, while dirty: the parts an
                                       evaluation in parts made current (RT_HAVE_*,
                                       model_api.h "Evaluation in parts") */
    double *zPart;                  /* N_Z: the indicators of that evaluation */
    signed char *partOf;            /* NV: rt_part_of of every value reference */
    int partsRead;                  /* CS: the parts (RT_HAVE_*) the importer's reads needed
                                       since the last fmi2DoStep began */
    int partsAhead;                 /* CS: those of the step before, which cs_check_point
                                       evaluates with the indicators at the step's end */
    int pointHave;                  /* CS: the parts cs_check_point made current at the
                                       communication point (0: none) */
    int pointAt;                    /* CS: cs_check_point left v at the communication point */
    double *ddJ, *ddAcc, *ddJx;     /* MDL_DD_NNZ, 4*(N_X + N_OUT), MDL_JAC_NNZ:
                                       fmi2GetDirectionalDerivative (allocated only when the
                                       model has mdl_dd) */
    int ddValid;                    /* ddJ holds the Jacobian at the current x, u, p, d, m, t
                                       (an importer assembling a Jacobian asks for many
                                       directions at one point); cleared whenever v changes */
    int terminateRequested;         /* the model called terminate() */
    double lastSuccessfulTime;      /* CS */
    /* CS options of the importer (FMI 3.0 fmi3InstantiateCoSimulation; 0 for FMI 2.0) and what
       the last step reports with them (rt_cs.c "early return and event mode") */
    int csEventModeUsed;            /* events are handled by the importer in event mode */
    int csEarlyReturnAllowed;       /* a step may end at the first event */
    int csReturnedEarly;            /* the last step ended early, at lastSuccessfulTime */
    int csEventNeeded;              /* ... at an event the importer must handle in event mode */
    int meEventPasses;              /* ME: consecutive NewDiscreteStates needing more */

    /* CS integration */
    RtOde *ode;
    int odeMethod;                  /* id the current ode object was made for, -1 none */
    int odeRestart;                 /* restart solver (and recompute z) at next doStep */
    int odeResume;                  /* the restart continues a restored FMU state whose solver
                                       was running: load it from liveBuf (live_load) */
    double *liveBuf;                /* RT_LIVE_LEN: the running solver of a restored FMU state
                                       (step in progress, indicators, rt_ode_live_save) */
    int resumeAuto;                 /* an auto-method code (rt_ode_auto_save) restored by
                                       fmi2SetFMUstate, applied at the next solver restart;
                                       -1 none */
    int resumeProbe;                /* ... and the steps to its next probe (rt_ode_auto_save)           */
    int csEventPending;             /* inputs/parameters changed: event iteration at the
                                       start of the next doStep */
    double hHint;                   /* step size proposal kept over a restart */
    int ahead;                      /* the solver's last accepted step reaches beyond c->time
                                       (values at c->time were interpolated); the next
                                       fmi2DoStep continues it unless a restart is due */
    int aheadEvent;                 /* ... and an event was located in it at aheadTev */
    double aheadTev;
    double *z, *zOld, *zl, *zr, *zm;/* N_Z each (event location) */
    double *zf;                     /* N_Z: indicators of the last right-hand side (cs_rhs) */
    double *xe;                     /* N_X scratch for the interpolant */
    double *xNominal;               /* N_X state nominals (mdl_x_nominal, sanitized) */
    double rhsT;                    /* time of the last rhs evaluation (for mdl_jac) */
    int rhsTerminate;               /* the last rhs evaluation signalled terminate() */
    long nEvents;

    /* event chattering / Zeno checks (CS and ME; rt_events.c "chattering"), saved with
       the FMU state */
    double evHist[RT_EV_HIST];      /* times of the last state events (ring)              */
    int evHead;                     /* slot of the most recent one                        */
    int evN;                        /* events in the ring (<= RT_EV_HIST)                 */
    long evTotal;                   /* state events so far (for messages)                 */
    int zenoRun;                    /* consecutive events with a geometrically shrinking
                                       event window (0: none)                             */
    double zenoT0;                  /* first event time of that run                       */
    double *mEv;                    /* N_Z: relation memories when the event started      */
    double *zBand;                  /* N_Z: z_k right after an event with a state jump for
                                       an indicator that moves back to its surface
                                       (watched until it crosses); 0 = not watched        */
    double tBand;                   /* time of that event                                 */
    int meEvFlags;                  /* ME: MDL_EV_* seen in the passes of this event     */
    double *vScratch;               /* NV: trial evaluations (moving-back test); the base
                                       of the configuration search (rt_events.c)          */

    /* event iteration: cycle detection and the search over the relations' configurations
       (rt_events.c "configuration search") */
    double *mRef;                   /* N_M: the memories when the event iteration began   */
    unsigned char *mFlip;           /* N_M: relations that switched in this iteration     */
    unsigned long long evPassHash[RT_CYCLE_HIST];   /* (x, m, c, d) after the last passes */
    int evPasses;                   /* passes of this event iteration so far              */
    int evSearches;                 /* configuration searches in this event iteration     */
    int evHold;                     /* since a search in this iteration: a relation near
                                       its switching surface keeps its memory (rt_event_hold) */
    double *vHold;                  /* NV: scratch of rt_event_hold and hold_offsets       */
    double *zA, *zB;                /* N_Z scratch of the same                             */
    double *zOff;                   /* N_Z: offsets subtracted from the indicators of the
                                       relations held against their sign (hold_offsets),
                                       until the next event; saved with the FMU state      */
    int nOff;                       /* nonzero offsets                                     */
    double wallStart;               /* CS: wall clock at the start of the fmi2DoStep      */

    /* CS input derivatives (fmi2SetRealInputDerivatives; rt_eval.c "input derivatives"),
       saved with the FMU state */
    double *uD1, *uD2;              /* N_U: derivatives of order 1 and 2 set at the current
                                       communication point for the next fmi2DoStep (0: none) */
    int uDset;                      /* some were set since the last fmi2DoStep */
    double *uP;                     /* 3*N_U: the polynomial of the step being integrated
                                       (value, slope, second derivative at uPt per input) */
    double uPt;                     /* its time origin: the start of that step */
    int uPon;                       /* it moves some input (a slope or curvature != 0) */
    int uDnz;                       /* uD1, uD2 may hold a value != 0 (0: all are zero) */
    /* CS input extrapolation (solver.inputExtrapolation; rt_eval.c "input extrapolation"),
       saved with the FMU state */
    double *uS;                     /* 2*N_U: the inputs as the importer last set them, then
                                       (uS + N_U) the same at the start of the last step */
    double uXt;                     /* the start of the last step */
    int uXon;                       /* uS + N_U holds a step's start */
    double *ddSeed, *ddOut;         /* NV each: seeds and results of a directional derivative
                                       by slot; scratch of the output derivatives */

    /* rt_newton work space (N_W > 0) */
    double *nlR, *nlR2, *nlJ, *nlDw, *nlWb, *nlW0;
    int *nlPiv;
    struct RtBand *nlBand;          /* large sparse loops: banded LU (rt_linalg.h), nlJ = nonzeros */
    double *nlHom;                  /* rt_newton's fallbacks (start repair, continuation):
                                       work space allocated at their first use, NULL before */

    /* logging */
    int quiet;                      /* >0: model messages are deferred (solver trials) */
    char deferred[RT_MSG_LEN];      /* last deferred model message */
    char msg[RT_MSG_LEN];           /* formatting buffer */
    char msg2[2 * RT_MSG_LEN];      /* escaped copy handed to the logger */
};

#define RT_CTX_MAGIC 0x57435346u    /* "WCSF" */

#endif
