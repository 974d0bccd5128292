/*
 * ct_event.c -- events of the container (container.h): mdl_event runs ONE pass of the
 * components' Model-Exchange event protocol per call, so that the runtime's event iteration
 * (model_api.h: repeat while MDL_EV_CHANGED, bounded) is the container's:
 *
 *   first call of an event: the components at (t, x), fmi2EnterEventMode (in the
 *     initialization: fmi2ExitInitializationMode instead), every component needs a pass;
 *   a pass: inputs <- outputs (all types; a component whose input changed needs a pass),
 *     fmi2NewDiscreteStates of each component that needs one (its newDiscreteStatesNeeded
 *     says whether it needs another; valuesOfContinuousStatesChanged: its states are read
 *     back, MDL_EV_REINIT; terminateSimulation: MDL_EV_TERMINATE; nextEventTime: its time
 *     event indicator), inputs <- outputs again;
 *   MDL_EV_CHANGED while a component needs another pass; y, dx and the indicators are
 *     evaluated at the end of every pass (model_api.h), the memories set to (z > 0).
 *
 * The components stay in event mode after the last pass; they enter continuous-time mode at
 * the first evaluation at another (t, x) (ct_eval.c), so that in Model Exchange the
 * importer may still set inputs and tunable parameters in event mode, as FMI allows.
 * Also mdl_calc_params: tunable parameters changed after the initialization are forwarded
 * in event mode (at once, or at the next event if the components are in continuous time).
 */
#include <math.h>
#include <string.h>

#include "container.h"

static int any_tunable_changed(const CtData *d, const double *v)
{
    int j;
    for (j = 0; j < CT_N_FWD; j++)
        if ((ct_fwd[j].kind & CT_FWD_TUNABLE) && !(v[ct_fwd[j].slot] == d->lastFwd[j])) return 1;
    return 0;
}

static int read_calc(CtData *d, double *v, double t)
{
    int i;
    for (i = 0; i < CT_NCOMP; i++) {
        const CtCompInfo *ci = &ct_comp[i];
        if (ci->calcN > 0 && ct_get_values(d, &d->comp[i], ct_calc + ci->calcFirst, ci->calcN, v, t,
                                           CT_FAST_NEED_SLOW))
            return 1;
    }
    return 0;
}

/* forward changed tunable parameters (components in event mode) */
static int forward_tunable(CtData *d, double *v, double t)
{
    int i;
    d->fwdPending = 0;
    if (ct_forward(d, v, CT_FWD_TUNABLE, t)) return 1;
    for (i = 0; i < CT_NCOMP; i++) d->comp[i].need = 1;
    return read_calc(d, v, t);
}

static int enter_event(CtData *d, double *v, double t)
{
    if (ct_states_in(d, v, t)) return 1;
    if (ct_all_modes(d, CT_ENTER_EVENT, 1, t)) return 1;
    d->phase = CT_PH_EVENT;
    d->tEv = t;
    if (d->fwdPending && forward_tunable(d, v, t)) return 1;
    return 0;
}

static int exit_initialization(CtData *d, double *v, double t)
{
    int i;
    if (ct_propagate(d, v, t, CT_ALLTYPES)) return 1;
    if (ct_all_modes(d, CT_EXIT_INIT, 1, t)) return 1;
    d->phase = CT_PH_EVENT;
    d->tEv = t;
    for (i = 0; i < CT_NCOMP; i++)
        if (ct_read_states(d, &d->comp[i], v, t)) return 1;
    return 0;
}

/* one pass; *more = some component needs another */
static int pass(CtData *d, double *v, double t, int *flags, int *more)
{
    int i;
    *more = 0;
    if (ct_propagate(d, v, t, CT_ALLTYPES | CT_MARK)) return 1;
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        fmi2EventInfo ei;
        double t0;
        fmi2Status st;
        if (!k->need) continue;
        memset(&ei, 0, sizeof ei);
        t0 = ct_call_begin(d);
        st = k->f.newDiscreteStates(k->inst, &ei);
        if (ct_call_end(d, k, "fmi2NewDiscreteStates", t0, st, t)) return 1;
        k->need = ei.newDiscreteStatesNeeded ? 1 : 0;
        if (ei.terminateSimulation) {
            *flags |= MDL_EV_TERMINATE;
            rt_log(d->ctx, 0, "logEvents", "component %s requests termination at t=%.17g",
                   k->info->name, t);
        }
        if (ei.valuesOfContinuousStatesChanged && k->info->nx > 0) {
            if (ct_read_states(d, k, v, t)) return 1;
            *flags |= MDL_EV_REINIT;
        }
        if (k->info->tev >= 0)
            v[OFF_TNEXT + i] = ei.nextEventTimeDefined ? ei.nextEventTime : INFINITY;
    }
    if (ct_propagate(d, v, t, CT_ALLTYPES | CT_MARK)) return 1;
    for (i = 0; i < CT_NCOMP; i++)
        if (d->comp[i].need) *more = 1;
    d->nPasses += 1.0;
    return 0;
}

int mdl_event(double *v, double t, int initial, RtCtx *ctx, int *flags)
{
    CtData *d = ct_data(ctx);
    int rc = 1, more = 0, i;
    (void)initial;   /* (the components' phase tells) */
    *flags = 0;
    ct_timed_begin(d, v);
    if (d->phase == CT_PH_INIT) {
        if (exit_initialization(d, v, t)) goto END;
    } else if (d->phase == CT_PH_EVENT && !(t == d->tEv)) {
        /* still in the previous event's mode at another time: leave it, new event */
        if (ct_leave_event(d, v, t) || enter_event(d, v, t)) goto END;
    } else if (d->phase == CT_PH_CT) {
        if (enter_event(d, v, t)) goto END;
    } else if (d->phase != CT_PH_EVENT) {
        rt_log(ctx, 3, "logStatusError", "container: event handling before the "
               "initialization or after fmi2Terminate (t=%.17g)", t);
        goto END;
    }
    if (pass(d, v, t, flags, &more)) goto END;
    if (more) *flags |= MDL_EV_CHANGED;
    else d->nEvents += 1.0;
    /* y, dx, indicators consistent (event mode: states and time are the components' own) */
    if (ct_propagate(d, v, t, CT_ALLTYPES) || ct_finish(d, v, t, CT_OUTPUTS)) goto END;
    {
        double z[NARR_CT(N_Z)];
        mdl_zc(v, t, z);
        for (i = 0; i < N_Z; i++) v[OFF_M + i] = z[i] > 0.0 ? 1.0 : 0.0;
    }
    rc = 0;
END:
    ct_timed_end(d);
    return rc;
}

int mdl_calc_params(double *v, RtCtx *ctx)
{
    CtData *d = ct_data(ctx);
    int rc = 0;
    if (!d || (d->phase != CT_PH_EVENT && d->phase != CT_PH_CT)) return 0;  /* mdl_initialize forwards */
    if (!any_tunable_changed(d, v)) return 0;
    ct_timed_begin(d, v);
    if (d->phase == CT_PH_EVENT) rc = forward_tunable(d, v, d->tEv);
    else d->fwdPending = 1;        /* components in continuous time: at the next event */
    ct_timed_end(d);
    return rc;
}
