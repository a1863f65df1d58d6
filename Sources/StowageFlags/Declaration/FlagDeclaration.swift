import StowageLocking
public import Synchronization

/// What one `@Flag` declares, and, once a ``FlagPole`` has opened the
/// container, the reader the flag reads through.
///
/// Declarations live as long as the process (``FlagDeclarations``), and
/// `Flag` points to its declaration without counting: reading a flag in a
/// group copies the group, and a counted reference per flag made that copy
/// cost a retain and a release per flag of the group (4.6 times a wrapper
/// read for a group of two, 200 times for a group of 100, in benchmark
/// group 13). A declaration and its readers take a few hundred bytes per
/// flag; the pole keeps the references and stores, which go with it.
///
/// The binding is set after the declaration is made (the pole finds flags
/// by reflection only once the container exists) and read on every flag
/// read, so it is published through an atomic word: a read is one acquiring
/// load, no lock and no retain. Bindings are kept for the life of the
/// process too, so a read that loaded one never finds it gone.
@usableFromInline
final class FlagDeclaration<Value: Storable>: Sendable {
    let defaultValue: Value
    let description: String
    let key: FlagKey
    /// The address of the `FlagBinding`, or 0 while no pole has the container open.
    @usableFromInline let bindingAddress = Atomic<UInt>(0)
    /// Whether a read must evaluate the flag's configuration (it has a
    /// targeting rule, a broken definition, or serves a value the remote key
    /// does not hold) for the task's context instead of reading the cached
    /// value. One relaxed load on every read; the evaluation only when set.
    @usableFromInline let isTargeted = Atomic<Bool>(false)
    /// The address of the pole's ``FlagTargetingReader`` for the flag, or 0.
    let targetingReaderAddress = Atomic<UInt>(0)

    init(defaultValue: Value, description: String, key: FlagKey) {
        self.defaultValue = defaultValue
        self.description = description
        self.key = key
    }

    /// Worked out when asked (making the catalog, and in messages), not kept:
    /// a declaration lives for the process, and LeakSanitizer does not see
    /// through the bits Swift packs into an enum's payload pointer, so a kept
    /// list of an enum's cases is reported as a leak at exit.
    var type: FlagType { FlagType(of: Value.self) }

    /// The binding, while a pole has the container open.
    @inlinable
    var binding: FlagBinding<Value>? {
        guard let pointer = UnsafeRawPointer(bitPattern: bindingAddress.load(ordering: .acquiring)) else { return nil }
        return Unmanaged<FlagBinding<Value>>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The value: through the pole's reference, or the default outside a pole.
    @inlinable
    var value: Value {
        guard let pointer = UnsafeRawPointer(bitPattern: bindingAddress.load(ordering: .acquiring)) else { return unboundValue() }
        if isTargeted.load(ordering: .relaxed) { return targetedValue() }
        return Unmanaged<FlagBinding<Value>>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.value }
    }

    /// The value for the task's ``EvaluationContext``: the override, else
    /// what the targeting rule gives, else the default; the hooks run around it.
    @usableFromInline
    func targetedValue() -> Value {
        guard let binding else { return unboundValue() }
        guard let pointer = UnsafeRawPointer(bitPattern: targetingReaderAddress.load(ordering: .acquiring)) else { return binding.value }
        let reader = Unmanaged<FlagTargetingReader>.fromOpaque(pointer).takeUnretainedValue()
        guard let board = reader.board else { return binding.value }
        binding.trackAccess()
        let resolution: FlagResolution
        if board.hasHooks {
            // The whole evaluation, so that the hooks see an override as such; its value is the binding's, as below.
            resolution = board.resolveWithHooks(key: reader.key, context: EvaluationContext.current)
            if resolution.reason == .override { return binding.value }
        } else {
            if board.hasOverride(forKey: reader.key) { return binding.value }
            resolution = board.resolveBelowOverrides(key: reader.key, context: EvaluationContext.current)
        }
        guard let stored = resolution.value else { return defaultValue }
        return (try? Value(storedValue: stored)) ?? defaultValue
    }

    func setTargeted(_ isTargeted: Bool) {
        self.isTargeted.store(isTargeted && bindingAddress.load(ordering: .acquiring) != 0, ordering: .releasing)
    }

    /// Gives the flag its pole's evaluator of targeting rules.
    func attachTargeting(_ reader: FlagTargetingReader) {
        FlagDeclarations.keepForTheProcess(reader)
        targetingReaderAddress.store(UInt(bitPattern: Unmanaged.passUnretained(reader).toOpaque()), ordering: .releasing)
    }

    /// Outside a pole: the default. A pole finding out which flag a key path
    /// names reads it here, on its second copy of the container, which no
    /// pole binds.
    @usableFromInline
    func unboundValue() -> Value {
        FlagProbe.value(of: self)
    }

    /// Binds the flag, unless a pole has it open already.
    /// - Returns: `false` when another pole has it.
    func bind(_ binding: FlagBinding<Value>) -> Bool {
        let address = UInt(bitPattern: Unmanaged.passUnretained(binding).toOpaque())
        guard bindingAddress.compareExchange(expected: 0, desired: address, ordering: .acquiringAndReleasing).exchanged else { return false }
        // Kept for good, and reachable: a read may still hold the address after the pole unbinds it.
        FlagDeclarations.keepForTheProcess(binding)
        return true
    }

    /// Unbinds the flag when its pole goes: it reads its default again.
    func unbind() {
        isTargeted.store(false, ordering: .releasing)
        targetingReaderAddress.store(0, ordering: .releasing)
        bindingAddress.store(0, ordering: .releasing)
    }
}

/// A bound flag: a reader of its key's reference in the pole's layered
/// store. The declaration points to the reader itself, so a read loads one
/// address and retains nothing.
@usableFromInline
typealias FlagBinding<Value: Storable> = DetachedReader<LayeredStore, Value>

/// How a bound flag reaches its pole's configurations to evaluate its
/// targeting rule. Kept for the process, like bindings, so that a read
/// holding its address never finds it gone; the pole goes when it goes.
final class FlagTargetingReader: Sendable {
    weak let board: FlagBoard?
    let key: String

    init(board: FlagBoard, key: String) {
        self.board = board
        self.key = key
    }
}

/// Keeps every flag declaration for the life of the process; see ``FlagDeclaration``.
enum FlagDeclarations {
    private static let kept = Locked<[any AnyObject & Sendable]>([])

    /// A declaration, kept for the life of the process.
    static func make<Value: Storable>(defaultValue: Value, description: String, key: FlagKey) -> FlagDeclaration<Value> {
        let declaration = FlagDeclaration(defaultValue: defaultValue, description: description, key: key)
        keepForTheProcess(declaration)
        return declaration
    }

    /// Keeps `object` (a declaration, or the reader a pole bound one to) for the life of the process.
    static func keepForTheProcess(_ object: some AnyObject & Sendable) {
        kept.withLock { $0.append(object) }
    }
}
