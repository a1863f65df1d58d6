#if canImport(Glibc)
import Glibc
#endif

/// The lines a child and the coordinator exchange over the child's standard
/// input and output. Each line is one `write`, shorter than `PIPE_BUF`, so lines
/// from several threads never interleave.
enum ChildChannel {
    /// `progress <operations> <slowest thread's operations> <resident KiB>`, once a second.
    static let progress = "progress"
    /// The child stopped writing and flushed; the file holds all its changes.
    static let finishedWriting = "finished-writing"
    /// From the coordinator: every process finished writing; check your view of the file.
    static let verify = "verify"

    static func send(_ words: String...) {
        let line = words.joined(separator: " ") + "\n"
        _ = line.withCString { write(1, $0, strlen($0)) }
    }

    /// Waits for the coordinator's next line; `nil` when it is gone.
    static func receive() -> String? {
        readLine()
    }

    /// A message for the person running the soak, on standard error.
    static func note(_ name: String, _ message: String) {
        let line = "[\(name)] \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
