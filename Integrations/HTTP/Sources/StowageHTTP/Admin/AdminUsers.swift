import HummingbirdBcrypt

/// Who may sign in to the admin page, and what each may do.
///
/// Passwords are kept only as bcrypt hashes (``hashPassword(_:cost:)``
/// makes one; cost 12 takes about a quarter of a second, which is what makes
/// guessing slow), tokens only as SHA-256 digests, as ``AccessTokens`` keeps
/// them. Neither appears in a description.
public struct AdminUsers: Sendable, CustomStringConvertible, CustomReflectable {
    /// What a signed-in user may do.
    public enum Role: String, Sendable, Hashable, Comparable {
        /// Reads flags, settings and history.
        case viewer
        /// Also changes flags: values, rules and overrides.
        case editor

        public static func < (lhs: Role, rhs: Role) -> Bool { lhs == .viewer && rhs == .editor }
    }

    struct Account: Sendable {
        let name: String
        let role: Role
        let passwordHash: String
    }

    private var accounts: [String: Account] = [:]
    private var tokens: [(tokens: AccessTokens, name: String, role: Role)] = []

    public init() {}

    /// Adds a user who signs in with a name and password, given as a bcrypt hash.
    public mutating func addUser(_ name: String, passwordHash: String, role: Role) {
        accounts[name] = Account(name: name, role: role, passwordHash: passwordHash)
    }

    /// Adds a token (by its SHA-256 digest, in hex) that signs in as `name`,
    /// on the page or as `Authorization: Bearer` for the JSON API the `stowage` tool reads.
    public mutating func addToken(sha256Digest digest: String, name: String, role: Role) throws(AccessTokens.InvalidDigest) {
        tokens.append((try AccessTokens(sha256Digests: [digest]), name, role))
    }

    /// A bcrypt hash of `password`, for ``addUser(_:passwordHash:role:)``.
    public static func hashPassword(_ password: String, cost: UInt8 = 12) -> String {
        Bcrypt.hash(password, cost: cost)
    }

    /// The account a name and password sign in as. An unknown name costs a
    /// bcrypt check all the same, so timing does not tell which names exist.
    func signIn(name: String, password: String) -> (name: String, role: Role)? {
        guard let account = accounts[name] else {
            _ = Bcrypt.verify(password, hash: Self.decoyHash)
            return nil
        }
        return Bcrypt.verify(password, hash: account.passwordHash) ? (account.name, account.role) : nil
    }

    /// The user a token signs in as.
    func signIn(token: String) -> (name: String, role: Role)? {
        var found: (name: String, role: Role)?
        // Every digest is compared, so timing does not tell how far the list was read.
        for entry in tokens where entry.tokens.accepts(token) && found == nil { found = (entry.name, entry.role) }
        return found
    }

    /// The role of a signed-in user now: a session of a user removed, or
    /// whose role was lowered, since it began gets the current one.
    func currentRole(of name: String, signedInAs role: Role) -> Role? {
        if let account = accounts[name] { return min(account.role, role) }
        return tokens.first { $0.name == name }.map { min($0.role, role) }
    }

    /// A hash of a password nobody has, checked when the name is unknown.
    private static let decoyHash = Bcrypt.hash("stowage-decoy", cost: 12)

    public var description: String { "AdminUsers(\(accounts.count) with passwords, \(tokens.count) with tokens)" }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
