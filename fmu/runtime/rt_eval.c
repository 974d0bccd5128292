/*
 * rt_eval.c -- the model's values in the runtime's core (rt_core.h): lazy evaluation (whole,
 * or in parts in ME continuous-time mode), the inputs' polynomial of the input derivatives,
 * and get/set of values with their validation.
 *
 * Contract: get and set take value references and values as plain C types (the face converts
 * its own); rt_get_begin makes the values asked for current in c->v, rt_set_values writes all
 * of them or none.  rt_ensure_eval/rt_eval_part are what every other unit calls before it
 * reads v.
 *
 *  - Set functions validate ALL values first, then write: no partial update.
 *  - Get and set accept only value references of modelDescription.xml's
 *    ScalarVariables (slots of v with a name and a kind other than MK_INTERNAL):
 *    internal slots (pre values, relation memories, when flags, Newton unknowns) and
 *    references >= NV are refused with fmi2Error naming the value reference.
 *  - Lazy evaluation: setting inputs/parameters, the time or states only marks the
 *    instance dirty; mdl_eval runs before the next get that needs consistent values.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt_impl.h"

#define RT_TYPE_STRING 3               /* check_vrs: String (no MT_* slot has it)  */

const char *rt_var_name(unsigned int vr)
{
    return mdl_var[vr].name ? mdl_var[vr].name : "(internal)";
}

/* ------------------------------------------------------------------------- */
/* model evaluation helpers                                                   */

/* the parts evaluated on their own and the kept Jacobian no longer hold (v was replaced) */
void rt_forget_parts(RtCtx *c)
{
    c->have = 0;
    c->ddValid = 0;
}

/* the values of v no longer follow from x, u, p, t: the next read evaluates */
void rt_invalidate(RtCtx *c)
{
    c->dirty = 1;
    rt_forget_parts(c);
}

/* (re)compute everything the current state needs; 0 ok, else model error code */
int rt_ensure_eval(RtCtx *c)
{
    int rc = 0;
    if (!c->dirty && !c->stale) return 0;
    c->ddValid = 0;     /* initialization may change states and discrete values */
    switch (c->state) {
    case RT_INIT_MODE:
        rc = mdl_calc_params(c->v, c);
        if (rc == 0) rc = mdl_initialize(c->v, c->time, c);
        break;
    case RT_EVENT_MODE:
    case RT_CT_MODE:
    case RT_STEP_COMPLETE:
        rc = mdl_eval(c->v, c->time, c);
        break;
    default:
        return 0;   /* instantiated / failed / terminated: report stored values */
    }
    if (rc == MDL_TERMINATE) { c->terminateRequested = 1; rc = 0; }
    if (rc == 0) c->dirty = c->stale = 0;
    return rc;
}

