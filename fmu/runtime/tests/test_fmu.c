/*
 * test_fmu.c -- tests of the FMI 2.0 runtime through the standard API only: the
 * binary built from a test model is loaded with dlopen and every function is looked
 * up with dlsym, exactly as an importer (FMPy, FMI Library, ...) does.
 *
 *   usage: test_fmu <bball|decay|vdp|nlloop|chatter> <path/to/model.so> [-v]
 *
 * Prints "PASS name details" / "FAIL name details" per check and a final
 * "RESULT passed=N failed=M" line (run_tests.sh sums these).  Exit code 1 on failure.
 * (This is a test program: global state here is fine.)
 */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmi2Functions.h"

/* ---------------------------------------------------------------- API table */
#define API_LIST(X) \
    X(GetTypesPlatform) X(GetVersion) X(SetDebugLogging) X(Instantiate) X(FreeInstance) \
    X(SetupExperiment) X(EnterInitializationMode) X(ExitInitializationMode) X(Terminate) \
    X(Reset) X(GetReal) X(GetInteger) X(GetBoolean) X(GetString) X(SetReal) X(SetInteger) \
    X(SetBoolean) X(SetString) X(GetFMUstate) X(SetFMUstate) X(FreeFMUstate) \
    X(SerializedFMUstateSize) X(SerializeFMUstate) X(DeSerializeFMUstate) \
    X(GetDirectionalDerivative) X(EnterEventMode) X(NewDiscreteStates) \
    X(EnterContinuousTimeMode) X(CompletedIntegratorStep) X(SetTime) \
    X(SetContinuousStates) X(GetDerivatives) X(GetEventIndicators) \
    X(GetContinuousStates) X(GetNominalsOfContinuousStates) X(SetRealInputDerivatives) \
    X(GetRealOutputDerivatives) X(DoStep) X(CancelStep) X(GetStatus) X(GetRealStatus) \
    X(GetIntegerStatus) X(GetBooleanStatus) X(GetStringStatus)

typedef struct {
#define DECL(name) fmi2##name##TYPE *name;
    API_LIST(DECL)
#undef DECL
} Api;

static Api A;
static int n_pass = 0, n_fail = 0, verbose = 0;
static char lastlog[2048];
static char logbuf[1 << 16];
static size_t loglen = 0;

static void check(int ok, const char *name, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("%s %s %s\n", ok ? "PASS" : "FAIL", name, buf);
    fflush(stdout);
    if (ok) n_pass++; else n_fail++;
}

static void logger(fmi2ComponentEnvironment env, fmi2String inst, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
    va_list ap;
    size_t k;
    (void)env;
    va_start(ap, message);
    vsnprintf(lastlog, sizeof lastlog, message, ap);
    va_end(ap);
    if (verbose) printf("  [%s|%d|%s] %s\n", inst, (int)status, category, lastlog);
    k = strlen(lastlog);
    if (loglen + k + 2 >= sizeof logbuf) loglen = 0;   /* ring-ish: keep recent */
    memcpy(logbuf + loglen, lastlog, k);
    loglen += k;
    logbuf[loglen++] = '\n';
    logbuf[loglen] = '\0';
}
static void clearlog(void) { loglen = 0; logbuf[0] = '\0'; lastlog[0] = '\0'; }

/* value of "key=<number>" in the most recent log line containing it, -1 if absent */
static double logval(const char *key)
{
    const char *p = logbuf, *last = NULL;
    size_t kl = strlen(key);
    while ((p = strstr(p, key)) != NULL) {
        if (p[kl] == '=') last = p + kl + 1;
        p += kl;
    }
    return last ? atof(last) : -1.0;
}

static const fmi2CallbackFunctions CB = {logger, calloc, free, NULL, NULL};

static fmi2Component inst(const char *guid, fmi2Type type)
{
    return A.Instantiate("test", type, guid, "", &CB, fmi2False, fmi2False);
}

static fmi2Real getr(fmi2Component c, fmi2ValueReference vr)
{
    fmi2Real x = NAN;
    A.GetReal(c, &vr, 1, &x);
    return x;
}
static fmi2Status setr(fmi2Component c, fmi2ValueReference vr, fmi2Real x)
{
    return A.SetReal(c, &vr, 1, &x);
}
static fmi2Status seti(fmi2Component c, fmi2ValueReference vr, fmi2Integer x)
{
    return A.SetInteger(c, &vr, 1, &x);
}
static fmi2Integer geti(fmi2Component c, fmi2ValueReference vr)
{
    fmi2Integer x = -999;
    A.GetInteger(c, &vr, 1, &x);
    return x;
}
static fmi2Status init(fmi2Component c, double tol, int tolDefined)
{
    fmi2Status s = A.SetupExperiment(c, tolDefined, tol, 0.0, fmi2False, 0.0);
    if (s == fmi2OK) s = A.EnterInitializationMode(c);
    if (s == fmi2OK) s = A.ExitInitializationMode(c);
    return s;
}
/* stats of the solver, from the fmi2Terminate log line */
static void stats(fmi2Component c, long *nstep, long *nfev)
{
    fmi2String all = "logAll";
    clearlog();
    A.SetDebugLogging(c, fmi2True, 1, &all);
    A.Terminate(c);
    *nstep = (long)logval("accepted");
    *nfev = (long)logval("nfev");
}

/* ================================================================ bouncing ball */
#define BB_GUID "{8c4e810f-3df3-4a00-8276-176fa3c9f000}"
enum { BB_H = 0, BB_V = 1, BB_DH = 2, BB_G = 4, BB_E = 5, BB_TTERM = 6, BB_METHOD = 7,
       BB_RTOL = 8, BB_HMAX = 10, BB_FLOOR = 11, BB_COUNT = 13, BB_TIMPACT = 14,
       BB_MAXSTEPS = 25, BB_MAXSTEPTIME = 26 };

/* number of exact impacts before tEnd */
static int bb_nbefore(const double *ex, int n, double tEnd)
{
    int k = 0;
    while (k < n && ex[k] < tEnd) k++;
    return k;
}

static int bb_exact(double h0, double e, double g, double *t, int nmax)
{
    const double t1 = sqrt(2 * h0 / g), v1 = g * t1;
    double ek = 1.0;
    int k;
    t[0] = t1;
    for (k = 1; k < nmax; k++) { ek *= e; t[k] = t[k - 1] + 2 * ek * v1 / g; }
    return nmax;
}

/* CS run; records impact times seen through (count, tImpact); returns last status */
static fmi2Status bb_run(fmi2Component c, double t0, double tEnd, double H, double *imp,
                         int *nimp, int maximp)
{
    long n = 0;
    int last = geti(c, BB_COUNT);
    fmi2Status s = fmi2OK;
    for (;;) {
        double t = t0 + n * H;
        int cnt;
        if (t >= tEnd - 1e-12) break;
        s = A.DoStep(c, t, H, fmi2True);
        if (s != fmi2OK) break;
        n++;
        cnt = geti(c, BB_COUNT);
        if (cnt != last && *nimp < maximp) imp[(*nimp)++] = getr(c, BB_TIMPACT);
        last = cnt;
    }
    return s;
}

static void test_bball_cs(int method, const char *tag)
{
    double ex[20], imp[20], maxerr = 0;
    int nimp = 0, k;
    long nstep, nfev;
    char name[64];
    fmi2Component c = inst(BB_GUID, fmi2CoSimulation);
    seti(c, BB_METHOD, method);
    setr(c, BB_RTOL, 1e-8);
    init(c, 0, 0);
    bb_run(c, 0.0, 2.45, 0.01, imp, &nimp, 20);
    bb_exact(1.0, 0.7, 9.81, ex, 20);
    for (k = 0; k < nimp; k++) if (fabs(imp[k] - ex[k]) > maxerr) maxerr = fabs(imp[k] - ex[k]);
    stats(c, &nstep, &nfev);
    snprintf(name, sizeof name, "bball_cs_impacts_%s", tag);
    check(nimp == bb_nbefore(ex, 20, 2.45) && maxerr < 1e-8, name,
          "%d impacts (exact: %d before t=2.45), max |t_impact - exact| = %.2e s, steps=%ld nfev=%ld",
          nimp, bb_nbefore(ex, 20, 2.45), maxerr, nstep, nfev);
    A.FreeInstance(c);
}


/* "save, continue" = "save, restore, continue" = "deserialize into another instance,
 * continue", bit for bit, for every method, at save points between impacts, right after
 * them and with solver steps reaching past the communication point (for Adams: the
 * Nordsieck history, order and counters are part of the state) */
