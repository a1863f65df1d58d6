import Stowage

/// An enum stored as its raw string; one case's raw value is empty.
enum FuzzTheme: String, Codable, Storable, CaseIterable {
    case light, dark
    case system = ""
}
