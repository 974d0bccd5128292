/*
 * rt_deriv.c -- derivatives the importer asks for, in the runtime's core (rt_core.h):
 * directional derivatives (ME and CS) and the output derivatives of Co-Simulation.
 *
 * Contract: both work at the current point (t, v) on copies and scratch space; nothing of the
 * instance's values changes (the kept Jacobian ddJ is reused while the point stays).
 *
 *  - CS input derivatives (canInterpolateInputs, orders 1 and 2): the inputs follow the
 *    polynomial of fmi2SetRealInputDerivatives through the step that starts where it was set,
 *    consumed by it ("input derivatives"); output derivatives (maxOutputDerivativeOrder 1):
 *    dy/dt at the communication point from the model's directional derivatives along
 *    (dx/dt, du/dt) and a difference in t, or a difference along the trajectory ("output
 *    derivatives"); fmi2GetDirectionalDerivative from the generated Jacobian (mdl_dd) or the
 *    model's own directional derivatives (mdl_ddir, the container).
 */
#include <math.h>
#include <string.h>

#include "rt_impl.h"

#if MDL_HAS_DD || MDL_HAS_DDIR
/* what unknown vr of a directional derivative is: DD_ROW (a state derivative or an output: its
   value in ddOut[vr]), DD_STATE (a state: its own seed, also in ddOut[vr]), DD_ZERO (a discrete
   variable: derivative 0), -1 not an unknown */
enum { DD_ROW = 1, DD_STATE = -2, DD_ZERO = -3 };
static int dd_unknown(const RtCtx *c, unsigned int vr)
{
    if (rt_in_slice(vr, OFF_DX, N_X)) return DD_ROW;
    if (rt_in_slice(vr, OFF_X, N_X)) return DD_STATE;
    if (rt_in_slice(vr, OFF_D + N_DALG, N_D - N_DALG)) return DD_ZERO;
#if MDL_HAS_OUT
    /* an output of mdl_out_slot: rt_part_of gives those, and only those, a part of mdl_out
       (the instance's table, instead of a search of the list per unknown and call) */
    return vr < (unsigned int)NV && c->partOf[vr] > 0 &&
           (c->partOf[vr] & (RT_HAVE_OUT | RT_HAVE_CHEAP)) ? DD_ROW : -1;
#else
    (void)c;
    return rt_is_listed_output(vr) > 0 ? DD_ROW : -1;
#endif
}

/* a known of a directional derivative: a state or an input */
static int dd_known(unsigned int vr)
{
    return rt_in_slice(vr, OFF_X, N_X) || rt_in_slice(vr, OFF_U, N_U);
}
#endif

#if MDL_HAS_DD
/* row of d(dx, outputs)/d(x, u) of a state derivative or output slot, -1 none */
static int dd_row(unsigned int vr)
{
    if (rt_in_slice(vr, OFF_DX, N_X)) return (int)vr - OFF_DX;
    return rt_out_index(vr) >= 0 ? N_X + rt_out_index(vr) : -1;
}


/* out[0 .. N_X+N_OUT-1] = central difference of (dx, outputs) along the seeds c->ddSeed (by
   slot: the states and inputs), evaluated on a copy of v (the instance's values stay as they
   are): for rows where the generated Jacobian has a non-finite entry (a point without
   derivative) */