static void bb_steps(fmi2Component c, int k0, int k1, double H, double *out)
{
    int k;
    for (k = k0; k < k1; k++) {
        A.DoStep(c, k * H, H, fmi2True);
        out[2 * (k - k0)] = getr(c, BB_H);
        out[2 * (k - k0) + 1] = getr(c, BB_V);
    }
}
static void test_bball_state_methods(void)
{
    int m;
    for (m = 0; m <= 3; m++) {
        fmi2Component c = inst(BB_GUID, fmi2CoSimulation), c2 = inst(BB_GUID, fmi2CoSimulation);
        const double H = 0.013;
        int k0, same = 1, nsave = 0;
        double a[2 * 11], b[2 * 11], d[2 * 11];
        char name[64];
        seti(c, BB_METHOD, m);
        setr(c, BB_RTOL, 1e-8);
        init(c, 0, 0);
        for (k0 = 0; k0 + 11 <= 180; k0 += 11) {
            fmi2FMUstate st = NULL, st2 = NULL;
            size_t sz = 0;
            fmi2Byte *bytes;
            A.GetFMUstate(c, &st);
            A.SerializedFMUstateSize(c, st, &sz);
            bytes = (fmi2Byte *)malloc(sz);
            A.SerializeFMUstate(c, st, bytes, sz);
            bb_steps(c, k0, k0 + 11, H, a);
            A.SetFMUstate(c, st);
            bb_steps(c, k0, k0 + 11, H, b);
            A.DeSerializeFMUstate(c2, bytes, sz, &st2);
            A.SetFMUstate(c2, st2);
            bb_steps(c2, k0, k0 + 11, H, d);
            if (memcmp(a, b, sizeof a) != 0 || memcmp(a, d, sizeof a) != 0) same = 0;
            A.FreeFMUstate(c, &st);
            A.FreeFMUstate(c2, &st2);
            free(bytes);
            nsave++;
        }
        snprintf(name, sizeof name, "bball_state_bit_identical_method%d", m);
        check(same && geti(c, BB_COUNT) >= 5, name, "%d save points, %d impacts", nsave,
              geti(c, BB_COUNT));
        A.FreeInstance(c);
        A.FreeInstance(c2);
    }
}

static void test_bball_misuse(void)
{
    fmi2Component c;
    fmi2Status s;
    fmi2Real x;
    fmi2ValueReference vr;
    fmi2Boolean b;
    fmi2EventInfo ei;
    fmi2FMUstate st = NULL;

    check(inst("{wrong-guid}", fmi2CoSimulation) == NULL, "instantiate_wrong_guid", "%s", lastlog);
    check(inst(BB_GUID, (fmi2Type)7) == NULL, "instantiate_bad_type", "%s", lastlog);
    check(A.Instantiate(NULL, fmi2CoSimulation, BB_GUID, "", &CB, 0, 0) == NULL,
          "instantiate_null_name", "");
    check(strcmp(A.GetVersion(), "2.0") == 0 && strcmp(A.GetTypesPlatform(), "default") == 0,
          "version_platform", "%s %s", A.GetVersion(), A.GetTypesPlatform());

    c = inst(BB_GUID, fmi2CoSimulation);
    check(c != NULL, "instantiate_cs", "");
    s = A.DoStep(c, 0.0, 0.1, fmi2True);
    check(s == fmi2Error && strstr(lastlog, "not allowed in state instantiated"),
          "dostep_before_init", "%s", lastlog);
    s = A.ExitInitializationMode(c);
    check(s == fmi2Error, "exitinit_before_enter", "%s", lastlog);
    s = A.NewDiscreteStates(c, &ei);
    check(s == fmi2Error, "me_function_on_cs_instance", "%s", lastlog);
    /* set checks */
    s = setr(c, BB_E, 1.5);
    check(s == fmi2Error && strstr(lastlog, "e (vr=5)") && getr(c, BB_E) == 0.7,
          "set_out_of_range", "%s", lastlog);
    s = setr(c, BB_E, NAN);
    check(s == fmi2Error && strstr(lastlog, "not a finite") && getr(c, BB_E) == 0.7,
          "set_nan", "%s", lastlog);
    s = setr(c, BB_E, INFINITY);
    check(s == fmi2Error, "set_inf", "%s", lastlog);
    s = setr(c, BB_DH, 1.0);
    check(s == fmi2Error && strstr(lastlog, "der(h)"), "set_computed", "%s", lastlog);
    s = setr(c, 9999, 1.0);
    check(s == fmi2Error && strstr(lastlog, "out of range"), "set_bad_vr", "%s", lastlog);
    s = seti(c, BB_E, 1);
    check(s == fmi2Error && strstr(lastlog, "type"), "set_wrong_type", "%s", lastlog);
    {   /* atomic: second value invalid -> first not written */
        fmi2ValueReference vrs[2] = {BB_G, BB_E};
        fmi2Real vals[2] = {5.0, 2.0};
        s = A.SetReal(c, vrs, 2, vals);
        check(s == fmi2Error && getr(c, BB_G) == 9.81, "set_atomic", "g=%g", getr(c, BB_G));
    }
    s = A.SetString(c, &vr, 1, NULL);
    check(s == fmi2Error, "set_string", "%s", lastlog);
    x = 0;
    s = A.GetDirectionalDerivative(c, NULL, 0, NULL, 0, NULL, &x);
    check(s == fmi2Error, "directional_derivative_state_check", "%s", lastlog);
    s = seti(c, BB_METHOD, 4);
    check(s == fmi2Error, "set_method_range", "%s", lastlog);
    /* instance still usable after all that */
    check(init(c, 0, 0) == fmi2OK, "init_after_errors", "");
    s = A.DoStep(c, 0.5, 0.1, fmi2True);
    check(s == fmi2Error && strstr(lastlog, "does not match"), "dostep_wrong_time", "%s", lastlog);
    s = A.DoStep(c, 0.0, -0.1, fmi2True);
    check(s == fmi2Error, "dostep_negative_h", "%s", lastlog);
    s = setr(c, BB_G, 1.0);
    check(s == fmi2Error && strstr(lastlog, "fixed parameters"), "set_fixed_after_init", "%s", lastlog);
    s = setr(c, BB_H, 1.0);
    check(s == fmi2Error, "set_state_after_init", "%s", lastlog);
    s = A.GetDirectionalDerivative(c, NULL, 0, NULL, 0, NULL, &x);
    check(s == fmi2Error && strstr(lastlog, "not supported"), "directional_derivative_unsupported", "%s", lastlog);
    s = A.SetRealInputDerivatives(c, NULL, 0, NULL, NULL);
    check(s == fmi2OK, "input_derivatives_none", "");
    {
        const fmi2ValueReference fl = BB_FLOOR, hv = BB_H;
        const fmi2Integer o3 = 3, o1 = 1, o0 = 0;
        const fmi2Real one = 1.0;
        fmi2Real out = 0.0;
        s = A.SetRealInputDerivatives(c, &fl, 1, &o3, &one);
        check(s == fmi2Error && strstr(lastlog, "order 3") && strstr(lastlog, "floor"),
              "input_derivative_order_3_refused", "%s", lastlog);
        s = A.SetRealInputDerivatives(c, &hv, 1, &o1, &one);
        check(s == fmi2Error && strstr(lastlog, "h (vr=0) is not an input"),
              "input_derivative_of_a_state_refused", "%s", lastlog);
        s = A.GetRealOutputDerivatives(c, &fl, 1, &o1, &out);
        check(s == fmi2Error && strstr(lastlog, "floor") && strstr(lastlog, "not an output"),
              "output_derivative_of_an_input_refused", "%s", lastlog);
        s = A.GetRealOutputDerivatives(c, &hv, 1, &o0, &out);
        check(s == fmi2Error && strstr(lastlog, "order 0"), "output_derivative_order_0_refused",
              "%s", lastlog);
    }
    s = A.CancelStep(c);
    check(s == fmi2Error, "cancel_step", "%s", lastlog);
    s = A.GetBooleanStatus(c, fmi2Terminated, &b);
    check(s == fmi2OK && b == fmi2False, "terminated_status_false", "");
    s = A.GetRealStatus(c, fmi2LastSuccessfulTime, &x);
    check(s == fmi2OK && x == 0.0, "last_successful_time_initial", "%g", x);
    {
        static char garbage[4096];
        memset(garbage, 'g', sizeof garbage);
        s = A.SetFMUstate(c, (fmi2FMUstate)garbage);
    }
    check(s == fmi2Error, "setfmustate_garbage", "%s", lastlog);
    s = A.GetFMUstate(c, &st);
    check(s == fmi2OK, "getfmustate", "");
    s = A.FreeFMUstate(c, &st);
    check(s == fmi2OK && st == NULL, "freefmustate", "");
    s = setr(c, BB_E, 0.5);
    check(s == fmi2OK, "set_tunable_between_steps", "");
    s = A.DoStep(c, 0.0, 0.1, fmi2True);
    check(s == fmi2OK, "dostep_ok", "");
    A.Terminate(c);
    s = A.DoStep(c, 0.1, 0.1, fmi2True);
    check(s == fmi2Error && strstr(lastlog, "terminated"), "dostep_after_terminate", "%s", lastlog);
    A.FreeInstance(c);
}

/* The FMU state's checksum, written from the comment of state_checksum (rt_state.c):
   FNV-1a over the block's 64-bit words, the checksum field (bytes 52..55) taken as 0, word k
   into lane k mod 4, the lanes combined, folded to 32 bits. */