/* ------------------------------------------------------------------------- */
/* input derivatives (Co-Simulation, canInterpolateInputs = true)             */
/* FMI 2.0 (4.2.1) lets the master give, with the value of a continuous Real input at a
 * communication point tc, its time derivatives there (fmi2SetRealInputDerivatives; "inputs and
 * their derivatives are set with respect to the beginning of a communication time step"), so
 * that the slave can interpolate the input over the step that begins at tc.  Here:
 *  - orders 1 and 2, for inputs of type Real (causality input; every Real input of a generated
 *    model is continuous); another order, or another variable (an Integer or Boolean input, a
 *    parameter, an output), is refused with fmi2Error naming it, and nothing is set;
 *  - allowed where fmi2SetReal may set an input in Co-Simulation: instantiated, initialization
 *    mode, stepComplete (FMI 2.0 4.2.4); the derivatives set before the first step belong to it;
 *  - the fmi2DoStep from tc moves each input with a derivative along
 *        u(tau) = u(tc) + du (tau - tc) + d2u (tau - tc)^2 / 2,
 *    u(tc) its value at the start of the step, at every evaluation inside the step: the solver's
 *    stages and Jacobians, the event indicators (also while an event is located on the dense
 *    output), the event iteration at an event inside the step, and the end of the step;
 *  - after a successful fmi2DoStep the input has the polynomial's value at the end of the step
 *    (what the model used there, so the outputs read afterwards agree with the input read; FMI
 *    3.0 asks the same of an importer's input approximation: u_approx(t_i+1) = u(t_i+1)), and
 *    the derivatives are consumed (0): they describe the step that began where they were set.
 *    A master that sets nothing at the next point holds the input at that value; one that
 *    wants the ramp to go on sets the derivatives again (as FMPy's set_input_derivatives does
 *    at every point).  fmi2SetReal of the input keeps its derivatives (both describe the input
 *    at the same point, set in either order); fmi2Reset clears them; fmi2SetFMUstate restores
 *    those of the state (pending ones and the polynomial of the step in progress);
 *  - a polynomial that differs from the last step's continued to this point (a derivative set,
 *    or one consumed and not set again) restarts the solver, as a changed input value does; the
 *    same polynomial continued (same value, slope and curvature here) does not, so a ramp whose
 *    slope the master sets again at every point lets the solver's steps reach over the
 *    communication points as they do with constant inputs.
 * FMI 2.0 itself says neither when derivatives expire nor which value the input has after the
 * step; the rules above are the reading of "with respect to the beginning of a communication
 * time step" in which a step's inputs depend on what was set at its start only.
 * Without derivatives set (uPon == 0) none of this touches v: runs are bit-identical to a
 * runtime without it. */

/* the inputs of the step's polynomial at time t into v (nothing when it moves none) */
void rt_u_at(const RtCtx *c, double *v, double t)
{
#if N_U > 0
    int i;
    double dt;
    if (!c->uPon) return;
    dt = t - c->uPt;
    for (i = 0; i < N_U; i++) {
        const double *p = c->uP + 3 * i;
        if (p[1] != 0.0 || p[2] != 0.0) v[OFF_U + i] = p[0] + dt * (p[1] + 0.5 * dt * p[2]);
    }
#else
    (void)c; (void)v; (void)t;
#endif
}

/* the rate of input i at the current point (output derivatives): the first derivative set for
   the next step when some were set since the last step, else the slope of the last step's
   polynomial at its end (0 for an input held constant) */
double rt_u_rate(const RtCtx *c, int i)
{
    if (c->uDset) return c->uD1[i];
    if (c->uPon) return c->uP[3 * i + 1] + (c->time - c->uPt) * c->uP[3 * i + 2];
    return 0.0;
}

/* ------------------------------------------------------------------------- */
/* input extrapolation (Co-Simulation, solver.inputExtrapolation = 1)         */
/* An importer that holds the inputs constant over each communication step (libcosim's
 * fixed-step master, FMU containers, most Jacobi and Gauss-Seidel masters: they never call
 * fmi2SetRealInputDerivatives) integrates the coupling with a zero-order hold, whose error
 * across a stiff contact is of the order of the step times the input's rate.  With the tunable
 * parameter solver.inputExtrapolation = 1 this FMU gives itself the first derivative the
 * importer did not give: at the start tc of a step, for every continuous Real input,
 *     du = (u(tc) - u(tp)) / (tc - tp),
 * u(tc) and u(tp) the values the importer set for this step and for the previous one (tp its
 * start), and the step then runs exactly as with that derivative set ("input derivatives"
 * above: the line through u(tc) over the step, the input at the line's end after it).  So:
 *  - derivatives the importer does set (fmi2SetRealInputDerivatives at this point) are used
 *    as given, for every input, and nothing is extrapolated in that step;
 *  - the values are those the importer set (rt_set_values keeps them in uS), not the line's end
 *    of the step before: an importer that sets an input only when it changes holds it, and
 *    its slope is then 0;
 *  - the first step after initialisation, and the first after fmi2Reset, has no previous
 *    point: the inputs are held; fmi2SetFMUstate restores the history with the state (a
 *    rollback extrapolates as the step it repeats did);
 *  - it is linear extrapolation from the past, not interpolation: across a jump of an input
 *    (an event in the importer's model) the next step overshoots by the jump; the importer's
 *    step size decides how well a smooth input is followed (error O(h^2) instead of O(h)).
 * Off (the default) nothing of this runs: results are bit-identical to a runtime without it. */

