/* Hand-written test model (runtime unit tests only): an ODE driven by the solution of
 * a 2x2 nonlinear algebraic loop solved by rt_newton:
 *   x' = -w1,  w1^3 + w1 + w2 - x = 0,  w2 - 0.5*sin(w1) - cc = 0
 * 'bad' = true replaces the second residual by w2^2 + 1 (no real solution);
 * 'fdNl' = true makes mdl_nl_jac return -1 (finite differences). */
#ifndef CONFIG_H
#define CONFIG_H
#define MODEL_IDENTIFIER nlloop
#define MODEL_GUID "{nlloop-test-0001}"
#define NV 14
#define N_X 1
#define OFF_X 0
#define OFF_DX 1
#define OFF_P 2
#define N_P 7
#define OFF_SOLVER_METHOD 5
#define OFF_SOLVER_RTOL 6
#define OFF_SOLVER_ATOL 7
#define OFF_SOLVER_HMAX 8
#define OFF_SOLVER_MAXSTEPS 12
#define OFF_SOLVER_MAXSTEPTIME 13
#define OFF_U 9
#define N_U 0
#define OFF_Y 9
#define N_Y 1
#define OFF_D 10
#define N_D 0
#define OFF_DPRE 10
#define OFF_M 10
#define N_M 0
#define OFF_MPRE 10
#define OFF_C 10
#define N_C 0
#define OFF_CPRE 10
#define OFF_W 10
#define N_W 2
#define N_Z 0
#define HAS_JACOBIAN 0
#define DEFAULT_START_TIME 0.0
#define DEFAULT_STOP_TIME 1.0
#define DEFAULT_TOLERANCE 1e-6
#endif
