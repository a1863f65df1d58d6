#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Configuration
public import Stowage
import StowageJSON

// The one place where Stowage's values and swift-configuration's meet, in
// both directions. Guides/Configuration.md has the same rules as a table;
// a change here changes the table.
//
// Stowage to swift-configuration: each ConfigType is read as the Swift
// type Stowage knows for it (int as Int, bytes as Data, ...), through the
// store's own decodeValue, so a store that keeps text (the environment)
// parses it for that type, and every other store converts exactly, as any
// Stowage read does: an integer out of Int's range, 1.5 as an Int or a
// string as a Bool is an error, never a rounded or guessed value.
//
// swift-configuration to Stowage: every ConfigContent has one exact
// StoredValue (below), so nothing is lost that way.

extension StoredValue {
    /// The stored form of a configuration value; every case has one, exactly.
    ///
    /// `int` becomes `.signedInteger`, `bytes` `.data`, the array forms
    /// `.array`s of the element's form; text stays text.
    public init(configContent content: ConfigContent) {
        switch content {
        case .string(let value): self = .string(value)
        case .int(let value): self = .signedInteger(Int64(value))
        case .double(let value): self = .double(value)
        case .bool(let value): self = .bool(value)
        case .bytes(let value): self = .data(Data(value))
        case .stringArray(let values): self = .array(values.map(StoredValue.string))
        case .intArray(let values): self = .array(values.map { .signedInteger(Int64($0)) })
        case .doubleArray(let values): self = .array(values.map(StoredValue.double))
        case .boolArray(let values): self = .array(values.map(StoredValue.bool))
        case .byteChunkArray(let values): self = .array(values.map { .data(Data($0)) })
        }
    }
}

/// Where a value of one key comes from, read as a given Swift type: a store
/// read live, or an entry of a store's snapshot decoded by that store.
protocol TypedValueSource {
    /// The value decoded as `Value` the way the store decodes it, or `nil` when absent.
    func value<Value: Storable>(as type: Value.Type) throws -> Value?
}

enum ConfigValueMapping {
    /// 2^53: from here on, not every integer has an exact `Double`.
    private static let exactDoubleLimit = 9_007_199_254_740_992.0

    /// The content of `key` as `type`, or `nil` when the key is absent.
    /// - Throws: `StorageError` naming the key, the configuration type asked
    ///   for and what was found, when the value has no exact form of that type.
    // Inlined into each caller, so the source's type is known there and no generic metadata is looked up per read.
    @inline(__always)
    static func content(_ type: ConfigType, forKey key: String, from source: some TypedValueSource) throws -> ConfigContent? {
        do {
            return try read(type, from: source)
        } catch let error as StorageError {
            // The same error, its store and cause kept, with what was asked for in front.
            var explained = error
            if explained.key == nil { explained.key = key }
            explained.reason = "the value can not be read as swift-configuration's \(type) (\(swiftTypeName(of: type))): \(error.reason)"
            throw explained
        } catch {
            throw StorageError(
                code: .invalidValue, key: key,
                reason: "the value can not be read as swift-configuration's \(type) (\(swiftTypeName(of: type))).", underlyingError: error)
        }
    }

    @inline(__always)
    private static func read(_ type: ConfigType, from source: some TypedValueSource) throws -> ConfigContent? {
        switch type {
        case .string:
            do {
                return try source.value(as: String.self).map(ConfigContent.string)
            } catch let error as StorageError where error.code == .typeMismatch {
                // A date is kept as text by the file and environment stores; a store that keeps `.date` gives the same text.
                guard case .date? = try? source.value(as: StoredValue.self), let text = try? dateText(source) else { throw error }
                return .string(text)
            }
        case .int:
            return try source.value(as: Int.self).map(ConfigContent.int)
        case .double:
            guard let value = try source.value(as: Double.self) else { return nil }
            try checkExact([value], from: source)
            return .double(value)
        case .bool:
            return try source.value(as: Bool.self).map(ConfigContent.bool)
        case .bytes:
            return try source.value(as: Data.self).map { .bytes([UInt8]($0)) }
        case .stringArray:
            return try source.value(as: [String].self).map(ConfigContent.stringArray)
        case .intArray:
            return try source.value(as: [Int].self).map(ConfigContent.intArray)
        case .doubleArray:
            guard let values = try source.value(as: [Double].self) else { return nil }
            try checkExact(values, from: source)
            return .doubleArray(values)
        case .boolArray:
            return try source.value(as: [Bool].self).map(ConfigContent.boolArray)
        case .byteChunkArray:
            return try source.value(as: [Data].self).map { .byteChunkArray($0.map { [UInt8]($0) }) }
        }
    }

