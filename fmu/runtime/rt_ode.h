/*
 * rt_ode.h -- embedded one-step ODE solvers for the Co-Simulation interface.
 *
 * Part of the wearcosim FMI 2.0 runtime (fmu/runtime/).  This layer knows nothing
 * about FMI or about config.h: it integrates x' = f(t, x) for a vector of n doubles
 * through callbacks, so it can be unit-tested on its own (tests/test_solvers.c).
 *
 * The contract is modelled on scipy.integrate's OdeSolver: one object (RtOde) holds
 * the current point (t, x), the previous accepted point (t_old, x_old), the proposed
 * next step size and the counters; a method table (RtOdeMethod) provides
 *     step(s, t_bound)  -- take ONE accepted step towards t_bound (never past it),
 *                          retrying with smaller h internally after rejections;
 *     dense(s, t, out)  -- evaluate the continuous extension of the last accepted
 *                          step anywhere in [t_old, t].
 * The driver (fmi2_runtime.c) checks event indicators after every accepted step and
 * locates roots on the dense output, then calls rt_ode_restart() at the event.
 *
 * Registry (method ids are those of v[OFF_SOLVER_METHOD]):
 *     RT_ODE_DOPRI5 = 1  explicit Dormand-Prince 5(4), FSAL, PI step control,
 *                        4th-order continuous extension          (rt_dopri5.c)
 *     RT_ODE_RODAS4 = 2  Rosenbrock RODAS4 (Hairer-Wanner), L-stable, stiffly
 *                        accurate, embedded 3rd-order error estimate, 3rd-order
 *                        dense output, one LU per step               (rt_rodas4.c)
 *     RT_ODE_AUTO   = 0  resolves to RODAS4 (see rt_ode_method()).
 *
 * Guarantees every method gives (the driver relies on them):
 *   G1  After step() returns RT_ODE_OK, the LAST call of f was f(t, x) at the new
 *       accepted point (both methods need that value for their next step anyway), so
 *       whatever side effect f has on the caller's data (the FMU's v[] array) is
 *       consistent with the accepted point.
 *   G2  A call of f or jac returning > 0, or producing NaN/Inf, never aborts the
 *       integration: the step is rejected and h is reduced (x 0.25).  Only when h
 *       falls below hmin = 1e-14*max(1,|t|) (or h_min_user) does step() fail with
 *       RT_ODE_HMIN and a message in s->msg.  A callback returning < 0 other than
 *       "Jacobian not available" (-1 from jac) is propagated as RT_ODE_ABORT with the
 *       code in s->abort_code (used for terminate()).
 *   G3  t never exceeds t_bound; the step that reaches t_bound ends exactly on it.
 *   G4  No allocation inside step(); all work arrays are made by rt_ode_new().
 *   G5  The accepted state is never modified by a rejected attempt: on failure the
 *       object still holds the last accepted (t, x).
 */
#ifndef WEARCOSIM_RT_ODE_H
#define WEARCOSIM_RT_ODE_H

#include <stddef.h>

/* Internal symbols get hidden visibility (GCC/Clang, ELF and Mach-O): only the fmi2*
 * functions are exported, so several FMUs loaded into one process (also with
 * RTLD_GLOBAL) can never bind each other's mdl_* / rt_* functions. */
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define WEARCOSIM_VIS_PUSHED_RT_ODE_H
#endif

/* f(t, x) -> dx.  0 = ok, > 0 = cannot evaluate here (reject step), < 0 = abort */
typedef int (*rt_rhs_fn)(void *user, double t, const double *x, double *dx);
/* J = df/dx at (t, x), dense column-major n*n; fx = f(t, x) is supplied (may be used
 * by the callee).  0 = ok, -1 = not available (use finite differences), > 0 = reject,
 * other < 0 = abort. */
typedef int (*rt_jac_fn)(void *user, double t, const double *x, const double *fx,
                         double *J);

enum { RT_ODE_AUTO = 0, RT_ODE_DOPRI5 = 1, RT_ODE_RODAS4 = 2, RT_ODE_NMETHODS = 3 };

/* step() results */
enum {
    RT_ODE_OK = 0,
    RT_ODE_HMIN = 1,     /* step size underflow (repeated rejection / NaN / singular) */
    RT_ODE_ABORT = 2     /* a callback returned a negative code (s->abort_code)       */
};

typedef struct RtOde RtOde;

typedef struct RtOdeMethod {
    const char *name;
    int id;
    int order;             /* order of the propagated solution */
    int err_order;         /* order of the embedded error estimator (q in h ~ err^(-1/(q+1))) */
    size_t nwork;          /* doubles of work space needed, as multiple of n (+ n*n if usejac) */
    int usejac;            /* needs an n*n matrix, an LU copy and pivots */
    int (*step)(RtOde *s, double t_bound);
    void (*dense)(const RtOde *s, double t, double *out);
} RtOdeMethod;

