import StowageJSONFile

extension StoredValue {
    /// Whether `self` and `other` have the same cases all the way down and
    /// the same bits in every double.
    ///
    /// `==` treats `.signedInteger(5)` and `.unsignedInteger(5)` as equal and
    /// `-0.0` as `0.0`; the parser's and serializer's tests have to tell them apart.
    func isIdentical(to other: StoredValue) -> Bool {
        switch (self, other) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.signedInteger(a), .signedInteger(b)): a == b
        case let (.unsignedInteger(a), .unsignedInteger(b)): a == b
        case let (.double(a), .double(b)): a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): a.utf8.elementsEqual(b.utf8)
        case let (.data(a), .data(b)): a == b
        case let (.date(a), .date(b)): a == b
        case let (.array(a), .array(b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        case let (.dictionary(a), .dictionary(b)):
            a.count == b.count && a.allSatisfy { key, value in b[key].map { value.isIdentical(to: $0) } ?? false }
        default: false
        }
    }
}