static int dd_differences(RtCtx *c, double *out)
{
    const int m = N_X + N_OUT;
    const double *seed = c->ddSeed;
    double *w = c->vScratch, *fp = c->ddAcc + 2 * NARR(m), h = INFINITY;
    int j, side, k, rc = 0;
    for (j = 0; j < N_X + N_U; j++) {   /* each known moves by at most sqrt(eps)*max(|x|, 1e-6) */
        const double x = fabs(c->v[rt_dd_col_slot(j)]), s = fabs(seed[rt_dd_col_slot(j)]);
        if (s > 0 && 1.4901161193847656e-08 * (x > 1e-6 ? x : 1e-6) / s < h)
            h = 1.4901161193847656e-08 * (x > 1e-6 ? x : 1e-6) / s;
    }
    if (!isfinite(h)) {            /* a zero seed: a zero derivative */
        memset(out, 0, (size_t)NARR(m) * sizeof(double));
        return 0;
    }
    c->quiet++;
    for (side = 0; side < 2 && rc == 0; side++) {
        double *f = side == 0 ? fp : out;
        memcpy(w, c->v, (size_t)NV * sizeof(double));
        for (j = 0; j < N_X + N_U; j++) w[rt_dd_col_slot(j)] += (side == 0 ? h : -h) * seed[rt_dd_col_slot(j)];
        rc = mdl_deriv(w, c->time, NULL, c);
#if MDL_HAS_OUT
        if (rc == 0) rc = mdl_out(w, c->time, NULL, c);
#endif
        if (rc == MDL_TERMINATE) rc = 0;
        for (k = 0; k < N_X; k++) f[k] = w[OFF_DX + k];
        for (k = 0; k < N_OUT; k++) f[N_X + k] = w[mdl_out_slot[k]];
    }
    c->quiet--;
    for (k = 0; k < m; k++) out[k] = (fp[k] - out[k]) / (2 * h);
    return rc;
}
#endif

#if MDL_HAS_DD || MDL_HAS_DDIR
/* the seeds of a directional derivative: 0 where they are read (mdl_dd: dd_core and
   dd_differences read the states' and inputs' slots only, the rest may hold the output
   derivatives' scratch; mdl_ddir: all of them, its dv) */
static void dd_seed_clear(RtCtx *c)
{
#if MDL_HAS_DD
    memset(c->ddSeed + OFF_X, 0, (size_t)N_X * sizeof(double));
    memset(c->ddSeed + OFF_U, 0, (size_t)N_U * sizeof(double));
#else
    memset(c->ddSeed, 0, (size_t)NV * sizeof(double));
#endif
}

/* The directional derivative at the current point (t, v) along the seeds c->ddSeed (by slot:
 * the states and inputs; mdl_ddir: 0 elsewhere, dd_seed_clear) into c->ddOut (by slot): the state
 * derivatives, the outputs, and the states themselves (their seeds).  mdl_dd: d(dx, outputs)/d(x, u) from the
 * generated sparse Jacobian (d(dx)/dx from the solver's, mdl_jac_nz; kept while the point
 * stays), rows with a non-finite entry by central differences when one of the unknowns
 * want[0 .. nwant-1] is such a row; mdl_ddir: the model's own.  0 ok, else the model's code
 * (-1: mdl_ddir has none now). */
static int dd_core(RtCtx *c, const unsigned int want[], size_t nwant)
{
    const double *seed = c->ddSeed;
    double *out = c->ddOut;
    int k, rc = 0;
#if MDL_HAS_DD
    const int m = N_X + N_OUT;
    double *acc = c->ddAcc, *bad = c->ddAcc + NARR(m);   /* bad[r] != 0: row r differences */
    int j, p, nbad = 0, anybad = 0;
    size_t i;
    if (!c->ddValid) {      /* d(dx)/dx from the solver's Jacobian, the rest from mdl_dd */
        (void)mdl_dd(c->v, c->time, c->ddJ, c);
#if N_X > 0
        (void)mdl_jac_nz(c->v, c->time, c->ddJx, c);   /* -1 if some entry is not finite:
                                                          handled entry by entry below */
#endif
        c->ddValid = 1;
    }
    memset(acc, 0, 2 * NARR(m) * sizeof(double));
    for (j = 0; j < N_X + N_U; j++) {
        const double sj = seed[rt_dd_col_slot(j)];
        if (sj == 0.0) continue;
        for (p = mdl_dd_colind[j]; p < mdl_dd_colind[j + 1]; p++) {
            if (isfinite(c->ddJ[p])) acc[mdl_dd_row[p]] += c->ddJ[p] * sj;
            else { bad[mdl_dd_row[p]] = 1.0; anybad = 1; }
        }
#if N_X > 0
        if (j < N_X)
            for (p = mdl_jac_colind[j]; p < mdl_jac_colind[j + 1]; p++) {
                if (isfinite(c->ddJx[p])) acc[mdl_jac_row[p]] += c->ddJx[p] * sj;
                else { bad[mdl_jac_row[p]] = 1.0; anybad = 1; }
            }
#endif
    }
    for (i = 0; anybad && i < nwant; i++) {   /* (no row without an exact value: none) */
        const int r = dd_row(want[i]);
        if (r >= 0 && bad[r] != 0.0) nbad++;
    }
    if (nbad > 0) {            /* the rows asked for that have no exact value */
        double *fd = c->ddAcc + 3 * NARR(m);
        rc = dd_differences(c, fd);
        for (p = 0; p < m; p++)
            if (bad[p] != 0.0) acc[p] = fd[p];
    }
    for (k = 0; k < N_X; k++) out[OFF_DX + k] = acc[k];   /* (the other slots: not read) */
    for (k = 0; k < N_OUT; k++) out[mdl_out_slot[k]] = acc[N_X + k];
#else
    (void)want; (void)nwant;
    memcpy(out, seed, (size_t)NV * sizeof(double));
    rc = mdl_ddir(c->v, c->time, out, c);
    if (rc == MDL_TERMINATE) rc = 0;
#endif
    for (k = 0; k < N_X; k++) out[OFF_X + k] = seed[OFF_X + k];
    return rc;
}
#endif