#define STATE_CHECKSUM_AT 52
static unsigned int state_fnv(const unsigned char *b, size_t n)
{
    const unsigned long long P = 1099511628211ull, O = 14695981039346656037ull;
    unsigned long long l[4], x, w;
    size_t k;
    l[0] = O; l[1] = O ^ 1u; l[2] = O ^ 2u; l[3] = O ^ 3u;
    for (k = 0; 8 * k < n; k++) {
        const size_t i = 8 * k, m = n - i < 8 ? n - i : 8;
        unsigned char t[8] = {0};
        memcpy(t, b + i, m);
        if (i <= STATE_CHECKSUM_AT && STATE_CHECKSUM_AT < i + 8) memset(t + (STATE_CHECKSUM_AT - i), 0, 4);
        memcpy(&w, t, 8);
        l[k & 3] = (l[k & 3] ^ w) * P;
    }
    x = ((((l[0] ^ l[1]) * P) ^ l[2]) * P ^ l[3]) * P;
    return (unsigned int)(x ^ (x >> 32));
}

/* State version 8 (and later) keeps the running CS solver at the end of the block (no model hooks here):
   1 + ahead, event flag, event time, zOld, z (N_Z = 2 each), the solver's 36-double header and
   (3 + 56) N_X doubles (N_X = 2; 56: the auto method's work space, the largest).  Crafted records -- every header field and indicator set to
   NaN, +-Inf, huge, negative, fractional, off-by-one values, and random array entries -- with
   the checksum made right again: deserializing and restoring succeed, and the steps after,
   and a state saved after them, return a status (the record is taken or refused for a
   restart).  Under --sanitize any read
   out of bounds, shift overflow or invalid conversion fails the run. */
static void test_bball_hostile_running_solver(int method, const char *tag)
{
    enum { LIVE = 4 + 2 * 2 + 36 + 59 * 2, FIELDS = 4 + 2 * 2 + 33 };
    const double bad[] = { NAN, INFINITY, -INFINITY, 1e308, 1e9, -1e9, -1.0, 0.0, 0.5, 2.0, 13.0, 31.0 };
    const int nbad = (int)(sizeof bad / sizeof bad[0]);
    fmi2FMUstate st = NULL;
    fmi2Byte *bytes, *work;
    size_t sz = 0, base;
    fmi2Status s;
    unsigned int sum, lcg = 12345u + (unsigned)method;
    int j, v, trial, ok = 1, nstatus[4] = {0, 0, 0, 0};
    double t;
    char name[64];
    fmi2Component c = inst(BB_GUID, fmi2CoSimulation);
    seti(c, BB_METHOD, method);
    init(c, 0, 0);
    for (t = 0.0; t < 0.55 - 1e-9; t += 0.01) A.DoStep(c, t, 0.01, fmi2True);
    A.GetFMUstate(c, &st);
    A.SerializedFMUstateSize(c, st, &sz);
    bytes = (fmi2Byte *)malloc(sz);
    work = (fmi2Byte *)malloc(sz);
    A.SerializeFMUstate(c, st, bytes, sz);
    A.FreeFMUstate(c, &st);
    memcpy(&sum, bytes + STATE_CHECKSUM_AT, 4);
    base = sz - (size_t)LIVE * 8;
    {
        double flag;
        memcpy(&flag, bytes + base, 8);
        snprintf(name, sizeof name, "state_checksum_and_live_record_%s", tag);
        check(sum == state_fnv((const unsigned char *)bytes, sz) && flag == 1.0, name,
              "checksum %u vs %u, live flag %g", sum, state_fnv((const unsigned char *)bytes, sz), flag);
    }
    for (trial = 0; trial < FIELDS * (nbad + 2) + 200; trial++) {
        double old, val;
        size_t at;
        fmi2FMUstate st2 = NULL;
        memcpy(work, bytes, sz);
        if (trial < FIELDS * (nbad + 2)) {
            j = trial / (nbad + 2);
            v = trial % (nbad + 2);
        } else {   /* anywhere in the record */
            lcg = lcg * 1103515245u + 12345u;
            j = (int)((lcg >> 8) % LIVE);
            lcg = lcg * 1103515245u + 12345u;
            v = (int)((lcg >> 8) % (unsigned)(nbad + 2));
        }
        at = base + (size_t)j * 8;
        memcpy(&old, work + at, 8);
        val = v < nbad ? bad[v] : (v == nbad ? old + 1.0 : old * 1.001);
        memcpy(work + at, &val, 8);
        sum = state_fnv((const unsigned char *)work, sz);
        memcpy(work + STATE_CHECKSUM_AT, &sum, 4);
        s = A.DeSerializeFMUstate(c, work, sz, &st2);
        if (s == fmi2OK) s = A.SetFMUstate(c, st2);
        if (s != fmi2OK) { ok = 0; break; }
        A.FreeFMUstate(c, &st2);
        for (t = 0.55; t < 0.60 - 1e-9; t += 0.01) {
            s = A.DoStep(c, t, 0.01, fmi2True);
            if (s > fmi2Error) { ok = 0; break; }
            if (s != fmi2OK) break;
        }
        nstatus[s > 3 ? 3 : (int)s]++;
        if (!ok) break;
        if (A.GetFMUstate(c, &st2) > fmi2Error) { ok = 0; break; }   /* saved again */
        A.FreeFMUstate(c, &st2);
    }
    snprintf(name, sizeof name, "state_hostile_running_solver_%s", tag);
    check(ok, name, "trial %d: status %d (%s); last steps: %d OK, %d warning, %d discard, %d error",
          trial, (int)s, lastlog, nstatus[0], nstatus[1], nstatus[2], nstatus[3]);
    free(bytes);
    free(work);
    A.FreeInstance(c);
}

static void test_bball_state(void)
{
    double imp1[20], imp2[20], h1, h2, v1, v2;
    int n1 = 0, n2 = 0, k, same = 1;
    size_t sz = 0;
    fmi2Byte *bytes;
    fmi2FMUstate st = NULL, st2 = NULL;
    fmi2Status s;
    fmi2Component c = inst(BB_GUID, fmi2CoSimulation);
    init(c, 0, 0);
    bb_run(c, 0.0, 1.0, 0.01, imp1, &n1, 20);
    s = A.GetFMUstate(c, &st);
    check(s == fmi2OK, "state_get", "");
    n1 = 0;
    bb_run(c, 1.0, 2.0, 0.01, imp1, &n1, 20);
    h1 = getr(c, BB_H); v1 = getr(c, BB_V);
    s = A.SetFMUstate(c, st);
    check(s == fmi2OK && fabs(getr(c, BB_H) - 0.0) < 2 && geti(c, BB_COUNT) == 1, "state_set",
          "count=%d", geti(c, BB_COUNT));
    bb_run(c, 1.0, 2.0, 0.01, imp2, &n2, 20);
    h2 = getr(c, BB_H); v2 = getr(c, BB_V);
    for (k = 0; k < n1 && k < n2; k++) if (fabs(imp1[k] - imp2[k]) > 1e-12) same = 0;
    check(same && n1 == n2 && fabs(h1 - h2) < 1e-12 && fabs(v1 - v2) < 1e-12,
          "state_roundtrip_reproduces", "h %.17g vs %.17g, %d/%d impacts", h1, h2, n1, n2);
    /* serialization */
    s = A.SerializedFMUstateSize(c, st, &sz);
    bytes = (fmi2Byte *)malloc(sz);
    if (s == fmi2OK) s = A.SerializeFMUstate(c, st, bytes, sz);
    if (s == fmi2OK) s = A.DeSerializeFMUstate(c, bytes, sz, &st2);
    if (s == fmi2OK) s = A.SetFMUstate(c, st2);
    n2 = 0;
    if (s == fmi2OK) bb_run(c, 1.0, 2.0, 0.01, imp2, &n2, 20);
    check(s == fmi2OK && fabs(getr(c, BB_H) - h1) < 1e-12, "serialize_roundtrip",
          "size=%lu h=%.17g", (unsigned long)sz, getr(c, BB_H));
    s = A.SerializeFMUstate(c, st, bytes, sz - 1);
    check(s == fmi2Error, "serialize_small_buffer", "%s", lastlog);
    bytes[sz - 3] ^= 0x01;   /* corrupt one bit of the last stored value */
    {
        fmi2FMUstate st3 = NULL;
        s = A.DeSerializeFMUstate(c, bytes, sz, &st3);
        check(s == fmi2Error && st3 == NULL, "deserialize_corrupt", "%s", lastlog);
    }
    s = A.DeSerializeFMUstate(c, bytes, 10, &st2);
    check(s == fmi2Error, "deserialize_truncated", "%s", lastlog);
    free(bytes);
    A.FreeFMUstate(c, &st);
    A.FreeFMUstate(c, &st2);
    /* reset -> start values, same result again */
    s = A.Reset(c);
    check(s == fmi2OK && getr(c, BB_H) == 1.0 && geti(c, BB_COUNT) == 0, "reset_start_values",
          "h=%g", getr(c, BB_H));
    init(c, 0, 0);
    n2 = 0;
    bb_run(c, 0.0, 2.0, 0.01, imp2, &n2, 20);
    check(fabs(getr(c, BB_H) - h1) < 1e-12, "reset_reproduces", "h(2)=%.17g vs %.17g",
          getr(c, BB_H), h1);
    A.Terminate(c);
    A.FreeInstance(c);
}

