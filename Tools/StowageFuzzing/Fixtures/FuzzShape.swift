import Stowage

/// An enum with associated values, stored through its synthesized `Codable`
/// conformance as nested dictionaries.
enum FuzzShape: Codable, Storable, Hashable {
    case point
    case circle(radius: Double)
    case polygon([Int16])
    case labeled(String, isFilled: Bool?)
}
