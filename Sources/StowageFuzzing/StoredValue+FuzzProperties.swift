#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import Stowage

extension StoredValue {
    /// Whether `self` and `other` have the same cases all the way down, the
    /// same bits in every double and date (any NaN matching any other), and
    /// the same UTF-8 in every string and key.
    ///
    /// Stricter than `==`, which treats `.signedInteger(5)` and
    /// `.unsignedInteger(5)` as equal and compares strings by canonical
    /// equivalence: text written and read back must come back byte for byte.
    package func isIdentical(to other: StoredValue) -> Bool {
        switch (self, other) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.signedInteger(a), .signedInteger(b)): a == b
        case let (.unsignedInteger(a), .unsignedInteger(b)): a == b
        case let (.double(a), .double(b)): a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): a.utf8.elementsEqual(b.utf8)
        case let (.data(a), .data(b)): a == b
        case let (.date(a), .date(b)):
            a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
                || (a.timeIntervalSinceReferenceDate.isNaN && b.timeIntervalSinceReferenceDate.isNaN)
        case let (.array(a), .array(b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        case let (.dictionary(a), .dictionary(b)):
            a.count == b.count && a.allSatisfy { key, value in b.hasMember(key, identicalTo: value) }
        default: false
        }
    }

    /// Whether a double anywhere in the tree, or a date's time, is NaN, which
    /// makes a decoded value unequal to itself.
    var containsNaN: Bool {
        switch self {
        case .double(let value): value.isNaN
        case .date(let value): value.timeIntervalSinceReferenceDate.isNaN
        case .array(let elements): elements.contains { $0.containsNaN }
        case .dictionary(let members): members.values.contains { $0.containsNaN }
        default: false
        }
    }

    /// Whether an array or dictionary holds a NaN or infinite double at any
    /// depth, which JSON can not represent.
    var containsNonFiniteDoubleInContainer: Bool {
        switch self {
        case .array(let elements): elements.contains { $0.containsNonFiniteDouble }
        case .dictionary(let members): members.values.contains { $0.containsNonFiniteDouble }
        default: false
        }
    }

    private var containsNonFiniteDouble: Bool {
        switch self {
        case .double(let value): !value.isFinite
        default: containsNonFiniteDoubleInContainer
        }
    }

    /// How many arrays and dictionaries are nested at the deepest point; a scalar has 0.
    var nestingDepth: Int {
        switch self {
        case .array(let elements): 1 + (elements.map(\.nestingDepth).max() ?? 0)
        case .dictionary(let members): 1 + (members.values.map(\.nestingDepth).max() ?? 0)
        default: 0
        }
    }
}

extension [String: StoredValue] {
    /// Whether a member has `key` in the same UTF-8 (not only a canonically
    /// equivalent spelling) and a value identical to `value`.
    func hasMember(_ key: String, identicalTo value: StoredValue) -> Bool {
        guard let index = index(forKey: key) else { return false }
        let member = self[index]
        return member.key.utf8.elementsEqual(key.utf8) && member.value.isIdentical(to: value)
    }
}
