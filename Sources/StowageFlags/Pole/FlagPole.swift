#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import StowageInMemory
import StowageJSONFile
import StowageLocking

/// A flag container, opened: every flag read through one layered store of
/// local overrides over remote values over the declared defaults.
///
/// ```swift
/// let flags = try FlagPole(AppFlags(), overrides: JSONFileStore(url: overridesURL))
/// if flags.newCheckout { /* ... */ }               // read-only, typed, through key paths
/// try flags.update(with: payload)                  // what the server sent
/// try flags.override(\.newCheckout, with: true)     // local, durable
/// for flag in flags.all { print(flag.key, flag.value, flag.origin) }
/// for await isOn in flags.changes(\.newCheckout) { print(isOn) }
/// ```
///
/// A read costs what a wrapper read costs: each flag reads through the
/// shared reference of its key in ``store``, which caches the decoded value.
/// The pole's own members (`all`, `changes`, `update`, …) hide flags of the
/// same name from `flags.name`; read such a flag as `flags[\.name]`.
@dynamicMemberLookup
public final class FlagPole<Container: FlagContainer>: Sendable {
    /// The container whose flags the pole reads; its flags are bound to ``store``.
    @usableFromInline let container: Container
    /// A second copy, never bound, read to find which flag a key path names.
    let probe: Container
    let catalog: FlagCatalog
    let probeIndex: [ObjectIdentifier: Int]
    let probeDeclarations: [any AnyFlagDeclaration]
    let keyPathIndex = Locked<[KeyPathKey: Int]>([:])
    /// Each flag's reference in ``store``, kept here: flags read them through readers that do not keep them.
    let references: [any Sendable]

    /// The flags by key: the layered store, listing, overrides, remote updates.
    let board: FlagBoard
    /// How keys are built from the declaration.
    public let keyStrategy: StorageKeyStrategy
    public let options: Options

    /// The layered store every flag reads: ``overrides`` over ``remote`` over the defaults.
    public var store: LayeredStore { board.store }
    /// Where local overrides are kept.
    public var overrides: any UnderlyingStorage { board.overrides }
    /// Where remote values are kept: ``update(with:mode:)-(Sequence<UInt8>,_)`` writes them there.
    public var remote: any UnderlyingStorage { board.remote }

    /// The key under which ``update(with:mode:)-(Sequence<UInt8>,_)`` records, in ``remote``, when it last applied a payload.
    public static var remoteUpdateTimeKey: String { FlagBoard.remoteUpdateTimeKey }

    /// The key under which ``remote`` keeps the flags' configurations in
    /// flagd's format, when a payload of definitions sent them.
    public static var configurationsKey: String { FlagConfigurations.storeKey }