#if N_U > 0
static int u_extrapolating(const RtCtx *c)
{
#ifdef OFF_SOLVER_INPUTEXTRAPOLATION   /* (a config.h without the parameter: off) */
    return c->type == RT_TYPE_CS && c->v[OFF_SOLVER_INPUTEXTRAPOLATION] != 0.0;
#else
    (void)c;
    return 0;
#endif
}
#endif

/* after initialisation (and fmi2Reset's re-initialisation): the inputs as set, no history */
void rt_u_initialized(RtCtx *c)
{
#if N_U > 0
    memcpy(c->uS, c->v + OFF_U, (size_t)N_U * sizeof(double));
#endif
    c->uXon = 0;
}

/* At the start of a step with extrapolation on and no derivatives set: the inputs back at the
   values the importer set, their slopes from the last step's start. */
#if N_U > 0
static void u_extrapolate(RtCtx *c)
{
    int i, moved = 0;
    double *prev = c->uS + N_U;
    const double h = c->time - c->uXt;
    const int slope = c->uXon && h > 0.0;
    for (i = 0; i < N_U; i++) {
        if (c->v[OFF_U + i] != c->uS[i]) {
            c->v[OFF_U + i] = c->uS[i];
            moved = 1;
        }
        c->uD1[i] = slope ? (c->uS[i] - prev[i]) / h : 0.0;
        c->uD2[i] = 0.0;
    }
    c->uDnz = 1;
    if (moved) {             /* (the line's end of the last step, taken back: as a fmi2SetReal) */
        rt_invalidate(c);
        rt_band_clear(c);
        c->csEventPending = 1;
    }
}
#endif

/* The polynomial of the step that starts at c->time: the inputs' values now and the derivatives
   set at this point (or, with input extrapolation, its own); the solver restarts unless it is
   the last step's polynomial continued. */
void rt_u_begin_step(RtCtx *c)
{
#if N_U > 0
    int i, same = 1, on = 0;
    const double dt = c->time - c->uPt;
    if (u_extrapolating(c)) {
        if (!c->uDset) u_extrapolate(c);
        memcpy(c->uS + N_U, c->uS, (size_t)N_U * sizeof(double));
        c->uXt = c->time;
        c->uXon = 1;
    } else if (!c->uPon && !c->uDnz) {
        /* held inputs, as in the last step: the loop below would change nothing but the
           polynomial, which nothing reads while uPon is 0 */
        c->uPt = c->time;
        return;
    }
    for (i = 0; i < N_U; i++) {
        double *p = c->uP + 3 * i;
        const double a0 = c->v[OFF_U + i], a1 = c->uD1[i], a2 = c->uD2[i];
        if (c->uPon && (p[1] != 0.0 || p[2] != 0.0)) {
            if (a0 != p[0] + dt * (p[1] + 0.5 * dt * p[2]) || a1 != p[1] + dt * p[2] || a2 != p[2])
                same = 0;
        } else if (a1 != 0.0 || a2 != 0.0) {
            same = 0;
        }
        p[0] = a0;
        p[1] = a1;
        p[2] = a2;
        if (a1 != 0.0 || a2 != 0.0) on = 1;
    }
    c->uPt = c->time;
    c->uPon = on;
    if (!same) {
        c->odeRestart = 1;   /* the right-hand side changed, as with a new input value */
        c->odeResume = 0;
        if (c->stale) rt_invalidate(c);   /* the restart's indicators from a whole evaluation */
    }
#else
    (void)c;
#endif
}

