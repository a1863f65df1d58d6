import Crypto

/// The tokens that may call an endpoint, kept as SHA-256 digests: a token
/// is hashed when it is configured and forgotten, and a request's token is
/// hashed and compared with every digest in time that does not depend on
/// where, or whether, it matches.
///
/// A request gives its token as OFREP's description allows, either way:
/// `Authorization: Bearer <token>` or `X-API-Key: <token>`.
///
/// ```swift
/// // Tokens the server reads from its environment or a secret store:
/// let tokens = try AccessTokens(sha256Digests: [environment["FLAGS_TOKEN_SHA256"]!])
/// // or, where the server is given the tokens themselves:
/// let tokens = AccessTokens(["a-long-random-token"])
/// // AccessTokens.sha256Digest(of: "a-long-random-token") gives the digest to configure.
/// ```
///
/// SHA-256, not a slow password hash, because these are machine tokens: long
/// and random, so no guessing list reaches them, and hashed on every
/// request, where a slow hash would cost each one milliseconds. Make them
/// with 128 bits of randomness or more (`openssl rand -hex 32`).
public struct AccessTokens: Sendable, CustomStringConvertible, CustomReflectable {
    private let digests: [[UInt8]]

    /// Accepts `tokens`, keeping only their digests.
    public init(_ tokens: [String]) {
        digests = tokens.map(Self.digest)
    }

    /// Accepts the tokens whose SHA-256 digests, in hexadecimal, are `digests`
    /// (what ``sha256Digest(of:)`` or `printf %s TOKEN | sha256sum` gives).
    /// - Throws: `AccessTokens.InvalidDigest` naming the position of a digest
    ///   that is not 64 hexadecimal digits.
    public init(sha256Digests digests: [String]) throws(InvalidDigest) {
        self.digests = try digests.enumerated().map { (index, hex) throws(InvalidDigest) in
            guard let bytes = Self.bytes(ofHex: hex) else { throw InvalidDigest(position: index) }
            return bytes
        }
    }

    /// The SHA-256 digest of `token`, in lowercase hexadecimal, to configure
    /// with ``init(sha256Digests:)``.
    public static func sha256Digest(of token: String) -> String {
        digest(token).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Whether `token` is one of the accepted ones; no token is accepted when none is configured.
    public func accepts(_ token: String) -> Bool {
        let presented = Self.digest(token)
        var matched: UInt8 = 0
        for accepted in digests {
            var difference: UInt8 = 0
            for (left, right) in zip(accepted, presented) { difference |= left ^ right }
            // 1 when the digests are equal, else 0, with no branch on the bytes.
            matched |= UInt8(truncatingIfNeeded: (UInt16(difference) &- 1) >> 8)
        }
        return matched != 0
    }

    /// Never the digests: they would let anyone who reads a log test guesses offline.
    public var description: String { "AccessTokens(\(digests.count) accepted)" }

    /// Nothing of the digests for `dump` and debuggers either.
    public var customMirror: Mirror { Mirror(self, children: ["accepted": digests.count]) }

    /// A configured digest that is not 64 hexadecimal digits.
    public struct InvalidDigest: Error, Sendable, CustomStringConvertible {
        /// Its position in the list given, from 0.
        public let position: Int
        public var description: String {
            "The access token digest at position \(position) is not a SHA-256 digest in hexadecimal (64 digits 0-9, a-f)."
        }
    }

    private static func digest(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }

    private static func bytes(ofHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 2 * SHA256.byteCount else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(SHA256.byteCount)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = HexDigit.value(digits[index]), let low = HexDigit.value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
