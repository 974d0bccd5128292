/*
 * rt_state.c -- the FMU state in the runtime's core (rt_core.h): a snapshot of the instance as
 * one contiguous byte block (header, GUID, v, the event watches, the input derivatives, the
 * running CS solver, and with hooks the model's bytes), which is also its serialized form,
 * with its checksum and validation.
 *
 * Contract: rt_fmustate_get writes a block (reusing one this FMU made), rt_fmustate_set
 * restores it after checking it (nothing is changed when the check fails: a foreign, freed,
 * corrupt or other FMU's block is refused with the reason); "save, continue", "save, restore,
 * continue" and "continue" are bit-identical, a solver step in progress included.  Blocks are
 * allocated and freed with the importer's memory functions.
 */
#include <math.h>
#include <string.h>

#include "rt_impl.h"

/* ------------------------------------------------------------------------- */
/* FMU state: one contiguous byte block, which is also the serialized form     */

#define RT_STATE_MAGIC "WCSFMUS"   /* + NUL = 8 bytes */
#define RT_STATE_VERSION 11u   /* 3: odeAuto (was padding); 4: auto code with back-off (rt_ode.h);
                                 5: chattering history + 2*N_Z doubles after v;
                                 6: multistep history (rt_ode_hist_len(N_X) doubles) after those;
                                 7: the running solver (RT_LIVE_LEN doubles) instead of it and
                                    of the controller history in the header;
                                 8: auto with Adams: odeProbe, the code's Adams and level bits,
                                    the probe's fields in the solver's record;
                                 9: the indicator offsets of held relations (N_Z doubles after
                                    the 2*N_Z of version 5);
                                 10: the input derivatives (RT_UDER_LEN doubles before the
                                    running solver);
                                 11: the input extrapolation's history after them */
/* the input derivatives in an FMU state (version 10): uD1, uD2 (N_U each), the polynomial uP
   (3*N_U), uPt, uPon, uDset; (version 11) the input extrapolation's uS (2*N_U), uXt, uXon --
   at these offsets (doubles) */
enum { UD_D1 = 0, UD_D2 = N_U, UD_P = 2 * N_U, UD_PT = 5 * N_U, UD_PON, UD_DSET, UD_S, UD_XT = UD_S + 2 * N_U,
       UD_XON, UD_END };
#define RT_UDER_LEN ((size_t)UD_END)

typedef struct {
    char magic[8];
    unsigned int version;
    unsigned int totalSize;
    unsigned int nv;
    unsigned int guidLen;
    int fmuType;
    int state;
    int stopDefined, toleranceDefined, terminateRequested, dirty, csEventPending;
    unsigned int checksum;   /* FNV-1a over the whole block with this field = 0 */
    double time, lastSuccessfulTime, tStart, tStop, tolerance, hHint;
    /* auto method (rt_auto.c): current sub-method and stiffness counters,
       rt_ode_auto_save() code (0 = initial); saved whether or not the solver is running (a
       restart keeps them; the running solver's record has them too) */
    int odeAuto;
    /* event chattering / Zeno tests (version 5): event history, run, ME event flags;
       the N_Z memories at the event start (mEv) and band watches (zBand) follow v */
    int evHead, evN, zenoRun, meEvFlags;
    /* auto method: accepted explicit steps to its next cost probe (rt_ode_auto_save; version
       8, in what was padding) */
    int odeProbe;
    double evTotal, zenoT0, tBand;
    double evHist[RT_EV_HIST];
} RtStateHeader;

/* The block's checksum: FNV-1a over its 64-bit words (the checksum field taken as 0, a tail
   of fewer than 8 bytes zero-padded) in four interleaved lanes (word k goes to lane k mod 4),
   combined and folded to 32 bits.  Version 7: byte by byte the check was most of the cost of
   an fmi2GetFMUstate / fmi2FreeFMUstate pair (each checks the block): the hybrid mechanism's
   Co-Simulation run with a state taken and freed at each of 2000 points took 21 ms against
   1.5 ms without; 4 lanes of words: 3.4 ms. */
