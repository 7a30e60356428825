/* Preloaded into eflomal so that its /dev/urandom seed comes from a file cad writes from a fixed
 * seed: eflomal has no seed option, and cad promises the same alignment for the same input.
 * Each OpenMP sampler thread opens /dev/urandom itself; giving thread k the bytes at offset
 * k * 4096 keeps the samplers distinct and independent of thread scheduling. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

FILE *fopen(const char *path, const char *mode) {
    static FILE *(*real_fopen)(const char *, const char *) = NULL;
    if (!real_fopen) real_fopen = (FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, "fopen");
    const char *seed_file = getenv("CAD_EFLOMAL_SEED_FILE");
    if (seed_file && path && strcmp(path, "/dev/urandom") == 0) {
        FILE *fh = real_fopen(seed_file, mode);
        int (*thread_num)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
        if (fh && thread_num) fseek(fh, 4096L * (thread_num() % 16), SEEK_SET);
        return fh;
    }
    return real_fopen(path, mode);
}
