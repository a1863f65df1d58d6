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
        canonicalOrder(lhs, rhs) < 0
    }

    /// Negative when `lhs` comes first, zero when neither does, positive when `rhs` does.
    ///
    /// A three-way comparison, so that arrays and dictionaries compare each
    /// pair of members once: `lexicographicallyPrecedes(_:by:)` asks its
    /// predicate both ways round for members that are not ordered, which made
    /// comparing values nested `n` levels deep cost `2^n` calls.
    private static func canonicalOrder(_ lhs: StoredValue, _ rhs: StoredValue) -> Int {
        switch (lhs, rhs) {
        case let (.bool(a), .bool(b)): return order(a ? 1 : 0, b ? 1 : 0)
        case let (.signedInteger(a), .signedInteger(b)): return order(a, b)
        case let (.unsignedInteger(a), .unsignedInteger(b)): return order(a, b)
        // Compared as numbers: a store may hand back a small value in either case.
        case let (.signedInteger(a), .unsignedInteger(b)): return a < 0 ? -1 : order(UInt64(a), b)
        case let (.unsignedInteger(a), .signedInteger(b)): return b < 0 ? 1 : order(a, UInt64(b))
        case let (.double(a), .double(b)): return order(a.bitPattern, b.bitPattern)
        case let (.string(a), .string(b)): return order(a.utf8, b.utf8)
        case let (.data(a), .data(b)): return order(a, b)
        // A date whose time is NaN compares with nothing; it goes last, so the order stays total.
        case let (.date(a), .date(b)):
            let (first, second) = (a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
            if first.isNaN || second.isNaN { return order(first.isNaN ? 1 : 0, second.isNaN ? 1 : 0) }
            return order(first, second)
        case let (.array(a), .array(b)):
            for (first, second) in zip(a, b) {
                let result = canonicalOrder(first, second)
                if result != 0 { return result }
            }
            return order(a.count, b.count)
        case let (.dictionary(a), .dictionary(b)):
            let left = a.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            let right = b.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (first, second) in zip(left, right) {
                // Canonically equivalent keys are the same key, as they are to a dictionary.
                let result = first.key == second.key ? canonicalOrder(first.value, second.value) : order(first.key.utf8, second.key.utf8)
                if result != 0 { return result }
            }
            return order(left.count, right.count)
        default: return order(lhs.caseRank, rhs.caseRank)
        }
    }

    private static func order<Value: Comparable>(_ lhs: Value, _ rhs: Value) -> Int {
        lhs < rhs ? -1 : lhs == rhs ? 0 : 1
    }

    /// The lexicographic order of two byte sequences.
    private static func order<Bytes: Sequence<UInt8>>(_ lhs: Bytes, _ rhs: Bytes) -> Int {
        var left = lhs.makeIterator()
        var right = rhs.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (a?, b?) where a != b: return a < b ? -1 : 1
            default: continue
            }
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
