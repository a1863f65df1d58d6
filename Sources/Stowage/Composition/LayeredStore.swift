import StowageLocking

/// Stores composed into one: layers read with a precedence (a read takes the
/// first layer that has the key, and writes go to one layer), and keys under
/// a prefix (a namespace).
///
/// ```swift
/// let settings = LayeredStore([.init("environment", environment), .init("config file", configFile), .init("defaults", defaults)])
/// let timeout: Double? = try settings.value(forKey: "network.timeout")
/// print(settings.origin(forKey: "network.timeout")?.name ?? "not set")
///
/// let network = settings.namespace("network")   // a LayeredStore too
/// let sameTimeout: Double? = try network.value(forKey: "timeout")
/// ```
///
/// It is a store like any other, so references, wrappers, dynamic lookup,
/// typed keys and observation work on it. A change in any layer reaches its
/// references when no higher layer shadows the key; observers are told only
/// when the value they read changes.
public final class LayeredStore: UnderlyingStorage, Sendable {
    /// One store of the stack, with a name for messages and ``origin(forKey:)``.
    public struct Layer: Sendable {
        public let name: String
        public let store: any UnderlyingStorage

        public init(_ name: String, _ store: any UnderlyingStorage) {
            self.name = name
            self.store = store
        }

        /// A layer named after its store's type.
        init(_ store: any UnderlyingStorage) {
            self.init(String(describing: type(of: store)), store)
        }
    }

    /// Which layer takes writes.
    public enum WriteTarget: Sendable {
        /// The first layer whose store says it is the home of new values (``UnderlyingStorage/isDefaultWriteLayer``).
        case automatic
        /// The layer holding this store (compared by identity).
        case store(any UnderlyingStorage)
        /// No layer: every write fails with `.readOnly`.
        case none
    }

    /// What to do with a write that a higher layer shadows.
    public enum ShadowedWritePolicy: Sendable {
        /// Write it, and report a `.shadowedWrite` error to
        /// `StowageReport.handler`: reads still give the higher layer's value.
        case report
        /// Refuse it with a `.shadowedWrite` error, writing nothing.
        case fail
    }

    /// The layers, highest precedence first.
    public let layers: [Layer]
    /// The index in ``layers`` of the layer that takes writes, if any.
    package let writeLayerIndex: Int?
    let shadowedWritePolicy: ShadowedWritePolicy
    /// What every key of this store starts with in its layers, the separator
    /// included; empty unless the store is a namespace (``UnderlyingStorage/namespace(_:separator:)``).
    package let keyPrefix: String
    /// The store of a namespace of one store that takes its writes: asked
    /// directly, as the namespace passes everything through to it, with no
    /// walk over layers (half the cost of an uncached read) and no precedence
    /// to keep. A read-only one goes the layered way, which refuses writes.
    private let onlyLayer: (any UnderlyingStorage)?
    /// Keeps this store subscribed to its layers' changes.
    let subscriptions = Locked<[ObservationToken]>([])

    /// - Parameters:
    ///   - layers: highest precedence first.
    ///   - writeTarget: the layer that takes writes.
    ///   - shadowedWrites: what to do with a write a higher layer shadows.
    public convenience init(_ layers: [Layer], writingTo writeTarget: WriteTarget = .automatic, shadowedWrites: ShadowedWritePolicy = .report) {
        let writeLayerIndex: Int?
        switch writeTarget {
        case .automatic: writeLayerIndex = layers.firstIndex { $0.store.isDefaultWriteLayer }
        case .store(let store): writeLayerIndex = layers.firstIndex { $0.store === store }
        case .none: writeLayerIndex = nil
        }
        self.init(layers: layers, writeLayerIndex: writeLayerIndex, shadowedWritePolicy: shadowedWrites, keyPrefix: "")
    }

    /// - Parameter keyPrefix: what each key is stored under in the layers; see ``UnderlyingStorage/namespace(_:separator:)``.
    init(layers: [Layer], writeLayerIndex: Int?, shadowedWritePolicy: ShadowedWritePolicy, keyPrefix: String) {
        self.layers = layers
        self.writeLayerIndex = writeLayerIndex
        self.shadowedWritePolicy = shadowedWritePolicy
        self.keyPrefix = keyPrefix
        onlyLayer = layers.count == 1 && !keyPrefix.isEmpty && writeLayerIndex == 0 ? layers[0].store : nil
        subscribeToLayers()
    }

