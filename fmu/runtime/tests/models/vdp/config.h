/* Hand-written test model (runtime unit tests only): Van der Pol, stiff for mu=1000:
 * x1' = x2, x2' = mu*(1-x1^2)*x2 - x1, exact Jacobian. */
#ifndef CONFIG_H
#define CONFIG_H
#define MODEL_IDENTIFIER vdp
#define MODEL_GUID "{vdp-test-0001}"
#define NV 11
#define N_X 2
#define OFF_X 0
#define OFF_DX 2
#define OFF_P 4
#define N_P 5
#define OFF_SOLVER_METHOD 5
#define OFF_SOLVER_RTOL 6
#define OFF_SOLVER_ATOL 7
#define OFF_SOLVER_HMAX 8
#define OFF_SOLVER_MAXSTEPS 9
#define OFF_SOLVER_MAXSTEPTIME 10
#define OFF_U 9
#define N_U 0
#define OFF_Y 9
#define N_Y 0
#define OFF_D 9
#define N_D 0
#define OFF_DPRE 9
#define OFF_M 9
#define N_M 0
#define OFF_MPRE 9
#define OFF_C 9
#define N_C 0
#define OFF_CPRE 9
#define OFF_W 9
#define N_W 0
#define N_Z 0
#define HAS_JACOBIAN 1
#define DEFAULT_START_TIME 0.0
#define DEFAULT_STOP_TIME 3000.0
#define DEFAULT_TOLERANCE 1e-6
#endif
