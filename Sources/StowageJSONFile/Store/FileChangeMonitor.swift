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

/// Notices changes other processes and people make to settings files.
///
/// Each backing with change detection gets a timer that checks its file's
/// status (device, inode, size, modification time) every poll interval. On
/// Linux, with automatic detection, one inotify descriptor, read by a thread
/// of its own, also watches the files' directories, so an edit, a rename over
/// the file (as editors save) or a delete is noticed within milliseconds
/// rather than at the next tick.
/// A check only rereads a file whose status changed, and never waits behind a
/// writer of this process: if one holds the file, the next tick or event
/// checks again. A file that keeps changing is checked at most once per
/// `RecheckThrottle.minimumInterval` after events, and once more after the
/// last of them; and events that never stop are read at most 500 times a
/// second (`EventReadBudget`).
///
/// The directory is watched from the first tick on, not from the opening: a
/// process that exits with a watch in place waits for the kernel to tear it
/// down (about 2 ms, measured, a third of a short-lived tool's whole run),
/// and a program that runs for less than a poll interval needs no watch.
final class FileChangeMonitor: Sendable {
    static let shared = FileChangeMonitor()

    /// Runs the timers' checks.
    private let queue = DispatchQueue(label: "Stowage.JSONFileStore.changes")
    /// Held through every check, the timers' and the event thread's, so two
    /// never overlap: the later of two overlapping checks would give way (a
    /// check never waits for the file), and the earlier may have looked
    /// before the change.
    private let checking = Locked(())
    /// Keyed by a number of their own, never by the backing's address: a new
    /// backing often gets a dropped one's address, and the dropped one's last
    /// timer tick would then unregister the new one.
    private let registrations = Locked<Registrations>(Registrations())

    private struct Registrations {
        var nextID: UInt64 = 0
        var byID: [UInt64: Registration] = [:]
    }

    private final class Registration: Sendable {
        weak let backing: JSONFileBacking?
        let directory: String
        /// The file's name in `directory`, as the events name it.
        let fileName: [UInt8]
        // Only touched when made and when cancelled, both under `registrations`' lock.
        nonisolated(unsafe) let timer: any DispatchSourceTimer

        init(backing: JSONFileBacking, directory: String, fileName: [UInt8], timer: any DispatchSourceTimer) {
            self.backing = backing
            self.directory = directory
            self.fileName = fileName
            self.timer = timer
        }
    }

    #if os(Linux)
    private let inotify: Int32
    /// Watch descriptors by directory, with the backings that use each.
    private let watches = Locked<[String: DirectoryWatch]>([:])

    private struct DirectoryWatch {
        var descriptor: Int32
        var users: Set<UInt64>
    }
    /// Whether the thread that reads `inotify` has been started; it starts with the first watch.
    private let isReadingEvents = Locked(false)
    /// When each registration's file was last checked after an event.
    private let throttles = Locked<[UInt64: RecheckThrottle]>([:])
    #endif

    private init() {
        #if os(Linux)
        // Blocking: the event thread waits in `read`.
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        #endif
    }

