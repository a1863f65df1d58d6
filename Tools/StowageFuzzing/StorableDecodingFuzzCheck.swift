#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import StowageJSON

/// Every `Storable` type, and `Codable` types through `StoredValueDecoder`,
/// decoding a `StoredValue` tree made from arbitrary bytes (see `StoredValueNotation`).
///
/// Properties checked, beyond "no tree traps":
///
/// - decoding either succeeds or throws a `StorageError`;
/// - a decoded value can be stored again, and its stored form decodes to an
///   equal value whose stored form is identical (for values without NaN,
///   which equals nothing);
/// - a stored form written as JSON and read back, as the JSON file store
///   does, decodes again, and writing that value gives the same JSON bytes:
///   a file does not change from one write to the next;
/// - a tree equals itself, and equals and hashes like itself with its
///   integers in the other case and other NaN bits; the canonical order puts
///   no tree before one equal to it.
package struct StorableDecodingFuzzCheck: FuzzCheck {
    package static let name = "storable-decoding"

    package init() {}

    package func check(_ input: [UInt8]) throws(PropertyViolation) {
        let tree = StoredValueNotation.value(of: input)
        try checkEqualityAndHashing(tree)

        try checkStorable(Bool.self, tree)
        try checkStorable(String.self, tree)
        try checkStorable(Int.self, tree)
        try checkStorable(Int8.self, tree)
        try checkStorable(Int16.self, tree)
        try checkStorable(Int32.self, tree)
        try checkStorable(Int64.self, tree)
        try checkStorable(Int128.self, tree)
        try checkStorable(UInt.self, tree)
        try checkStorable(UInt8.self, tree)
        try checkStorable(UInt16.self, tree)
        try checkStorable(UInt32.self, tree)
        try checkStorable(UInt64.self, tree)
        try checkStorable(UInt128.self, tree)
        try checkStorable(Double.self, tree)
        try checkStorable(Float.self, tree)
        try checkStorable(Data.self, tree)
        try checkStorable(Date.self, tree)
        try checkStorable(URL.self, tree)
        try checkStorable(UUID.self, tree)
        try checkStorable(StoredValue.self, tree)
        try checkStorable(Int?.self, tree)
        try checkStorable(String?.self, tree)
        try checkStorable(Date??.self, tree)
        try checkStorable([Int].self, tree)
        try checkStorable([String?].self, tree)
        try checkStorable([Double].self, tree)
        try checkStorable([[UInt8]].self, tree)
        try checkStorable([Data].self, tree)
        try checkStorable([URL].self, tree)
        try checkStorable(Set<String>.self, tree)
        try checkStorable(Set<Int>.self, tree)
        try checkStorable(Set<Double>.self, tree)
        try checkStorable(Set<Date>.self, tree, hasStableJSONText: false)
        try checkStorable(Set<StoredValue>.self, tree, hasStableJSONText: false)
        try checkStorable([String: Int].self, tree)
        try checkStorable([String: [String: Bool]].self, tree)
        try checkStorable([String: StoredValue].self, tree)
        try checkStorable([String: UUID?].self, tree)
        try checkStorable(FuzzTheme.self, tree)
        try checkStorable(FuzzLevel.self, tree)
        try checkStorable(FuzzSerialNumber.self, tree)
        try checkStorable([FuzzTheme].self, tree)
        try checkStorable(Set<FuzzSerialNumber>.self, tree)
        try checkStorable(FuzzShape.self, tree)
        try checkStorable(FuzzProfile.self, tree)
        try checkStorable([String: FuzzProfile].self, tree)
        try checkStorable(FuzzProfile?.self, tree)

        try checkDecodable(StoredValue.self, tree)
        try checkDecodable([Int: String].self, tree)
        try checkDecodable([UUID: Date].self, tree)
        try checkDecodable(ClosedRange<Int>.self, tree)
        try checkDecodable(Range<Double>.self, tree)
        try checkDecodable(Decimal.self, tree)
        try checkDecodable([Int128].self, tree)
        try checkDecodable([Float?].self, tree)
        try checkDecodable(FuzzProfile.self, tree)
        try checkDecodable([FuzzShape].self, tree)
    }

    /// Decodes `tree` as `Value` through `Storable`, and checks what a decoded value promises.
    ///
    /// - Parameter hasStableJSONText: false for sets whose elements JSON
    ///   changes: dates lose what is below a millisecond, and to a
    ///   `StoredValue` data and dates come back as strings, so elements may
    ///   merge or sort in another order the first time they are read back.
    private func checkStorable<Value: Storable & Equatable>(
        _ type: Value.Type, _ tree: StoredValue, hasStableJSONText: Bool = true
    ) throws(PropertyViolation) {
        try checkRoundTrips(
            of: Value.self, from: tree, hasStableJSONText: hasStableJSONText,
            decode: { try Value(storedValue: $0) },
            encode: { try $0.storedValue() }
        )
    }

    /// Decodes `tree` as `Value` through `StoredValueDecoder`, and checks the same.
    private func checkDecodable<Value: Codable & Equatable>(_ type: Value.Type, _ tree: StoredValue) throws(PropertyViolation) {
        try checkRoundTrips(
            of: Value.self, from: tree, hasStableJSONText: true,
            decode: { try StoredValueDecoder().decode(Value.self, from: $0) },
            encode: { try StoredValueEncoder().encode($0) }
        )
    }

    private func checkRoundTrips<Value: Equatable>(
        of type: Value.Type,
        from tree: StoredValue,
        hasStableJSONText: Bool,
        decode: (StoredValue) throws -> Value,
        encode: (Value) throws -> StoredValue
    ) throws(PropertyViolation) {
        let value: Value
        do {
            value = try decode(tree)
        } catch {
            guard error is StorageError else { throw PropertyViolation("decoding \(Value.self) threw \(Swift.type(of: error)), not StorageError: \(error)") }
            return
        }
        let stored = try attempt("a \(Value.self) decoded from a tree can not be stored again") { try encode(value) }
        let again = try attempt("the stored form of a decoded \(Value.self) does not decode") { try decode(stored) }
        let storedAgain = try attempt("a \(Value.self) decoded from its stored form can not be stored again") { try encode(again) }
        guard storedAgain.isIdentical(to: stored) else {
            throw PropertyViolation("the stored form of a \(Value.self) changes when it is decoded and stored again")
        }
        guard stored.containsNaN || again == value else {
            throw PropertyViolation("a \(Value.self) decoded from its own stored form is not equal to it")
        }

        // The JSON file store's cycle: write the stored form, read it back, decode it, write it again.
        guard let text = try? JSONSerializer(formatting: .compact).serialize(stored) else { return }
        let parsed = try attempt("the JSON text of a \(Value.self)'s stored form does not parse") { try JSONParser().parse(text) }
        let reread = try attempt("a \(Value.self) written as JSON does not decode from the text read back") { try decode(parsed) }
        let rewritten = try attempt("a \(Value.self) read back from JSON can not be written again") {
            try JSONSerializer(formatting: .compact).serialize(try encode(reread))
        }
        guard rewritten == text || !hasStableJSONText else {
            throw PropertyViolation(
                "a \(Value.self) written as JSON, read back and written again gives other text: "
                    + "\(String(decoding: text, as: UTF8.self)) then \(String(decoding: rewritten, as: UTF8.self))")
        }
    }

    private func checkEqualityAndHashing(_ tree: StoredValue) throws(PropertyViolation) {
        let respelled = tree.respelled
        guard respelled == tree, tree == respelled else {
            throw PropertyViolation("a tree is not equal to itself with its integers in the other case and other NaN bits")
        }
        guard respelled.hashValue == tree.hashValue else {
            throw PropertyViolation("equal trees, differing in integer case or NaN bits, hash differently")
        }
        // The canonical order compares doubles by their bits, so it may order two NaNs that `==` calls equal.
        guard !StoredValue.canonicallyPrecedes(tree, tree), tree.containsNaN || !StoredValue.canonicallyPrecedes(tree, respelled) else {
            throw PropertyViolation("the canonical order puts a tree before a tree equal to it")
        }
        _ = tree.description
    }

    private func attempt<Result>(_ violation: @autoclosure () -> String, _ body: () throws -> Result) throws(PropertyViolation) -> Result {
        do {
            return try body()
        } catch {
            throw PropertyViolation("\(violation()): \(error)")
        }
    }
}

extension StoredValue {
    /// The same tree, with every non-negative integer in the other integer case
    /// and every NaN with other bits: equal to it, by the definition of `==`.
    fileprivate var respelled: StoredValue {
        switch self {
        case .signedInteger(let value) where value >= 0: .unsignedInteger(UInt64(value))
        case .unsignedInteger(let value) where value <= UInt64(Int64.max): .signedInteger(Int64(value))
        case .double(let value) where value.isNaN: .double(Double(bitPattern: value.bitPattern ^ 1 | 0x7FF8_0000_0000_0000))
        case .array(let elements): .array(elements.map(\.respelled))
        case .dictionary(let members): .dictionary(members.mapValues(\.respelled))
        default: self
        }
    }
}
