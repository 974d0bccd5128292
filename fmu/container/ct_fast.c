/*
 * ct_fast.c -- the container's fast entry points (ct_fast.h), compiled INTO a component's
 * binary with the component's own config.h and runtime (never into the container itself):
 * the container builder adds this unit when it rebuilds a component FMU from its sources.
 *
 * Each function does in continuous-time mode what the fmi2 function named in ct_fast.h does
 * through the runtime's core (rt_me.c, rt_eval.c), in the same order with the same runtime
 * functions (rt_invalidate, rt_band_clear, rt_eval_part, rt_ensure_eval, rt_zc_eval,
 * rt_band_check), so the component computes the same numbers; what it leaves out are the checks
 * of the call itself (instance state, value references, types, settability), which the
 * builder made once.  Values are still checked (finite, within min/max): a bad one returns
 * CT_FAST_SLOW before anything is written, and the fmi2 function then refuses it as usual.
 */
#include <math.h>
#include <string.h>

#include "rt_impl.h"
#include "ct_fast.h"

static RtCtx *in_ct(void *inst)
{
    RtCtx *c = (RtCtx *)inst;
    return c && c->magic == RT_CTX_MAGIC && c->state == RT_CT_MODE && c->type == RT_TYPE_ME
           ? c : NULL;
}

/* a model evaluation failed: the instance's error state and the message of fmi2 function fn */
static int failed(RtCtx *c, const char *fn, int rc)
{
    c->state = RT_ERROR;
    rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: model evaluation failed at t=%.17g (code %d)",
            fn, c->time, rc);
    return RT_STATUS_ERROR;
}

/* rt_me_set_time, rt_me_set_states */
static int f_place(void *inst, double t, const double *x, size_t nx)
{
    RtCtx *c = in_ct(inst);
    if (!c || !isfinite(t)) return CT_FAST_SLOW;
    if (x && (nx != (size_t)N_X || !rt_ode_all_finite((int)nx, x))) return CT_FAST_SLOW;
    if (t != c->time) {
        c->time = t;
        rt_invalidate(c);
    }
    if (x && nx > 0) {
        memcpy(c->v + OFF_X, x, nx * sizeof(double));
        rt_invalidate(c);
    }
    return RT_STATUS_OK;
}

/* what rt_set_values checks of the variables themselves (in continuous-time mode only inputs
   are settable), once per list; and that each lies in the inputs' slice, where f_set keeps it
   for the input extrapolation as rt_set_values does */
static int f_settable(const CtVal *vals, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const unsigned int vr = vals[i].vr;
        if (vr >= (unsigned int)NV || mdl_var[vr].kind != MK_INPUT || mdl_var[vr].type != MT_REAL ||
            !mdl_var[vr].name || !rt_in_slice(vr, OFF_U, N_U))
            return CT_FAST_NEED_SLOW;
    }
    return 0;
}

/* the inputs of the instance changed (rt_set_values' consequences in continuous-time mode) */
static void inputs_changed(RtCtx *c)
{
    rt_invalidate(c);
    rt_band_clear(c);
}

/* rt_set_values of Real inputs in continuous-time mode: the values checked (finite, within
   [min, max]: one test without a branch per value) and compared with what the instance has;
   when one differs (==) all are written, else nothing (the call changes nothing then, as a set
   of the changed values alone would not) */
static int f_set(void *inst, const CtVal *vals, int n, const double *v)
{
    RtCtx *c = in_ct(inst);
    double *cv, *us;
    int i, any = 0, bad = 0;
    if (!c) return CT_FAST_SLOW;
    cv = c->v;
    for (i = 0; i < n; i++) {
        const double x = v[vals[i].slot];
        const MdlVar *mv = &mdl_var[vals[i].vr];
        bad |= !(fabs(x) < INFINITY) | (x < mv->min) | (x > mv->max);
        any |= cv[vals[i].vr] != x;
    }
    if (bad) return CT_FAST_SLOW;
    if (!any) return RT_STATUS_OK;
    us = c->uS;
    for (i = 0; i < n; i++) {
        const unsigned int vr = vals[i].vr;
        const double x = v[vals[i].slot];
        cv[vr] = x;
        us[vr - (unsigned int)OFF_U] = x;   /* (input extrapolation, as rt_set_values; f_settable:
                                               every vr lies in the inputs' slice) */
    }
    inputs_changed(c);
    return RT_STATUS_OK;
}

