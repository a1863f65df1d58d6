/// `Set` and `Dictionary` encode their contents in iteration order, which
/// differs between equal values: it depends on each instance's history and on
/// the process's hash seed. The encoder sorts what they put in an unkeyed
/// container into the canonical order, so that equal values get one stored
/// form, as `Set`'s own `Storable` conformance does: equal values then
/// compare equal, observers do not fire for an unchanged value, and files
/// that keep them do not churn.
///
/// A dictionary keyed by `String` or `Int` encodes a keyed container, which
/// has no order to fix. One with other keys (a `UUID`, say) encodes its keys
/// and values alternately, and is sorted in pairs, by key.
protocol UnorderedCollectionEncoding {
    /// How many consecutive elements of the unkeyed container make up one
    /// member: 1 for a set's element, 2 for a dictionary's key and value.
    static var encodedMemberLength: Int { get }
}

extension Set: UnorderedCollectionEncoding {
    static var encodedMemberLength: Int { 1 }
}

extension Dictionary: UnorderedCollectionEncoding {
    static var encodedMemberLength: Int { 2 }
}

extension StoredValue {
    /// `elements`, read as members of `memberLength` elements each, sorted by
    /// each member's first element; left as they are when they do not divide
    /// into whole members, which no standard type encodes.
    static func canonicallyOrdered(_ elements: [StoredValue], memberLength: Int) -> [StoredValue] {
        guard memberLength > 1 else { return elements.sorted(by: canonicallyPrecedes) }
        guard elements.count.isMultiple(of: memberLength) else { return elements }
        let members = stride(from: 0, to: elements.count, by: memberLength).map { elements[$0..<$0 + memberLength] }
        return members.sorted { canonicallyPrecedes($0[$0.startIndex], $1[$1.startIndex]) }.flatMap { $0 }
    }
}