/* After a successful fmi2DoStep to c->time: the inputs at the step's end (v is evaluated again
   before a read if one moved), the derivatives consumed. */
void rt_u_end_step(RtCtx *c)
{
#if N_U > 0
    if (c->uPon) {   /* (some input moves) */
        double *w = c->vScratch;
        memcpy(w + OFF_U, c->v + OFF_U, (size_t)N_U * sizeof(double));
        rt_u_at(c, c->v, c->time);
        if (memcmp(w + OFF_U, c->v + OFF_U, (size_t)N_U * sizeof(double)) != 0) {
            c->stale = 1;
            rt_forget_parts(c);
        }
    }
    if (c->uDnz) {
        memset(c->uD1, 0, (size_t)N_U * sizeof(double));
        memset(c->uD2, 0, (size_t)N_U * sizeof(double));
        c->uDnz = 0;
    }
#endif
    c->uDset = 0;
}

/* fmi2SetRealInputDerivatives: all checked before anything is set */
int rt_set_input_derivatives(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                             const int order[], const double value[])
{
    size_t i;
    int status = RT_STATUS_OK;
    if (nvr > 0 && (!vr || !order || !value)) FAIL("%s: NULL pointer argument", fn);
    for (i = 0; i < nvr; i++) {
        const unsigned int r = vr[i];
        if (r >= (unsigned int)NV || mdl_var[r].kind == MK_INTERNAL || !mdl_var[r].name)
            FAIL("%s: value reference %u is not in the model description", fn, r);
        if (mdl_var[r].kind != MK_INPUT)
            FAIL("%s: %s (vr=%u) is not an input: derivatives can only be set for continuous Real "
                 "inputs", fn, rt_var_name(r), r);
        if (mdl_var[r].type != MT_REAL)
            FAIL("%s: %s (vr=%u) is %s input (variability discrete): derivatives can only be set "
                 "for continuous Real inputs", fn, rt_var_name(r), r,
                 mdl_var[r].type == MT_INTEGER ? "an Integer" : "a Boolean");
        if (order[i] < 1)
            FAIL("%s: order %d for %s (vr=%u): the order of a derivative is at least 1 (%s: "
                 "1 is the first derivative, 0 is not allowed)", fn, (int)order[i], rt_var_name(r), r,
                 c->names->version);
        if (order[i] > 2)
            FAIL("%s: order %d for %s (vr=%u): this FMU interpolates its inputs with derivatives "
                 "of order 1 and 2 only", fn, (int)order[i], rt_var_name(r), r);
        if (!isfinite(value[i]))
            FAIL("%s: derivative of order %d of %s (vr=%u) = %g is not a finite number", fn,
                 (int)order[i], rt_var_name(r), r, value[i]);
    }
    for (i = 0; i < nvr; i++) {
        double *d = order[i] == 1 ? c->uD1 : c->uD2;
        d[vr[i] - (unsigned int)OFF_U] = value[i];
    }
    if (nvr > 0) c->uDset = c->uDnz = 1;
END:
    return status;
}

/* ------------------------------------------------------------------------- */
/* evaluation in parts (model_api.h): ME continuous-time mode only, where an importer that
   couples FMUs reads outputs, sets inputs and then asks for derivatives at every
   right-hand side; the whole mdl_eval stays the path everywhere else (RT_PARTS, RT_HAVE_*,
   rt_by_parts and the defaults of MDL_HAS_OUT* are in rt_impl.h) */

/* make part (RT_HAVE_DX: dx and z by mdl_deriv; RT_HAVE_OUT: the outputs and z by
   mdl_out; RT_HAVE_CHEAP: the cheap outputs by mdl_out_cheap, which all outputs include)
   current; 0 ok, else the model's error code */