    /// Layers named after their stores' types, highest precedence first: for
    /// this package's tests. Users name their layers, which messages and
    /// snapshots then show ("layer \"environment\" has a value").
    package convenience init(_ stores: [any UnderlyingStorage], writingTo writeTarget: WriteTarget = .automatic, shadowedWrites: ShadowedWritePolicy = .report)
    {
        self.init(stores.map { Layer($0) }, writingTo: writeTarget, shadowedWrites: shadowedWrites)
    }

    /// The layer a read of `key` takes its value from, or `nil` when no layer has it.
    public func origin(forKey key: String) -> Layer? {
        let key = layerKey(forKey: key)
        return layers.first { $0.store.holdsValue(forKey: key) }
    }

    // MARK: UnderlyingStorage

    public func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue? {
        if let onlyLayer { return try onlyLayer.storedValue(forKey: layerKey(forKey: key), access) }
        return try firstValue(forKey: key)?.value
    }

    /// Asks the layer the value came from, so the environment parses its own text.
    public func decodeValue<Value: Storable>(_ stored: StoredValue, as type: Value.Type, forKey key: String) throws -> Value {
        if let onlyLayer { return try onlyLayer.decodeValue(stored, as: type, forKey: layerKey(forKey: key)) }
        guard let origin = try firstValue(forKey: key), origin.value == stored else { return try Value(storedValue: stored) }
        return try layers[origin.layerIndex].store.decodeValue(stored, as: type, forKey: layerKey(forKey: key))
    }

    public func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws {
        try write(value, forKey: key)
    }

    public func removeStoredValue(forKey key: String, _ access: BackendAccess) throws {
        try write(nil, forKey: key)
    }

    /// Atomic as the write layer's own compare-and-swap is.
    public static let replacesAtomically = true

