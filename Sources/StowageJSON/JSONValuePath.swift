/// Where a value sits inside the value being serialized, such as
/// `server.ratio` or `servers[2].ports`.
///
/// The serializer keeps no path while it writes; when it meets a value it can
/// not write it throws, and each enclosing container adds its key or index as
/// the error passes by. The components are therefore gathered innermost first.
struct JSONValuePath: Sendable {
    enum Component: Sendable {
        case key(String)
        case index(Int)
    }

    /// Innermost component first.
    private(set) var reversedComponents: [Component] = []

    /// Adds the component of the container the error is leaving.
    mutating func prepend(_ component: Component) {
        reversedComponents.append(component)
    }

    /// The path as people write it, empty at the top level.
    var dottedDescription: String {
        var text = ""
        for component in reversedComponents.reversed() {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    /// The opening of an error's reason, matching the one coding errors use.
    var locationDescription: String {
        reversedComponents.isEmpty ? "At the top level" : "At \"\(dottedDescription)\""
    }
}
