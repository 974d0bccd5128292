/*
 * ct_state.c -- the FMU-state hooks of the container (model_api.h H1): the container's FMU
 * state is the runtime's block (v, times, solver history) followed by these bytes:
 *
 *   CtStateHdr   magic, version, counts, phase, tEv, fwdPending
 *   xSet[N_X], lastFwd[CT_N_FWD], lastSet[CT_N_ACTVAL]   (what the components have)
 *   per component: CtStateComp (need, timeSet, xValid, tSet, size) + its serialized FMU
 *                  state (fmi2GetFMUstate + fmi2SerializeFMUstate), padded to 8 bytes
 *
 * so that a state saved, serialized, deserialized (also into another instance of the same
 * container FMU) and restored continues exactly as the original.  Restoring deserializes
 * every component's part first (each component validates its own) and only then sets them.
 */
#include <math.h>
#include <string.h>

#include "container.h"

#define CT_STATE_MAGIC "WCCTNR1"   /* + NUL = 8 bytes */
#define CT_STATE_VERSION 1u

typedef struct {
    char magic[8];
    unsigned int version, ncomp, nx, nfwd, nactval, pad;
    int phase, fwdPending;
    double tEv;
} CtStateHdr;

typedef struct {
    int need, timeSet, xValid, pad;
    double tSet;
    double size;                 /* bytes of its serialized state (a whole number) */
} CtStateComp;

#define PAD8(n) (((n) + 7u) & ~(size_t)7u)

static size_t fixed_size(void)
{
    return sizeof(CtStateHdr) +
           (size_t)(N_X + CT_N_FWD + CT_N_ACTVAL) * sizeof(double);
}

int mdl_hook_state_size(RtCtx *ctx, size_t *n)
{
    CtData *d = ct_data(ctx);
    size_t total = fixed_size();
    int i;
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        size_t sz = 0;
        double t0;
        fmi2Status st;
        if (k->broken && ct_restore(d, k, d->tEv)) return 1;
        t0 = ct_call_begin(d);
        st = k->f.getFMUstate(k->inst, &k->scratch);
        if (ct_call_end(d, k, "fmi2GetFMUstate", t0, st, d->tEv)) return 1;
        t0 = ct_call_begin(d);
        st = k->f.serializedFMUstateSize(k->inst, k->scratch, &sz);
        if (ct_call_end(d, k, "fmi2SerializedFMUstateSize", t0, st, d->tEv)) return 1;
        k->scratchSize = sz;
        total += sizeof(CtStateComp) + PAD8(sz);
    }
    *n = total;
    return 0;
}

int mdl_hook_state_write(RtCtx *ctx, unsigned char *buf, size_t n)
{
    CtData *d = ct_data(ctx);
    CtStateHdr h;
    size_t off;
    int i;
    memset(buf, 0, n);
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CT_STATE_MAGIC, 8);
    h.version = CT_STATE_VERSION;
    h.ncomp = CT_NCOMP;
    h.nx = N_X;
    h.nfwd = CT_N_FWD;
    h.nactval = CT_N_ACTVAL;
    h.phase = d->phase;
    h.fwdPending = d->fwdPending;
    h.tEv = d->tEv;
    memcpy(buf, &h, sizeof h);
    off = sizeof h;
    memcpy(buf + off, d->xSet, (size_t)N_X * sizeof(double));
    off += (size_t)N_X * sizeof(double);
    memcpy(buf + off, d->lastFwd, (size_t)CT_N_FWD * sizeof(double));
    off += (size_t)CT_N_FWD * sizeof(double);
    memcpy(buf + off, d->lastSet, (size_t)CT_N_ACTVAL * sizeof(double));
    off += (size_t)CT_N_ACTVAL * sizeof(double);
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        CtStateComp sc;
        double t0;
        fmi2Status st;
        if (off + sizeof sc + PAD8(k->scratchSize) > n) return 1;
        memset(&sc, 0, sizeof sc);
        sc.need = k->need;
        sc.timeSet = k->timeSet;
        sc.xValid = k->xValid;
        sc.tSet = k->tSet;
        sc.size = (double)k->scratchSize;
        memcpy(buf + off, &sc, sizeof sc);
        off += sizeof sc;
        t0 = ct_call_begin(d);
        st = k->f.serializeFMUstate(k->inst, k->scratch, (fmi2Byte *)(buf + off), k->scratchSize);
        if (ct_call_end(d, k, "fmi2SerializeFMUstate", t0, st, d->tEv)) return 1;
        off += PAD8(k->scratchSize);
    }
    return off == n ? 0 : 1;
}

