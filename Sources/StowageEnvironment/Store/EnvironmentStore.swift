#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Stowage
import StowageLocking

/// A store over environment variables, and `.env` files beneath them, read
/// as typed values.
///
/// The environment is read once, when the store is made (and again on
/// ``reload()``), so a read never copies the environment. Writes go to the
/// store's own overlay, which every reference sees; the process environment
/// is left alone unless ``Options/mirrorsWritesToProcessEnvironment`` says
/// otherwise.
///
/// ```swift
/// struct ServerSettings: Sendable {
///     @EnvironmentStorage("server.port") var port = 8080          // SERVER_PORT
///     @EnvironmentStorage("logLevel") var logLevel = "info"        // LOG_LEVEL
/// }
/// let store = EnvironmentStore(variables: ["SERVER_PORT": "9090"])
/// let port: Int? = try store.value(forKey: "server.port")          // 9090
/// ```
///
/// See `Guides/EnvironmentStore.md` for the key mapping, the text of each
/// type, the `.env` rules and secrets.
public final class EnvironmentStore: UnderlyingStorage, DefaultInstanceProviding, Sendable {
    /// The process environment, with the default options.
    public static let `default` = EnvironmentStore()

    /// How this store maps keys, reads lists, keeps secrets and writes.
    public let options: Options
    /// The `.env` file read beneath the environment, if any.
    public let dotEnvFile: DotEnvFile?
    private let source: Source
    let state: Locked<EnvironmentState>
    let parser: EnvironmentValueParser

    /// Where the variables come from.
    enum Source: Sendable {
        case processEnvironment
        case variables([String: String])
    }

    /// A store over the process environment.
    public convenience init(options: Options = Options()) {
        self.init(source: .processEnvironment, dotEnvFile: nil, variables: ProcessEnvironment.variables(), options: options)
    }

    /// A store over the given variables instead of the process environment,
    /// for tests and tools.
    public convenience init(variables: [String: String], options: Options = Options()) {
        self.init(source: .variables(variables), dotEnvFile: nil, variables: variables, options: options)
    }

    /// A store over a `.env` file beneath the process environment (or beneath
    /// `variables`, when given).
    /// - Throws: `StorageError` with code `.invalidDotEnv`
    ///   naming the file and line of a syntax error, or code `.storeFailure`
    ///   when the file can not be read (or is missing and required).
    public convenience init(dotEnv file: DotEnvFile, variables: [String: String]? = nil, options: Options = Options()) throws {
        let source: Source = variables.map { .variables($0) } ?? .processEnvironment
        let loaded = try Self.loadVariables(from: source, dotEnvFile: file)
        self.init(source: source, dotEnvFile: file, variables: loaded, options: options)
    }

    /// A store over the `.env` file at `url` beneath the process environment.
    /// - Parameters:
    ///   - url: the `.env` file.
    ///   - isRequired: whether a missing file is an error; by default it reads as empty.
    ///   - overridesEnvironment: whether the file wins over the environment; by default the environment wins.
    ///   - skipsMalformedLines: whether a line that is not an assignment is skipped and reported; by default it is an error.
    ///   - options: how keys map to variables, which are secret, how arrays are separated.
    public convenience init(
        dotEnv url: URL, isRequired: Bool = false, overridesEnvironment: Bool = false, skipsMalformedLines: Bool = false,
        options: Options = Options()
    ) throws {
        let file = DotEnvFile(url: url, isRequired: isRequired, overridesEnvironment: overridesEnvironment, skipsMalformedLines: skipsMalformedLines)
        try self.init(dotEnv: file, options: options)
    }

    private init(source: Source, dotEnvFile: DotEnvFile?, variables: [String: String], options: Options) {
        self.source = source
        self.dotEnvFile = dotEnvFile
        self.options = options
        parser = EnvironmentValueParser(separator: options.arraySeparator)
        state = Locked(EnvironmentState(variables: variables))
    }

    /// The most recent failure: a value that did not parse, two keys naming
    /// one variable, a reload that failed.
    public var lastError: StorageError? {
        state.withLock { $0.lastError }
    }

    /// The variable that holds `key` under this store's mapping.
    public func variableName(forKey key: String) -> String {
        options.keyMapping.variableName(for: key)
    }

    /// `EnvironmentStore`, with the `.env` file's path when there is one.
    public var storeName: String { Self.storeName(dotEnvFile: dotEnvFile) }

