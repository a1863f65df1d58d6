import Dispatch
import Stowage
import StowageJSON
import StowageLocking

/// The state of one settings file in this process, shared by every
/// ``JSONFileStore`` opened on it with the same options, so that two store
/// objects never keep two caches that fight over the file.
///
/// Three locks, always taken in this order and never while calling user code:
/// `fileGate` serialises this process's file I/O for the file and holds the
/// `flock` descriptor; the `flock` on the lock file serialises writers across
/// processes; `state` guards the in-memory document for a few microseconds.
final class JSONFileBacking: Sendable {
    /// The settings path as given (absolute), which may be a symbolic link.
    let path: String
    /// The file whose `flock` every writer of this file takes.
    let lockPath: String
    let options: JSONFileStore.Options
    let fileSystem: any FileSystem
    let state = Locked(JSONFileState())
    let fileGate = Locked(FileGate())
    /// The thread inside `fileGate` (0 for none), so a transaction that calls
    /// back into its own store fails instead of deadlocking.
    let gateOwner = Locked<UInt>(0)
    /// Reports made while the gate's owner held it, for it to deliver once it lets go.
    let deferredReports = Locked<[@Sendable () -> Void]>([])
    /// The lock file whose `flock` the thread inside `fileGate` holds (`nil`
    /// for none), so a write can check that it still locks the file the lock
    /// path names.
    let heldLock = Locked<HeldLock?>(nil)
    /// The background writes scheduled and not yet run, for tests that must
    /// know one has run (`JSONFileStore.waitForScheduledWrites()`).
    let scheduledWrites = DispatchGroup()
    /// The store objects opened on this backing, told about changes made through each other.
    private let stores = Locked<[WeakStore]>([])

    struct FileGate: Sendable {
        var lockFile: OpenLockFile?
    }

    /// The `flock` a writer holds on the lock file, and whether its write
    /// has let it go already (see ``releaseLockFileAfterWriting()``).
    struct HeldLock: Sendable {
        let lockFile: OpenLockFile
        var isReleased = false
        /// The settings file's path as the reread under this lock found it,
        /// until a rename changes it: the write's target, mode and owner.
        var checkedPath: AtomicFileReplacement.CheckedPath?
    }

    /// The lock file's descriptor, opened on first use and kept, with its
    /// status from when it was opened: its device and inode never change
    /// while it is open, so checking it against the path takes one `lstat`.
    struct OpenLockFile: Sendable {
        let descriptor: Int32
        let status: FileStatus
        /// The folder holding it, opened just before it and kept as long:
        /// its `flock` guards the checks that the lock file is still in place
        /// (``renameHoldingCurrentLock(_:)``), and its `fsync` makes a rename
        /// durable. Opening and closing it for each of the two checks of a
        /// write was four system calls. `nil` when the folder can not be
        /// opened for reading (mode 0300, say): the checks go without it.
        ///
        /// Kept, it may outlive the folder (deleted, or moved away): then the
        /// lock file was in the folder that went, so the check by path finds
        /// it gone, and the next attempt opens both anew.
        let folder: Int32?
    }

    private struct WeakStore: Sendable {
        weak var store: JSONFileStore?
        let identifier: ObjectIdentifier
    }

    init(path: String, options: JSONFileStore.Options, fileSystem: any FileSystem) {
        self.path = path
        self.options = options
        self.fileSystem = fileSystem
        lockPath = FilePath.resolvingSymbolicLinks(path, in: fileSystem) + ".lock"
        open()
    }

    deinit {
        if let lockFile = fileGate.withLock({ $0.lockFile }) { close(lockFile) }
    }

    var parser: JSONParser { JSONParser(maximumDepth: options.maximumDepth) }
    var serializer: JSONSerializer { JSONSerializer(formatting: options.prettyPrinted ? .prettyPrinted : .compact, maximumDepth: options.maximumDepth) }

    func register(_ store: JSONFileStore) {
        stores.withLock { stores in
            stores.removeAll { $0.store == nil }
            stores.append(WeakStore(store: store, identifier: ObjectIdentifier(store)))
        }
    }

    // MARK: Reading

    func storedValue(forKey key: String) -> StoredValue? {
        let layout = options.keyLayout
        return state.withLock { layout.value(forKey: key, in: $0.visible) }
    }

    var hasPendingChanges: Bool {
        state.withLock { !$0.pending.isEmpty }
    }