/* f_set of the run vr .. vr + n - 1 from x */
static int f_set_run(void *inst, unsigned int vr, int n, const double *x)
{
    RtCtx *c = in_ct(inst);
    const MdlVar *mv = mdl_var + vr;
    const double *cv;
    int i, any = 0, bad = 0;
    if (!c) return CT_FAST_SLOW;
    cv = c->v + vr;
    for (i = 0; i < n; i++) {
        bad |= !(fabs(x[i]) < INFINITY) | (x[i] < mv[i].min) | (x[i] > mv[i].max);
        any |= cv[i] != x[i];
    }
    if (bad) return CT_FAST_SLOW;
    if (!any) return RT_STATUS_OK;
    memcpy(c->v + vr, x, (size_t)n * sizeof(double));
    memcpy(c->uS + (vr - (unsigned int)OFF_U), x, (size_t)n * sizeof(double));   /* (as f_set) */
    inputs_changed(c);
    return RT_STATUS_OK;
}

/* The parts (RT_HAVE_*) a read of vals needs while the instance evaluates in parts: the
   runtime's rule (rt_part_of, as its parts_for applies it), once per list; a variable that is
   not a named Real of the model's list keeps the fmi2 path. */
static int f_need(const CtVal *vals, int n)
{
    int i, need = 0;
    for (i = 0; i < n; i++) {
        const unsigned int vr = vals[i].vr;
        int part;
        if (vr >= (unsigned int)NV || !mdl_var[vr].name || mdl_var[vr].kind == MK_INTERNAL ||
            mdl_var[vr].type != MT_REAL)
            return CT_FAST_NEED_SLOW;
        part = rt_part_of(vr);
        if (part < 0) return -1;
        need |= part;
    }
    return rt_parts_fold(need);
}

/* rt_get_begin's evaluation (rt_get_eval) + the copy of fmi2GetReal */
static int f_get(void *inst, int need, const CtVal *vals, int n, double *v)
{
    RtCtx *c = in_ct(inst);
    int i;
    if (!c || need == CT_FAST_NEED_SLOW) return CT_FAST_SLOW;
    if (rt_get_eval(c, "fmi2GetReal", need) != RT_STATUS_OK) return RT_STATUS_ERROR;
    for (i = 0; i < n; i++) v[vals[i].slot] = c->v[vals[i].vr];
    return RT_STATUS_OK;
}

/* f_get of the run vr .. vr + n - 1 into x */
static int f_get_run(void *inst, int need, unsigned int vr, int n, double *x)
{
    RtCtx *c = in_ct(inst);
    if (!c || need == CT_FAST_NEED_SLOW) return CT_FAST_SLOW;
    if (rt_get_eval(c, "fmi2GetReal", need) != RT_STATUS_OK) return RT_STATUS_ERROR;
    memcpy(x, c->v + vr, (size_t)n * sizeof(double));
    return RT_STATUS_OK;
}

/* rt_me_get_derivatives then rt_me_get_event_indicators */
static int f_dz(void *inst, double *dx, size_t nx, double *z, size_t nz)
{
    RtCtx *c = in_ct(inst);
    int rc, parts;
    if (!c || (nx > 0 && nx != (size_t)N_X) || (nz > 0 && nz != (size_t)N_Z)) return CT_FAST_SLOW;
    if (nx > 0 && (rc = rt_me_get_derivatives(c, "fmi2GetDerivatives", dx, nx)) != RT_STATUS_OK) return rc;
    if (nz > 0) {
        parts = rt_by_parts(c);
        rc = !parts ? rt_ensure_eval(c) : (c->have & RT_HAVE_Z) ? 0 : rt_eval_part(c, RT_HAVE_DX);
        if (rc != 0) return failed(c, "fmi2GetEventIndicators", rc);
        if (parts) memcpy(z, c->zPart, nz * sizeof(double));
        else rt_zc_eval(c, c->v, c->time, z);
        /* test (3) fires: fmi2GetEventIndicators repeats the read (nothing to evaluate) and
           reports it */
        if (rt_band_check(c, z) >= 0) return CT_FAST_SLOW;
    }
    return RT_STATUS_OK;
}

#if defined(MDL_DERIV_CHECKS_FINITE) && MDL_DERIV_CHECKS_FINITE
#define CT_CHECKS_FINITE 1
#else
#define CT_CHECKS_FINITE 0
#endif

static const CtFastApi api = {
    CT_FAST_VERSION, (int)sizeof(CtVal), CT_CHECKS_FINITE, f_place, f_settable, f_set, f_need, f_get, f_dz,
    f_set_run, f_get_run
};

/* the one exported symbol besides the fmi2 functions (the runtime's units are hidden) */
__attribute__((visibility("default"))) const CtFastApi *wcct_fast_api(void);
const CtFastApi *wcct_fast_api(void)
{
    return &api;
}
