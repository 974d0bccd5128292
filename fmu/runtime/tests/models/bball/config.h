/* Hand-written test model (runtime unit tests only): bouncing ball.
 * h' = v, v' = -g; when h < floor: reinit(v, -e*pre(v)), count += 1, tImpact = time.
 * when time >= tTerm: terminate().  Layout of v[] (value references): see model.c. */
#ifndef CONFIG_H
#define CONFIG_H
#define MODEL_IDENTIFIER bball
#define MODEL_GUID "{8c4e810f-3df3-4a00-8276-176fa3c9f000}"
#define NV 27
#define N_X 2
#define OFF_X 0
#define OFF_DX 2
#define OFF_P 4
#define N_P 7
#define OFF_SOLVER_METHOD 7
#define OFF_SOLVER_RTOL 8
#define OFF_SOLVER_ATOL 9
#define OFF_SOLVER_HMAX 10
#define OFF_SOLVER_MAXSTEPS 25
#define OFF_SOLVER_MAXSTEPTIME 26
#define OFF_U 11
#define N_U 1
#define OFF_Y 12
#define N_Y 1
#define OFF_D 13
#define N_D 2
#define OFF_DPRE 15
#define OFF_M 17
#define N_M 2
#define OFF_MPRE 19
#define OFF_C 21
#define N_C 2
#define OFF_CPRE 23
#define OFF_W 25
#define N_W 0
#define N_Z 2
#define HAS_JACOBIAN 1
#define DEFAULT_START_TIME 0.0
#define DEFAULT_STOP_TIME 3.0
#define DEFAULT_TOLERANCE 1e-6
#endif
