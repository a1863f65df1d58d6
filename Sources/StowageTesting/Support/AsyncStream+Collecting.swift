extension AsyncStream where Element: Sendable {
    /// How a collection of elements ended.
    enum CollectionEnd: Sendable, Equatable {
        /// `isComplete` accepted the elements.
        case complete
        /// The stream finished first.
        case ended
        /// The timeout passed first; cancelling the iteration ended the stream.
        case timedOut
    }

    /// Elements collected from a stream, and how the collection ended.
    struct Collected: Sendable {
        var elements: [Element]
        var end: CollectionEnd
    }

    /// Iterates until `isComplete` accepts the elements seen so far, the
    /// stream ends, or `timeout` passes, whichever comes first.
    ///
    /// The timeout races the iteration in a task group, so a missing element
    /// costs at most `timeout` and never hangs the suite. After a complete
    /// collection the stream stays open, and a later call goes on from the
    /// next element; after a timeout it is over.
    func collect(within timeout: Duration, until isComplete: @escaping @Sendable ([Element]) -> Bool) async -> Collected {
        await withTaskGroup(of: Collected?.self) { group in
            group.addTask {
                var elements: [Element] = []
                if isComplete(elements) { return Collected(elements: elements, end: .complete) }
                for await element in self {
                    elements.append(element)
                    if isComplete(elements) { return Collected(elements: elements, end: .complete) }
                }
                return Collected(elements: elements, end: Task.isCancelled ? .timedOut : .ended)
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            while let outcome = await group.next() {
                // The timer finishing first cancels the iteration, which then returns what it saw.
                group.cancelAll()
                if let outcome { return outcome }
            }
            return Collected(elements: [], end: .timedOut)
        }
    }

    /// Collects exactly `count` elements, or fewer when the stream ends or `timeout` passes.
    func collect(_ count: Int, within timeout: Duration) async -> Collected {
        await collect(within: timeout) { $0.count >= count }
    }
}
