public import Stowage

extension StorageConformanceSuite {
    /// How the suite exercises a store: what the store can keep, how to change
    /// it behind Stowage's back, and how hard to push the concurrency checks.
    ///
    /// ```swift
    /// let options = StorageConformanceSuite<MyStore>.Options(
    ///     externalChange: { store, key, value in try store.simulateOtherProcessWriting(key, value) },
    ///     supportsNonFiniteDoubles: false
    /// )
    /// try await StorageConformanceSuite(options: options) { MyStore() }.run()
    /// ```
    public struct Options: Sendable {
        /// Changes `key` to the given value (`nil` removes it) the way another
        /// process or a reload would, behind Stowage's back; the store must
        /// then announce the change with `announceChange(forKey:)` or its
        /// siblings, synchronously or from another thread.
        ///
        /// When `nil`, ``ConformanceCheck/externalChange`` is skipped, and the
        /// report lists it under ``ConformanceReport/skipped``.
        public var externalChange: (@Sendable (Storage, String, StoredValue?) throws -> Void)?

        /// Opens another instance over the same data (the same file, say).
        /// The round trips then read every value back from it too, checking
        /// what the store persisted and not only what it holds in memory.
        ///
        /// When `nil`, the round trips read from the store that wrote.
        public var reopen: (@Sendable (Storage) throws -> Storage)?

        /// How long to wait for a change to reach an observer or a stream
        /// before calling it missing. It bounds a failure, it does not assert
        /// speed: a passing check waits only as long as delivery takes.
        public var changeTimeout: Duration

        /// Whether the store keeps infinity and NaN. A JSON store can not;
        /// when `false`, the round trip leaves them out.
        public var supportsNonFiniteDoubles: Bool

        /// How many tasks the concurrency checks run at once.
        public var concurrentTasks: Int

        /// How many operations each task of a concurrency check performs.
        public var iterationsPerTask: Int

        /// The default of ``iterationsPerTask``: 250, or 50 when the process
        /// runs under ThreadSanitizer or AddressSanitizer. They slow every
        /// operation 5 to 15 times, and find a race or a bad access when it
        /// happens, not only when two threads collide, so fewer rounds catch
        /// what they catch; the plain build's 250 catch lost updates.
        public static var defaultIterationsPerTask: Int { Sanitizers.areActive ? 50 : 250 }

        /// Options for a store that keeps every value, with no way to change it behind Stowage's back.
        /// - Parameters:
        ///   - externalChange: changes a key behind Stowage's back; `nil` skips the external change check.
        ///   - reopen: opens another instance over the same data; `nil` checks round trips in the writing instance only.
        ///   - changeTimeout: the longest wait for a change to be delivered before the check fails.
        ///   - supportsNonFiniteDoubles: whether the store keeps infinity and NaN.
        ///   - concurrentTasks: how many tasks the concurrency checks run at once; at least 1.
        ///   - iterationsPerTask: how many operations each of those tasks performs; at least 1 (``defaultIterationsPerTask`` by default).
        public init(
            externalChange: (@Sendable (Storage, String, StoredValue?) throws -> Void)? = nil,
            reopen: (@Sendable (Storage) throws -> Storage)? = nil,
            changeTimeout: Duration = .seconds(2),
            supportsNonFiniteDoubles: Bool = true,
            concurrentTasks: Int = 8,
            iterationsPerTask: Int = defaultIterationsPerTask
        ) {
            self.externalChange = externalChange
            self.reopen = reopen
            self.changeTimeout = changeTimeout
            self.supportsNonFiniteDoubles = supportsNonFiniteDoubles
            self.concurrentTasks = concurrentTasks
            self.iterationsPerTask = iterationsPerTask
        }
    }
}