    /// Opens a flag container.
    ///
    /// - Parameters:
    ///   - container: an expression that makes the container, `AppFlags()`.
    ///     It is evaluated twice: once for the flags the pole reads, once for
    ///     a copy that tells which flag a key path names.
    ///   - keyStrategy: the separator, case style and prefix of every key;
    ///     kebab-case joined by `.` unless told otherwise. One declaration
    ///     serves any number of strategies.
    ///   - overrides: where local overrides live; `nil` for a JSON file
    ///     beside `JSONFileStore.defaultLocation`, named after the container
    ///     (``defaultOverridesURL``).
    ///   - remote: where remote values live; an `InMemoryStore` unless told
    ///     otherwise. A `JSONFileStore` keeps the last payload across
    ///     restarts; any store can be the source (a file an operations tool
    ///     writes, the environment).
    ///   - options: what a remote update does to overrides.
    /// - Throws: `StorageError` with code `.keyConflict` when two flags have
    ///   one key (the error names both), when the container's flags are
    ///   already open in another pole, and when `container` is a variable
    ///   rather than an expression that makes a new container.
    public init(
        _ container: @autoclosure () -> Container,
        keyStrategy: StorageKeyStrategy = StorageKeyStrategy(caseStyle: .kebabCase),
        overrides: (any UnderlyingStorage)? = nil,
        remote: any UnderlyingStorage = InMemoryStore(),
        options: Options = Options()
    ) throws(StorageError) {
        let live = container()
        let probe = container()
        let catalog = try FlagCatalog(live, keyStrategy: keyStrategy, reservedKeys: [Self.remoteUpdateTimeKey, FlagConfigurations.storeKey])
        let probeFlags = FlagCatalog.flags(in: probe)
        guard probeFlags.count == catalog.declarations.count,
            !zip(probeFlags, catalog.declarations).contains(where: { $0.declaration === $1 || $0.declaration.isBound })
        else {
            throw StorageError(
                code: .keyConflict,
                reason:
                    "FlagPole needs an expression that makes a new \(Container.self) each time it is evaluated (FlagPole(\(Container.self)())), not a variable holding one."
            )
        }
        let board = FlagBoard(
            definitions: catalog.definitions, checkers: catalog.declarations, containerName: String(describing: Container.self),
            separator: keyStrategy.separator, overrides: overrides ?? JSONFileStore(url: Self.defaultOverridesURL), remote: remote,
            bucketing: options.fractionalBucketing
        )
        let store = board.store
        var references: [any Sendable] = []
        for (index, declaration) in catalog.declarations.enumerated() {
            guard let reference = declaration.bind(in: store, key: catalog.definitions[index].key) else {
                for bound in catalog.declarations[..<index] { bound.unbind() }
                throw StorageError(
                    code: .keyConflict, key: catalog.definitions[index].key,
                    reason:
                        "this flag of \(Container.self) is already open in another FlagPole, or appears twice in the container; make each container and group with a new expression (\(Container.self)())."
                )
            }
            references.append(reference)
        }
        for (index, declaration) in catalog.declarations.enumerated() {
            declaration.attachTargeting(FlagTargetingReader(board: board, key: catalog.definitions[index].key))
        }
        board.loadConfigurations()
        self.references = references
        self.container = live
        self.probe = probe
        self.catalog = catalog
        self.probeIndex = Dictionary(probeFlags.enumerated().map { (ObjectIdentifier($1.declaration), $0) }, uniquingKeysWith: { first, _ in first })
        self.probeDeclarations = probeFlags.map(\.declaration)
        self.board = board
        self.keyStrategy = keyStrategy
        self.options = options
    }

    deinit {
        for declaration in catalog.declarations { declaration.unbind() }
    }

    /// What a pole does beyond reading.
    public struct Options: Sendable, Hashable {
        /// Whether ``FlagPole/update(with:mode:)-(Sequence<UInt8>,_)`` removes the override of each
        /// flag the payload sets, so the server's value wins (the rule of
        /// systems where overrides are for trying a change until the next
        /// sync). `false`, the default, keeps overrides until they are removed.
        ///
        /// The overrides are removed right after the remote values are
        /// written, not in the same step: the two are different stores. A
        /// reader in between sees the new remote values with the old
        /// overrides still over them.
        public var remoteUpdatesClearOverrides: Bool
        /// How `fractional` splits in targeting rules bucket: as
        /// openfeature-flagd-core 2.0.0 does (the default), or as flagd
        /// v0.16.1's Go evaluator does; pick what the other providers reading
        /// the same rules run (see ``FractionalBucketing``).
        public var fractionalBucketing: FractionalBucketing

        public init(remoteUpdatesClearOverrides: Bool = false, fractionalBucketing: FractionalBucketing = .flagdCore) {
            self.remoteUpdatesClearOverrides = remoteUpdatesClearOverrides
            self.fractionalBucketing = fractionalBucketing
        }
    }

    /// Where overrides live unless the pole is given a store: beside
    /// `JSONFileStore.defaultLocation`, `<container in kebab case>.overrides.json`.
    public static var defaultOverridesURL: URL {
        let name = StorageKeyStrategy.CaseStyle.kebabCase.apply(to: String(describing: Container.self))
        return JSONFileStore.defaultLocation.deletingLastPathComponent().appending(path: "\(name).overrides.json")
    }

    // MARK: Reading

