#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Identity of stored values, bit for bit: for checks that text written and
/// read back (by the JSON codec, the fuzz checks, their tests) comes back
/// unchanged. `package`, so tests and tools share it without a tool
/// depending on a test target.
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
}

extension [String: StoredValue] {
    /// Whether a member has `key` in the same UTF-8 (not only a canonically
    /// equivalent spelling) and a value identical to `value`.
    package func hasMember(_ key: String, identicalTo value: StoredValue) -> Bool {
        guard let index = index(forKey: key) else { return false }
        let member = self[index]
        return member.key.utf8.elementsEqual(key.utf8) && member.value.isIdentical(to: value)
    }
}