struct RtOde {
    const RtOdeMethod *method;
    int n;
    rt_rhs_fn f;
    rt_jac_fn jac;          /* may be NULL: finite differences */
    void *user;

    /* settings (may be changed between steps) */
    double rtol, atol;      /* weight_i = atol*scale_i + rtol*max(|x0_i|,|x1_i|) */
    const double *atol_scale; /* n nominal magnitudes (> 0) scaling atol; NULL = all 1 */
    double hmax;            /* <= 0: unlimited */
    double h_min_user;      /* 0: use 1e-14*max(1,|t|) */

    /* current and previous accepted point */
    double t, t_old;
    double *x, *x_old;
    double *fx;             /* f(t, x) when fsal_valid */
    int fsal_valid;
    int jac_valid;          /* s->J (and df/dt) belong to (t, x) */
    double h;               /* proposed size of the next step (0: choose at start) */
    double h_last;          /* size of the last accepted step */
    double err_old;         /* controller history */
    int first_step;         /* no controller history */
    int last_rejected;

    /* statistics (cumulative; reset by rt_ode_reset_stats) */
    long nfev, njev, nstep, naccept, nreject, nlu;

    int abort_code;
    char msg[256];

    /* memory */
    void *(*mem_calloc)(size_t, size_t);
    void (*mem_free)(void *);
    double *work;           /* method work space (nwork*n doubles, + matrices) */
    double *J, *LU;         /* usejac only */
    int *piv;
};

/* Method table for id (0..2).  RT_ODE_AUTO resolves to RODAS4: the main use of the
 * exporter is stiff contact/wear models, where an explicit method either needs
 * millions of steps or fails; on non-stiff problems RODAS4 costs ~(6+n+1) f-calls
 * per step instead of 6, which is affordable for the small n of these models.
 * Returns NULL for an unknown id. */
const RtOdeMethod *rt_ode_method(int id);

/* Create a solver for n states (n >= 1) with the given allocator pair (NULL: use
 * calloc/free).  Returns NULL if out of memory or arguments invalid. */
RtOde *rt_ode_new(const RtOdeMethod *m, int n, rt_rhs_fn f, rt_jac_fn jac, void *user,
                  void *(*mem_calloc)(size_t, size_t), void (*mem_free)(void *));
void rt_ode_free(RtOde *s);

/* (Re)start at (t, x): forget FSAL value and step-size history.  h_hint > 0 proposes
 * the first step (still checked by the controller), 0 = automatic initial step. */
void rt_ode_restart(RtOde *s, double t, const double *x, double h_hint);

/* One accepted step towards t_bound (see guarantees above). */
int rt_ode_step(RtOde *s, double t_bound);

/* Dense output of the last accepted step, t in [t_old, t] (clamped). */
void rt_ode_dense(const RtOde *s, double t, double *out);

void rt_ode_reset_stats(RtOde *s);

/* ---- helpers shared by the methods (rt_ode.c) ---- */
double rt_ode_hmin(const RtOde *s, double t);
/* weighted RMS norm of e with weights atol*scale_i + rtol*max(|a_i|,|b_i|) */
double rt_ode_err_norm(const RtOde *s, const double *e, const double *a, const double *b);
int rt_ode_all_finite(int n, const double *x);
/* evaluate f, count it, map NaN/Inf to "reject" (returns 1) */
int rt_ode_call_f(RtOde *s, double t, const double *x, double *dx);
/* initial step size (Hairer-Norsett-Wanner heuristic), needs s->fx = f(t, x) */
double rt_ode_initial_h(RtOde *s, double t_bound, double *tmp1, double *tmp2);
/* Jacobian at (t, x) with fx = f(t, x) into s->J: user callback or forward
 * differences (tmp1, tmp2: n doubles).  0 ok, > 0 reject, < 0 abort. */
int rt_ode_jacobian(RtOde *s, double t, const double *x, const double *fx,
                    double *tmp1, double *tmp2);

/* limit h by hmax and the remaining span; *last = 1 if the step ends on t_bound.
 * A step that would leave less than hmin before t_bound is stretched to it. */
double rt_ode_clamp_h(const RtOde *s, double h, double t_bound, int *last);
/* make sure s->fx = f(t, x); 0 ok, otherwise a step() result code (msg set) */
int rt_ode_ensure_fsal(RtOde *s);
/* after a rejection: shrink to h_new; returns RT_ODE_HMIN (msg set) if below hmin */
int rt_ode_reject(RtOde *s, double h_new, const char *why);

extern const RtOdeMethod rt_ode_dopri5;
extern const RtOdeMethod rt_ode_rodas4;

#ifdef WEARCOSIM_VIS_PUSHED_RT_ODE_H
#pragma GCC visibility pop
#undef WEARCOSIM_VIS_PUSHED_RT_ODE_H
#endif

#endif
