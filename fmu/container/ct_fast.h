/*
 * ct_fast.h -- the container's fast entry points into a component (ct_fast.c), shared by the
 * container (container.h) and the component side.
 *
 * Why: per right-hand side the container moves a component's time, states, inputs, outputs,
 * derivatives and event indicators; through the fmi2 functions each of these is a call that
 * checks its instance state, every value reference, type, settability and range again (the
 * same ones at every right-hand side), which cost more than the component's model code itself
 * on the small components of a mechanism.  When a component FMU carries its sources and the
 * same runtime as this one, the container builder compiles ct_fast.c into the component's
 * binary (python/wearcosim/system/container.py): these entry points do what the fmi2 functions
 * do in continuous-time mode -- the runtime's own lazy evaluation in parts, invalidation and
 * checks of values -- without the per-call checks the builder has already made, and take the
 * container's slots directly (one gather or scatter loop, no copies into call buffers).
 * Everything else (initialization, events, FMU states, directional derivatives, and any call
 * outside continuous-time mode) still goes through the fmi2 functions, so the results are
 * those of the fmi2 path bit for bit.  A component without sources keeps the fmi2 path.
 *
 * Every entry point returns RT_STATUS_OK (0), RT_STATUS_ERROR (3, logged by the component as
 * its fmi2 function would, the instance in its error state) or CT_FAST_SLOW: "not here" (not in
 * continuous-time mode, a value the fmi2 function would refuse, a band watch that fires), in
 * which case nothing was changed and the container makes the same call through the fmi2
 * function, which reports the problem in its own words.
 */
#ifndef WEARCOSIM_CT_FAST_H
#define WEARCOSIM_CT_FAST_H

#include <stddef.h>

#define CT_FAST_VERSION 3
#define CT_FAST_SLOW (-1)
#define CT_FAST_SYMBOL "wcct_fast_api"
/* CtFastApi.need: the values cannot be read by the fast path (not Real variables of the
   description): the fmi2 function reads (and refuses) them */
#define CT_FAST_NEED_SLOW (-2)

/* one value moved between a slot of the container's v and a component variable */
typedef struct {
    unsigned int vr;         /* the component's value reference */
    int slot;                /* the container's slot */
    unsigned char type;      /* MT_* */
    unsigned char kind;      /* ct_fwd: CT_FWD_*; ct_out: 1 for a Real output of discrete
                                variability (its time derivative is 0); otherwise 0 */
} CtVal;

typedef struct {
    int version;             /* CT_FAST_VERSION */
    int sizeofVal;           /* sizeof(CtVal) on the component's side */
    int checksFinite;        /* 1: its mdl_deriv refuses a NaN/Inf derivative itself
                                (MDL_DERIV_CHECKS_FINITE, the generated models): the container
                                need not test its derivatives again */
    /* fmi2SetTime(t) and, when x is not NULL, fmi2SetContinuousStates(x, nx) */
    int (*place)(void *inst, double t, const double *x, size_t nx);
    /* 0 if vals are all Real inputs of the description (what set() takes), else
       CT_FAST_NEED_SLOW; computed once per list by the container */
    int (*settable)(const CtVal *vals, int n);
    /* fmi2SetReal of the Real inputs vals[0 .. n-1] (settable() said 0) to v[vals[i].slot]
       when one of them differs from the instance's value, else nothing (nothing changes) */
    int (*set)(void *inst, const CtVal *vals, int n, const double *v);
    /* what a read of vals needs (computed once per list by the container): the parts of the
       runtime's evaluation in parts, -1 a whole evaluation, CT_FAST_NEED_SLOW */
    int (*need)(const CtVal *vals, int n);
    /* fmi2GetReal of vals into v[vals[i].slot] (need: as given by need()) */
    int (*get)(void *inst, int need, const CtVal *vals, int n, double *v);
    /* fmi2GetDerivatives(dx, nx) (nx > 0) then fmi2GetEventIndicators(z, nz) (nz > 0) */
    int (*dz)(void *inst, double *dx, size_t nx, double *z, size_t nz);
    /* set() and get() of a RUN: the n variables vr, vr + 1, ... from or into x[0 .. n-1] (a
       list whose value references and slots both ascend by one, as a connection of array
       ports or of ports declared in the same order on both sides gives: one contiguous
       compare and copy instead of a gather or scatter per value) */
    int (*setRun)(void *inst, unsigned int vr, int n, const double *x);
    int (*getRun)(void *inst, int need, unsigned int vr, int n, double *x);
} CtFastApi;

typedef const CtFastApi *(*CtFastApiFn)(void);

#endif
