/// The coding path of a value being encoded or decoded, kept as a linked list.
///
/// Descending into a nested value then costs one small allocation instead of
/// copying an array of keys at every level. The array that `Encoder` and
/// `Decoder` expose, and the text that error messages show, are only built
/// when someone asks for them.
indirect enum CodingPathNode {
    case root
    case key(any CodingKey, parent: CodingPathNode)
    case index(Int, parent: CodingPathNode)

    /// The path in the form the `Encoder` and `Decoder` protocols expose.
    var codingKeys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root:
                return keys.reversed()
            case .key(let key, let parent):
                keys.append(key)
                node = parent
            case .index(let index, let parent):
                keys.append(SyntheticCodingKey(index: index))
                node = parent
            }
        }
    }

    /// The path as people write it, such as `address.city` or `items[2].name`;
    /// empty at the root.
    var dottedDescription: String {
        var reversedComponents: [(name: String, isIndex: Bool)] = []
        var node = self
        walk: while true {
            switch node {
            case .root:
                break walk
            case .key(let key, let parent):
                reversedComponents.append((key.stringValue, false))
                node = parent
            case .index(let index, let parent):
                reversedComponents.append((String(index), true))
                node = parent
            }
        }
        var text = ""
        for component in reversedComponents.reversed() {
            if component.isIndex {
                text += "[\(component.name)]"
            } else {
                if !text.isEmpty { text += "." }
                text += component.name
            }
        }
        return text
    }

    /// The opening of every coding error's reason, so all of them name the
    /// place the same way.
    var locationDescription: String {
        if case .root = self { return "At the top level" }
        return "At \"\(dottedDescription)\""
    }
}