static void test_bball_terminate_and_input(void)
{
    fmi2Boolean term = 0;
    fmi2Real lst = -1;
    fmi2Status s;
    double imp[20], ex[20];
    int nimp = 0;
    fmi2Component c = inst(BB_GUID, fmi2CoSimulation);
    setr(c, BB_TTERM, 0.5);
    init(c, 0, 0);
    s = bb_run(c, 0.0, 2.0, 0.03, imp, &nimp, 20);
    A.GetBooleanStatus(c, fmi2Terminated, &term);
    A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
    check(s == fmi2Discard && term && fabs(lst - 0.5) < 1e-9 && nimp == 1,
          "terminate_in_dostep", "status=%d terminated=%d lastSuccessfulTime=%.15g", s, term, lst);
    s = A.DoStep(c, lst, 0.03, fmi2True);
    check(s == fmi2Error && strstr(lastlog, "termination"), "dostep_after_model_terminate", "%s", lastlog);
    check(A.Terminate(c) == fmi2OK, "terminate_after_discard", "");
    A.FreeInstance(c);

    /* input: floor at -0.5 (set before init), then raised to 0.3 between steps */
    c = inst(BB_GUID, fmi2CoSimulation);
    setr(c, BB_FLOOR, -0.5);
    init(c, 0, 0);
    nimp = 0;
    bb_run(c, 0.0, 0.7, 0.01, imp, &nimp, 20);
    bb_exact(1.5, 0.7, 9.81, ex, 20);
    check(nimp == 1 && fabs(imp[0] - ex[0]) < 1e-8, "input_floor_before_init",
          "impact %.12g exact %.12g", nimp ? imp[0] : -1, ex[0]);
    check(fabs(getr(c, 12) - (getr(c, BB_H) + 0.5)) < 1e-12, "output_consistent", "");
    s = setr(c, BB_FLOOR, 0.3);
    check(s == fmi2OK && fabs(getr(c, 12) - (getr(c, BB_H) - 0.3)) < 1e-12,
          "input_set_lazy_eval", "hAbove=%g", getr(c, 12));
    A.Terminate(c);
    A.FreeInstance(c);
}

/* Input derivatives (canInterpolateInputs): the floor rises along floor(t) = a t from 0 (order 1,
   set at t = 0 for the one step to 0.5, set again for the next), or along a t^2/2 (order 2): the
   ball (h = 1 - g t^2/2) meets it where the polynomial says, located inside the step; after the
   step the floor input has the polynomial's value, the derivative is consumed (a step without
   setting it holds the floor); the output derivative of hAbove = h - floor is v - a t; the
   derivatives survive an FMU state round trip. */
static void test_bball_input_derivatives(void)
{
    const fmi2ValueReference fl = BB_FLOOR, ha = 12, hv = BB_H, cnt = BB_COUNT;
    const fmi2Integer o1 = 1, o2 = 2;
    const double a = 0.8, g = 9.81;
    const double t1 = (-a + sqrt(a * a + 2 * g)) / g;             /* 1 - g t^2/2 = a t */
    const double t2 = sqrt(2.0 / (g + a));                        /* 1 - g t^2/2 = a t^2/2 */
    fmi2FMUstate st = NULL;
    fmi2Status s;
    fmi2Real d = 0.0, x;
    double tl;
    fmi2Component c = inst(BB_GUID, fmi2CoSimulation);
    init(c, 1e-10, 1);
    s = A.SetRealInputDerivatives(c, &fl, 1, &o1, &a);
    A.GetFMUstate(c, &st);                                        /* derivative pending */
    s = s == fmi2OK ? A.DoStep(c, 0.0, 0.5, fmi2True) : s;
    check(s == fmi2OK && geti(c, BB_COUNT) == 1 && fabs(getr(c, BB_TIMPACT) - t1) < 1e-9,
          "input_derivative_event_located", "impact at %.12g, exact %.12g", getr(c, BB_TIMPACT), t1);
    check(getr(c, BB_FLOOR) == a * 0.5, "input_after_step_is_polynomial_end", "floor=%.17g",
          getr(c, BB_FLOOR));
    s = A.GetRealOutputDerivatives(c, &ha, 1, &o1, &d);
    check(s == fmi2OK && fabs(d - (getr(c, BB_V) - a)) < 1e-7 * (1 + fabs(d)),
          "output_derivative_with_input_rate", "d hAbove/dt = %.12g, v - a = %.12g", d, getr(c, BB_V) - a);
    s = A.GetRealOutputDerivatives(c, &hv, 1, &o1, &d);
    check(s == fmi2OK && d == getr(c, BB_V), "output_derivative_of_a_state", "%.17g", d);
    s = A.GetRealOutputDerivatives(c, &cnt, 1, &o1, &d);
    check(s == fmi2Error && strstr(lastlog, "Integer"), "output_derivative_integer_refused", "%s", lastlog);
    tl = getr(c, BB_FLOOR);
    A.DoStep(c, 0.5, 0.1, fmi2True);                              /* nothing set: held */
    check(getr(c, BB_FLOOR) == tl, "input_derivative_consumed", "floor=%.17g", getr(c, BB_FLOOR));
    /* the state taken with the derivative pending: the same first step again */
    A.SetFMUstate(c, st);
    A.DoStep(c, 0.0, 0.5, fmi2True);
    x = getr(c, BB_TIMPACT);
    check(fabs(x - t1) < 1e-9 && getr(c, BB_FLOOR) == a * 0.5, "input_derivative_in_fmu_state",
          "impact %.12g", x);
    A.FreeFMUstate(c, &st);
    A.Reset(c);
    init(c, 1e-10, 1);
    s = A.SetRealInputDerivatives(c, &fl, 1, &o2, &a);
    s = s == fmi2OK ? A.DoStep(c, 0.0, 0.6, fmi2True) : s;
    check(s == fmi2OK && fabs(getr(c, BB_TIMPACT) - t2) < 1e-9 &&
          fabs(getr(c, BB_FLOOR) - 0.5 * a * 0.36) < 1e-15,
          "input_derivative_order_2", "impact at %.12g, exact %.12g, floor %.17g",
          getr(c, BB_TIMPACT), t2, getr(c, BB_FLOOR));
    A.FreeInstance(c);
}

/* ---------- ME: a minimal importer (RK4 + bisection) driving the ME interface */
static void me_rk4(fmi2Component c, double t, const double *x, double h, double *out)
{
    double k[4][2], y[2];
    int i, s;
    const double cc[4] = {0, 0.5, 0.5, 1};
    for (s = 0; s < 4; s++) {
        for (i = 0; i < 2; i++) y[i] = x[i] + (s ? cc[s] * h * k[s - 1][i] : 0);
        A.SetTime(c, t + cc[s] * h);
        A.SetContinuousStates(c, y, 2);
        A.GetDerivatives(c, k[s], 2);
    }
    for (i = 0; i < 2; i++) out[i] = x[i] + h / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
}

static void me_event(fmi2Component c, fmi2EventInfo *ei)
{
    int n = 0;
    A.EnterEventMode(c);
    do {
        A.NewDiscreteStates(c, ei);
    } while (ei->newDiscreteStatesNeeded && ++n < 100);
    A.EnterContinuousTimeMode(c);
}

static void test_bball_me(void)
{
    double x[2], xn[2], z[2], zn[2], ex[20], imp[20], t = 0, h = 1e-3, maxerr = 0;
    int nimp = 0, k, n = 0;
    fmi2EventInfo ei;
    fmi2Status s;
    fmi2Boolean enter, term;
    fmi2Component c = inst(BB_GUID, fmi2ModelExchange);
    check(c != NULL, "me_instantiate", "");
    s = A.DoStep(c, 0, 0.1, fmi2True);
    check(s == fmi2Error, "me_dostep_rejected", "%s", lastlog);
    init(c, 0, 0);
    s = A.SetContinuousStates(c, x, 2);
    check(s == fmi2Error && strstr(lastlog, "eventMode"), "me_setstates_in_eventmode", "%s", lastlog);
    do { A.NewDiscreteStates(c, &ei); } while (ei.newDiscreteStatesNeeded && ++n < 100);
    A.EnterContinuousTimeMode(c);
    A.GetContinuousStates(c, x, 2);
    A.GetEventIndicators(c, z, 2);
    xn[0] = NAN; xn[1] = 0;
    s = A.SetContinuousStates(c, xn, 2);
    check(s == fmi2Error && strstr(lastlog, "not a finite"), "me_setstates_nan", "%s", lastlog);
    s = A.SetContinuousStates(c, x, 3);
    check(s == fmi2Error, "me_setstates_wrong_n", "%s", lastlog);
    {
        double nom[2] = {0, 0};
        s = A.GetNominalsOfContinuousStates(c, nom, 2);
        check(s == fmi2OK && nom[0] == 1.0 && nom[1] == 10.0, "me_nominals",
              "(%g, %g), expected mdl_x_nominal = (1, 10)", nom[0], nom[1]);
    }
    while (t < 2.0) {
        me_rk4(c, t, x, h, xn);
        A.SetTime(c, t + h);
        A.SetContinuousStates(c, xn, 2);
        A.GetEventIndicators(c, zn, 2);
        if ((z[0] != 0 && z[0] * zn[0] <= 0) || (z[1] != 0 && z[1] * zn[1] <= 0)) {
            double lo = 0, hi = h, xe[2], ze[2];
            int it;
            for (it = 0; it < 100 && hi - lo > 1e-14; it++) {
                double mid = 0.5 * (lo + hi);
                me_rk4(c, t, x, mid, xe);
                A.SetTime(c, t + mid);
                A.SetContinuousStates(c, xe, 2);
                A.GetEventIndicators(c, ze, 2);
                if ((z[0] != 0 && z[0] * ze[0] <= 0) || (z[1] != 0 && z[1] * ze[1] <= 0)) hi = mid;
                else lo = mid;
            }
            me_rk4(c, t, x, hi, xe);
            A.SetTime(c, t + hi);
            A.SetContinuousStates(c, xe, 2);
            me_event(c, &ei);
            t += hi;
            A.GetContinuousStates(c, x, 2);
            A.GetEventIndicators(c, z, 2);
            if (geti(c, BB_COUNT) > nimp && nimp < 20) imp[nimp++] = getr(c, BB_TIMPACT);
        } else {
            t += h;
            x[0] = xn[0]; x[1] = xn[1];
            z[0] = zn[0]; z[1] = zn[1];
            A.CompletedIntegratorStep(c, fmi2True, &enter, &term);
        }
    }
    bb_exact(1.0, 0.7, 9.81, ex, 20);
    for (k = 0; k < nimp; k++) if (fabs(imp[k] - ex[k]) > maxerr) maxerr = fabs(imp[k] - ex[k]);
    check(nimp == bb_nbefore(ex, 20, 2.0) && maxerr < 1e-9, "me_impacts",
          "%d impacts (exact %d), max error %.2e s", nimp, bb_nbefore(ex, 20, 2.0), maxerr);
    {
        fmi2FMUstate st = NULL;
        double hh = getr(c, BB_H);
        s = A.GetFMUstate(c, &st);
        A.SetTime(c, 3.0);
        xn[0] = 5; xn[1] = 5;
        A.SetContinuousStates(c, xn, 2);
        s = s == fmi2OK ? A.SetFMUstate(c, st) : s;
        check(s == fmi2OK && getr(c, BB_H) == hh, "me_fmustate", "");
        A.FreeFMUstate(c, &st);
    }
    s = A.Terminate(c);
    check(s == fmi2OK, "me_terminate", "");
    A.FreeInstance(c);
}

