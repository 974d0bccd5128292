/* Hand-written test model for the runtime unit tests (fmu/runtime/tests only). */
#include <math.h>
#include "model_api.h"
#include "config.h"
#define INF INFINITY

const MdlVar mdl_var[NV] = {
    {"x1", MT_REAL, MK_STATE, -INF, INF},
    {"x2", MT_REAL, MK_STATE, -INF, INF},
    {"der(x1)", MT_REAL, MK_DERIV, -INF, INF},
    {"der(x2)", MT_REAL, MK_DERIV, -INF, INF},
    {"mu", MT_REAL, MK_PARAM_FIXED, 0, INF},
    {"solver.method", MT_INTEGER, MK_PARAM_TUNABLE, 0, 3},
    {"solver.rtol", MT_REAL, MK_PARAM_TUNABLE, 0, 1},
    {"solver.atol", MT_REAL, MK_PARAM_TUNABLE, 0, INF},
    {"solver.hmax", MT_REAL, MK_PARAM_TUNABLE, 0, INF},
    {"solver.maxSteps", MT_INTEGER, MK_PARAM_TUNABLE, 1, 2147483647.0}, /* 9 */
    {"solver.maxStepTime", MT_REAL, MK_PARAM_TUNABLE, 0, INF}, /* 10 */
};

const double mdl_x_nominal[N_X > 0 ? N_X : 1] = {1.0, 1.0};

void mdl_set_start(double *v)
{
    int i;
    for (i = 0; i < NV; i++) v[i] = 0.0;
    v[9] = 1e6;   /* solver.maxSteps */
    v[0] = 2.0; v[4] = 1000.0;
}
int mdl_calc_params(double *v, RtCtx *ctx) { (void)v; (void)ctx; return 0; }
int mdl_eval(double *v, double t, RtCtx *ctx)
{
    (void)t; (void)ctx;
    v[2] = v[1];
    v[3] = v[4] * (1 - v[0] * v[0]) * v[1] - v[0];
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
    (void)t; (void)ctx;
    J[0] = 0.0;
    J[1] = -2.0 * v[4] * v[0] * v[1] - 1.0;
    J[2] = 1.0;
    J[3] = v[4] * (1 - v[0] * v[0]);
    return 0;
}
