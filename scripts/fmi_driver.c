/*
 * fmi_driver.c -- a small FMI 2.0 Co-Simulation driver that builds for Linux and Windows,
 * to compare an FMU's binaries/linux64 and binaries/win64 libraries on the same machine
 * (issue 37 part 5: the Windows build runs under Wine; tests/export/test_win64.py).
 *
 *   gcc -O2 -I fmu/runtime/include scripts/fmi_driver.c -ldl -o fmi_driver
 *   x86_64-w64-mingw32-gcc -O2 -static-libgcc -I fmu/runtime/include scripts/fmi_driver.c \
 *       -o fmi_driver.exe
 *
 *   fmi_driver LIBRARY GUID STOP STEP TOLERANCE [VR ...]
 *   wine fmi_driver.exe 'Z:\path\to\binaries\win64\Model.dll' GUID STOP STEP TOLERANCE VR ...
 *
 * Loads LIBRARY (dlopen / LoadLibrary), instantiates it as Co-Simulation (the GUID of its
 * modelDescription.xml; no resource location: the library's FMUs need none), sets up the
 * experiment from 0 to STOP with TOLERANCE (0: none given, the FMU's default), initializes,
 * and steps with the fixed communication step STEP until STOP.  Prints CSV on stdout: a
 * header "time,vr<VR>,..." and one line per communication point (0, STEP, 2 STEP, ...; the
 * time is k*STEP, not a sum) with the Real values of the value references VR, every number
 * with 17 significant digits, so that a number read back is the double that was printed.
 * Logger messages of status warning and above go to stderr.  Exit code 0 = every call
 * returned fmi2OK, 2 = an FMI call failed (named on stderr), 3 = usage or load error.
 *
 * Plain C99 and the FMI 2.0 headers; no other dependency (on Windows: kernel32 and the C
 * library; MinGW's own printf for exact round-trip formatting, see below).
 */
#if defined(_WIN32)
#define __USE_MINGW_ANSI_STDIO 1    /* MinGW's C99 printf (%.17g as on Linux), not msvcrt's */
#include <windows.h>
typedef HMODULE lib_t;
#define LIB_OPEN(path) LoadLibraryA(path)
#define LIB_SYM(lib, name) ((void *)GetProcAddress((lib), (name)))
#define LIB_CLOSE(lib) FreeLibrary(lib)
#else
#include <dlfcn.h>
typedef void *lib_t;
#define LIB_OPEN(path) dlopen((path), RTLD_NOW | RTLD_LOCAL)
#define LIB_SYM(lib, name) dlsym((lib), (name))
#define LIB_CLOSE(lib) dlclose(lib)
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2FunctionTypes.h"

static void logger_cb(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                      fmi2String category, fmi2String message, ...)
{
    (void)env;
    if (status >= fmi2Warning) {
        /* the message is printed as it is: the runtime has formatted it already */
        fprintf(stderr, "[%s] %s status=%d: %s\n", name ? name : "?", category ? category : "?",
                (int)status, message ? message : "");
    }
}

static void *alloc_cb(size_t n, size_t size) { return calloc(n, size); }
static void free_cb(void *p) { free(p); }

static lib_t lib;

static void *sym(const char *name)
{
    void *p = LIB_SYM(lib, name);
    if (!p) {
        fprintf(stderr, "fmi_driver: %s not found in the library\n", name);
        exit(3);
    }
    return p;
}

static void check(fmi2Status s, const char *call, double t)
{
    if (s != fmi2OK) {
        fprintf(stderr, "fmi_driver: %s returned status %d at t = %.17g\n", call, (int)s, t);
        exit(2);
    }
}

