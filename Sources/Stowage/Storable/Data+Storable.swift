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
