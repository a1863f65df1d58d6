// An LD_PRELOAD shim for the soak test: while the file named by
// STOWAGE_FAULT_FLOCK_WHILE exists, every flock(2) that asks for an exclusive
// lock fails with EIO, as on a flaky network file system. Unlocking passes
// through, and so does everything when the variable is unset.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

int flock(int descriptor, int operation) {
    static int (*real_flock)(int, int);
    if (!real_flock) real_flock = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");
    const char *control = getenv("STOWAGE_FAULT_FLOCK_WHILE");
    if (control && (operation & LOCK_EX) && access(control, F_OK) == 0) {
        errno = EIO;
        return -1;
    }
    return real_flock(descriptor, operation);
}
