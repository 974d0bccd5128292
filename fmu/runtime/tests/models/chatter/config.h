/* Hand-written test model (runtime unit tests only): a sliding mode WITHOUT
 * hysteresis, x' = (x > 0) ? -1 : 1, to check that the chattering guard ends the step
 * with fmi2Discard instead of looping. */
#ifndef CONFIG_H
#define CONFIG_H
#define MODEL_IDENTIFIER chatter
#define MODEL_GUID "{chatter-test-0001}"
#define NV 12
#define N_X 1
#define OFF_X 0
#define OFF_DX 1
#define OFF_P 2
#define N_P 4
#define OFF_SOLVER_METHOD 2
#define OFF_SOLVER_RTOL 3
#define OFF_SOLVER_ATOL 4
#define OFF_SOLVER_HMAX 5
#define OFF_SOLVER_MAXSTEPS 10
#define OFF_SOLVER_MAXSTEPTIME 11
#define OFF_U 6
#define N_U 0
#define OFF_Y 6
#define N_Y 0
#define OFF_D 6
#define N_D 0
#define OFF_DPRE 6
#define OFF_M 6
#define N_M 1
#define OFF_MPRE 7
#define OFF_C 8
#define N_C 1
#define OFF_CPRE 9
#define OFF_W 10
#define N_W 0
#define N_Z 1
#define HAS_JACOBIAN 0
#define DEFAULT_START_TIME 0.0
#define DEFAULT_STOP_TIME 1.0
#define DEFAULT_TOLERANCE 1e-6
#endif
