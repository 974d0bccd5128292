/*
 * model_api.h -- the contract between the GENERATED model code (config.h + model.c,
 * written by `wearcosim build`) and the HAND-WRITTEN FMI 2.0 runtime in fmu/runtime/.
 *
 * The runtime is shared by every model and never edited per model.  Everything that is
 * model specific comes through the macros of config.h and the mdl_* symbols below.
 *
 * ---------------------------------------------------------------------------------
 * Storage.  All values of one instance live in ONE array `double v[NV]`.  A variable's
 * FMI value reference IS its offset in v, whatever its FMI type (Integer and Boolean
 * values are stored as doubles holding whole numbers / 0.0 or 1.0).  v is laid out in
 * slices, each given by an offset/count pair in config.h:
 *
 *   OFF_X    N_X    continuous states x                       (fmi2Get/SetContinuousStates)
 *   OFF_DX   N_X    their derivatives dx/dt                    (fmi2GetDerivatives)
 *   OFF_P    N_P    parameters: independent ones first, then calculated ones
 *   OFF_U    N_U    inputs (Real/Integer/Boolean)
 *   OFF_Y    N_Y    every other variable computed by mdl_eval (algebraics, outputs)
 *   OFF_D    N_D    discrete variables changed only at events (when-assigned)
 *   OFF_DPRE N_D    pre() values of the discrete variables
 *   OFF_M    N_M    relation memories (0/1): value of each event-generating relation,
 *                   frozen between events.  Event indicator k belongs to relation k.
 *   OFF_MPRE N_M    their pre() values
 *   OFF_C    N_C    when-condition values (0/1)
 *   OFF_CPRE N_C    their pre() values
 *   OFF_W    N_W    iteration variables of nonlinear algebraic loops (Newton unknowns)
 *   OFF_SOLVER ...  solver settings, stored as ordinary tunable parameters (inside the
 *                   parameter slice) at these fixed offsets:
 *                     v[OFF_SOLVER_METHOD]  0 = auto, 1 = Dormand-Prince 5(4), 2 = implicit
 *                     v[OFF_SOLVER_RTOL]    relative tolerance; <= 0: use fmi2SetupExperiment's
 *                                           tolerance if defined, else DEFAULT_TOLERANCE
 *                                           (the model's DefaultExperiment; 1e-6 if none)
 *                     v[OFF_SOLVER_ATOL]    absolute tolerance; <= 0: 1e-3 * rtol; state i
 *                                           uses atol * mdl_x_nominal[i] (see G9)
 *                     v[OFF_SOLVER_HMAX]    max step; <= 0: unlimited (still bounded by the
 *                                           communication step)
 *                     v[OFF_SOLVER_MAXSTEPS]    work budget: solver steps per fmi2DoStep
 *                                           (Integer >= 1, default 1e6; invalid: 1e6)
 *                     v[OFF_SOLVER_MAXSTEPTIME] wall-clock budget of one fmi2DoStep [s];
 *                                           <= 0: no limit (default)
 *                   (order as in codegen.SOLVER_PARAMS; hand-written models may place the
 *                   slots anywhere, the runtime uses the six macros only)
 *
 * Any slice may be empty (count 0).  NV is the total length.  Every slice's offset is a
 * compile-time constant in config.h.
 *
 * Other config.h macros:
 *   MODEL_IDENTIFIER   C identifier (prefix for fmi2 symbols via FMI2_FUNCTION_PREFIX)
 *   MODEL_GUID         string, identical to modelDescription.xml's guid
 *   N_Z                number of event indicators (== N_M)
 *   HAS_JACOBIAN       1 if mdl_jac is an exact generated Jacobian, 0 if it returns -1
 *   DEFAULT_START_TIME, DEFAULT_STOP_TIME, DEFAULT_TOLERANCE (from the experiment annotation)
 *
 * ---------------------------------------------------------------------------------
 * Semantics the runtime relies on:
 *  - mdl_eval never changes x, p, u, d, m, c.  It fills dx, y and (via Newton) w.
 *  - mdl_deriv is mdl_eval restricted to what the embedded CS solver's stages need: it
 *    fills dx and w (same checks, asserts and return codes) and may leave y and the
 *    discrete algebraics stale.  The runtime calls mdl_eval before any value is read.
 *    If z is not NULL it also writes the N_Z event indicators at the same (t, x), the
 *    values mdl_zc gives up to rounding (the runtime checks a step's end with them).
 *    With MDL_DERIV_CHECKS_FINITE defined to 1 in config.h (the generated models), a NaN or
 *    Inf derivative makes mdl_deriv return > 0 (logged with the variable's name) and the CS
 *    solver does not test the derivatives again; without it the solver tests them.
 *  - Between events, relations are frozen at v[OFF_M+k]; mdl_zc returns indicators whose
 *    sign is consistent with the memory, with hysteresis built in by the generated code:
 *    z_k > 0 iff relation k is true, z_k(t) changes sign at least h away from the
 *    switching surface, so right after an event every |z_k| >= h.  The runtime only
 *    has to detect sign changes of z between accepted steps.  Precise rule (runtime):
 *    the runtime keeps the last NONZERO value of each indicator as its sign memory; an
 *    indicator has crossed when the new value is nonzero with the opposite sign.
 *    z == 0 means "not crossed yet" (consistent with z > 0 iff true: mdl_event would
 *    not switch the relation there).  In CS the event is placed at the first point of
 *    the located bracket where the sign has STRICTLY changed (<= 1e-12*max(1,|t|)
 *    after the root), so mdl_event sees the new sign.  NaN indicator values are
 *    ignored (sign memory kept).
 *  - Event iteration (ME: fmi2NewDiscreteStates, CS: inside fmi2DoStep, and during
 *    fmi2ExitInitializationMode): the RUNTIME copies d->dpre, m->mpre, c->cpre, then calls
 *    mdl_event once.  mdl_event re-evaluates relations from the current continuous values
 *    (writes m), evaluates when-conditions (writes c), executes the when-clauses whose
 *    condition became true (c && !cpre, or `initial()` when initial != 0): writes d and may
 *    reinit states (writes x).  It sets *flags (bit mask MDL_EV_*) and ends with y, dx
 *    consistent (it calls mdl_eval itself).  The runtime repeats the pass while
 *    MDL_EV_CHANGED is set (up to a bound; exceeding it is an error "event iteration does
 *    not converge at t=...").  A pass that brings back the state of an earlier pass makes
 *    the runtime search the relations' configurations (memories set, mdl_eval, one
 *    mdl_event pass each) and go on from the first one that its own solution reproduces;
 *    from then on in that iteration mdl_event lets rt_event_hold keep the memories of
 *    relations at their switching surfaces.
 *  - Return codes: 0 = ok; >0 = a problem the runtime must turn into fmi2Discard in CS /
 *    fmi2Error in ME with the message already reported through rt_log (e.g. NaN, Newton
 *    failure, a Modelica assert with level=error); MDL_TERMINATE = terminate() was called.
 * ---------------------------------------------------------------------------------
 * What the generated code must guarantee beyond the declarations (runtime notes):
 *  G1 MODEL_GUID is a string LITERAL (the runtime uses sizeof and concatenation).
 *     Every OFF_* macro is defined, also for empty slices (any value 0..NV).
 *  G2 mdl_jac is always defined (return -1 if HAS_JACOBIAN == 0); mdl_nl_res and
 *     mdl_nl_jac must be defined when N_W > 0 (referenced only then; mdl_nl_jac may
 *     return -1 -> finite differences).  rt_newton needs the ctx passed to mdl_eval.
 *  G3 mdl_jac is only called right after mdl_eval or mdl_deriv at the same (t, x), so
 *     it may use w from v (not y: mdl_deriv may leave it stale).
 *  G4 mdl_initialize may be called several times in initialization mode (the runtime
 *     recomputes lazily after each fmi2Set*): it must be idempotent and take the
 *     current v values of states/discretes with fixed start values as given.
 *     mdl_calc_params is called before mdl_initialize, and again after a tunable
 *     parameter changed in event mode / between CS steps (before the next mdl_eval).
 *  G5 In the initialization event iteration mdl_event gets initial != 0 on EVERY
 *     pass (Modelica: initial() is true during the whole initialization), so those
 *     passes must reach a fixed point (set MDL_EV_CHANGED only on real changes).
 *  G6 mdl_event re-evaluates relation k as m_k = (z_k > 0) with the indicator
 *     computed from the CURRENT memory (hysteresis), so the runtime's event point and
 *     the model's decision agree.
 *  G7 mdl_* must not keep state outside v (the runtime copies v for FMU states and
 *     evaluates trial points in any order).  Messages logged by mdl_* during solver
 *     trial evaluations (status >= warning) are deferred: only the last one is
 *     reported, appended to the fmi2Discard message if the step finally fails.
 *  G8 No time events: nextEventTimeDefined is always false.  Time-triggered events
 *     (sample(), time >= T) must be generated as state events on an indicator in t.
 *     MDL_TERMINATE returned by mdl_eval (terminate() outside a when-clause) is
 *     treated in CS like a failed evaluation, so the solver shrinks the step onto the
 *     first time it is signalled; a when-clause (MDL_EV_TERMINATE) is exact.
 *  G9 mdl_x_nominal[i] (> 0, N_X entries, defined even when N_X == 0 as a 1-element
 *     array) scales the absolute tolerance of state i (atol_i = atol*nominal_i), the
 *     difference increments of the finite-difference Jacobian, and is what
 *     fmi2GetNominalsOfContinuousStates returns.  Values <= 0 / NaN are taken as 1.
 *     mdl_jac returning -1 OR filling J with NaN/Inf -> finite differences.
 *  G10 Integer/Boolean variables (also solver.method: MT_INTEGER, min 0, max 2,
 *     tunable; solver.maxSteps: MT_INTEGER, min 1) must carry their MT_* type: get/set
 *     check it.  Internal slots (kind MK_INTERNAL, name NULL) have no ScalarVariable in
 *     modelDescription.xml: fmi2Get* and fmi2Set* refuse their value references with
 *     fmi2Error, exactly like references >= NV.  Every other slot must be in the XML.
 *  G11 modelDescription.xml: LogCategories logEvents, logStatusWarning,
 *     logStatusDiscard, logStatusError, logAll; numberOfEventIndicators = N_Z;
 *     canGetAndSetFMUstate = canSerializeFMUstate = true;
 *     providesDirectionalDerivative = MDL_HAS_DD (or MDL_HAS_DDIR); CS:
 *     canHandleVariableCommunicationStepSize = true, canInterpolateInputs = true (the runtime
 *     moves the continuous Real inputs along the polynomial of fmi2SetRealInputDerivatives,
 *     orders 1 and 2, at every evaluation inside fmi2DoStep: nothing for the model to do, it
 *     reads u from v as always), maxOutputDerivativeOrder = 1 (computed by the runtime from
 *     the model's evaluations, rt_deriv.c "output derivatives"),
 *     canRunAsynchronuously = false; ME: completedIntegratorStepNotNeeded = true.
 * ---------------------------------------------------------------------------------
 * Evaluation in parts (Model Exchange, continuous-time mode, and Co-Simulation after
 * fmi2DoStep, where only the states are current; models without nonlinear loops or hooks).  An importer that couples FMUs reads some outputs of each, sets the
 * inputs of the others, then asks for derivatives and indicators: a whole mdl_eval per
 * read would evaluate each FMU twice per right-hand side.  So, while x, u or t have
 * changed since the last whole evaluation, the runtime evaluates only what is asked:
 *   fmi2GetDerivatives, fmi2GetEventIndicators   mdl_deriv (dx and z in one call)
 *   fmi2Get* of outputs in mdl_out_slot          mdl_out (those outputs and z), or
 *                                                mdl_out_cheap if all of them are cheap
 *   fmi2Get* of states, inputs, parameters, discrete states   no evaluation
 *   fmi2Get* of anything else                    mdl_eval, as before
 * and keeps what each part made current until the next set.  The values are those of the
 * whole evaluation (same expressions, same operations); only the work differs.
 * In CS, the indicators at a communication point inside a solver step (rt_cs.c
 * cs_check_point) are evaluated with the outputs the importer read after the step before:
 * mdl_out (all outputs with the indicators) or mdl_zc_cheap (the cheap ones with the
 * indicators), so that the read after this step finds them current.
 * ---------------------------------------------------------------------------------
 * Optional hooks (config.h defines MDL_HAS_HOOKS; generated models never do, and the
 * runtime then compiles exactly as without them): for hand-written models that keep state
 * OUTSIDE v, i.e. the strong-coupling container of fmu/container/, whose component FMUs
 * hold their own discrete states.  Such a model provides every mdl_hook_* function below
 * and the runtime calls them at instantiation (with the resource location), reset,
 * terminate, fmi2SetDebugLogging, free, and for the FMU state.  What changes for it:
 *  H1 G7 is relaxed: the state outside v is saved and restored by the FMU-state hooks.
 *     The FMU state is the runtime's block followed by the model's bytes (any length,
 *     fixed by mdl_hook_state_size when the state is taken); the runtime's checksum covers
 *     both, the serialized form is the block itself.  Solver trial points and restores of
 *     v inside fmi2DoStep (event location, rejected steps, the moving-back test, undoing a
 *     step) only move t and x (and, with input derivatives set, the inputs in v): the model
 *     must set its outside state's time, continuous states and inputs from (t, v) at every
 *     evaluation, never assume the previous evaluation's.
 *  H2 mdl_zc may read the indicators the last mdl_eval/mdl_deriv/mdl_event stored in v: the
 *     runtime evaluates (mdl_deriv) before every mdl_zc at a new (t, x), also on the dense
 *     output during event location (otherwise done only when N_W > 0).  That evaluation, and
 *     only it, passes z = NULL (rt_cs.c eval_interp, at the communication points inside a step
 *     and during event location; v is stale afterwards, so nothing reads its derivatives before
 *     the next evaluation): the model may then make the indicators current and leave dx stale
 *     (the container evaluates no component beyond what its indicators need).  Such a model
 *     cannot have MDL_HAS_DD (rt_deriv.c's differences call mdl_deriv with z = NULL for dx;
 *     rt_impl.h refuses the combination).
 *  H3 Relation memories v[OFF_M..] are informative only (the event messages name the
 *     indicator whose memory changed); the hysteresis-band test (3) of rt_events.c
 *     measures no band for such a model (mdl_zc ignores the memories) and never watches.
 * ---------------------------------------------------------------------------------
 */
