#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Stowage
import StowageLocking

/// The soak test of `JSONFileStore`, and its parent process.
///
/// Several worker processes (3 by default), each with many threads (8), share
/// one JSON file for a set time through two stores per process: the default
/// store (flat keys, pretty-printed, writes coalesced within 100 ms, inotify
/// change detection), used through `@JSONFileStorage` wrappers, and a second
/// store with other options (nested keys, compact, immediate background
/// writes, polling), which coordinates with the first through the file as
/// another process would. Each thread draws operations at random: `modify`
/// through references and wrappers on shared counters, transactions that move
/// amounts between accounts (and some that throw and must leave no trace),
/// wrapper setters and removals on keys only that thread writes, plain
/// setters on keys every thread writes, reads, `flush()`, `reload()`, and
/// opening and dropping a store with options of its own.
///
/// An external editor process edits the same file meanwhile. An editor that
/// rewrites the file without the store's lock loses concurrent writes by
/// design (the last rename wins, for its keys and the stores' alike), which no
/// exact invariant survives. So this one behaves as a cooperating tool must:
/// it takes the store's `flock` on `<file>.lock`, rereads the file, changes it
/// with Foundation (knowing nothing of Stowage), and renames a new file over
/// it. Under the lock its edits are as atomic as `modify`, so it adds to the
/// shared counters too; it also owns `external.*` keys, which no store writes,
/// and now and then only touches the file's modification time. The stores
/// must notice its edits through change detection (observers and change
/// streams hear of them) and reread the file before each write.
///
/// Invariants, any failure of which fails the run:
/// - The file always parses: a checker thread here reads the raw file every
///   10 ms with Foundation's parser (and Stowage's now and then); it never
///   vanishes once created, the accounts always sum to zero (no torn
///   transaction), and counters never go down between versions.
/// - Counters are exact: each equals the sum of the increments every process
///   (the editor included) counted; so are the accounts and the transfer count.
/// - No key written and not removed is missing, and each holds its thread's
///   last write; removed keys are gone; the editor's keys hold its last edit.
/// - Threads never read a counter going back, and always read their own last
///   write; observers deliver the editor's generation in order; after the
///   last write every store comes to show the final file without `reload()`.
/// - No store reports an error, no temporary or moved-aside file is left.
/// - Memory stays flat: each process reports `VmRSS` and `VmHWM` at start,
///   after the warm-up and at the end; resident memory may grow by at most
///   16 MiB after the warm-up (`--rss-growth-limit-mib`), and the heap in use
///   (from glibc's `malloc_info`) by at most 8 MiB (`--heap-growth-limit-mib`);
///   0 skips a check, as under a sanitizer. The processes keep a fixed set of
///   keys and one file's worth of values (about 2 MiB of heap, 30 MiB resident
///   with the libraries), so growth that keeps pace with the operations
///   (hundreds of thousands in a long run) is a leak, while the allocator's
///   caching moves resident memory by a megabyte or two at most.
/// - Disruptions (`Disruptions`, off with `--no-disruptions`): processes that
///   set a value and `exit()` around their background write never lose it; the
///   lock file is deleted under the writers every few hundred milliseconds,
///   and the exact counters above must hold all the same; with `--fault-shim`,
///   a writer whose `flock` fails for a second or two gets its value into the
///   file afterwards with no call of its own, within 40 s.
/// - No deadlock: each child prints its slowest thread's operation count every
///   second; a child whose slowest thread finishes nothing for 30 s, or that is
///   still running 60 s after the end, has every thread's stack printed (by
///   gdb, or the Swift runtime on SIGQUIT without it) and is killed, and the
///   run fails saying so.
struct SoakCoordinator {
    static let usage = """
        usage: StowageSoak [--seconds 60] [--processes 3] [--threads 8] [--grace 60] [--stall-limit 30]
                           [--warm-up SECONDS] [--rss-growth-limit-mib 16] [--heap-growth-limit-mib 8]
                           [--directory PATH] [--keep] [--fault-shim PATH] [--no-disruptions]
        Runs the soak test of the JSON file store and exits non-zero if any invariant failed.
        """

    let seconds: Double
    let processes: Int
    let threads: Int
    /// How long after the end of the run a child may take to flush, verify and exit.
    let grace: Double
    /// How long the slowest thread of a child may go without finishing an operation.
    let stallLimit: Double
    let warmUp: Double
    let rssGrowthLimitKiB: Int
    let heapGrowthLimitKiB: Int
    let keepsDirectory: Bool
    let directory: String
    let disrupts: Bool
    /// The `LD_PRELOAD` library that makes `flock` fail on demand (Tools/FaultShim).
    let faultShim: String?

    init(_ options: SoakOptions) {
        seconds = options.number("seconds", default: 60)
        processes = max(1, options.integer("processes", default: 3))
        threads = max(1, options.integer("threads", default: 8))
        grace = options.number("grace", default: 60)
        stallLimit = options.number("stall-limit", default: 30)
        warmUp = options.number("warm-up", default: min(60, max(5, seconds / 5)))
        rssGrowthLimitKiB = options.integer("rss-growth-limit-mib", default: 16) * 1024
        heapGrowthLimitKiB = options.integer("heap-growth-limit-mib", default: 8) * 1024
        keepsDirectory = options.flags.contains("keep")
        disrupts = !options.flags.contains("no-disruptions")
        faultShim = options.string("fault-shim")
        directory =
            options.string("directory")
            ?? FileManager.default.temporaryDirectory.appending(path: "stowage-soak-\(UUID().uuidString)").path(percentEncoded: false)
    }

    var file: String { directory + "/settings.json" }

