import Stowage

enum Theme: String, Storable, Codable { case light, dark }

struct Address: Codable, Equatable, Sendable {
    var city: String
    var postcode: String?
}

struct Profile: Codable, Storable, Equatable {
    var name = "Guest"
    var age = 0
    var address = Address(city: "Paris", postcode: nil)
    var tags: [String] = []
}
