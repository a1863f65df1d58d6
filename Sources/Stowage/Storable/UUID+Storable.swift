#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension UUID: Storable {
    public init(storedValue: StoredValue) throws {
        guard case .string(let text) = storedValue else { throw StorageError.typeMismatch(expected: UUID.self, found: storedValue) }
        guard let value = UUID(uuidString: text) else {
            throw StorageError(code: .invalidValue, reason: "expected UUID, found a string that is not a UUID.")
        }
        self = value
    }

    public func storedValue() -> StoredValue { .string(uuidString) }
}
