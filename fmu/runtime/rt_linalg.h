/*
 * rt_linalg.h -- dense LU factorisation with partial (row) pivoting.
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

#ifdef WEARCOSIM_VIS_PUSHED_RT_LINALG_H
#pragma GCC visibility pop
#undef WEARCOSIM_VIS_PUSHED_RT_LINALG_H
#endif

#endif
