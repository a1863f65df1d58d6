/// The first element of `stream` that satisfies `predicate`, waiting at
/// most `timeout`: a push path that broke fails the run with a message
/// instead of hanging it, and a loaded CI machine has ample time.
///
/// The stream may be waited on again afterwards (it keeps what comes in
/// meanwhile); the element is the event, and the caller stamps the time.
/// - Throws: `BenchmarkFailure` after `timeout`, or when the stream ends
///   first; `CancellationError` when the calling task is cancelled.
func firstElement<Element: Sendable>(
    of stream: AsyncStream<Element>, within timeout: Duration, waitingFor what: String,
    where predicate: @escaping @Sendable (Element) -> Bool = { _ in true }
) async throws -> Element {
    try await withThrowingTaskGroup(of: Element?.self) { group in
        group.addTask {
            for await element in stream where predicate(element) { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw BenchmarkFailure("waited \(timeout) for \(what)")
        }
        defer { group.cancelAll() }
        guard let found = try await group.next() ?? nil else {
            try Task.checkCancellation()
            throw BenchmarkFailure("the stream ended while waiting for \(what)")
        }
        return found
    }
}
