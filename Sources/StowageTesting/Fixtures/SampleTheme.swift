import Stowage

/// An enum kept as its `String` raw value, for the raw-representable round trip.
enum SampleTheme: String, Storable, CaseIterable {
    case light
    case dark
    case highContrast = "high-contrast"
    case empty = ""
}