#ifndef WEARCOSIM_MODEL_API_H
#define WEARCOSIM_MODEL_API_H

#include <stddef.h>

/* Internal symbols get hidden visibility (GCC/Clang, ELF and Mach-O): only the fmi2*
 * functions are exported, so several FMUs loaded into one process (also with
 * RTLD_GLOBAL) can never bind each other's mdl_* / rt_* functions. */
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define WEARCOSIM_VIS_PUSHED_MODEL_API_H
#endif

/* variable kinds, one per slot of v (mdl_var[i].kind) */
enum {
    MK_PARAM_FIXED = 0,   /* parameter, settable only before fmi2ExitInitializationMode */
    MK_PARAM_TUNABLE = 1, /* parameter, settable also in event mode / between CS steps  */
    MK_CALC_PARAM = 2,    /* calculated parameter: never settable                       */
    MK_INPUT = 3,         /* input: settable any time after instantiation               */
    MK_STATE = 4,         /* state: start settable before initialization (initial=exact) */
    MK_DERIV = 5,         /* derivative of a state                                       */
    MK_COMPUTED = 6,      /* algebraic / output: not settable                            */
    MK_DISCRETE = 7,      /* discrete variable: start settable before initialization     */
    MK_INTERNAL = 8       /* pre values, relation memories, when flags, Newton vars      */
};
enum { MT_REAL = 0, MT_INTEGER = 1, MT_BOOLEAN = 2 };

