#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension URL: Storable {
    public init(storedValue: StoredValue) throws {
        guard case .string(let text) = storedValue else { throw StorageError.typeMismatch(expected: URL.self, found: storedValue) }
        guard let value = URL(string: text) else {
            throw StorageError(code: .invalidValue, reason: "expected URL, found a string that is not a valid URL.")
        }
        self = value
    }

    public func storedValue() -> StoredValue { .string(absoluteString) }
}
