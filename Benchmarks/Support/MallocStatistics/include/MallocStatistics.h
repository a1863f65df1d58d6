#ifndef STOWAGE_BENCHMARKS_MALLOC_STATISTICS_H
#define STOWAGE_BENCHMARKS_MALLOC_STATISTICS_H

#include <stddef.h>

/// The bytes the C allocator has handed out and not taken back, chunk
/// overhead included, as glibc's mallinfo2 counts them (uordblks plus the
/// mmapped blocks); -1 where the C library has no mallinfo2.
long long stowage_allocated_bytes(void);

#endif
