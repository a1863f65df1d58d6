#ifndef STOWAGE_SANITIZER_PROBE_H
#define STOWAGE_SANITIZER_PROBE_H

#include <stdbool.h>

/// Whether this target was compiled for ThreadSanitizer or AddressSanitizer:
/// the compiler's own answer, which Swift code can not ask for. `TestScale`
/// sizes tests by it, and a test checks StowageTesting's run-time detection
/// against it.
bool stowage_probe_built_with_sanitizer(void);

#endif
