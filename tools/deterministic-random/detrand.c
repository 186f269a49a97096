/* Deterministic randomness for one build step.
 *
 * componentize-py pre-initialises CPython inside its own WebAssembly host and snapshots it.
 * CPython draws its string-hash secret from the host's randomness during that step, so every
 * build would iterate sets of strings in its own order. Preloaded into the build process only,
 * this library answers every request for random bytes (getrandom, getentropy, the raw syscall)
 * with the same fixed stream, independent of the order or thread of the calls: the snapshot,
 * and with it string hashing in the script runner, is the same on every machine.
 *
 * Build: cc -O2 -shared -fPIC -o detrand.so detrand.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>

static void fill(void *buf, size_t n) {
    unsigned char *p = buf;
    unsigned long long s = 0x9e3779b97f4a7c15ULL; /* the same stream for every call */
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        p[i] = (unsigned char)(s >> 24);
    }
}

ssize_t getrandom(void *buf, size_t n, unsigned int flags) {
    (void)flags;
    fill(buf, n);
    return (ssize_t)n;
}

int getentropy(void *buf, size_t n) {
    fill(buf, n);
    return 0;
}

long syscall(long number, ...) {
    va_list ap;
    long a[6];
    va_start(ap, number);
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_getrandom) {
        fill((void *)a[0], (size_t)a[1]);
        return a[1];
    }
    static long (*real)(long, ...) = 0;
    if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
