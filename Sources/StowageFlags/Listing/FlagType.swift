/// A flag's value type, described well enough to check a value against it
/// without the program's code: what a list shows and what a tool checks.
public struct FlagType: Sendable, Hashable, CustomStringConvertible {
    /// The shape of the values a flag takes.
    public enum Kind: Sendable, Hashable {
        /// `true` or `false`.
        case bool
        /// A whole number that fits the integer type (`bitWidth` bits, signed or not).
        case integer(isSigned: Bool, bitWidth: Int)
        /// A floating-point number.
        case floatingPoint
        /// Text.
        case string
        /// One of a `CaseIterable` enum's cases, given by their stored forms (the raw values).
        case choice([StoredValue])
        /// Anything else (a `Codable` value, a date, a URL): the program checks it when it reads it.
        case other
    }

    /// The Swift type's name: `Int`, `Theme`.
    public var name: String
    public var kind: Kind

    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// The type of a flag of `Value`, worked out once by reflection.
    public init<Value: Storable>(of type: Value.Type) {
        name = String(describing: Value.self)
        if Value.self == Bool.self {
            kind = .bool
        } else if let integer = Value.self as? any FixedWidthInteger.Type {
            kind = .integer(isSigned: integer.isSigned, bitWidth: integer.bitWidth)
        } else if Value.self is any BinaryFloatingPoint.Type {
            kind = .floatingPoint
        } else if Value.self == String.self {
            kind = .string
        } else if let enumeration = Value.self as? any CaseIterable.Type, let cases = Self.storedCases(of: enumeration, as: Value.self) {
            kind = .choice(cases)
        } else {
            kind = .other
        }
    }

    private static func storedCases<Enumeration: CaseIterable, Value: Storable>(of type: Enumeration.Type, as value: Value.Type) -> [StoredValue]? {
        var cases: [StoredValue] = []
        for element in type.allCases {
            guard let value = element as? Value, let stored = try? value.storedValue() else { return nil }
            cases.append(stored)
        }
        return cases
    }

    /// `Int`, or `Theme (one of "light", "dark")`.
    public var description: String {
        switch kind {
        case .choice(let cases): "\(name) (one of \(cases.map(\.description).joined(separator: ", ")))"
        default: name
        }
    }

    /// What a value of this type looks like, for messages: `true or false`.
    public var expectation: String {
        switch kind {
        case .bool: "true or false"
        case .integer(let isSigned, let bitWidth):
            "a whole number from \(Self.minimum(isSigned: isSigned, bitWidth: bitWidth)) to \(Self.maximum(isSigned: isSigned, bitWidth: bitWidth))"
        case .floatingPoint: "a number"
        case .string: "text"
        case .choice(let cases): "one of " + cases.map(\.description).joined(separator: ", ")
        case .other: "a value of \(name)"
        }
    }

    /// `value` in this type's canonical form, when it is one of its values.
    ///
    /// Exact for every kind but ``Kind/other``, which takes any value but
    /// null: only the program that declares the flag can check those.
    /// - Throws: `StorageError` naming `key` with what a value must be.
    public func checked(_ value: StoredValue, forKey key: String) throws(StorageError) -> StoredValue {
        func mismatch(_ detail: String = "") -> StorageError {
            StorageError(
                code: .typeMismatch, key: key,
                reason: "\(name) takes \(expectation); found \(FlagValueText.render(value))\(detail)."
            )
        }
        switch kind {
        case .bool:
            guard case .bool = value else { throw mismatch() }
            return value
        case .integer(let isSigned, let bitWidth):
            // Spelled out: `StoredValue` takes `nil` as `.null`, so a `nil` here would not mean "none".
            let whole: Optional<StoredValue>
            switch value {
            case .signedInteger, .unsignedInteger: whole = .some(value)
            case .double(let number) where number.isFinite && number.rounded(.towardZero) == number:
                whole = Int64(exactly: number).map { StoredValue.signedInteger($0) } ?? UInt64(exactly: number).map { StoredValue.unsignedInteger($0) }
            default: whole = .none
            }
            guard let whole else { throw mismatch() }
            guard Self.fits(whole, isSigned: isSigned, bitWidth: bitWidth) else { throw mismatch(", which is out of range") }
            return whole
        case .floatingPoint:
            switch value {
            case .double: return value
            case .signedInteger(let number): return .double(Double(number))
            case .unsignedInteger(let number): return .double(Double(number))
            default: throw mismatch()
            }
        case .string:
            guard case .string = value else { throw mismatch() }
            return value
        case .choice(let cases):
            guard let match = cases.first(where: { $0 == value }) else { throw mismatch() }
            return match
        case .other:
            guard value != .null else { throw mismatch() }
            return value
        }
    }

    private static func fits(_ value: StoredValue, isSigned: Bool, bitWidth: Int) -> Bool {
        switch value {
        case .signedInteger(let number):
            guard isSigned || number >= 0 else { return false }
            guard bitWidth < 64 else { return true }
            let limit = Int64(1) << (isSigned ? bitWidth - 1 : bitWidth)
            return number >= (isSigned ? -limit : 0) && number < limit
        case .unsignedInteger:
            // Only values above Int64.max are kept unsigned.
            return !isSigned ? bitWidth >= 64 : bitWidth > 64
        default:
            return false
        }
    }

    private static func minimum(isSigned: Bool, bitWidth: Int) -> String {
        guard isSigned else { return "0" }
        return bitWidth >= 64 ? String(Int64.min) : String(-(Int64(1) << (bitWidth - 1)))
    }

    private static func maximum(isSigned: Bool, bitWidth: Int) -> String {
        if bitWidth >= 64 { return isSigned ? String(Int64.max) : String(UInt64.max) }
        return String((Int64(1) << (isSigned ? bitWidth - 1 : bitWidth)) - 1)
    }
}
