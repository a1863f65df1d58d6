import Stowage

/// An enum stored as its raw `Int8`, with a gap between its cases.
enum FuzzLevel: Int8, Storable {
    case low = -128
    case normal = 0
    case high = 100
}
