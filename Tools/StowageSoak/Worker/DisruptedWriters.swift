#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StowageJSONFile

/// Short-lived writers the coordinator starts to disrupt the store: see `Disruptions`.
enum DisruptedWriters {
    /// `exiter --file F --key K --value V --write-delay-ms D --exit-after-us U`:
    /// sets one value with coalesced writes, waits, and calls `exit()` without
    /// flushing, so the exit lands before, during or after the background write.
    static func exiter(_ options: SoakOptions) -> Int32 {
        let store = JSONFileStore(
            url: URL(filePath: options.required("file")),
            options: .init(writeDelay: .milliseconds(options.integer("write-delay-ms", default: 5)), changeDetection: .none))
        do {
            try store.set(options.integer("value", default: 0), forKey: options.required("key"))
        } catch {
            SoakOptions.fail("the exiter could not set its value: \(error)")
        }
        usleep(UInt32(options.integer("exit-after-us", default: 0)))
        exit(0)
    }

    /// `faulted --file F`: sets `faulty.value` to each number read from
    /// standard input with a plain setter, never flushing; the coordinator
    /// runs it under the fault shim and checks that each value reaches the file.
    static func faulted(_ options: SoakOptions) -> Int32 {
        let store = JSONFileStore(url: URL(filePath: options.required("file")), options: .init(writeDelay: .milliseconds(20), changeDetection: .none))
        // Failed background writes are reported and retried; the coordinator judges by the file.
        StowageReport.handler = { report in
            if case .event = report { FileHandle.standardError.write(Data("Stowage: \(report)\n".utf8)) }
        }
        while let line = readLine() {
            guard let value = Int(line) else { continue }
            do {
                try store.set(value, forKey: SoakKeys.faultyValue)
            } catch {
                SoakOptions.fail("the faulted writer could not set \(value): \(error)")
            }
        }
        return 0
    }
}