    func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            print("could not create \(directory): \(error)")
            return 1
        }
        print("Soak of the JSON file store: \(processes) worker processes × \(threads) threads and an external editor, \(format(seconds)) s")
        print("file: \(file); warm-up \(format(warmUp)) s; watchdog: \(format(stallLimit)) s without progress, or \(format(grace)) s past the end")
        let started = ContinuousClock.now
        let until = Date().timeIntervalSince1970 + seconds
        let common = ["--file", file, "--until", "\(until)", "--warm-up", "\(warmUp)"]
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }

        var children: [ChildProcess] = []
        do {
            for index in 0..<processes {
                children.append(
                    try ChildProcess(
                        name: "worker-\(index)", executable: executable,
                        arguments: ["worker", "--name", "worker-\(index)", "--index", "\(index)", "--threads", "\(threads)"] + common,
                        environment: environment))
            }
            children.append(
                try ChildProcess(
                    name: "editor", executable: executable, arguments: ["editor", "--name", "editor"] + common, environment: environment))
        } catch {
            print(error)
            for child in children { child.kill(because: "the soak could not start") }
            return 1
        }
        let checker = FileChecker(path: file)
        let disruptions = Disruptions(
            file: file, executable: executable, environment: ProcessInfo.processInfo.environment, faultShim: faultShim,
            until: started + .seconds(seconds))
        let disruptionResult = Locked<Disruptions.Result?>(nil)
        let disruptor = disrupts ? JoinableThread(name: "disruptions") { disruptionResult.withLock { $0 = disruptions.run() } } : nil
        let checkerResult = watch(children, checker: checker, started: started)
        disruptor?.join()
        for child in children { child.finish() }

        let workerReports = children.dropLast().compactMap { ReportFile.read(WorkerReport.self, name: $0.name, besides: file) }
        let editorReport = ReportFile.read(EditorReport.self, name: "editor", besides: file)
        var verification = FinalVerification(
            file: file, workers: workerReports, editor: editorReport,
            everyoneReported: workerReports.count == processes, rssGrowthLimitKiB: rssGrowthLimitKiB, heapGrowthLimitKiB: heapGrowthLimitKiB)
        verification.run()
        var failures: [String] = []
        for child in children {
            let status = child.snapshot
            if let reason = status.killedBecause {
                failures.append("\(child.name) was killed (\(status.phase)): \(reason)")
            } else if status.phase != .exited(status: 0) {
                failures.append("\(child.name) ended with \(status.phase)")
            }
        }
        failures += checkerResult.failures.map { "file check: \($0)" }
        if checkerResult.failureCount > checkerResult.failures.count {
            failures.append("file check: \(checkerResult.failureCount - checkerResult.failures.count) more failures")
        }
        failures += verification.failures
        if let disrupted = disruptionResult.withLock({ $0 }) {
            failures += disrupted.failures.map { "disruptions: \($0)" }
            failures += disrupted.lostExits.prefix(10).map { "disruptions: an exit lost \($0)" }
            print(
                "Disruptions: \(disrupted.exits) exits around writes (\(disrupted.lostExits.count) lost), "
                    + "\(disrupted.lockDeletions) deletions of the lock file, "
                    + (faultShim == nil
                        ? "no flock faults (no --fault-shim)"
                        : "\(disrupted.faultWindows) flock fault windows, \(disrupted.recoveries) recovered, slowest \(disrupted.slowestRecovery) after the fault cleared")
            )
        }

        SoakSummary(
            workers: workerReports, editor: editorReport, checker: checkerResult, notes: verification.notes,
            seconds: Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000, rssGrowthLimitKiB: rssGrowthLimitKiB
        ).print(failures: failures)
        if failures.isEmpty && !keepsDirectory {
            try? FileManager.default.removeItem(atPath: directory)
        } else {
            print("The soaked file and the reports are kept in \(directory)")
        }
        return failures.isEmpty ? 0 : 1
    }

    /// The watchdog: runs until every child has ended, killing any that stops
    /// moving or overstays, and sends `verify` once all have stopped writing.
    private func watch(_ children: [ChildProcess], checker: FileChecker, started: ContinuousClock.Instant) -> FileChecker.Result {
        let deadline = started + .seconds(seconds + grace)
        var checkerResult: FileChecker.Result?
        var nextReport = started + .seconds(10)
        while true {
            Thread.sleep(forTimeInterval: 0.25)
            for child in children { child.pollExit() }
            let now = ContinuousClock.now
            for child in children {
                let status = child.snapshot
                guard !status.phase.hasEnded, status.killedBecause == nil else { continue }
                if status.phase == .running && now - status.lastAdvance > .seconds(stallLimit) {
                    child.kill(
                        because: "its slowest thread finished no operation for \(format(stallLimit)) s (stuck at \(status.slowestThread)): a deadlock or a hang"
                    )
                } else if now > deadline {
                    child.kill(because: "still running \(format(grace)) s after the run should have ended (\(status.phase))")
                }
            }
            if checkerResult == nil && children.allSatisfy({ $0.snapshot.phase != .running }) {
                checkerResult = checker.stop()
                for child in children where child.snapshot.phase == .finishedWriting { child.send(ChildChannel.verify) }
            }
            if checkerResult != nil && children.allSatisfy({ $0.snapshot.phase.hasEnded }) { break }
            if now >= nextReport {
                nextReport = now + .seconds(seconds >= 120 ? 60 : 10)
                let elapsed = Double((now - started) / .milliseconds(100)) / 10
                let states = children.map { child in
                    let status = child.snapshot
                    return "\(child.name) \(status.operations) ops \(MemorySample.mebibytes(status.residentKiB))"
                }
                print("[\(format(elapsed)) s] " + states.joined(separator: ", "))
            }
        }
        return checkerResult ?? checker.stop()
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