#define FNV64_PRIME 1099511628211ull
static void fnv_lanes(unsigned long long *l, size_t *k, const unsigned char *p, size_t n)
{
    size_t i = 0;
    unsigned long long w;
    for (; i < n && (*k & 3u); i += 8, (*k)++) {
        w = 0;
        memcpy(&w, p + i, n - i < 8 ? n - i : 8);
        l[*k & 3u] = (l[*k & 3u] ^ w) * FNV64_PRIME;
    }
    for (; i + 32 <= n; i += 32, *k += 4) {
        unsigned long long w0, w1, w2, w3;
        memcpy(&w0, p + i, 8);
        memcpy(&w1, p + i + 8, 8);
        memcpy(&w2, p + i + 16, 8);
        memcpy(&w3, p + i + 24, 8);
        l[0] = (l[0] ^ w0) * FNV64_PRIME;
        l[1] = (l[1] ^ w1) * FNV64_PRIME;
        l[2] = (l[2] ^ w2) * FNV64_PRIME;
        l[3] = (l[3] ^ w3) * FNV64_PRIME;
    }
    for (; i < n; i += 8, (*k)++) {
        w = 0;
        memcpy(&w, p + i, n - i < 8 ? n - i : 8);
        l[*k & 3u] = (l[*k & 3u] ^ w) * FNV64_PRIME;
    }
}

static unsigned int state_checksum(const unsigned char *buf, size_t n)
{
    RtStateHeader h;   /* (its size is a multiple of 8: it holds doubles) */
    unsigned long long l[4] = { 14695981039346656037ull, 14695981039346656037ull ^ 1u,
                                14695981039346656037ull ^ 2u, 14695981039346656037ull ^ 3u };
    unsigned long long x;
    size_t k = 0;
    const size_t nh = sizeof h < n ? sizeof h : n;
    memcpy(&h, buf, nh);
    memset(&h.checksum, 0, sizeof h.checksum);
    fnv_lanes(l, &k, (const unsigned char *)&h, nh);
    fnv_lanes(l, &k, buf + nh, n - nh);
    x = ((((l[0] ^ l[1]) * FNV64_PRIME) ^ l[2]) * FNV64_PRIME ^ l[3]) * FNV64_PRIME;
    return (unsigned int)(x ^ (x >> 32));
}

static size_t state_guid_space(void)
{
    return (sizeof(MODEL_GUID) + 7u) & ~(size_t)7u;
}

static size_t state_size(void)
{
    return sizeof(RtStateHeader) + state_guid_space() +
           ((size_t)(NV + 3 * N_Z) + RT_LIVE_LEN + RT_UDER_LEN) * sizeof(double);
}

/* byte offsets in an FMU state: the input derivatives after v and the 3*N_Z event doubles, the
   running solver last (a block's end: tests find it there) */
static size_t state_uder_offset(void)
{
    return sizeof(RtStateHeader) + state_guid_space() + (size_t)(NV + 3 * N_Z) * sizeof(double);
}

static size_t state_live_offset(void)
{
    return state_uder_offset() + RT_UDER_LEN * sizeof(double);
}

static void uder_write(const RtCtx *c, unsigned char *buf)
{
    double *p = (double *)(void *)(buf + state_uder_offset());
    memcpy(p + UD_D1, c->uD1, (size_t)N_U * sizeof(double));
    memcpy(p + UD_D2, c->uD2, (size_t)N_U * sizeof(double));
    memcpy(p + UD_P, c->uP, 3 * (size_t)N_U * sizeof(double));
    p[UD_PT] = c->uPt;
    p[UD_PON] = c->uPon;
    p[UD_DSET] = c->uDset;
    memcpy(p + UD_S, c->uS, 2 * (size_t)N_U * sizeof(double));
    p[UD_XT] = c->uXt;
    p[UD_XON] = c->uXon;
}

/* 1 if the input derivatives of a block are valid */
static int uder_check(const unsigned char *buf)
{
    double p[RT_UDER_LEN];
    memcpy(p, buf + state_uder_offset(), sizeof p);
    return rt_ode_all_finite((int)RT_UDER_LEN, p) && (p[UD_PON] == 0.0 || p[UD_PON] == 1.0) &&
           (p[UD_DSET] == 0.0 || p[UD_DSET] == 1.0) && (p[UD_XON] == 0.0 || p[UD_XON] == 1.0);
}