/* ---------- guards (issue 14): unknown value references, work budget, Zeno */

/* accumulation point of the impacts of the test ball (h0 = 1, e = 0.7, g = 9.81) */
static double bb_zeno_time(void)
{
    const double t1 = sqrt(2 * 1.0 / 9.81), v1 = 9.81 * t1;
    return t1 + 2 * v1 / 9.81 * 0.7 / (1 - 0.7);
}

static void test_bball_unknown_vrs(void)
{
    fmi2Component c = inst(BB_GUID, fmi2CoSimulation);
    fmi2ValueReference vr;
    fmi2Real r = 12345;
    fmi2Integer i = 12345;
    fmi2Boolean b = 7;
    fmi2String str = NULL;
    fmi2Status s;
    char want[64];
    int ok = 1;
    init(c, 0, 0);
    A.DoStep(c, 0.0, 0.5, fmi2True);          /* past the first impact: memories set */
    /* 15..24: pre values, relation memories, when flags (no ScalarVariable) */
    for (vr = 15; vr <= 24; vr++) {
        snprintf(want, sizeof want, "value reference %u is not in the model description",
                 (unsigned)vr);
        clearlog();
        s = A.GetReal(c, &vr, 1, &r);
        ok = ok && s == fmi2Error && strstr(lastlog, want) && r == 12345;
        s = A.GetInteger(c, &vr, 1, &i);
        ok = ok && s == fmi2Error && strstr(lastlog, want) && i == 12345;
        s = A.GetBoolean(c, &vr, 1, &b);
        ok = ok && s == fmi2Error && strstr(lastlog, want) && b == 7;
        s = A.SetBoolean(c, &vr, 1, &b);
        ok = ok && s == fmi2Error && strstr(lastlog, want);
    }
    check(ok, "get_internal_vr_refused", "%s", lastlog);
    vr = 27;
    s = A.GetReal(c, &vr, 1, &r);
    check(s == fmi2Error && strstr(lastlog, "value reference 27 is not in the model description"),
          "get_vr_beyond_nv_refused", "%s", lastlog);
    vr = 0;
    s = A.GetString(c, &vr, 1, &str);
    check(s == fmi2Error && strstr(lastlog, "h (vr=0)") && strstr(lastlog, "not String"),
          "get_string_names_vr", "%s", lastlog);
    vr = 17;
    s = A.GetString(c, &vr, 1, &str);
    check(s == fmi2Error && strstr(lastlog, "value reference 17"), "get_string_unknown_vr",
          "%s", lastlog);
    {   /* a batch with one unknown reference: nothing is returned, the instance goes on */
        fmi2ValueReference vrs[3] = {BB_H, 16, BB_V};
        fmi2Real out[3] = {-1, -1, -1};
        s = A.GetReal(c, vrs, 3, out);
        check(s == fmi2Error && out[0] == -1 && A.DoStep(c, 0.5, 0.1, fmi2True) == fmi2OK,
              "get_batch_unknown_vr_refused", "%s", lastlog);
    }
    A.FreeInstance(c);
}

static void test_bball_work_budget(void)
{
    fmi2Component c;
    fmi2Status s;
    fmi2Real lst = -1;
    /* solver.hmax = 1e-12 with a 0.01 s step: 1e10 steps > solver.maxSteps, refused */
    c = inst(BB_GUID, fmi2CoSimulation);
    setr(c, BB_HMAX, 1e-12);
    init(c, 0, 0);
    clearlog();
    s = A.DoStep(c, 0.0, 0.01, fmi2True);
    A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
    check(s == fmi2Discard && lst == 0.0 && getr(c, BB_H) == 1.0 &&
          strstr(lastlog, "solver.hmax") && strstr(lastlog, "solver.maxSteps") &&
          strstr(lastlog, "refused"), "budget_hmax_refused_up_front",
          "status=%d lastSuccessfulTime=%g msg: %.200s", s, lst, lastlog);
    A.FreeInstance(c);
    /* deterministic step budget: a few steps only */
    c = inst(BB_GUID, fmi2CoSimulation);
    s = seti(c, BB_MAXSTEPS, 0);
    check(s == fmi2Error && strstr(lastlog, "outside its range"), "budget_max_steps_range",
          "%s", lastlog);
    seti(c, BB_MAXSTEPS, 5);
    init(c, 0, 0);
    clearlog();
    s = A.DoStep(c, 0.0, 2.0, fmi2True);
    A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
    check(s == fmi2Discard && lst > 0.0 && lst < 2.0 && strstr(lastlog, "solver.maxSteps = 5") &&
          strstr(lastlog, "too many solver steps"), "budget_max_steps",
          "status=%d lastSuccessfulTime=%.12g msg: %.200s", s, lst, lastlog);
    A.FreeInstance(c);
    /* the same step with the default budget passes */
    c = inst(BB_GUID, fmi2CoSimulation);
    init(c, 0, 0);
    s = A.DoStep(c, 0.0, 2.0, fmi2True);
    check(s == fmi2OK && geti(c, BB_MAXSTEPS) == 1000000, "budget_default_ok", "status=%d", s);
    A.FreeInstance(c);
}

/* CS to 10 s (far past the Zeno point): fmi2Discard near the accumulation point with
   the ball on the floor, never fmi2OK with the ball below it */
static void test_bball_zeno_cs(int method, double H, const char *tag)
{
    const double tz = bb_zeno_time();
    fmi2Component c = inst(BB_GUID, fmi2CoSimulation);
    fmi2Status s = fmi2OK;
    fmi2Real lst = -1;
    double hmin = 1e9;
    long n = 0;
    char name[64];
    seti(c, BB_METHOD, method);
    init(c, 0, 0);
    clearlog();
    while (s == fmi2OK && n * H < 10.0 - 1e-9) {
        s = A.DoStep(c, n * H, H, fmi2True);
        n++;
        if (s == fmi2OK && getr(c, BB_H) < hmin) hmin = getr(c, BB_H);
    }
    A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
    snprintf(name, sizeof name, "zeno_cs_discard_%s", tag);
    check(s == fmi2Discard && strstr(lastlog, "chattering") && lst > tz - 0.05 && lst <= tz &&
          getr(c, BB_H) > -1e-6 && hmin > -1e-6, name,
          "status=%d lastSuccessfulTime=%.12g (t*=%.12g) h=%.3g min h=%.3g msg: %.220s", s, lst,
          tz, getr(c, BB_H), hmin, lastlog);
    A.FreeInstance(c);
}

/* test (3) alone: dropped from 1e-11 above the floor, the first rebound (1e-5 m/s) cannot
   leave the hysteresis band (1e-10 m): fmi2Discard at the first impact, not a free fall */
static void test_bball_band_cs(int method, const char *tag)
{
    fmi2Component c = inst(BB_GUID, fmi2CoSimulation);
    fmi2Status s = fmi2OK;
    fmi2Real lst = -1;
    long n = 0;
    char name[64];
    seti(c, BB_METHOD, method);
    setr(c, BB_H, 1e-11);
    init(c, 0, 0);
    clearlog();
    while (s == fmi2OK && n < 100) s = A.DoStep(c, n * 0.01, 0.01, fmi2True), n++;
    A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
    snprintf(name, sizeof name, "band_cs_discard_%s", tag);
    check(s == fmi2Discard && strstr(lastlog, "hysteresis band") && geti(c, BB_COUNT) == 1 &&
          lst < 1e-3 && fabs(getr(c, BB_H)) < 1e-9, name,
          "status=%d lastSuccessfulTime=%.6g count=%d h=%.3g msg: %.200s", s, lst,
          geti(c, BB_COUNT), getr(c, BB_H), lastlog);
    A.FreeInstance(c);
}

