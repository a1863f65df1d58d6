/// The Foundation value types a store keeps: `Date`, `Data`, `UUID` and `URL`.
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Data is kept as `.data`; stores that keep only text hand back base64, which reads too.
extension Data: Storable {
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .data(let value): self = value
        case .string(let text):
            guard let value = Data(base64Encoded: text) else {
                throw StorageError(code: .invalidValue, reason: "expected Data, found a string that is not valid base64.")
            }
            self = value
        default: throw StorageError.typeMismatch(expected: Data.self, found: storedValue)
        }
    }

    public func storedValue() -> StoredValue { .data(self) }
}

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

/// Dates are kept as `.date`; stores that keep only text hand back ISO 8601, which reads too.
extension Date: Storable {
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .date(let value): self = value
        case .string(let text):
            guard let value = Date(iso8601String: text) else {
                throw StorageError(code: .invalidValue, reason: "expected Date, found a string that is not an ISO 8601 date.")
            }
            self = value
        default: throw StorageError.typeMismatch(expected: Date.self, found: storedValue)
        }
    }

    public func storedValue() -> StoredValue { .date(self) }
}