    static func storeName(dotEnvFile: DotEnvFile?) -> String {
        dotEnvFile.map { "EnvironmentStore(\($0.url.path(percentEncoded: false)))" } ?? "EnvironmentStore"
    }

    /// Whether the variable that holds `key` is secret.
    public func isSecret(key: String) -> Bool {
        options.secrets.isSecret(variableName: variableName(forKey: key), key: key)
    }

    /// Rereads the environment (and the `.env` file) and tells references and
    /// observers about every key whose value changed.
    ///
    /// A variable that changed in the environment replaces this store's own
    /// write of it: the newer change wins.
    /// - Throws: what reading the `.env` file throws; the store then keeps its values.
    public func reload() throws {
        let variables: [String: String]
        do {
            variables = try Self.loadVariables(from: source, dotEnvFile: dotEnvFile)
        } catch {
            state.withLock { $0.lastError = error }
            throw error
        }
        let changed = state.withLock { state in replaceVariables(with: variables, in: &state) }
        announceChanges(forKeys: changed)
    }

    /// The variables a child process should get: the environment (and `.env`
    /// file) as read, with this store's writes applied, values written as text.
    public func environmentForChildProcess() -> [String: String] {
        let (variables, overlay) = state.withLock { ($0.variables, $0.overlay) }
        var merged = variables
        for (name, entry) in overlay {
            switch entry {
            case .set(let value): merged[name] = EnvironmentValueFormatter.text(for: value)
            case .removed: merged[name] = nil
            }
        }
        return merged
    }

    // MARK: UnderlyingStorage

    public func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue? {
        try state.withLock { state in
            let name = try claimName(forKey: key, in: &state)
            return state.storedValue(forName: name)
        }
    }

    public func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws {
        try write(.set(value), forKey: key)
    }

    public func removeStoredValue(forKey key: String, _ access: BackendAccess) throws {
        try write(.removed, forKey: key)
    }

    /// Writes and compare-and-swap share the store's lock, so Stowage needs none around them.
    public static let replacesAtomically = true

