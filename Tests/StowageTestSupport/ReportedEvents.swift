public import Stowage
import Foundation
import StowageLocking

/// Collects the events that reach `StowageReport.handler`, as ``ReportedErrors``
/// does for errors, whose handler hands them here: installed once for the
/// whole test process, so each test filters by a path or key of its own.
public enum ReportedEvents {
    private static let collected = Locked<[StoreEvent]>([])
    /// What tests asked to run inside the handler, for events that mention a text of theirs.
    private static let actions = Locked<[(text: String, action: @Sendable (StoreEvent) -> Void)]>([])
    private static let arrival = NSCondition()
    static func receive(_ event: StoreEvent) {
        for (text, action) in actions.withLock({ $0 }) where event.storeName.contains(text) || event.message.contains(text) {
            action(event)
        }
        collected.withLock { $0.append(event) }
        arrival.lock()
        arrival.broadcast()
        arrival.unlock()
    }

    public static func install() { ReportedErrors.install() }

    /// Runs `action` inside the handler, as a program's handler would, for
    /// each event whose store's name or message mentions `text`.
    public static func whenReported(mentioning text: String, run action: @escaping @Sendable (StoreEvent) -> Void) {
        actions.withLock { $0.append((text, action)) }
    }

    /// The events of `kind` whose store's name or message mentions `text`.
    public static func of(_ kind: StoreEvent.Kind, mentioning text: String) -> [StoreEvent] {
        collected.withLock { $0.filter { $0.kind == kind && ($0.storeName.contains(text) || $0.message.contains(text)) } }
    }

    /// Waits until an event of `kind` mentions `text`, at most `seconds`.
    /// - Returns: the first such event, or `nil` when none came in time.
    public static func wait(for kind: StoreEvent.Kind, mentioning text: String, seconds: Double = 20) -> StoreEvent? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        arrival.lock()
        defer { arrival.unlock() }
        while of(kind, mentioning: text).isEmpty {
            guard arrival.wait(until: deadline) else { break }
        }
        return of(kind, mentioning: text).first
    }
}