static void uder_read(RtCtx *c, const unsigned char *buf)
{
    const double *p = (const double *)(const void *)(buf + state_uder_offset());
    memcpy(c->uD1, p + UD_D1, (size_t)N_U * sizeof(double));
    memcpy(c->uD2, p + UD_D2, (size_t)N_U * sizeof(double));
    memcpy(c->uP, p + UD_P, 3 * (size_t)N_U * sizeof(double));
    c->uPt = p[UD_PT];
    c->uPon = p[UD_PON] != 0.0;
    c->uDset = p[UD_DSET] != 0.0;
    c->uDnz = 1;                   /* (uD1, uD2 as saved: cleared after the next step) */
    memcpy(c->uS, p + UD_S, 2 * (size_t)N_U * sizeof(double));
    c->uXt = p[UD_XT];
    c->uXon = p[UD_XON] != 0.0;
}

/* The running CS solver in an FMU state (version 7), RT_LIVE_LEN doubles: 0 = 1 when
 * present, 1 c->ahead, 2 c->aheadEvent, 3 c->aheadTev, then the event indicators zOld and z
 * (N_Z each: at the start and the end of the step in progress) and the solver
 * (rt_ode_live_save).  Saved whenever the solver is running, so that an FMU state taken in
 * the middle of a solver step (one reaching past the communication point) changes nothing:
 * "save, continue", "save, restore, continue" and "continue" are bit-identical.  (Before,
 * fmi2GetFMUstate cut such a step at the communication point and restarted the solver there,
 * which changed the continuing run: a master saving every step, for a rollback, also
 * limited every solver step to one communication step.) */
static void live_write(const RtCtx *c, double *p)
{
    memset(p, 0, RT_LIVE_LEN * sizeof(double));
    if (N_X == 0) return;
    if (c->ode && !c->odeRestart) {
        p[0] = 1.0;
        p[1] = c->ahead;
        p[2] = c->aheadEvent;
        p[3] = c->aheadTev;
        if (N_Z > 0) {
            memcpy(p + RT_LIVE_HDR, c->zOld, (size_t)N_Z * sizeof(double));
            memcpy(p + RT_LIVE_HDR + N_Z, c->z, (size_t)N_Z * sizeof(double));
        }
        rt_ode_live_save(c->ode, p + RT_LIVE_HDR + 2 * N_Z);
    } else if (c->odeResume) {   /* restored, not stepped yet */
        memcpy(p, c->liveBuf, RT_LIVE_LEN * sizeof(double));
    }
}

/* load the running solver of a restored state into s (of the method it was saved with):
   1 done, 0 not possible (another method, or an invalid record) */
int rt_live_load(RtCtx *c, RtOde *s)
{
    const double *p = c->liveBuf, *q = p + RT_LIVE_HDR + 2 * N_Z;   /* q: rt_ode_live_save */
    const double tol = 1e-9 * (fabs(c->time) > 1.0 ? fabs(c->time) : 1.0);
    if (p[0] != 1.0 || (p[1] != 0.0 && p[1] != 1.0) || (p[2] != 0.0 && p[2] != 1.0) ||
        !isfinite(p[3]) || !rt_ode_all_finite(2 * N_Z, p + RT_LIVE_HDR))
        return 0;
    /* the step covers the saved time (ahead), or ends there: else a restart */
    if (p[1] != 0.0 ? !(q[4] <= c->time + tol && c->time <= q[3] + tol)
                    : !(fabs(q[3] - c->time) <= tol))
        return 0;
    if (!rt_ode_live_load(s, q)) return 0;
    c->ahead = p[1] != 0.0;
    c->aheadEvent = p[2] != 0.0;
    c->aheadTev = p[3];
    if (N_Z > 0) {
        memcpy(c->zOld, p + RT_LIVE_HDR, (size_t)N_Z * sizeof(double));
        memcpy(c->z, p + RT_LIVE_HDR + N_Z, (size_t)N_Z * sizeof(double));
    }
    return 1;
}

/* Sizes of FMU-state blocks.  STATE_TOTAL(c): of the block state_write writes;
 * STATE_SIZE_OF(b): of a block already checked (state_check); STATE_MEM: the size bound
 * given to state_check for a block in memory (a block this FMU allocated);
 * STATE_SIZE_BAD(h): the header's totalSize is impossible.  With hooks (model_api.h H1) the
 * runtime's part (state_size()) is followed by the model's bytes, so a block's size is its
 * header's totalSize; otherwise every block has state_size() bytes. */