    /// Whether changes are pending, or a write may be in flight with changes
    /// it took out of the pending ones (someone holds the file gate).
    var mayHaveUnwrittenChanges: Bool {
        hasPendingChanges || fileGate.withLockIfAvailable({ _ in () }) == nil
    }

    /// `JSONFileStore(<path>)`, as reports and events name the store.
    var storeName: String { "JSONFileStore(\(path))" }

    /// Reports an error met where nothing could throw, naming this store.
    func report(_ error: StorageError) {
        let error = error.attributed(toStore: storeName)
        deliverOrDefer { error.report() }
    }

    /// Reports something the store went through on its own, with the file's path.
    func report(_ kind: StoreEvent.Kind, _ severity: StoreEvent.Severity, _ message: String, details: [String: String] = [:], error: StorageError? = nil) {
        let event = StoreEvent(
            kind, severity: severity, storeName: storeName, message: message,
            details: details.merging(["path": path]) { own, _ in own }, error: error?.attributed(toStore: storeName))
        deliverOrDefer { event.report() }
    }

    /// Runs a report's handler now, unless this thread holds the file gate:
    /// then once it lets go (``deliverDeferredReports()``), so a handler
    /// never runs under the gate or the `flock`, where a handler that writes
    /// to the store would fail, and a slow one would hold up other processes.
    private func deliverOrDefer(_ delivery: @escaping @Sendable () -> Void) {
        if gateOwner.withLock({ $0 }) == currentThreadIdentifier() {
            deferredReports.withLock { $0.append(delivery) }
        } else {
            delivery()
        }
    }

    /// Delivers what was reported while this thread held the file gate; called as it lets go.
    func deliverDeferredReports() {
        let deliveries = deferredReports.withLock { deliveries in
            defer { deliveries.removeAll() }
            return deliveries
        }
        for delivery in deliveries { delivery() }
    }

    /// The exit's write: waits for a write in flight, then writes what is
    /// still pending; errors go to the reporting hook.
    func writeAtExit() {
        fileGate.withLock { _ in }
        guard hasPendingChanges else { return }
        do {
            _ = try writePendingChanges()
        } catch {
            report(error)
        }
    }

    // MARK: Writing

    /// Applies a change in memory and arranges for it to reach the file.
    /// - Returns: the keys whose values changed, for announcing.
    func write(_ value: StoredValue?, forKey key: String) throws(StorageError) -> [String] {
        let normalized = try normalizedForFile(value, forKey: key)
        let layout = options.keyLayout
        let coalesced = options.durability == .coalesced
        let (changed, schedule) = try state.withLock { state throws(StorageError) -> (changed: [String], schedule: Bool) in
            if let reason = state.readOnlyReason { throw Self.readOnlyError(key: key, reason: reason) }
            let changed = try state.applyChange(normalized, forKey: key, layout: layout)
            // In the nested layout the objects around and below the key change with it. The key's own
            // references learn of the write from Stowage, as it returns.
            discardCachedValues(changed.filter { $0 != key })
            let schedule = coalesced && !state.isWriteScheduled
            if schedule { state.isWriteScheduled = true }
            return (changed, schedule)
        }
        if coalesced {
            if schedule { scheduleBackgroundWrite() }
            return changed
        }
        return changed + (try writePendingChanges())
    }

    /// Compare-and-swap of several keys under the file lock, after rereading
    /// the file, so it is atomic with every writer in every process; written
    /// before it returns, and visible to readers only once written. Either
    /// every replacement is applied or none.
    func replace(
        expecting expected: [String: StoredValue?], with replacements: [(key: String, value: StoredValue?)]
    ) throws(StorageError) -> (replaced: Bool, changed: [String]) {
        var normalized: [(key: String, value: StoredValue?)] = []
        for (key, value) in replacements { normalized.append((key, try normalizedForFile(value, forKey: key))) }
        let layout = options.keyLayout
        // The keys other writers changed, announced even when this write fails.
        var reloaded: [String] = []
        do throws(StorageError) {
            return try withFileLock { () throws(StorageError) in
                reloaded = try reload(mode: .locked)
                let matches = try state.withLock { state throws(StorageError) -> Bool in
                    if let reason = state.readOnlyReason { throw Self.readOnlyError(key: normalized.first?.key, reason: reason) }
                    for (key, value) in expected where layout.value(forKey: key, in: state.visible) != value { return false }
                    try state.validate(normalized, layout: layout)
                    return true
                }
                guard matches else { return (false, reloaded) }
                return (true, reloaded + (try writeStagedChangeUnderLock(normalized, isCompareAndSwap: true)))
            }
        } catch {
            announce(reloaded)
            // Plain changes made before are still pending, and the failed write may have been carrying them.
            scheduleRetry(after: error)
            throw error
        }
    }

