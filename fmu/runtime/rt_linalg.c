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
