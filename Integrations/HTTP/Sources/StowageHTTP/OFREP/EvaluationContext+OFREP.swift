import NIOCore
import Stowage
import StowageFlags
import StowageJSON

extension EvaluationContext {
    /// The context of an OFREP evaluation request's body, `{"context": {"targetingKey": "user-1", …}}`.
    ///
    /// The body must be a JSON object whose `context` is an object, whose
    /// `targetingKey`, where given, is text, and whose attributes nest at
    /// most `maximumDepth` levels (a list or an object inside the context is
    /// one level).
    ///
    /// OFREP's description requires `context` and its `targetingKey`; both
    /// may be left out here, as flagd allows: OpenFeature's providers send
    /// `{}` for an evaluation without a context (Python's does), a flag
    /// without a percentage rollout needs no key, and a rollout without one
    /// gives its default variant.
    /// - Throws: `PARSE_ERROR` for a body that is not a JSON object,
    ///   `INVALID_CONTEXT` for a context of another shape.
    init(ofrepRequest body: ByteBuffer, maximumDepth: Int) throws(OFREPRequestError) {
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            throw .parse("The request's body is not UTF-8 text.")
        }
        let request: StoredValue
        do { request = try StoredValue(jsonText: text) } catch { throw .parse("The request's body is not JSON: \(error.reason)") }
        guard case .dictionary(let members) = request else {
            throw .parse("The request's body is not a JSON object with a \"context\" object (it is \(request.kindDescription)).")
        }
        let context = members["context"] ?? [:]
        guard case .dictionary(var attributes) = context else {
            throw .invalidContext("The request's \"context\" is not an object (it is \(context.kindDescription)).")
        }
        var targetingKey: String?
        switch attributes.removeValue(forKey: "targetingKey") {
        case nil: break
        case .string(let key)?: targetingKey = key
        case let other?: throw .invalidContext("The context's \"targetingKey\" is not text (it is \(other.kindDescription)).")
        }
        for (name, value) in attributes where value.nestingDepth > maximumDepth {
            throw .invalidContext("The context's \"\(name)\" nests more than \(maximumDepth) levels of lists and objects.")
        }
        self.init(targetingKey: targetingKey, attributes: attributes)
    }
}

extension StoredValue {
    /// How many lists and objects deep the value goes: 0 for a scalar.
    var nestingDepth: Int {
        switch self {
        case .array(let elements): 1 + (elements.lazy.map(\.nestingDepth).max() ?? 0)
        case .dictionary(let members): 1 + (members.values.lazy.map(\.nestingDepth).max() ?? 0)
        default: 0
        }
    }

    /// The kind of value, for messages: never the value itself, which may be private.
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .signedInteger, .unsignedInteger, .double: "a number"
        case .string: "text"
        case .date: "a date"
        case .data: "data"
        case .array: "a list"
        case .dictionary: "an object"
        }
    }
}
