/* Hand-written test model (runtime unit tests only): x' = -k*x + u, with fault
 * injection (NaN derivative, error code or terminate after failTime). */
#ifndef CONFIG_H
#define CONFIG_H
#define MODEL_IDENTIFIER decay
#define MODEL_GUID "{0d2b7c1e-decay-test-0001}"
#define NV 14
#define N_X 1
#define OFF_X 0
#define OFF_DX 1
#define OFF_P 2
#define N_P 8
#define OFF_SOLVER_METHOD 5
#define OFF_SOLVER_RTOL 6
#define OFF_SOLVER_ATOL 7
#define OFF_SOLVER_HMAX 8
#define OFF_SOLVER_MAXSTEPS 12
#define OFF_SOLVER_MAXSTEPTIME 13
#define OFF_U 10
#define N_U 1
#define OFF_Y 11
#define N_Y 1
#define OFF_D 12
#define N_D 0
#define OFF_DPRE 12
#define OFF_M 12
#define N_M 0
#define OFF_MPRE 12
#define OFF_C 12
#define N_C 0
#define OFF_CPRE 12
#define OFF_W 12
#define N_W 0
#define N_Z 0
#define HAS_JACOBIAN 0
#define DEFAULT_START_TIME 0.0
#define DEFAULT_STOP_TIME 5.0
#define DEFAULT_TOLERANCE 1e-6
#endif
