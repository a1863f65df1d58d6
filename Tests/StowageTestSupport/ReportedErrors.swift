public import Stowage
import Foundation
import StowageLocking

/// Collects the errors that reach `StowageReport.handler`. Installed once for
/// the whole test process (the hook is process-wide and tests run in
/// parallel), so each test filters by keys of its own. The same handler hands
/// events to ``ReportedEvents``.
public enum ReportedErrors {
    private static let collected = Locked<[StorageError]>([])
    /// How deep the stack was when the handler got each error, by key.
    private static let depths = Locked<[String: Int]>([:])
    /// Broadcast on every report, for ``waitForReport(mentioning:seconds:)``.
    private static let arrival = NSCondition()
    private static let installation: Void = {
        StowageReport.handler = { report in
            guard case .error(let error) = report else {
                if case .event(let event) = report { ReportedEvents.receive(event) }
                return
            }
            collected.withLock { $0.append(error) }
            if let key = error.key {
                let depth = Thread.callStackSymbols.count
                depths.withLock { $0[key] = depth }
            }
            arrival.lock()
            arrival.broadcast()
            arrival.unlock()
        }
    }()

    /// Waits until a report mentions `text`, at most `seconds`.
    /// - Returns: whether one did.
    public static func waitForReport(mentioning text: String, seconds: Double = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        arrival.lock()
        defer { arrival.unlock() }
        while mentioning(text).isEmpty {
            guard arrival.wait(until: deadline) else { return !mentioning(text).isEmpty }
        }
        return true
    }

    public static func install() { installation }

    /// How many frames deep the handler ran when it got the last error about `key`.
    public static func handlerDepth(forKey key: String) -> Int? {
        depths.withLock { $0[key] }
    }

    public static func forKey(_ key: String) -> [StorageError] {
        collected.withLock { $0.filter { $0.key == key } }
    }

    /// The reports whose message mentions `text`, a file's path say, for errors that name no key.
    public static func mentioning(_ text: String) -> [StorageError] {
        collected.withLock { $0.filter { $0.message.contains(text) } }
    }
}

/// A key no other test uses, so tests can share stores and the error hook.
public func uniqueKey(_ base: String = "key", function: String = #function) -> String {
    "\(base).\(function.prefix { $0 != "(" }).\(UInt64.random(in: 0...UInt64.max))"
}

/// Values handed to a callback, collected in order across threads.
public final class Collected<Element: Sendable>: Sendable {
    private let elements = Locked<[Element]>([])

    public init() {}

    public func append(_ element: Element) { elements.withLock { $0.append(element) } }

    public var all: [Element] { elements.withLock { $0 } }
}
