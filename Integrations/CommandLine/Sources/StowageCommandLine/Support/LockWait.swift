#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Waits, at most `timeout`, until no process holds the JSON file store's
/// lock on `file` (`<file>.lock`, an exclusive `flock`), so that a write
/// blocked by a process that holds it for long fails with a clear message
/// instead of hanging. The store takes the lock itself right after.
enum LockWait {
    static func untilFree(file: String, timeout: Duration) throws {
        let lockPath = file + ".lock"
        let descriptor = open(lockPath, O_RDONLY | O_CLOEXEC)
        // No lock file: nobody has written the file with a store yet, so nobody holds its lock.
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { return }
            guard clock.now < deadline else {
                throw CommandFailure("\(file) is locked by another process for more than \(timeout.seconds) s (\(lockPath)); nothing was written. Try again, or give a longer --lock-timeout.")
            }
            usleep(10_000)
        }
        flock(descriptor, LOCK_UN)
    }
}

extension Duration {
    /// Whole seconds, or seconds and tenths, for messages.
    var seconds: String {
        let (whole, attoseconds) = components
        let tenths = attoseconds / 100_000_000_000_000_000
        return tenths == 0 ? "\(whole)" : "\(whole).\(tenths)"
    }
}
