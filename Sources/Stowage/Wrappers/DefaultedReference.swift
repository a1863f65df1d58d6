/// A ``StorageReference`` together with the default a wrapper or typed key
/// declared: what `$setting` gives you.
///
/// Reads fall back to the default; `modify` starts from it; errors are
/// reported rather than thrown (use ``reference`` for the throwing API).
///
/// ```swift
/// settings.$launchCount.modify { $0 += 1 }
/// for await count in settings.$launchCount.changes { print(count) }
/// settings.$profile.name = "Ada"    // writes through the value's key paths
/// ```
@dynamicMemberLookup
public struct DefaultedReference<Storage: UnderlyingStorage, Value: Storable>: Sendable {
    /// The shared reference: one per store, key and value type.
    public let reference: StorageReference<Storage, Value>
    /// Read through directly: the cache and the registrar live in it, one load nearer than through the reference.
    @usableFromInline let core: ReferenceCore<Storage, Value>
    @usableFromInline let makeDefault: @Sendable () -> Value
    @usableFromInline let persistsDefault: Bool

    /// - Parameters:
    ///   - reference: the shared reference to read and write through.
    ///   - makeDefault: what reads yield while the key is absent or unreadable.
    ///   - persistsDefault: whether a read that finds the key absent writes the default.
    package init(_ reference: StorageReference<Storage, Value>, default makeDefault: @escaping @Sendable () -> Value, persistsDefault: Bool = false) {
        self.reference = reference
        core = reference.core
        self.makeDefault = makeDefault
        self.persistsDefault = persistsDefault
    }

    /// The key this reads and writes.
    package var key: String { reference.key }

    /// The stored value, or the default when the key is absent or unreadable.
    @inlinable
    public var value: Value {
        get {
            core.trackAccess()
            if let value = core.fastValue() { return value }
            switch core.cachedRead().0 ?? reference.readAndCache() {
            case .present(let value): return value
            case .failed: return makeDefault()
            case .absent:
                let fallback = makeDefault()
                if persistsDefault { persist(fallback) }
                return fallback
            }
        }
        nonmutating set {
            reference.value = newValue
        }
    }

    /// Whether the store holds a value for the key.
    public var hasStoredValue: Bool { reference.hasStoredValue }

    /// Atomically reads, transforms and writes, starting from the default when
    /// the key is absent or its value unreadable (that value is replaced, as
    /// assigning through the wrapper would). `body` may run more than once
    /// under contention. A store failure is reported, not thrown; if the store
    /// could not even be read, `body` runs once on the default, so there is a
    /// result to return, and nothing is written.
    @discardableResult
    public func modify<Result>(_ body: (inout Value) -> Result) -> Result {
        var lastOutcome: Result?
        do {
            return try reference.modify(replacingUnreadable: true) { (current: inout Value?) in
                var value = current ?? makeDefault()
                let outcome = body(&value)
                lastOutcome = outcome
                current = value
                return outcome
            }
        } catch {
            reference.reportFailure(error)
            if let lastOutcome { return lastOutcome }
            var value = makeDefault()
            return body(&value)
        }
    }

    /// Removes the key, so reads yield the default again.
    public func remove() {
        reference.value = nil
    }

    /// The current value, then every change, with the default standing in for an absent key.
    public var changes: AsyncStream<Value> {
        let makeDefault = self.makeDefault
        return reference.makeChangeStream { result in result.value ?? makeDefault() }
    }

    /// Calls `handler` with the value (or the default) after every change.
    public func observe(_ handler: @escaping @Sendable (Value) -> Void) -> ObservationToken {
        let makeDefault = self.makeDefault
        return reference.observe { handler($0 ?? makeDefault()) }
    }

    /// Reads a member of the value: `settings.$profile.name`.
    public subscript<Member>(dynamicMember keyPath: KeyPath<Value, Member>) -> Member {
        value[keyPath: keyPath]
    }

    /// Reads and atomically writes a member of the value.
    public subscript<Member>(dynamicMember keyPath: WritableKeyPath<Value, Member>) -> Member {
        get { value[keyPath: keyPath] }
        nonmutating set { modify { $0[keyPath: keyPath] = newValue } }
    }

    @usableFromInline
    func persist(_ fallback: Value) {
        do {
            try reference.modify { (current: inout Value?) in
                if current == nil { current = fallback }
            }
        } catch {
            reference.reportFailure(error)
        }
    }
}