typedef struct {
    const char *name;   /* Modelica name, e.g. "joint.wearDepth[3]"; NULL for internals */
    unsigned char type; /* MT_* */
    unsigned char kind; /* MK_* */
    double min, max;    /* -INFINITY / +INFINITY when absent */
} MdlVar;

/* flags set by mdl_event */
#define MDL_EV_CHANGED   1  /* some d, m or c changed: another pass is needed           */
#define MDL_EV_REINIT    2  /* some state was reinit'ed (valuesOfContinuousStatesChanged) */
#define MDL_EV_TERMINATE 4  /* terminate() was called                                      */
#define MDL_TERMINATE    -2 /* return code for terminate() outside event handling          */

/* Context handed to generated code: lets it log and lets the runtime's Newton solver be
 * reused.  Defined by the runtime (rt_ctx.h); generated code only uses the functions. */
typedef struct RtCtx RtCtx;

/* ---- provided by the RUNTIME, callable from generated code ---- */
/* printf-style log; status is an fmi2Status value (0 OK ... 3 Error) */
void rt_log(RtCtx *ctx, int status, const char *category, const char *fmt, ...);
/* Solve the model's nonlinear loops: calls mdl_nl_res / mdl_nl_jac until converged,
 * unknowns are v[OFF_W .. OFF_W+N_W-1] (start: current values).  0 = ok, >0 = failed
 * (message logged with the time). */
