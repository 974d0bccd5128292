/*
 * rt_linalg.h -- dense LU factorisation with partial (row) pivoting, and a sparse
 * (banded after reordering) LU for large sparse Jacobians.
 *
 * Part of the wearcosim FMI 2.0 runtime (fmu/runtime/).  Used by the implicit
 * Rosenbrock solver (iteration matrix I/(gamma*h) - J) and by rt_newton (loop
 * Jacobians).  Matrices are dense and COLUMN-MAJOR (A[i + j*n] = row i, column j),
 * the same storage mdl_jac / mdl_nl_jac use.  Systems handled here are small
 * (states of one model, unknowns of one algebraic loop), so a plain right-looking
 * O(n^3) elimination is the right tool; no BLAS, no allocation.
 */
#ifndef WEARCOSIM_RT_LINALG_H
#define WEARCOSIM_RT_LINALG_H

#include <stddef.h>

/* Internal symbols get hidden visibility (GCC/Clang, ELF and Mach-O): only the fmi2*
 * functions are exported, so several FMUs loaded into one process (also with
 * RTLD_GLOBAL) can never bind each other's mdl_* / rt_* functions. */
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define WEARCOSIM_VIS_PUSHED_RT_LINALG_H
#endif

/* Factor A in place into L (unit lower, below the diagonal) and U (upper) with
 * row interchanges recorded in piv (piv[k] = row swapped with row k at step k).
 * Returns 0 on success, k+1 (> 0) if the pivot of column k is zero or not finite
 * (matrix numerically singular or contains NaN/Inf); A is then unusable. */
int rt_lu_factor(int n, double *A, int *piv);

/* Solve (LU) x = b in place (b becomes x) with the output of rt_lu_factor. */
void rt_lu_solve(int n, const double *LU, const int *piv, double *b);

/* ---------------------------------------------------------------------------------
 * Sparse matrices: reverse Cuthill-McKee + banded LU with partial pivoting.
 *
 * Choice: large models here are many weakly coupled components (arrays of oscillators,
 * segments of a shaft, nodes of a 1-D discretisation), whose Jacobians become narrow
 * bands once the unknowns are renumbered.  So the pattern (compressed columns, diagonal
 * added) is symmetrised and renumbered ONCE with reverse Cuthill-McKee (BFS from a
 * minimum-degree node of each connected component, neighbours by increasing degree,
 * order reversed); the permuted matrix P A P^T has lower/upper bandwidths kl/ku and is
 * factored like LAPACK's dgbtf2: partial pivoting by rows inside the band, the upper
 * band growing to kl+ku by the interchanges.  Pivoting makes it as stable as the dense
 * LU (GEPP); storage n*(2kl+ku+1), factor cost O(n kl (kl+ku)), solve O(n (2kl+ku)).
 * It is used only when it pays: n >= RT_SPARSE_MIN_N and the band is narrow
 * (4*(2kl+ku+1) <= n, e.g. density then is necessarily below ~25%); otherwise (small,
 * dense, or widely coupled patterns such as an arrow) callers keep the dense LU, whose
 * results are unchanged.  A general sparse LU (Gilbert-Peierls with a COLAMD order)
 * would also cover wide patterns; not needed by the models at hand.
 * --------------------------------------------------------------------------------- */
#define RT_SPARSE_MIN_N 32

typedef struct RtBand {
    int n, kl, ku, ldab;     /* bandwidths of P A P^T; ldab = 2*kl + ku + 1             */
    int *perm;               /* perm[new] = old index                                   */
    int *iperm;              /* iperm[old] = new index                                  */
    int *piv;                /* row interchanges of the factorisation (new numbering)   */
    double *ab;              /* band storage: entry (i,j) at ab[kl+ku+i-j + j*ldab]      */
    double *tmp;             /* n doubles of scratch for rt_band_solve                  */
    void (*mem_free)(void *);
} RtBand;

/* Plan a banded LU for the n x n pattern (colind[n+1], row[nnz]; the diagonal is always
 * included).  Returns NULL if the band would not be narrow enough (see above) or
 * n < RT_SPARSE_MIN_N (force != 0: plan anyway, for tests) or memory is short.
 * mem_calloc/mem_free may be NULL (calloc/free). */
RtBand *rt_band_new(int n, const int *colind, const int *row, int force,
                    void *(*mem_calloc)(size_t, size_t), void (*mem_free)(void *));
void rt_band_free(RtBand *b);
/* Load a = d*I - sign*A, where A holds the nonzeros of the pattern (CCS order) given to
 * rt_band_new: sign = 1, d = 1/(gamma h) gives Rosenbrock's iteration matrix, sign = -1,
 * d = 0 gives A itself. */
void rt_band_load(RtBand *b, const int *colind, const int *row, const double *A,
                  double sign, double d);
/* Factor in place; 0 ok, k+1 if pivot k is zero or not finite (as rt_lu_factor). */
int rt_band_factor(RtBand *b);
/* Solve A x = b (original numbering) in place with the factors. */
void rt_band_solve(RtBand *b, double *x);

#ifdef WEARCOSIM_VIS_PUSHED_RT_LINALG_H
#pragma GCC visibility pop
#undef WEARCOSIM_VIS_PUSHED_RT_LINALG_H
#endif

#endif
