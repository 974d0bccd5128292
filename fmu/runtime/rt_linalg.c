/*
 * rt_linalg.c -- dense LU with partial pivoting (see rt_linalg.h).
 *
 * Design notes:
 *  - Column-major storage, column-oriented inner loops (unit stride).
 *  - The pivot is the entry of largest magnitude in the current column (partial
 *    pivoting); an exactly zero or non-finite pivot reports singularity instead of
 *    dividing, so NaN/Inf never propagates silently from the Jacobian into a step.
 *    Callers react by shrinking the step (solver) or failing the iteration (Newton).
 *  - No allocation: the caller owns A (overwritten) and piv.
 */
#include <math.h>
#include "rt_linalg.h"

int rt_lu_factor(int n, double *A, int *piv)
{
    int i, j, k;
    for (k = 0; k < n; k++) {
        /* find pivot row p in column k */
        int p = k;
        double amax = fabs(A[k + k * n]);
        for (i = k + 1; i < n; i++) {
            double a = fabs(A[i + k * n]);
            if (a > amax) { amax = a; p = i; }
        }
        piv[k] = p;
        if (!(amax > 0.0) || !isfinite(amax)) return k + 1;   /* also catches NaN */
        if (p != k) {   /* swap whole rows k and p */
            for (j = 0; j < n; j++) {
                double t = A[k + j * n];
                A[k + j * n] = A[p + j * n];
                A[p + j * n] = t;
            }
        }
        {
            const double inv = 1.0 / A[k + k * n];
            for (i = k + 1; i < n; i++) A[i + k * n] *= inv;     /* multipliers */
        }
        for (j = k + 1; j < n; j++) {                            /* rank-1 update */
            const double akj = A[k + j * n];
            if (akj != 0.0) {
                double *colj = A + j * n;
                const double *colk = A + k * n;
                for (i = k + 1; i < n; i++) colj[i] -= colk[i] * akj;
            }
        }
    }
    return 0;
}

void rt_lu_solve(int n, const double *LU, const int *piv, double *b)
{
    int i, k;
    /* apply the row interchanges in the order they were made */
    for (k = 0; k < n; k++) {
        int p = piv[k];
        if (p != k) { double t = b[k]; b[k] = b[p]; b[p] = t; }
    }
    /* forward substitution with unit lower L (column-oriented) */
    for (k = 0; k < n; k++) {
        const double bk = b[k];
        if (bk != 0.0)
            for (i = k + 1; i < n; i++) b[i] -= LU[i + k * n] * bk;
    }
    /* back substitution with U */
    for (k = n - 1; k >= 0; k--) {
        b[k] /= LU[k + k * n];
        {
            const double bk = b[k];
            if (bk != 0.0)
                for (i = 0; i < k; i++) b[i] -= LU[i + k * n] * bk;
        }
    }
}

/* ---------------------------------------------------------------------------------
 * Reverse Cuthill-McKee + banded LU (see rt_linalg.h)
 * --------------------------------------------------------------------------------- */
#include <stdlib.h>
#include <string.h>

static void *band_calloc(size_t a, size_t b) { return calloc(a, b); }
static void band_free(void *p) { free(p); }

/* RCM order of the symmetrised pattern: perm[new] = old.  0 ok, -1 out of memory. */
static int rcm_order(int n, const int *colind, const int *row, int *perm,
                     void *(*cal)(size_t, size_t), void (*fr)(void *))
{
    const int nnz = colind[n];
    int *deg = (int *)cal((size_t)n + 1, sizeof(int));
    int *start = (int *)cal((size_t)n + 1, sizeof(int));
    int *adj = (int *)cal(2 * (size_t)(nnz > 0 ? nnz : 1), sizeof(int));
    int *fill = (int *)cal((size_t)n + 1, sizeof(int));
    char *seen = (char *)cal((size_t)n + 1, 1);
    int i, j, k, head, tail, rc = -1;
    if (!deg || !start || !adj || !fill || !seen) goto done;
    for (j = 0; j < n; j++)
        for (k = colind[j]; k < colind[j + 1]; k++)
            if (row[k] != j) { deg[row[k]]++; deg[j]++; }
    for (i = 0; i < n; i++) start[i + 1] = start[i] + deg[i];
    for (j = 0; j < n; j++)
        for (k = colind[j]; k < colind[j + 1]; k++) {
            i = row[k];
            if (i != j) { adj[start[i] + fill[i]++] = j; adj[start[j] + fill[j]++] = i; }
        }
    /* duplicates (both (i,j) and (j,i) present) only repeat neighbours: harmless */
    head = tail = 0;
    for (;;) {
        int s = -1;
        for (i = 0; i < n; i++)                       /* next component: min degree */
            if (!seen[i] && (s < 0 || deg[i] < deg[s])) s = i;
        if (s < 0) break;
        seen[s] = 1;
        perm[tail++] = s;
        while (head < tail) {
            const int v = perm[head++];
            const int first = tail;
            for (k = start[v]; k < start[v + 1]; k++) {
                const int u = adj[k];
                if (!seen[u]) { seen[u] = 1; perm[tail++] = u; }
            }
            /* neighbours by increasing degree (insertion sort: few of them) */
            for (i = first + 1; i < tail; i++) {
                const int u = perm[i];
                int m = i - 1;
                while (m >= first && deg[perm[m]] > deg[u]) { perm[m + 1] = perm[m]; m--; }
                perm[m + 1] = u;
            }
        }
    }
    for (i = 0; i < n / 2; i++) { int t = perm[i]; perm[i] = perm[n - 1 - i]; perm[n - 1 - i] = t; }
    rc = 0;
done:
    if (deg) fr(deg);
    if (start) fr(start);
    if (adj) fr(adj);
    if (fill) fr(fill);
    if (seen) fr(seen);
    return rc;
}

