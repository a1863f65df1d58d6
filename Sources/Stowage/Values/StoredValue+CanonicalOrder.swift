#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A total order over stored values, so that unordered collections (a `Set`)
/// get one stored form: equal sets then compare equal, observers do not fire
/// for an unchanged set, and files that keep them do not churn.
extension StoredValue {
    package static func canonicallyPrecedes(_ lhs: StoredValue, _ rhs: StoredValue) -> Bool {
        switch (lhs, rhs) {
        case let (.bool(a), .bool(b)): return !a && b
        case let (.signedInteger(a), .signedInteger(b)): return a < b
        case let (.unsignedInteger(a), .unsignedInteger(b)): return a < b
        // Compared as numbers: a store may hand back a small value in either case.
        case let (.signedInteger(a), .unsignedInteger(b)): return a < 0 || UInt64(a) < b
        case let (.unsignedInteger(a), .signedInteger(b)): return b >= 0 && a < UInt64(b)
        case let (.double(a), .double(b)): return a.bitPattern < b.bitPattern
        case let (.string(a), .string(b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
        case let (.data(a), .data(b)): return a.lexicographicallyPrecedes(b)
        case let (.date(a), .date(b)): return a < b
        case let (.array(a), .array(b)): return a.lexicographicallyPrecedes(b, by: canonicallyPrecedes)
        case let (.dictionary(a), .dictionary(b)):
            let left = a.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            let right = b.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            return left.lexicographicallyPrecedes(right) { first, second in
                first.key != second.key
                    ? first.key.utf8.lexicographicallyPrecedes(second.key.utf8)
                    : canonicallyPrecedes(first.value, second.value)
            }
        default: return lhs.caseRank < rhs.caseRank
        }
    }

    private var caseRank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .signedInteger, .unsignedInteger: 2
        case .double: 3
        case .string: 4
        case .data: 5
        case .date: 6
        case .array: 7
        case .dictionary: 8
        }
    }
}