#ifdef MDL_HAS_HOOKS
static size_t state_block_size(const void *buf)
{
    RtStateHeader h;
    memcpy(&h, buf, sizeof h);
    return h.totalSize;
}
#define STATE_TOTAL(c) (state_size() + RT_HOOKED(c)->stateExtra)
#define STATE_SIZE_OF(b) state_block_size(b)
#define STATE_MEM (~(size_t)0)
#define STATE_SIZE_BAD(h) ((h).totalSize < state_size() || ((h).totalSize - state_size()) % 8u != 0)
#else
#define STATE_TOTAL(c) state_size()
#define STATE_SIZE_OF(b) state_size()
#define STATE_MEM state_size()
#define STATE_SIZE_BAD(h) ((h).totalSize != state_size())
#endif

static void state_write(const RtCtx *c, unsigned char *buf)
{
    RtStateHeader h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, RT_STATE_MAGIC, 8);
    h.version = RT_STATE_VERSION;
    h.totalSize = (unsigned int)STATE_TOTAL(c);
    h.nv = (unsigned int)NV;
    h.guidLen = (unsigned int)(sizeof(MODEL_GUID) - 1);
    h.fmuType = (int)c->type;
    h.state = (int)c->state;
    h.stopDefined = c->stopDefined;
    h.toleranceDefined = c->toleranceDefined;
    h.terminateRequested = c->terminateRequested;
    h.dirty = c->dirty;
    h.csEventPending = c->csEventPending;
    h.time = c->time;
    h.lastSuccessfulTime = c->lastSuccessfulTime;
    h.tStart = c->tStart;
    h.tStop = c->tStop;
    h.tolerance = c->tolerance;
    h.hHint = c->ode && !c->odeRestart ? c->ode->h : c->hHint;
    if (c->resumeAuto >= 0) {
        h.odeAuto = c->resumeAuto;
        h.odeProbe = c->resumeProbe;
    } else if (c->ode) {
        h.odeAuto = rt_ode_auto_save(c->ode, &h.odeProbe);
    } else {
        h.odeProbe = PROBE_FIRST;   /* (the initial state, as a new solver has it) */
    }
    h.evHead = c->evHead;
    h.evN = c->evN;
    h.zenoRun = c->zenoRun;
    h.meEvFlags = c->meEvFlags;
    h.evTotal = (double)c->evTotal;
    h.zenoT0 = c->zenoT0;
    h.tBand = c->tBand;
    memcpy(h.evHist, c->evHist, sizeof h.evHist);
    memcpy(buf, &h, sizeof h);
    memset(buf + sizeof h, 0, state_guid_space());
    memcpy(buf + sizeof h, MODEL_GUID, sizeof(MODEL_GUID) - 1);
    memcpy(buf + sizeof h + state_guid_space(), c->v, (size_t)NV * sizeof(double));
    if (N_Z > 0) {
        unsigned char *p = buf + sizeof h + state_guid_space() + (size_t)NV * sizeof(double);
        memcpy(p, c->mEv, (size_t)N_Z * sizeof(double));
        memcpy(p + (size_t)N_Z * sizeof(double), c->zBand, (size_t)N_Z * sizeof(double));
        memcpy(p + 2 * (size_t)N_Z * sizeof(double), c->zOff, (size_t)N_Z * sizeof(double));
    }
    live_write(c, (double *)(void *)(buf + state_live_offset()));
    uder_write(c, buf);
    h.checksum = state_checksum(buf, STATE_TOTAL(c));   /* (with the model's part, H1) */
    memcpy(buf, &h, sizeof h);
}

/* validate a block; returns NULL if fine, else a reason */
static const char *state_check(const RtCtx *c, const unsigned char *buf, size_t size)
{
    RtStateHeader h;
    const unsigned int okStates = RT_INSTANTIATED | RT_INIT_MODE | RT_EVENT_MODE |
                                  RT_CT_MODE | RT_STEP_COMPLETE | RT_STEP_FAILED |
                                  RT_STEP_CANCELED | RT_TERMINATED | RT_ERROR;
    if (!buf) return "NULL state";
    if (size < sizeof h) return "data too short";
    /* look at the magic first: a foreign pointer is read as little as possible */
    if (memcmp(buf, RT_STATE_MAGIC, 8) != 0) return "not a wearcosim FMU state";
    memcpy(&h, buf, sizeof h);
    if (h.version != RT_STATE_VERSION) return "unsupported state version";
    if (STATE_SIZE_BAD(h) || size < h.totalSize) return "size mismatch";
    if (h.nv != (unsigned int)NV || h.guidLen != sizeof(MODEL_GUID) - 1 ||
        memcmp(buf + sizeof h, MODEL_GUID, sizeof(MODEL_GUID) - 1) != 0)
        return "state belongs to a different FMU (GUID mismatch)";
    if (h.fmuType != (int)c->type) return "state of a different FMU type (ME/CS)";
    if (h.checksum != state_checksum(buf, h.totalSize)) return "checksum mismatch (corrupt data)";
    if (!(h.state & okStates) || (h.state & (h.state - 1))) return "corrupt instance state";
    if (h.evHead < 0 || h.evHead >= RT_EV_HIST || h.evN < 0 || h.evN > RT_EV_HIST ||
        h.zenoRun < 0)
        return "corrupt event history";
    if (!uder_check(buf)) return "corrupt input derivatives";
#ifdef MDL_HAS_HOOKS
    if (mdl_hook_state_check((RtCtx *)c, buf + state_size(), h.totalSize - state_size()) != 0)
        return "the model's part is invalid";
#endif
    return NULL;
}

