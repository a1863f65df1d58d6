#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Stowage
import StowageLocking

/// The live backings of this process: one per (file, options), so that store
/// objects opened on the same file share a cache; and the list the exit hook
/// flushes.
final class JSONFileBackingRegistry: Sendable {
    static let shared = JSONFileBackingRegistry()

    private struct Key: Hashable {
        var path: String
        var options: JSONFileStore.Options
    }

    private final class WeakBacking: Sendable {
        weak let backing: JSONFileBacking?
        init(_ backing: JSONFileBacking) { self.backing = backing }
    }

    private let shared = Locked<[Key: WeakBacking]>([:])
    private let all = Locked<[ObjectIdentifier: WeakBacking]>([:])

    private init() {
        // A normal exit (return from main, `exit()`) writes what is pending.
        atexit { JSONFileBackingRegistry.shared.flushAllAtExit() }
    }

    /// The backing for `path` with `options`, made on first use.
    func backing(forPath path: String, options: JSONFileStore.Options) -> JSONFileBacking {
        let key = Key(path: Self.canonicalPath(path), options: options)
        // Made outside the lock: opening reads the file and may report errors.
        if let existing = shared.withLock({ $0[key]?.backing }) { return existing }
        let made = JSONFileBacking(path: path, options: options, fileSystem: POSIXFileSystem())
        let winner = shared.withLock { table -> JSONFileBacking in
            if let existing = table[key]?.backing { return existing }
            table = table.filter { $0.value.backing != nil }
            table[key] = WeakBacking(made)
            return made
        }
        if winner === made { track(made) }
        return winner
    }

    /// Adds a backing to the ones the exit hook flushes and the monitor checks.
    func track(_ backing: JSONFileBacking) {
        all.withLock { table in
            table = table.filter { $0.value.backing != nil }
            table[ObjectIdentifier(backing)] = WeakBacking(backing)
        }
        FileChangeMonitor.shared.watch(backing)
    }

    func liveBackings() -> [JSONFileBacking] {
        all.withLock { $0.values.compactMap(\.backing) }
    }

    /// How long the exit waits for writes in flight and its own write before
    /// the process ends anyway, so that a hung file system can not hang it.
    static let exitWaitLimit: Duration = .seconds(5)

    /// Writes every pending change of every live backing, at exit.
    ///
    /// A background write in flight has taken its changes out of the pending
    /// ones, so each backing's writes are first waited for (its file gate),
    /// and then whatever is still pending, or was put back by a failed write,
    /// is written. This runs on a thread of its own, waited for at most
    /// ``exitWaitLimit``; errors, and giving up, go to the reporting hook.
    func flushAllAtExit() {
        let exitingThread = currentThreadIdentifier()
        // A backing whose gate this very thread holds (exit() from a reporting handler, say) can not be waited for.
        let backings = liveBackings().filter { $0.gateOwner.withLock { $0 } != exitingThread && $0.mayHaveUnwrittenChanges }
        guard !backings.isEmpty else { return }
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue(label: "Stowage JSON file store exit").async {
            for backing in backings { backing.writeAtExit() }
            finished.signal()
        }
        let limit = Self.exitWaitLimit.components
        if finished.wait(timeout: .now() + .seconds(Int(limit.seconds))) == .timedOut {
            for backing in backings {
                StorageError(
                    code: .storeFailure,
                    reason: "the process is exiting with changes to \(backing.path) that could not be written within \(limit.seconds) s; they are lost.",
                    storeName: backing.storeName
                ).report()
            }
        }
    }

    /// One spelling per file: absolute, links at the end followed, and the
    /// directory's own links resolved when it exists.
    static func canonicalPath(_ path: String) -> String {
        let resolved = FilePath.resolvingSymbolicLinks(FilePath.absolute(path), in: POSIXFileSystem())
        let directory = FilePath.directory(of: resolved)
        guard let real = realpath(directory, nil) else { return resolved }
        defer { free(real) }
        let realDirectory = String(cString: real)
        return (realDirectory == "/" ? "" : realDirectory) + "/" + FilePath.lastComponent(of: resolved)
    }
}
