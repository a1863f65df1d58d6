/// The array an unkeyed encoding container fills.
///
/// A reference type because a container is a value that Codable code may copy,
/// and every copy must append to the same array.
final class EncodingArrayBuffer {
    /// Finished elements, with `.null` holding the place of pending ones.
    private var elements: [StoredValue] = []
    /// Elements whose contents are still being written; rare, so kept apart.
    private var pendingElements: [(index: Int, value: PendingStoredValue)] = []

    var count: Int { elements.count }

    func append(_ value: StoredValue) {
        elements.append(value)
    }

    func appendPending(_ value: PendingStoredValue) {
        pendingElements.append((elements.count, value))
        elements.append(.null)
    }

    func resolved() throws -> [StoredValue] {
        if pendingElements.isEmpty { return elements }
        var result = elements
        for pending in pendingElements {
            result[pending.index] = try pending.value.resolved()
        }
        return result
    }
}