int rt_eval_part(RtCtx *c, int part)
{
    int rc = 0;
    if (c->have & (part == RT_HAVE_CHEAP ? RT_HAVE_CHEAP | RT_HAVE_OUT : part)) return 0;
    if (part == RT_HAVE_CHEAP) {
#if MDL_HAS_OUT && MDL_HAS_OUT_CHEAP
        rc = mdl_out_cheap(c->v, c->time, c);
#endif
        if (rc == 0) c->have |= RT_HAVE_CHEAP;
        return rc;
    }
    if (part == RT_HAVE_OUT) {
#if MDL_HAS_OUT
        rc = mdl_out(c->v, c->time, c->zPart, c);
#endif
    } else {
        rc = mdl_deriv(c->v, c->time, c->zPart, c);
    }
    if (rc == MDL_TERMINATE) { c->terminateRequested = 1; rc = 0; }
    if (rc == 0) rt_zshift(c, c->zPart);
    if (rc == 0) c->have |= part | RT_HAVE_Z;
    return rc;
}


#if MDL_HAS_OUT || defined(N_OUTLIST)
/* index of key in the ascending a[0..n-1], -1 if absent */
static int sorted_index(const int *a, int n, int key)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (a[mid] == key) return mid;
        if (a[mid] < key) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}
#endif

#if MDL_HAS_OUT
/* index of vr in mdl_out_slot (ascending), -1 if it is not an output mdl_out computes */
int rt_out_index(unsigned int vr)
{
    return sorted_index(mdl_out_slot, N_OUT, (int)vr);
}

/* 1 if output o (an index into mdl_out_slot) is one of those mdl_out_cheap computes */
static int out_is_cheap(int o)
{
#if MDL_HAS_OUT_CHEAP
    return sorted_index(mdl_out_cheap_idx, N_OUT_CHEAP, o) >= 0;
#else
    (void)o;
    return 0;
#endif
}
#endif


/* 1 if vr is an output of the model's list (MDL_HAS_OUT: mdl_out_slot; N_OUTLIST:
   mdl_outlist), 0 if not, -1 if the model has no list */
int rt_is_listed_output(unsigned int vr)
{
#if MDL_HAS_OUT
    return rt_out_index(vr) >= 0;
#elif defined(N_OUTLIST)
    return sorted_index(mdl_outlist, N_OUTLIST, (int)vr) >= 0;
#else
    (void)vr;
    return -1;
#endif
}

/* the part (RT_HAVE_*) a get of variable vr needs: 0 for what is set or held (states,
   inputs, parameters, discrete states), RT_HAVE_DX for a derivative, RT_HAVE_CHEAP or
   RT_HAVE_OUT for an output of mdl_out (cheap: the kinematics a master plots rather than the
   contact forces); -1: a whole evaluation */
int rt_part_of(unsigned int vr)
{
    const int k = mdl_var[vr].kind;
    if (k == MK_STATE || k == MK_INPUT || k == MK_PARAM_FIXED || k == MK_PARAM_TUNABLE ||
        k == MK_CALC_PARAM || (k == MK_DISCRETE && vr >= (unsigned int)(OFF_D + N_DALG)))
        return 0;
    if (k == MK_DERIV) return RT_HAVE_DX;
#if MDL_HAS_OUT
    {
        const int o = rt_out_index(vr);
        if (o >= 0) return out_is_cheap(o) ? RT_HAVE_CHEAP : RT_HAVE_OUT;
    }
#endif
    return -1;
}

/* the parts a get of these variables needs (rt_part_of, from the instance's table c->partOf;
   outputs: RT_HAVE_CHEAP while all asked are cheap ones), -1: a whole evaluation */
static int parts_for(const RtCtx *c, const unsigned int vr[], size_t nvr)
{
    size_t i;
    int need = 0;
    for (i = 0; i < nvr; i++) {
        const int part = c->partOf[vr[i]];
        if (part < 0) return -1;
        need |= part;
    }
    return rt_parts_fold(need);
}

