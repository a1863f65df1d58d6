#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import Testing

/// The order in which sets and dictionaries without string keys are stored,
/// so one value is stored the same way every time. Found by the
/// `storable-decoding` fuzz target (inputs under `Tools/Fuzz/Regressions`).
struct CanonicalOrderTests {
    /// The canonical order asked `lexicographicallyPrecedes(_:by:)`, which calls
    /// its predicate both ways round, to compare nested arrays: comparing two
    /// values nested 30 levels deep took 2^30 calls, so storing such a set hung.
    @Test(.timeLimit(.minutes(1)))
    func setsOfDeeplyNestedValuesAreStoredWithoutDelay() throws {
        func nested(_ depth: Int, around leaf: StoredValue) -> StoredValue {
            (0..<depth).reduce(leaf) { value, _ in .array([value]) }
        }
        let set: Set<StoredValue> = [nested(200, around: 1), nested(200, around: 2), nested(199, around: ["k": 1])]
        guard case .array(let elements) = try set.storedValue() else {
            Issue.record("a set is stored as an array")
            return
        }
        // Arrays come before dictionaries, so the shallower value, which ends in one, goes last.
        #expect(elements == [nested(200, around: 1), nested(200, around: 2), nested(199, around: ["k": 1])])
    }

    struct Tagged: Codable, Storable, Equatable {
        var tags: Set<String>
        var countsByID: [UUID: Int]
    }

    /// `Set` and a dictionary keyed by neither `String` nor `Int` encode their
    /// members in iteration order, which differs between equal values, so the
    /// stored form of one `Codable` value changed from one write to the next.
    @Test func setsAndPairedDictionariesInCodableValuesAreStoredInCanonicalOrder() throws {
        let names = (0..<64).map { "tag\($0)" }
        let ids = (10..<26).compactMap { UUID(uuidString: "00000000-0000-0000-0000-0000000000\($0)") }
        try #require(ids.count == 16)
        var grown = Set<String>(minimumCapacity: 1024)
        for name in names.reversed() { grown.insert(name) }
        let first = Tagged(tags: Set(names), countsByID: Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) }))
        var second = Tagged(tags: grown, countsByID: [:])
        for (index, id) in ids.enumerated().reversed() { second.countsByID[id] = index }
        #expect(first == second)

        let stored = try first.storedValue()
        #expect(try second.storedValue() == stored)
        guard case .dictionary(let members) = stored, case .array(let tags)? = members["tags"], case .array(let pairs)? = members["countsByID"]
        else {
            Issue.record("the value is stored as a dictionary of arrays")
            return
        }
        #expect(tags == names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { .string($0) })
        #expect(pairs.count == 32)
        #expect(pairs.first == .string(ids[0].uuidString))
        #expect(try Tagged(storedValue: stored) == first)
    }
}
