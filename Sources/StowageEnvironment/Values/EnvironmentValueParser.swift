#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import StowageJSON

/// Reads a variable's text as the stored form of the type asked for.
///
/// The environment holds only text, so its meaning depends on the type read:
/// `"0x1F"` is a string to `String` and 31 to `Int`. The rules, by type:
///
/// - `String` (and `StoredValue`): the text exactly as set.
/// - `Bool`: `true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0`, `y`/`n`, any case.
/// - Integers: decimal with an optional sign, or `0x` hexadecimal; out of the
///   type's range is an error. Floating point: as Swift reads a `Double`.
/// - `Data`: Base64. `Date`: ISO 8601. `URL`, `UUID`: their usual text.
/// - Arrays and sets: a JSON array, or elements separated by `separator`
///   (whitespace around each is ignored; `\` escapes the separator and
///   itself; an empty element is kept, so it is an error for non-strings).
/// - Optionals: empty text is `nil`, anything else is read as the wrapped type.
/// - `RawRepresentable` types: read as their raw value.
/// - Dictionaries and `Codable` types: JSON text.
///
/// Whitespace around the text is ignored for every type but `String` (and
/// types read as a `String`, such as an enum with `String` raw values).
struct EnvironmentValueParser {
    var separator: Character
    var jsonParser = JSONParser()

    func storedValue<Value: Storable>(parsing text: String, as type: Value.Type) throws(EnvironmentTextProblem) -> StoredValue {
        if Self.keepsTextAsIs(Value.self) { return .string(text) }
        if Value.self == Bool.self { return .bool(try EnvironmentScalarText.bool(text)) }
        if Value.self is any BinaryInteger.Type {
            switch try EnvironmentScalarText.integer(text, typeName: "\(Value.self)") {
            case .signed(let value): return .signedInteger(value)
            case .unsigned(let value): return StoredValue.integer(value) ?? .unsignedInteger(value)
            }
        }
        if Value.self is any BinaryFloatingPoint.Type {
            return .double(try EnvironmentScalarText.double(text, typeName: "\(Value.self)"))
        }
        if Value.self == Data.self || Value.self == Date.self || Value.self == URL.self || Value.self == UUID.self {
            return .string(EnvironmentScalarText.trimmed(text))
        }
        if let optional = Value.self as? any EnvironmentOptional.Type {
            let wrapped = Self.wrappedType(of: optional)
            // Empty text is no value, except to a type that keeps text as it is.
            if EnvironmentScalarText.trimmed(text).isEmpty, !Self.keepsTextAsIs(wrapped) { return .null }
            return try storedValue(parsing: text, asOpened: wrapped)
        }
        if let sequence = Value.self as? any EnvironmentSequence.Type {
            return try array(parsing: text, elementsOf: sequence, typeName: "\(Value.self)")
        }
        if let rawType = Self.rawValueType(of: Value.self) {
            return try storedValue(parsing: text, asOpened: rawType)
        }
        return try json(parsing: text, typeName: "\(Value.self)", allowsPlainText: !(Value.self is any EnvironmentDictionary.Type))
    }

    private static func keepsTextAsIs(_ type: Any.Type) -> Bool {
        type == String.self || type == StoredValue.self || type == Substring.self
    }

    private static func wrappedType<Wrapper: EnvironmentOptional>(of type: Wrapper.Type) -> any Storable.Type {
        Wrapper.wrappedStorableType
    }

    private func storedValue(parsing text: String, asOpened type: any Storable.Type) throws(EnvironmentTextProblem) -> StoredValue {
        try storedValue(parsing: text, as: type)
    }