int rt_newton(RtCtx *ctx, double *v, double t);
/* Called by mdl_event with the relations m[N_M] just evaluated (exactly) on the current v,
 * before they are stored as the memories.  Normally it changes nothing.  After the event
 * iteration has searched the relations' configurations (it cycled; rt_events.c
 * "configuration search") it sets back every relation that lies within a few hysteresis
 * widths of its switching surface to its memory: there both values are consistent to within
 * rounding (an ideal diode at its commutation point, where its current and its voltage vanish
 * and their computed values are noise amplified by 1/Goff).  (Generated models call it; a
 * hand-written mdl_event need not.) */
void rt_event_hold(RtCtx *ctx, const double *v, double t, double *m);

/* ---- provided by the GENERATED model.c ---- */
extern const MdlVar mdl_var[];           /* NV entries, indexed by value reference */
extern const double mdl_x_nominal[];     /* N_X nominal magnitudes of the states (>0)   */
void mdl_set_start(double *v);           /* all start values / parameter defaults        */
int  mdl_calc_params(double *v, RtCtx *ctx);  /* calculated parameters from the others   */
int  mdl_initialize(double *v, double t, RtCtx *ctx); /* initial equations -> x, d; then eval */
int  mdl_eval(double *v, double t, RtCtx *ctx);        /* dx, y (and w via rt_newton)    */
int  mdl_deriv(double *v, double t, double *z, RtCtx *ctx); /* dx (w), z; y may be stale */
void mdl_zc(const double *v, double t, double *z);     /* N_Z event indicators           */
/* Optional (config.h: MDL_HAS_OUT 1, N_OUT): the outputs alone.  Writes the N_OUT slots
   mdl_out_slot[] (ascending; computed variables with causality output) from the current
   x, u, p, d, m, t and, if z is not NULL, the N_Z event indicators (the values mdl_zc
   gives); no asserts are checked; 0 ok, >0 a non-finite output (logged).  Defined only
   for models without nonlinear loops (N_W == 0). */
