/*
 * rt_impl.h -- what the units of the runtime's core (rt_core.h) share among themselves:
 * config.h with its defaults, the limits several units use, the instance of models with
 * hooks, and the internal functions one unit provides to another.  Not for the face.
 *
 * Model-dependent units: every core unit (rt_instance.c, rt_eval.c, rt_deriv.c, rt_events.c,
 * rt_state.c, rt_me.c, rt_cs.c) includes config.h through this header, as does rt_newton.c;
 * the face (fmi2_face.c) and the solvers do not.  The core is split by concern, and each
 * concern needs the model's sizes, so the model-dependent code is these units together.
 */
#ifndef WEARCOSIM_RT_IMPL_H
#define WEARCOSIM_RT_IMPL_H

#include <stddef.h>

#include "config.h"
#include "model_api.h"
#include "rt_core.h"
#include "rt_linalg.h"
#include "rt_ode.h"

/* ------------------------------------------------------------------------- */
/* limits                                                                     */
#define RT_MAX_EVENT_ITER 100          /* passes of one event iteration          */
#define RT_MAX_STEPS 1000000L          /* solver.maxSteps when invalid (default)  */
#define RT_WALL_CHECK 256              /* solver steps between clock readings     */
#define RT_MAX_ME_PASSES 1000          /* ME: NewDiscreteStates calls per event  */
#define RT_ROOT_MAXIT 200
/* the running CS solver in an FMU state (live_write): header, zOld and z, the solver */
#define RT_LIVE_HDR 4
#define RT_LIVE_LEN ((size_t)RT_LIVE_HDR + 2 * (size_t)N_Z + rt_ode_live_len(N_X))
#define RT_WHY_LEN 768                 /* buffer of a chattering message          */

#define NARR(n) ((size_t)((n) > 0 ? (n) : 1))

#ifdef MDL_HAS_HOOKS
/* model_api.h hooks: the instance carries the model's data pointer after the RtCtx (rt_ctx.h
   is model independent), and the size of the model's part of the FMU state being written */
typedef struct {
    RtCtx rt;                       /* first member: an RtCtx * is an RtCtxHooked * */
    void *data;                     /* mdl_hook_instantiate's *data */
    size_t stateExtra;              /* bytes of the model's part (mdl_hook_state_size) */
} RtCtxHooked;
#define RT_HOOKED(c) ((RtCtxHooked *)(c))
#define RT_CTX_SIZE sizeof(RtCtxHooked)
/* indicators come from the model's evaluation (model_api.h H2) */
#define RT_ZC_NEEDS_EVAL 1
#else
#define RT_CTX_SIZE sizeof(RtCtx)
#define RT_ZC_NEEDS_EVAL (N_W > 0)
#endif

/* evaluation in parts (rt_eval.c) and the model's optional parts (model_api.h) */
#ifndef MDL_HAS_OUT
#define MDL_HAS_OUT 0
#endif
#ifndef MDL_HAS_OUT_CHEAP
#define MDL_HAS_OUT_CHEAP 0
#endif
#ifndef MDL_HAS_ZC_CHEAP
#define MDL_HAS_ZC_CHEAP 0
#endif
#ifndef N_DALG          /* hand-written models: every discrete variable is a state of events */
#define N_DALG 0
#endif
#if N_W == 0 && !defined(MDL_HAS_HOOKS)
#define RT_PARTS 1
#else
#define RT_PARTS 0
#endif
enum { RT_HAVE_DX = 1, RT_HAVE_Z = 2, RT_HAVE_OUT = 4, RT_HAVE_CHEAP = 8 };

/* the instance evaluates in parts now.  ME: v was invalidated (new x, u or t); CS after a step:
   v holds the delivered x with everything else stale (cs_x_at), so a master reading its outputs
   at every communication point pays for the outputs, not for all variables.  (Inline: it is
   asked at every read of a right-hand side, several times per component in a container.) */