    /// Compares with what a read gives (whichever layer it comes from) and
    /// replaces in the write layer, atomically with that layer's writes.
    /// A change to another layer in between is not detected.
    public func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
        guard let swap = try plannedSwap(forKey: key, expecting: expected, removing: newValue == nil),
            try swap.store.replaceStoredValue(forKey: swap.layerKey, expecting: swap.expected, with: newValue, access)
        else { return false }
        didReplace(key, in: swap.store, isShadowed: swap.isShadowed)
        return true
    }

    /// As the synchronous one, awaiting the write layer's own asynchronous
    /// compare-and-swap (a database's, say) instead of blocking a thread.
    public func replaceStoredValue(
        forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess
    ) async throws -> Bool {
        guard let swap = try plannedSwap(forKey: key, expecting: expected, removing: newValue == nil),
            try await swap.store.replaceStoredValue(forKey: swap.layerKey, expecting: swap.expected, with: newValue, access)
        else { return false }
        didReplace(key, in: swap.store, isShadowed: swap.isShadowed)
        return true
    }

    /// A one-key compare-and-swap, as the write layer is to make it.
    private struct PlannedSwap {
        let store: any UnderlyingStorage
        let layerKey: String
        /// What the layer must hold for a read of the key to give what the caller expects.
        let expected: StoredValue?
        let isShadowed: Bool
    }

    /// The swap both compare-and-swaps make, or `nil` when a read already
    /// gives something other than `expected`. A namespace of one store passes
    /// it straight through; otherwise it goes to the write layer, reported
    /// (or refused) when a higher layer shadows the key.
    private func plannedSwap(forKey key: String, expecting expected: StoredValue?, removing: Bool) throws -> PlannedSwap? {
        if let onlyLayer { return PlannedSwap(store: onlyLayer, layerKey: layerKey(forKey: key), expected: expected, isShadowed: false) }
        let (writeIndex, store) = try writeLayer(forKey: key)
        guard case .some(let expectedInWriteLayer) = try expectation(forKey: key, expecting: expected, writeIndex: writeIndex) else { return nil }
        let isShadowed = try checkShadowing(ofKey: key, below: writeIndex, removing: removing)
        return PlannedSwap(store: store, layerKey: layerKey(forKey: key), expected: expectedInWriteLayer, isShadowed: isShadowed)
    }

    /// Every layer's, so a write is durable in whichever layer took it.
    public func commitPendingWrites() async throws {
        for layer in layers { try await layer.store.commitPendingWrites() }
    }

    public func replaceStoredValues(
        expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess
    ) throws -> Bool {
        if let onlyLayer {
            let layerExpected = Dictionary(uniqueKeysWithValues: expected.map { (layerKey(forKey: $0.key), $0.value) })
            let layerReplacements = Dictionary(uniqueKeysWithValues: replacements.map { (layerKey(forKey: $0.key), $0.value) })
            guard try onlyLayer.replaceStoredValues(expecting: layerExpected, with: layerReplacements, access) else { return false }
            onlyLayer.announceChanges(forKeys: layerReplacements.keys)
            return true
        }
        guard let writeIndex = writeLayerIndex else { throw readOnlyError(key: replacements.keys.first.map(layerKey(forKey:))) }
        let store = layers[writeIndex].store
        var expectedInWriteLayer: [String: StoredValue?] = [:]
        for (key, value) in expected {
            guard case .some(let inWriteLayer) = try expectation(forKey: key, expecting: value, writeIndex: writeIndex) else { return false }
            expectedInWriteLayer[layerKey(forKey: key)] = inWriteLayer
        }
        var shadowed: [String] = []
        for (key, value) in replacements where try checkShadowing(ofKey: key, below: writeIndex, removing: value == nil) {
            shadowed.append(key)
        }
        let layerReplacements = Dictionary(uniqueKeysWithValues: replacements.map { (layerKey(forKey: $0.key), $0.value) })
        guard try store.replaceStoredValues(expecting: expectedInWriteLayer, with: layerReplacements, access) else { return false }
        store.announceChanges(forKeys: layerReplacements.keys)
        announceChanges(forKeys: shadowed)
        return true
    }

    /// What the write layer's compare-and-swap must find for a read of `key`
    /// to give `expected`; `nil` when a read gives something else, so the swap
    /// fails at once. Read from the write layer again only when a higher layer
    /// shadows it: a value seen in a lower layer, or none, means the write
    /// layer held nothing, and a fresh read would let a racing write through unseen.
    private func expectation(forKey key: String, expecting expected: StoredValue?, writeIndex: Int) throws -> StoredValue?? {
        let visible = try firstValue(forKey: key)
        guard visible?.value == expected else { return nil }
        let writeStore = layers[writeIndex].store
        switch visible?.layerIndex {
        case writeIndex?: return .some(expected)
        case let index? where index < writeIndex: return .some(try writeStore.storedValue(forKey: layerKey(forKey: key), .granted))
        default:
            // Nothing visible: the write layer holds nothing, or a null, which
            // reads skip; expecting nothing would then fail every try, forever.
            return .some(try writeStore.storedValue(forKey: layerKey(forKey: key), .granted) == .null ? .null : nil)
        }
    }

    /// Announces a swapped key: in the write layer, which passes it on here
    /// unless a higher layer shadows it; then here too, so the writing
    /// reference does not cache what it wrote, which reads do not give.
    private func didReplace(_ key: String, in store: any UnderlyingStorage, isShadowed: Bool) {
        store.announceChange(forKey: layerKey(forKey: key))
        if isShadowed { announceChange(forKey: key) }
    }

    /// Every key any layer lists, each with the value a read gives: the
    /// value of the first layer that has the key, as that layer holds it.
    ///
    /// A layer that lists only part of what it holds (the environment lists
    /// the keys already read) is still asked for every key listed anywhere,
    /// so a value it shadows never shows through. A layer that can not list
    /// (`.unsupported`) adds no keys but is asked too. Not atomic across
    /// layers: each is read at its own moment.
    public func storedEntries(_ access: BackendAccess) throws -> [String: StoredValue] {
        try layeredEntries(access).mapValues(\.value)
    }

    /// What ``storedEntries(_:)`` gives, with the name of the layer each
    /// value comes from (a namespace of one store has no layers to name).
    public func snapshot() throws -> StoreSnapshot {
        let entries = try layeredEntries(.granted)
        var snapshot = StoreSnapshot(
            entries.mapValues(\.value),
            secretKeys: Set(entries.keys.filter { isSecret(key: $0) }),
            origins: onlyLayer == nil ? entries.mapValues { layers[$0.layerIndex].name } : [:]
        )
        snapshot.decodingLayers = entries.mapValues { layers[$0.layerIndex].store }
        snapshot.decodingLayerKeyPrefix = keyPrefix
        return snapshot
    }

    private func layeredEntries(_ access: BackendAccess) throws -> [String: (value: StoredValue, layerIndex: Int)] {
        if let onlyLayer {
            // Its own list, as it holds it: no key to look up again.
            var entries: [String: (value: StoredValue, layerIndex: Int)] = [:]
            for (layerKey, value) in try onlyLayer.storedEntries(access) where value != .null {
                if let key = key(forLayerKey: layerKey) { entries[key] = (value, 0) }
            }
            return entries
        }
        var keys: Set<String> = []
        for layer in layers {
            do { keys.formUnion(try layer.store.storedEntries(access).keys.compactMap(key(forLayerKey:))) } catch let error as StorageError
                where error.code == .unsupported
            {
                continue
            } catch let error as StorageError {
                throw error
            } catch {
                throw StorageError(code: .storeFailure, reason: "layer \"\(layer.name)\" could not be listed.", underlyingError: error)
            }
        }
        var entries: [String: (value: StoredValue, layerIndex: Int)] = [:]
        for key in keys {
            if let found = try firstValue(forKey: key) { entries[key] = found }
        }
        return entries
    }

    /// Secret when any layer says so.
    public func isSecret(key: String) -> Bool {
        let key = layerKey(forKey: key)
        return layers.contains { $0.store.isSecret(key: key) }
    }

    public var isDefaultWriteLayer: Bool {
        writeLayerIndex.map { layers[$0].store.isDefaultWriteLayer } ?? false
    }

    /// `LayeredStore(` the layers' names, highest first `)`; a namespace's
    /// is `Namespace("network." in ` its layers `)`.
    public var storeName: String {
        let layered = "LayeredStore(\(layers.map(\.name).joined(separator: ", ")))"
        guard !keyPrefix.isEmpty else { return layered }
        return "Namespace(\"\(keyPrefix)\" in \(layers.count == 1 ? layers[0].store.storeName : layered))"
    }

    // MARK: Internals

    private func firstValue(forKey key: String) throws -> (value: StoredValue, layerIndex: Int)? {
        let layerKey = layerKey(forKey: key)
        for (index, layer) in layers.enumerated() {
            let value: StoredValue?
            do { value = try layer.store.storedValue(forKey: layerKey, .granted) } catch {
                throw StorageError.wrapping(error, key: layerKey, code: .storeFailure, reason: "layer \"\(layer.name)\" could not be read.")
            }
            if let value, value != .null { return (value, index) }
        }
        return nil
    }

    private func write(_ value: StoredValue?, forKey key: String) throws {
        let target = try writeLayer(forKey: key)
        let isShadowed = try checkShadowing(ofKey: key, below: target.index, removing: value == nil)
        try target.store.writeRaw(value, forKey: layerKey(forKey: key))
        didReplace(key, in: target.store, isShadowed: isShadowed)
    }

    private func writeLayer(forKey key: String) throws -> (index: Int, store: any UnderlyingStorage) {
        guard let index = writeLayerIndex else { throw readOnlyError(key: layerKey(forKey: key)) }
        return (index, layers[index].store)
    }

    /// Errors about the layers name the key as the layers hold it: an
    /// operator looks for `network.timeout` there, not a namespace's `timeout`.
    func readOnlyError(key: String?) -> StorageError {
        StorageError(code: .readOnly, key: key, reason: "the layered store has no layer that takes writes.")
    }

    /// Reports (or refuses, as the policy says) a write to `key` that a layer
    /// above the write layer would hide: the value read back would not be
    /// the value written.
    /// - Returns: whether the write is shadowed.
    private func checkShadowing(ofKey key: String, below writeIndex: Int, removing: Bool) throws -> Bool {
        let layerKey = layerKey(forKey: key)
        guard let shadowing = layers[..<writeIndex].first(where: { $0.store.holdsValue(forKey: layerKey) }) else { return false }
        let action = removing ? "removing it from" : "writing it to"
        let error = StorageError(
            code: .shadowedWrite, key: layerKey,
            reason: "layer \"\(shadowing.name)\" has a value, so reads still give that value after \(action) layer \"\(layers[writeIndex].name)\"."
        )
        switch shadowedWritePolicy {
        case .report: error.report(from: self)
        case .fail: throw error
        }
        return true
    }
}
