#if canImport(CoreFoundation)
import CoreFoundation
#endif
import Foundation
import Stowage

/// How a `StoredValue` becomes the property-list object `UserDefaults`
/// keeps, and back.
///
/// A value is written as itself wherever `UserDefaults` keeps it exactly, on
/// every platform, so other code reading the same defaults finds what it
/// expects: a `Bool` as a boolean, an integer as a number, a `String` as a
/// string, `Data`, a `Date`, arrays and dictionaries of those. What it would
/// change or refuse is written in the ``ExactForm``: on Linux its file is XML,
/// which turns `-0.0` into `0.0`, drops a date's fraction of a second, and
/// takes NUL and most control characters raw, which XML forbids (Python's
/// plistlib rejected such a file), and `set(_:forKey:)` traps on `NSNull`. The rule is
/// the same on Apple platforms, so a value has one form wherever it is written.
enum PropertyListForm {
    /// The object to hand `UserDefaults.set(_:forKey:)`.
    static func object(for value: StoredValue) -> Any {
        switch value {
        case .bool(let flag): return flag
        case .signedInteger(let integer):
            // An `Int` where it holds 64 bits; elsewhere (watchOS on arm64_32) a number of 64 bits.
            if let native = Int(exactly: integer) { return native }
            return NSNumber(value: integer)
        case .unsignedInteger(let integer): return integer
        case .double(let number):
            return keepsExactly(number) ? number : ExactForm.encode(value)
        case .string(let text):
            return keepsExactly(text) ? text : ExactForm.encode(value)
        case .data(let data):
            return ExactForm.isEncoded(data) ? ExactForm.encode(value) : data
        case .date(let date):
            return keepsExactly(date) ? date : ExactForm.encode(value)
        case .array(let elements):
            return elements.map(object(for:))
        case .dictionary(let members):
            // A key the file can not hold takes the whole dictionary into the exact form.
            guard members.keys.allSatisfy(keepsExactly) else { return ExactForm.encode(value) }
            return members.mapValues(object(for:))
        case .null:
            return ExactForm.encode(value)
        }
    }

    /// The stored form of what `UserDefaults` returned for `key`, whoever wrote it.
    /// - Throws: `StorageError` naming the key when the object has no stored form.
    static func storedValue(from object: Any, key: String) throws -> StoredValue {
        if let value = storedValue(from: object) { return value }
        if containsDamagedExactForm(object) {
            throw StorageError(
                code: .invalidValue, key: key,
                reason: "UserDefaults holds a value in Stowage's exact form for it, but its bytes are damaged or cut short.")
        }
        throw StorageError(
            code: .typeMismatch, key: key,
            reason: "UserDefaults holds \(typeDescription(of: object)) for it, which is not a property-list value Stowage can read.")
    }

    private static func storedValue(from object: Any) -> StoredValue? {
        #if canImport(Darwin)
        // Numbers come back as NSNumber here; a boolean is the one CFBoolean.
        if let number = object as? NSNumber {
            if CFGetTypeID(number) == CFBooleanGetTypeID() { return .bool(number.boolValue) }
            return storedValue(from: number)
        }
        #endif
        // A boxed number (what PropertyListSerialization returns on Linux)
        // before Swift's types: a boxed 0 or 1 would also cast to `Bool`.
        if type(of: object) is NSNumber.Type, let number = object as? NSNumber { return storedValue(from: number) }
        switch object {
        // UserDefaults in swift-corelibs-foundation returns Swift's own types, each exactly as it was written.
        case let flag as Bool: return .bool(flag)
        case let integer as Int: return .signedInteger(Int64(integer))
        case let integer as Int64: return .signedInteger(integer)
        case let integer as Int32: return .signedInteger(Int64(integer))
        case let integer as UInt64: return .integer(integer)
        case let integer as UInt: return .integer(integer)
        case let integer as UInt32: return .signedInteger(Int64(integer))
        case let number as Double: return .double(number)
        case let number as Float: return .double(Double(number))
        case let number as NSNumber: return storedValue(from: number)
        case let text as String: return .string(text)
        case let data as Data:
            guard ExactForm.isEncoded(data) else { return .data(data) }
            return ExactForm.decode(data)
        case let date as Date: return .date(date)
        case let elements as [Any]:
            var values: [StoredValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let value = storedValue(from: element) else { return nil }
                values.append(value)
            }
            return .array(values)
        case let members as [String: Any]:
            var values: [String: StoredValue] = [:]
            for (key, member) in members {
                guard let value = storedValue(from: member) else { return nil }
                values[key] = value
            }
            return .dictionary(values)
        default: return nil
        }
    }

    /// Whether the object is, or holds, data that starts as the exact form does but does not decode.
    private static func containsDamagedExactForm(_ object: Any) -> Bool {
        switch object {
        case let data as Data: ExactForm.isEncoded(data) && ExactForm.decode(data) == nil
        case let elements as [Any]: elements.contains(where: containsDamagedExactForm)
        case let members as [String: Any]: members.values.contains(where: containsDamagedExactForm)
        default: false
        }
    }

    /// A number of a kind Swift's own types did not match, by the C type it holds.
    private static func storedValue(from number: NSNumber) -> StoredValue? {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "f"), UInt8(ascii: "d"): .double(number.doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"), UInt8(ascii: "I"), UInt8(ascii: "S"), UInt8(ascii: "C"): .integer(number.uint64Value)
        default: .signedInteger(number.int64Value)
        }
    }

    /// What the object is, for an error: its type, never its contents, which may be secret.
    static func typeDescription(of object: Any) -> String {
        "a value of type \(type(of: object))"
    }

    // MARK: - What the file keeps exactly

    /// Finite and not negative zero: the XML form writes every other double back exactly.
    static func keepsExactly(_ number: Double) -> Bool {
        number.isFinite && !(number == 0 && number.sign == .minus)
    }

    /// Whole seconds between the years 1 and 9999: the XML form writes dates to the second, as ISO 8601.
    static func keepsExactly(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSinceReferenceDate
        return seconds.rounded(.towardZero) == seconds && seconds >= -63_113_904_000 && seconds <= 252_423_993_599
    }

    /// Only characters XML 1.0 can hold, and no carriage return, which XML
    /// reads back as a line feed, nor a byte order mark.
    static func keepsExactly(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x9, 0xA: true
            // U+FEFF, the byte order mark, was once dropped from a string's start when the file was read back.
            case 0xFEFF: false
            case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
            default: false
            }
        }
    }
}