/* the parts of a get of several variables: the whole outputs when one of them is not cheap */
int rt_parts_fold(int need)
{
    return (need & RT_HAVE_OUT) ? need & ~RT_HAVE_CHEAP : need;
}

void rt_copy_pre(RtCtx *c)
{
    double *v = c->v;
#if N_D > 0
    memcpy(v + OFF_DPRE, v + OFF_D, (size_t)N_D * sizeof(double));
#endif
#if N_M > 0
    memcpy(v + OFF_MPRE, v + OFF_M, (size_t)N_M * sizeof(double));
#endif
#if N_C > 0
    memcpy(v + OFF_CPRE, v + OFF_C, (size_t)N_C * sizeof(double));
#endif
    (void)v;
}

/* ------------------------------------------------------------------------- */
/* get / set                                                                  */

static int check_vrs(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                     const void *values, int type)
{
    size_t i;
    if (nvr > 0 && (!vr || !values)) {
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: NULL pointer argument", fn);
        return 0;
    }
    for (i = 0; i < nvr; i++) {
        if (vr[i] >= (unsigned int)NV) {
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: value reference %u is not in the model "
                 "description (out of range 0..%d)", fn, vr[i], NV - 1);
            return 0;
        }
        /* internal slots (pre values, relation memories, when flags, Newton unknowns) have
           no ScalarVariable in modelDescription.xml: unknown to the importer */
        if (mdl_var[vr[i]].kind == MK_INTERNAL || !mdl_var[vr[i]].name) {
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: value reference %u is not in the model "
                 "description (an internal variable of the FMU)", fn, vr[i]);
            return 0;
        }
        if (mdl_var[vr[i]].type != type) {
            static const char *const tn[4] = {"Real", "Integer", "Boolean", "String"};
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR,
                 "%s: variable %s (vr=%u) is of type %s, not %s", fn, rt_var_name(vr[i]),
                 vr[i], tn[mdl_var[vr[i]].type < 3 ? mdl_var[vr[i]].type : 0],
                 tn[type >= 0 && type < 4 ? type : 0]);
            return 0;
        }
    }
    return 1;
}

/* make current what a get of variables needing `need` reads (parts_for; -1 or an instance
   that does not evaluate in parts: the whole evaluation); a failure is the model's, logged
   under fn's name, the instance in RT_ERROR (fmi2GetReal and the container's fast entry) */
int rt_get_eval(RtCtx *c, const char *fn, int need)
{
    int rc;
    if (need < 0 || !rt_by_parts(c)) rc = rt_ensure_eval(c);
    else {
        rc = (need & (RT_HAVE_OUT | RT_HAVE_CHEAP)) ? rt_eval_part(c, need & (RT_HAVE_OUT | RT_HAVE_CHEAP)) : 0;
        if (rc == 0 && (need & RT_HAVE_DX)) rc = rt_eval_part(c, RT_HAVE_DX);
    }
    if (rc != 0) {
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: model evaluation failed at t=%.17g (code %d)",
             fn, c->time, rc);
        c->state = RT_ERROR;
        return RT_STATUS_ERROR;
    }
    return RT_STATUS_OK;
}

int rt_get_begin(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                 const void *values, int type)
{
    int need;
    if (!check_vrs(c, fn, vr, nvr, values, type)) return RT_STATUS_ERROR;
    need = rt_by_parts(c) ? parts_for(c, vr, nvr) : -1;
    if (need > 0) c->partsRead |= need;
    return rt_get_eval(c, fn, need);
}