/* the Zeno check on its own from a restored FMU state: the history is part of the state */
static void test_bball_zeno_state(void)
{
    fmi2Component c = inst(BB_GUID, fmi2CoSimulation);
    fmi2FMUstate st = NULL;
    fmi2Real l1 = -1, l2 = -2;
    fmi2Status s1 = fmi2OK, s2 = fmi2OK;
    long n, n0 = 0;
    init(c, 0, 0);
    for (n = 0; n < 240; n++) A.DoStep(c, n * 0.01, 0.01, fmi2True);   /* to t = 2.4 */
    n0 = n;
    A.GetFMUstate(c, &st);
    for (n = n0; s1 == fmi2OK && n < 1000; n++) s1 = A.DoStep(c, n * 0.01, 0.01, fmi2True);
    A.GetRealStatus(c, fmi2LastSuccessfulTime, &l1);
    A.SetFMUstate(c, st);
    for (n = n0; s2 == fmi2OK && n < 1000; n++) s2 = A.DoStep(c, n * 0.01, 0.01, fmi2True);
    A.GetRealStatus(c, fmi2LastSuccessfulTime, &l2);
    check(s1 == fmi2Discard && s2 == fmi2Discard && l1 == l2, "zeno_state_restore_same",
          "%.17g vs %.17g", l1, l2);
    A.FreeFMUstate(c, &st);
    A.FreeInstance(c);
}

/* Model Exchange with the minimal importer of test_bball_me: an error (not a ball far
   below the floor) once the impacts accumulate */
static void test_bball_zeno_me(void)
{
    double x[2], xn[2], z[2], zn[2], t = 0, h = 1e-3, hmin = 1e9;
    fmi2EventInfo ei;
    fmi2Status s = fmi2OK;
    int n = 0;
    fmi2Component c = inst(BB_GUID, fmi2ModelExchange);
    init(c, 0, 0);
    do { A.NewDiscreteStates(c, &ei); } while (ei.newDiscreteStatesNeeded && ++n < 100);
    A.EnterContinuousTimeMode(c);
    A.GetContinuousStates(c, x, 2);
    A.GetEventIndicators(c, z, 2);
    clearlog();
    while (t < 10.0 && s == fmi2OK) {
        me_rk4(c, t, x, h, xn);
        A.SetTime(c, t + h);
        A.SetContinuousStates(c, xn, 2);
        s = A.GetEventIndicators(c, zn, 2);
        if (s != fmi2OK) break;
        if ((z[0] != 0 && z[0] * zn[0] <= 0) || (z[1] != 0 && z[1] * zn[1] <= 0)) {
            double lo = 0, hi = h, xe[2], ze[2];
            int it;
            for (it = 0; it < 100 && hi - lo > 1e-14; it++) {
                double mid = 0.5 * (lo + hi);
                me_rk4(c, t, x, mid, xe);
                A.SetTime(c, t + mid);
                A.SetContinuousStates(c, xe, 2);
                s = A.GetEventIndicators(c, ze, 2);
                if (s != fmi2OK) break;
                if ((z[0] != 0 && z[0] * ze[0] <= 0) || (z[1] != 0 && z[1] * ze[1] <= 0)) hi = mid;
                else lo = mid;
            }
            if (s != fmi2OK) break;
            me_rk4(c, t, x, hi, xe);
            A.SetTime(c, t + hi);
            A.SetContinuousStates(c, xe, 2);
            A.EnterEventMode(c);
            n = 0;
            do { s = A.NewDiscreteStates(c, &ei); } while (s == fmi2OK && ei.newDiscreteStatesNeeded && ++n < 100);
            if (s != fmi2OK) break;
            A.EnterContinuousTimeMode(c);
            t += hi;
            A.GetContinuousStates(c, x, 2);
            A.GetEventIndicators(c, z, 2);
        } else {
            t += h;
            x[0] = xn[0]; x[1] = xn[1];
            z[0] = zn[0]; z[1] = zn[1];
        }
        if (x[0] < hmin) hmin = x[0];
    }
    check(s == fmi2Error && strstr(lastlog, "chattering") && t < bb_zeno_time() + 0.01 &&
          hmin > -1e-3, "zeno_me_error", "status=%d t=%.12g min h=%.3g msg: %.220s", s, t, hmin,
          lastlog);
    A.FreeInstance(c);
}

/* ================================================================ decay */
#define DC_GUID "{0d2b7c1e-decay-test-0001}"
enum { DC_X = 0, DC_K = 2, DC_FAILT = 3, DC_FAILM = 4, DC_METHOD = 5, DC_RTOL = 6,
       DC_ATOL = 7, DC_HMAX = 8, DC_TAU = 9, DC_U = 10, DC_Y = 11 };

static double decay_run(int method, double rtol, int tolFromSetup, long *nstep, long *nfev)
{
    fmi2Component c = inst(DC_GUID, fmi2CoSimulation);
    int n;
    double x;
    seti(c, DC_METHOD, method);
    if (!tolFromSetup) setr(c, DC_RTOL, rtol);
    init(c, rtol, tolFromSetup);
    for (n = 0; n < 10; n++) A.DoStep(c, n * 0.5, 0.5, fmi2True);
    x = getr(c, DC_X);
    stats(c, nstep, nfev);
    A.FreeInstance(c);
    return fabs(x - exp(-5.0)) / exp(-5.0);
}

