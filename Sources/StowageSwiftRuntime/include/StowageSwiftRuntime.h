#ifndef STOWAGE_SWIFT_RUNTIME_H
#define STOWAGE_SWIFT_RUNTIME_H

#include <stdbool.h>

/// Whether the object's last strong reference is gone and its `deinit` has
/// begun. The Swift runtime exports this test (every Swift runtime since the
/// stable ABI has it), but the standard library does not wrap it, and
/// declaring it from Swift with `@_silgen_name` would assume Swift's calling
/// convention for a function built with C's. The reference registry uses it
/// to tell a reference it holds unretained is going (see `ReferenceRegistry`).
bool swift_isDeallocating(const void *object);

#endif
