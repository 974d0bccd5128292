/* Hand-written test model for the runtime unit tests (fmu/runtime/tests only). */
#include <math.h>
#include "model_api.h"
#include "config.h"
#define INF INFINITY

const MdlVar mdl_var[NV] = {
    {"x", MT_REAL, MK_STATE, -INF, INF},                   /* 0 */
    {"der(x)", MT_REAL, MK_DERIV, -INF, INF},              /* 1 */
    {"cc", MT_REAL, MK_PARAM_TUNABLE, -INF, INF},          /* 2 */
    {"bad", MT_BOOLEAN, MK_PARAM_TUNABLE, 0, 1},           /* 3 */
    {"fdNl", MT_BOOLEAN, MK_PARAM_TUNABLE, 0, 1},          /* 4 */
    {"solver.method", MT_INTEGER, MK_PARAM_TUNABLE, 0, 3}, /* 5 */
    {"solver.rtol", MT_REAL, MK_PARAM_TUNABLE, 0, 1},      /* 6 */
    {"solver.atol", MT_REAL, MK_PARAM_TUNABLE, 0, INF},    /* 7 */
    {"solver.hmax", MT_REAL, MK_PARAM_TUNABLE, 0, INF},    /* 8 */
    {"resNorm", MT_REAL, MK_COMPUTED, -INF, INF},          /* 9 */
    {"w1", MT_REAL, MK_COMPUTED, -INF, INF},  /* 10: Newton unknowns, exposed for the tests */
    {"w2", MT_REAL, MK_COMPUTED, -INF, INF},  /* 11 (internal in generated models) */
    {"solver.maxSteps", MT_INTEGER, MK_PARAM_TUNABLE, 1, 2147483647.0}, /* 12 */
    {"solver.maxStepTime", MT_REAL, MK_PARAM_TUNABLE, 0, INF}, /* 13 */
};

const double mdl_x_nominal[N_X > 0 ? N_X : 1] = {1.0};

void mdl_set_start(double *v)
{
    int i;
    for (i = 0; i < NV; i++) v[i] = 0.0;
    v[12] = 1e6;   /* solver.maxSteps */
    v[0] = 3.0; v[2] = 0.1;
}
int mdl_calc_params(double *v, RtCtx *ctx) { (void)v; (void)ctx; return 0; }

int mdl_nl_res(const double *v, double t, double *r)
{
    const double w1 = v[10], w2 = v[11];
    (void)t;
    r[0] = w1 * w1 * w1 + w1 + w2 - v[0];
    r[1] = v[3] != 0.0 ? w2 * w2 + 1.0 : w2 - 0.5 * sin(w1) - v[2];
    return 0;
}
int mdl_nl_jac(const double *v, double t, double *J)
{
    const double w1 = v[10], w2 = v[11];
    (void)t;
    if (v[4] != 0.0) return -1;
    J[0] = 3 * w1 * w1 + 1;                        /* dr0/dw1 */
    J[1] = v[3] != 0.0 ? 0.0 : -0.5 * cos(w1);     /* dr1/dw1 */
    J[2] = 1.0;                                    /* dr0/dw2 */
    J[3] = v[3] != 0.0 ? 2 * w2 : 1.0;             /* dr1/dw2 */
    return 0;
}
int mdl_eval(double *v, double t, RtCtx *ctx)
{
    double r[2];
    if (rt_newton(ctx, v, t) != 0) return 1;
    mdl_nl_res(v, t, r);
    v[9] = sqrt(r[0] * r[0] + r[1] * r[1]);
    v[1] = -v[10];
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
void mdl_zc(const double *v, double t, double *z) { (void)v; (void)t; (void)z; }
int mdl_event(double *v, double t, int initial, RtCtx *ctx, int *flags)
{
    (void)initial;
    *flags = 0;
    return mdl_eval(v, t, ctx);
}
int mdl_jac(double *v, double t, double *J, RtCtx *ctx)
{
    (void)v; (void)t; (void)J; (void)ctx;
    return -1;
}