static void test_decay(void)
{
    const int methods[3] = {1, 2, 3};
    const char *mn[3] = {"dopri5", "rodas4", "adams"};
    int m;
    fmi2Status s;
    fmi2Real lst;
    fmi2Boolean term;
    fmi2Component c;
    long ns, nf;
    for (m = 0; m < 3; m++) {
        long s1, f1, s2, f2;
        char name[64];
        double e1 = decay_run(methods[m], 1e-4, 0, &s1, &f1);
        double e2 = decay_run(methods[m], 1e-8, 0, &s2, &f2);
        double e3 = decay_run(methods[m], 1e-8, 1, &ns, &nf);
        snprintf(name, sizeof name, "decay_error_control_%s", mn[m]);
        check(e1 < 20 * 1e-4 && e2 < 20 * 1e-8 && e2 < e1 && s2 > s1, name,
              "rel err x(5): rtol=1e-4 -> %.2e (steps %ld, nfev %ld); rtol=1e-8 -> %.2e "
              "(steps %ld, nfev %ld)", e1, s1, f1, e2, s2, f2);
        snprintf(name, sizeof name, "decay_tolerance_from_setup_%s", mn[m]);
        check(fabs(e3 - e2) < 1e-14 && ns == s2, name, "err %.2e", e3);
    }
    /* hmax */
    c = inst(DC_GUID, fmi2CoSimulation);
    setr(c, DC_HMAX, 1e-3);
    init(c, 0, 0);
    s = A.DoStep(c, 0, 5.0, fmi2True);
    stats(c, &ns, &nf);
    /* (the auto method's probes of Adams add a few hundred steps to the count) */
    check(s == fmi2OK && ns >= 5000 && ns < 5500, "decay_hmax", "steps=%ld", ns);
    A.FreeInstance(c);
    /* calculated parameter recomputed after a tunable set; input */
    c = inst(DC_GUID, fmi2CoSimulation);
    init(c, 0, 0);
    check(fabs(getr(c, DC_TAU) - 1.0) < 1e-15, "calc_param_initial", "tau=%g", getr(c, DC_TAU));
    s = setr(c, DC_K, 4.0);
    check(s == fmi2OK && fabs(getr(c, DC_TAU) - 0.25) < 1e-15, "calc_param_recomputed",
          "tau=%g", getr(c, DC_TAU));
    s = setr(c, DC_TAU, 3.0);
    check(s == fmi2Error, "calc_param_not_settable", "%s", lastlog);
    s = setr(c, DC_K, -1.0);
    check(s == fmi2Error && fabs(getr(c, DC_TAU) - 0.25) < 1e-15, "param_min_violation",
          "%s", lastlog);
    setr(c, DC_U, 2.0);
    check(fabs(getr(c, 1) - (-4.0 * 1.0 + 2.0)) < 1e-15, "input_lazy_derivative", "der(x)=%g", getr(c, 1));
    {
        int n;
        for (n = 0; n < 20; n++) A.DoStep(c, n * 0.5, 0.5, fmi2True);
        check(fabs(getr(c, DC_X) - 0.5) < 1e-6 && fabs(getr(c, DC_Y) - 1.0) < 2e-6,
              "input_steady_state", "x(10)=%.9g (expect 0.5)", getr(c, DC_X));
    }
    A.FreeInstance(c);
    /* fault injection: NaN / error code / terminate after t = 1 */
    {
        const char *fm[3] = {"nan", "error_code", "terminate"};
        int mode, meth;
        for (meth = 1; meth <= 2; meth++)
            for (mode = 0; mode < 3; mode++) {
                char name[64];
                double xx;
                c = inst(DC_GUID, fmi2CoSimulation);
                seti(c, DC_METHOD, meth);
                setr(c, DC_FAILT, 1.0);
                seti(c, DC_FAILM, mode);
                init(c, 0, 0);
                clearlog();
                s = A.DoStep(c, 0, 2.0, fmi2True);
                lst = -1;
                term = 0;
                A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
                A.GetBooleanStatus(c, fmi2Terminated, &term);
                xx = getr(c, DC_X);
                snprintf(name, sizeof name, "fault_%s_%s", fm[mode], mn[meth - 1]);
                check(s == fmi2Discard && fabs(lst - 1.0) < 1e-6 && (term != 0) == (mode == 2) &&
                      fabs(xx - exp(-lst)) < 1e-5 && strstr(lastlog, "t="),
                      name, "status=%d lastSuccessfulTime=%.12g x=%.9g msg: %s", s, lst, xx,
                      lastlog);
                s = A.DoStep(c, lst, 0.1, fmi2True);
                snprintf(name, sizeof name, "fault_%s_%s_no_more_steps", fm[mode], mn[meth - 1]);
                check(s == fmi2Error, name, "");
                s = A.Reset(c);
                if (s == fmi2OK) s = init(c, 0, 0);
                if (s == fmi2OK) s = A.DoStep(c, 0, 0.5, fmi2True);
                snprintf(name, sizeof name, "fault_%s_%s_reset_recovers", fm[mode], mn[meth - 1]);
                check(s == fmi2OK && fabs(getr(c, DC_X) - exp(-0.5)) < 1e-5, name, "");
                A.FreeInstance(c);
            }
        /* the same faults right after a communication point: solver steps reach past
           communication points, but a model that cannot be evaluated beyond t = 1 must not
           make the doStep ending ON t = 1 fail; the next one does */
        for (meth = 0; meth <= 2; meth++)
            for (mode = 0; mode < 3; mode++) {
                char name[64];
                int n, okSteps = 1;
                c = inst(DC_GUID, fmi2CoSimulation);
                seti(c, DC_METHOD, meth);
                setr(c, DC_FAILT, 1.0);
                seti(c, DC_FAILM, mode);
                init(c, 1e-8, 0);
                clearlog();
                for (n = 0; n < 8; n++)
                    if (A.DoStep(c, n * 0.125, 0.125, fmi2True) != fmi2OK) okSteps = 0;
                snprintf(name, sizeof name, "fault_after_comm_point_%s_m%d", fm[mode], meth);
                check(okSteps && fabs(getr(c, DC_X) - exp(-1.0)) < 1e-7, name,
                      "x(1)=%.12g msg: %s", getr(c, DC_X), lastlog);
                s = A.DoStep(c, 1.0, 0.125, fmi2True);
                lst = -1;
                A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
                snprintf(name, sizeof name, "fault_after_comm_point_%s_m%d_next_fails", fm[mode],
                         meth);
                check(s == fmi2Discard && fabs(lst - 1.0) < 1e-6, name,
                      "status=%d lastSuccessfulTime=%.12g", s, lst);
                A.FreeInstance(c);
            }
    }
    /* issue 15 item 1: x = 8 t from x = 0 (k = 0, u = 8) on a 1e-4 s grid.  The first solver
       step, 100 * 1e-6 = 9.9999999999999991e-05 s, ends one ulp short of 1e-4, so the next
       one is stretched onto its bound 2e-4 and reaches past 1e-4 (delivered from its dense
       output); the fmi2DoStep to 2e-4 continues it and must deliver its END point, not what
       v still held (x(1e-4) = 8e-4 instead of 1.6e-3).  The FMU state saved there must hold
       2e-4 too (restoring it continued from the stale point for good). */
    {
        int meth, restore, n;
        for (meth = 0; meth <= 3; meth++)
            for (restore = 0; restore <= 1; restore++) {
                char name[64];
                double worst = 0.0, tw = 0.0, xw = 0.0;
                c = inst(DC_GUID, fmi2CoSimulation);
                seti(c, DC_METHOD, meth);
                setr(c, DC_K, 0.0);
                setr(c, DC_X, 0.0);
                setr(c, DC_U, 8.0);
                init(c, 0, 0);
                for (n = 0; n < 6; n++) {
                    const double t = (n + 1) * 1e-4;
                    double err;
                    s = A.DoStep(c, n * 1e-4, t - n * 1e-4, fmi2True);
                    err = s == fmi2OK ? fabs(getr(c, DC_X) - 8.0 * t) / (8.0 * t) : INFINITY;
                    if (!(err <= worst)) { worst = err; tw = t; xw = getr(c, DC_X); }
                    if (restore && n == 1) {
                        fmi2FMUstate st = NULL;
                        if (A.GetFMUstate(c, &st) != fmi2OK || A.SetFMUstate(c, st) != fmi2OK)
                            worst = INFINITY;
                        A.FreeFMUstate(c, &st);
                    }
                }
                snprintf(name, sizeof name, "continued_step_ends_on_grid_m%d%s", meth,
                         restore ? "_state_restored" : "");
                check(worst < 1e-12, name, "worst relative error %.3g at t=%.17g (x=%.17g)",
                      worst, tw, xw);
                A.FreeInstance(c);
            }
    }
    /* start value of a state before init; x out of its range */
    c = inst(DC_GUID, fmi2CoSimulation);
    s = setr(c, DC_X, 2.0);
    check(s == fmi2OK, "state_start_settable", "");
    s = setr(c, DC_X, 1e11);
    check(s == fmi2Error && strstr(lastlog, "outside its range"), "state_start_range", "%s", lastlog);
    A.SetupExperiment(c, 0, 0, 0, 0, 0);
    A.EnterInitializationMode(c);
    s = setr(c, DC_X, 3.0);
    check(s == fmi2OK && getr(c, DC_X) == 3.0 && getr(c, DC_Y) == 6.0, "set_in_init_mode_lazy",
          "y=%g", getr(c, DC_Y));
    A.ExitInitializationMode(c);
    A.DoStep(c, 0, 1.0, fmi2True);
    check(fabs(getr(c, DC_X) - 3.0 * exp(-1.0)) < 1e-5, "state_start_used", "x(1)=%g", getr(c, DC_X));
    /* communication points given as t0 + n*h over many steps */
    {
        int n, ok = 1;
        for (n = 1; n < 1000; n++)
            if (A.DoStep(c, 1.0 + n * 0.001 - 0.001, 0.001, fmi2True) != fmi2OK) ok = 0;
        A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
        check(ok && lst == 1.0 + 999 * 0.001, "grid_time_exact", "t=%.17g", lst);
    }
    A.FreeInstance(c);
}

/* ================================================================ vdp */
#define VDP_GUID "{vdp-test-0001}"
static void test_vdp(void)
{
    const double ref = -1.5106069367598571;   /* scipy Radau rtol=atol=1e-12 */
    int m, n;
    for (m = 0; m <= 2; m += 2) {
        fmi2Component c = inst(VDP_GUID, fmi2CoSimulation);
        fmi2Status s = fmi2OK;
        long ns, nf;
        char name[64];
        double x1;
        seti(c, 5, m);
        setr(c, 6, 1e-6);
        setr(c, 7, 1e-6);
        init(c, 0, 0);
        for (n = 0; n < 300 && s == fmi2OK; n++) s = A.DoStep(c, n * 10.0, 10.0, fmi2True);
        x1 = getr(c, 0);
        stats(c, &ns, &nf);
        snprintf(name, sizeof name, "vdp1000_cs_method%d", m);
        check(s == fmi2OK && fabs(x1 - ref) < 1e-4, name,
              "x1(3000)=%.10g ref=%.10g |err|=%.2e steps=%ld nfev=%ld (300 comm. steps)", x1,
              ref, fabs(x1 - ref), ns, nf);
        A.FreeInstance(c);
    }
    {   /* explicit method on the stiff problem: must give up cleanly */
        fmi2Component c = inst(VDP_GUID, fmi2CoSimulation);
        fmi2Status s;
        fmi2Real lst = -1;
        seti(c, 5, 1);
        init(c, 0, 0);
        s = A.DoStep(c, 0, 3000.0, fmi2True);
        A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
        check(s == fmi2Discard && strstr(lastlog, "too many") && lst > 0 && lst < 3000,
              "vdp_explicit_too_many_steps", "lastSuccessfulTime=%g msg: %.120s", lst, lastlog);
        A.FreeInstance(c);
    }
    {   /* wall-clock budget (a tiny one: any 256 steps take longer; no time is asserted) */
        fmi2Component c = inst(VDP_GUID, fmi2CoSimulation);
        fmi2Status s;
        fmi2Real lst = -1;
        fmi2ValueReference vr = 10;   /* solver.maxStepTime */
        fmi2Real budget = 1e-9;
        seti(c, 5, 1);
        A.SetReal(c, &vr, 1, &budget);
        init(c, 0, 0);
        s = A.DoStep(c, 0, 3000.0, fmi2True);
        A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
        check(s == fmi2Discard && strstr(lastlog, "solver.maxStepTime = 1e-09") &&
              strstr(lastlog, "after 256 solver steps") && lst > 0 && lst < 3000,
              "vdp_wall_clock_budget", "lastSuccessfulTime=%g msg: %.200s", lst, lastlog);
        A.FreeInstance(c);
    }
}

