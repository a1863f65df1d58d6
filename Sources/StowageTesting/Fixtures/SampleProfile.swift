import Stowage

/// A `Codable` struct with every kind of field the codec must nest: a struct,
/// an array of structs, a dictionary, optionals both present and absent.
struct SampleProfile: Codable, Storable, Equatable {
    struct Address: Codable, Equatable, Sendable {
        var street: String
        var city: String
        var postcode: String?
    }

    var name: String
    var age: Int
    var isAdmin: Bool
    var rating: Double
    var largestNumber: Int64
    var address: Address
    var previousAddresses: [Address]
    var nickname: String?
    var tags: [String]
    var scores: [String: Int]
    var nestedLists: [[Int]]

    /// A profile with every optional field set.
    static let complete = SampleProfile(
        name: "Ada Lovelace",
        age: 36,
        isAdmin: true,
        rating: 4.75,
        largestNumber: .max,
        address: Address(street: "12 St James's Square", city: "London", postcode: "SW1Y 4JH"),
        previousAddresses: [
            Address(street: "Piccadilly Terrace", city: "London", postcode: nil),
            Address(street: "Ockham Park", city: "Surrey", postcode: "GU23 6NU"),
        ],
        nickname: "Enchantress of Numbers",
        tags: ["analyst", "poet", ""],
        scores: ["notes": 7, "engines": 2, "": 0],
        nestedLists: [[1, 2], [], [3]]
    )

    /// A profile with every optional field absent and every collection empty.
    static let sparse = SampleProfile(
        name: "",
        age: 0,
        isAdmin: false,
        rating: -0.5,
        largestNumber: .min,
        address: Address(street: "", city: "Nowhere", postcode: nil),
        previousAddresses: [],
        nickname: nil,
        tags: [],
        scores: [:],
        nestedLists: []
    )
}
