/* Hand-written test model for the runtime unit tests (fmu/runtime/tests only):
 * bouncing ball with hysteresis event indicators, reinit, a discrete counter and a
 * terminate() when-clause.  Mirrors what the code generator emits (model_api.h). */
#include <math.h>
#include "model_api.h"
#include "config.h"

#define HYS 1e-10
#define INF INFINITY

const MdlVar mdl_var[NV] = {
    {"h", MT_REAL, MK_STATE, -INF, INF},                 /* 0 */
    {"v", MT_REAL, MK_STATE, -INF, INF},                 /* 1 */
    {"der(h)", MT_REAL, MK_DERIV, -INF, INF},            /* 2 */
    {"der(v)", MT_REAL, MK_DERIV, -INF, INF},            /* 3 */
    {"g", MT_REAL, MK_PARAM_FIXED, 0.0, INF},            /* 4 */
    {"e", MT_REAL, MK_PARAM_TUNABLE, 0.0, 1.0},          /* 5 */
    {"tTerm", MT_REAL, MK_PARAM_TUNABLE, -INF, INF},     /* 6 */
    {"solver.method", MT_INTEGER, MK_PARAM_TUNABLE, 0, 3}, /* 7 */
    {"solver.rtol", MT_REAL, MK_PARAM_TUNABLE, 0, 1},    /* 8 */
    {"solver.atol", MT_REAL, MK_PARAM_TUNABLE, 0, INF},  /* 9 */
    {"solver.hmax", MT_REAL, MK_PARAM_TUNABLE, 0, INF},  /* 10 */
    {"floor", MT_REAL, MK_INPUT, -10, 10},               /* 11 */
    {"hAbove", MT_REAL, MK_COMPUTED, -INF, INF},         /* 12 */
    {"count", MT_INTEGER, MK_DISCRETE, 0, INF},          /* 13 */
    {"tImpact", MT_REAL, MK_DISCRETE, -INF, INF},        /* 14 */
    {0, MT_INTEGER, MK_INTERNAL, -INF, INF},             /* 15 pre(count) */
    {0, MT_REAL, MK_INTERNAL, -INF, INF},                /* 16 pre(tImpact) */
    {0, MT_BOOLEAN, MK_INTERNAL, -INF, INF},             /* 17 m0: h < floor */
    {0, MT_BOOLEAN, MK_INTERNAL, -INF, INF},             /* 18 m1: time >= tTerm */
    {0, MT_BOOLEAN, MK_INTERNAL, -INF, INF},             /* 19 */
    {0, MT_BOOLEAN, MK_INTERNAL, -INF, INF},             /* 20 */
    {0, MT_BOOLEAN, MK_INTERNAL, -INF, INF},             /* 21 c0 */
    {0, MT_BOOLEAN, MK_INTERNAL, -INF, INF},             /* 22 c1 */
    {0, MT_BOOLEAN, MK_INTERNAL, -INF, INF},             /* 23 */
    {0, MT_BOOLEAN, MK_INTERNAL, -INF, INF},             /* 24 */
    {"solver.maxSteps", MT_INTEGER, MK_PARAM_TUNABLE, 1, 2147483647.0}, /* 25 */
    {"solver.maxStepTime", MT_REAL, MK_PARAM_TUNABLE, 0, INF}, /* 26 */
};

const double mdl_x_nominal[N_X > 0 ? N_X : 1] = {1.0, 10.0};

void mdl_set_start(double *v)
{
    int i;
    for (i = 0; i < NV; i++) v[i] = 0.0;
    v[25] = 1e6;   /* solver.maxSteps */
    v[0] = 1.0;      /* h */
    v[4] = 9.81;     /* g */
    v[5] = 0.7;      /* e */
    v[6] = 1e9;      /* tTerm */
    v[7] = 0;        /* auto */
    v[8] = 0;        /* rtol: default */
}

int mdl_calc_params(double *v, RtCtx *ctx) { (void)v; (void)ctx; return 0; }

int mdl_eval(double *v, double t, RtCtx *ctx)
{
    (void)t; (void)ctx;
    v[2] = v[1];
    v[3] = -v[4];
    v[12] = v[0] - v[11];
    return 0;
}

/* the solver's stages: this small model computes its outputs anyway */
int mdl_deriv(double *v, double t, double *z, RtCtx *ctx)
{
    int rc = mdl_eval(v, t, ctx);
    if (z) mdl_zc(v, t, z);
    return rc;
}

int mdl_initialize(double *v, double t, RtCtx *ctx) { return mdl_eval(v, t, ctx); }

void mdl_zc(const double *v, double t, double *z)
{
    z[0] = (v[11] - v[0]) + (v[17] != 0.0 ? HYS : 0.0);
    z[1] = (t - v[6]) + (v[18] != 0.0 ? HYS : 0.0);
}

int mdl_event(double *v, double t, int initial, RtCtx *ctx, int *flags)
{
    double z[2];
    int i, changed = 0;
    (void)initial;
    *flags = 0;
    mdl_zc(v, t, z);
    v[17] = z[0] > 0 ? 1.0 : 0.0;
    v[18] = z[1] > 0 ? 1.0 : 0.0;
    v[21] = v[17];
    v[22] = v[18];
    if (v[21] != 0.0 && v[23] == 0.0) {      /* when h < floor */
        v[13] = v[15] + 1;
        v[14] = t;
        v[1] = -v[5] * v[1];
        *flags |= MDL_EV_REINIT;
        rt_log(ctx, 0, "logEvents", "bball: impact %g at t=%.17g", v[13], t);
    }
    if (v[22] != 0.0 && v[24] == 0.0) *flags |= MDL_EV_TERMINATE;
    for (i = 0; i < 2; i++) if (v[13 + i] != v[15 + i]) changed = 1;
    for (i = 0; i < 2; i++) if (v[17 + i] != v[19 + i]) changed = 1;
    for (i = 0; i < 2; i++) if (v[21 + i] != v[23 + i]) changed = 1;
    if (changed) *flags |= MDL_EV_CHANGED;
    return mdl_eval(v, t, ctx);
}

int mdl_jac(double *v, double t, double *J, RtCtx *ctx)
{
    (void)v; (void)t; (void)ctx;
    J[0] = 0; J[1] = 0; J[2] = 1; J[3] = 0;
    return 0;
}
