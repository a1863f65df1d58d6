/// Several stores read as one, with a precedence: a read takes the first
/// layer that has the key, and writes go to one layer.
///
/// ```swift
/// let settings = LayeredStore([environment, configFile, defaults])
/// let timeout: Double? = try settings.value(forKey: "network.timeout")
/// print(settings.origin(forKey: "network.timeout")?.name ?? "not set")
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
    /// Keeps this store subscribed to its layers' changes.
    let subscriptions = Locked<[ObservationToken]>([])

    /// - Parameters:
    ///   - layers: highest precedence first.
    ///   - writeTarget: the layer that takes writes.
    ///   - shadowedWrites: what to do with a write a higher layer shadows.
    public init(_ layers: [Layer], writingTo writeTarget: WriteTarget = .automatic, shadowedWrites: ShadowedWritePolicy = .report) {
        self.layers = layers
        self.shadowedWritePolicy = shadowedWrites
        switch writeTarget {
        case .automatic: writeLayerIndex = layers.firstIndex { $0.store.isDefaultWriteLayer }
        case .store(let store): writeLayerIndex = layers.firstIndex { $0.store === store }
        case .none: writeLayerIndex = nil
        }
        subscribeToLayers()
    }

    /// Layers named after their stores' types, highest precedence first.
    public convenience init(_ stores: [any UnderlyingStorage], writingTo writeTarget: WriteTarget = .automatic, shadowedWrites: ShadowedWritePolicy = .report) {
        self.init(stores.map { Layer($0) }, writingTo: writeTarget, shadowedWrites: shadowedWrites)
    }

    /// The layer a read of `key` takes its value from, or `nil` when no layer has it.
    public func origin(forKey key: String) -> Layer? {
        layers.first { $0.store.holdsValue(forKey: key) }
    }

    // MARK: UnderlyingStorage

    public func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue? {
        try firstValue(forKey: key)?.value
    }

    /// Asks the layer the value came from, so the environment parses its own text.
    public func decodeValue<Value: Storable>(_ stored: StoredValue, as type: Value.Type, forKey key: String) throws -> Value {
        guard let origin = try firstValue(forKey: key), origin.value == stored else { return try Value(storedValue: stored) }
        return try layers[origin.layerIndex].store.decodeValue(stored, as: type, forKey: key)
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
        try replaceStoredValues(expecting: [key: expected], with: [key: newValue], access)
    }

    /// Every layer's, so a write is durable in whichever layer took it.
    public func commitPendingWrites() async throws {
        for layer in layers { try await layer.store.commitPendingWrites() }
    }

    public func replaceStoredValues(
        expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess
    ) throws -> Bool {
        guard let writeIndex = writeLayerIndex else { throw readOnlyError(key: replacements.keys.first) }
        let store = layers[writeIndex].store
        var expectedInWriteLayer: [String: StoredValue?] = [:]
        for (key, value) in expected {
            let visible = try firstValue(forKey: key)
            guard visible?.value == value else { return false }
            // What the write layer's compare-and-swap checks. Read from the
            // layer again only when a higher layer shadows it: a value seen in
            // a lower layer, or none, means the write layer held nothing, and
            // a fresh read would let a racing write through unseen.
            switch visible?.layerIndex {
            case writeIndex?: expectedInWriteLayer[key] = value
            case let index? where index < writeIndex: expectedInWriteLayer[key] = try store.storedValue(forKey: key, access)
            default: expectedInWriteLayer[key] = .some(nil)
            }
        }
        var shadowed: [String] = []
        for (key, value) in replacements where try checkShadowing(ofKey: key, below: writeIndex, removing: value == nil) {
            shadowed.append(key)
        }
        guard try store.replaceStoredValues(expecting: expectedInWriteLayer, with: replacements, access) else { return false }
        store.announceChanges(forKeys: replacements.keys)
        announceChanges(forKeys: shadowed)
        return true
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

    /// What ``storedEntries(_:)`` gives, with the name of the layer each value comes from.
    public func snapshot() throws -> StoreSnapshot {
        let entries = try layeredEntries(.granted)
        var snapshot = StoreSnapshot(
            entries.mapValues(\.value),
            secretKeys: Set(entries.keys.filter { isSecret(key: $0) }),
            origins: entries.mapValues { layers[$0.layerIndex].name }
        )
        snapshot.decodingLayers = entries.mapValues { layers[$0.layerIndex].store }
        return snapshot
    }

    private func layeredEntries(_ access: BackendAccess) throws -> [String: (value: StoredValue, layerIndex: Int)] {
        var keys: Set<String> = []
        for layer in layers {
            do { keys.formUnion(try layer.store.storedEntries(access).keys) } catch let error as StorageError where error.code == .unsupported {
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
        layers.contains { $0.store.isSecret(key: key) }
    }

    public var isDefaultWriteLayer: Bool {
        writeLayerIndex.map { layers[$0].store.isDefaultWriteLayer } ?? false
    }

    /// `LayeredStore(` the layers' names, highest first `)`.
    public var storeName: String {
        "LayeredStore(\(layers.map(\.name).joined(separator: ", ")))"
    }

    // MARK: Internals

    private func firstValue(forKey key: String) throws -> (value: StoredValue, layerIndex: Int)? {
        for (index, layer) in layers.enumerated() {
            let value: StoredValue?
            do { value = try layer.store.storedValue(forKey: key, .granted) } catch {
                throw StorageError.wrapping(error, key: key, code: .storeFailure, reason: "layer \"\(layer.name)\" could not be read.")
            }
            if let value, value != .null { return (value, index) }
        }
        return nil
    }

    private func write(_ value: StoredValue?, forKey key: String) throws {
        let target = try writeLayer(forKey: key)
        let isShadowed = try checkShadowing(ofKey: key, below: target.index, removing: value == nil)
        try target.store.writeRaw(value, forKey: key)
        target.store.announceChange(forKey: key)
        // The layer's announcement stops here, the key being shadowed; this one
        // keeps the writing reference from caching what it wrote, which reads
        // do not give.
        if isShadowed { announceChange(forKey: key) }
    }

    private func writeLayer(forKey key: String) throws -> (index: Int, store: any UnderlyingStorage) {
        guard let index = writeLayerIndex else { throw readOnlyError(key: key) }
        return (index, layers[index].store)
    }

    private func readOnlyError(key: String?) -> StorageError {
        StorageError(code: .readOnly, key: key, reason: "the layered store has no layer that takes writes.")
    }

    /// Reports (or refuses, as the policy says) a write to `key` that a layer
    /// above the write layer would hide: the value read back would not be
    /// the value written.
    /// - Returns: whether the write is shadowed.
    private func checkShadowing(ofKey key: String, below writeIndex: Int, removing: Bool) throws -> Bool {
        guard let shadowing = layers[..<writeIndex].first(where: { $0.store.holdsValue(forKey: key) }) else { return false }
        let action = removing ? "removing it from" : "writing it to"
        let error = StorageError(
            code: .shadowedWrite, key: key,
            reason: "layer \"\(shadowing.name)\" has a value, so reads still give that value after \(action) layer \"\(layers[writeIndex].name)\"."
        )
        switch shadowedWritePolicy {
        case .report: error.report(from: self)
        case .fail: throw error
        }
        return true
    }
}