    /// Stowage reads an integer as the nearest `Double`; beyond 2^53 that can
    /// differ from the integer, so the stored form is checked, and only then.
    private static func checkExact(_ values: [Double], from source: some TypedValueSource) throws {
        guard values.contains(where: { $0.isFinite && abs($0) >= exactDoubleLimit }) else { return }
        let stored = try source.value(as: StoredValue.self)
        let integers: [StoredValue] =
            switch stored {
            case .array(let elements)?: elements
            case let element?: [element]
            case nil: []
            }
        for integer in integers {
            let exact: Bool =
                switch integer {
                case .signedInteger(let value): Double(exactly: value) != nil
                case .unsignedInteger(let value): Double(exactly: value) != nil
                default: true
                }
            guard exact else {
                throw StorageError(
                    code: .valueOutOfRange,
                    reason: "expected a number a Double holds exactly, found an integer beyond 2^53 that would be rounded.")
            }
        }
    }

    /// The ISO 8601 text with milliseconds that Stowage's file and environment stores keep for a date.
    private static func dateText(_ source: some TypedValueSource) throws -> String? {
        guard let date = try source.value(as: Date.self) else { return nil }
        guard case .string(let text) = try StoredValue(jsonText: StoredValue.date(date).jsonText()) else { return nil }
        return text
    }

    /// The Swift type a configuration type is read as, for messages.
    static func swiftTypeName(of type: ConfigType) -> String {
        switch type {
        case .string: "String"
        case .int: "Int"
        case .double: "Double"
        case .bool: "Bool"
        case .bytes: "Data"
        case .stringArray: "[String]"
        case .intArray: "[Int]"
        case .doubleArray: "[Double]"
        case .boolArray: "[Bool]"
        case .byteChunkArray: "[Data]"
        }
    }

    /// The configuration type a provider is asked for when Stowage reads `type`,
    /// or `nil` for a type with no counterpart (a `Codable` struct, a dictionary).
    static func configType<Value>(for type: Value.Type) -> ConfigType? {
        if let optional = type as? any OptionalValue.Type { return configType(for: optional.wrappedType) }
        switch type {
        case is String.Type, is URL.Type, is UUID.Type, is Date.Type: return .string
        case is any BinaryInteger.Type: return .int
        case is any BinaryFloatingPoint.Type: return .double
        case is Bool.Type: return .bool
        case is Data.Type: return .bytes
        case is [String].Type, is Set<String>.Type: return .stringArray
        case is [Int].Type, is [Int64].Type, is [Int32].Type, is Set<Int>.Type: return .intArray
        case is [Double].Type, is [Float].Type: return .doubleArray
        case is [Bool].Type: return .boolArray
        case is [Data].Type: return .byteChunkArray
        default: return nil
        }
    }

    /// Every configuration type, in the order a provider is asked when Stowage
    /// does not say which: text first, since a provider that keeps text (the
    /// environment) answers it for every value, exactly as written.
    static let probingOrder: [ConfigType] = [
        .string, .int, .double, .bool, .bytes, .stringArray, .intArray, .doubleArray, .boolArray, .byteChunkArray,
    ]
}

/// Lets `configType(for:)` see through `Optional`, as a wrapper of an optional setting reads `Value?`.
private protocol OptionalValue {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalValue {
    static var wrappedType: Any.Type { Wrapped.self }
}
