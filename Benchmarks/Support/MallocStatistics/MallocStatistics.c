#include "MallocStatistics.h"

#if defined(__linux__)
#include <malloc.h>
#endif

long long stowage_allocated_bytes(void) {
#if defined(__GLIBC__)
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
#else
    return -1;
#endif
}
