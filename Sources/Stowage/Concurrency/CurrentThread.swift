#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A number that tells the calling thread from every other live thread, for
/// locks that must notice a thread coming back to them from further down its stack.
package func currentThreadIdentifier() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}
