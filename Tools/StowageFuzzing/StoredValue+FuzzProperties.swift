#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage

extension StoredValue {
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
