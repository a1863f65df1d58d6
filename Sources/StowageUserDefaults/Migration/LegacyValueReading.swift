import Foundation
import Stowage

/// Reads one value another library wrote to `UserDefaults`, as the type asked for.
enum LegacyValueReading {
    /// `object` as `Value`, through the form `UserDefaults` keeps.
    static func native<Value: Storable>(_ object: Any, as type: Value.Type, key: String) throws -> Value {
        try Value(storedValue: PropertyListForm.storedValue(from: object, key: key))
    }

    /// `object` as `Value`, trying the JSON the library writes for what
    /// `UserDefaults` can not keep, and the form it keeps.
    static func value<Value: Storable & Decodable>(
        _ object: Any, as type: Value.Type, key: String, format: UserDefaultsFormat
    ) throws -> Value {
        if format == .foil, let url = foilURL(in: object) as? Value {
            return url
        }
        let json = jsonText(in: object, format: format, as: Value.self)
        var nativeError: (any Error)?
        // Text or bytes that the library would have written as themselves are tried as themselves first.
        if json.isTriedFirst, let text = json.text, let value = try? JSONDecoder().decode(Value.self, from: text) {
            return value
        }
        do {
            return try native(object, as: Value.self, key: key)
        } catch {
            nativeError = error
        }
        if let text = json.text, let value = try? JSONDecoder().decode(Value.self, from: text) {
            return value
        }
        throw StorageError(
            code: .typeMismatch, key: key,
            reason: "UserDefaults holds \(kind(of: object)) for it, which is not a \(Value.self) as \(format) writes one.",
            underlyingError: nativeError)
    }

    /// A URL as Foil writes it, through `UserDefaults`' own URL setter: on
    /// Apple platforms a keyed archive of an `NSURL`, on Linux the URL's path.
    ///
    /// Not `UserDefaults.url(forKey:)`, which Foil reads with: on Linux it
    /// trapped on data that is not such an archive ("There was a decoding
    /// error and the decoding failure policy is .raiseException").
    private static func foilURL(in object: Any) -> URL? {
        switch object {
        // Keyed archives are binary property lists. Anything else is not handed to the unarchiver,
        // whose failure to parse it leaked its error in swift-corelibs-foundation (LeakSanitizer).
        case let data as Data where data.starts(with: Array("bplist".utf8)):
            guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
            unarchiver.decodingFailurePolicy = .setErrorAndReturn
            defer { unarchiver.finishDecoding() }
            return (unarchiver.decodeObject(of: NSURL.self, forKey: NSKeyedArchiveRootObjectKey) as URL?)
        case let path as String where path.hasPrefix("/") || path.hasPrefix("~"):
            return URL(filePath: (path as NSString).expandingTildeInPath)
        default:
            return nil
        }
    }

    /// The JSON text the library would have written for `object`, if any, and
    /// whether to try it before the value as `UserDefaults` keeps it.
    private static func jsonText<Value>(in object: Any, format: UserDefaultsFormat, as type: Value.Type) -> (text: Data?, isTriedFirst: Bool) {
        switch format.library {
        case .plain:
            return (nil, false)
        case .foil, .efStorage:
            // Codable values are JSON bytes; `Data` itself is kept as it is.
            if let data = object as? Data {
                return isBytes(Value.self) ? (nil, false) : (data, true)
            }
            // Foil keeps an array, a set or a dictionary of Codable values element by element, each its own JSON bytes.
            guard format == .foil, !isBytesCollection(Value.self) else { return (nil, false) }
            if let elements = object as? [Any], !elements.isEmpty, let texts = elements as? [Data] {
                return (jsonArray(of: texts), true)
            }
            if let members = object as? [String: Any], !members.isEmpty, let texts = members as? [String: Data] {
                return (jsonObject(of: texts), true)
            }
            return (nil, false)
        case .defaults:
            if let text = object as? String {
                // A String is kept as it is; anything else kept as a string is JSON.
                return isText(Value.self) ? (nil, false) : (Data(text.utf8), true)
            }
            // Arrays and dictionaries are kept element by element, each non-native element as JSON text;
            // tried first unless the elements are meant to be strings, which a native read of JSON text
            // would also accept (a URL percent-encodes the quotes).
            if let elements = object as? [Any], let texts = elements as? [String] {
                return (jsonArray(of: texts.map { Data($0.utf8) }), !isTextCollection(Value.self))
            }
            if let members = object as? [String: Any], let texts = members as? [String: String] {
                return (jsonObject(of: texts.mapValues { Data($0.utf8) }), !isTextCollection(Value.self))
            }
            return (nil, false)
        }
    }

    /// One JSON array of elements that are each JSON text already.
    private static func jsonArray(of elements: [Data]) -> Data {
        Data("[".utf8) + Data(elements.joined(separator: Data(",".utf8))) + Data("]".utf8)
    }

    /// One JSON object of members that are each JSON text already, its keys sorted.
    private static func jsonObject(of members: [String: Data]) -> Data? {
        var json = Data("{".utf8)
        for (offset, key) in members.keys.sorted().enumerated() {
            guard let name = try? JSONEncoder().encode(key), let value = members[key] else { return nil }
            if offset > 0 { json.append(contentsOf: Array(",".utf8)) }
            json.append(name)
            json.append(contentsOf: Array(":".utf8))
            json.append(value)
        }
        json.append(contentsOf: Array("}".utf8))
        return json
    }

    private static func isText<Value>(_ type: Value.Type) -> Bool {
        Value.self == String.self || Value.self == Substring.self
    }

    private static func isTextCollection<Value>(_ type: Value.Type) -> Bool {
        Value.self == [String].self || Value.self == Set<String>.self || Value.self == [String: String].self || Value.self == [String?].self
    }

    private static func isBytes<Value>(_ type: Value.Type) -> Bool {
        Value.self == Data.self || Value.self == [UInt8].self
    }

    /// Collections of `Data`, which Foil keeps as themselves, not as JSON.
    private static func isBytesCollection<Value>(_ type: Value.Type) -> Bool {
        Value.self == [Data].self || Value.self == Set<Data>.self || Value.self == [String: Data].self
    }

    /// What the object is, for an error; never its contents, which may be secret.
    static func kind(of object: Any) -> String {
        switch object {
        // A boxed number first: on Linux a boxed 0 or 1 also casts to `Bool`.
        case _ where type(of: object) is NSNumber.Type: "a number"
        case is Bool: "a boolean"
        case is String: "a string"
        case is Data: "data"
        case is Date: "a date"
        case is [Any]: "an array"
        case is [String: Any]: "a dictionary"
        case is NSNumber, is Int, is Int64, is UInt64, is Double, is Float: "a number"
        default: "a value of type \(type(of: object))"
        }
    }
}