RtBand *rt_band_new(int n, const int *colind, const int *row, int force,
                    void *(*mem_calloc)(size_t, size_t), void (*mem_free)(void *))
{
    RtBand *b;
    int i, j, k, kl = 0, ku = 0;
    if (n < 1 || !colind || !row || (!force && n < RT_SPARSE_MIN_N)) return NULL;
    if (!mem_calloc || !mem_free) { mem_calloc = band_calloc; mem_free = band_free; }
    b = (RtBand *)mem_calloc(1, sizeof(RtBand));
    if (!b) return NULL;
    b->mem_free = mem_free;
    b->n = n;
    b->perm = (int *)mem_calloc((size_t)n, sizeof(int));
    b->iperm = (int *)mem_calloc((size_t)n, sizeof(int));
    b->piv = (int *)mem_calloc((size_t)n, sizeof(int));
    b->tmp = (double *)mem_calloc((size_t)n, sizeof(double));
    if (!b->perm || !b->iperm || !b->piv || !b->tmp ||
        rcm_order(n, colind, row, b->perm, mem_calloc, mem_free) != 0) {
        rt_band_free(b);
        return NULL;
    }
    for (i = 0; i < n; i++) b->iperm[b->perm[i]] = i;
    for (j = 0; j < n; j++)
        for (k = colind[j]; k < colind[j + 1]; k++) {
            const int d = b->iperm[row[k]] - b->iperm[j];
            if (d > kl) kl = d;
            if (-d > ku) ku = -d;
        }
    b->kl = kl;
    b->ku = ku;
    b->ldab = 2 * kl + ku + 1;
    if (!force && 4 * (size_t)b->ldab > (size_t)n) { rt_band_free(b); return NULL; }
    b->ab = (double *)mem_calloc((size_t)n * (size_t)b->ldab, sizeof(double));
    if (!b->ab) { rt_band_free(b); return NULL; }
    return b;
}

void rt_band_free(RtBand *b)
{
    void (*fr)(void *);
    if (!b) return;
    fr = b->mem_free;
    if (b->perm) fr(b->perm);
    if (b->iperm) fr(b->iperm);
    if (b->piv) fr(b->piv);
    if (b->tmp) fr(b->tmp);
    if (b->ab) fr(b->ab);
    fr(b);
}

#define AB(b, i, j) ((b)->ab[(size_t)((b)->kl + (b)->ku + (i) - (j)) + (size_t)(j) * (size_t)(b)->ldab])

void rt_band_load(RtBand *b, const int *colind, const int *row, const double *A,
                  double sign, double d)
{
    const int n = b->n;
    int j, k;
    memset(b->ab, 0, (size_t)n * (size_t)b->ldab * sizeof(double));
    for (j = 0; j < n; j++) {
        const int jn = b->iperm[j];
        for (k = colind[j]; k < colind[j + 1]; k++)
            AB(b, b->iperm[row[k]], jn) -= sign * A[k];
        AB(b, jn, jn) += d;
    }
}

int rt_band_factor(RtBand *b)
{
    const int n = b->n, kl = b->kl, kv = b->kl + b->ku;
    int i, j, c, ju = 0;
    for (j = 0; j < n; j++) {
        const int km = kl < n - 1 - j ? kl : n - 1 - j;
        int jp = 0;
        double amax = fabs(AB(b, j, j));
        for (i = 1; i <= km; i++) {
            const double a = fabs(AB(b, j + i, j));
            if (a > amax) { amax = a; jp = i; }
        }
        b->piv[j] = j + jp;
        if (!(amax > 0.0) || !isfinite(amax)) return j + 1;
        {
            int lim = j + b->ku + jp;
            if (lim > n - 1) lim = n - 1;
            if (lim > ju) ju = lim;
        }
        if (jp != 0)
            for (c = j; c <= ju; c++) {
                const double t = AB(b, j, c);
                AB(b, j, c) = AB(b, j + jp, c);
                AB(b, j + jp, c) = t;
            }
        {
            const double inv = 1.0 / AB(b, j, j);
            for (i = 1; i <= km; i++) AB(b, j + i, j) *= inv;
        }
        for (c = j + 1; c <= ju; c++) {
            const double a = AB(b, j, c);
            if (a != 0.0)
                for (i = 1; i <= km; i++) AB(b, j + i, c) -= AB(b, j + i, j) * a;
        }
    }
    (void)kv;
    return 0;
}

void rt_band_solve(RtBand *b, double *x)
{
    const int n = b->n, kl = b->kl, kv = b->kl + b->ku;
    double *y = b->tmp;
    int i, j;
    for (i = 0; i < n; i++) y[i] = x[b->perm[i]];
    for (j = 0; j < n; j++) {                       /* L: unit lower, interchanges */
        const int km = kl < n - 1 - j ? kl : n - 1 - j;
        const int l = b->piv[j];
        if (l != j) { const double t = y[l]; y[l] = y[j]; y[j] = t; }
        if (y[j] != 0.0)
            for (i = 1; i <= km; i++) y[j + i] -= AB(b, j + i, j) * y[j];
    }
    for (j = n - 1; j >= 0; j--) {                  /* U: upper, bandwidth kl+ku */
        const int i0 = j - kv > 0 ? j - kv : 0;
        y[j] /= AB(b, j, j);
        if (y[j] != 0.0)
            for (i = i0; i < j; i++) y[i] -= AB(b, i, j) * y[j];
    }
    for (i = 0; i < n; i++) x[b->perm[i]] = y[i];
}
