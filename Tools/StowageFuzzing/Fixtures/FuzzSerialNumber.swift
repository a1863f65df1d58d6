import Stowage

/// A struct stored as its raw `UInt64`, whose initializer refuses zero, as
/// validating wrapper types do.
struct FuzzSerialNumber: RawRepresentable, Storable, Hashable {
    let rawValue: UInt64

    init?(rawValue: UInt64) {
        guard rawValue != 0 else { return nil }
        self.rawValue = rawValue
    }
}
