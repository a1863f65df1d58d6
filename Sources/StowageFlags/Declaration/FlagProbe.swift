/// Finds which flag a key path names, by reading it on a copy of the
/// container that no pole binds: the flag read there records itself.
///
/// A key path to a wrapped property only reads the value; it never reaches
/// the wrapper. Recording on the unbound path keeps every bound read free
/// of the check.
enum FlagProbe {
    final class Recorder: Sendable {
        let seen = Locked<[ObjectIdentifier]>([])
    }

    @TaskLocal static var recorder: Recorder?

    static func record(_ declaration: AnyObject) {
        guard let recorder else { return }
        recorder.seen.withLock { $0.append(ObjectIdentifier(declaration)) }
    }

    /// The declarations `read` reads, in order.
    static func declarations(readBy read: () -> Void) -> [ObjectIdentifier] {
        let recorder = Recorder()
        $recorder.withValue(recorder) { read() }
        return recorder.seen.withLock { $0 }
    }
}