#if defined(MDL_HAS_OUT) && MDL_HAS_OUT
extern const int mdl_out_slot[];
int  mdl_out(double *v, double t, double *z, RtCtx *ctx);
#endif
/* Optional (config.h: MDL_HAS_OUT_CHEAP 1, N_OUT_CHEAP): the outputs that are cheap on their
   own (mdl_out_slot[mdl_out_cheap_idx[i]], i < N_OUT_CHEAP; idx ascending) alone, the values
   mdl_out computes; 0 ok, >0 a non-finite output (logged). */
#if defined(MDL_HAS_OUT_CHEAP) && MDL_HAS_OUT_CHEAP
extern const int mdl_out_cheap_idx[];
int  mdl_out_cheap(double *v, double t, RtCtx *ctx);
#endif
/* Optional (config.h: MDL_HAS_ZC_CHEAP 1; requires MDL_HAS_OUT_CHEAP): the N_Z event indicators
   into z (the values mdl_zc gives) and the outputs of mdl_out_cheap into v (its values), in one
   call; 0 ok, >0 a non-finite output (not logged, v's outputs untouched; z is written). */
#if defined(MDL_HAS_ZC_CHEAP) && MDL_HAS_ZC_CHEAP
int  mdl_zc_cheap(double *v, double t, double *z);
#endif
/* Optional (config.h: MDL_HAS_DD 1, MDL_DD_NNZ): the structural nonzeros of
   d(dx, outputs)/d(x, u) WITHOUT its block d(dx)/dx (that one is mdl_jac_nz's, which the
   runtime adds) at the current values of v, in the CCS order of mdl_dd_colind
   [N_X+N_U+1] / mdl_dd_row[MDL_DD_NNZ] (rows: dx, then the outputs of mdl_out_slot;
   columns: x, then the input slots); 0 ok.  An entry may be non-finite where the
   expression has no derivative (sqrt at 0 of a contact half-width without contact, e/|e| at
   e = 0): for the rows that need such an entry the runtime takes central differences along
   the seed of mdl_deriv and mdl_out.  Requires MDL_HAS_OUT; fmi2GetDirectionalDerivative is built on it
   (else it is refused). */