static inline int rt_by_parts(const RtCtx *c)
{
    return RT_PARTS && ((c->dirty && !c->stale && c->state == RT_CT_MODE) ||
                        (c->stale && !c->dirty && c->state == RT_STEP_COMPLETE));
}

#ifndef MDL_HAS_DDIR
#define MDL_HAS_DDIR 0
#endif
#ifndef MDL_HAS_DD
#define MDL_HAS_DD 0
#endif
#if MDL_HAS_DD && MDL_HAS_DDIR
#error "MDL_HAS_DD and MDL_HAS_DDIR exclude each other"
#endif
#if MDL_HAS_DD && defined(MDL_HAS_HOOKS)
#error "a model with hooks may leave dx stale in mdl_deriv(z = NULL) (model_api.h H2), which MDL_HAS_DD's differences read"
#endif
#if MDL_HAS_DDIR && !defined(N_OUTLIST)
#error "MDL_HAS_DDIR needs N_OUTLIST (model_api.h)"
#endif

/* the error exit of a core API function: its message, status RT_STATUS_ERROR, to END (each
   such function has one exit, as the face's functions do) */
#define FAIL(...) do { rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, __VA_ARGS__); \
                       status = RT_STATUS_ERROR; goto END; } while (0)

/* vr lies in the slice [off, off + n) of v (inline, as the next: asked per variable and per
   column of every directional derivative) */
static inline int rt_in_slice(unsigned int vr, long off, long n)
{
    return (long)vr >= off && (long)vr < off + n;
}

/* slot of column j of d(dx, outputs)/d(x, u) (the states, then the inputs) */
static inline int rt_dd_col_slot(int j)
{
    return j < N_X ? OFF_X + j : OFF_U + j - N_X;
}

/* ---- rt_instance.c ---- */
void rt_emit(RtCtx *c, int status, int cat);   /* c->msg as it is, to the logger */
const char *rt_state_name(const RtCtx *c, RtState s);
void *rt_calloc(RtCtx *c, size_t n, size_t sz);
void rt_free(RtCtx *c, void *p);

/* ---- rt_eval.c ---- */
const char *rt_var_name(unsigned int vr);
void rt_forget_parts(RtCtx *c);
void rt_invalidate(RtCtx *c);
int rt_ensure_eval(RtCtx *c);
void rt_u_at(const RtCtx *c, double *v, double t);
double rt_u_rate(const RtCtx *c, int i);
void rt_u_begin_step(RtCtx *c);
void rt_u_initialized(RtCtx *c);
void rt_u_end_step(RtCtx *c);
int rt_eval_part(RtCtx *c, int part);
void rt_copy_pre(RtCtx *c);
int rt_is_listed_output(unsigned int vr);
#if MDL_HAS_OUT
int rt_out_index(unsigned int vr);
#endif
int rt_part_of(unsigned int vr);
int rt_parts_fold(int need);
int rt_get_eval(RtCtx *c, const char *fn, int need);

/* ---- rt_events.c ---- */
void rt_zshift(const RtCtx *c, double *z);
void rt_zc_eval(RtCtx *c, const double *v, double t, double *z);
void rt_hold_offsets(RtCtx *c);
void rt_cycle_reset(RtCtx *c);
int rt_ev_pass(RtCtx *c, int initial, int *flags);
int rt_event_iteration(RtCtx *c, int initial, int *flags_out);
void rt_ev_begin(RtCtx *c);
int rt_ev_record(RtCtx *c, double t, char *buf, size_t n);
void rt_band_clear(RtCtx *c);
void rt_band_setup(RtCtx *c, int reinit);
int rt_band_check(RtCtx *c, const double *z);
void rt_band_message(const RtCtx *c, int k, double t, double zk, char *buf, size_t n);

/* ---- rt_state.c ---- */
int rt_live_load(RtCtx *c, RtOde *s);

#endif
