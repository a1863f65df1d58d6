/// Why a request's body could not be read as an evaluation request, with
/// the error code OFREP gives it.
struct OFREPRequestError: Error, Sendable, Equatable {
    /// `PARSE_ERROR` for a body that is no JSON object, `INVALID_CONTEXT`
    /// for a context of the wrong shape or too deep.
    let code: String
    /// A sentence for the client; it never repeats the body's values.
    let details: String

    static func parse(_ details: String) -> Self { Self(code: "PARSE_ERROR", details: details) }
    static func invalidContext(_ details: String) -> Self { Self(code: "INVALID_CONTEXT", details: details) }
}