    private func array<Sequence: EnvironmentSequence>(
        parsing text: String, elementsOf type: Sequence.Type, typeName: String
    ) throws(EnvironmentTextProblem) -> StoredValue {
        let trimmed = EnvironmentScalarText.trimmed(text)
        if trimmed.isEmpty { return .array([]) }
        let elementType = Sequence.elementStorableType
        if trimmed.first == "[" {
            guard case .array(let elements) = try json(parsing: trimmed, typeName: typeName, allowsPlainText: false) else {
                throw EnvironmentTextProblem(expected: "\(typeName) (a JSON array or \(separatorDescription)-separated elements)")
            }
            // A string element is read as text for the element type, so `["0x10"]` is an `[Int]`.
            return .array(
                try elements.enumerated().map { (index, element) throws(EnvironmentTextProblem) in
                    guard case .string(let elementText) = element else { return element }
                    return try self.element(elementText, at: index, as: elementType, typeName: typeName)
                })
        }
        return .array(
            try splitElements(of: trimmed).enumerated().map { (index, elementText) throws(EnvironmentTextProblem) in
                try self.element(elementText, at: index, as: elementType, typeName: typeName)
            })
    }

    private func element(_ text: String, at index: Int, as type: any Storable.Type, typeName: String) throws(EnvironmentTextProblem) -> StoredValue {
        do {
            return try storedValue(parsing: text, as: type)
        } catch {
            throw EnvironmentTextProblem(
                expected: "\(typeName) (a JSON array or \(separatorDescription)-separated elements)",
                detail: "element \(index) is not \(error.expected)" + (error.detail.map { ": \($0)" } ?? ""),
                isOutOfRange: error.isOutOfRange
            )
        }
    }

    /// Splits at unescaped separators; `\` before the separator or another
    /// `\` is dropped, and whitespace around each element is trimmed.
    func splitElements(of text: String) -> [String] {
        var elements: [String] = []
        var current = ""
        var isEscaped = false
        for character in text {
            if isEscaped {
                if character != separator && character != "\\" { current.append("\\") }
                current.append(character)
                isEscaped = false
            } else if character == "\\" {
                isEscaped = true
            } else if character == separator {
                elements.append(EnvironmentScalarText.trimmed(current))
                current = ""
            } else {
                current.append(character)
            }
        }
        if isEscaped { current.append("\\") }
        elements.append(EnvironmentScalarText.trimmed(current))
        return elements
    }

    private func json(parsing text: String, typeName: String, allowsPlainText: Bool) throws(EnvironmentTextProblem) -> StoredValue {
        do {
            return try jsonParser.parse(Array(text.utf8))
        } catch {
            // A type of the user's own may keep a plain string; its decoding decides.
            if allowsPlainText { return .string(text) }
            throw EnvironmentTextProblem(expected: "\(typeName) (JSON text)", detail: error.reason)
        }
    }

    private var separatorDescription: String { "\"\(separator)\"" }

    private static func rawValueType<Value>(of type: Value.Type) -> (any Storable.Type)? {
        guard let representable = type as? any RawRepresentable.Type else { return nil }
        return rawStorableType(of: representable)
    }

    private static func rawStorableType<Representable: RawRepresentable>(of type: Representable.Type) -> (any Storable.Type)? {
        Representable.RawValue.self as? any Storable.Type
    }
}

/// `Optional`, seen through a protocol so its wrapped type can be named at run time.
protocol EnvironmentOptional {
    static var wrappedStorableType: any Storable.Type { get }
}

extension Optional: EnvironmentOptional where Wrapped: Storable {
    static var wrappedStorableType: any Storable.Type { Wrapped.self }
}

/// `Array` and `Set`, seen through a protocol so their element type can be named at run time.
protocol EnvironmentSequence {
    static var elementStorableType: any Storable.Type { get }
}

extension Array: EnvironmentSequence where Element: Storable {
    static var elementStorableType: any Storable.Type { Element.self }
}

extension Set: EnvironmentSequence where Element: Storable {
    static var elementStorableType: any Storable.Type { Element.self }
}

/// `Dictionary`, which is read from JSON text only.
protocol EnvironmentDictionary {}

extension Dictionary: EnvironmentDictionary {}