    /// The value in its file form, refused if the file could not hold it at
    /// `key`: the top-level object and, in the nested layout, the objects of
    /// the key's path count toward the depth limit.
    func normalizedForFile(_ value: StoredValue?, forKey key: String) throws(StorageError) -> StoredValue? {
        guard let value else { return nil }
        let enclosingObjects = 1 + options.keyLayout.enclosingObjectCount(of: key)
        return try JSONFileRepresentation.normalized(value, forKey: key, maximumDepth: options.maximumDepth - enclosingObjects)
    }

    static func readOnlyError(key: String?, reason: String) -> StorageError {
        StorageError(code: .readOnly, key: key, reason: "the store is read-only: \(reason)")
    }

    func scheduleBackgroundWrite(after delay: Duration? = nil) {
        let delay = delay ?? options.writeDelay
        // The closure keeps the backing alive until its changes are written.
        scheduledWrites.enter()
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + DispatchTimeInterval(delay)) {
            self.writeInBackground()
            self.scheduledWrites.leave()
        }
    }

    /// Writes the pending changes. A failure schedules the next try (in
    /// `writePendingChanges`), so the changes do not wait for the next write,
    /// `flush()` or the exit. The first failure of a run is reported, unless
    /// it is the store being read-only, whose reason was reported when it
    /// became so; the retries that follow are not.
    private func writeInBackground() {
        // Cleared before writing, so that whatever happens to this write, a
        // change made from now on, or a retry, schedules the next one.
        let hasPending = state.withLock { state -> Bool in
            state.isWriteScheduled = false
            return !state.pending.isEmpty
        }
        // A flush, a compare-and-swap or a transaction wrote the changes
        // already. Going on would take the lock and reread the file for
        // nothing, and move aside as corrupt a file another program was
        // halfway through writing without the lock.
        guard hasPending else { return }
        do {
            announce(try writePendingChanges())
        } catch {
            let isFirstFailure = state.withLock { $0.failedWrites == 1 }
            if isFirstFailure, error.code != .readOnly { report(error) }
        }
    }

    /// After a failed write that left changes pending, schedules a background
    /// write to try again, unless one is on its way already: a quarter of a
    /// second after the first failure, twice as long after each one that
    /// follows, and never more than half a minute.
    func scheduleRetry(after error: StorageError) {
        let (failures, schedules) = state.withLock { state -> (Int, Bool) in
            state.failedWrites += 1
            // A refusal while read-only is told by the read-only events, not as a failed write.
            if error.code != .readOnly { state.failedWritesToTell += 1 }
            let schedules = !state.pending.isEmpty && !state.isWriteScheduled
            if schedules { state.isWriteScheduled = true }
            return (state.failedWrites, schedules)
        }
        if schedules { scheduleBackgroundWrite(after: Self.retryDelay(afterFailures: failures)) }
    }

    static func retryDelay(afterFailures failures: Int) -> Duration {
        .milliseconds(min(30_000, 250 << min(max(failures, 1) - 1, 7)))
    }

    // MARK: Announcing

    /// Drops the values references of every store object on this file hold
    /// for `keys`; called under `state`'s lock while a change is applied, so
    /// that the keys changed together become visible together (see
    /// `UnderlyingStorage.discardCachedValues(forKeys:)`).
    func discardCachedValues(_ keys: [String]) {
        guard !keys.isEmpty else { return }
        for store in stores.withLock({ $0.compactMap(\.store) }) {
            store.discardCachedValues(forKeys: keys)
        }
    }

    /// Tells every store object on this file that `keys` changed, except
    /// `origin` about `originKey` (Stowage already knows of its own write).
    func announce(_ keys: [String], exceptKey originKey: String? = nil, to origin: JSONFileStore? = nil) {
        guard !keys.isEmpty else { return }
        let targets = stores.withLock { $0.compactMap(\.store) }
        for store in targets {
            if let origin, store === origin, let originKey {
                store.announceChanges(forKeys: keys.filter { $0 != originKey })
            } else {
                store.announceChanges(forKeys: keys)
            }
        }
    }
}