/* fmi2GetDirectionalDerivative */
int rt_directional_derivative(RtCtx *c, const char *fn, const unsigned int vUnknown_ref[],
                              size_t nUnknown, const unsigned int vKnown_ref[], size_t nKnown,
                              const double dvKnown[], double dvUnknown[])
{
    int status = RT_STATUS_OK;
#if MDL_HAS_DD || MDL_HAS_DDIR
    {
        /* dvUnknown = J[unknowns, knowns] * dvKnown, J = d(dx, outputs)/d(x, u) at the current
           point (dd_core) */
        size_t i;
        int rc;
        if ((nUnknown > 0 && (!vUnknown_ref || !dvUnknown)) || (nKnown > 0 && (!vKnown_ref || !dvKnown)))
            FAIL("%s: NULL pointer argument", fn);
        for (i = 0; i < nUnknown; i++)
            if (dd_unknown(c, vUnknown_ref[i]) == -1)
                FAIL("%s: unknown %s (vr=%u) is neither a state derivative nor an output", fn,
                     vUnknown_ref[i] < (unsigned int)NV ? rt_var_name(vUnknown_ref[i]) : "?",
                     vUnknown_ref[i]);
        for (i = 0; i < nKnown; i++) {
            if (!dd_known(vKnown_ref[i]))
                FAIL("%s: known %s (vr=%u) is neither a state nor an input", fn,
                     vKnown_ref[i] < (unsigned int)NV ? rt_var_name(vKnown_ref[i]) : "?",
                     vKnown_ref[i]);
            if (!isfinite(dvKnown[i])) FAIL("%s: seed %lu is not finite", fn, (unsigned long)i);
        }
        if (c->state == RT_INIT_MODE && (rc = rt_ensure_eval(c)) != 0)
            FAIL("%s: initialization failed at t=%.17g (model code %d)", fn, c->time, rc);
        dd_seed_clear(c);
        for (i = 0; i < nKnown; i++) c->ddSeed[vKnown_ref[i]] += dvKnown[i];
        if ((rc = dd_core(c, vUnknown_ref, nUnknown)) != 0)
            FAIL(MDL_HAS_DD ? "%s: the model cannot be evaluated near t=%.17g for differences (code %d)"
                            : "%s: the directional derivatives cannot be computed at t=%.17g (code %d)",
                 fn, c->time, rc);
        for (i = 0; i < nUnknown; i++)
            dvUnknown[i] = dd_unknown(c, vUnknown_ref[i]) == DD_ZERO ? 0.0 : c->ddOut[vUnknown_ref[i]];
    }
#else
    (void)vUnknown_ref; (void)nUnknown; (void)vKnown_ref; (void)nKnown; (void)dvKnown;
    (void)dvUnknown;
    FAIL("%s: not supported (providesDirectionalDerivative=false)", fn);
#endif
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* output derivatives (Co-Simulation, maxOutputDerivativeOrder = 1)           */
/* fmi2GetRealOutputDerivatives(order 1): dy/dt of an output at the current communication point,
 * the slope of the trajectory through it: y = h(t, x, u) with dx/dt = f(t, x, u) and du/dt the
 * input's rate (u_rate: the derivative set for the next step, else the slope with which the
 * last step's polynomial arrived; 0 for held inputs), so
 *     dy/dt = dh/dx f + dh/du du/dt + dh/dt.
 * With the model's directional derivatives (mdl_dd, exact where finite, as
 * fmi2GetDirectionalDerivative; mdl_ddir, the container's) the first two terms are ONE
 * directional derivative along (f, du/dt), and the explicit time dependence a central difference
 * in t at fixed x and u (exactly 0 for a model without one: the result is then exact up to
 * rounding).  Without them, one central difference along the trajectory, (t, x, u) +- h (1, f,
 * du/dt).  h = eps^(1/3) T, T the shortest time scale among max(|t|, 1), max(|x_i|, nominal_i) /
 * |f_i| and max(|u_j|, 1) / |du_j/dt| (second-order differences, rounding and truncation
 * balanced).  Every evaluation is on a copy of v: nothing of the instance changes (the
 * container's components are placed again by its next evaluation, model_api.h H1).  A state's
 * derivative is f itself; a discrete (when-assigned) Real output's is 0: it is constant
 * between events, and FMI 2.0 (4.2.1) returns 0 where the actual order is lower.  Orders other
 * than 1 are refused (0 is not allowed, maxOutputDerivativeOrder = 1), as are variables that are
 * not Real outputs. */
enum { OD_STATE = 1, OD_ZERO = 2, OD_OUT = 3, OD_NOT_REAL = -2 };
static int od_kind(unsigned int vr)
{
    if (rt_in_slice(vr, OFF_X, N_X)) return OD_STATE;
    if (mdl_var[vr].type != MT_REAL) return OD_NOT_REAL;
    if (mdl_var[vr].kind == MK_DISCRETE) return OD_ZERO;
    if (mdl_var[vr].kind != MK_COMPUTED) return -1;
    /* (a model without a list of its outputs: any computed Real variable) */
    return rt_is_listed_output(vr) != 0 ? OD_OUT : -1;
}

static double od_step(const RtCtx *c)
{
    const double tt = fabs(c->time) > 1.0 ? fabs(c->time) : 1.0;
    double T = tt;
    int i;
    for (i = 0; i < N_X + N_U; i++) {
        const int k = rt_dd_col_slot(i);
        const double r = i < N_X ? fabs(c->v[OFF_DX + i]) : fabs(rt_u_rate(c, i - N_X));
        const double a = fabs(c->v[k]), lo = i < N_X ? c->xNominal[i] : 1.0;
        const double sc = a > lo ? a : lo;
        if (r > 0.0 && isfinite(r) && sc / r < T) T = sc / r;
    }
    T *= 6.0554544523933395e-06;   /* eps^(1/3) */
    if (T < 1e-12 * tt) T = 1e-12 * tt;
    return (c->time + T) - c->time;   /* t +- h exact */
}

/* the model on a copy of v (c->vScratch) at t + hh, at x + hh f and u + hh du/dt (along) or at
   x and u; 0 ok, else the model's code */
static int od_eval(RtCtx *c, double hh, int along)
{
    double *w = c->vScratch;
    int k, rc;
    memcpy(w, c->v, (size_t)NV * sizeof(double));
    if (along) {
        for (k = 0; k < N_X; k++) w[OFF_X + k] += hh * c->v[OFF_DX + k];
        for (k = 0; k < N_U; k++)
            if (mdl_var[OFF_U + k].type == MT_REAL) w[OFF_U + k] += hh * rt_u_rate(c, k);
    }
    c->quiet++;
#if MDL_HAS_OUT
    rc = mdl_out(w, c->time + hh, NULL, c);   /* (the outputs od_kind accepts) */
#else
    rc = mdl_eval(w, c->time + hh, c);
#endif
    c->quiet--;
    return rc == MDL_TERMINATE ? 0 : rc;
}

/* fmi2GetRealOutputDerivatives */
int rt_output_derivatives(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                          const int order[], double value[])
{
    size_t i;
    int rc, nout = 0;
    int status = RT_STATUS_OK;
    if (nvr > 0 && (!vr || !order || !value)) FAIL("%s: NULL pointer argument", fn);
    for (i = 0; i < nvr; i++) {
        const unsigned int r = vr[i];
        int kind;
        if (r >= (unsigned int)NV || mdl_var[r].kind == MK_INTERNAL || !mdl_var[r].name)
            FAIL("%s: value reference %u is not in the model description", fn, r);
        kind = od_kind(r);
        if (kind == OD_NOT_REAL)
            FAIL("%s: %s (vr=%u) is of type %s: output derivatives exist for Real outputs only", fn,
                 rt_var_name(r), r, mdl_var[r].type == MT_INTEGER ? "Integer" : "Boolean");
        if (kind < 0)
            FAIL("%s: %s (vr=%u) is not an output", fn, rt_var_name(r), r);
        if (order[i] < 1)
            FAIL("%s: order %d for %s (vr=%u): the order of a derivative is at least 1 (%s: "
                 "1 is the first derivative, 0 is not allowed)", fn, (int)order[i], rt_var_name(r), r,
                 c->names->version);
        if (order[i] > 1)
            FAIL("%s: order %d for %s (vr=%u) exceeds maxOutputDerivativeOrder = 1", fn,
                 (int)order[i], rt_var_name(r), r);
        if (kind == OD_OUT) nout++;
    }
    /* the current point, consistent (stepComplete; elsewhere the values as they are: FMI 2.0
       4.2.4, usable for debugging only except after fmi2Terminate, which evaluated them) */
    if (c->state == RT_STEP_COMPLETE && (rc = rt_ensure_eval(c)) != 0) {
        c->state = RT_ERROR;
        FAIL("%s: model evaluation failed at t=%.17g (code %d)", fn, c->time, rc);
    }
    if (nout > 0) {
        const double h = od_step(c);
        const double *w = c->vScratch;   /* od_eval's result */
        double *yp = c->ddSeed;          /* the outputs on the plus side, by slot */
#if MDL_HAS_DD || MDL_HAS_DDIR
        const int along = 0;             /* the time difference at fixed x and u */
        int k;
        dd_seed_clear(c);
        for (k = 0; k < N_X; k++) c->ddSeed[OFF_X + k] = c->v[OFF_DX + k];
        for (k = 0; k < N_U; k++)
            if (mdl_var[OFF_U + k].type == MT_REAL) c->ddSeed[OFF_U + k] = rt_u_rate(c, k);
        if ((rc = dd_core(c, vr, nvr)) != 0) {   /* into ddOut; ddSeed is free afterwards */
            c->deferred[0] = '\0';
            FAIL("%s: the directional derivatives of the outputs cannot be computed at t=%.17g "
                 "(code %d)", fn, c->time, rc);
        }
#else
        const int along = 1;             /* the difference along the trajectory */
#endif
        rc = od_eval(c, h, along);
        for (i = 0; i < nvr; i++) if (od_kind(vr[i]) == OD_OUT) yp[vr[i]] = w[vr[i]];
        if (rc == 0) rc = od_eval(c, -h, along);
        if (rc != 0) {
            c->deferred[0] = '\0';
            FAIL("%s: the model cannot be evaluated near t=%.17g for differences (code %d)", fn,
                 c->time, rc);
        }
        for (i = 0; i < nvr; i++)
            if (od_kind(vr[i]) == OD_OUT)
                value[i] = (yp[vr[i]] - w[vr[i]]) / (2.0 * h) +
                           ((MDL_HAS_DD || MDL_HAS_DDIR) ? c->ddOut[vr[i]] : 0.0);
    }
    for (i = 0; i < nvr; i++) {
        const int kind = od_kind(vr[i]);
        if (kind == OD_STATE) value[i] = c->v[OFF_DX + (int)vr[i] - OFF_X];
        else if (kind == OD_ZERO) value[i] = 0.0;
    }
END:
    return status;
}
