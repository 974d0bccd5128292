/*
 * wc_glibc.h -- the FMU's binary needs nothing newer than glibc 2.17 (the manylinux2014
 * baseline: RHEL/CentOS 7, Ubuntu 18.04, Debian 9 and every later Linux).
 *
 * Part of the wearcosim FMI 2.0 runtime (fmu/runtime/).  The exporter compiles every
 * unit of an FMU with "-include wc_glibc.h" (sources/buildDescription.xml lists the
 * option), so this header comes before anything else, in the generated code too.
 *
 * Why: glibc versions its symbols.  When a function changes, the new implementation gets
 * a new version and the old one stays available under the old version; a program linked
 * on a new glibc references the newest ("default") version.  Linked on glibc 2.36, the
 * FMU's exp, log and pow were exp@GLIBC_2.29 etc., and the dynamic loader of any glibc
 * older than 2.29 refused the whole library ("version `GLIBC_2.29' not found").
 *
 * How: a ".symver name, name@VERSION" directive makes the assembler bind this unit's
 * references to `name` to that version instead of the default.  The directive costs
 * nothing for functions the unit does not call (no reference is emitted).  Pinned: the
 * functions of the C library that generated C99 code or the runtime can call and whose
 * default version is newer than 2.17 in a glibc release up to 2.38:
 *   exp exp2 log log2 pow           default GLIBC_2.29 (new implementations, 2.28)
 *   expf exp2f logf log2f powf      default GLIBC_2.27
 *   hypot hypotf                    default GLIBC_2.35
 *   fmod fmodf                      default GLIBC_2.38
 *   lgamma lgammaf lgammal          default GLIBC_2.23
 *   dlopen dlsym dlclose dlerror    default GLIBC_2.34 (moved from libdl into libc; used
 *                                   by the container FMUs, fmu/container/ct_load.c)
 * (read from glibc 2.36's libm.so.6 and libc.so.6 with readelf --dyn-syms; fmod and fmodf
 * got their new version in glibc 2.38.)  A function not listed that a future model calls
 * at a newer version is caught by tests/export/test_portability.py, which reads the
 * version needs of every example FMU's binary.
 *
 * Same results: the old version of each of these functions calls the same implementation
 * as the new one (exp, log, pow since glibc 2.28, the float ones since 2.27); it differs
 * only in error handling for old standards (errno and SVID matherr on overflow, underflow
 * and domain errors; signgam for lgamma), not in the value returned.  Measured on glibc
 * 2.36, x86_64 with FMA (the libm's fastest variants): 4e6 random and special arguments of
 * each libm function above but lgammal, old and new versions bit-identical; the example
 * FMUs' simulation results bit-identical with and without this header.  (On an older glibc
 * the same binary uses that glibc's libm, whose exp/log/pow may differ in the last bit:
 * results are reproducible to the bit on the same C library only.)
 *
 * Only for glibc on x86_64 (base version GLIBC_2.2.5) and aarch64 (GLIBC_2.17, the
 * first glibc for that architecture).  Elsewhere (Windows, macOS, musl, other
 * architectures) this header defines nothing.  It includes no system header, so it
 * cannot fix the feature-test macros (_POSIX_C_SOURCE) before the unit sets them.
 */
#ifndef WEARCOSIM_WC_GLIBC_H
#define WEARCOSIM_WC_GLIBC_H

#if defined(__linux__) && defined(__GNUC__) && defined(__has_include)
#  if __has_include(<gnu/libc-version.h>)      /* a glibc header: not musl or bionic */
#    if defined(__x86_64__) && !defined(__ILP32__)
#      define WC_GLIBC_BASE "GLIBC_2.2.5"
#    elif defined(__aarch64__) && !defined(__ILP32__)
#      define WC_GLIBC_BASE "GLIBC_2.17"
#    endif
#  endif
#endif

#ifdef WC_GLIBC_BASE
#define WC_GLIBC_PIN(f) __asm__(".symver " #f "," #f "@" WC_GLIBC_BASE);
WC_GLIBC_PIN(exp)
WC_GLIBC_PIN(exp2)
WC_GLIBC_PIN(log)
WC_GLIBC_PIN(log2)
WC_GLIBC_PIN(pow)
WC_GLIBC_PIN(expf)
WC_GLIBC_PIN(exp2f)
WC_GLIBC_PIN(logf)
WC_GLIBC_PIN(log2f)
WC_GLIBC_PIN(powf)
WC_GLIBC_PIN(hypot)
WC_GLIBC_PIN(hypotf)
WC_GLIBC_PIN(fmod)
WC_GLIBC_PIN(fmodf)
WC_GLIBC_PIN(lgamma)
WC_GLIBC_PIN(lgammaf)
WC_GLIBC_PIN(lgammal)
WC_GLIBC_PIN(dlopen)
WC_GLIBC_PIN(dlsym)
WC_GLIBC_PIN(dlclose)
WC_GLIBC_PIN(dlerror)
#undef WC_GLIBC_PIN
#endif

#endif