static void state_read(RtCtx *c, const unsigned char *buf)
{
    RtStateHeader h;
    memcpy(&h, buf, sizeof h);
    c->state = (RtState)h.state;
    c->stopDefined = h.stopDefined;
    c->toleranceDefined = h.toleranceDefined;
    c->terminateRequested = h.terminateRequested;
    c->dirty = h.dirty;
    rt_forget_parts(c);
    c->stale = 0;
    c->csEventPending = h.csEventPending;
    c->time = h.time;
    c->lastSuccessfulTime = h.lastSuccessfulTime;
    c->tStart = h.tStart;
    c->tStop = h.tStop;
    c->tolerance = h.tolerance;
    c->hHint = h.hHint;
    memcpy(c->v, buf + sizeof h + state_guid_space(), (size_t)NV * sizeof(double));
    if (N_Z > 0) {
        const unsigned char *p = buf + sizeof h + state_guid_space() + (size_t)NV * sizeof(double);
        memcpy(c->mEv, p, (size_t)N_Z * sizeof(double));
        memcpy(c->zBand, p + (size_t)N_Z * sizeof(double), (size_t)N_Z * sizeof(double));
        memcpy(c->zOff, p + 2 * (size_t)N_Z * sizeof(double), (size_t)N_Z * sizeof(double));
    }
    c->nOff = 0;
    {
        int k;
        for (k = 0; k < N_Z; k++) if (c->zOff[k] != 0.0) c->nOff++;
    }
    memcpy(c->liveBuf, buf + state_live_offset(), RT_LIVE_LEN * sizeof(double));
    uder_read(c, buf);
    c->evHead = h.evHead;
    c->evN = h.evN;
    c->zenoRun = h.zenoRun;
    c->meEvFlags = h.meEvFlags;
    c->evTotal = (long)h.evTotal;
    c->zenoT0 = h.zenoT0;
    c->tBand = h.tBand;
    memcpy(c->evHist, h.evHist, sizeof c->evHist);
    c->odeRestart = 1;
    c->odeResume = c->liveBuf[0] == 1.0;
    c->resumeAuto = h.odeAuto & (AUTO_CODE_LIMIT - 1);
    c->resumeProbe = h.odeProbe;
    c->meEventPasses = 0;
}

int rt_fmustate_get(RtCtx *c, const char *fn, void **FMUstate)
{
    unsigned char *buf;
    int status = RT_STATUS_OK;
    if (!FMUstate) FAIL("%s: FMUstate is NULL", fn);
    buf = (unsigned char *)*FMUstate;
    if (buf && state_check(c, buf, STATE_MEM) != NULL)
        FAIL("%s: *FMUstate is not a state previously returned by this FMU", fn);
    /* a saved v is complete: evaluate outputs the solver left stale (deterministic and
       leaves x unchanged, so continuing is the same with or without this call) */
    if (c->stale && rt_ensure_eval(c) != 0)
        FAIL("%s: model evaluation failed at t=%.17g", fn, c->time);
#ifdef MDL_HAS_HOOKS
    if (mdl_hook_state_size(c, &RT_HOOKED(c)->stateExtra) != 0 ||
        RT_HOOKED(c)->stateExtra % 8u != 0)
        FAIL("%s: the model's state cannot be saved at t=%.17g", fn, c->time);
    if (buf && STATE_SIZE_OF(buf) != STATE_TOTAL(c)) {   /* another size: a new block */
        memset(buf, 0, 8);
        rt_free(c, buf);
        *FMUstate = buf = NULL;
    }
#endif
    if (!buf) {
        buf = (unsigned char *)rt_calloc(c, STATE_TOTAL(c), 1);
        if (!buf) FAIL("%s: out of memory", fn);
    }
#ifdef MDL_HAS_HOOKS
    if (mdl_hook_state_write(c, buf + state_size(), RT_HOOKED(c)->stateExtra) != 0) {
        memset(buf, 0, 8);
        rt_free(c, buf);
        *FMUstate = NULL;
        FAIL("%s: the model's state cannot be saved at t=%.17g", fn, c->time);
    }
#endif
    state_write(c, buf);
    *FMUstate = buf;
END:
    return status;
}