/* may variable vr be set in the current state? */
static int settable(RtCtx *c, const char *fn, unsigned int vr)
{
    const int kind = mdl_var[vr].kind;
    unsigned int allowed = 0;
    const char *rule = "", *before = "";   /* before: the face's function ending initialization */
    switch (kind) {
    case MK_PARAM_FIXED:
        allowed = RT_INSTANTIATED | RT_INIT_MODE;
        rule = "fixed parameters can only be set before ";
        before = c->names->exitInitialization;
        break;
    case MK_PARAM_TUNABLE:
        allowed = RT_INSTANTIATED | RT_INIT_MODE | RT_EVENT_MODE | RT_STEP_COMPLETE;
        rule = "tunable parameters can be set before initialization, in event mode (ME) "
               "or between communication steps (CS)";
        break;
    case MK_INPUT:
        allowed = RT_INSTANTIATED | RT_INIT_MODE | RT_EVENT_MODE | RT_CT_MODE |
                  RT_STEP_COMPLETE;
        break;
    case MK_STATE:
    case MK_DISCRETE:
        allowed = RT_INSTANTIATED | RT_INIT_MODE;
        rule = "start values of states and discrete variables can only be set before ";
        before = c->names->exitInitialization;
        break;
    default:
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: variable %s (vr=%u) cannot be set "
             "(it is computed by the model)", fn, rt_var_name(vr), vr);
        return 0;
    }
    if (!(c->state & allowed)) {
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: variable %s (vr=%u) cannot be set in state %s: %s%s",
             fn, rt_var_name(vr), vr, rt_state_name(c, c->state), rule, before);
        return 0;
    }
    return 1;
}

int rt_set_values(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                  const void *values, int type, double (*at)(const void *values, size_t i))
{
    size_t i;
    int paramChanged = 0, anyChanged = 0;
    if (!check_vrs(c, fn, vr, nvr, values, type)) return RT_STATUS_ERROR;
    /* 1. validate everything */
    for (i = 0; i < nvr; i++) {
        const MdlVar *mv = &mdl_var[vr[i]];
        double x;
        if (!settable(c, fn, vr[i])) return RT_STATUS_ERROR;
        if (type == MT_REAL) {
            x = at(values, i);
            if (!isfinite(x)) {
                rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: %s (vr=%u) = %g is not a finite number",
                     fn, rt_var_name(vr[i]), vr[i], x);
                return RT_STATUS_ERROR;
            }
        } else if (type == MT_INTEGER) {
            x = at(values, i);
        } else {
            continue;   /* Boolean: any value means true/false */
        }
        if (x < mv->min || x > mv->max) {
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR,
                 "%s: %s (vr=%u) = %.17g is outside its range [%g, %g]", fn,
                 rt_var_name(vr[i]), vr[i], x, mv->min, mv->max);
            return RT_STATUS_ERROR;
        }
    }
    /* 2. write */
    for (i = 0; i < nvr; i++) {
        double x;
        const int kind = mdl_var[vr[i]].kind;
        x = at(values, i);   /* (Boolean: 1.0 or 0.0) */
        if (c->v[vr[i]] != x) {
            anyChanged = 1;
            if (kind == MK_PARAM_FIXED || kind == MK_PARAM_TUNABLE) paramChanged = 1;
        }
        c->v[vr[i]] = x;
#if N_U > 0
        if (kind == MK_INPUT && vr[i] >= (unsigned int)OFF_U && vr[i] < (unsigned int)(OFF_U + N_U))
            c->uS[vr[i] - (unsigned int)OFF_U] = x;   /* (input extrapolation) */
#endif
    }
    if (!anyChanged) return RT_STATUS_OK;
    /* 3. consequences */
    rt_invalidate(c);
    rt_band_clear(c);   /* the indicators may jump: a band watch (test 3) no longer applies */
    if (paramChanged && (c->state & (RT_EVENT_MODE | RT_CT_MODE | RT_STEP_COMPLETE))) {
        int rc = mdl_calc_params(c->v, c);
        if (rc != 0) {
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR,
                 "%s: calculated parameters cannot be computed from the new values (code %d)",
                 fn, rc);
            c->state = RT_ERROR;
            return RT_STATUS_ERROR;
        }
    }
    if (c->state == RT_STEP_COMPLETE) {
        c->csEventPending = 1;   /* relations may depend on inputs/parameters */
        c->odeRestart = 1;       /* the right-hand side changed: no FSAL reuse */
        c->odeResume = 0;
    }
    return RT_STATUS_OK;
}

