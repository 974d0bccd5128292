/*
 * rt_me.c -- Model Exchange in the runtime's core (rt_core.h): event mode and continuous-time
 * mode, the event iteration pass by pass with its chattering tests, and the importer's access
 * to time, states, derivatives, event indicators and nominals.
 *
 * Contract: the importer integrates and locates events; the core evaluates lazily (rt_eval.c,
 * in parts in continuous-time mode) and applies the guards of rt_events.c: the chattering
 * tests when an event is complete (rt_ev_record) and the band watch (3) on the indicators the
 * importer reads and at each completed integrator step.  A failure of the model or a guard
 * moves the instance to the error state (RT_STATUS_ERROR with the message).
 */
#include <math.h>
#include <string.h>

#include "rt_impl.h"

int rt_me_enter_event_mode(RtCtx *c)
{
    c->state = RT_EVENT_MODE;
    c->meEventPasses = 0;
    c->meEvFlags = 0;
    rt_ev_begin(c);
    return RT_STATUS_OK;
}

/* one pass of the event iteration (fmi2NewDiscreteStates) */
int rt_me_new_discrete_states(RtCtx *c, const char *fn, RtEventInfo *info)
{
    int rc, flags = 0;
    int status = RT_STATUS_OK;
    rc = rt_ensure_eval(c);
    if (rc == 0) {
        if (c->meEventPasses == 0) rt_cycle_reset(c);
        rc = rt_ev_pass(c, 0, &flags);
    }
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: event handling failed at t=%.17g (model code %d)", fn, c->time, rc);
    }
    c->dirty = 0;   /* mdl_event ends with a consistent evaluation */
    if (flags & MDL_EV_TERMINATE) c->terminateRequested = 1;
    c->meEvFlags |= flags;
    if (flags & MDL_EV_CHANGED) {
        if (++c->meEventPasses > RT_MAX_ME_PASSES) {
            c->state = RT_ERROR;
            FAIL("%s: event iteration does not converge at t=%.17g (%d passes)", fn,
                 c->time, RT_MAX_ME_PASSES);
        }
    } else {
        c->meEventPasses = 0;
        rt_hold_offsets(c);
        if (c->meEvFlags & (MDL_EV_CHANGED | MDL_EV_REINIT)) {
            /* the event is complete: chattering tests, band watch (3) */
            char why[RT_WHY_LEN];
            if (rt_ev_record(c, c->time, why, sizeof why)) {
                c->state = RT_ERROR;
                FAIL("%s: %s", fn, why);
            }
            rt_band_setup(c, c->meEvFlags & MDL_EV_REINIT);
        }
        c->meEvFlags = 0;          /* a further call in this event mode starts afresh */
        rt_ev_begin(c);
    }
    c->nEvents++;
    info->newDiscreteStatesNeeded = (flags & MDL_EV_CHANGED) ? 1 : 0;
    info->terminateSimulation = c->terminateRequested ? 1 : 0;
    info->valuesOfContinuousStatesChanged = (flags & MDL_EV_REINIT) ? 1 : 0;
    if (flags & (MDL_EV_REINIT | MDL_EV_TERMINATE))
        rt_logf(c, RT_STATUS_OK, RT_LOG_EVENTS, "%s: t=%.17g%s%s", fn, c->time,
             (flags & MDL_EV_REINIT) ? " states reinitialized" : "",
             (flags & MDL_EV_TERMINATE) ? " terminate() called" : "");
END:
    return status;
}

int rt_me_enter_continuous_time_mode(RtCtx *c)
{
    c->state = RT_CT_MODE;
    return RT_STATUS_OK;
}

/* fmi2CompletedIntegratorStep: test (3) of rt_events.c on the importer's step (the runtime
   asks for no event itself: the importer locates them) */
int rt_me_completed_integrator_step(RtCtx *c, const char *fn, int *terminateSimulation)
{
    int status = RT_STATUS_OK;
    if (N_Z > 0) {                                  /* test (3), only while a watch is on */
        int k, on = 0;
        for (k = 0; k < N_Z; k++)
            if (c->zBand[k] != 0.0) on = 1;
        if (on) {
            const int rc = rt_ensure_eval(c);
            if (rc != 0) {
                c->state = RT_ERROR;
                FAIL("%s: model evaluation failed at t=%.17g (code %d)", fn, c->time, rc);
            }
            rt_zc_eval(c, c->v, c->time, c->z);
            k = rt_band_check(c, c->z);
            if (k >= 0) {
                char why[RT_WHY_LEN];
                rt_band_message(c, k, c->time, c->z[k], why, sizeof why);
                c->state = RT_ERROR;
                FAIL("%s: %s", fn, why);
            }
        }
    }
    *terminateSimulation = c->terminateRequested ? 1 : 0;
END:
    return status;
}

