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
 * The driver (rt_cs.c) checks event indicators after every accepted step and
 * locates roots on the dense output, then calls rt_ode_restart() at the event.
 *
 * Registry (method ids are those of v[OFF_SOLVER_METHOD]):
 *     RT_ODE_DOPRI5 = 1  explicit Dormand-Prince 5(4), FSAL, PI step control,
 *                        4th-order continuous extension          (rt_dopri5.c)
 *     RT_ODE_RODAS4 = 2  Rosenbrock RODAS4 (Hairer-Wanner), L-stable, stiffly
 *                        accurate, embedded 3rd-order error estimate, 3rd-order
 *                        dense output, one LU per step               (rt_rodas4.c)
 *     RT_ODE_ADAMS  = 3  Adams-Bashforth-Moulton, variable order 1-12 and variable
 *                        step in Nordsieck form, PECE (two evaluations per step), error
 *                        from the corrector-predictor difference, LSODE-style order and
 *                        step selection, dense output = the Nordsieck polynomial; its
 *                        history is saved with the FMU state (rt_ode_hist_save)
 *                                                                   (rt_adams.c)
 *     RT_ODE_AUTO   = 0  automatic switching: Adams or DOPRI5 by their measured cost,
 *                        RODAS4 where the problem is stiff (LSODA-style, below) (rt_auto.c)
 *
 * The auto method (RT_ODE_AUTO), explicit side: Adams and DOPRI5.  It starts with Adams,
 * run at ADAMS_TOL = 1e-3 of rtol and atol.  Adams' global error is about the tolerance
 * asked, DOPRI5's usually far below it (its error estimate belongs to the 4th-order
 * solution, it propagates the 5th): on the lubricated hybrid mechanism at rtol 1e-9,
 * DOPRI5 7.6e-9 of the orbit's range, Adams 2.9e-4 at 1e-9, 3.9e-6 at 1e-11 and 8.8e-8 at
 * 1e-12; auto at 1e-9 with Adams at 1e-12: 7.5e-9.  So auto is as accurate as DOPRI5
 * alone, and the choice between the two is one of cost only.
 *   Measured cost (the probes): after PROBE_FIRST accepted explicit steps, and then after
 *     PROBE_EVERY << pr_level of them (400, 800, ... 12800), the other explicit method
 *     integrates ahead from the current point, speculatively, inside one step() call: it
 *     starts as it would after a switch (Adams warm from DOPRI5's last step, below), takes
 *     PROBE_WARM_* steps to settle and PROBE_STEPS_* more, whose right-hand-side
 *     evaluations and span [pr_t0, pr_tend] are kept (it may look past t_bound, up to
 *     t_probe, the FMU's stop time); the solver is then put back bit for bit (pr_save) and
 *     takes its own step.  As the stepping method goes on, its evaluations inside the span
 *     are summed; when it has passed pr_tend, the probed method takes over if it needed
 *     less than PROBE_SURE = 0.5 of them, or less than PROBE_GAIN = 0.85 on two probes in a
 *     row (pr_vote); otherwise pr_level rises.  An accuracy-limited Adams step's
 *     evaluations (h rho < ADAMS_CALM) count ADAMS_EQUAL = 0.5 in both sums: at ADAMS_TOL
 *     Adams is ~100x more accurate than DOPRI5 at the tolerance there, and at equal accuracy
 *     would need about half (rt_auto.c, probe_cost).  An event (restart) inside the span
 *     compares the part done, the probed method's evaluations taken as uniform over its span;
 *     a part under a quarter of it is dropped and pr_level rises as well; a probe whose
 *     step lies beyond a state event (probe_cut: the CS driver's indicators of the last
 *     evaluation against the accepted point's) stops there, with the same outcome.  No
 *     probe while a method is stability-limited (h rho >= PROBE_CALM = 0.5) or Adams is
 *     still raising its order after a start.  Both costs belong to the same stretch of the
 *     trajectory, which matters: the cheaper method changes with the phase of the motion
 *     (hybrid mechanism, rtol 1e-6: Adams 1.5-2.6x Dormand-Prince's evaluations over the
 *     first 0.047 s, 0.2-0.5x after; slider-crank similar), and a comparison of
 *     successive windows (tried first) compared phases, not methods.  Evaluations, not the
 *     cost model's instruction counts, so two builds of the same equations (a model and
 *     its composition from component FMUs) decide alike.  The probes' work counts in the
 *     statistics.
 *   Warm start: a switch from DOPRI5 to Adams (and an Adams probe) starts Adams at order 4
 *     from the Taylor coefficients of DOPRI5's continuous extension at the end of its last
 *     step (rt_dopri5_taylor, rt_adams_warm), with a step ADAMS_WARM_H = 0.3 of DOPRI5's,
 *     instead of climbing from order 2 with small steps; after a restart (event) Adams
 *     starts afresh.
 *   Stability (LSODA's idea, with DOPRI5 in BDF's place): a PECE step's two evaluations
 *     differ by h J (y - y_pred) = h J l_0 D, so h rho ~ ||D' - D|| / (l_0 ||D||).  The
 *     stability boundary of the PECE scheme on the negative real axis is 2.0 at order 2
 *     and falls to 0.12 at order 12 (rt_adams.c); h rho above ADAMS_STIFF = 1.8 (0.9 of 2)
 *     on 15 << backoff accepted steps (without 6 consecutive ones below in between) means
 *     no order of Adams is stable with this step, and DOPRI5 takes over (dp_back = 1); its
 *     own test below goes on to RODAS4 if the problem is stiff, and if it finds the problem
 *     not stiff on 15 consecutive steps, Adams takes over again and backoff rises (a
 *     stability-limited Adams is still cheaper than DOPRI5: 2 evaluations per step of
 *     h rho <= 2 against 6 per 3.3 -- the test is a way to RODAS4, not to DOPRI5).  The
 *     relative test (0.9 of the current order's boundary) fired in every contact of the
 *     dry hybrid mechanism and cost it 20 % more evaluations than Adams alone.
 *   Measured (CS FMUs, 2000 points, orbit error against Radau at rtol 1e-11, evaluations):
 *     see docs/fmus.md.
 *
 * The auto method, stiff side.  Like LSODA (Petzold 1983, scipy's method='LSODA') it
 * starts with the cheap explicit method and switches to the implicit one only where the
 * problem is stiff, i.e. where the step size of the explicit method is limited by
 * stability instead of accuracy (contact models are often merely "accuracy-stiff": the
 * fast contact vibration must be resolved anyway, and DOPRI5 is then ~10x cheaper than
 * RODAS4, which needs a Jacobian and an LU per step).
 *   DOPRI5 -> RODAS4: the stiffness test of Hairer's DOPRI5 code (Hairer/Norsett/Wanner,
 *     Solving ODEs I, Sect. IV.2 / II.10): after every accepted step
 *         h*|lambda| ~ h * ||k7 - k6|| / ||x_new - Y6||
 *     (k6 = f(t+h, Y6), k7 = f(t+h, x_new), stages the step has anyway; a Rayleigh-
 *     quotient estimate of the dominant eigenvalue along the last stage difference).
 *     If it exceeds 3.25 (DOPRI5's stability boundary on the negative real axis is
 *     ~3.3) on 15 accepted steps without 6 consecutive non-stiff ones in between, the
 *     problem is declared stiff and the next step is taken with RODAS4.  Where kappa
 *     (below) exceeds 2 the count is 15 kappa/2 (back-off included, at most 960): a look
 *     with RODAS4 lasts at least 15 of its steps, each kappa DOPRI5 steps' worth, so the
 *     evidence asked for grows with what the look costs (61-state rotor, kappa ~ 8: four
 *     looks at rub phases that RODAS4 found not stiff took 9 % of its run).
 *   RODAS4 -> DOPRI5: after every accepted RODAS4 step the spectral radius rho of the
 *     Jacobian J the step used (s->J, no extra evaluation) is estimated by 12 power
 *     iterations from a fixed start vector (geometric mean of the growth over the last
 *     8, which also works for complex pairs); if h_accepted*rho < max(2, 2*kappa) on 15
 *     CONSECUTIVE accepted steps, the next step is taken with DOPRI5.  h*rho < 2: DOPRI5
 *     would be stable with this step, with margin.  kappa = cost of a RODAS4 step / cost
 *     of a DOPRI5 step (below): a stiff problem is still cheaper with DOPRI5 as long as
 *     RODAS4's step is less than kappa times DOPRI5's stable step (~2/rho).  (||J||_inf
 *     is not used: for mechanical systems J = [0 I; -K/M -C/M] it is ~omega^2 while
 *     rho ~ omega.)
 *   Cost model (deterministic, no clocks, so runs and restored FMU states repeat bit for
 *     bit): one right-hand side costs cost_f, an analytic Jacobian cost_jac (units: the
 *     generated functions' instruction counts, MDL_COST_DERIV / MDL_COST_JAC of config.h;
 *     unknown = 0: cost_f = 20 n + 50, finite differences n cost_f); a DOPRI5 step is
 *     6 cost_f + 50 n, a RODAS4 step 7 cost_f + cost_jac + 2n^3/3 (LU) + 12 n^2 (solves)
 *     + 24 n^2 (power iteration).  Small mechanisms: kappa ~ 2; the 61-state rotor:
 *     kappa ~ 8 (the LU and the power iteration dominate), where DOPRI5 alone is faster.
 *   Back-off: every switch back from RODAS4, and every return of a stability-limited
 *     Adams from DOPRI5, doubles the number of stiff steps needed for the next switch
 *     (15, 30, ... up to 15*2^6), so a problem on the cost boundary does not alternate
 *     every 30 steps.  A RODAS4 step with h*rho above STIFF_SURE = 25 times max(2, 2 kappa)
 *     (RODAS4 ~15x cheaper than DOPRI5 there: not a cost boundary) clears the back-off:
 *     a model whose regimes differ in stiffness by orders of magnitude switches at each
 *     change.  (MSL OpAmps.Differentiator: an op-amp limited by noEvent alternates between
 *     saturation, lambda = -1/RC = -31, and its linear region, lambda = -(V0+1)/RC =
 *     -4.7e5; with the back-off grown to 15*2^6 DOPRI5 took ~1000 steps at its stability
 *     boundary after each saturation, and its error at the tolerance, amplified by V0 =
 *     15000, put the output 1.3e-3 of its range off.)
 *   Hysteresis: the thresholds differ (3.25 vs max(2, 2 kappa)) and both need >= 15
 *     steps, so a switch costs at least 15 steps of the other method; the step counters
 *     restart at a switch.
 *   At a switch the proposed step size is kept and the controller history is dropped
 *     (first_step = 1, err_old reset, jac_valid = 0); the new method's controller adapts
 *     h within a few steps (DOPRI5 rejects a too large h by its error test).
 *   Events (rt_ode_restart) keep the current sub-method and the counters: stiffness is
 *     a property of the model around the trajectory, not of the step-size history (a
 *     probe's pending span ends there, above).
 *   G1-G5 hold because every step is one complete step of one sub-method, taken after a
 *     probe (whose evaluations come before it, so the last call of f is still at the new
 *     point); the auto object keeps separate work areas for all three (s->wk[id],
 *     allocated at creation), so dense() of the last accepted step dispatches to the
 *     sub-method that took it (s->last_sub) and its coefficients are never overwritten by
 *     another method, a probe's included.
 *   State: beyond the common controller history, the current sub-method, the counters,
 *     the back-off and probe levels and dp_back are packed by rt_ode_auto_save()/
 *     rt_ode_auto_load() into one int (< 2^27, layout AUTO_CODE_* below), the steps to the
 *     next probe into a second one, for the FMU state (rt_state.c) of a solver that is
 *     not running (it restarts, which also ends a probe's span); the running solver's
 *     record (rt_ode_live_save) has all of it and a pending span, so "save, restore,
 *     continue" is bit-identical.  The stiffness estimates are recomputed from each step's
 *     own data (fixed power-iteration start), never carried over.
 *   Counters: nswitch counts switches, nprobe probes, s->sub is the current sub-method.
 *
 * Earlier versions (docs/fmus.md): auto as DOPRI5/RODAS4 only; Adams at the tolerance
 * (less accurate than DOPRI5, which the tests comparing equivalent models caught); Adams
 * at a tenth of it with shadow windows but without the stability test (Adams near its
 * limit on a stiffening problem; composed lubricated models 1e-5 apart at rtol 1e-9);
 * Adams at a hundredth (lubricated: 4e-6 at rtol 1e-9, against DOPRI5's 7.6e-9).
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

enum { RT_ODE_AUTO = 0, RT_ODE_DOPRI5 = 1, RT_ODE_RODAS4 = 2, RT_ODE_ADAMS = 3,
       RT_ODE_NMETHODS = 4 };
#define RT_ADAMS_QMAX 12     /* highest order of the Adams method (rt_adams.c)            */
#define RT_ADAMS_NWORK (2 * (RT_ADAMS_QMAX + 1) + 4)   /* its work space, multiples of n: two
                                Nordsieck buffers of QMAX+1 columns, D'_prev, D', y, f  */

/* switching thresholds of the auto method (rt_auto.c; also quoted in the runtime's log) */
#define STIFF_HLAM 3.25      /* DOPRI5: h*|lambda| above this = stability-limited step   */
#define STIFF_COUNT 15       /* ... on this many accepted steps -> switch to RODAS4       */
#define STIFF_FORGET 6       /* ... unless this many consecutive non-stiff ones intervene */
#define EASY_HRHO 2.0        /* RODAS4: h*rho(J) below this = DOPRI5 would be stable      */
#define EASY_COUNT 15        /* ... on this many consecutive accepted steps -> DOPRI5     */
#define STIFF_BACKOFF_MAX 6  /* switch to RODAS4 after STIFF_COUNT << backoff stiff steps  */
#define STIFF_SURE 25.0      /* RODAS4: h*rho(J) above this many times max(2, 2 kappa) (it is
                                >= ~15x cheaper than DOPRI5 here) clears the back-off       */
/* the auto method's Adams and its cost probes between DOPRI5 and Adams (rt_auto.c) */
#define ADAMS_TOL 0.001      /* auto runs Adams at this fraction of rtol and atol          */
#define ADAMS_STIFF 1.8      /* Adams: h*rho above this (0.9 of 2, the largest stability
                                boundary of its orders) = stability-limited at any order    */
#define ADAMS_WARM_H 0.3     /* Adams after DOPRI5: first step this fraction of DOPRI5's   */
#define PROBE_CALM 0.5       /* probes only where the last step's h*rho is below this       */
#define PROBE_FIRST 50       /* first probe after this many accepted explicit steps        */
#define PROBE_EVERY 400      /* then after PROBE_EVERY << pr_level of them                 */
#define PROBE_LEVEL_MAX 5    /* (probes at most 12800 steps apart, doubling while the method
                                stays: 1600 as before cost the slider-crank 8 probes, 4 % of
                                its evaluations, all keeping Adams; the cheaper method changes
                                with the phase of the motion, docs/fmus.md; a probe of
                                Dormand-Prince costs ~130 evaluations, 60 Adams steps: 100
                                steps apart, as before, the probes cost more than half of
                                Adams' own evaluations)                                     */
#define PROBE_WARM_ADAMS 12  /* a probe: this many steps of Adams to settle, then ...      */
#define PROBE_STEPS_ADAMS 30 /* ... this many measured (fewer where the probe's bound,    */
#define PROBE_STEPS_MIN 8    /*     t_probe or t_bound, comes first; at least this many)   */
#define PROBE_WARM_DOPRI5 1  /* same for DOPRI5                                            */
#define PROBE_STEPS_DOPRI5 15
#define PROBE_GAIN 0.85      /* switch when the probed method cost less than this fraction
                                twice in a row ...                                          */
#define PROBE_SURE 0.5       /* ... or less than this once                                 */
#define ADAMS_CALM 0.25      /* an Adams step with h*rho below this is accuracy-limited ...  */
#define ADAMS_EQUAL 0.5      /* ... and its evaluations count this fraction in a probe's
                                comparison: Adams at ADAMS_TOL of the tolerance is ~100x
                                more accurate than Dormand-Prince at it there, and at equal
                                accuracy it would need about half the evaluations           */
/* rt_ode_auto_save() code: RODAS4 | n_stiff | n_nonstiff | n_easy | backoff | DOPRI5 | pr_level |
   dp_back | pr_vote (Adams: neither RODAS4 nor DOPRI5) */
#define AUTO_CODE_STIFF_SHIFT 1      /* 10 bits (n_stiff < STIFF_COUNT << 6 = 960)         */
#define AUTO_CODE_NONSTIFF_SHIFT 11  /* 3 bits */
#define AUTO_CODE_EASY_SHIFT 14      /* 4 bits */
#define AUTO_CODE_BACKOFF_SHIFT 18   /* 3 bits */
#define AUTO_CODE_DOPRI5_SHIFT 21    /* 1 bit: the current sub-method is DOPRI5 (0 and 0: Adams) */
#define AUTO_CODE_LEVEL_SHIFT 22     /* 3 bits */
#define AUTO_CODE_BACK_SHIFT 25      /* 1 bit: dp_back */
#define AUTO_CODE_VOTE_SHIFT 26      /* 1 bit: pr_vote */
#define AUTO_CODE_LIMIT (1 << 27)

/* step() results */
enum {
    RT_ODE_OK = 0,
    RT_ODE_HMIN = 1,     /* step size underflow (repeated rejection / NaN / singular) */
    RT_ODE_ABORT = 2     /* a callback returned a negative code (s->abort_code)       */
};

typedef struct RtOde RtOde;

/* The length of the solvers' vector loops.  An FMU's build compiles the solvers for its one
   model and defines RT_ODE_FIXED_N to the number of states (package.compile_binary), so the
   compiler knows the trip count of every loop over the states and unrolls or vectorises it
   (loops of a few iterations, whose set-up costs as much as their body, in the mechanisms);
   rt_ode_new then refuses any other n.  Without it (the runtime's C tests) the loops take
   s->n. */
#if defined(RT_ODE_FIXED_N) && RT_ODE_FIXED_N > 0
#define RT_ODE_N(s) (RT_ODE_FIXED_N)
#else
#define RT_ODE_N(s) ((s)->n)
#endif

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
    double cost_f, cost_jac;/* auto method's cost model (<= 0: unknown, see above)    */
    double h_min_user;      /* 0: use 1e-14*max(1,|t|) */
    int adams_qfix;         /* Adams (order tests): keep order and step size, no decisions     */
    int f_checks_finite;    /* f itself returns > 0 for a NaN/Inf derivative (the FMU's does,
                               naming the variable): rt_ode_call_f does not check again */

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
    double *J, *LU;         /* usejac only (sparse: J = nnz values, no LU/piv) */
    int *piv;
    /* sparse Jacobian (rt_ode_new_sparse, when the banded LU pays, rt_linalg.h): J holds
       the sp_nnz structural nonzeros in compressed-column order of sp_colind/sp_row,
       filled by jacnz or by grouped finite differences (sp_ncolor column groups:
       columns of one group share no row); the iteration matrix lives in band */
    const int *sp_colind, *sp_row;
    int sp_nnz, sp_ncolor;
    int *sp_color;          /* group of each column */
    rt_jac_fn jacnz;        /* fills the nnz values; may be NULL: differences */
    struct RtBand *band;    /* NULL: dense matrices */
    double *wk[RT_ODE_NMETHODS];  /* work area of each sub-method (= work, except for
                                     the auto method, which keeps the two apart) */

    /* method actually stepping: == method, or for RT_ODE_AUTO the current sub-method
       (rt_ode_dopri5 or rt_ode_rodas4); last_sub took the last accepted step */
    const RtOdeMethod *sub, *last_sub;
    /* auto method (rt_auto.c) */
    double stiff_hlam;      /* DOPRI5: last estimate h*|lambda| of an accepted step (0: none) */
    int n_stiff;            /* DOPRI5 steps with h*|lambda| > 3.25 (Hairer's iasti)           */
    int n_nonstiff;         /* consecutive DOPRI5 steps below it (nonsti; 6 -> n_stiff = 0)   */
    int n_easy;             /* consecutive RODAS4 steps with h*rho(J) < max(2, 2 kappa)       */
    int backoff;            /* switches back to DOPRI5 so far (<= STIFF_BACKOFF_MAX)          */
    long nswitch;           /* sub-method switches (statistics)                               */
    const char *sw_why;     /* why the last switch happened (for the log)                     */
    int dp_back;            /* DOPRI5 stepping because Adams was stability-limited: back to
                               Adams when the step is well inside Adams' stability region      */
    /* auto method: cost probes between DOPRI5 and Adams (rt_auto.c) */
    int pr_count;           /* accepted explicit steps before the next probe (<= 0: probe now) */
    int pr_level;           /* probes that kept the method so far (<= PROBE_LEVEL_MAX)         */
    int pr_cand;            /* pending window: id of the method probed over it (0 = none)     */
    int pr_vote;            /* the last probe found the other method cheaper (a second one
                               in a row switches)                                              */
    double pr_t0, pr_tend;  /* ... its span, from the probe's start to where it ended          */
    double pr_cost_cand;    /* ... what the probed method cost over it                        */
    double pr_cost_main;    /* ... what the stepping method has cost since pr_t0               */
    double *pr_save;        /* snapshot taken before a probe: the RtOde, x, x_old, fx          */
    double t_probe;         /* how far a probe may integrate, beyond t_bound (the FMU's stop
                               time; <= t_bound: to t_bound only, the default)                */
    int (*probe_cut)(void *user);  /* nonzero: the last call of f lies beyond a state event
                               (the driver's indicators changed sign since the accepted
                               point); a probe stops there.  NULL: the probes never know */
    long nprobe;            /* probes taken (statistics)                                      */
    /* Adams method (rt_adams.c); with the Nordsieck array in wk[RT_ODE_ADAMS] this is its
       history (rt_ode_hist_save/load) */
    int aq;                 /* order of the next step; 0 = start (set by rt_ode_restart)      */
    int aqd;                /* order of the last accepted step (degree of the dense output)   */
    int await;              /* accepted steps before the next step-size/order decision        */
    int aramp;              /* starting: order raised every second step                       */
    int acur;               /* which of the two Nordsieck buffers holds the accepted array    */
    double ahz;             /* step size the accepted array is scaled to                      */
    double aerrprev;        /* error estimate of the last accepted step (0: none)             */
    int alq;                /* order of the coefficients below (cache, 0 = none)              */
    double al[RT_ADAMS_QMAX + 1];  /* corrector polynomial l_0..l_q                           */
    double aerr[3];         /* error constants of orders q-1, q, q+1                          */
    double atab[RT_ADAMS_QMAX][RT_ADAMS_QMAX + 4];  /* al and aerr of each order q (row q-1)
                               once computed: bit q of atab_have                               */
    unsigned atab_have;
};

/* the probe's snapshot (pr_save): the RtOde in this many doubles, then x, x_old, fx, then
   5 n doubles of scratch (rt_dopri5_taylor) */
#define RT_ODE_PROBE_HDR ((sizeof(RtOde) + sizeof(double) - 1) / sizeof(double))

/* Method table for id (0..3): rt_ode_auto, rt_ode_dopri5, rt_ode_rodas4, rt_ode_adams.
 * Returns NULL for an unknown id. */
const RtOdeMethod *rt_ode_method(int id);

/* Create a solver for n states (n >= 1) with the given allocator pair (NULL: use
 * calloc/free).  Returns NULL if out of memory or arguments invalid. */
RtOde *rt_ode_new(const RtOdeMethod *m, int n, rt_rhs_fn f, rt_jac_fn jac, void *user,
                  void *(*mem_calloc)(size_t, size_t), void (*mem_free)(void *));
/* Same, with the sparsity pattern of df/dx (colind[n+1], row[nnz], CCS; kept by
 * reference) and a callback jacnz filling its nnz values: if the method needs a Jacobian
 * and the banded LU pays for this pattern (rt_band_new), J is kept sparse and the
 * iteration matrix banded (memory O(nnz + n*band), no n*n); otherwise exactly
 * rt_ode_new(m, n, f, jac, ...). */
RtOde *rt_ode_new_sparse(const RtOdeMethod *m, int n, rt_rhs_fn f, rt_jac_fn jac,
                         rt_jac_fn jacnz, const int *colind, const int *row, void *user,
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

/* auto method: back to the initial sub-method (DOPRI5) with cleared counters (used by
 * fmi2Reset; a no-op for the other methods) */
void rt_ode_auto_reset(RtOde *s);
/* auto method: pack/unpack what it keeps beyond a restart (sub-method, counters, back-off,
 * probe level) into a non-negative int < AUTO_CODE_LIMIT, 0 = the initial state, and the
 * steps to the next probe into *count; load of a code or count out of range = reset.  Both
 * are no-ops (save gives 0, *count = 0) for the other methods. */
int rt_ode_auto_save(const RtOde *s, int *count);
void rt_ode_auto_load(RtOde *s, int code, int count);
/* Multistep history (Adams: order, wait counter, Nordsieck array, ...), the history alone
 * where rt_ode_live_save keeps the whole solver (the FMU state uses that; the runtime's C
 * tests set up and move Nordsieck histories with these): rt_ode_hist_len(n) doubles.  save: the history expressed at time t (in [t_old, t] of
 * the last step; all zeros for the one-step methods or before the first step); load:
 * after rt_ode_restart(s, t, x, h) at the same t, continues exactly where save left off
 * (returns 1; 0 = nothing loaded, an invalid or empty record, or not the Adams method). */
#define RT_ODE_HIST_HDR 8    /* record: 8 doubles (1 = valid, q, order of the last step, wait,
                                h of the array, start flag, last error, 0), then 13 n doubles
                                (Nordsieck array) and n (D'_prev) */
size_t rt_ode_hist_len(int n);
void rt_ode_hist_save(const RtOde *s, double t, double *buf);
int rt_ode_hist_load(RtOde *s, const double *buf);
/* The whole solver between two steps, for an FMU state taken while a step is in progress
 * (a Co-Simulation step reaching past the communication point): rt_ode_live_len(n)
 * doubles.  save: the accepted point and the previous one (t, x, t_old, x_old), f there,
 * the next step size and the controller history, the auto and Adams state and the
 * method's work space (its dense output: the last step's stage or Nordsieck values, the
 * auto method's power-iteration vector); load: into a solver of the same method and n,
 * after which it continues bit for bit as the saved one would have (returns 1; 0 = another
 * method or size, or an invalid record: nothing changed).  Not saved: the statistics
 * (they count work done) and the Jacobian (never kept between accepted steps). */
#define RT_ODE_LIVE_HDR 36
size_t rt_ode_live_len(int n);
void rt_ode_live_save(const RtOde *s, double *buf);
int rt_ode_live_load(RtOde *s, const double *buf);
/* auto method: a restart at t ends a probe's span early: compare over the part done
   (rt_auto.c; called by rt_ode_restart) */
void rt_ode_auto_span_cut(RtOde *s, double t);
/* auto method: DOPRI5's continuous extension of its last step as Taylor coefficients at
   s->t in powers of (t' - t)/h_last (5 columns of n: c_0 = x, c_1 = h f, ...), and Adams
   started from such a polynomial at (s->t, s->x) instead of afresh (rt_adams.c: order q
   <= 4, step h, columns c_2..c_q rescaled from hsrc; needs s->fx = f(t, x)) */
void rt_dopri5_taylor(const RtOde *s, double *c);
void rt_adams_warm(RtOde *s, const double *c, int q, double hsrc, double h);
/* auto method: kappa = cost of a RODAS4 step / cost of a DOPRI5 step (cost model above) */
double rt_ode_auto_kappa(const RtOde *s);
/* spectral radius estimate of the n*n column-major J (power iteration, v, w: n doubles) */
double rt_ode_spectral_radius(int n, const double *J, double *v, double *w);
/* same for a sparse J (nnz values in CCS order of colind/row): O(nnz) per iteration */
double rt_ode_spectral_radius_sparse(int n, const int *colind, const int *row,
                                     const double *J, double *v, double *w);

/* ---- helpers shared by the methods (rt_ode.c) ---- */
double rt_ode_hmin(const RtOde *s, double t);
/* weighted RMS norm of e with weights atol*scale_i + rtol*max(|a_i|,|b_i|) */
double rt_ode_err_norm(const RtOde *s, const double *e, const double *a, const double *b);
int rt_ode_all_finite(int n, const double *x);
/* evaluate f, count it, map NaN/Inf to "reject" (returns 1) */
int rt_ode_call_f(RtOde *s, double t, const double *x, double *dx);
/* initial step size (Hairer-Norsett-Wanner heuristic), needs s->fx = f(t, x) */
double rt_ode_initial_h(RtOde *s, double t_bound, double *tmp1, double *tmp2);
/* the heuristic's first trial: h0 = 0.01 ||x|| / ||f|| (1e-6 if either is below 1e-5),
   clamped as below; tmp1 = x + h0 f, and if f can be evaluated there (*ok = 1)
   tmp2 = f(t + h0, tmp1) - f (~ h0 x'').  Returns h0.  Needs s->fx. */
double rt_ode_trial_h0(RtOde *s, double t_bound, double *tmp1, double *tmp2, int *ok);
/* a starting step h limited to the span to t_bound and to s->hmax (if set) */
double rt_ode_clamp_start(const RtOde *s, double t_bound, double h);
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
/* a callback returned < 0 (s->abort_code) near t: the message in s->msg; RT_ODE_ABORT */
int rt_ode_abort(RtOde *s, double t);

extern const RtOdeMethod rt_ode_dopri5;
extern const RtOdeMethod rt_ode_rodas4;
extern const RtOdeMethod rt_ode_auto;
extern const RtOdeMethod rt_ode_adams;

#ifdef WEARCOSIM_VIS_PUSHED_RT_ODE_H
#pragma GCC visibility pop
#undef WEARCOSIM_VIS_PUSHED_RT_ODE_H
#endif

#endif