static void print_row(double t, fmi2Component c, fmi2GetRealTYPE *getReal, const fmi2ValueReference *vr,
                      size_t n, double *buf)
{
    size_t i;
    check(getReal(c, vr, n, buf), "fmi2GetReal", t);
    printf("%.17g", t);
    for (i = 0; i < n; i++)
        printf(",%.17g", buf[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    fmi2CallbackFunctions cb;
    fmi2Component c;
    fmi2ValueReference *vr;
    double stop, step, tol, *buf;
    size_t n, i;
    long k, nsteps;

    if (argc < 6) {
        fprintf(stderr, "usage: fmi_driver LIBRARY GUID STOP STEP TOLERANCE [VR ...]\n");
        return 3;
    }
    stop = strtod(argv[3], NULL);
    step = strtod(argv[4], NULL);
    tol = strtod(argv[5], NULL);
    if (!(step > 0.0) || !(stop >= 0.0)) {
        fprintf(stderr, "fmi_driver: STEP must be > 0 and STOP >= 0\n");
        return 3;
    }
    n = (size_t)(argc - 6);
    vr = (fmi2ValueReference *)calloc(n + 1, sizeof *vr);
    buf = (double *)calloc(n + 1, sizeof *buf);
    for (i = 0; i < n; i++)
        vr[i] = (fmi2ValueReference)strtoul(argv[6 + i], NULL, 10);

    lib = LIB_OPEN(argv[1]);
    if (!lib) {
#if defined(_WIN32)
        fprintf(stderr, "fmi_driver: cannot load %s (error %lu)\n", argv[1], (unsigned long)GetLastError());
#else
        fprintf(stderr, "fmi_driver: cannot load %s: %s\n", argv[1], dlerror());
#endif
        return 3;
    }
    {
        fmi2InstantiateTYPE *instantiate = (fmi2InstantiateTYPE *)sym("fmi2Instantiate");
        fmi2SetupExperimentTYPE *setup = (fmi2SetupExperimentTYPE *)sym("fmi2SetupExperiment");
        fmi2EnterInitializationModeTYPE *enter = (fmi2EnterInitializationModeTYPE *)sym("fmi2EnterInitializationMode");
        fmi2ExitInitializationModeTYPE *exit_init = (fmi2ExitInitializationModeTYPE *)sym("fmi2ExitInitializationMode");
        fmi2DoStepTYPE *do_step = (fmi2DoStepTYPE *)sym("fmi2DoStep");
        fmi2GetRealTYPE *get_real = (fmi2GetRealTYPE *)sym("fmi2GetReal");
        fmi2TerminateTYPE *terminate = (fmi2TerminateTYPE *)sym("fmi2Terminate");
        fmi2FreeInstanceTYPE *free_instance = (fmi2FreeInstanceTYPE *)sym("fmi2FreeInstance");

        cb.logger = logger_cb;
        cb.allocateMemory = alloc_cb;
        cb.freeMemory = free_cb;
        cb.stepFinished = NULL;
        cb.componentEnvironment = NULL;
        c = instantiate("driver", fmi2CoSimulation, argv[2], NULL, &cb, fmi2False, fmi2False);
        if (!c) {
            fprintf(stderr, "fmi_driver: fmi2Instantiate failed\n");
            return 2;
        }
        check(setup(c, tol > 0.0 ? fmi2True : fmi2False, tol, 0.0, fmi2True, stop), "fmi2SetupExperiment", 0.0);
        check(enter(c), "fmi2EnterInitializationMode", 0.0);
        check(exit_init(c), "fmi2ExitInitializationMode", 0.0);

        printf("time");
        for (i = 0; i < n; i++)
            printf(",vr%lu", (unsigned long)vr[i]);
        printf("\n");
        print_row(0.0, c, get_real, vr, n, buf);
        nsteps = (long)(stop / step + 0.5);
        for (k = 0; k < nsteps; k++) {
            double t = (double)k * step, t1 = (double)(k + 1) * step;
            check(do_step(c, t, t1 - t, fmi2True), "fmi2DoStep", t);
            print_row(t1, c, get_real, vr, n, buf);
        }
        check(terminate(c), "fmi2Terminate", stop);
        free_instance(c);
    }
    fflush(stdout);
    LIB_CLOSE(lib);
    free(vr);
    free(buf);
    return 0;
}