#if defined(MDL_HAS_DD) && MDL_HAS_DD
extern const int mdl_dd_colind[], mdl_dd_row[];
int  mdl_dd(const double *v, double t, double *Jnz, RtCtx *ctx);
#endif
/* Optional, for models without MDL_HAS_OUT (config.h: N_OUTLIST): the slots of their
   outputs (Real variables computed by mdl_eval with causality output, outside the X slice;
   ascending) in mdl_outlist[N_OUTLIST]: fmi2GetRealOutputDerivatives and
   fmi2GetDirectionalDerivative accept these (and the states); without any list, every
   computed Real variable. */
#ifdef N_OUTLIST
extern const int mdl_outlist[];
#endif
/* Optional, for models that compute directional derivatives themselves instead of giving a
   Jacobian pattern (config.h: MDL_HAS_DDIR 1, which needs N_OUTLIST; the strong-coupling
   container, which asks its components): dv[NV] holds on entry the seeds of the states
   (OFF_X..) and inputs (OFF_U..), zero elsewhere; mdl_ddir writes d(dx)/d(x, u) * seeds into
   dv[OFF_DX..] and d(y)/d(x, u) * seeds into dv[mdl_outlist[i]], leaving the seeds in place.
   The point is the current (t, v) (v's values may be rewritten with the same values).  0 ok,
   -1 not available now, >0 failed (logged).  fmi2GetDirectionalDerivative and the output
   derivatives are built on it when MDL_HAS_DD is not defined. */
#if defined(MDL_HAS_DDIR) && MDL_HAS_DDIR
int  mdl_ddir(double *v, double t, double *dv, RtCtx *ctx);
#endif
int  mdl_event(double *v, double t, int initial, RtCtx *ctx, int *flags);
int  mdl_jac(double *v, double t, double *J, RtCtx *ctx); /* dense N_X*N_X column-major
                                                            d(dx)/dx; -1: not available */
