#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The types the encoder and decoder convert themselves instead of calling
/// their `encode(to:)` and `init(from:)`.
///
/// Foundation's leaf types are here because their own `Codable` conformances
/// would store a date as a bare number and a URL as a dictionary, instead of
/// the natural form. The common primitives are here so that arrays and generic
/// fields of them skip a child encoder or decoder per element.
enum DirectlyCodedType {
    case string, int, double, bool, int64, date, data, url, uuid

    /// Recognises a type by comparing metatypes, which costs a pointer compare
    /// per candidate, unlike a protocol conformance lookup.
    init?<Value>(_ type: Value.Type) {
        if Value.self == String.self {
            self = .string
        } else if Value.self == Int.self {
            self = .int
        } else if Value.self == Double.self {
            self = .double
        } else if Value.self == Bool.self {
            self = .bool
        } else if Value.self == Date.self {
            self = .date
        } else if Value.self == Data.self {
            self = .data
        } else if Value.self == URL.self {
            self = .url
        } else if Value.self == UUID.self {
            self = .uuid
        } else if Value.self == Int64.self {
            self = .int64
        } else {
            return nil
        }
    }

    /// Hands `value` back typed as `Target`, for callers that have just
    /// established through `init?(_:)` that `Source` and `Target` are the same
    /// type, so the reinterpretation is an identity.
    ///
    /// `as? Target` would also work, but in unspecialised generic code it
    /// makes the runtime look up `Optional<Target>` on every call, which was
    /// the largest cost of decoding an array of numbers.
    static func identity<Source, Target>(_ value: Source, as target: Target.Type) -> Target {
        unsafeBitCast(value, to: Target.self)
    }
}
