#include "StowageSanitizerProbe.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define STOWAGE_PROBE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STOWAGE_PROBE_SANITIZED 1
#endif

bool stowage_probe_built_with_sanitizer(void) {
#ifdef STOWAGE_PROBE_SANITIZED
    return true;
#else
    return false;
#endif
}
