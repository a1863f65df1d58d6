#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Offers the processor to another thread, if the platform can: called
/// between a read and its write, it widens the window in which a write that
/// is not atomic loses another writer's update, so the check sees it.
func yieldThread() {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    _ = sched_yield()
    #endif
}
