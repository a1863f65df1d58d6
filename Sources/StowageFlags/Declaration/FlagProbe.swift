import StowageLocking

/// Finds which flag a key path names, by reading it on a copy of the
/// container that no pole binds: each flag read there records itself and
/// the value it gave.
///
/// A key path to a wrapped property only reads the value; it never reaches
/// the wrapper. Recording on the unbound path keeps every bound read free
/// of the check. A second read gives the flag found another value, so a
/// computed property that reads a flag only sometimes (`a && b`) or
/// transforms it (`limit * 2`) is not taken for the flag.
enum FlagProbe {
    final class Recorder: Sendable {
        /// The declaration to give ``substitute`` instead of its default.
        let substituted: ObjectIdentifier?
        let substitute: (any Sendable)?
        /// Each declaration read, with the stored form of what it gave.
        let seen = Locked<[(declaration: ObjectIdentifier, gave: StoredValue?)]>([])

        init(substituted: ObjectIdentifier?, substitute: (any Sendable)?) {
            self.substituted = substituted
            self.substitute = substitute
        }
    }

    @TaskLocal static var recorder: Recorder?

    /// What an unbound flag gives: its default, or the substitute while a probe asks for one.
    static func value<Value: Storable>(of declaration: FlagDeclaration<Value>) -> Value {
        guard let recorder else { return declaration.defaultValue }
        var value = declaration.defaultValue
        if recorder.substituted == ObjectIdentifier(declaration), let substitute = recorder.substitute as? Value { value = substitute }
        let gave = try? value.storedValue()
        recorder.seen.withLock { $0.append((ObjectIdentifier(declaration), gave)) }
        return value
    }

    /// The declarations `read` reads, in order, with what each gave, and what `read` returned.
    static func reads(
        substituting substitute: (declaration: ObjectIdentifier, value: any Sendable)? = nil, _ read: () -> StoredValue?
    ) -> (seen: [(declaration: ObjectIdentifier, gave: StoredValue?)], result: StoredValue?) {
        let recorder = Recorder(substituted: substitute?.declaration, substitute: substitute?.value)
        let result = $recorder.withValue(recorder) { read() }
        return (recorder.seen.withLock { $0 }, result)
    }
}
