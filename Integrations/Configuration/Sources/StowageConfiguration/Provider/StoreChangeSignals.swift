import Stowage

/// Runs `body` with a stream that has one element now and one after each
/// change to `store` that `affects` accepts (give `.allKeys` to it too: it
/// may concern any key), coalesced: while the consumer is busy, any number
/// of changes wait as one. Observation stops when `body` returns.
nonisolated(nonsending) func withChanges<Store: UnderlyingStorage, Return: ~Copyable>(
    of store: Store,
    where affects: @escaping @Sendable (StoreChange) -> Bool,
    _ body: nonisolated(nonsending) (AsyncStream<Void>) async throws -> Return
) async throws -> Return {
    let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    // Observing before the first signal, so that no change falls between the first read and the observation.
    let token = store.observe { change in
        if affects(change) { continuation.yield() }
    }
    continuation.yield()
    defer {
        token.cancel()
        continuation.finish()
    }
    return try await body(signals)
}

/// Reads the current state at each signal, lazily (the read happens when the
/// consumer asks, so it sees the latest value), and skips a read that
/// `isUnchanged` calls the same as the last one delivered.
struct ChangeReads<Element: Sendable>: AsyncSequence, Sendable {
    typealias Failure = Never

    let signals: AsyncStream<Void>
    let isUnchanged: @Sendable (Element, Element) -> Bool
    let read: @Sendable () -> Element

    init(signals: AsyncStream<Void>, isUnchanged: @escaping @Sendable (Element, Element) -> Bool, read: @escaping @Sendable () -> Element) {
        self.signals = signals
        self.isUnchanged = isUnchanged
        self.read = read
    }

    struct Iterator: AsyncIteratorProtocol {
        var signals: AsyncStream<Void>.Iterator
        let isUnchanged: @Sendable (Element, Element) -> Bool
        let read: @Sendable () -> Element
        var last: Element?

        mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            while await signals.next(isolation: actor) != nil {
                let element = read()
                if let last, isUnchanged(last, element) { continue }
                last = element
                return element
            }
            return nil
        }

        mutating func next() async -> Element? {
            await next(isolation: nil)
        }
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(signals: signals.makeAsyncIterator(), isUnchanged: isUnchanged, read: read)
    }
}
