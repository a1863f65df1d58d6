import Stowage
import Synchronization

/// A flag's declaration with its value type erased, for the walk over a
/// container and for the pole's work by key.
protocol AnyFlagDeclaration: AnyObject, FlagValueChecker {
    var description: String { get }
    var key: FlagKey { get }
    var isBound: Bool { get }
    /// The default's stored form.
    func encodedDefault() throws -> StoredValue
    /// Binds the flag to its key in `store`.
    /// - Returns: the reference the pole keeps, or `nil` when another pole has the flag.
    func bind(in store: LayeredStore, key: String) -> (any Sendable)?
    /// Unbinds the flag, when its pole goes.
    func unbind()
    /// Gives the bound flag its pole's evaluator of targeting rules.
    func attachTargeting(_ reader: FlagTargetingReader)
    /// Tells Observation tracking in progress that the flag was read.
    func trackAccess()
    /// A value of the flag's type other than its default, for the probe;
    /// `nil` when the type gives no way to make one.
    func valueOtherThanDefault() -> (any Sendable)?
}

extension FlagDeclaration: AnyFlagDeclaration {

    var isBound: Bool { bindingAddress.load(ordering: .acquiring) != 0 }

    func encodedDefault() throws -> StoredValue {
        try defaultValue.storedValue()
    }

    func bind(in store: LayeredStore, key: String) -> (any Sendable)? {
        let reference = store.reference(forKey: key, as: Value.self)
        guard bind(DetachedReader(reference, default: defaultValue)) else { return nil }
        return reference
    }

    func canonicalValue(_ stored: StoredValue, in source: (any UnderlyingStorage)?, key: String) throws -> StoredValue {
        let value: Value
        do {
            value = try source?.decodeValue(stored, as: Value.self, forKey: key) ?? Value(storedValue: stored)
        } catch {
            throw StorageError.wrapping(error, key: key, code: .typeMismatch, reason: "expected \(type).")
        }
        return try value.storedValue()
    }

    func trackAccess() {
        binding?.trackAccess()
    }

    func valueOtherThanDefault() -> (any Sendable)? {
        guard let stored = try? defaultValue.storedValue() else { return nil }
        let other: StoredValue?
        switch (type.kind, stored) {
        case (.bool, .bool(let flag)): other = .bool(!flag)
        case (.integer, .signedInteger(let number)): other = .signedInteger(number == .max ? number - 1 : number + 1)
        case (.integer, .unsignedInteger(let number)): other = .unsignedInteger(number == .max ? number - 1 : number + 1)
        case (.floatingPoint, .double(let number)) where number.isFinite: other = .double(number == 0 ? 1 : -number)
        case (.string, .string(let text)): other = .string(text + "\u{2022}")
        case (.choice(let cases), _): other = cases.first { $0 != stored }
        default: other = nil
        }
        return other.flatMap { try? Value(storedValue: $0) }
    }
}

/// A `@Flag` found in a container.
protocol DeclaredFlag {
    var anyDeclaration: any AnyFlagDeclaration { get }
}

extension Flag: DeclaredFlag {
    var anyDeclaration: any AnyFlagDeclaration { declaration }
}

/// A `@FlagGroup` found in a container.
protocol DeclaredFlagGroup {
    var container: any FlagContainer { get }
    var groupDescription: String { get }
    var groupKey: FlagGroupKey { get }
}

extension FlagGroup: DeclaredFlagGroup {
    var container: any FlagContainer { wrappedValue }
    var groupDescription: String { description }
    var groupKey: FlagGroupKey { key }
}
