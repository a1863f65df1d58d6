/// A feature flag: a property of a ``FlagContainer`` with a default and a
/// description, read through a ``FlagPole``.
///
/// ```swift
/// struct AppFlags: FlagContainer {
///     @Flag("Shows the new checkout flow") var newCheckout = false
///     @Flag("The colour scheme", key: .custom("ui-theme")) var theme = Theme.light
/// }
/// ```
///
/// The value is read-only in code: it changes only through the pole
/// (``FlagPole/override(_:with:)``, ``FlagPole/update(with:mode:)-(Sequence<UInt8>,_)``), so app
/// code can not set a flag by accident. `Value` is any `Storable`: `Bool`,
/// integers, `Double`, `String`, `RawRepresentable` enums (listed with their
/// cases when `CaseIterable`), `Codable` values.
@propertyWrapper
public struct Flag<Value: Storable>: Sendable {
    /// Uncounted, so that copying a group of flags costs no reference
    /// counting, and read as a guaranteed reference, so that a read retains
    /// nothing either; declarations live as long as the process (see `FlagDeclaration`).
    @usableFromInline let unmanagedDeclaration: Unmanaged<FlagDeclaration<Value>>

    /// - Parameters:
    ///   - wrappedValue: the default: what the flag reads while neither an
    ///     override nor a remote value is set.
    ///   - description: what the flag does, for lists and tools.
    ///   - key: how the flag's part of its key is written.
    public init(wrappedValue: Value, _ description: String, key: FlagKey = .automatic) {
        unmanagedDeclaration = Unmanaged.passUnretained(FlagDeclarations.make(defaultValue: wrappedValue, description: description, key: key))
    }

    /// The flag's value: the override, else the remote value, else the default.
    @inlinable
    public var wrappedValue: Value { unmanagedDeclaration._withUnsafeGuaranteedRef { $0.value } }

    var declaration: FlagDeclaration<Value> { unmanagedDeclaration.takeUnretainedValue() }
}