    /// Starts checking `backing`'s file, if its options ask for it.
    func watch(_ backing: JSONFileBacking) {
        guard let interval = backing.options.changeDetection.pollInterval else { return }
        let resolved = FilePath.resolvingSymbolicLinks(backing.path, in: backing.fileSystem)
        let directory = FilePath.directory(of: resolved)
        let identifier = registrations.withLock { registrations in
            defer { registrations.nextID &+= 1 }
            return registrations.nextID
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let period = DispatchTimeInterval(max(interval, .milliseconds(1)))
        timer.schedule(deadline: .now() + period, repeating: period)
        let watchesDirectory = if case .automatic = backing.options.changeDetection { true } else { false }
        timer.setEventHandler { [weak backing] in
            FileChangeMonitor.shared.tick(identifier, backing, watchingDirectory: watchesDirectory)
        }
        let registration = Registration(backing: backing, directory: directory, fileName: Array(FilePath.lastComponent(of: resolved).utf8), timer: timer)
        registrations.withLock { $0.byID[identifier] = registration }
        timer.resume()
    }

    /// One tick of a registration's timer: checks the file, and with
    /// automatic detection watches its directory from now on.
    func tick(_ identifier: UInt64, _ backing: JSONFileBacking?, watchingDirectory: Bool) {
        guard let backing else {
            unwatch(identifier)
            return
        }
        if watchingDirectory { addDirectoryWatchIfNeeded(for: identifier) }
        check(backing)
    }

    /// Checks `backing`'s file, after any check in progress.
    private func check(_ backing: JSONFileBacking) {
        checking.withLock { backing.checkForExternalChange() }
    }

    /// Whether the directory of `backing`'s file is watched for its sake (always `false` off Linux).
    func watchesDirectory(of backing: JSONFileBacking) -> Bool {
        #if os(Linux)
        guard let identifier = registrationID(of: backing),
            let directory = registrations.withLock({ $0.byID[identifier]?.directory })
        else { return false }
        return watches.withLock { $0[directory]?.users.contains(identifier) == true }
        #else
        return false
        #endif
    }

    /// The number `backing` is registered under, if it is watched.
    func registrationID(of backing: JSONFileBacking) -> UInt64? {
        registrations.withLock { $0.byID.first { $0.value.backing === backing }?.key }
    }

    /// Stops checking a registration: called by its timer once its backing is gone.
    func unwatch(_ identifier: UInt64) {
        guard let registration = registrations.withLock({ $0.byID.removeValue(forKey: identifier) }) else { return }
        registration.timer.cancel()
        #if os(Linux)
        throttles.withLock { _ = $0.removeValue(forKey: identifier) }
        watches.withLock { watches in
            guard var watch = watches[registration.directory] else { return }
            watch.users.remove(identifier)
            if watch.users.isEmpty {
                inotify_rm_watch(inotify, watch.descriptor)
                watches.removeValue(forKey: registration.directory)
            } else {
                watches[registration.directory] = watch
            }
        }
        #endif
    }

    /// Watches the directory once it exists; until then the timer alone checks.
    private func addDirectoryWatchIfNeeded(for identifier: UInt64) {
        #if os(Linux)
        guard inotify >= 0, let registration = registrations.withLock({ $0.byID[identifier] }) else { return }
        let directory = registration.directory
        watches.withLock { watches in
            if watches[directory] != nil {
                watches[directory]?.users.insert(identifier)
                return
            }
            // No IN_MODIFY: every write(2) to any file of the folder (the
            // temporary files of every writer among them) would report one
            // to every watching process. A file written in place is seen
            // when its writer closes it (IN_CLOSE_WRITE), complete rather
            // than half-written, or at the next tick if it is never closed.
            let mask = UInt32(
                IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB
                    | IN_DELETE_SELF | IN_MOVE_SELF)
            let descriptor = inotify_add_watch(inotify, directory, mask)
            guard descriptor >= 0 else { return }
            watches[directory] = DirectoryWatch(descriptor: descriptor, users: [identifier])
        }
        startReadingEventsIfNeeded()
        #endif
    }

    #if os(Linux)
    /// Starts the event thread once; if it can not start, the timers still poll.
    private func startReadingEventsIfNeeded() {
        let starts = isReadingEvents.withLock { isReading in
            defer { isReading = true }
            return !isReading
        }
        guard starts else { return }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Musl)
        var thread: pthread_t?  // a pointer in musl, a number in glibc
        #else
        var thread = pthread_t()
        #endif
        _ = pthread_create(&thread, &attributes, { _ in FileChangeMonitor.shared.readEvents() }, nil)
    }