    /// A flag's value, or a group of flags: `flags.newCheckout`, `flags.search.vectorIndex`.
    @inlinable
    public subscript<Value>(dynamicMember keyPath: KeyPath<Container, Value>) -> Value {
        container[keyPath: keyPath]
    }

    /// A flag's value, for a flag whose name a member of the pole hides: `flags[\.all]`.
    @inlinable
    public subscript<Value>(keyPath: KeyPath<Container, Value>) -> Value {
        container[keyPath: keyPath]
    }

    /// Every flag's definition, in declaration order (groups depth first).
    public var definitions: [FlagDefinition] { board.definitions }

    /// The definition of the flag with `key`.
    public func definition(forKey key: String) -> FlagDefinition? {
        board.indexByKey[key].map { board.definitions[$0] }
    }

    // MARK: Key paths

    /// The position of the flag `keyPath` names.
    /// - Throws: `StorageError` when it names no flag, or several, or a flag of another type.
    func index<Value: Storable>(of keyPath: KeyPath<Container, Value>) throws(StorageError) -> Int {
        let cacheKey = KeyPathKey(keyPath)
        if let known = keyPathIndex.withLock({ $0[cacheKey] }) { return known }
        let probe = self.probe
        let read = { try? probe[keyPath: keyPath].storedValue() }
        let first = FlagProbe.reads(read)
        let indices = first.seen.compactMap { probeIndex[$0.declaration] }
        guard indices.count == 1, let index = indices.first else {
            let found = indices.isEmpty ? "no flag" : "\(indices.count) flags (\(indices.map { catalog.definitions[$0].key }.joined(separator: ", ")))"
            throw notOneFlag(keyPath, reads: found)
        }
        guard catalog.declarations[index] is FlagDeclaration<Value> else {
            throw StorageError(
                code: .typeMismatch, key: catalog.definitions[index].key,
                reason: "the key path \(keyPath) gives a \(Value.self), but the flag it reads is a \(catalog.definitions[index].type.name)."
            )
        }
        // The key path must give the flag's value as it is, whatever it is.
        var gaveTheFlag = first.result == first.seen[0].gave
        if gaveTheFlag, let other = probeDeclarations[index].valueOtherThanDefault() {
            let second = FlagProbe.reads(substituting: (first.seen[0].declaration, other), read)
            gaveTheFlag = second.seen.count == 1 && second.seen[0].declaration == first.seen[0].declaration && second.result == second.seen[0].gave
        }
        guard gaveTheFlag else { throw notOneFlag(keyPath, reads: "more than flag \(catalog.definitions[index].key) alone") }
        keyPathIndex.withLock { $0[cacheKey] = index }
        return index
    }

    private func notOneFlag(_ keyPath: AnyKeyPath, reads found: String) -> StorageError {
        StorageError(
            code: .unsupported,
            reason: "the key path \(keyPath) reads \(found) of \(Container.self); name one flag's property, as \\.search.vectorIndex does."
        )
    }

    /// The declaration of the flag `keyPath` names, with its type.
    func declaration<Value: Storable>(of keyPath: KeyPath<Container, Value>) throws(StorageError) -> (index: Int, declaration: FlagDeclaration<Value>) {
        let index = try index(of: keyPath)
        // `index(of:)` checked the declaration's type.
        return (index, unsafeDowncast(catalog.declarations[index] as AnyObject, to: FlagDeclaration<Value>.self))
    }

    /// The reference of the flag `keyPath` names, with its default.
    func reference<Value: Storable>(of keyPath: KeyPath<Container, Value>) throws(StorageError) -> DefaultedReference<LayeredStore, Value> {
        let (index, declaration) = try declaration(of: keyPath)
        let defaultValue = declaration.defaultValue
        return DefaultedReference(store.reference(forKey: catalog.definitions[index].key, as: Value.self), default: { defaultValue })
    }
}

/// A key path as a dictionary key. Key paths are immutable objects that
/// are not marked `Sendable`; one is never changed after it is made, so
/// sharing it between threads is safe.
struct KeyPathKey: Hashable, @unchecked Sendable {
    let keyPath: AnyKeyPath

    init(_ keyPath: AnyKeyPath) {
        self.keyPath = keyPath
    }
}