/* the layout of buf: 0 ok; the components' offsets and sizes if offs/sizes given */
static int parse(const unsigned char *buf, size_t n, size_t *offs, size_t *sizes)
{
    CtStateHdr h;
    size_t off;
    int i;
    if (n < fixed_size()) return 1;
    memcpy(&h, buf, sizeof h);
    if (memcmp(h.magic, CT_STATE_MAGIC, 8) != 0 || h.version != CT_STATE_VERSION ||
        h.ncomp != CT_NCOMP || h.nx != N_X || h.nfwd != CT_N_FWD || h.nactval != CT_N_ACTVAL ||
        h.phase < CT_PH_INSTANTIATED || h.phase > CT_PH_TERMINATED)
        return 1;
    off = fixed_size();
    for (i = 0; i < CT_NCOMP; i++) {
        CtStateComp sc;
        size_t sz;
        if (off + sizeof sc > n) return 1;
        memcpy(&sc, buf + off, sizeof sc);
        off += sizeof sc;
        if (!(sc.size >= 0.0) || sc.size > (double)(n - off) || sc.size != floor(sc.size)) return 1;
        sz = (size_t)sc.size;
        if (PAD8(sz) > n - off) return 1;
        if (offs) offs[i] = off;
        if (sizes) sizes[i] = sz;
        off += PAD8(sz);
    }
    return off == n ? 0 : 1;
}

int mdl_hook_state_check(RtCtx *ctx, const unsigned char *buf, size_t n)
{
    (void)ctx;
    return parse(buf, n, NULL, NULL);
}

int mdl_hook_state_read(RtCtx *ctx, const unsigned char *buf, size_t n)
{
    CtData *d = ct_data(ctx);
    size_t offs[NARR_CT(CT_NCOMP)], sizes[NARR_CT(CT_NCOMP)];
    CtStateHdr h;
    size_t off;
    int i;
    if (parse(buf, n, offs, sizes) != 0) {
        rt_log(ctx, 3, "logStatusError", "container: invalid container part of the FMU state");
        return 1;
    }
    /* 1. every component's part into its scratch state (each validates its own) */
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        const double t0 = ct_call_begin(d);
        const fmi2Status st = k->f.deSerializeFMUstate(k->inst, (const fmi2Byte *)(buf + offs[i]),
                                                       sizes[i], &k->scratch);
        if (ct_call_end(d, k, "fmi2DeSerializeFMUstate", t0, st, d->tEv)) return 1;
    }
    /* 2. set them */
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        const double t0 = ct_call_begin(d);
        const fmi2Status st = k->f.setFMUstate(k->inst, k->scratch);
        if (ct_call_end(d, k, "fmi2SetFMUstate", t0, st, d->tEv)) return 1;
    }
    /* 3. what the container knows of them */
    memcpy(&h, buf, sizeof h);
    d->phase = h.phase;
    d->fwdPending = h.fwdPending;
    d->tEv = h.tEv;
    off = sizeof h;
    memcpy(d->xSet, buf + off, (size_t)N_X * sizeof(double));
    off += (size_t)N_X * sizeof(double);
    memcpy(d->lastFwd, buf + off, (size_t)CT_N_FWD * sizeof(double));
    off += (size_t)CT_N_FWD * sizeof(double);
    memcpy(d->lastSet, buf + off, (size_t)CT_N_ACTVAL * sizeof(double));
    off += (size_t)CT_N_ACTVAL * sizeof(double);
    for (i = 0; i < CT_NCOMP; i++) {
        CtComp *k = &d->comp[i];
        CtStateComp sc;
        memcpy(&sc, buf + off, sizeof sc);
        off += sizeof sc + PAD8(sizes[i]);
        k->need = sc.need;
        k->timeSet = sc.timeSet;
        k->xValid = sc.xValid;
        k->tSet = sc.tSet;
        k->broken = 0;
        k->snapValid = 0;
        k->lastMsg[0] = '\0';
    }
    /* recovery snapshots: the restored states (discrete states are those of its last event) */
    if (d->phase == CT_PH_CT) ct_snapshot(d);
    return 0;
}
