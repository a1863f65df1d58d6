/// The namespace typed keys are declared in, as `static let`s (safe in Swift 6,
/// unlike the `static var` of older libraries):
///
/// ```swift
/// extension StorageKeys {
///     static let retries = StorageKey<Int>("net.retries", default: 3)
/// }
/// store[.retries] += 1
/// ```
///
/// It is a class only so that its static members are found from `StorageKey`,
/// which makes the leading-dot syntax work; it has no state.
public class StorageKeys: @unchecked Sendable {
    // Internal: only `StorageKey` derives from it, and nobody outside makes one.
    init() {}
}