    public func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
        try refuseValueWithoutText(newValue, forKey: key)
        let entry: EnvironmentState.OverlayEntry = newValue.map { .set($0) } ?? .removed
        return try state.withLock { state in
            let name = try claimName(forKey: key, in: &state)
            guard state.storedValue(forName: name) == expected else { return false }
            apply(entry, toName: name, in: &state)
            return true
        }
    }

    /// Atomic under the store's lock, like the one-key version.
    public func replaceStoredValues(
        expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess
    ) throws -> Bool {
        for (key, value) in replacements { try refuseValueWithoutText(value, forKey: key) }
        return try state.withLock { state in
            for (key, value) in expected where state.storedValue(forName: try claimName(forKey: key, in: &state)) != value {
                return false
            }
            var names: [(name: String, entry: EnvironmentState.OverlayEntry)] = []
            for (key, value) in replacements { names.append((try claimName(forKey: key, in: &state), value.map { .set($0) } ?? .removed)) }
            for (name, entry) in names { apply(entry, toName: name, in: &state) }
            return true
        }
    }

    /// The variables this store has a key for, each under that key: every
    /// variable with the `.exact` mapping; with the others, which can not be
    /// reversed, the keys read or written through the store so far.
    public func storedEntries(_ access: BackendAccess) -> [String: StoredValue] {
        state.withLock { state in
            var values: [String: StoredValue] = [:]
            let names = Set(state.variables.keys).union(state.overlay.keys)
            for name in names {
                let key: String? = if case .exact = options.keyMapping { name } else { state.keysByName[name] }
                if let key, let value = state.storedValue(forName: name) { values[key] = value }
            }
            return values
        }
    }

    /// The environment is a source of settings, not their home: writes stay
    /// in this process, so a layered store does not pick it to write to.
    public var isDefaultWriteLayer: Bool { false }

    public func decodeValue<Value: Storable>(_ stored: StoredValue, as type: Value.Type, forKey key: String) throws -> Value {
        // Values this store wrote keep their type; only text is parsed for the type read.
        guard case .string(let text) = stored else { return try Value(storedValue: stored) }
        do {
            return try Value(storedValue: try parser.storedValue(parsing: text, as: Value.self))
        } catch {
            let described = describeUnreadable(text, forKey: key, as: Value.self, error: error)
            state.withLock { $0.lastError = described }
            throw described
        }
    }

    // MARK: Internals

    private func write(_ entry: EnvironmentState.OverlayEntry, forKey key: String) throws {
        if case .set(let value) = entry { try refuseValueWithoutText(value, forKey: key) }
        try state.withLock { state in
            let name = try claimName(forKey: key, in: &state)
            apply(entry, toName: name, in: &state)
        }
    }

    private func apply(_ entry: EnvironmentState.OverlayEntry, toName name: String, in state: inout EnvironmentState) {
        state.overlay[name] = entry
        guard options.mirrorsWritesToProcessEnvironment else { return }
        switch entry {
        case .set(let value): ProcessEnvironment.set(EnvironmentValueFormatter.text(for: value), forName: name)
        case .removed: ProcessEnvironment.set(nil, forName: name)
        }
    }

    /// Refuses, naming the key, a value whose text a child process would read
    /// as another value: a date outside the years ISO 8601 text can hold.
    private func refuseValueWithoutText(_ value: StoredValue?, forKey key: String) throws(StorageError) {
        guard let value, value.holdsDateWithoutISO8601Form else { return }
        let error = StorageError(code: .encodingFailed, key: key, reason: Date.withoutISO8601FormReason)
        state.withLock { $0.lastError = error }
        throw error
    }

    /// The variable name of `key`, remembering which key uses it; a second
    /// key mapping to the same name is an error, never a silent merge.
    private func claimName(forKey key: String, in state: inout EnvironmentState) throws(StorageError) -> String {
        if let name = state.namesByKey[key] { return name }
        let name = options.keyMapping.variableName(for: key)
        if let owner = state.keysByName[name], owner != key {
            let error = StorageError(
                code: .keyConflict,
                key: key,
                reason: "the key maps to the environment variable \(name), which the key \"\(owner)\" already uses; "
                    + "two keys of one store must name different variables."
            )
            state.lastError = error
            throw error
        }
        state.namesByKey[key] = name
        state.keysByName[name] = key
        return name
    }

    /// Takes newly read variables and gives the keys whose visible value changed.
    private func replaceVariables(with variables: [String: String], in state: inout EnvironmentState) -> [String] {
        let previous = state.variables
        var changedKeys: [String] = []
        for name in Set(previous.keys).union(variables.keys) where previous[name] != variables[name] {
            let before = state.storedValue(forName: name)
            if let entry = state.overlay[name], !Self.environment(variables[name], matches: entry) {
                state.overlay[name] = nil
            }
            state.variables[name] = variables[name]
            if before != state.storedValue(forName: name), let key = state.keysByName[name] {
                changedKeys.append(key)
            }
        }
        return changedKeys
    }

    /// Whether a variable's new text is this store's own write, mirrored into the environment.
    private static func environment(_ text: String?, matches entry: EnvironmentState.OverlayEntry) -> Bool {
        switch entry {
        case .set(let value): text == EnvironmentValueFormatter.text(for: value)
        case .removed: text == nil
        }
    }

    private func describeUnreadable<Value>(_ text: String, forKey key: String, as type: Value.Type, error: any Error) -> StorageError {
        let name = variableName(forKey: key)
        let shown =
            options.secrets.isSecret(variableName: name, key: key)
            ? "environment variable \(name) (secret, its value not shown)"
            : "environment variable \(name) is \(Self.quoted(text)), which"
        if let problem = error as? EnvironmentTextProblem {
            var reason = "\(shown) is not \(problem.expected)"
            if let detail = problem.detail { reason += ": \(detail)" }
            if !reason.hasSuffix(".") { reason += "." }
            return StorageError(code: problem.isOutOfRange ? .valueOutOfRange : .typeMismatch, key: key, reason: reason)
        }
        let storageError = error as? StorageError
        return StorageError(
            code: storageError?.code ?? .invalidValue,
            key: key,
            reason: "\(shown) can not be read as \(Value.self): \(storageError?.reason ?? "\(error)")"
        )
    }

    /// The text as a Swift string literal, cut short when long.
    private static func quoted(_ text: String) -> String {
        let limit = 80
        let shown = text.count > limit ? String(text.prefix(limit)) + "…" : text
        return String(reflecting: shown)
    }
}

/// The property wrapper for ``EnvironmentStore``: `@EnvironmentStorage("server.port") var port = 8080`.
public typealias EnvironmentStorage<Value: Storable> = Stored<EnvironmentStore, Value>
