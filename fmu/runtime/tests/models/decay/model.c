/* Hand-written test model for the runtime unit tests (fmu/runtime/tests only). */
#include <math.h>
#include "model_api.h"
#include "config.h"
#define INF INFINITY

const MdlVar mdl_var[NV] = {
    {"x", MT_REAL, MK_STATE, -1e10, 1e10},               /* 0 */
    {"der(x)", MT_REAL, MK_DERIV, -INF, INF},            /* 1 */
    {"k", MT_REAL, MK_PARAM_TUNABLE, 0.0, 1e6},          /* 2 */
    {"failTime", MT_REAL, MK_PARAM_TUNABLE, -INF, INF},  /* 3 */
    {"failMode", MT_INTEGER, MK_PARAM_TUNABLE, 0, 2},    /* 4 */
    {"solver.method", MT_INTEGER, MK_PARAM_TUNABLE, 0, 3}, /* 5 */
    {"solver.rtol", MT_REAL, MK_PARAM_TUNABLE, 0, 1},    /* 6 */
    {"solver.atol", MT_REAL, MK_PARAM_TUNABLE, 0, INF},  /* 7 */
    {"solver.hmax", MT_REAL, MK_PARAM_TUNABLE, 0, INF},  /* 8 */
    {"tau", MT_REAL, MK_CALC_PARAM, -INF, INF},          /* 9 */
    {"u", MT_REAL, MK_INPUT, -INF, INF},                 /* 10 */
    {"y", MT_REAL, MK_COMPUTED, -INF, INF},              /* 11 */
    {"solver.maxSteps", MT_INTEGER, MK_PARAM_TUNABLE, 1, 2147483647.0}, /* 12 */
    {"solver.maxStepTime", MT_REAL, MK_PARAM_TUNABLE, 0, INF}, /* 13 */
};

const double mdl_x_nominal[N_X > 0 ? N_X : 1] = {1.0};

void mdl_set_start(double *v)
{
    int i;
    for (i = 0; i < NV; i++) v[i] = 0.0;
    v[12] = 1e6;   /* solver.maxSteps */
    v[0] = 1.0; v[2] = 1.0; v[3] = 1e300;
}

int mdl_calc_params(double *v, RtCtx *ctx)
{
    (void)ctx;
    v[9] = v[2] > 0 ? 1.0 / v[2] : INF;
    return 0;
}

int mdl_eval(double *v, double t, RtCtx *ctx)
{
    v[1] = -v[2] * v[0] + v[10];
    v[11] = 2.0 * v[0];
    if (t > v[3]) {
        if (v[4] == 0) v[1] = NAN;
        else if (v[4] == 1) {
            rt_log(ctx, 3, "logStatusError", "decay: model failure at t=%g", t);
            return 1;
        } else return MDL_TERMINATE;
    }
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
