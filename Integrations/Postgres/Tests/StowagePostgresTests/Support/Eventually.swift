/// The first element of `stream` that `matches`, waiting for it up to
/// `timeout`: a test that waits for something to happen fails, rather than
/// hangs, when it never does.
func firstElement<Element: Sendable>(
    of stream: AsyncStream<Element>, within timeout: Duration = .seconds(30), where matches: @escaping @Sendable (Element) -> Bool
) async throws -> Element {
    try await withThrowingTaskGroup(of: Element?.self) { group in
        group.addTask {
            for await element in stream where matches(element) { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let found = try await group.next() ?? nil else { throw NothingCame(timeout: timeout) }
        return found
    }
}

struct NothingCame: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "nothing expected came within \(timeout)" }
}