int rt_fmustate_set(RtCtx *c, const char *fn, const void *FMUstate)
{
    const char *why;
    int status = RT_STATUS_OK;
    why = state_check(c, (const unsigned char *)FMUstate, STATE_MEM);
    if (why) FAIL("%s: invalid FMU state: %s", fn, why);
#ifdef MDL_HAS_HOOKS
    if (mdl_hook_state_read(c, (const unsigned char *)FMUstate + state_size(),
                            STATE_SIZE_OF(FMUstate) - state_size()) != 0)
        FAIL("%s: the model's part of the FMU state cannot be restored", fn);
#endif
    state_read(c, (const unsigned char *)FMUstate);
END:
    return status;
}

int rt_fmustate_free(RtCtx *c, const char *fn, void **FMUstate)
{
    int status = RT_STATUS_OK;
    if (!FMUstate || !*FMUstate) goto END;
    if (state_check(c, (const unsigned char *)*FMUstate, STATE_MEM) != NULL)
        FAIL("%s: not a state of this FMU", fn);
    memset(*FMUstate, 0, 8);   /* kill the magic: catches double free */
    rt_free(c, *FMUstate);
    *FMUstate = NULL;
END:
    return status;
}

int rt_fmustate_size(RtCtx *c, const char *fn, const void *FMUstate, size_t *size)
{
    const char *why;
    int status = RT_STATUS_OK;
    if (!size) FAIL("%s: size is NULL", fn);
    why = state_check(c, (const unsigned char *)FMUstate, STATE_MEM);
    if (why) FAIL("%s: invalid FMU state: %s", fn, why);
    *size = STATE_SIZE_OF(FMUstate);
END:
    return status;
}

int rt_fmustate_serialize(RtCtx *c, const char *fn, const void *FMUstate, char serializedState[],
                          size_t size)
{
    const char *why;
    int status = RT_STATUS_OK;
    why = state_check(c, (const unsigned char *)FMUstate, STATE_MEM);
    if (why) FAIL("%s: invalid FMU state: %s", fn, why);
    if (!serializedState || size < STATE_SIZE_OF(FMUstate))
        FAIL("%s: buffer too small (%lu < %lu bytes)", fn, (unsigned long)size,
             (unsigned long)STATE_SIZE_OF(FMUstate));
    memcpy(serializedState, FMUstate, STATE_SIZE_OF(FMUstate));
END:
    return status;
}

int rt_fmustate_deserialize(RtCtx *c, const char *fn, const char serializedState[], size_t size,
                            void **FMUstate)
{
    const char *why;
    unsigned char *buf;
    int status = RT_STATUS_OK;
    if (!FMUstate) FAIL("%s: FMUstate is NULL", fn);
    why = state_check(c, (const unsigned char *)serializedState, size);
    if (why) FAIL("%s: invalid serialized state: %s", fn, why);
    buf = (unsigned char *)*FMUstate;
    if (buf && state_check(c, buf, STATE_MEM) != NULL)
        FAIL("%s: *FMUstate is not NULL and not a state of this FMU", fn);
#ifdef MDL_HAS_HOOKS
    if (buf && STATE_SIZE_OF(buf) != STATE_SIZE_OF(serializedState)) {   /* another size */
        memset(buf, 0, 8);
        rt_free(c, buf);
        *FMUstate = buf = NULL;
    }
#endif
    if (!buf) buf = (unsigned char *)rt_calloc(c, STATE_SIZE_OF(serializedState), 1);
    if (!buf) FAIL("%s: out of memory", fn);
    memcpy(buf, serializedState, STATE_SIZE_OF(serializedState));
    *FMUstate = buf;
END:
    return status;
}
