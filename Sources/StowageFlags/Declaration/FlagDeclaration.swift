public import Synchronization

/// What one `@Flag` declares, and, once a ``FlagPole`` has opened the
/// container, the reference the flag reads through.
///
/// The binding is set once, after the declaration is made (the pole finds
/// flags by reflection only once the container exists), and read on every
/// flag read, so it is published through an atomic word: a read is one
/// acquiring load, no lock and no retain. The declaration owns the binding
/// (one retain, taken when it is set and given back in `deinit`), so the
/// binding lives exactly as long as any copy of the container.
@usableFromInline
final class FlagDeclaration<Value: Storable>: Sendable {
    let defaultValue: Value
    let description: String
    let key: FlagKey
    /// The address of the `FlagBinding`, or 0 while the container is not open in a pole.
    @usableFromInline let bindingAddress = Atomic<UInt>(0)

    init(defaultValue: Value, description: String, key: FlagKey) {
        self.defaultValue = defaultValue
        self.description = description
        self.key = key
    }

    deinit {
        let address = bindingAddress.load(ordering: .acquiring)
        if let pointer = UnsafeRawPointer(bitPattern: address) {
            Unmanaged<FlagBinding<Value>>.fromOpaque(pointer).release()
        }
    }

    /// The binding, once the container is open in a pole.
    @inlinable
    var binding: FlagBinding<Value>? {
        guard let pointer = UnsafeRawPointer(bitPattern: bindingAddress.load(ordering: .acquiring)) else { return nil }
        return Unmanaged<FlagBinding<Value>>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The value: through the pole's reference, or the default outside a pole.
    @inlinable
    var value: Value {
        guard let pointer = UnsafeRawPointer(bitPattern: bindingAddress.load(ordering: .acquiring)) else { return unboundValue() }
        return Unmanaged<FlagBinding<Value>>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.reference.value }
    }

    /// Outside a pole: the default. A pole finding out which flag a key path
    /// names reads it here, on its second copy of the container, which no
    /// pole binds.
    @usableFromInline
    func unboundValue() -> Value {
        FlagProbe.value(of: self)
    }

    /// Binds the flag to `reference`, once.
    /// - Returns: `false` when another pole bound it first.
    func bind(_ binding: FlagBinding<Value>) -> Bool {
        let retained = Unmanaged.passRetained(binding)
        let address = UInt(bitPattern: retained.toOpaque())
        let (exchanged, _) = bindingAddress.compareExchange(expected: 0, desired: address, ordering: .acquiringAndReleasing)
        if !exchanged { retained.release() }
        return exchanged
    }
}

/// A bound flag: the shared reference of its key in the pole's layered store, with its default.
@usableFromInline
final class FlagBinding<Value: Storable>: Sendable {
    @usableFromInline let reference: DefaultedReference<LayeredStore, Value>

    init(reference: DefaultedReference<LayeredStore, Value>) {
        self.reference = reference
    }
}