int rt_me_set_time(RtCtx *c, const char *fn, double time)
{
    int status = RT_STATUS_OK;
    if (!isfinite(time)) FAIL("%s: time = %g is not finite", fn, time);
    if (time != c->time) { c->time = time; rt_invalidate(c); }
END:
    return status;
}

int rt_me_set_states(RtCtx *c, const char *fn, const double x[], size_t nx)
{
    size_t i;
    int status = RT_STATUS_OK;
    if (nx != (size_t)N_X) FAIL("%s: nx = %lu, expected %d", fn, (unsigned long)nx, N_X);
    if (nx > 0 && !x) FAIL("%s: x is NULL", fn);
    for (i = 0; i < nx; i++)
        if (!isfinite(x[i]))
            FAIL("%s: state %s (vr=%d) = %g is not a finite number at t=%.17g", fn,
                 rt_var_name((unsigned int)(OFF_X + i)), (int)(OFF_X + i), x[i], c->time);
    for (i = 0; i < nx; i++) c->v[OFF_X + i] = x[i];
    rt_invalidate(c);
END:
    return status;
}

int rt_me_get_derivatives(RtCtx *c, const char *fn, double derivatives[], size_t nx)
{
    int rc;
    int status = RT_STATUS_OK;
    if (nx != (size_t)N_X) FAIL("%s: nx = %lu, expected %d", fn, (unsigned long)nx, N_X);
    if (nx > 0 && !derivatives) FAIL("%s: derivatives is NULL", fn);
    rc = rt_by_parts(c) ? rt_eval_part(c, RT_HAVE_DX) : rt_ensure_eval(c);
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: model evaluation failed at t=%.17g (code %d)", fn, c->time, rc);
    }
    if (nx > 0) memcpy(derivatives, c->v + OFF_DX, nx * sizeof(double));
END:
    return status;
}

int rt_me_get_event_indicators(RtCtx *c, const char *fn, double eventIndicators[], size_t ni)
{
    int rc, parts;
    int status = RT_STATUS_OK;
    if (ni != (size_t)N_Z) FAIL("%s: ni = %lu, expected %d", fn, (unsigned long)ni, N_Z);
    if (ni > 0 && !eventIndicators) FAIL("%s: eventIndicators is NULL", fn);
    parts = rt_by_parts(c);
    rc = !parts ? rt_ensure_eval(c) : (c->have & RT_HAVE_Z) ? 0 : rt_eval_part(c, RT_HAVE_DX);
    if (rc != 0) {
        c->state = RT_ERROR;
        FAIL("%s: model evaluation failed at t=%.17g (code %d)", fn, c->time, rc);
    }
    if (ni > 0 && parts) memcpy(eventIndicators, c->zPart, ni * sizeof(double));
    else if (ni > 0) rt_zc_eval(c, c->v, c->time, eventIndicators);
    if (ni > 0 && c->state == RT_CT_MODE) {        /* test (3) on the importer's trajectory */
        const int k = rt_band_check(c, eventIndicators);
        if (k >= 0) {
            char why[RT_WHY_LEN];
            rt_band_message(c, k, c->time, eventIndicators[k], why, sizeof why);
            c->state = RT_ERROR;
            FAIL("%s: %s", fn, why);
        }
    }
END:
    return status;
}

int rt_me_get_states(RtCtx *c, const char *fn, double x[], size_t nx)
{
    size_t i;
    int status = RT_STATUS_OK;
    if (nx != (size_t)N_X) FAIL("%s: nx = %lu, expected %d", fn, (unsigned long)nx, N_X);
    if (nx > 0 && !x) FAIL("%s: x is NULL", fn);
    for (i = 0; i < nx; i++) x[i] = c->v[OFF_X + i];
END:
    return status;
}

int rt_me_get_nominals(RtCtx *c, const char *fn, double x_nominal[], size_t nx)
{
    size_t i;
    int status = RT_STATUS_OK;
    if (nx != (size_t)N_X) FAIL("%s: nx = %lu, expected %d", fn, (unsigned long)nx, N_X);
    if (nx > 0 && !x_nominal) FAIL("%s: x_nominal is NULL", fn);
    for (i = 0; i < nx; i++) x_nominal[i] = c->xNominal[i];
END:
    return status;
}
