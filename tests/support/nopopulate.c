// nopopulate: an LD_PRELOAD shim for the integration tests' llama-server runs.
//
// Why: the tests load sparse GGUF files of realistic shape (tens of GB of apparent size,
// the data region a hole made with ftruncate). llama.cpp maps the file with MAP_POPULATE
// and posix_madvise(WILLNEED) to prefetch it (src/llama-mmap.cpp, "prefetch"), which
// makes the kernel fault in the whole apparent size: tens of seconds and all the page
// cache of a small CI machine, for pages that are never read (--no-warmup). Dropping only
// these two hints changes no allocation llama.cpp makes or logs -- the mapping, its size
// and every buffer are the same -- so the logged sizes stay the real ones.
//
// What: mmap/mmap64 clear MAP_POPULATE; madvise(MADV_WILLNEED) and
// posix_madvise(POSIX_MADV_WILLNEED) return success without doing anything. Every other
// call passes through to the next definition (dlsym RTLD_NEXT).
//
// Built by scripts/fetch-llama-server.sh with the system C compiler and loaded by the
// bundled (newer) Debian sid glibc through `ld.so --preload`, so it may only use symbols
// every glibc exports: dlsym, syscall, mmap, madvise, posix_madvise.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

typedef void* (*MmapFn)(void*, size_t, int, int, int, off_t);
typedef int (*MadviseFn)(void*, size_t, int);

static MmapFn s_nextMmap;
static MmapFn s_nextMmap64;
static MadviseFn s_nextMadvise;
static MadviseFn s_nextPosixMadvise;

// Resolved once at load time, before the program runs; dlsym itself may map memory, so
// the wrappers below fall back to the raw system call until the pointers are set.
__attribute__((constructor)) static void resolveNext(void) {
    s_nextMmap = (MmapFn)dlsym(RTLD_NEXT, "mmap");
    s_nextMmap64 = (MmapFn)dlsym(RTLD_NEXT, "mmap64");
    s_nextMadvise = (MadviseFn)dlsym(RTLD_NEXT, "madvise");
    s_nextPosixMadvise = (MadviseFn)dlsym(RTLD_NEXT, "posix_madvise");
}

static void* rawMmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
    return (void*)syscall(SYS_mmap, addr, length, prot, flags, fd, offset);
}

void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
    flags &= ~MAP_POPULATE;
    return s_nextMmap ? s_nextMmap(addr, length, prot, flags, fd, offset)
                      : rawMmap(addr, length, prot, flags, fd, offset);
}

void* mmap64(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
    flags &= ~MAP_POPULATE;
    return s_nextMmap64 ? s_nextMmap64(addr, length, prot, flags, fd, offset)
                        : rawMmap(addr, length, prot, flags, fd, offset);
}

int madvise(void* addr, size_t length, int advice) {
    if (advice == MADV_WILLNEED) {
        return 0;
    }
    return s_nextMadvise ? s_nextMadvise(addr, length, advice)
                         : (int)syscall(SYS_madvise, addr, length, advice);
}

// glibc's posix_madvise calls the system call directly, not madvise(), so it needs its own wrapper.
// It returns an error number instead of setting errno.
int posix_madvise(void* addr, size_t length, int advice) {
    if (advice == POSIX_MADV_WILLNEED) {
        return 0;
    }
    return s_nextPosixMadvise ? s_nextPosixMadvise(addr, length, advice)
                              : (int)syscall(SYS_madvise, addr, length, advice);
}