/* auto method on the stiff VdP: it switches (logged at logAll), and "save, continue" equals
 * "save, restore, continue" and "deserialize into another instance, continue" bit for bit
 * at save points in both sub-methods (the auto code is read from the serialized header:
 * RtStateHeader.odeAuto at byte 104, bit 0 = RODAS4) */
static void vdp_auto_run(fmi2Component c, int k0, int k1, double *out)
{
    int k;
    for (k = k0; k < k1; k++) {
        A.DoStep(c, k * 10.0, 10.0, fmi2True);
        out[k - k0] = getr(c, 0);
    }
}
static void test_vdp_auto_state(void)
{
    fmi2Component c = inst(VDP_GUID, fmi2CoSimulation), c2 = inst(VDP_GUID, fmi2CoSimulation);
    fmi2String all = "logAll";
    int k0, same = 1, nsave = 0, nrodas = 0, ndopri_counting = 0;
    double a[15], b[15], d[15];
    long nsw;
    seti(c, 5, 0);
    setr(c, 6, 1e-6);
    setr(c, 7, 1e-6);
    A.SetDebugLogging(c, fmi2True, 1, &all);
    init(c, 0, 0);
    clearlog();
    for (k0 = 0; k0 + 15 <= 300; k0 += 15) {
        fmi2FMUstate st = NULL, st2 = NULL;
        size_t sz = 0;
        fmi2Byte *bytes;
        int code = 0;
        A.GetFMUstate(c, &st);
        A.SerializedFMUstateSize(c, st, &sz);
        bytes = (fmi2Byte *)malloc(sz);
        A.SerializeFMUstate(c, st, bytes, sz);
        memcpy(&code, bytes + 104, sizeof code);
        if (code & 1) nrodas++;
        else if (code != 0) ndopri_counting++;
        vdp_auto_run(c, k0, k0 + 15, a);
        A.SetFMUstate(c, st);
        vdp_auto_run(c, k0, k0 + 15, b);
        A.DeSerializeFMUstate(c2, bytes, sz, &st2);
        A.SetFMUstate(c2, st2);
        vdp_auto_run(c2, k0, k0 + 15, d);
        if (memcmp(a, b, sizeof a) != 0 || memcmp(a, d, sizeof a) != 0) same = 0;
        A.FreeFMUstate(c, &st);
        A.FreeFMUstate(c2, &st2);
        free(bytes);
        nsave++;
    }
    nsw = strstr(logbuf, "auto solver switched to Rosenbrock RODAS4") ? 1 : 0;
    check(same && nrodas > 0 && nsw && fabs(a[14] + 1.5106069367598571) < 1e-4,
          "vdp_auto_state_bit_identical", "identical %d, %d save points (%d in RODAS4 mode, %d in "
          "an explicit mode with counters), x1(3000)=%.10g, switched to RODAS4 %ld", same, nsave,
          nrodas, ndopri_counting, a[14], nsw);
    A.Terminate(c);
    check(logval("nswitch") >= 2, "vdp_auto_stats_logged", "nswitch=%g", logval("nswitch"));
    A.FreeInstance(c);
    A.FreeInstance(c2);
}

/* ================================================================ nlloop */
#define NL_GUID "{nlloop-test-0001}"
static void test_nlloop(void)
{
    double xa, xb, res, w1, w2, x;
    fmi2Status s;
    int n;
    fmi2Component c = inst(NL_GUID, fmi2CoSimulation);
    init(c, 1e-10, 1);
    w1 = getr(c, 10); w2 = getr(c, 11); x = getr(c, 0);
    check(fabs(w1 * w1 * w1 + w1 + w2 - x) < 1e-10 && fabs(w2 - 0.5 * sin(w1) - 0.1) < 1e-10,
          "newton_initial", "w=(%.12g, %.12g) resNorm=%.2e", w1, w2, getr(c, 9));
    for (n = 0; n < 10; n++) A.DoStep(c, n * 0.1, 0.1, fmi2True);
    xa = getr(c, 0); res = getr(c, 9);
    w1 = getr(c, 10); w2 = getr(c, 11);
    check(res < 1e-10 && fabs(w1 * w1 * w1 + w1 + w2 - xa) < 1e-10 && xa < 3.0,
          "newton_along_trajectory", "x(1)=%.12g resNorm=%.2e", xa, res);
    A.FreeInstance(c);
    /* finite-difference loop Jacobian gives the same trajectory */
    c = inst(NL_GUID, fmi2CoSimulation);
    {
        fmi2ValueReference vr = 4;
        fmi2Boolean t = fmi2True;
        A.SetBoolean(c, &vr, 1, &t);
    }
    init(c, 1e-10, 1);
    for (n = 0; n < 10; n++) A.DoStep(c, n * 0.1, 0.1, fmi2True);
    xb = getr(c, 0);
    check(fabs(xa - xb) < 1e-8, "newton_fd_jacobian", "x(1)=%.12g vs %.12g", xb, xa);
    /* no solution -> Discard, process alive, message with time */
    {
        fmi2ValueReference vr = 3;
        fmi2Boolean t = fmi2True;
        fmi2Real lst;
        clearlog();
        s = A.SetBoolean(c, &vr, 1, &t);
        check(s == fmi2OK, "newton_set_bad", "");
        s = A.DoStep(c, 1.0, 0.1, fmi2True);
        A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
        check(s == fmi2Discard && strstr(logbuf, "rt_newton") && strstr(logbuf, "t=1") && lst == 1.0,
              "newton_failure_discard",
              "status=%d msg: %s", s, lastlog);
    }
    A.FreeInstance(c);
}

/* ================================================================ chatter */
#define CH_GUID "{chatter-test-0001}"
static void test_chatter(void)
{
    int m;
    for (m = 1; m <= 2; m++) {
        fmi2Component c = inst(CH_GUID, fmi2CoSimulation);
        fmi2Status s;
        fmi2Real lst = -1;
        char name[64];
        seti(c, 2, m);
        init(c, 0, 0);
        s = A.DoStep(c, 0, 1.0, fmi2True);
        A.GetRealStatus(c, fmi2LastSuccessfulTime, &lst);
        snprintf(name, sizeof name, "chattering_gives_discard_method%d", m);
        check(s == fmi2Discard && fabs(lst - 0.1) < 1e-6, name,
              "lastSuccessfulTime=%.12g msg: %.160s", lst, lastlog);
        A.FreeInstance(c);
    }
}

/* ================================================================ main */
int main(int argc, char **argv)
{
    void *h;
    const char *model;
    if (argc < 3) {
        fprintf(stderr, "usage: %s <bball|decay|vdp|nlloop|chatter> <model.so> [-v]\n", argv[0]);
        return 2;
    }
    model = argv[1];
    verbose = argc > 3 && strcmp(argv[3], "-v") == 0;
    h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 2; }
    {
        int missing = 0;
/* object -> function pointer through memcpy (ISO C forbids the cast; POSIX allows this) */
#define LOAD(name) { void *p_ = dlsym(h, "fmi2" #name); memcpy(&A.name, &p_, sizeof p_); \
                     if (!p_) { printf("missing fmi2" #name "\n"); missing++; } }
        API_LIST(LOAD)
#undef LOAD
        check(missing == 0, "all_44_functions_exported", "%d missing", missing);
        if (missing) return 1;
        check(dlsym(h, "mdl_eval") == NULL && dlsym(h, "rt_newton") == NULL,
              "internal_symbols_hidden", "");
    }
    if (strcmp(model, "bball") == 0) {
        test_bball_misuse();
        test_bball_cs(1, "dopri5");
        test_bball_cs(2, "rodas4");
        test_bball_cs(0, "auto");
        test_bball_cs(3, "adams");
        test_bball_state_methods();
        test_bball_state();
        test_bball_hostile_running_solver(0, "auto");
        test_bball_hostile_running_solver(1, "dopri5");
        test_bball_hostile_running_solver(2, "rodas4");
        test_bball_hostile_running_solver(3, "adams");
        test_bball_terminate_and_input();
        test_bball_input_derivatives();
        test_bball_me();
        test_bball_unknown_vrs();
        test_bball_work_budget();
        test_bball_zeno_cs(0, 0.01, "auto");
        test_bball_zeno_cs(1, 0.02, "dopri5");
        test_bball_zeno_cs(2, 0.01, "rodas4");
        test_bball_zeno_cs(3, 0.01, "adams");
        test_bball_zeno_cs(0, 10.0, "one_step");
        test_bball_zeno_state();
        test_bball_band_cs(0, "auto");
        test_bball_band_cs(1, "dopri5");
        test_bball_band_cs(2, "rodas4");
        test_bball_band_cs(3, "adams");
        test_bball_zeno_me();
    } else if (strcmp(model, "decay") == 0) {
        test_decay();
    } else if (strcmp(model, "vdp") == 0) {
        test_vdp();
        test_vdp_auto_state();
    } else if (strcmp(model, "nlloop") == 0) {
        test_nlloop();
    } else if (strcmp(model, "chatter") == 0) {
        test_chatter();
    } else {
        fprintf(stderr, "unknown model %s\n", model);
        return 2;
    }
    dlclose(h);
    printf("RESULT passed=%d failed=%d\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