    /// The event thread: reads events as they come, checks the files they
    /// name itself, and sleeps when reads outrun their budget (see
    /// `EventReadBudget`), while the events queue in the kernel. A file that
    /// keeps changing gets one trailing check (see `RecheckThrottle`), which
    /// this thread runs when it is due, waiting for events meanwhile.
    ///
    /// A thread of its own, blocked in `read`, wakes once for a batch; and it
    /// checks without handing over to another thread. A dispatch read source
    /// took three thread switches a batch (its manager thread, a worker, a
    /// timer to pause), and checks handed to a dispatch queue two more (a
    /// worker, and the manager thread's timers for trailing checks): with
    /// eight processes writing one file, those two were an eighth of all the
    /// processes' processor time.
    private func readEvents() -> UnsafeMutableRawPointer? {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var budget = EventReadBudget()
        var nextRead = ContinuousClock.now
        var trailingChecks: [UInt64: ContinuousClock.Instant] = [:]
        while true {
            runDueChecks(&trailingChecks)
            let firstDue = trailingChecks.values.min()
            let now = ContinuousClock.now
            if now < nextRead {
                sleep(for: min(nextRead, firstDue ?? nextRead) - now)
                continue
            }
            if let firstDue, !waitForEvents(until: firstDue) { continue }
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            // Only a closed or broken descriptor fails otherwise; the timers still poll.
            guard count > 0 else { return nil }
            var events = DirectoryEvents()
            buffer.withUnsafeBytes { events.add(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            checkFiles(concernedBy: events, trailingChecks: &trailingChecks)
            nextRead = .now + budget.afterReading(at: .now)
        }
    }

    /// Whether events arrived before `deadline`.
    ///
    /// `poll` counts whole milliseconds: it waits the whole ones, and the
    /// rest, under a millisecond, is slept out. Rounded up instead, a trailing
    /// check came up to a millisecond late (group 12's edits one after
    /// another took 6.0 ms instead of 5.0).
    private func waitForEvents(until deadline: ContinuousClock.Instant) -> Bool {
        let remaining = deadline - .now
        guard remaining > .zero else { return false }
        let milliseconds = remaining.wholeMilliseconds
        guard milliseconds > 0 else {
            sleep(for: remaining)
            return false
        }
        var descriptor = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(clamping: milliseconds)) > 0
    }

    private func sleep(for duration: Duration) {
        guard duration > .zero else { return }
        var request = timespec(tv_sec: Int(duration.components.seconds), tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }

    /// Runs the trailing checks whose time has come.
    private func runDueChecks(_ trailingChecks: inout [UInt64: ContinuousClock.Instant]) {
        let now = ContinuousClock.now
        for (identifier, due) in trailingChecks where due <= now {
            trailingChecks.removeValue(forKey: identifier)
            throttles.withLock { $0[identifier]?.scheduledCheckRuns(at: .now) }
            if let backing = registrations.withLock({ $0.byID[identifier]?.backing }) { check(backing) }
        }
    }

    /// Checks the watched files `events` may concern (see `DirectoryEvents`)
    /// now, or once, a little later, if they were just checked.
    private func checkFiles(concernedBy events: DirectoryEvents, trailingChecks: inout [UInt64: ContinuousClock.Instant]) {
        let descriptors = watches.withLock { $0.mapValues(\.descriptor) }
        let watched = registrations.withLock { registrations in
            registrations.byID.compactMap { identifier, registration in
                registration.backing.map { (identifier, $0, registration.fileName, descriptors[registration.directory]) }
            }
        }
        for (identifier, backing, fileName, descriptor) in watched where events.concern(fileName, watchedAs: descriptor) {
            let now = ContinuousClock.now
            switch throttles.withLock({ $0[identifier, default: RecheckThrottle()].decide(at: now) }) {
            case .checkNow: check(backing)
            case .checkAfter(let delay): trailingChecks[identifier] = now + delay
            case .alreadyScheduled: break
            }
        }
    }
    #endif
}