/* Sparse form (generated models; config.h defines MDL_JAC_NNZ / MDL_NL_NNZ): the
   structural nonzeros of d(dx)/dx in compressed-column order of the pattern
   mdl_jac_colind[N_X+1] / mdl_jac_row[MDL_JAC_NNZ] (same return codes as mdl_jac), and
   the pattern of the loops' Jacobian (mdl_nl_colind[N_W+1] / mdl_nl_row[MDL_NL_NNZ]).
   mdl_jac/mdl_nl_jac give the same values scattered into a dense matrix. */
#ifdef MDL_JAC_NNZ
extern const int mdl_jac_colind[], mdl_jac_row[], mdl_nl_colind[], mdl_nl_row[];
int  mdl_jac_nz(double *v, double t, double *Jnz, RtCtx *ctx);
int  mdl_nl_jac_nz(const double *v, double t, double *Jnz);  /* MDL_NL_NNZ values of dr/dw */
#endif
/* nonlinear loops (only when N_W > 0) */
int  mdl_nl_res(const double *v, double t, double *r);   /* N_W residuals at w = v[OFF_W..] */
int  mdl_nl_jac(const double *v, double t, double *J);   /* N_W*N_W column-major dr/dw   */
/* homotopy() in the loops (config.h defines HAS_HOMOTOPY 1, generated models only): the same
   at the value init of the initial() flag, which carries the homotopy parameter lambda
   (init = 2 - lambda: 2 the simplified, 1 the actual expressions; rt_newton.c "Homotopy") */
#ifndef HAS_HOMOTOPY
#define HAS_HOMOTOPY 0
#endif
#if HAS_HOMOTOPY
int  mdl_nl_res_hom(const double *v, double t, double init, double *r);
int  mdl_nl_jac_hom(const double *v, double t, double init, double *J);
#endif

#ifdef MDL_HAS_HOOKS
/* ---- optional hooks (see H1-H3 above), provided by the MODEL ---- */
/* the model's own data of this instance (*data of mdl_hook_instantiate), provided by the runtime */
void *rt_model_data(RtCtx *ctx);
/* at fmi2Instantiate, after the start values are set: resourceLocation as given (may be
   NULL), type 0 = Model Exchange / 1 = Co-Simulation; 0 ok (*data set), else the
   instantiation fails (the reason logged with rt_log) */
int  mdl_hook_instantiate(RtCtx *ctx, const char *instanceName, const char *resourceLocation,
                          int type, int loggingOn, void **data);
void mdl_hook_free(RtCtx *ctx);                 /* fmi2FreeInstance (also after a failed
                                                   instantiation: data may be NULL)        */
int  mdl_hook_reset(RtCtx *ctx);                /* fmi2Reset, after the start values: 0 ok */
void mdl_hook_terminate(RtCtx *ctx);            /* fmi2Terminate                            */
void mdl_hook_debug_logging(RtCtx *ctx, int loggingOn, size_t nCategories,
                            const char *const categories[]);   /* fmi2SetDebugLogging (valid) */
/* FMU state: mdl_hook_state_size takes a snapshot of the outside state and gives the
   number of bytes (a multiple of 8) mdl_hook_state_write then writes; mdl_hook_state_check
   validates such bytes (0 ok) without changing anything, mdl_hook_state_read applies
   checked bytes (0 ok; on failure nothing may have changed).  Return codes != 0 are
   reported as fmi2Error by the runtime (the model logs the reason). */
int  mdl_hook_state_size(RtCtx *ctx, size_t *n);
int  mdl_hook_state_write(RtCtx *ctx, unsigned char *buf, size_t n);
int  mdl_hook_state_check(RtCtx *ctx, const unsigned char *buf, size_t n);
int  mdl_hook_state_read(RtCtx *ctx, const unsigned char *buf, size_t n);
#endif

#ifdef WEARCOSIM_VIS_PUSHED_MODEL_API_H
#pragma GCC visibility pop
#undef WEARCOSIM_VIS_PUSHED_MODEL_API_H
#endif

#endif