#if defined(N_STR) && N_STR > 0
extern const char *const mdl_str[];   /* model.c: the N_STR String values */
/* value references of String variables: 0..N_STR-1 (FMI 2.0: unique per base type) */
static int str_vrs(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr, const void *values)
{
    size_t i;
    if (nvr > 0 && (!vr || !values)) {
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: NULL pointer argument", fn);
        return 0;
    }
    for (i = 0; i < nvr; i++)
        if (vr[i] >= (unsigned int)N_STR) {
            rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: value reference %u is not a String variable of the "
                 "model description (out of range 0..%d)", fn, vr[i], N_STR - 1);
            return 0;
        }
    return 1;
}
#endif

#if !(defined(N_STR) && N_STR > 0)
/* this FMU has no String variables: every value reference is refused, with the reason for the
   first one (unknown, or of another type) */
static int no_strings(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr, const void *values)
{
    if (nvr == 0) return RT_STATUS_OK;
    if (check_vrs(c, fn, vr, nvr, values, RT_TYPE_STRING))   /* (cannot pass) */
        rt_logf(c, RT_STATUS_ERROR, RT_LOG_ERROR, "%s: this FMU has no String variables", fn);
    return RT_STATUS_ERROR;
}
#endif

int rt_get_strings(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                   const char *values[])
{
    int status = RT_STATUS_OK;
#if defined(N_STR) && N_STR > 0
    /* the String parameters and constants: fixed values (model.c's mdl_str) */
    if (str_vrs(c, fn, vr, nvr, values)) {
        size_t i;
        for (i = 0; i < nvr; i++) values[i] = mdl_str[vr[i]];
    } else status = RT_STATUS_ERROR;
#else
    status = no_strings(c, fn, vr, nvr, values);
#endif
    return status;
}

int rt_set_strings(RtCtx *c, const char *fn, const unsigned int vr[], size_t nvr,
                   const char *const values[])
{
    int status = RT_STATUS_OK;
#if defined(N_STR) && N_STR > 0
    /* the String parameters are kept out of the equations: a set to their own value only */
    if (str_vrs(c, fn, vr, nvr, values)) {
        size_t i;
        for (i = 0; i < nvr; i++)
            if (!values[i] || strcmp(values[i], mdl_str[vr[i]]) != 0)
                FAIL("%s: String variable (vr=%u) cannot be changed from \"%s\": this FMU keeps String "
                     "parameters out of its equations", fn, vr[i], mdl_str[vr[i]]);
    } else status = RT_STATUS_ERROR;
END:
#else
    status = no_strings(c, fn, vr, nvr, values);
#endif
    return status;
}

/* ------------------------------------------------------------------------- */
/* event indicators and sizes as the FMI 3.0 face reads them                  */

int rt_get_indicators(RtCtx *c, const char *fn, double z[], size_t nz)
{
    int rc;
    int status = RT_STATUS_OK;
    if (nz != (size_t)N_Z) FAIL("%s: %lu event indicators asked for, the model has %d", fn,
                                (unsigned long)nz, N_Z);
    if (nz == 0) goto END;
    if (!z) FAIL("%s: NULL pointer argument", fn);
    rc = rt_ensure_eval(c);
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: model evaluation failed at t=%.17g (code %d)", fn, c->time, rc);
    }
    rt_zc_eval(c, c->v, c->time, z);
END:
    return status;
}

size_t rt_n_states(void) { return (size_t)N_X; }
size_t rt_n_indicators(void) { return (size_t)N_Z; }
