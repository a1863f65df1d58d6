/// Which library wrote the values in `UserDefaults`, and so how to read
/// those `UserDefaults` can not keep as they are.
///
/// All of them write booleans, numbers, strings, `Data`, dates, arrays and
/// dictionaries of those as themselves, under the key as given, and remove
/// the key for `nil`. They differ in the rest:
///
/// | Library | `Codable` values | `URL` |
/// | --- | --- | --- |
/// | Foil (6.x) | JSON (`JSONEncoder()`) as `Data`; each element of an array, a set or a dictionary on its own | `set(_:forKey:)`'s own form, read with `url(forKey:)` |
/// | Defaults (5 to 9) | JSON as a `String`; each element of an array on its own | JSON as a `String` (`"https:\/\/…"`) |
/// | Defaults (1 to 4) | JSON as a `String`, arrays and dictionaries whole | JSON as a `String` |
/// | EFStorage (0.2 to 0.4) | JSON (`JSONEncoder()`) as `Data` | `absoluteString` |
///
/// `RawRepresentable` types are kept as their raw value, except in Defaults
/// 5 and later when the type is also `Codable`: then as JSON (`"\"dark\""`).
public struct UserDefaultsFormat: Sendable, Hashable, CustomStringConvertible {
    enum Library: String, Sendable, Hashable {
        case plain, foil, defaults, efStorage
    }

    let library: Library

    /// Values written with `UserDefaults.set(_:forKey:)` by hand: only what `UserDefaults` keeps as itself.
    public static let plain = UserDefaultsFormat(library: .plain)
    /// jessesquires/Foil.
    public static let foil = UserDefaultsFormat(library: .foil)
    /// sindresorhus/Defaults, every version since 1.0.
    public static let defaults = UserDefaultsFormat(library: .defaults)
    /// EFPrefix/EFStorage's `UserDefaults` storage.
    public static let efStorage = UserDefaultsFormat(library: .efStorage)

    public var description: String {
        switch library {
        case .plain: "plain UserDefaults"
        case .foil: "Foil"
        case .defaults: "Defaults"
        case .efStorage: "EFStorage"
        }
    }
}
