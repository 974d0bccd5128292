/*
 * archard.c -- archard_depth (wearcosim.wear.archard) in C: the wear depth increment per
 * sector accumulated over the samples of one cycle.  The master calls it once per cycle; in
 * numpy it is a few dozen array operations on (samples x patch width) arrays, here one pass.
 *
 * The same arithmetic in the same order as the numpy code.  numpy's arcsin differs from the C
 * library's asin in the last bit for about 8 % of arguments, so the results agree to a few
 * units of round-off (measured: 7e-15 relative at most over random surfaces and samples,
 * tests/wear/test_archard.py), not bit for bit:
 *  - a sample counts when Fn > 0, b > 0, every input finite and ds = |vslip| dt > 0;
 *  - its weight w = ds * 2 * Fn / (pi L) (force per unit length times slip distance);
 *  - its patch: the sectors i0 - reach .. i0 + reach (one fewer on an even surface whose
 *    reach is half of it), i0 = floor(xc / arc), reach = min(ceil(max b / arc) + 1, n / 2)
 *    over all counted samples of the call; xc the arc position (circular: mod(pos, 2 pi) r);
 *  - the share of each sector: the difference of the ellipse's cdf,
 *    0.5 (u sqrt(1 - u^2) + asin u) + pi/4, u = clip((edge - xc) / b, -1, 1), at its edges;
 *    circular surfaces wrap the index, profiles drop sectors beyond their ends;
 *  - acc[sector] += w * share, samples in order, sectors of a patch in order (numpy's
 *    bincount over the flattened samples x offsets array); out = (k/H) acc / arc.
 * Returns the number of counted samples.
 *
 * Most patch edges lie outside the patch (|edge - xc| >= b: the cdf's end values); they are
 * recognised without the division x / b, which is exact (x <= -b gives x / b <= -1 rounded,
 * and the formula at a u rounded to -1 is the end value too), so the results are those of
 * the code that divided at every edge, bit for bit.  A sector whose edges both lie before
 * the patch, or both after it, has share 0 (the difference of equal end values): it is not
 * visited, as adding w * 0 = +0 changes no sum (the accumulator starts at +0 and never holds
 * -0), so the results are those of the code that visited every sector of the reach.  wc_archard_add takes its arguments in
 * one struct (prepared once by the master: one ctypes call per cycle without conversions)
 * and adds the increment to an accumulator, as numpy's ``acc += archard_depth(...)`` would.
 */
#include <math.h>

#define WC_PI 3.14159265358979323846   /* numpy.pi, the same double */

static double cdf_of(double u)
{
    return 0.5 * (u * sqrt(1.0 - u * u) + asin(u)) + WC_PI / 4;
}

/* the cdf at x / b; edges outside the patch (u clipped to -1 or 1, most of them) take the
   value of the same formula at -1 or 1, computed once */
static double cdf(double x, double b, const double *ends)
{
    double u;
    if (x <= -b) return ends[0];   /* (b > 0 and x finite here: u <= -1, see above) */
    if (x >= b) return ends[1];
    u = x / b;
    if (!(u > -1.0)) return u < -1.0 || u == -1.0 ? ends[0] : cdf_of(u);   /* (NaN: the formula) */
    if (u >= 1.0) return ends[1];
    return cdf_of(u);
}

/* numpy's float remainder: the sign of the divisor */
static double pymod(double a, double m)
{
    double r = fabs(a) < m ? a : fmod(a, m);   /* (fmod's value then, exactly) */
    if (r != 0.0) {
        if ((m < 0) != (r < 0)) r += m;
    } else {
        r = copysign(0.0, m);
    }
    return r;
}

/* pos, Fn, b, vslip: m samples each, ``stride`` doubles apart (the columns of the master's
 * cycle buffer are read in place) */
long wc_archard(long m, const double *pos_, const double *Fn_, const double *b_, const double *vs_,
                const long *stride, double dt, long n, double arc, double radius, double pi_length,
                double k_over_h, double *out)
{
#define pos(s) pos_[(s) * stride[0]]
#define Fn(s) Fn_[(s) * stride[1]]
#define b(s) b_[(s) * stride[2]]
#define vslip(s) vs_[(s) * stride[3]]
    long s, j, count = 0, reach, lo, hi;
    double bmax = -INFINITY;
    const double ends[2] = {cdf_of(-1.0), cdf_of(1.0)};
    const int circular = radius > 0;
    for (j = 0; j < n; j++) out[j] = 0.0;
    for (s = 0; s < m; s++) {
        const double ds = fabs(vslip(s)) * dt;
        if (Fn(s) > 0 && b(s) > 0 && isfinite(Fn(s)) && isfinite(b(s)) && isfinite(pos(s)) && isfinite(ds)
            && ds > 0) {
            count++;
            if (b(s) > bmax) bmax = b(s);
        }
    }
    if (!count) return 0;
    {   /* (in double first: a huge patch must not overflow the cast) */
        const double r = ceil(bmax / arc) + 1.0;
        reach = r < (double)(n / 2) ? (long)r : n / 2;
    }
    lo = -reach;
    hi = reach - ((n % 2 == 0 && reach == n / 2) ? 1 : 0);
    for (s = 0; s < m; s++) {
        const double ds = fabs(vslip(s)) * dt;
        double xc, w, c0;
        long i0;
        if (!(Fn(s) > 0 && b(s) > 0 && isfinite(Fn(s)) && isfinite(b(s)) && isfinite(pos(s)) && isfinite(ds)
              && ds > 0))
            continue;
        w = ds * 2 * Fn(s) / pi_length;
        xc = circular ? pymod(pos(s), 2 * WC_PI) * radius : pos(s);
        i0 = (long)floor(xc / arc);
        c0 = cdf((double)(i0 + lo) * arc - xc, b(s), ends);
        for (j = lo; j <= hi; j++) {
            const long i = i0 + j;
            const double e1 = (double)(i + 1) * arc - xc;
            double c1, share;
            long idx;
            if (e1 <= -b(s)) {      /* the sector lies before the patch: share 0, nothing added */
                c0 = ends[0];
                continue;
            }
            c1 = cdf(e1, b(s), ends);
            share = c1 - c0;
            c0 = c1;
            if (circular) {
                idx = i >= 0 && i < n ? i : i % n;   /* (no division in the common case) */
                if (idx < 0) idx += n;
            } else {
                if (i < 0 || i >= n) share = 0.0;
                idx = i < 0 ? 0 : (i > n - 1 ? n - 1 : i);
            }
            out[idx] += w * share;
            if (e1 >= b(s)) break;  /* the later sectors lie after the patch: shares 0 */
        }
    }
    for (j = 0; j < n; j++) out[j] = k_over_h * out[j] / arc;
    return count;
#undef pos
#undef Fn
#undef b
#undef vslip
}

/* wc_archard's arguments in one block (wearcosim.wear.archard.CycleWear fills it once) */
typedef struct {
    long m;
    const double *pos, *Fn, *b, *vslip;
    long stride[4];
    double dt;
    long n;
    double arc, radius, pi_length, k_over_h;
    double *out;      /* n: the increment of this call */
    double *acc;      /* n: acc[j] += out[j] (NULL: none) */
} WcArchard;

long wc_archard_add(const WcArchard *a)
{
    long j;
    const long count = wc_archard(a->m, a->pos, a->Fn, a->b, a->vslip, a->stride, a->dt, a->n, a->arc, a->radius,
                                  a->pi_length, a->k_over_h, a->out);
    if (a->acc)
        for (j = 0; j < a->n; j++) a->acc[j] += a->out[j];
    return count;
}
