#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The processor time this process has used, on every thread, user and
/// system (`CLOCK_PROCESS_CPUTIME_ID`): what a child spent between two
/// points, a figure that wobbles far less than a tail latency does.
enum ProcessorTime {
    static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
