/*
 * fmu_cycle_driver.c -- lifecycle stress driver for one FMI 2.0 Co-Simulation FMU
 * (issue #8 part 3).  Meant to run under valgrind memcheck (no Python involved):
 *
 *   gcc -O1 -g -I fmu/runtime/include scripts/fmu_cycle_driver.c -ldl -o fmu_cycle_driver
 *   valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
 *       ./fmu_cycle_driver <binaries/linux64/X.so> <guid> <cycles> <steps> <stepSize>
 *
 * Each cycle: fmi2Instantiate(CS) -> fmi2SetupExperiment -> Enter/ExitInitializationMode
 * -> <steps> x fmi2DoStep (reading all Real/Integer values of the first 64 value
 * references after each step) -> every 4th cycle also FMU state get/serialize/
 * deserialize/set/free and an fmi2Reset + re-initialisation -> fmi2Terminate ->
 * fmi2FreeInstance.  Half of the cycles use the importer's allocator callbacks, half
 * pass NULL ones (the runtime then uses calloc/free).  Exit code 0 = all calls OK,
 * 2 = an FMI call failed (message on stderr), 3 = usage / load error.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

static int quiet;   /* expected rejections (probing value references) are not printed */

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
    (void)env;
    if (status >= fmi2Warning && !quiet)
        fprintf(stderr, "[%s] %s status=%d: %s\n", name ? name : "?",
                category ? category : "?", (int)status, message ? message : "");
}

static void *alloc_cb(size_t n, size_t sz) { return calloc(n, sz); }
static void free_cb(void *p) { free(p); }

#define SYM(T, name)                                                        \
    T name = (T)dlsym(lib, #name);                                          \
    if (!name) { fprintf(stderr, "missing symbol %s\n", #name); return 3; }

#define CHECK(call)                                                         \
    do {                                                                    \
        fmi2Status st_ = (call);                                            \
        if (st_ != fmi2OK) {                                                \
            fprintf(stderr, "cycle %ld: %s returned %d\n", cyc, #call, (int)st_); \
            return 2;                                                       \
        }                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    void *lib;
    long cycles, cyc;
    int steps, k;
    double h;
    const char *guid;
    if (argc != 6) {
        fprintf(stderr, "usage: %s <fmu .so> <guid> <cycles> <steps> <stepSize>\n", argv[0]);
        return 3;
    }
    guid = argv[2];
    cycles = atol(argv[3]);
    steps = atoi(argv[4]);
    h = atof(argv[5]);
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 3; }
    {
        SYM(fmi2InstantiateTYPE *, fmi2Instantiate)
        SYM(fmi2FreeInstanceTYPE *, fmi2FreeInstance)
        SYM(fmi2SetupExperimentTYPE *, fmi2SetupExperiment)
        SYM(fmi2EnterInitializationModeTYPE *, fmi2EnterInitializationMode)
        SYM(fmi2ExitInitializationModeTYPE *, fmi2ExitInitializationMode)
        SYM(fmi2DoStepTYPE *, fmi2DoStep)
        SYM(fmi2TerminateTYPE *, fmi2Terminate)
        SYM(fmi2ResetTYPE *, fmi2Reset)
        SYM(fmi2GetRealTYPE *, fmi2GetReal)
        SYM(fmi2GetIntegerTYPE *, fmi2GetInteger)
        SYM(fmi2GetFMUstateTYPE *, fmi2GetFMUstate)
        SYM(fmi2SetFMUstateTYPE *, fmi2SetFMUstate)
        SYM(fmi2FreeFMUstateTYPE *, fmi2FreeFMUstate)
        SYM(fmi2SerializedFMUstateSizeTYPE *, fmi2SerializedFMUstateSize)
        SYM(fmi2SerializeFMUstateTYPE *, fmi2SerializeFMUstate)
        SYM(fmi2DeSerializeFMUstateTYPE *, fmi2DeSerializeFMUstate)
        fmi2CallbackFunctions withAlloc = {logger, alloc_cb, free_cb, NULL, NULL};
        fmi2CallbackFunctions noAlloc = {logger, NULL, NULL, NULL, NULL};
        fmi2ValueReference vr[64];
        fmi2Real rv[64];
        fmi2Integer iv[64];
        for (k = 0; k < 64; k++) vr[k] = (fmi2ValueReference)k;

        for (cyc = 0; cyc < cycles; cyc++) {
            fmi2Component c = fmi2Instantiate("cycle", fmi2CoSimulation, guid, "file:///tmp",
                                              (cyc & 1) ? &noAlloc : &withAlloc, fmi2False,
                                              fmi2False);
            int rounds = (cyc % 4 == 0) ? 2 : 1, r;
            if (!c) { fprintf(stderr, "cycle %ld: fmi2Instantiate failed\n", cyc); return 2; }
            for (r = 0; r < rounds; r++) {
                double t = 0.0;
                if (r > 0) CHECK(fmi2Reset(c));
                CHECK(fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
                CHECK(fmi2EnterInitializationMode(c));
                CHECK(fmi2ExitInitializationMode(c));
                for (k = 0; k < steps; k++) {
                    int j;
                    CHECK(fmi2DoStep(c, t, h, fmi2True));
                    t = (k + 1) * h;
                    /* read whatever is readable: type mismatches are rejected with
                       fmi2Error (and logged), which is fine here -> read one by one */
                    quiet = 1;
                    for (j = 0; j < 64; j++) {
                        if (fmi2GetReal(c, &vr[j], 1, &rv[j]) != fmi2OK)
                            (void)fmi2GetInteger(c, &vr[j], 1, &iv[j]);
                    }
                    quiet = 0;
                    if (cyc % 4 == 0 && k == 0) {
                        fmi2FMUstate s = NULL, s2 = NULL;
                        size_t size = 0;
                        fmi2Byte *buf;
                        CHECK(fmi2GetFMUstate(c, &s));
                        CHECK(fmi2GetFMUstate(c, &s));   /* overwrite in place */
                        CHECK(fmi2SerializedFMUstateSize(c, s, &size));
                        buf = (fmi2Byte *)malloc(size);
                        CHECK(fmi2SerializeFMUstate(c, s, buf, size));
                        CHECK(fmi2DeSerializeFMUstate(c, buf, size, &s2));
                        free(buf);
                        CHECK(fmi2SetFMUstate(c, s2));
                        CHECK(fmi2FreeFMUstate(c, &s));
                        CHECK(fmi2FreeFMUstate(c, &s2));
                    }
                }
                CHECK(fmi2Terminate(c));
            }
            fmi2FreeInstance(c);
        }
    }
    dlclose(lib);
    printf("fmu_cycle_driver: %ld cycles OK (%s)\n", cycles, argv[1]);
    return 0;
}
