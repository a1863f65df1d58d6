#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Stowage
import StowageLocking

/// What the coordinator does to the file while the workers run, and checks:
///
/// - **Exits timed around writes.** An `exiter` process sets `exit.<n>` and
///   calls `exit()` from 0 to 30 ms later, with a write delay of 1 to 20 ms,
///   so exits land before, during and after its background write; the value
///   must be in the file once it has exited.
/// - **The lock file deleted under the writers.** `<file>.lock` is unlinked
///   between exits, every 50 to 250 ms; the exact counters are the check.
/// - **A lock step that fails for a while.** With `--fault-shim PATH`, one
///   `faulted` writer runs under the `LD_PRELOAD` shim (Tools/FaultShim):
///   while a control file exists its `flock` fails with EIO. Every few
///   seconds the coordinator opens a window of 1 to 2 s, has the writer set a
///   new value, closes the window, and waits (40 s at most, past the longest
///   retry gap) for the value to reach the file with no call from the writer.
final class Disruptions: Sendable {
    struct Result: Sendable {
        var exits = 0
        var lostExits: [String] = []
        var lockDeletions = 0
        var faultWindows = 0
        var recoveries = 0
        var slowestRecovery: Duration = .zero
        var failures: [String] = []
    }

    private let file: String
    private let executable: String
    private let environment: [String: String]
    private let faultShim: String?
    private let until: ContinuousClock.Instant
    private let result = Locked(Result())

    init(file: String, executable: String, environment: [String: String], faultShim: String?, until: ContinuousClock.Instant) {
        self.file = file
        self.executable = executable
        self.environment = environment
        self.faultShim = faultShim
        self.until = until
    }

    /// Runs the disruptions until the end of the run, then returns what they found.
    func run() -> Result {
        var faulted = faultShim.flatMap { startFaultedWriter(shim: $0) }
        var nextFaultWindow = ContinuousClock.now + .seconds(3)
        var generator = SystemRandomNumberGenerator()
        var exitIndex = 0
        while ContinuousClock.now < until {
            runExiter(index: exitIndex, using: &generator)
            exitIndex += 1
            usleep(UInt32.random(in: 50_000...250_000, using: &generator))
            if unlink(file + ".lock") == 0 { result.withLock { $0.lockDeletions += 1 } }
            // No window opens in the last 10 s, so the run's end waits on no recovery.
            if let writer = faulted, ContinuousClock.now >= nextFaultWindow, until - ContinuousClock.now > .seconds(10) {
                runFaultWindow(writer, value: exitIndex, using: &generator)
                nextFaultWindow = ContinuousClock.now + .seconds(Int.random(in: 2...5, using: &generator))
            }
        }
        if let writer = faulted {
            try? writer.input.fileHandleForWriting.close()
            writer.process.waitUntilExit()
            if writer.process.terminationStatus != 0 {
                result.withLock { $0.failures.append("the faulted writer ended with status \(writer.process.terminationStatus)") }
            }
            faulted = nil
        }
        return result.withLock { $0 }
    }

    private func runExiter(index: Int, using generator: inout some RandomNumberGenerator) {
        let writeDelay = [1, 2, 5, 10, 20][index % 5]
        let exitAfter = Int.random(in: 0...30_000, using: &generator)
        let process = Process()
        process.executableURL = URL(filePath: executable)
        process.arguments = [
            "exiter", "--file", file, "--key", SoakKeys.exit(index), "--value", "\(index)",
            "--write-delay-ms", "\(writeDelay)", "--exit-after-us", "\(exitAfter)",
        ]
        do {
            try process.run()
        } catch {
            result.withLock { $0.failures.append("could not start an exiter: \(error)") }
            return
        }
        process.waitUntilExit()
        let found = RawFile.read(file).flatMap { try? RawFile.foundationObject($0) }.flatMap { RawFile.integer($0[SoakKeys.exit(index)]) }
        result.withLock { result in
            result.exits += 1
            if process.terminationStatus != 0 {
                result.failures.append("exiter \(index) ended with status \(process.terminationStatus)")
            } else if found != index {
                result.lostExits.append("exit.\(index) (write delay \(writeDelay) ms, exit \(exitAfter) µs after the set)")
            }
        }
    }

    private struct FaultedWriter {
        let process: Process
        let input: Pipe
        let control: String
    }

    private func startFaultedWriter(shim: String) -> FaultedWriter? {
        let control = file + ".fault-flock"
        let process = Process()
        process.executableURL = URL(filePath: executable)
        process.arguments = ["faulted", "--file", file]
        process.environment = environment.merging(["LD_PRELOAD": shim, "STOWAGE_FAULT_FLOCK_WHILE": control]) { $1 }
        let input = Pipe()
        process.standardInput = input
        do {
            try process.run()
        } catch {
            result.withLock { $0.failures.append("could not start the faulted writer: \(error)") }
            return nil
        }
        return FaultedWriter(process: process, input: input, control: control)
    }

    private func runFaultWindow(_ writer: FaultedWriter, value: Int, using generator: inout some RandomNumberGenerator) {
        _ = FileManager.default.createFile(atPath: writer.control, contents: nil)
        writer.input.fileHandleForWriting.write(Data("\(value)\n".utf8))
        usleep(UInt32.random(in: 1_000_000...2_000_000, using: &generator))
        unlink(writer.control)
        let closed = ContinuousClock.now
        let deadline = closed + .seconds(40)
        while ContinuousClock.now < deadline {
            let found = RawFile.read(file).flatMap { try? RawFile.foundationObject($0) }.flatMap { RawFile.integer($0[SoakKeys.faultyValue]) }
            if found == value {
                result.withLock { result in
                    result.faultWindows += 1
                    result.recoveries += 1
                    result.slowestRecovery = max(result.slowestRecovery, ContinuousClock.now - closed)
                }
                return
            }
            usleep(20_000)  // polls the file against a hard deadline
        }
        result.withLock { result in
            result.faultWindows += 1
            result.failures.append("the faulted writer's value \(value) did not reach the file within 40 s of the fault clearing")
        }
    }
}
