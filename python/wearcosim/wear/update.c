/*
 * update.c -- the arithmetic of one wear update of the master (wearcosim.wear.update.WearUpdate)
 * in C: a handful of loops over the n sectors instead of some forty numpy calls on arrays of a
 * few dozen values, whose per-call cost is what a wear update took.
 *
 * The same operations in the same order as the numpy code each function names (no fused
 * multiply-add: cext compiles with -std=c99, which turns contraction off), so the results are
 * those of numpy bit for bit (tests/wear/test_wear_update.py compares them on random profiles):
 *  - wc_rate: s = S_w(pending) (reconstruction.smooth_periodic: the periodic window sums
 *    roll(x, k) for k = -w..w starting from 0.0, then divides by 2w + 1; the open one differences
 *    the cumulative sum), rate = s / m;
 *  - wc_errors: extrapolation._errors of (before, after): err and the local errors E;
 *  - wc_profile: reconstruction.update_profile's validation of the increment and
 *    next = depth + factor * s, then the figures the master's guards look at
 *    (reconstruction.guard_stats): the first non-finite sector of next, the largest change
 *    |next - depth| and the deepest sector (numpy's argmax: the first of equal values).
 * Maxima follow numpy's maximum (a NaN wins) and Python's max() where the numpy code uses it.
 */
#include <math.h>

typedef struct {
    long n;             /* sectors */
    long w;             /* smoothing half-width (<= 0: none) */
    long periodic;      /* closed surface: the window wraps around */
    double *pending;    /* n: the window's wear (in) */
    double *s;          /* n: S_w(pending) (out) */
    double *rate;       /* n: s / m (out) */
    double *before;     /* n: wc_errors' earlier rate (in) */
    double *after;      /* n: wc_errors' later rate (in) */
    double *local;      /* n: E = J/2 |after - before| (out) */
    double *depth;      /* n: the profile before the update (in) */
    double *next;       /* n: depth + factor * s (out) */
    double *work;       /* n + 1: scratch */
    double m, jump, rtol, floor, factor;     /* (in) */
    double out[6];      /* (out) see each function */
} WcUpdate;

/* numpy's maximum: a NaN in either wins */
static double np_max(double a, double b)
{
    return (a >= b || a != a) ? a : b;
}

/* s = S_w(pending) */
static void smooth(WcUpdate *a)
{
    const long n = a->n, w = a->w;
    const double *x = a->pending;
    long i, k;
    if (w <= 0) {
        for (i = 0; i < n; i++) a->s[i] = x[i];
    } else if (a->periodic) {
        const double width = (double)(2 * w + 1);
        for (i = 0; i < n; i++) {
            double acc = 0.0;
            for (k = -w; k <= w; k++) {        /* roll(x, k)[i] = x[(i - k) mod n] */
                long j = (i - k) % n;
                if (j < 0) j += n;
                acc += x[j];
            }
            a->s[i] = acc / width;
        }
    } else {
        /* c = [0, cumsum(x)] (numpy's cumsum: its first value is x[0] itself) in work[0..n];
           s[i] = (c[hi] - c[lo]) / (hi - lo) */
        double *c = a->work;
        c[0] = 0.0;
        for (i = 0; i < n; i++) c[i + 1] = i == 0 ? x[0] : c[i] + x[i];
        for (i = 0; i < n; i++) {
            const long lo = i - w < 0 ? 0 : i - w;
            const long hi = i + w + 1 > n ? n : i + w + 1;
            a->s[i] = (c[hi] - c[lo]) / (double)(hi - lo);
        }
    }
}

/* s = S_w(pending), rate = s / m; out[0] = the largest |rate| (0 for none; numpy's maximum) */
void wc_rate(WcUpdate *a)
{
    const long n = a->n;
    double peak = 0.0;
    long i;
    smooth(a);
    for (i = 0; i < n; i++) {
        const double r = a->s[i] / a->m;
        a->rate[i] = r;
        peak = np_max(peak, fabs(r));
    }
    a->out[0] = peak;
}

/* extrapolation._errors(jump, before, after, rtol, floor): local[i] = (0.5 jump) |after - before|,
   out[0] = the normalised error, out[1] = the largest local error (initial 0) */
void wc_errors(WcUpdate *a)
{
    const long n = a->n;
    const double half = 0.5 * a->jump, twice = 2.0 * a->rtol;
    double pb = 0.0, pa = 0.0, peak, fp, err = 0.0, lmax = 0.0;
    long i;
    for (i = 0; i < n; i++) {
        const double d = fabs(a->after[i] - a->before[i]);
        a->work[i] = d;                  /* (read again below) */
        a->local[i] = half * d;
        lmax = np_max(lmax, a->local[i]);
        pb = np_max(pb, fabs(a->before[i]));
        pa = np_max(pa, fabs(a->after[i]));
    }
    peak = pa > pb ? pa : pb;            /* Python's max(pb, pa) */
    a->out[1] = lmax;
    if (peak == 0.0) {
        a->out[0] = 0.0;
        return;
    }
    fp = a->floor * peak;
    for (i = 0; i < n; i++) {
        const double q = a->work[i] / (twice * (fabs(a->before[i]) + fp));
        err = i == 0 ? q : np_max(err, q);
    }
    a->out[0] = err;
}

/* update_profile's validation of pending (returns -1: not finite and non-negative), then
   s = S_w(pending), next = depth + factor * s and the guards' figures: out[0] = the first non-finite sector of
   next (-1: none), out[1], out[2] = the sector of the largest |next - depth| and that change,
   out[3], out[4] = the deepest sector of next and its depth.  Returns 0. */
long wc_profile(WcUpdate *a)
{
    const long n = a->n;
    long i, bad = -1, imax = 0, jmax = 0;
    double dmax = 0.0, nmax = 0.0;
    for (i = 0; i < n; i++)
        if (!(a->pending[i] >= 0 && isfinite(a->pending[i]))) return -1;
    smooth(a);
    for (i = 0; i < n; i++) {
        const double v = a->depth[i] + a->factor * a->s[i];
        const double d = fabs(v - a->depth[i]);
        a->next[i] = v;
        if (bad < 0 && !isfinite(v)) bad = i;
        if (i == 0 || d > dmax) { imax = i; dmax = d; }
        if (i == 0 || v > nmax) { jmax = i; nmax = v; }
    }
    a->out[0] = (double)bad;
    a->out[1] = (double)imax;
    a->out[2] = dmax;
    a->out[3] = (double)jmax;
    a->out[4] = nmax;
    return 0;
}
